"""What the training notes teach about their words, kept under the privacy rule
(model files keep nothing learned from a PHI occurrence).

The trees see a word through its shape, its general-English frequency and a few lists; they do
not know the notes' own vocabulary, which the CRF peer learns word by word (and so beats every
boosted row by precision on PhysioNet). 'foley', 'ativan' and 'npn' are rare in English and
never names in nursing notes; 'called', 'wife' and 'per' are often followed by a name. A
:class:`Lexicon` counts, for each word seen *outside* PHI in the training notes:

- how often it was seen (as ordinary text), which against its general-English frequency says
  how much of a clinical word it is (``notes_vs_english``);
- how often the word after it, and the word before it, was PHI of each class (the neighbour's
  label, counted over the word's ordinary occurrences): context words beyond the paper's
  filtered trigger lists.

Only words with an ordinary occurrence are kept, and only statistics of those occurrences, so
a word that was only ever PHI (a patient's surname) is in no model file. Neighbours
are the nearest word within two tokens, skipping punctuation ('Dr . Smith').

Used on its own training notes, a count would leak their labels: a word seen only as PHI has
count 0 there, while a new ordinary word in a test note also has 0. So the training rows get
out-of-fold statistics (:meth:`FeatureExtractor.fit_transform`), each note's from the notes of
other patients, as the model will see new notes.
"""
from __future__ import annotations

from itertools import repeat
from typing import Iterable, Sequence

import numpy as np

from itdeid.estimators.folds import inner_split
from itdeid.model_folder.model_files import is_count
from itdeid.text.tokens import LETTER_OR_DIGIT

#: Classes of the neighbour statistics: label codes 1..8 (itdeid.document.PHI_CLASSES).
N_CLASSES = 8
#: A word needs this many ordinary occurrences to be kept.
MIN_COUNT = 2
#: Pseudo-count of the smoothed neighbour PHI rates.
SMOOTHING = 2.0

LEXICON_COLUMNS = ("notes_log_count", "notes_vs_english", "left_phi_rate", "left_phi_class",
                   "right_phi_rate", "right_phi_class")


def neighbours(words: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Index of the nearest word (a token with a letter or digit) within two tokens to the left
    and to the right of each token, -1 where there is none."""
    n = len(words)
    is_word = np.array([LETTER_OR_DIGIT.search(w) is not None for w in words], dtype=bool).reshape(n)
    index = np.arange(n, dtype=np.int64)
    left = np.full(n, -1, dtype=np.int64)
    right = np.full(n, -1, dtype=np.int64)
    for step in (2, 1):                 # the nearer word, written last, wins
        before = index[step:][is_word[:n - step]] if n > step else index[:0]
        left[before] = before - step
        after = index[:n - step][is_word[step:]] if n > step else index[:0]
        right[after] = after + step
    return left, right


class Lexicon:
    """Per word, its ordinary occurrences and the labels of its neighbours there.

    ``table``: word -> [count, next-word PHI counts by class (8), previous-word PHI counts (8)];
    ``tokens``: ordinary tokens counted (for frequencies per billion).
    """

    def __init__(self, table: dict | None = None, tokens: int = 0):
        self.table = table if table is not None else {}
        self.tokens = tokens

    @classmethod
    def count(cls, docs: Iterable, min_count: int = MIN_COUNT) -> "Lexicon":
        """The lexicon of tokenized documents with gold labels."""
        table: dict[str, list[int]] = {}
        tokens = 0
        for td in docs:
            labels = np.asarray(td.labels)
            left, right = neighbours(td.words)
            for i, (w, label) in enumerate(zip(td.words, labels)):
                if label:
                    continue
                tokens += 1
                row = table.get(w)
                if row is None:
                    row = table[w] = [0] * (1 + 2 * N_CLASSES)
                row[0] += 1
                if right[i] >= 0 and labels[right[i]]:
                    row[int(labels[right[i]])] += 1
                if left[i] >= 0 and labels[left[i]]:
                    row[N_CLASSES + int(labels[left[i]])] += 1
        return cls({w: r for w, r in table.items() if r[0] >= min_count}, tokens)

    def seen(self, word: str) -> int:
        """How often ``word`` (lower case) was seen as ordinary text; 0 when not kept."""
        row = self.table.get(word)
        return row[0] if row is not None else 0

    def to_dict(self) -> dict:
        return {"tokens": self.tokens, "table": self.table}

    @classmethod
    def from_dict(cls, data) -> "Lexicon":
        """A saved lexicon, checked (a ValueError says what is wrong)."""
        if not isinstance(data, dict) or not is_count(data.get("tokens")) \
                or not isinstance(data.get("table"), dict):
            raise ValueError("lexicon must hold 'tokens' (a count) and 'table'")
        width = 1 + 2 * N_CLASSES
        for w, row in data["table"].items():
            if not (isinstance(row, list) and len(row) == width and all(is_count(v) for v in row)):
                raise ValueError(f"lexicon row of a word must be {width} counts")
        return cls(data["table"], data["tokens"])

    def rows(self, words: Sequence[str]) -> np.ndarray:
        """The table rows of ``words`` as an (n, 17) float32 array (zeros for unknown words)."""
        if getattr(self, "_rows", None) is None or len(self._rows[0]) != len(self.table):
            # the table as one array, built once (a model tags many batches with one lexicon);
            # its last row is the unknown word's
            index = {w: k for k, w in enumerate(self.table)}
            array = np.zeros((len(index) + 1, 1 + 2 * N_CLASSES), dtype=np.float32)
            if index:
                array[:-1] = np.array(list(self.table.values()), dtype=np.float32)
            self._rows = (index, array)
        index, array = self._rows
        unknown = len(index)
        return array[np.fromiter(map(index.get, words, repeat(unknown)), np.int64, len(words))]

    def columns(self, words: Sequence[str], zipf: np.ndarray) -> dict[str, np.ndarray]:
        """The ``lexicon`` feature columns of one document's (lower-case) words; ``zipf`` their
        general-English Zipf frequencies."""
        tokens = np.full(len(words), max(self.tokens, 1), dtype=np.float32)
        return lexicon_columns(self.rows(words), tokens, zipf, *neighbours(words))


def lexicon_columns(rows: np.ndarray, tokens: np.ndarray, zipf: np.ndarray, left: np.ndarray,
                    right: np.ndarray) -> dict[str, np.ndarray]:
    """The ``lexicon`` columns of tokens from their lexicon ``rows`` (:meth:`Lexicon.rows`), the
    ordinary tokens their lexicon counted (``tokens``, float32, at least 1), their Zipf
    frequencies and the indices of their word neighbours (:func:`neighbours`, -1: none). The
    tokens may be one note's or a batch's (then the neighbour indices are the batch's)."""
    width = 1 + 2 * N_CLASSES
    count = rows[:, 0]
    per_billion = np.log10((count + 0.5) / tokens * 1e9)
    out = {"notes_log_count": np.log1p(count), "notes_vs_english": per_billion - zipf}
    for side, index, block in (("left", left, slice(1, 1 + N_CLASSES)),
                               ("right", right, slice(1 + N_CLASSES, width))):
        # the left neighbour's "next word is PHI" counts, the right neighbour's "previous"
        phi = rows[:, block]
        rate = (phi.sum(axis=1) + SMOOTHING * 0.01) / (count + SMOOTHING)
        best = np.where(phi.sum(axis=1) > 0, phi.argmax(axis=1) + 1, 0).astype(np.float32)
        has = index >= 0
        out[f"{side}_phi_rate"] = np.where(has, rate[np.maximum(index, 0)], -1.0).astype(np.float32)
        out[f"{side}_phi_class"] = np.where(has, best[np.maximum(index, 0)], -1.0).astype(np.float32)
    return {k: np.asarray(v, dtype=np.float32) for k, v in out.items()}


def fold_lexicons(docs: Sequence, folds: int, min_count: int = MIN_COUNT) -> tuple[list[Lexicon], np.ndarray]:
    """Per inner fold (grouped by patient), the lexicon of the other folds' documents, and each
    document's fold: the out-of-fold statistics of training rows."""
    fold, k = inner_split([td.document for td in docs], folds)
    lexicons = [Lexicon.count([td for td, f in zip(docs, fold) if f != g], min_count) for g in range(k)]
    return lexicons, np.asarray(fold)
