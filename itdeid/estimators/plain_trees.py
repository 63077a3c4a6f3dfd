"""Fitted scikit-learn trees as plain arrays: the data-only model file of the ``tree`` and
``adaboost`` learners.

Why not pickle, joblib or skops: a pickle runs whatever code its file names, and skops only
narrows that down to the types a loader trusts. The loader used to trust every type whose name
began with ``numpy.`` or ``sklearn.``, and a crafted file naming a numpy function that evaluates a
string ran it at load time. A fitted decision tree is a handful of arrays (children, split
feature, threshold, class weights at each node) and SAMME AdaBoost is a list of trees with a
weight each, so the model file is exactly that, in JSON, and prediction is done here from the
arrays: loading builds numpy arrays of numbers and nothing else.

The arrays are checked before any prediction (:meth:`PlainTrees.from_json`): lengths agree,
children point forward (scikit-learn numbers nodes depth first, so a child's index is always
larger than its parent's, which also guarantees every descent ends at a leaf), split features
exist, numbers are finite. A file that breaks any of this is a :class:`UserError` naming it.

Prediction equals scikit-learn's (tested against ``predict_proba`` of the fitted estimator):

- a tree's class probabilities are the class weights at the leaf a row reaches, normalized
  (a row goes left when ``x[feature] <= threshold``);
- SAMME AdaBoost (scikit-learn >= 1.4, the only algorithm left there) adds, for each tree, its
  weight ``w`` to the class the tree predicts and ``-w / (K - 1)`` to the others, divides by the
  sum of the weights, and takes the softmax of that decision over ``K - 1``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from itdeid.errors import UserError
from itdeid.model_folder.model_files import check_entries

FORMAT = 1
#: Per-node arrays of a tree as written to the file.
NODE_ARRAYS = ("children_left", "children_right", "feature", "threshold")


@dataclass
class PlainTree:
    """One decision tree: per node, its children (-1 at a leaf), split feature and threshold,
    and the class weights ``value`` (n_nodes, n_classes)."""

    children_left: np.ndarray
    children_right: np.ndarray
    feature: np.ndarray
    threshold: np.ndarray
    value: np.ndarray

    def leaves(self, X: np.ndarray) -> np.ndarray:
        """The leaf each row of ``X`` reaches."""
        node = np.zeros(len(X), dtype=np.int64)
        active = np.flatnonzero(self.children_left[node] >= 0)
        while active.size:
            at = node[active]
            left = X[active, self.feature[at]] <= self.threshold[at]
            node[active] = np.where(left, self.children_left[at], self.children_right[at])
            active = active[self.children_left[node[active]] >= 0]
        return node

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        value = self.value[self.leaves(X)]
        total = value.sum(axis=1, keepdims=True)
        return value / np.where(total == 0, 1.0, total)


@dataclass
class PlainTrees:
    """A single tree (``weights`` None) or a SAMME AdaBoost ensemble of trees."""

    trees: list[PlainTree]
    weights: np.ndarray | None
    n_classes: int
    n_features: int

    # -- from a fitted estimator ------------------------------------------------------------
    @classmethod
    def from_sklearn(cls, estimator, n_features: int) -> "PlainTrees":
        """The arrays of a fitted ``DecisionTreeClassifier`` or SAMME ``AdaBoostClassifier``."""
        from sklearn.ensemble import AdaBoostClassifier

        n_classes = len(estimator.classes_)
        if isinstance(estimator, AdaBoostClassifier):
            if getattr(estimator, "algorithm", "SAMME") not in ("SAMME", "deprecated"):
                raise ValueError(f"only SAMME AdaBoost is supported, got {estimator.algorithm!r}")
            fitted = [(t, w) for t, w in zip(estimator.estimators_, estimator.estimator_weights_)]
            trees = [cls._tree(t, n_classes) for t, _w in fitted]
            weights = np.array([w for _t, w in fitted], dtype=np.float64)
        else:
            trees, weights = [cls._tree(estimator, n_classes)], None
        return cls(trees, weights, n_classes, n_features)

    @staticmethod
    def _tree(estimator, n_classes: int) -> PlainTree:
        if len(estimator.classes_) != n_classes:
            raise ValueError("every tree of the ensemble must know every class")
        t = estimator.tree_
        return PlainTree(t.children_left.astype(np.int64), t.children_right.astype(np.int64),
                         t.feature.astype(np.int64), t.threshold.astype(np.float64),
                         t.value[:, 0, :].astype(np.float64))

    # -- prediction -------------------------------------------------------------------------
    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        X = np.asarray(X, dtype=np.float32)       # as scikit-learn's trees see their input
        if self.weights is None:
            return self.trees[0].predict_proba(X)
        k = self.n_classes
        decision = np.zeros((len(X), k))
        for tree, w in zip(self.trees, self.weights):
            votes = tree.predict_proba(X).argmax(axis=1)
            decision += np.where(np.arange(k)[None, :] == votes[:, None], w, -w / (k - 1))
        decision /= self.weights.sum()
        decision /= k - 1
        decision -= decision.max(axis=1, keepdims=True)
        proba = np.exp(decision)
        return proba / proba.sum(axis=1, keepdims=True)

    # -- the file ---------------------------------------------------------------------------
    def to_json(self) -> dict:
        return {"kind": "PlainTrees", "format": FORMAT, "n_classes": self.n_classes,
                "n_features": self.n_features,
                "weights": None if self.weights is None else self.weights.tolist(),
                "trees": [{**{name: getattr(t, name).tolist() for name in NODE_ARRAYS},
                           "value": t.value.tolist()} for t in self.trees]}

    @classmethod
    def from_json(cls, data, path) -> "PlainTrees":
        """Rebuild from :meth:`to_json`'s dict, checking every array; a :class:`UserError` naming
        ``path`` for anything that is not a well-formed forest."""
        def bad(what: str) -> UserError:
            return UserError(f"{path}: not a valid tree file ({what})")

        if not isinstance(data, dict) or data.get("kind") != "PlainTrees" or data.get("format") != FORMAT:
            raise bad(f"expected kind PlainTrees format {FORMAT}")
        check_entries(path, data, ("kind", "format", "n_classes", "n_features", "weights", "trees"))
        n_classes, n_features = data.get("n_classes"), data.get("n_features")
        if not _is_int(n_classes) or n_classes < 2 or not _is_int(n_features) or n_features < 1:
            raise bad("n_classes and n_features must be integers")
        rows = data.get("trees")
        if not isinstance(rows, list) or not rows:
            raise bad("no trees")
        weights = data.get("weights")
        if weights is not None:
            weights = _numbers(weights, "weights", bad)
            if len(weights) != len(rows) or weights.sum() <= 0:
                raise bad("one positive weight a tree is needed")
        elif len(rows) != 1:
            raise bad("several trees need weights")
        trees = [cls._checked_tree(row, n_classes, n_features, bad) for row in rows]
        return cls(trees, weights, n_classes, n_features)

    @staticmethod
    def _checked_tree(row, n_classes: int, n_features: int, bad) -> PlainTree:
        if not isinstance(row, dict):
            raise bad("a tree is not an object")
        if set(row) - {*NODE_ARRAYS, "value"}:
            raise bad("a tree holds an unknown entry")
        ints = {}
        for name in ("children_left", "children_right", "feature"):
            values = row.get(name)
            if not isinstance(values, list) or not all(_is_int(v) for v in values):
                raise bad(f"{name} must be a list of integers")
            ints[name] = np.array(values, dtype=np.int64)
        threshold = _numbers(row.get("threshold"), "threshold", bad)
        value = row.get("value")
        if not isinstance(value, list) or not all(isinstance(v, list) and len(v) == n_classes
                                                  for v in value):
            raise bad(f"value must hold {n_classes} class weights a node")
        value = _numbers([x for v in value for x in v], "value", bad).reshape(-1, n_classes)
        n = len(ints["children_left"])
        if n == 0 or any(len(a) != n for a in (*ints.values(), threshold, value)):
            raise bad("per-node arrays of different lengths")
        left, right, feature = ints["children_left"], ints["children_right"], ints["feature"]
        leaf = left == -1
        nodes = np.arange(n)
        if not np.array_equal(leaf, right == -1):
            raise bad("a node with one child")
        inner = ~leaf
        if (left[inner] <= nodes[inner]).any() or (right[inner] <= nodes[inner]).any() \
                or (left[inner] >= n).any() or (right[inner] >= n).any():
            raise bad("a child that does not point forward inside the tree")
        if (feature[inner] < 0).any() or (feature[inner] >= n_features).any():
            raise bad("a split on a feature the model does not have")
        if (value < 0).any():
            raise bad("negative class weights")
        if (value[leaf].sum(axis=1) <= 0).any():
            raise bad("a leaf of no class weight")      # it would answer no distribution
        return PlainTree(left, right, np.where(inner, feature, 0), threshold, value)


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _numbers(values, name: str, bad) -> np.ndarray:
    if not isinstance(values, list) or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in values):
        raise bad(f"{name} must be a list of finite numbers")
    return np.array(values, dtype=np.float64)
