"""Trigger words learned from training documents, in the paper's three variants.

A trigger is a word that tends to stand at a fixed offset from a PHI token ('Dr.' before a
DOCTOR, 'Hospital' after a HOSPITAL's first word). Szarvas et al. used triggers three ways, and
the three models of the final vote differ only in which:

``token``
    The words at offsets -3..-1 and +1..+3 of every tagged token, per class and offset.
``phrase``
    The words around whole PHI phrases, in a wider window (offsets -4..-1 before the phrase's
    first token, +1..+4 after its last token). A left trigger marks only a phrase's first token
    and a right trigger only its last ('M.D.' two tokens after a DOCTOR phrase).
``ngram``
    Bigrams and trigrams right before a phrase or right after it (', M.D.', 'seen by Dr').

Only non-PHI tokens are trigger candidates: a trigger is context, never another entity (a first
name before a last name is the model's business, not a trigger's), and so the trigger lists that
a saved model carries hold no training PHI. The counts behind a trigger's gain are of its
ordinary occurrences too, so nothing a model keeps about a word comes from its uses as PHI.

Every candidate must occur ``min_count`` times at its place and is then ranked by the
information gain of "this word is at this offset" about "this token is of this class" (for
phrase and n-gram triggers: "is the first/last token of a phrase of this class"), over all
training tokens; those with gain >= ``min_gain`` are kept, at most ``top_k`` per class and side.
Triggers are learned from the documents given to :meth:`TriggerLists.fit` only, so in
cross-validation they come from the training folds alone.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from itertools import repeat

import numpy as np

from itdeid.document import PHI_CLASSES
from itdeid.model_folder.model_files import is_count, is_finite_number
from itdeid.text.spans import label_runs

VARIANTS = ("token", "phrase", "ngram")


def _entropy(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-12, 1 - 1e-12)
    return -(p * np.log2(p) + (1 - p) * np.log2(1 - p))


def information_gain(n: int, n_pos: int, a: np.ndarray, a_pos: np.ndarray) -> np.ndarray:
    """Information gain (bits) of a binary feature about a binary target.

    ``n`` items of which ``n_pos`` are positive; the feature fires on ``a`` items of which
    ``a_pos`` are positive (arrays: one entry per candidate feature).
    """
    a = np.asarray(a, dtype=float)
    a_pos = np.minimum(np.asarray(a_pos, dtype=float), a)
    b = n - a
    b_pos = np.maximum(n_pos - a_pos, 0)
    h = _entropy(np.array(n_pos / n))
    with np.errstate(divide="ignore", invalid="ignore"):
        h_a = np.where(a > 0, _entropy(a_pos / np.maximum(a, 1)), 0.0)
        h_b = np.where(b > 0, _entropy(b_pos / np.maximum(b, 1)), 0.0)
    return h - (a / n) * h_a - (b / n) * h_b


@dataclass
class TriggerLists:
    """Learned triggers of one variant.

    ``left[c]`` / ``right[c]`` map a key to its information gain, for class code ``c`` (1..8,
    the index into :data:`itdeid.document.LABELS`). Keys are ``(offset, word)`` for the token and
    phrase variants and n-gram tuples for the n-gram variant.
    """

    variant: str = "token"
    min_count: int = 3
    min_gain: float = 1e-4
    top_k: int = 60
    left: dict = field(default_factory=dict)
    right: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.variant not in VARIANTS:
            raise ValueError(f"trigger variant must be one of {', '.join(VARIANTS)}, got {self.variant!r}")

    # -- learning ---------------------------------------------------------------------------
    def fit(self, sequences: list[tuple[list[str], np.ndarray]]) -> "TriggerLists":
        """Learn from (lower-cased token words, label codes) pairs, one per training document."""
        n = sum(len(words) for words, _ in sequences)
        # a candidate's occurrences are counted outside PHI only: the gain a saved model keeps
        # for a trigger word describes its ordinary occurrences, never its uses as PHI
        word_count = Counter(w for words, labels in sequences
                             for w, label in zip(words, labels) if not label)
        classes = range(1, len(PHI_CLASSES) + 1)
        offsets_left, offsets_right = _offsets(self.variant)
        cand_left = {c: Counter() for c in classes}
        cand_right = {c: Counter() for c in classes}
        positives_left = Counter()   # targets: tagged tokens (token) or phrase firsts / lasts
        positives_right = Counter()
        ngram_count = Counter()
        for words, labels in sequences:
            m = len(words)
            if self.variant == "ngram":
                for k in (2, 3):
                    for i in range(m - k + 1):
                        if not labels[i:i + k].any():
                            ngram_count[tuple(words[i:i + k])] += 1
            if self.variant == "token":
                for i in np.flatnonzero(labels):
                    c = int(labels[i])
                    positives_left[c] += 1
                    positives_right[c] += 1
                    for o in offsets_left:
                        if i + o >= 0 and not labels[i + o]:
                            cand_left[c][(o, words[i + o])] += 1
                    for o in offsets_right:
                        if i + o < m and not labels[i + o]:
                            cand_right[c][(o, words[i + o])] += 1
                continue
            for first, last, c in label_runs(labels):
                positives_left[c] += 1
                positives_right[c] += 1
                if self.variant == "phrase":
                    for o in offsets_left:
                        if first + o >= 0 and not labels[first + o]:
                            cand_left[c][(o, words[first + o])] += 1
                    for o in offsets_right:
                        if last + o < m and not labels[last + o]:
                            cand_right[c][(o, words[last + o])] += 1
                else:
                    for k in (2, 3):
                        if first - k >= 0 and not labels[first - k:first].any():
                            cand_left[c][tuple(words[first - k:first])] += 1
                        if last + 1 + k <= m and not labels[last + 1:last + 1 + k].any():
                            cand_right[c][tuple(words[last + 1:last + 1 + k])] += 1
        counts = ngram_count if self.variant == "ngram" else None
        self.left = {c: self._select(cand_left[c], n, positives_left[c], word_count, counts) for c in classes}
        self.right = {c: self._select(cand_right[c], n, positives_right[c], word_count, counts) for c in classes}
        return self

    def _select(self, candidates: Counter, n: int, n_pos: int, word_count: Counter, ngram_count) -> dict:
        keys = [k for k, v in candidates.items() if v >= self.min_count]
        if not keys or n_pos == 0:
            return {}
        a_pos = np.array([candidates[k] for k in keys])
        if ngram_count is not None:
            a = np.array([ngram_count[k] for k in keys])
        else:
            a = np.array([word_count[k[1]] for k in keys])
        gain = information_gain(n, n_pos, np.maximum(a, a_pos), a_pos)
        order = np.argsort(-gain, kind="stable")[: self.top_k]
        return {keys[i]: float(gain[i]) for i in order if gain[i] >= self.min_gain}

    # -- applying ---------------------------------------------------------------------------
    def _inverted(self) -> tuple[dict, dict]:
        """Left and right trigger tables turned around for lookup, built once per fitted list:
        ngram variant, ngram -> [class]; others, word -> [(offset, class)]."""
        cached = getattr(self, "_inverted_cache", None)
        if cached is not None and cached[0] is self.left and cached[1] is self.right:
            return cached[2]
        tables = []
        for lists in (self.left, self.right):
            index: dict = {}
            for c, table in lists.items():
                for key in table:
                    if self.variant == "ngram":
                        index.setdefault(key, []).append(c)
                    else:
                        o, w = key
                        index.setdefault(w, []).append((o, c))
            tables.append(index)
        self._inverted_cache = (self.left, self.right, tuple(tables))
        return self._inverted_cache[2]

    def _flat(self) -> tuple[dict, list[tuple[np.ndarray, ...]]]:
        """The inverted tables (not ngram) as arrays, built once per fitted list: each trigger
        word's index, and per side, each word's count of (offset, class) entries (the last row
        is any other word's: 0), where its entries begin, and all entries' offsets and classes.
        A batch then looks each of its words up once for both sides."""
        sides = self._inverted()
        cached = getattr(self, "_flat_cache", None)
        if cached is not None and cached[0] is sides:
            return cached[1]
        words = sorted(set(sides[0]) | set(sides[1]))
        arrays = []
        for index in sides:
            entries = [index.get(w, ()) for w in words]
            counts = np.array([len(e) for e in entries] + [0], dtype=np.int64)
            arrays.append((counts, np.concatenate([[0], np.cumsum(counts)[:-1]]),
                           np.array([o for e in entries for o, _ in e], dtype=np.int64),
                           np.array([c for e in entries for _, c in e], dtype=np.int64)))
        flat = ({w: k for k, w in enumerate(words)}, arrays)
        self._flat_cache = (sides, flat)
        return flat

    def hits(self, words: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """Per token and class, the number of left and right triggers that point at it.

        Returns two arrays of shape (len(words), 8); column c-1 is class code c.
        """
        m = len(words)
        n_classes = len(PHI_CLASSES)
        left = np.zeros((m, n_classes), dtype=np.float32)
        right = np.zeros((m, n_classes), dtype=np.float32)
        left_index, right_index = self._inverted()
        if self.variant == "ngram":
            for index, out, before in ((left_index, left, True), (right_index, right, False)):
                if not index:
                    continue
                firsts = {key[0] for key in index}
                for start in (j for j, w in enumerate(words) if w in firsts):
                    for k in (2, 3):
                        if start + k > m:
                            continue
                        classes = index.get(tuple(words[start:start + k]))
                        if not classes:
                            continue
                        # an ngram words[start:start+k] before token start+k, after token start-1
                        i = start + k if before else start - 1
                        if 0 <= i < m:
                            for c in classes:
                                out[i, c - 1] += 1
            return left, right
        for index, out in ((left_index, left), (right_index, right)):
            for j, w in enumerate(words):
                for o, c in index.get(w, ()):
                    i = j - o  # the token this trigger points at
                    if 0 <= i < m:
                        out[i, c - 1] += 1
        return left, right

    def batch_hits(self, batch, need: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`hits` of every note of a :class:`~itdeid.featurize.token_batch.TokenBatch`, end to end
        (the same counts): the triggers of each distinct word are looked up once, and a trigger
        points at a token of its own note only. ``need`` (a boolean mask over the tokens): the
        counts are right at those tokens (only the triggers near them are looked at)."""
        m = len(batch)
        left = np.zeros((m, len(PHI_CLASSES)), dtype=np.float32)
        right = np.zeros((m, len(PHI_CLASSES)), dtype=np.float32)
        if self.variant == "ngram":   # n-grams span tokens: note by note
            for td, a in zip(batch.docs, np.concatenate([[0], np.cumsum(batch.lengths)])):
                left[a:a + len(td)], right[a:a + len(td)] = self.hits(td.words)
            return left, right
        where, sides = self._flat()
        # each token's trigger word (-1, the tables' last row: none)
        word = np.fromiter(map(where.get, batch.vocabulary, repeat(-1)), np.int64,
                           len(batch.vocabulary))[batch.ids]
        for (counts, first, offsets, classes), out in zip(sides, (left, right)):
            per_token = counts[word]
            if not m or not per_token.any():
                continue
            if need is not None:    # only tokens whose triggers can point at a needed token
                per_token = np.where(batch.near(need, int(np.abs(offsets).max())), per_token, 0)
            token = np.repeat(np.arange(m), per_token)
            # the k-th trigger entry of each token's word, k = 0 .. per_token - 1
            k = np.arange(len(token)) - np.repeat(np.cumsum(per_token) - per_token, per_token)
            entry = first[word][token] + k
            target = token - offsets[entry]   # the token this trigger points at
            inside = (target >= batch.start[token]) & (target < batch.end[token])
            # each (token, class) pair's count: a bincount, not np.add.at's slow loop
            cells = target[inside] * len(PHI_CLASSES) + classes[entry][inside] - 1
            out += np.bincount(cells, minlength=out.size).reshape(out.shape)
        return left, right

    # -- persistence ------------------------------------------------------------------------
    def to_dict(self) -> dict:
        def dump(lists):
            return {str(c): [[list(k) if isinstance(k, tuple) else k, g] for k, g in table.items()]
                    for c, table in lists.items()}
        return {"variant": self.variant, "min_count": self.min_count, "min_gain": self.min_gain,
                "top_k": self.top_k, "left": dump(self.left), "right": dump(self.right)}

    @classmethod
    def from_dict(cls, data: dict) -> "TriggerLists":
        """Rebuild from :meth:`to_dict`'s dict, checked: classes 1..8, keys (offset, word) or
        n-grams of words, numeric gains (a ValueError says what is wrong)."""
        variant = data["variant"]
        if variant not in VARIANTS:
            raise ValueError(f"trigger variant must be one of {', '.join(VARIANTS)}, got {variant!r}")

        def key_of(key, offsets: range):
            if variant == "ngram":
                if isinstance(key, list) and key and all(isinstance(w, str) for w in key):
                    return tuple(key)
            elif (isinstance(key, list) and len(key) == 2 and isinstance(key[0], int)
                  and not isinstance(key[0], bool) and key[0] in offsets and isinstance(key[1], str)):
                return (key[0], key[1])
            raise ValueError(f"a malformed {variant} trigger (an offset outside "
                             f"{offsets.start}..{offsets.stop - 1}, or not a word)")

        def load(lists, offsets: range):
            out = {}
            for c, rows in lists.items():
                if c not in {str(k) for k in range(1, len(PHI_CLASSES) + 1)}:
                    raise ValueError(f"trigger class {c!r} is not 1..{len(PHI_CLASSES)}")
                table = {}
                for key, gain in rows:
                    if not is_finite_number(gain):
                        raise ValueError("a trigger gain that is not a finite number")
                    table[key_of(key, offsets)] = gain
                out[int(c)] = table
            return out
        min_count, min_gain, top_k = data["min_count"], data["min_gain"], data["top_k"]
        if not (is_count(min_count) and min_count >= 1 and is_finite_number(min_gain) and is_count(top_k)):
            raise ValueError("trigger min_count, min_gain and top_k must be a count of 1 or more, a "
                             "finite number and a count")
        left, right = _offsets(variant)
        return cls(variant=variant, min_count=min_count, min_gain=min_gain, top_k=top_k,
                   left=load(data["left"], left), right=load(data["right"], right))


def _offsets(variant: str) -> tuple[range, range]:
    """The offsets a variant's trigger words are looked for at, left and right of the token
    (the token variant) or of the phrase (the others)."""
    return (range(-3, 0), range(1, 4)) if variant == "token" else (range(-4, 0), range(1, 5))

