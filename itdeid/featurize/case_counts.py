"""How often a word is written capitalized, in lower case, or capitalized first in a sentence.

A capitalized word that the notes also write in lower case is rarely a name ('Brown' and 'brown
stool'). wordfreq folds case, so the counts come from the notes: a model's training notes
(their ordinary occurrences only) plus the one note being tagged.
"""
from __future__ import annotations

import math
from functools import lru_cache
from collections import Counter
from itertools import repeat
from typing import Iterable, Sequence

import numpy as np

from itdeid.featurize.tokenized import TokenizedDocument
from itdeid.featurize.token_batch import TokenBatch


class CaseCounts:
    """How often each word is written capitalized, lower case, or capitalized sentence-initially.

    wordfreq folds case, so these ratios are counted in the documents themselves: the training
    documents' counts (kept for safe words only, see :meth:`FeatureExtractor.fit`) plus those of
    the one document being transformed. Not plus the other documents transformed with it: then
    a note's tags would depend on its batch (which notes share a file, a worker's chunk, a
    resumed run), and a de-identifier must give a note the same tags however it is fed.
    """

    def __init__(self):
        self.capitalized = Counter()
        self.lower = Counter()
        self.initial = Counter()

    def add(self, docs: Iterable[TokenizedDocument], ordinary_only: bool = False) -> "CaseCounts":
        """Count the documents' words; with ``ordinary_only``, only their occurrences outside
        gold PHI (what a model file may keep)."""
        for td in docs:
            first_in_sentence = td.structure.token_in_sentence == 0
            phi = (np.asarray(td.labels) != 0) if ordinary_only else np.zeros(len(td.tokens), bool)
            for token, word, initial, is_phi in zip(td.tokens, td.words, first_in_sentence, phi):
                c = token.text[0]
                if is_phi or not c.isalpha():
                    continue
                if initial:
                    self.initial[word] += 1
                elif c.isupper():
                    self.capitalized[word] += 1
                else:
                    self.lower[word] += 1
        return self

    def restricted(self, words: set) -> "CaseCounts":
        """The counts of ``words`` only."""
        out = CaseCounts()
        for name in ("capitalized", "lower", "initial"):
            getattr(out, name).update({w: n for w, n in getattr(self, name).items() if w in words})
        return out

    def table(self, words: Sequence[str]) -> np.ndarray:
        """The (capitalized, lower-case, sentence-initial) counts of each of ``words``, as an
        (n, 3) integer array (a column at a time, ``dict.get`` mapped in C: half the time of a
        tuple a word)."""
        return np.column_stack([np.fromiter(map(counts.get, words, repeat(0)), np.int64, len(words))
                                for counts in (self.capitalized, self.lower, self.initial)])


def _batch_own_case_counts(batch: TokenBatch) -> np.ndarray:
    """Per token of a batch, its word's (capitalized, lower-case, sentence-initial) counts in
    its own note, as :class:`CaseCounts` of that note alone counts them (every model adds them
    to its own training counts), as array operations: each token's (note, word) pair numbered,
    and its three counts a bincount over the pairs (a loop over every token of every note took
    a noticeable share of the tagging time)."""
    key = ("own case counts",)
    if key not in batch.memo:
        texts, text_ids = batch.texts()
        alpha = np.fromiter((t[0].isalpha() for t in texts), bool, len(texts))[text_ids]
        upper = np.fromiter((t[0].isupper() for t in texts), bool, len(texts))[text_ids]
        initial = np.concatenate([np.asarray(td.structure.token_in_sentence) == 0 for td in batch.docs]
                                 + [np.zeros(0, dtype=bool)])
        note = np.repeat(np.arange(len(batch.docs), dtype=np.int64), batch.lengths)
        _, pair = np.unique(note * max(len(batch.vocabulary), 1) + batch.ids, return_inverse=True)
        pair = pair.reshape(-1)
        out = np.zeros((len(batch), 3), dtype=np.int64)
        size = int(pair.max()) + 1 if len(pair) else 0
        # the columns of CaseCounts.table: capitalized, lower case, sentence-initial
        for j, counted in enumerate((alpha & ~initial & upper, alpha & ~initial & ~upper, alpha & initial)):
            out[:, j] = np.bincount(pair[counted], minlength=size)[pair]
        batch.memo[key] = out
    return batch.memo[key]


#: Counts below this have their log ratios in a table (:func:`_small_log_ratios`): most
#: tokens have both counts below it.
SMALL_COUNTS = 128


@lru_cache(maxsize=1)
def _small_log_ratios() -> np.ndarray:
    """:func:`_log_ratio` of every pair of counts below :data:`SMALL_COUNTS`, by ``math.log``
    as it computes them (the division in double precision first)."""
    ratios = np.arange(1, SMALL_COUNTS + 1, dtype=np.float64)[:, None] / np.arange(1, SMALL_COUNTS + 1)
    return np.array(list(map(math.log, ratios.ravel().tolist())), dtype=np.float32).reshape(ratios.shape)


def _log_ratio(top: np.ndarray, bottom: np.ndarray) -> np.ndarray:
    """The add-one log ratio ``log((top + 1) / (bottom + 1))`` of integer counts (capitalized
    against lower-case or sentence-initial), by ``math.log`` in double precision once per
    distinct pair, in float32: small counts from a table, the rest once per distinct pair (a
    sort of every token's pair would cost more)."""
    small = (top < SMALL_COUNTS) & (bottom < SMALL_COUNTS)
    if small.all():
        return _small_log_ratios()[top, bottom]
    out = np.empty(len(top), dtype=np.float32)
    out[small] = _small_log_ratios()[top[small], bottom[small]]
    rest = ~small
    out[rest] = _distinct_log_ratios(top[rest], bottom[rest])
    return out


def _distinct_log_ratios(top: np.ndarray, bottom: np.ndarray) -> np.ndarray:
    """:func:`_log_ratio` computed once per distinct pair of ``top`` and ``bottom``."""
    base = int(bottom.max()) + 1 if len(bottom) else 1
    keys, inverse = np.unique(top * base + bottom, return_inverse=True)
    values = np.array([math.log((k // base + 1) / (k % base + 1)) for k in keys.tolist()], dtype=np.float32)
    return values[np.ravel(inverse)]
