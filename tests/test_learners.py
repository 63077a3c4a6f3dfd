"""Learners: nine probability columns whatever the training labels; model files that are data
only, refused with one error naming the file when damaged (issue F, defects 1 and 8)."""
import json

import numpy as np
import pytest

from itdeid.errors import UserError
from itdeid.estimators.learners import LEARNERS, Learner
from itdeid.estimators.plain_trees import PlainTrees


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
    loaded = Learner.load(tmp_path, json.loads(json.dumps(meta)), X.shape[1])
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
    for name in ("xgboost", "tree", "adaboost"):
        folder = tmp_path / name
        folder.mkdir()
        Learner(name, n_estimators=3).fit(X, y).save(folder)
    names = {p.name for p in tmp_path.rglob("*") if p.is_file()}
    assert names == {"learner.ubj.gz", "learner.json"}


@pytest.mark.parametrize("name", ["tree", "adaboost"])
def test_tree_files_are_arrays_that_predict_as_scikit_learn(tmp_path, name):
    X, y = _data()
    learner = Learner(name, n_estimators=10, max_depth=4).fit(X, y)
    meta = learner.save(tmp_path)
    data = json.loads((tmp_path / "learner.json").read_text())
    assert data["kind"] == "PlainTrees" and len(data["trees"]) == (1 if name == "tree" else
                                                                  len(learner.estimator_.estimators_))
    loaded = Learner.load(tmp_path, meta, X.shape[1])
    assert isinstance(loaded.estimator_, PlainTrees)
    np.testing.assert_allclose(loaded.predict_proba(X), learner.predict_proba(X), atol=1e-6)


def test_unknown_learner():
    with pytest.raises(ValueError, match="learner must be one of"):
        Learner("svm")


def test_skops_file_is_refused_before_anything_runs(tmp_path, monkeypatch):
    """A learner.skops file (the old format, which can name code to run) is never handed to a
    loader: a stand-in skops module that would run the file's code records any call."""
    import sys
    import types

    ran = []
    fake = types.ModuleType("skops.io")
    fake.get_untrusted_types = lambda file: ["numpy.evil_eval"]
    fake.load = lambda path, trusted=None: ran.append(path)
    package = types.ModuleType("skops")
    package.io = fake
    monkeypatch.setitem(sys.modules, "skops", package)
    monkeypatch.setitem(sys.modules, "skops.io", fake)
    (tmp_path / "learner.skops").write_bytes(b"PK\x03\x04 crafted")
    meta = {"params": Learner("tree").params(), "classes": [0, 1], "file": "learner.skops"}
    with pytest.raises(UserError, match="skops"):
        Learner.load(tmp_path, meta, 4)
    assert ran == []


@pytest.mark.parametrize("name", ["../../x", "/etc/passwd", "sub/learner.json", "model.json", 7])
def test_learner_file_name_must_be_a_learner_file_inside_the_folder(tmp_path, name):
    meta = {"params": Learner("tree").params(), "classes": [0, 1], "file": name}
    with pytest.raises(UserError):
        Learner.load(tmp_path, meta, 4)


def test_learner_file_linked_from_outside_is_refused(tmp_path):
    X, y = _data()
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    meta = Learner("tree", max_depth=2).fit(X, y).save(outside)
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "learner.json").symlink_to(outside / "learner.json")
    with pytest.raises(UserError, match="a link out of the model folder"):
        Learner.load(folder, meta, X.shape[1])


@pytest.mark.parametrize("damage", [
    lambda d: d.update(kind="Pickle"),
    lambda d: d["trees"][0]["children_left"].__setitem__(0, 0),        # a cycle
    lambda d: d["trees"][0]["feature"].__setitem__(0, 999),            # no such feature
    lambda d: d["trees"][0]["threshold"].__setitem__(0, "nan"),
    lambda d: d["trees"][0]["value"].pop(),
    lambda d: d.update(trees=[]),
])
def test_damaged_tree_file_is_one_error_naming_it(tmp_path, damage):
    X, y = _data()
    meta = Learner("tree", max_depth=3).fit(X, y).save(tmp_path)
    path = tmp_path / "learner.json"
    data = json.loads(path.read_text())
    damage(data)
    path.write_text(json.dumps(data))
    with pytest.raises(UserError, match="learner.json"):
        Learner.load(tmp_path, meta, X.shape[1])


@pytest.mark.parametrize("cut", [0, 10, 0.5])
def test_truncated_or_missing_xgboost_file_is_one_error_naming_it(tmp_path, cut):
    X, y = _data()
    meta = Learner("xgboost", n_estimators=3).fit(X, y).save(tmp_path)
    path = tmp_path / "learner.ubj.gz"
    data = path.read_bytes()
    if cut == 0:
        path.unlink()
    else:
        path.write_bytes(data[:int(cut if cut > 1 else len(data) * cut)])
    with pytest.raises(UserError, match="learner.ubj.gz"):
        Learner.load(tmp_path, meta, X.shape[1])


def test_compressed_learner_is_capped_and_plain_ubjson_still_read(tmp_path, monkeypatch):
    """A compressed learner file that unpacks past the cap is refused before it fills memory;
    a plain UBJSON file (written before the files were compressed) loads to the same model."""
    import gzip

    import itdeid.estimators.learners as learners
    X, y = _data()
    fitted = Learner("xgboost", n_estimators=3).fit(X, y)
    meta = fitted.save(tmp_path)
    raw = gzip.decompress((tmp_path / "learner.ubj.gz").read_bytes())
    monkeypatch.setattr(learners, "MAX_LEARNER_BYTES", len(raw) - 1)
    with pytest.raises(UserError, match="learner.ubj.gz: unpacks to more than"):
        Learner.load(tmp_path, meta, X.shape[1])
    monkeypatch.undo()
    (tmp_path / "learner.ubj").write_bytes(raw)
    (tmp_path / "learner.ubj.gz").unlink()
    old = Learner.load(tmp_path, {**meta, "file": "learner.ubj"}, X.shape[1])
    assert np.array_equal(old.predict_proba(X), fitted.predict_proba(X))


def test_xgboost_file_of_other_width_is_refused(tmp_path):
    X, y = _data()
    meta = Learner("xgboost", n_estimators=3).fit(X, y).save(tmp_path)
    with pytest.raises(UserError, match="features"):
        Learner.load(tmp_path, meta, X.shape[1] + 1)


def test_a_gpu_device_with_a_cpu_only_xgboost_is_one_line_saying_what_to_install(monkeypatch):
    """itdeid installs xgboost's CPU build on Linux and Windows: --device cuda must say how to
    get the CUDA build, not fail deep inside xgboost."""
    import xgboost
    from itdeid.errors import UserError
    from itdeid.estimators.learners import Learner
    monkeypatch.setattr(xgboost, "build_info", lambda: {"USE_CUDA": False})
    X = np.random.default_rng(0).random((20, 3)).astype(np.float32)
    y = np.arange(20) % 2
    with pytest.raises(UserError, match="pip uninstall xgboost-cpu && pip install xgboost"):
        Learner(n_estimators=2, device="cuda").fit(X, y)
    Learner(n_estimators=2, device="cpu", n_jobs=1).fit(X, y)     # the CPU is always fine


def test_subsample_draws_rows_per_round_and_survives_saving(tmp_path):
    """``subsample`` reaches xgboost (other trees than all rows give), is saved with the learner,
    and a learner saved before it existed (no key) loads with all rows."""
    X, y = _data()
    full = Learner("xgboost", n_estimators=20, random_state=0).fit(X, y)
    drawn = Learner("xgboost", n_estimators=20, random_state=0, subsample=0.5).fit(X, y)
    assert not np.allclose(full.predict_proba(X), drawn.predict_proba(X))
    meta = json.loads(json.dumps(drawn.save(tmp_path)))
    assert meta["params"]["subsample"] == 0.5
    assert Learner.load(tmp_path, meta, X.shape[1]).subsample == 0.5
    del meta["params"]["subsample"]
    assert Learner.load(tmp_path, meta, X.shape[1]).subsample is None


@pytest.mark.parametrize("value", [0, 1.5, True, -0.1])
def test_token_model_refuses_a_subsample_outside_0_1(value):
    from itdeid.estimators.model import TokenModel
    with pytest.raises(ValueError, match="subsample"):
        TokenModel(subsample=value).check_params()


def test_phi_weight_weighs_the_phi_rows_of_the_detector_only():
    """``phi_weight`` W trains as if each PHI row (label > 0) had W times its weight: the same
    trees as explicit weights, other trees than none; a two-step learner's class model, whose
    rows are all PHI, is the unweighted one."""
    X, y = _data()
    weighted = Learner("xgboost", n_estimators=10, random_state=0, phi_weight=3.0).fit(X, y)
    explicit = Learner("xgboost", n_estimators=10, random_state=0).fit(X, y, np.where(y > 0, 3.0, 1.0))
    plain = Learner("xgboost", n_estimators=10, random_state=0).fit(X, y)
    np.testing.assert_allclose(weighted.predict_proba(X), explicit.predict_proba(X), rtol=1e-6)
    assert not np.allclose(weighted.predict_proba(X), plain.predict_proba(X))
    two = Learner("xgboost", n_estimators=10, random_state=0, two_step=True, phi_weight=3.0).fit(X, y)
    two_plain = Learner("xgboost", n_estimators=10, random_state=0, two_step=True).fit(X, y)
    assert two.typer_.phi_weight == 1.0
    phi = y > 0
    np.testing.assert_allclose(two.typer_.predict_proba(X[phi]), two_plain.typer_.predict_proba(X[phi]), rtol=1e-6)
    assert not np.allclose(two.detector_.predict_proba(X), two_plain.detector_.predict_proba(X))


@pytest.mark.parametrize("value", [0, -1.0, True])
def test_token_model_refuses_a_phi_weight_not_above_0(value):
    from itdeid.estimators.model import TokenModel
    with pytest.raises(ValueError, match="phi_weight"):
        TokenModel(phi_weight=value).check_params()


def test_typer_grows_its_own_trees_and_the_detector_is_unchanged(tmp_path):
    """``typer_estimators`` and ``typer_learning_rate`` shape a two-step learner's class model
    only: its booster has that many rounds, the PHI-or-not model is the one trained without
    them, and a saved learner keeps them (a file without them loads as before)."""
    X, y = _data()
    plain = Learner("xgboost", n_estimators=12, learning_rate=0.1, random_state=0, two_step=True).fit(X, y)
    small = Learner("xgboost", n_estimators=12, learning_rate=0.1, random_state=0, two_step=True,
                    typer_estimators=3, typer_learning_rate=0.5).fit(X, y)
    assert small.typer_.estimator_.get_booster().num_boosted_rounds() == 3
    assert plain.typer_.estimator_.get_booster().num_boosted_rounds() == 12
    assert small.typer_.learning_rate == 0.5 and small.typer_.typer_estimators is None
    np.testing.assert_array_equal(small.detector_.predict_proba(X), plain.detector_.predict_proba(X))
    assert not np.allclose(small.typer_.predict_proba(X[y > 0]), plain.typer_.predict_proba(X[y > 0]))
    meta = json.loads(json.dumps(small.save(tmp_path)))
    loaded = Learner.load(tmp_path, meta, X.shape[1])
    assert (loaded.typer_estimators, loaded.typer_learning_rate) == (3, 0.5)
    np.testing.assert_array_equal(loaded.predict_proba(X), small.predict_proba(X))
    for key in ("typer_estimators", "typer_learning_rate"):
        del meta["params"][key]
    assert Learner.load(tmp_path, meta, X.shape[1]).typer_estimators is None


@pytest.mark.parametrize("change", [dict(typer_estimators=0), dict(typer_estimators=2.5),
                                    dict(typer_learning_rate=0), dict(typer_learning_rate=1.5),
                                    dict(typer_learning_rate=True)])
def test_token_model_refuses_typer_settings_out_of_range(change):
    from itdeid.estimators.model import TokenModel
    with pytest.raises(ValueError, match="typer_"):
        TokenModel(**change).check_params()
