"""Two-step learners (issue I): PHI or not by a two-class model, the class by a second model asked
only where P(PHI) may pass a threshold; same contract and same safe files as any learner."""
import json

import numpy as np
import pytest

from itdeid.errors import UserError
from itdeid.estimators.learners import DETECTOR_FOLDER, TYPE_FLOOR, TYPER_FOLDER, Learner
from itdeid.estimators.ensemble import InnerEnsemble
from itdeid.estimators.model import TokenModel

from helpers import tiny_corpus


def _data(seed=0, n=600):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5)).astype(np.float32)
    y = np.where(X[:, 0] > 0.8, 2, 0) + np.where(X[:, 1] > 1.2, 5, 0)   # labels 0, 2, 5, 7
    return X, y


@pytest.mark.parametrize("name", ["xgboost", "tree"])
def test_nine_columns_learned_rule_and_same_after_load(name, tmp_path):
    X, y = _data()
    learner = Learner(name, n_estimators=30, random_state=0, two_step=True, n_jobs=1).fit(X, y)
    proba = learner.predict_proba(X)
    assert proba.shape == (len(X), 9)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-5)
    assert np.all(proba[:, [1, 3, 4, 6, 8]] == 0)
    assert (proba.argmax(axis=1) == y).mean() > 0.95
    meta = json.loads(json.dumps(learner.save(tmp_path)))
    assert (tmp_path / DETECTOR_FOLDER).is_dir() and (tmp_path / TYPER_FOLDER).is_dir()
    np.testing.assert_allclose(Learner.load(tmp_path, meta, X.shape[1]).predict_proba(X), proba, atol=1e-6)


def test_xgboost_detector_grows_one_tree_a_round():
    X, y = _data()
    learner = Learner("xgboost", n_estimators=7, two_step=True, n_jobs=1).fit(X, y)
    assert learner.detector_.estimator_.get_booster().num_boosted_rounds() == 7
    assert len(learner.detector_.estimator_.get_booster().get_dump()) == 7
    plain = Learner("xgboost", n_estimators=7, n_jobs=1).fit(X, y)
    assert len(plain.estimator_.get_booster().get_dump()) == 7 * 4    # one tree a class a round


def test_class_model_is_asked_only_above_the_floor(monkeypatch):
    X, y = _data()
    learner = Learner("xgboost", n_estimators=60, learning_rate=0.5, two_step=True, n_jobs=1).fit(X, y)
    p_phi = 1.0 - learner.detector_.predict_proba(X)[:, 0]
    asked = []
    original = learner.typer_.predict_proba
    monkeypatch.setattr(learner.typer_, "predict_proba", lambda rows: asked.append(len(rows)) or original(rows))
    proba = learner.predict_proba(X)
    assert asked == [int((p_phi >= TYPE_FLOOR).sum())] and asked[0] < len(X)
    low = p_phi < TYPE_FLOOR
    np.testing.assert_allclose(proba[low][:, [2, 5, 7]], np.repeat(p_phi[low, None] / 3, 3, axis=1), rtol=1e-5)


def test_one_phi_class_needs_no_class_model(tmp_path):
    X, y = _data()
    y = np.where(y > 0, 4, 0)
    learner = Learner("xgboost", n_estimators=5, two_step=True, n_jobs=1).fit(X, y)
    assert learner.detector_ is None and learner.typer_ is None   # two classes: one logistic model
    proba = learner.predict_proba(X)
    assert np.all(proba[:, [1, 2, 3, 5, 6, 7, 8]] == 0)
    meta = learner.save(tmp_path)
    np.testing.assert_allclose(Learner.load(tmp_path, meta, X.shape[1]).predict_proba(X), proba, atol=1e-6)


def test_missing_class_model_is_one_error_naming_its_file(tmp_path):
    X, y = _data()
    meta = Learner("xgboost", n_estimators=3, two_step=True, n_jobs=1).fit(X, y).save(tmp_path)
    (tmp_path / TYPER_FOLDER / "learner.ubj.gz").unlink()
    with pytest.raises(UserError, match="typer.*learner.ubj.gz"):
        Learner.load(tmp_path, meta, X.shape[1])


def test_an_ensemble_of_two_step_members_and_stage_saves_and_tags_the_same(tmp_path):
    docs = tiny_corpus(30, seed=4)
    base = TokenModel(two_step=True, previous="none", n_estimators=10, n_jobs=1, resubstitutions=1)
    model = InnerEnsemble(base, folds=3, target_recall=0.9, context_pass=True).fit(docs)
    assert all(m.learner_.detector_ is not None for m in model.members_)
    assert all(stage.two_step and stage.detector_ is None for stage in model.stage_)   # logistic
    model.save(tmp_path / "m")
    again = InnerEnsemble.load(tmp_path / "m")
    assert again.predict(docs) == model.predict(docs)
    assert any(spans for spans in model.predict(docs))
