"""Deidentifier: iterations, stages, no gold at tagging time, save/load identical output."""
import pytest

from itdeid.estimators.deidentifier import Deidentifier
from itdeid.document import Document
from itdeid.featurize import tokenize_document

from helpers import tiny_corpus

PARAMS = dict(n_estimators=15, n_jobs=1, trigger_min_count=2)


@pytest.fixture(scope="module")
def corpus():
    return tiny_corpus(36, seed=5)


@pytest.fixture(scope="module")
def fitted(corpus):
    return Deidentifier(iterations=2, min_heading_tokens=3, harvest="gold", model_params=PARAMS).fit(corpus[:28])


def test_stages_and_unambiguous_headings(corpus, fitted):
    assert "ATTENDING" in fitted.headings_            # holds only DOCTOR tokens in tiny_corpus
    assert len(fitted.models_) == 3 and all(len(m) == 3 for m in fitted.models_)
    assert "trusted" in fitted.models_[1][0].groups and "trusted" not in fitted.models_[0][0].groups
    stages = fitted.predict_stages([tokenize_document(d) for d in corpus[28:]])
    for i in range(3):
        for name in ("TOKEN", "PHRASE", "NGRAM", "VOTE"):
            assert f"ITR{i}_{name}" in stages and f"ITR{i}_{name}_STD" in stages
    assert fitted.final_stage() == "ITR2_VOTE_STD"


def test_tagging_uses_no_gold(corpus, fitted):
    with_gold = fitted.predict(corpus[28:])
    without = fitted.predict([Document(d.id, d.text, [], d.patient) for d in corpus[28:]])
    assert with_gold == without


def test_save_load_identical(corpus, fitted, tmp_path):
    fitted.save(tmp_path / "m")
    loaded = Deidentifier.load(tmp_path / "m")
    assert loaded.predict(corpus[28:]) == fitted.predict(corpus[28:])
    assert loaded.headings_ == fitted.headings_


def test_oof_harvest_and_patient_spread(corpus):
    model = Deidentifier(iterations=1, harvest="oof", spread="patient", vote="recall_first",
                         min_heading_tokens=3, model_params=PARAMS).fit(corpus[:20])
    spans = model.predict(corpus[28:30])
    assert any(spans)


def test_bad_parameters(corpus):
    with pytest.raises(ValueError, match="vote"):
        Deidentifier(vote="any").fit(corpus[:4])
    with pytest.raises(ValueError, match="harvest"):
        Deidentifier(harvest="magic").fit(corpus[:4])


@pytest.mark.parametrize("kwargs, name", [
    ({"triggers": ()}, "triggers"), ({"triggers": ("token", "token")}, "triggers"), ({"iterations": 1.5}, "iterations"),
    ({"model_params": {"bogus": 1}}, "model_params"), ({"model_params": {"trigger": "token"}}, "model_params"),
    ({"model_params": {"window": -1}}, "window"),
    ({"triggers": ("token", "phrase")}, "two_of_three needs three"),
    ({"entropy_threshold": float("nan")}, "entropy_threshold"), ({"min_heading_tokens": -1}, "min_heading_tokens"),
])
def test_system_parameters_are_checked_at_fit_naming_them(kwargs, name):
    from itdeid.synth import generate
    with pytest.raises(ValueError, match=name):
        Deidentifier(**kwargs).fit(generate(4, seed=1))
