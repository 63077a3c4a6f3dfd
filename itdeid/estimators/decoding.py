"""Left-to-right decoding: a token model whose features hold the previous two predicted labels
tags a note in order, each token's label filling the next tokens' columns."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from itdeid.document import LABELS
from itdeid.estimators.learners import Learner
from itdeid.estimators.operating_point import decide


#: Tokens a decoding segment holds: long documents are cut into segments decoded side by side.
SEGMENT = 256


def decode(learner: Learner, X: np.ndarray, lengths: np.ndarray, columns: Sequence[int],
           segment: int = SEGMENT, threshold: float | None = None) -> list[np.ndarray]:
    """Per document, (n_tokens, 9) label probabilities, tagging left to right.

    ``X`` holds the documents' rows one document after another (``lengths`` tokens each); the
    two ``columns`` (previous and second-previous predicted class) are filled in from the
    learner's own predictions as it goes, decided at ``threshold``
    (:func:`itdeid.estimators.operating_point.decide`). ``X`` is modified in place.

    Going strictly token by token would cost one classifier call per token of the longest
    document (hours for a 50 MB note). Instead every document is cut into segments of
    ``segment`` tokens and all segments advance together, one position a call, each starting as
    if it began a document. Then each segment's start is repaired, in document order, with the
    true labels before it: its tokens are re-predicted one at a time until two in a row keep
    their first-pass label, after which nothing downstream can differ (a row's only inputs that
    changed are the two previous labels). The result is exactly that of token-by-token decoding.
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    if not len(columns):
        proba = learner.predict_proba(X)
        return [proba[s:s + n] for s, n in zip(starts, lengths)]
    segment = max(2, int(segment))
    seg_starts, seg_lengths, doc_start_of = [], [], []
    for s0, n in zip(starts, lengths):
        for offset in range(0, int(n), segment):
            seg_starts.append(s0 + offset)
            seg_lengths.append(min(segment, int(n) - offset))
            doc_start_of.append(s0)
    seg_starts, seg_lengths = np.array(seg_starts, np.int64), np.array(seg_lengths, np.int64)
    proba = np.zeros((len(X), len(LABELS)), dtype=np.float32)
    labels = np.zeros(len(X), dtype=np.int64)
    p1, p2 = columns
    for t in range(int(seg_lengths.max(initial=0))):
        rows = seg_starts[seg_lengths > t] + t
        if t >= 1:
            X[rows, p1] = labels[rows - 1]
        if t >= 2:
            X[rows, p2] = labels[rows - 2]
        proba[rows] = learner.predict_proba(X[rows])
        labels[rows] = decide(proba[rows], threshold)
    for s0, n, d0 in zip(seg_starts, seg_lengths, doc_start_of):
        if s0 == d0:
            continue
        kept = 0
        for row in range(s0, s0 + n):
            X[row, p1] = labels[row - 1]
            if row - 2 >= d0:
                X[row, p2] = labels[row - 2]
            p = learner.predict_proba(X[row:row + 1])[0]
            new = int(decide(p[None, :], threshold)[0])
            kept = kept + 1 if new == labels[row] else 0
            proba[row], labels[row] = p, new
            if kept >= 2:
                break
    return [proba[s:s + n] for s, n in zip(starts, lengths)]
