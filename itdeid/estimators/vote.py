"""Combining the three trigger models' token labels (Szarvas et al. 2007, the final vote).

``two_of_three`` (the paper's cautious rule)
    A token gets the label at least two models give, else non-PHI. With three models at most
    one label can have two votes, so the rule is well defined.
``recall_first``
    A missed name is a privacy breach while a redacted word only costs research text, so: if any
    model says PHI, the token is PHI, with the PHI label most models give; a tie goes to the
    model listed first in ``priority`` (pass the models ordered by their measured accuracy).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from itdeid.document import LABELS

RULES = ("two_of_three", "recall_first")


def vote(labels: Sequence[np.ndarray], rule: str = "two_of_three",
         priority: Sequence[int] | None = None) -> np.ndarray:
    """The voted label codes of one document's tokens, from each model's label codes."""
    if rule not in RULES:
        raise ValueError(f"vote rule must be one of {', '.join(RULES)}, got {rule!r}")
    stacked = np.vstack([np.asarray(x, dtype=np.int64) for x in labels])   # (models, tokens)
    m, n = stacked.shape
    counts = np.zeros((len(LABELS), n), dtype=np.int64)
    for row in stacked:
        counts[row, np.arange(n)] += 1
    if rule == "two_of_three":
        best = counts.argmax(axis=0)
        return np.where(counts[best, np.arange(n)] >= 2, best, 0)
    phi = counts[1:]                                  # votes for each PHI class
    top = phi.max(axis=0)
    out = np.zeros(n, dtype=np.int64)
    order = list(priority) if priority is not None else list(range(m))
    for j in np.flatnonzero(top > 0):
        tied = np.flatnonzero(phi[:, j] == top[j]) + 1
        if len(tied) == 1:
            out[j] = tied[0]
        else:
            out[j] = next(stacked[k, j] for k in order if stacked[k, j] in tied)
    return out
