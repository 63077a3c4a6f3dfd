"""TokenModel: the estimator contract, tagging, save/load giving identical predictions."""
import json

import numpy as np
import sklearn.base
import pytest

from itdeid.evaluation.evaluate import evaluate
from itdeid.estimators.model import NotFittedError, TokenModel

from helpers import tiny_corpus


@pytest.fixture(scope="module")
def corpus():
    return tiny_corpus(40, seed=1)


@pytest.fixture(scope="module")
def fitted(corpus):
    return TokenModel(n_estimators=30, n_jobs=1, trigger_min_count=2).fit(corpus[:30])


def test_estimator_contract():
    model = TokenModel(trigger="phrase", window=1)
    assert model.get_params()["trigger"] == "phrase"
    assert model.set_params(window=3) is model and model.window == 3
    clone = sklearn.base.clone(model)
    assert clone.get_params() == model.get_params() and not hasattr(clone, "learner_")
    with pytest.raises(ValueError):
        model.set_params(bogus=1)


def test_fit_returns_self_with_learned_attributes(corpus):
    model = TokenModel(n_estimators=5, n_jobs=1)
    assert model.fit(corpus[:10]) is model
    assert model.feature_names_ and hasattr(model, "learner_") and hasattr(model, "extractor_")


@pytest.mark.parametrize("estimator", ["token", "ensemble", "system", "crf", "rules"])
def test_fit_refuses_a_y_in_scikit_learns_habit(corpus, estimator):
    """The labels are the documents' spans; a y once slipped into the next positional
    parameter (trusted phrases, calibration flags) and trained on it."""
    from itdeid.estimators.crf import CRFModel
    from itdeid.estimators.deidentifier import Deidentifier
    from itdeid.estimators.ensemble import InnerEnsemble
    from itdeid.estimators.rules import RuleModel
    model = {"token": lambda: TokenModel(n_estimators=2, n_jobs=1),
             "ensemble": lambda: InnerEnsemble(TokenModel(n_estimators=2, n_jobs=1, previous="none"), folds=2),
             "system": lambda: Deidentifier(iterations=1), "crf": CRFModel, "rules": RuleModel}[estimator]()
    with pytest.raises(ValueError, match="y must be None"):
        model.fit(corpus[:4], [[0, 1]] * 4)
    assert not any(name.endswith("_") and not name.startswith("_") for name in vars(model))


def test_predicts_held_out_notes(corpus, fitted):
    held_out = corpus[30:]
    predicted = fitted.predict(held_out)
    scores = evaluate(held_out, {d.id: spans for d, spans in zip(held_out, predicted)})
    assert scores.to_dict()["summary"]["token_8way"]["f"] > 0.9


def test_gold_spans_are_ignored_when_predicting(corpus, fitted):
    from itdeid.document import Document
    stripped = [Document(d.id, d.text) for d in corpus[30:]]
    assert fitted.predict(stripped) == fitted.predict(corpus[30:])


def test_save_load_identical(corpus, fitted, tmp_path):
    fitted.save(tmp_path / "m")
    loaded = TokenModel.load(tmp_path / "m")
    assert loaded.get_params() == fitted.get_params()          # tuples come back tuples
    assert loaded.predict(corpus[30:]) == fitted.predict(corpus[30:])
    assert {p.name for p in (tmp_path / "m").iterdir()} == {"model.json", "learner.ubj.gz"}


def test_model_file_holds_no_training_phi(corpus, fitted, tmp_path):
    fitted.save(tmp_path / "m")
    state = (tmp_path / "m" / "model.json").read_text(encoding="utf-8").lower()
    from helpers import FIRST, LAST
    for name in FIRST + LAST:
        assert f'"{name.lower()}"' not in state, name


def test_not_fitted(corpus):
    with pytest.raises(NotFittedError):
        TokenModel().predict(corpus[:1])


def test_load_refuses_other_files(tmp_path):
    from itdeid.errors import UserError
    with pytest.raises(UserError, match="not a model folder"):
        TokenModel.load(tmp_path)
    (tmp_path / "model.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(UserError, match="model.json:1"):
        TokenModel.load(tmp_path)
    (tmp_path / "model.json").write_text(json.dumps({"kind": "Other", "format": 9}), encoding="utf-8")
    with pytest.raises(UserError, match="model format"):
        TokenModel.load(tmp_path)


@pytest.mark.parametrize("previous", ["oof", "none"])
def test_previous_label_sources(corpus, previous):
    model = TokenModel(n_estimators=10, n_jobs=1, previous=previous, inner_folds=2).fit(corpus[:20])
    codes = model.predict_tokenized([__import__("itdeid.featurize", fromlist=["x"]).tokenize_document(corpus[25])])
    assert codes[0].shape[0] > 0 and codes[0].max() > 0


@pytest.mark.parametrize("learner", ["tree", "adaboost", "majority"])
def test_other_learners_save_load(corpus, learner, tmp_path):
    model = TokenModel(learner=learner, n_estimators=3).fit(corpus[:12])
    model.save(tmp_path)
    assert TokenModel.load(tmp_path).predict(corpus[30:33]) == model.predict(corpus[30:33])


class ChainLearner:
    """A stand-in classifier whose label leans on the two previous labels, so a segment that
    starts without them goes wrong and must be repaired."""

    def predict_proba(self, X):
        codes = (3 * X[:, 1].astype(int) + X[:, 2].astype(int) + X[:, 0].astype(int)) % 9
        return np.eye(9, dtype=np.float32)[codes]


@pytest.mark.parametrize("segment", [2, 3, 7])
def test_segmented_decoding_equals_token_by_token(corpus, fitted, segment):
    """Long notes are decoded in segments side by side; the repaired result must be exactly the
    token-by-token one, both for a real model and for one whose labels chain."""
    from itdeid.featurize import tokenize_document
    from itdeid.estimators.decoding import decode
    from itdeid.estimators.model import _lengths
    docs = [tokenize_document(d, gold=False) for d in corpus[30:]]
    X = fitted.extractor_.transform(docs)
    columns = fitted.extractor_.previous_columns()
    whole = decode(fitted.learner_, X.copy(), _lengths(docs), columns, segment=10 ** 9)
    parts = decode(fitted.learner_, X.copy(), _lengths(docs), columns, segment=segment)
    assert all(np.array_equal(a, b) for a, b in zip(whole, parts))
    assert sum((p.argmax(1) > 0).sum() for p in whole) > 10      # the notes do hold PHI

    rng = np.random.default_rng(segment)
    lengths = np.array([1, 5, 40, 17, 2])
    X = np.zeros((lengths.sum(), 3))
    X[:, 0] = rng.integers(0, 9, len(X))
    exact = decode(ChainLearner(), X.copy(), lengths, [1, 2], segment=10 ** 9)
    naive = decode(ChainLearner(), X.copy(), lengths, [1, 2], segment=segment)
    assert all(np.array_equal(a, b) for a, b in zip(exact, naive))


@pytest.mark.parametrize("loader, filename", [("itdeid.estimators.model:TokenModel", "model.json"),
                                              ("itdeid.estimators.deidentifier:Deidentifier", "deidentifier.json"),
                                              ("itdeid.estimators.crf:CRFModel", "crf.json")])
def test_a_damaged_model_file_is_one_clear_error(tmp_path, loader, filename):
    """Every model kind reads its state through one checker: bad JSON names the file and line,
    another kind of model names what it is, never a traceback."""
    import importlib
    from itdeid.errors import UserError
    module, name = loader.split(":")
    cls = getattr(importlib.import_module(module), name)
    (tmp_path / filename).write_text('{"kind": "TokenModel",\n "format": ', encoding="utf-8")
    with pytest.raises(UserError, match=f"{filename}:2: not valid JSON"):
        cls.load(tmp_path)
    (tmp_path / filename).write_text('{"kind": "Elsewhere", "format": 7}', encoding="utf-8")
    with pytest.raises(UserError, match=f"model format Elsewhere v7 .* reads {name} v"):
        cls.load(tmp_path)
    (tmp_path / filename).write_text('[1, 2]', encoding="utf-8")
    with pytest.raises(UserError, match=f"{filename}: not a model state \\(a JSON object\\)"):
        cls.load(tmp_path)
    (tmp_path / filename).write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    with pytest.raises(UserError, match=f"{filename}: not valid JSON \\(nested too deeply\\)"):
        cls.load(tmp_path)


def test_negative_rate_keeps_phi_and_its_context_and_reweights_the_rest():
    """Training rows under negative_rate: every PHI token and every token within window + 1 of
    one is kept with weight 1; distant non-PHI tokens are sampled (seeded) with weight 1/rate."""
    y = np.zeros(40, dtype=np.int64)
    y[10] = 3                                   # one PHI token in document 1 (tokens 0..19)
    lengths = np.array([20, 20])                # document 2 (tokens 20..39) has none
    model = TokenModel(window=2, negative_rate=0.25, random_state=3)
    rows, weights = model._training_rows(y, lengths)
    kept = set(rows.tolist())
    assert set(range(7, 14)) <= kept            # 10 +- 3
    near = {r: w for r, w in zip(rows.tolist(), weights.tolist()) if 7 <= r <= 13}
    assert set(near.values()) == {1.0}
    far = [w for r, w in zip(rows.tolist(), weights.tolist()) if not 7 <= r <= 13]
    assert far and set(far) == {4.0} and len(far) < 33
    again_rows, _ = TokenModel(window=2, negative_rate=0.25, random_state=3)._training_rows(y, lengths)
    np.testing.assert_array_equal(rows, again_rows)
    assert TokenModel(negative_rate=1.0)._training_rows(y, lengths) == (None, None)
    with pytest.raises(ValueError, match="negative_rate"):
        TokenModel(negative_rate=0).check_params()


def test_negative_rate_trains_on_fewer_rows_and_still_tags(corpus):
    model = TokenModel(n_estimators=20, n_jobs=1, trigger_min_count=2, negative_rate=0.2).fit(corpus[:30])
    scores = evaluate(corpus[30:], dict(zip([d.id for d in corpus[30:]], model.predict(corpus[30:]))))
    assert scores.to_dict()["summary"]["token_8way"]["f"] > 0.5


def test_predict_of_no_documents_is_no_spans():
    from itdeid.synth import generate
    model = TokenModel(n_estimators=3, n_jobs=1).fit(generate(6, seed=1))
    assert model.predict([]) == [] and model.predict_tokenized([]) == []


@pytest.mark.parametrize("change", [
    {"n_estimators": 0}, {"n_estimators": -3}, {"max_depth": 0}, {"learning_rate": 0}, {"inner_folds": 1},
    {"n_jobs": 0}, {"window": 1.5}, {"device": "tpu"}, {"trigger_top_k": -1}, {"two_step": "no"},
    # NaN passes a '<= 0' test: these were taken, from a model file too
    {"learning_rate": float("nan")}, {"phi_weight": float("nan")}, {"trigger_min_gain": float("nan")},
    {"device": "cudaEVIL"},
])
def test_learner_and_split_parameters_are_checked_at_fit(change):
    """Zero used to mean 'the default' (n_estimators=0 trained 200 trees), a negative count a
    model of no PHI, a float window a TypeError deep inside: each is a ValueError naming it."""
    name = next(iter(change))
    with pytest.raises(ValueError, match=name):
        TokenModel(**change).check_params()


def test_an_ensemble_checks_its_own_parameters_at_fit():
    from itdeid.estimators.ensemble import InnerEnsemble
    from itdeid.synth import generate
    docs = generate(4, seed=1)
    for kwargs, name in (({"folds": 1}, "folds"), ({"screen": 2.0}, "screen")):
        with pytest.raises(ValueError, match=name):
            InnerEnsemble(TokenModel(n_estimators=3, n_jobs=1, previous="none"), **kwargs).fit(docs)
    with pytest.raises(ValueError, match="base"):
        InnerEnsemble("TokenModel").fit(docs)


def test_save_refuses_a_folder_holding_a_model_of_another_kind(tmp_path):
    """load_model picks the kind by its state file: a second kind's file beside it would win."""
    from itdeid.errors import UserError
    from itdeid.synth import generate
    model = TokenModel(n_estimators=3, n_jobs=1).fit(generate(6, seed=1))
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "deidentifier.json").write_text("{}")
    with pytest.raises(UserError, match="another kind"):
        model.save(tmp_path / "m")
    (tmp_path / "file").write_text("x")
    with pytest.raises(UserError, match="not a folder"):
        model.save(tmp_path / "file")
    model.save(tmp_path / "ok")
    model.save(tmp_path / "ok")          # the same kind again: overwritten in place


def test_fit_refuses_gold_spans_past_the_text_or_overlapping():
    from itdeid.document import Document, Span
    text = "Seen by Dr Quimby today."
    for spans in ([Span(8, 500, "DOCTOR")], [Span(8, 17, "DOCTOR"), Span(11, 17, "PATIENT")]):
        with pytest.raises(ValueError, match="document a"):
            TokenModel(n_estimators=3, n_jobs=1).fit([Document("a", text, spans)])


def test_inputs_that_are_not_documents_are_a_type_error_naming_the_position():
    """A notebook passing the notes' strings got AttributeError: 'str' object has no attribute
    'text' from deep inside featurize."""
    from itdeid.document import Document
    corpus = tiny_corpus(6, seed=2)
    model = TokenModel(n_estimators=3, n_jobs=1).fit(corpus)
    for documents, message in (("Seen by Dr. Smith.", "got one str: wrap it in a list"),
                               (corpus[0], "got one Document"),
                               (["Seen by Dr. Smith."], r"documents\[0\]: an itdeid.Document is needed, got str"),
                               ([corpus[0], None], r"documents\[1\]: .* got NoneType"),
                               ([Document("a", b"Dr. Smith")], r"documents\[0\] \('a'\): text must be str, got bytes")):
        for call in (model.predict, TokenModel(n_estimators=3, n_jobs=1).fit):
            with pytest.raises(TypeError, match=message):
                call(documents)
    assert model.predict(iter(corpus[:2])) == model.predict(corpus[:2])     # any iterable
