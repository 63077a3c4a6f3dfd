"""The tokens of many notes as one batch: learned feature columns as array operations.

A token model's feature matrix has columns of the note alone, computed once and cached on the
note (:func:`itdeid.featurize.static_columns`), and columns that depend on what the model learned
(its triggers, case counts, words never PHI, lexicon). The second kind was built note by note and
token by token, once for every model: an ensemble of five members paid five Python passes over
every token (most of the recipe's tagging time once the trees had
shrunk). A :class:`TokenBatch` puts the notes' tokens end to end and numbers their distinct
words, so a learned column is one lookup per *distinct* word of the batch, then array indexing;
windows and neighbours are shifts of the whole batch, masked at note boundaries so that no note
ever sees another's tokens. A note's rows are the same whatever batch it is in (a de-identifier
must tag a note alike however it is fed), and the same, bit for bit, as the note-by-note code
gave (``tests/test_token_batch.py``).
"""
from __future__ import annotations

from itertools import chain
from typing import Callable, Iterable, Sequence

import numpy as np

from itdeid.text.tokens import TOKEN_TEXT


def _numbered(items: Iterable[str], n: int) -> tuple[list[str], np.ndarray]:
    """The distinct ``items`` (``n`` of them in all) in order of first occurrence, and each
    item's index among them: the loop runs in C (``dict.fromkeys``, ``map``), where a generator
    with ``dict.setdefault`` took a Python step a token."""
    items = list(items)
    distinct = list(dict.fromkeys(items))
    index = dict(zip(distinct, range(len(distinct))))
    return distinct, np.fromiter(map(index.__getitem__, items), np.int64, n)


class TokenBatch:
    """The tokens of ``docs`` (tokenized documents) end to end.

    Attributes
    ----------
    lengths : (n_docs,) token counts
    start, end : (n_tokens,) index of the first token of each token's note, and one past its last
    ids : (n_tokens,) the token's word's index in ``vocabulary``
    vocabulary : list of the batch's distinct (lower-case) words, in order of first occurrence
    """

    def __init__(self, docs: Sequence):
        self.docs = docs
        self.lengths = np.array([len(td) for td in docs], dtype=np.int64)
        first = (np.cumsum(self.lengths) - self.lengths).astype(np.int64)   # no notes: none
        self.start = np.repeat(first, self.lengths)
        self.end = self.start + np.repeat(self.lengths, self.lengths)
        self.vocabulary, self.ids = _numbered(chain.from_iterable(td.words for td in docs),
                                              int(self.lengths.sum()))
        #: Columns of the notes alone, joined once for every model that reads this batch (the
        #: members of an ensemble share one batch, :meth:`itdeid.estimators.ensemble.InnerEnsemble`).
        self.memo: dict = {}

    def __len__(self) -> int:
        return len(self.ids)

    def texts(self) -> tuple[list[str], np.ndarray]:
        """The batch's distinct token texts as written (case kept, unlike ``vocabulary``) and
        each token's index among them (remembered)."""
        if "texts" not in self.memo:
            tokens = chain.from_iterable(td.tokens for td in self.docs)
            self.memo["texts"] = _numbered(map(TOKEN_TEXT, tokens), len(self.ids))
        return self.memo["texts"]

    def per_word(self, value: Callable[[str], float], dtype=np.float32,
                 need: np.ndarray | None = None) -> np.ndarray:
        """``value(word)`` for each token, computed once per distinct word; with ``need`` (a
        boolean mask over the tokens), only for the words of those tokens (0 elsewhere)."""
        return self.word_rows(lambda words: list(map(value, words)), dtype, need)

    def word_rows(self, lookup: Callable[[list[str]], Sequence], dtype=np.float32,
                  need: np.ndarray | None = None) -> np.ndarray:
        """``lookup(words)`` (a value or a row of values a word) for each token, called once on
        the batch's distinct words; with ``need``, on the words of those tokens only (zeros
        elsewhere)."""
        if need is None:
            return np.asarray(lookup(self.vocabulary), dtype=dtype)[self.ids]
        words, _ = self.distinct_words(self.ids[need])
        found = np.asarray(lookup([self.vocabulary[k] for k in words]), dtype=dtype)
        table = np.zeros((len(self.vocabulary),) + found.shape[1:], dtype=dtype)
        table[words] = found
        return table[self.ids]

    def heading_names(self) -> tuple[list[str], np.ndarray]:
        """The names of every note's headings, one note's after another, and each token's index
        among them (-1: before its note's first heading), remembered: a model's heading column
        is then one lookup a heading name of the batch, not a Python pass a note and a model."""
        if "headings" not in self.memo:
            names: list[str] = []
            parts = []
            for td in self.docs:
                if not len(td):
                    continue
                s = td.structure
                index = np.asarray(s.heading, dtype=np.int64)
                parts.append(np.where(index >= 0, index + len(names), -1))
                names += [h.name for h in s.headings]
            self.memo["headings"] = (names, np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64))
        return self.memo["headings"]

    def distinct_words(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The distinct word indices among ``ids`` (indices into ``vocabulary``), sorted, and
        each one's position among them: ``np.unique(ids, return_inverse=True)``, by marking
        the vocabulary rather than sorting (a sort was most of a screened member's word
        lookups)."""
        present = np.zeros(len(self.vocabulary), dtype=bool)
        present[ids] = True
        rank = np.cumsum(present) - 1
        return np.flatnonzero(present), rank[ids]

    def near(self, hit: np.ndarray, reach: int) -> np.ndarray:
        """Tokens at most ``reach`` tokens from a ``hit`` (a boolean mask) in the same note (a
        note's tags must not depend on the notes tagged with it)."""
        near = hit.astype(np.float32)[:, None]
        out = hit.copy()
        for offset in range(-reach, reach + 1):
            if offset:
                out |= self.shifted(near, offset, fill=0.0)[:, 0] > 0
        return out

    def joined(self, per_document: Callable) -> np.ndarray:
        """``per_document(td)`` (an array with one row per token) of every note, end to end."""
        parts = [np.asarray(per_document(td)) for td in self.docs if len(td)]
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.float32)

    def joined_once(self, key, per_document: Callable) -> np.ndarray:
        """:meth:`joined`, remembered under ``key``: for columns that depend on the notes alone,
        never on what a model learned."""
        if key not in self.memo:
            self.memo[key] = self.joined(per_document)
        return self.memo[key]

    def shifted(self, values: np.ndarray, offset: int, fill: float = -1.0,
                rows: np.ndarray | None = None, out: np.ndarray | None = None) -> np.ndarray:
        """Row i is ``values[i + offset]`` where that token is in i's note, ``fill`` elsewhere;
        only for the tokens of the boolean mask ``rows`` when given (in order). ``out``: where
        to write them (a slice of a feature matrix, cast to its dtype), instead of a new array.

        Over the whole batch a shift is one block copy, and only the few rows within
        ``offset`` of a note's edge are filled afterwards (as masked gathers the window
        columns of a member's matrix cost much of its tagging time)."""
        n = len(self.ids)
        if out is None:
            size = n if rows is None else int(np.count_nonzero(rows))
            out = np.empty((size,) + values.shape[1:], dtype=values.dtype)
        if rows is None:
            kept = max(n - abs(offset), 0)   # rows whose source lies in the batch
            if offset >= 0:
                out[:kept] = values[offset:offset + kept]
            else:
                out[n - kept:] = values[:kept]
            edge = self._edge_rows(offset)
            out[edge] = fill
            return out
        index = np.flatnonzero(rows)
        source = index + offset
        inside = (source >= self.start[index]) & (source < self.end[index])
        out[:] = values[np.where(inside, source, index)]
        out[~inside] = fill
        return out

    def _edge_rows(self, offset: int) -> np.ndarray:
        """The tokens whose token ``offset`` away lies outside their note (remembered)."""
        key = ("edge rows", offset)
        if key not in self.memo:
            index = np.arange(len(self.ids))
            source = index + offset
            self.memo[key] = np.flatnonzero((source < self.start) | (source >= self.end))
        return self.memo[key]
