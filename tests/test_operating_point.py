"""The operating point (issue G, item 1): a P(PHI) threshold chosen for a target recall from
out-of-fold probabilities, stored in the model, overridable at tagging time."""
import json

import numpy as np
import pytest

from itdeid.cli import main
from itdeid.estimators.deidentifier import set_threshold
from itdeid.model_folder.load import load_model
from itdeid.errors import UserError
from itdeid.evaluation.evaluate import evaluate
from itdeid.formats import write_i2b2_2006
from itdeid.estimators.model import TokenModel
from itdeid.estimators.operating_point import MAX_THRESHOLD, decide, threshold_for_recall

from helpers import tiny_corpus


def test_decide_flags_a_token_whose_phi_probability_is_spread_over_classes():
    proba = np.array([[0.4, 0.3, 0.3, 0, 0, 0, 0, 0, 0],        # argmax: non-PHI; P(PHI) 0.6
                      [0.9, 0.05, 0.05, 0, 0, 0, 0, 0, 0]])
    assert decide(proba).tolist() == [0, 0]
    assert decide(proba, 0.5).tolist() == [1, 0]
    assert decide(proba, 0.05).tolist() == [1, 1]


def test_threshold_for_recall_is_the_largest_that_reaches_the_target():
    labels = np.array([1, 1, 1, 1, 0, 0])
    p_phi = np.array([0.9, 0.4, 0.2, 0.05, 0.3, 0.01])
    proba = np.zeros((6, 9))
    proba[:, 0], proba[:, 1] = 1 - p_phi, p_phi
    assert threshold_for_recall(proba, labels, 0.5) == pytest.approx(0.4)
    assert threshold_for_recall(proba, labels, 0.75) == pytest.approx(0.2)
    assert threshold_for_recall(proba, labels, 1.0) == pytest.approx(0.05)
    assert threshold_for_recall(proba, labels, 0.25) == MAX_THRESHOLD     # never above 0.5
    with pytest.raises(ValueError):
        threshold_for_recall(proba, labels, 1.5)


def test_a_threshold_kept_within_its_bounds_is_said(caplog):
    """A black-box test: a target recall 0.5 stored 0.5 (recall far above it on new notes), and a
    one-note corpus the floor 0.001, without a word."""
    labels = np.array([1, 1, 0])
    for p_phi, target, said in (([0.9, 0.8, 0.1], 0.5, "above"), ([0.0001, 0.9, 0.1], 1.0, "below the floor"),
                                ([0.9, 0.2, 0.1], 1.0, None)):
        proba = np.zeros((3, 9))
        proba[:, 0], proba[:, 1] = 1 - np.array(p_phi), p_phi
        caplog.clear()
        threshold_for_recall(proba, labels, target)
        assert (said in caplog.text) if said else not caplog.text


@pytest.fixture(scope="module")
def corpus():
    return tiny_corpus(40, seed=11)


def _binary_recall(docs, predicted):
    scores = evaluate(docs, {d.id: p for d, p in zip(docs, predicted)}).to_dict()["summary"]
    return scores["binary_token"]["r"]


def test_target_recall_learns_a_threshold_that_is_saved_and_can_be_overridden(tmp_path, corpus):
    params = dict(n_estimators=8, n_jobs=1, previous="gold", trigger_min_count=2)
    plain = TokenModel(**params).fit(corpus[:30])
    model = TokenModel(target_recall=0.99, **params).fit(corpus[:30])
    assert plain.threshold_ is None and 0 < model.threshold_ <= MAX_THRESHOLD
    held_out = corpus[30:]
    assert _binary_recall(held_out, model.predict(held_out)) >= _binary_recall(held_out, plain.predict(held_out))
    model.save(tmp_path / "m")
    assert json.loads((tmp_path / "m" / "model.json").read_text())["threshold"] == model.threshold_
    loaded = load_model(tmp_path / "m")
    assert loaded.threshold_ == model.threshold_
    assert loaded.predict(held_out) == model.predict(held_out)
    assert set_threshold(loaded, 1.0).predict(held_out) != model.predict(held_out)
    with pytest.raises(UserError):
        set_threshold(loaded, 0)


def test_cli_train_target_recall_and_tag_threshold(tmp_path, corpus):
    write_i2b2_2006(corpus[:30], tmp_path / "train.xml")
    write_i2b2_2006(corpus[30:], tmp_path / "test.xml")
    assert main(["train", str(tmp_path / "train.xml"), "--out", str(tmp_path / "m"),
                 "--n-estimators", "5", "--previous", "gold", "--target-recall", "0.95", "--members", "0",
                 "--no-context-pass"]) == 0
    assert json.loads((tmp_path / "m" / "model.json").read_text())["threshold"] is not None
    for threshold, name in (("0.9", "high"), ("0.01", "low")):
        assert main(["tag", str(tmp_path / "m"), str(tmp_path / "test.xml"), "--threshold", threshold,
                     "--out", str(tmp_path / f"{name}.jsonl")]) == 0
    high = (tmp_path / "high.jsonl").read_text().count("\n")
    low = (tmp_path / "low.jsonl").read_text().count("\n")
    assert low >= high
    assert main(["tag", str(tmp_path / "m"), str(tmp_path / "test.xml"), "--threshold", "2",
                 "--out", str(tmp_path / "x.jsonl")]) == 2


def test_deid_threshold_is_a_folder_setting(tmp_path, corpus, capsys):
    """itdeid deid --threshold P tags at P, and a folder written at another threshold is
    refused like any other change of settings."""
    model = TokenModel(n_estimators=5, n_jobs=1, previous="gold", trigger_min_count=2).fit(corpus[:30])
    model.save(tmp_path / "m")
    notes = tmp_path / "notes"
    notes.mkdir()
    for d in corpus[30:33]:
        (notes / f"{d.id}.txt").write_text(d.text)
    base = ["deid", str(notes), "--model", str(tmp_path / "m"), "--workers", "1", "--format", "jsonl"]
    assert main(base + ["--out", str(tmp_path / "low"), "--threshold", "0.001"]) == 0
    assert main(base + ["--out", str(tmp_path / "high"), "--threshold", "1"]) == 0
    count = lambda name: sum(p.read_text().count("\n") for p in (tmp_path / name).glob("*.jsonl"))
    assert count("low") > count("high")
    capsys.readouterr()
    assert main(base + ["--out", str(tmp_path / "low"), "--threshold", "0.5"]) == 2
    assert "--threshold" in capsys.readouterr().err
    assert main(base + ["--out", str(tmp_path / "x"), "--threshold", "0"]) == 2
