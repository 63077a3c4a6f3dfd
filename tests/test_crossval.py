"""Cross-validation: folds cut on document boundaries, grouped by patient; fit only on training folds."""
import numpy as np
import pytest

from itdeid.training.crossval import crossval, group_folds, results_table
from itdeid.document import Document
from itdeid.estimators.model import TokenModel

from helpers import tiny_corpus


def test_patients_never_straddle_folds():
    docs = tiny_corpus(40)
    folds = group_folds(docs, 5, seed=3)
    by_patient = {}
    for d, f in zip(docs, folds):
        by_patient.setdefault(d.patient, set()).add(int(f))
    assert all(len(s) == 1 for s in by_patient.values())
    assert set(folds.tolist()) == set(range(5))
    sizes = np.bincount(folds, weights=[len(d.text) for d in docs])
    assert sizes.max() / sizes.min() < 1.5                  # balanced by characters


def test_folds_deterministic_and_seeded():
    docs = tiny_corpus(40)
    np.testing.assert_array_equal(group_folds(docs, 5, 1), group_folds(docs, 5, 1))
    assert not np.array_equal(group_folds(docs, 5, 1), group_folds(docs, 5, 2))


def test_documents_without_patient_are_their_own_group():
    docs = [Document(f"d{i}", "x " * (i + 1)) for i in range(6)]
    assert len(set(group_folds(docs, 3).tolist())) == 3
    with pytest.raises(ValueError, match="cannot fill"):
        group_folds(docs[:2], 3)


class SpyModel(TokenModel):
    """Records which documents each fold's model was fitted on (a class attribute log)."""

    log: list = []

    def fit_tokenized(self, docs, trusted=None):
        SpyModel.log.append({td.document.id for td in docs})
        return super().fit_tokenized(docs, trusted)


def test_each_fold_trains_on_training_folds_only():
    docs = tiny_corpus(30)
    SpyModel.log = []
    result = crossval(docs, lambda: SpyModel(n_estimators=5, n_jobs=1, trigger_min_count=2, previous="gold"), folds=3, seed=0)
    folds = group_folds(docs, 3, 0)
    for f, trained in enumerate(SpyModel.log):
        expected = {d.id for d, k in zip(docs, folds) if k != f}
        assert trained == expected
    assert set(result.predictions) == {d.id for d in docs}      # every note predicted out of fold
    assert len(result.per_fold) == 3
    table = results_table([result])
    assert {"9way_F", "8way_P", "8way_R", "8way_F", "seconds"} <= set(table.columns)
    assert 50 < table.loc["model", "8way_F"] <= 100


def test_inner_splits_keep_each_patient_on_one_side(monkeypatch):
    """Out-of-fold previous labels (TokenModel) and harvests (Deidentifier) are predicted by
    inner models that saw none of the patient's notes (issue G, item 7): the inner split used
    to be document order modulo k, which put a patient's two notes on both sides."""
    from itdeid.estimators.deidentifier import Deidentifier
    from itdeid.featurize import tokenize_document
    from itdeid.estimators.folds import inner_split
    from itdeid.estimators.model import TokenModel

    docs = tiny_corpus(18, seed=7)                       # two notes a patient, consecutive
    fold, k = inner_split(docs, 3)
    assert k == 3
    for patient in {d.patient for d in docs}:
        assert len({fold[i] for i, d in enumerate(docs) if d.patient == patient}) == 1
    seen = []
    fit = TokenModel.fit_tokenized

    def recording_fit(self, tds, trusted=None):
        seen.append({td.document.id for td in tds})
        return fit(self, tds, trusted)

    monkeypatch.setattr(TokenModel, "fit_tokenized", recording_fit)
    tds = [tokenize_document(d) for d in docs]
    TokenModel(n_estimators=3, n_jobs=1, previous="oof", inner_folds=3).fit_tokenized(tds)
    Deidentifier(iterations=1, harvest="oof", inner_folds=2,
                 model_params=dict(n_estimators=3, n_jobs=1, previous="gold")).fit_tokenized(tds)
    inner = [ids for ids in seen if len(ids) < len(docs)]
    assert len(inner) >= 3 + 2 * 3                       # TokenModel's 3, Deidentifier's 2 x 3
    for ids in inner:
        for patient in {d.patient for d in docs}:
            notes = {d.id for d in docs if d.patient == patient}
            assert notes <= ids or not notes & ids, f"patient {patient} split by an inner fold"


def test_inner_split_without_patients_falls_back_to_documents():
    from itdeid.estimators.folds import inner_split

    docs = tiny_corpus(6, seed=7)
    for d in docs:
        d.patient = "same"
    fold, k = inner_split(docs, 3)
    assert k == 3 and sorted(set(fold.tolist())) == [0, 1, 2]


def test_lever_rows_run_in_itdeid_cv(tmp_path):
    """Issue G's lever rows (operating point, identifier templates) are rows of itdeid cv."""
    from itdeid.cli import main
    from itdeid.formats import write_i2b2_2006

    write_i2b2_2006(tiny_corpus(12, seed=8), tmp_path / "c.xml")
    assert main(["cv", str(tmp_path / "c.xml"), "--folds", "2", "--rows", "XGB_TOKEN_R97_IDS",
                 "--n-jobs", "1", "--out", str(tmp_path / "cv")]) == 0
    assert "XGB_TOKEN_R97_IDS" in (tmp_path / "cv" / "results.md").read_text()


def test_crossval_takes_the_estimator_itself():
    from itdeid.estimators.model import TokenModel
    docs = tiny_corpus(12, seed=2)
    by_factory = crossval(docs, lambda: TokenModel(n_estimators=3, n_jobs=1), folds=2)
    by_estimator = crossval(docs, TokenModel(n_estimators=3, n_jobs=1), folds=2)
    assert by_factory.predictions == by_estimator.predictions
