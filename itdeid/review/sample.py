"""Which notes a reviewer sees: most chosen by risk, the rest uniformly at random.

A reviewer's time is best spent where the model was unsure, so most of the sample is the notes
with the most *near misses* (tokens whose P(PHI) falls just under the operating threshold, at
least a quarter of it: the PHI most likely left untagged) and *unsure tags* (tagged tokens whose
P(PHI) is under one half). Those notes say little about the batch as a whole, so the rest of the
sample is drawn uniformly from the other notes with a seeded generator. Every sampled note
keeps its stratum and its inclusion probability (1 for the risk stratum, which is taken whole;
``k / (N - r)`` for a uniform draw of ``k`` of the ``N - r`` others), so misses found in review
can be weighted back to the batch (a stratified Horvitz-Thompson estimate).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from itdeid.errors import ParameterError

#: A near miss is an untagged token whose P(PHI) reaches this share of the threshold.
NEAR_SHARE = 0.25
#: A tag is unsure when its token's P(PHI) is under this.
UNSURE_BELOW = 0.5


@dataclass(frozen=True)
class Risk:
    """What makes a note worth reviewing: its near misses and unsure tags (token counts)."""
    near_misses: int
    unsure_tags: int

    @property
    def score(self) -> int:
        return self.near_misses + self.unsure_tags


@dataclass(frozen=True)
class Pick:
    """One sampled note: its index in the batch, its stratum ("risk" or "random") and the
    probability that the design included it."""
    index: int
    stratum: str
    probability: float


def note_risk(p_phi: np.ndarray, threshold: float) -> Risk:
    """The :class:`Risk` of a note from its tokens' P(PHI) at the operating ``threshold``."""
    p_phi = np.asarray(p_phi, dtype=np.float64)
    tagged = p_phi >= threshold
    near = (~tagged) & (p_phi >= NEAR_SHARE * threshold)
    unsure = tagged & (p_phi < max(UNSURE_BELOW, threshold))
    return Risk(int(near.sum()), int(unsure.sum()))


def choose_sample(risks: Sequence[Risk], size: int, random_share: float, seed: int) -> list[Pick]:
    """``size`` notes of the batch whose notes have ``risks`` (all of them when the batch is
    smaller): ``size - round(size * random_share)`` by highest risk score (ties: batch order),
    then the rest uniformly at random from the other notes (seeded by ``seed``). Returned in
    the order a reviewer sees them: the risk stratum by score, then the random one."""
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise ParameterError(f"the sample size must be a whole number of at least 1, got {size!r}")
    if not 0 <= random_share <= 1:
        raise ParameterError(f"the random share must be between 0 and 1, got {random_share!r}")
    n = len(risks)
    size = min(size, n)
    n_random = int(round(size * random_share))
    n_risk = size - n_random
    order = sorted(range(n), key=lambda i: (-risks[i].score, i))
    risky = order[:n_risk]
    rest = np.array(sorted(order[n_risk:]), dtype=np.int64)
    picks = [Pick(i, "risk", 1.0) for i in risky]
    if n_random:
        drawn = np.random.default_rng(seed).choice(rest, size=n_random, replace=False)
        probability = n_random / len(rest)
        picks += [Pick(int(i), "random", probability) for i in drawn]
    return picks


#: Notes tokenized and scored together, at most this many characters at a time.
BATCH_CHARS = 200_000
#: Bins of the untagged tokens' P(PHI): 0, then log-spaced from this up to the threshold.
LOWEST_BIN = 1e-5
N_BINS = 40


@dataclass
class Untagged:
    """The batch's untagged tokens by P(PHI): ``counts[k]`` tokens with P(PHI) in
    ``[edges[k], edges[k+1])``, whose P(PHI) sum to ``sums[k]`` (what the model-based estimate
    of the PHI left reads, without keeping a number a token)."""
    edges: list[float]
    counts: list[int]
    sums: list[float]

    @classmethod
    def empty(cls, threshold: float) -> "Untagged":
        edges = [0.0] + list(np.geomspace(LOWEST_BIN, threshold, N_BINS + 1))
        return cls(edges, [0] * (len(edges) - 1), [0.0] * (len(edges) - 1))

    def add(self, p_phi: np.ndarray) -> None:
        p = p_phi[p_phi < self.edges[-1]]
        where = np.clip(np.searchsorted(self.edges, p, side="right") - 1, 0, len(self.counts) - 1)
        counts = np.bincount(where, minlength=len(self.counts))
        sums = np.bincount(where, weights=p, minlength=len(self.counts))
        self.counts = [int(a + b) for a, b in zip(self.counts, counts)]
        self.sums = [float(a + b) for a, b in zip(self.sums, sums)]


def note_probabilities(model, documents):
    """Per note, its tokens' (start, end) in the note's own text and P(PHI) (an iterator that
    tags :data:`BATCH_CHARS` of notes at a time)."""
    from itdeid.featurize import tokenize_document
    batch: list = []
    size = 0

    def flush():
        for td, proba in zip(batch, model.predict_proba_tokenized(batch)):
            if td.starts is None:
                offsets = [(t.start, t.end) for t in td.tokens]
            else:                           # the model read a folded copy: offsets of the note
                offsets = [(int(td.starts[t.start]), int(td.starts[t.end])) for t in td.tokens]
            yield np.asarray(offsets, dtype=np.int64).reshape(-1, 2), (1.0 - proba[:, 0]).astype(np.float64)
        batch.clear()

    for doc in documents:
        batch.append(tokenize_document(doc, gold=False))
        size += len(doc.text)
        if size >= BATCH_CHARS:
            yield from flush()
            size = 0
    if batch:
        yield from flush()


def risk_threshold(model) -> float:
    """The threshold risks are counted against: the model's operating threshold, or one half
    for a model that tags by argmax."""
    threshold = model.operating_threshold()
    return 0.5 if threshold is None else threshold


def batch_risks(model, documents) -> tuple[list[Risk], Untagged]:
    """The :class:`Risk` of each of ``documents`` under ``model`` (an itdeid model that gives
    label probabilities) at its operating threshold (one half where it tags by argmax), and
    the batch's :class:`Untagged` tokens."""
    threshold = risk_threshold(model)
    untagged = Untagged.empty(threshold)
    risks = []
    for _, p_phi in note_probabilities(model, documents):
        risks.append(note_risk(p_phi, threshold))
        untagged.add(p_phi)
    return risks, untagged


def token_probabilities(model, documents) -> list[list[list]]:
    """Per note, ``[start, end, P(PHI)]`` of each of its tokens (the reviewed notes' tokens,
    from which the calibration of P(PHI) is measured)."""
    return [[[int(a), int(b), round(float(p), 6)] for (a, b), p in zip(offsets, p_phi)]
            for offsets, p_phi in note_probabilities(model, documents)]
