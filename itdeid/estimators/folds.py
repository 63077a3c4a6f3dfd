"""Folds grouped by patient, for the outer cross-validation and every inner split.

A patient's notes share names, dates, places and phrasing. A split that puts one of a patient's
notes on each side lets a model "predict" the other note's PHI from memory, so the outer
cross-validation (:mod:`itdeid.training.crossval`) and every inner split a model makes while training
(out-of-fold previous labels in :class:`~itdeid.estimators.model.TokenModel`, out-of-fold harvests and
thresholds in :class:`~itdeid.estimators.deidentifier.Deidentifier`) cut between patients, never inside
one. A document without a patient is a group of its own.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from itdeid.document import Document
from itdeid.errors import ParameterError, UserError


def group_key(document: Document) -> str:
    """The key a document is grouped by: its patient, else its own id (its own group)."""
    return document.patient if document.patient is not None else f"\0doc:{document.id}"


def _group_keys(documents: Sequence[Document]) -> list[str]:
    return [group_key(d) for d in documents]


def group_folds(documents: Sequence[Document], folds: int = 10, seed: int = 0) -> np.ndarray:
    """The fold (0..folds-1) of each document.

    Documents are grouped by ``patient`` (a document without one is its own group); groups are
    shuffled with ``seed`` and dealt, largest first, to the fold with the fewest characters so
    far, so folds are balanced in size and deterministic. The order is by size first, so
    ``seed`` only orders groups of the same size: on real notes, whose patients differ in
    characters, other seeds give the same folds (a repeated CV needs other folds by another
    means).
    """
    if folds < 2:
        raise ParameterError(f"need at least 2 folds, got {folds}")
    keys = _group_keys(documents)
    groups: dict[str, list[int]] = {}
    for i, key in enumerate(keys):
        groups.setdefault(key, []).append(i)
    if len(groups) < folds:
        n = len(groups)
        why = (f"{n} patient{'s' if n != 1 else ''} cannot fill {folds} folds (a patient's notes "
               "stay in one fold; a note without a patient id counts as one)")
        raise ParameterError(f"folds must be at most {n} here: {why}" if n >= 2 else
                             f"folds cannot be made: {why}; cross-validation grouped by patient "
                             "needs the notes of at least 2 patients")
    rng = np.random.default_rng(seed)
    names = sorted(groups)
    rng.shuffle(names)
    sizes = {k: sum(len(documents[i].text) for i in groups[k]) for k in names}
    names.sort(key=lambda k: -sizes[k])  # stable: ties keep the shuffled order
    load = np.zeros(folds)
    assignment = np.empty(len(documents), dtype=np.int64)
    for key in names:
        f = int(np.argmin(load))
        load[f] += sizes[key]
        assignment[groups[key]] = f
    return assignment


def inner_split(documents: Sequence[Document], folds: int) -> tuple[np.ndarray, int]:
    """The fold of each training document for an inner split of at most ``folds`` parts, and
    the number of parts: grouped by patient, or by document when fewer than two patients
    (then nothing can be held out by patient)."""
    if len(documents) < 2:
        # the count can be a nested split's (a system's out-of-fold votes train models whose
        # own out-of-fold features split their notes again), so say what it is
        raise UserError(f"{len(documents)} training document cannot be split for the inner "
                        "cross-validation that chooses the operating point and the out-of-fold "
                        "features (it may be a split inside another, of a model trained on part "
                        "of the corpus): give more notes or patients")
    keys = set(_group_keys(documents))
    if len(keys) >= 2:
        k = max(2, min(folds, len(keys)))
        return group_folds(documents, k), k
    k = max(2, min(folds, len(documents)))
    return np.arange(len(documents)) % k, k
