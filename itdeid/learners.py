"""The classifiers behind a token model, with one interface and safe model files.

``xgboost`` (default)
    Gradient-boosted trees (hist method, multi-class soft-probabilities). 200 rounds of depth-6
    trees with learning rate 0.2 and column subsampling 0.8: enough capacity for ~130 attributes
    and a few hundred thousand tokens, trained in about a minute on two cores.
``adaboost``
    The paper's learner: AdaBoostM1 over C4.5 trees, 30 rounds, at least 5 instances a leaf,
    here scikit-learn's ``AdaBoostClassifier`` (SAMME) over entropy ``DecisionTreeClassifier``s
    with ``min_samples_leaf=5``. C4.5 prunes a grown tree by error estimates at confidence
    0.25-0.35 (the paper used 0.35); scikit-learn does not prune that way, so the trees are
    bounded by ``min_samples_leaf`` (and ``max_depth``, default none) alone and may be larger.
``tree``
    One such entropy tree: the paper's C4.5 baseline row.
``majority``
    Every token non-PHI: the paper's BASELINE row.

Model files run no code when loaded: xgboost's own UBJSON format, and skops for scikit-learn
estimators, loaded only when every type in the file is a scikit-learn or numpy type.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from itdeid.document import LABELS

LEARNERS = ("xgboost", "adaboost", "tree", "majority")
N_LABELS = len(LABELS)


class Learner:
    """A classifier over the nine token labels (codes 0..8), whatever labels training had.

    ``predict_proba`` always returns 9 columns, so models trained on folds that lack a rare
    class (AGE) still vote and combine with the others.
    """

    def __init__(self, name: str = "xgboost", n_estimators: int | None = None, max_depth: int | None = None,
                 learning_rate: float | None = None, min_samples_leaf: int = 5, n_jobs: int | None = None,
                 device: str = "cpu", random_state: int = 0):
        if name not in LEARNERS:
            raise ValueError(f"learner must be one of {', '.join(LEARNERS)}, got {name!r}")
        self.name = name
        self.n_estimators = n_estimators
        self.max_depth = max_depth
        self.learning_rate = learning_rate
        self.min_samples_leaf = min_samples_leaf
        self.n_jobs = n_jobs
        self.device = device
        self.random_state = random_state

    def fit(self, X: np.ndarray, y: np.ndarray, sample_weight: np.ndarray | None = None) -> "Learner":
        y = np.asarray(y, dtype=np.int64)
        self.classes_ = np.unique(y)
        encoded = np.searchsorted(self.classes_, y)
        if self.name == "majority" or len(self.classes_) == 1:
            counts = np.bincount(y, weights=sample_weight, minlength=N_LABELS)
            self.prior_ = counts / counts.sum()
            self.estimator_ = None
            return self
        if self.name == "xgboost":
            import xgboost
            params = dict(
                n_estimators=self.n_estimators or 200, max_depth=self.max_depth or 6,
                learning_rate=self.learning_rate or 0.2, colsample_bytree=0.8, tree_method="hist",
                objective="multi:softprob", device=self.device, n_jobs=self.n_jobs,
                random_state=self.random_state, max_bin=256)
            self.estimator_ = xgboost.XGBClassifier(**params).fit(X, encoded, sample_weight=sample_weight)
        else:
            from sklearn.ensemble import AdaBoostClassifier
            from sklearn.tree import DecisionTreeClassifier
            tree = DecisionTreeClassifier(criterion="entropy", min_samples_leaf=self.min_samples_leaf,
                                          max_depth=self.max_depth, random_state=self.random_state)
            if self.name == "tree":
                self.estimator_ = tree.fit(X, encoded, sample_weight=sample_weight)
            else:
                self.estimator_ = AdaBoostClassifier(tree, n_estimators=self.n_estimators or 30,
                                                     random_state=self.random_state).fit(
                    X, encoded, sample_weight=sample_weight)
        return self

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """Probabilities of the 9 labels, shape (n, 9)."""
        out = np.zeros((len(X), N_LABELS), dtype=np.float32)
        if self.estimator_ is None:
            out[:] = getattr(self, "prior_", np.eye(N_LABELS)[0])
            return out
        if len(X) == 0:
            return out
        if self.name == "xgboost":
            booster = self.estimator_.get_booster()
            if not getattr(self, "_one_thread", False):
                # Tagging calls the classifier once a token position on a few hundred rows, where
                # waking a team of threads costs far more than it saves (measured: 31 ms a call
                # with all cores, 0.4 ms with one); parallel tagging comes from worker processes.
                booster.set_param({"nthread": 1})
                self._one_thread = True
            proba = booster.inplace_predict(X)
        else:
            proba = self.estimator_.predict_proba(X)
        out[:, self.classes_] = proba
        return out

    # -- persistence ------------------------------------------------------------------------
    def params(self) -> dict:
        return {k: getattr(self, k) for k in ("name", "n_estimators", "max_depth", "learning_rate",
                                               "min_samples_leaf", "n_jobs", "device", "random_state")}

    def save(self, folder: Path) -> dict:
        """Write the fitted estimator into ``folder``; returns metadata for the model file."""
        meta = {"params": self.params(), "classes": self.classes_.tolist()}
        if self.estimator_ is None:
            meta["prior"] = self.prior_.tolist()
        elif self.name == "xgboost":
            self.estimator_.get_booster().save_model(str(folder / "learner.ubj"))
            meta["file"] = "learner.ubj"
        else:
            import skops.io
            skops.io.dump(self.estimator_, folder / "learner.skops")
            meta["file"] = "learner.skops"
        return meta

    @classmethod
    def load(cls, folder: Path, meta: dict) -> "Learner":
        learner = cls(**meta["params"])
        learner.classes_ = np.array(meta["classes"], dtype=np.int64)
        if "prior" in meta:
            learner.prior_ = np.array(meta["prior"])
            learner.estimator_ = None
        elif meta["file"].endswith(".ubj"):
            import xgboost
            booster = xgboost.Booster()
            booster.load_model(str(folder / meta["file"]))
            estimator = xgboost.XGBClassifier()
            estimator._Booster = booster
            estimator.n_classes_ = len(learner.classes_)
            learner.estimator_ = estimator
        else:
            import skops.io
            path = folder / meta["file"]
            untrusted = skops.io.get_untrusted_types(file=path)
            unsafe = [t for t in untrusted if not t.startswith(("sklearn.", "numpy."))]
            if unsafe:
                raise ValueError(f"{path}: refusing to load types that are not scikit-learn's: {', '.join(unsafe)}")
            learner.estimator_ = skops.io.load(path, trusted=untrusted)
        return learner
