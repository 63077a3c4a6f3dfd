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


def batch_risks(model, documents) -> list[Risk]:
    """The :class:`Risk` of each of ``documents`` under ``model`` (an itdeid model that gives
    label probabilities) at its operating threshold (one half where it tags by argmax)."""
    from itdeid.featurize import tokenize_document
    threshold = model.operating_threshold()
    threshold = 0.5 if threshold is None else threshold
    risks: list[Risk] = []
    batch: list = []
    size = 0

    def flush():
        for td, proba in zip(batch, model.predict_proba_tokenized(batch)):
            risks.append(note_risk(1.0 - proba[:, 0], threshold))
        batch.clear()

    for doc in documents:
        batch.append(tokenize_document(doc, gold=False))
        size += len(doc.text)
        if size >= BATCH_CHARS:
            flush()
            size = 0
    if batch:
        flush()
    return risks
