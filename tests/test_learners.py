"""Learners: nine probability columns whatever the training labels, safe save/load."""
import json

import numpy as np
import pytest

from itdeid.learners import LEARNERS, Learner


def _data(seed=0, n=300):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5)).astype(np.float32)
    y = np.where(X[:, 0] > 0.5, 2, 0) + np.where(X[:, 1] > 1.0, 5, 0)   # labels 0, 2, 5, 7
    return X, y


@pytest.mark.parametrize("name", LEARNERS)
def test_nine_columns_and_save_load(name, tmp_path):
    X, y = _data()
    learner = Learner(name, n_estimators=5, random_state=0).fit(X, y)
    proba = learner.predict_proba(X)
    assert proba.shape == (len(X), 9)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-5)
    assert np.all(proba[:, [1, 3, 4, 6, 8]] == 0)      # never-seen labels get 0
    meta = learner.save(tmp_path)
    json.dumps(meta)                                    # metadata is plain JSON
    loaded = Learner.load(tmp_path, json.loads(json.dumps(meta)))
    np.testing.assert_allclose(loaded.predict_proba(X), proba, rtol=1e-6)


def test_majority_predicts_non_phi():
    X, y = _data()
    proba = Learner("majority").fit(X, y).predict_proba(X)
    assert (proba.argmax(axis=1) == 0).all()


@pytest.mark.parametrize("name", ["tree", "xgboost"])
def test_boosted_and_tree_learn_the_rule(name):
    X, y = _data()
    learner = Learner(name, n_estimators=30, random_state=0).fit(X, y)
    accuracy = (learner.predict_proba(X).argmax(axis=1) == y).mean()
    assert accuracy > 0.95


def test_no_pickle_files_written(tmp_path):
    X, y = _data()
    for name in ("xgboost", "tree"):
        folder = tmp_path / name
        folder.mkdir()
        Learner(name, n_estimators=3).fit(X, y).save(folder)
    suffixes = {p.suffix for p in tmp_path.rglob("*") if p.is_file()}
    assert suffixes <= {".ubj", ".skops"}


def test_unknown_learner():
    with pytest.raises(ValueError, match="learner must be one of"):
        Learner("svm")


def test_refuses_skops_file_with_foreign_types(tmp_path):
    import os

    import skops.io
    from sklearn.preprocessing import FunctionTransformer

    skops.io.dump(FunctionTransformer(func=os.system), tmp_path / "learner.skops")
    meta = {"params": Learner("tree").params(), "classes": [0, 1], "file": "learner.skops"}
    with pytest.raises(ValueError, match="refusing to load"):
        Learner.load(tmp_path, meta)
