"""The CRF peer (He et al. 2015 features): BIO round trip, features, learning, save/load, cv row."""
import numpy as np
import pytest

pytest.importorskip("sklearn_crfsuite", reason="the CRF peer needs sklearn-crfsuite (pip install '.[peers]')")

from itdeid.estimators.crf import CRFModel, bio, document_features, unbio  # noqa: E402
from itdeid.training.crossval import crossval, row_model  # noqa: E402
from itdeid.document import Document, Span  # noqa: E402
from itdeid.errors import UserError  # noqa: E402
from itdeid.evaluation.evaluate import evaluate  # noqa: E402
from itdeid.featurize import tokenize_document  # noqa: E402

from helpers import tiny_corpus  # noqa: E402


def test_bio_keeps_adjacent_phrases_apart():
    codes = [0, 1, 1, 2, 2, 0, 5]
    assert bio(codes) == ["O", "B-PATIENT", "I-PATIENT", "B-DOCTOR", "I-DOCTOR", "O", "B-DATE"]
    assert unbio(bio(codes)).tolist() == codes


def test_features_of_a_token_and_its_window():
    td = tokenize_document(Document("d", "Seen by Dr. Smith on 3/4/2005", [Span(12, 17, "DOCTOR")]))
    feats = document_features(td, window=2)
    i = [t.text for t in td.tokens].index("Smith")
    f = feats[i]
    assert f["w=smith"] == 1.0 and f["shape=Xxx"] == 1.0 and f["p2=sm"] == 1.0 and f["s4=mith"] == 1.0
    assert f["title"] == 1.0 and f["last"] == 1.0 and "digits" not in f
    assert f["-1:w=."] == 1.0 and f["-2:w=dr"] == 1.0 and f["+1:w=on"] == 1.0
    assert feats[0]["BOS"] == 1.0 and feats[-1]["EOS"] == 1.0
    date = feats[[t.text for t in td.tokens].index("3/4/2005")]
    assert date["has_digit"] == 1.0 and date["punct"] == 1.0 and date["shape=d/d/dd"] == 1.0


def test_learns_and_round_trips(tmp_path):
    corpus = tiny_corpus(40)
    model = CRFModel(max_iterations=50).fit(corpus[:30])
    predicted = model.predict(corpus[30:])
    scores = evaluate(corpus[30:], {d.id: p for d, p in zip(corpus[30:], predicted)})
    assert scores.to_dict()["summary"]["token_8way"]["f"] > 0.8
    tokenized = [tokenize_document(d) for d in corpus[30:]]
    proba = model.predict_proba_tokenized(tokenized)
    tags = model.predict_tokenized(tokenized)
    assert all(np.allclose(p.sum(axis=1), 1.0) for p in proba)
    agree = np.mean(np.concatenate([p.argmax(axis=1) == t for p, t in zip(proba, tags)]))
    assert agree > 0.99          # the marginals' best label is the best sequence's, nearly always
    with pytest.raises(UserError, match="PHI"):
        model.save(tmp_path / "crf")
    model.save(tmp_path / "crf", keeps_training_phi=True)
    assert CRFModel.load(tmp_path / "crf").predict(corpus[30:]) == predicted
    # a lone surrogate (a str from the API can hold one) made CRFsuite raise SystemError
    odd = Document("odd", "Seen by Dr. Sm\ud800ith on 3/4/2005.", [])
    assert len(model.predict([odd])) == 1


def test_cv_row():
    corpus = tiny_corpus(12)
    result = crossval(corpus, lambda: row_model("CRF", {}, {"random_state": 0}), folds=2)
    assert result.name == "model" and len(result.per_fold) == 2
    assert isinstance(row_model("CRF", {}, {}), CRFModel)
    assert not isinstance(row_model("XGB_TOKEN", {"learner": "xgboost"}, {}), CRFModel)


def test_without_the_peers_extra_the_crf_says_what_to_install(monkeypatch):
    """It was a ModuleNotFoundError traceback from `itdeid cv --rows CRF`."""
    import sys
    monkeypatch.setitem(sys.modules, "sklearn_crfsuite", None)
    with pytest.raises(UserError, match=r"pip install 'itdeid\[peers\]'"):
        CRFModel(max_iterations=5).fit(tiny_corpus(4))


def test_a_crf_folder_is_one_kind_of_model_folder(tmp_path):
    """Saving a CRF into a token model's folder (or the other way) succeeded and load_model went
    on returning the old model; load_model said a CRF folder was no model folder."""
    import json

    from itdeid.model_folder.load import load_model
    from itdeid.estimators.model import TokenModel
    corpus = tiny_corpus(12)
    crf = CRFModel(max_iterations=10, stand_ins=1).fit(corpus)
    TokenModel(n_estimators=3, n_jobs=1).fit(corpus).save(tmp_path / "token")
    with pytest.raises(UserError, match="holds a model of another kind"):
        crf.save(tmp_path / "token")
    crf.save(tmp_path / "crf")
    with pytest.raises(UserError, match="holds a model of another kind"):
        TokenModel(n_estimators=3, n_jobs=1).fit(corpus).save(tmp_path / "crf")
    loaded = load_model(tmp_path / "crf")
    assert isinstance(loaded, CRFModel) and loaded.predict(corpus) == crf.predict(corpus)
    (tmp_path / "crf" / "model.json").write_text((tmp_path / "token" / "model.json").read_text())
    with pytest.raises(UserError, match="holds models of two kinds"):
        load_model(tmp_path / "crf")
    (tmp_path / "crf" / "model.json").unlink()
    state = json.loads((tmp_path / "crf" / "crf.json").read_text())
    state["params"]["window"] = "x"
    (tmp_path / "crf" / "crf.json").write_text(json.dumps(state))
    with pytest.raises(UserError, match=r"crf\.json: parameter 'window' must be int"):
        load_model(tmp_path / "crf")


def test_bad_parameters_and_a_corpus_without_phi_are_refused_at_fit():
    from itdeid.errors import ParameterError
    corpus = tiny_corpus(6)
    for params, message in ((dict(window="x"), "window must be an integer"),
                            (dict(c1=-1), "c1 must be a number >= 0")):
        with pytest.raises(ParameterError, match=message):
            CRFModel(**params).fit(corpus)
    with pytest.raises(UserError, match="no gold PHI"):
        CRFModel().fit([Document(d.id, d.text, []) for d in corpus])


def test_a_threshold_for_the_crf_is_refused_not_ignored():
    from itdeid.estimators.deidentifier import set_threshold
    crf = CRFModel(max_iterations=5).fit(tiny_corpus(6))
    with pytest.raises(UserError, match="a CRFModel tags with no P\\(PHI\\) threshold"):
        set_threshold(crf, 0.5)
    assert set_threshold(crf, None) is crf          # no override: nothing to refuse
