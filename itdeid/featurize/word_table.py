"""Per-word feature values computed once per distinct word, looked up for a note as one array.

Most feature columns of a token depend on its text alone: its shape, its English frequency, its
census name shares. Computing them token by token costs a Python call and a small tuple for
each of a note's tokens, then a conversion of all those tuples to an array (for the
document-only feature groups that cost more than the trees took). But a
clinical corpus repeats a small vocabulary: most tokens of a note are words seen in earlier
notes. So a :class:`WordTable` keeps one row of values per distinct word in a growing array, and
a note's columns are that array indexed by its words' row numbers: one dictionary lookup a
token, one fancy-indexing a note. The values are those of the same function called token by
token, bit for bit.

A long batch run sees an unbounded number of distinct tokens (every date and number is new), so
a table forgets everything once it holds :data:`MAX_WORDS` words and starts again: memory stays
flat, at the price of recomputing the common words once more.
"""
from __future__ import annotations

from itertools import repeat
from typing import Callable, Sequence

import numpy as np

#: Words a table holds before it starts again (its array is then about this many rows); the
#: ``lru_cache`` of the per-word functions behind the tables (zipf, shape, spelling, name shape)
#: keep as many. Full at 200,000, a process's word caches held some 320 MiB
#: (``experiments/results/many-files-caps.md``); at 100,000 a long run recomputes the common
#: words once every 100,000 new ones, a fraction of a second.
MAX_WORDS = 100_000


class WordTable:
    """``rows(words)``: an (n, width) float32 array whose row i is ``values(words[i])``.

    Parameters
    ----------
    values : callable
        The function of one word giving its ``width`` values (a tuple or list of numbers).
    width : int
        How many values ``values`` gives.
    """

    def __init__(self, values: Callable[[str], Sequence[float]], width: int, max_words: int = MAX_WORDS):
        self.values = values
        self.width = width
        self.max_words = max_words
        self._clear()

    def _clear(self) -> None:
        self._index: dict[str, int] = {}
        self._array = np.zeros((1024, self.width), dtype=np.float32)

    def rows(self, words: Sequence[str]) -> np.ndarray:
        if len(self._index) + len(words) > self.max_words:
            self._clear()
        index = self._index
        ids = list(map(index.get, words, repeat(-1)))   # dict.get mapped in C
        if -1 in ids:                                   # words not seen before: compute them once
            for i, k in enumerate(ids):
                if k == -1:
                    ids[i] = self._add(words[i])
        return self._array[np.array(ids, dtype=np.int64)]

    def _add(self, word: str) -> int:
        k = self._index.get(word)
        if k is None:
            k = self._index[word] = len(self._index)
            if k == len(self._array):
                self._array = np.concatenate([self._array, np.zeros_like(self._array)])
            self._array[k] = self.values(word)
        return k

    def __len__(self) -> int:
        return len(self._index)
