"""The layout groups (casing, context, heading) of a whole batch at once, as array operations.

Their note-by-note functions (:func:`itdeid.featurize.casing.casing_columns`,
:func:`~itdeid.featurize.note_columns._context_columns`,
:func:`~itdeid.featurize.note_columns._heading_columns`) walk a note token by token, carrying a
state from one token to the next: the last announcing word and how far back it is, whether a
quotation mark is open and how deep the brackets are, how many tokens since a heading. Those
loops, writing one numpy element at a time, took a noticeable share of the recipe's
tagging time (experiments/results/stage-times-frozen.md). Each state has a closed form over the
batch's tokens end to end:

- the nearest announcing word at most :data:`~itdeid.featurize.casing.REACH` words back is the first of
  the words one, two and three places back (punctuation of ``_SKIPPED`` not counted) that is one;
- an open quotation mark is an odd count of quotation marks earlier in the line;
- a bracket depth that never goes below 0 is the running sum of opening (+1) and closing (-1)
  brackets less its lowest value so far, where that is below 0 (the walk reflected at 0);
- a line in capitals is one whose letters, counted by cumulative sums over the text, number more
  than three and are all upper case.

Lines and notes bound every state: each note's first token starts a line
(:func:`itdeid.text.structure.analyze`), and every line restarts the quotes and brackets. The columns
are the note-by-note functions' own, bit for bit (``tests/test_token_batch.py``), and are
remembered on the batch, which the members of an ensemble share.
"""
from __future__ import annotations

import numpy as np

from itdeid.featurize.casing import _SKIPPED, REACH, announcers
from itdeid.featurize.tokenized import token_offsets
from itdeid.text.structure import _code_points
from itdeid.featurize.token_batch import TokenBatch

#: Token texts the context group reads as an opening and a closing bracket (its test is
#: ``text in "([{"``, which also holds for a run of them).
_OPENING = frozenset({"(", "[", "{", "([", "[{", "([{"})
_CLOSING = frozenset({")", "]", "}", ")]", "]}", ")]}"})


def _joined(batch: TokenBatch, name: str) -> np.ndarray:
    """The notes' boolean ``structure.<name>`` arrays end to end (remembered on the batch)."""
    joined = batch.joined_once(("structure", name),
                               lambda td: np.asarray(getattr(td.structure, name), dtype=bool))
    return joined.astype(bool, copy=False)


def _segments(starts: np.ndarray) -> np.ndarray:
    """Per token, the index of the segment it is in, where ``starts`` marks each segment's first
    token (the first token always starts one)."""
    return np.cumsum(starts) - 1


def _segment_sums(values: np.ndarray, segment: np.ndarray, size: int) -> np.ndarray:
    """Per segment, the sum of ``values`` over its tokens."""
    return np.bincount(segment, weights=values, minlength=size)


def _per_text(batch: TokenBatch, test) -> np.ndarray:
    """``test(text)`` of each token's text as written, once per distinct text."""
    texts, ids = batch.texts()
    return np.fromiter((test(t) for t in texts), dtype=bool, count=len(texts))[ids]


def casing_batch(batch: TokenBatch) -> dict[str, np.ndarray]:
    """:func:`itdeid.featurize.casing.casing_columns` of every note of ``batch``, end to end."""
    key = ("layout", "casing")
    if key in batch.memo:
        return batch.memo[key]
    n = len(batch)
    alpha = _per_text(batch, lambda t: t[0].isalpha())
    cap = _per_text(batch, lambda t: t[0].isupper()) & alpha
    upper = _per_text(batch, lambda t: t.isupper() and len(t) > 1) & alpha
    note = np.repeat(np.arange(len(batch.docs)), batch.lengths)
    n_alpha = np.maximum(1, np.bincount(note, weights=alpha, minlength=len(batch.docs)))
    note_cap = (np.bincount(note, weights=cap, minlength=len(batch.docs)) / n_alpha)[note].astype(np.float32)
    note_upper = (np.bincount(note, weights=upper, minlength=len(batch.docs)) / n_alpha)[note].astype(np.float32)
    line = _segments(_joined(batch, "line_start"))
    lines = int(line[-1]) + 1 if n else 0
    letters = _segment_sums(alpha, line, lines)
    capitals = _segment_sums(cap, line, lines)
    share = np.divide(capitals, letters, out=np.zeros(lines), where=letters > 0)
    line_cap = share[line].astype(np.float32)
    kind, distance = _announced_batch(batch)
    out = {"announced_by": kind, "announced_distance": distance, "line_cap_share": line_cap,
           "note_cap_share": note_cap, "note_upper_share": note_upper,
           "cap_vs_line": np.where(alpha, cap.astype(np.float32) - line_cap, 0.0).astype(np.float32)}
    batch.memo[key] = out
    return out


def _announced_batch(batch: TokenBatch) -> tuple[np.ndarray, np.ndarray]:
    """:func:`itdeid.featurize.casing._announced` of every note: per word that is not skipped, the kind
    of the nearest announcing word among the :data:`REACH` words before it in its note, and
    how many words back."""
    table = announcers()
    code = np.array([table.get(w, 0) for w in batch.vocabulary], dtype=np.float32)[batch.ids]
    counted = np.array([w not in _SKIPPED for w in batch.vocabulary], dtype=bool)[batch.ids]
    kind = np.zeros(len(batch), dtype=np.float32)
    distance = np.zeros(len(batch), dtype=np.float32)
    words = np.flatnonzero(counted)
    found = np.zeros(len(words), dtype=bool)
    for back in range(1, REACH + 1):
        if len(words) <= back:
            break
        here, there = words[back:], words[:-back]
        hit = ~found[back:] & (code[there] > 0) & (batch.start[here] == batch.start[there])
        kind[here[hit]] = code[there[hit]]
        distance[here[hit]] = back
        found[back:] |= hit
    return kind, distance


def context_batch(batch: TokenBatch) -> dict[str, np.ndarray]:
    """:func:`~itdeid.featurize.note_columns._context_columns` of every note of ``batch``."""
    key = ("layout", "context")
    if key in batch.memo:
        return batch.memo[key]
    n = len(batch)
    texts, ids = batch.texts()
    quote = np.array([t == '"' for t in texts], dtype=bool)[ids]
    step = np.array([1 if t in _OPENING else -1 if t in _CLOSING else 0 for t in texts],
                    dtype=np.int64)[ids]
    step[quote] = 0
    plain = ~quote & (step == 0)
    line_start = _joined(batch, "line_start")
    line = _segments(line_start)
    first = np.flatnonzero(line_start)                 # each line's first token
    # quotation marks before a token in its line (the token itself is no mark where it counts)
    marks = np.cumsum(quote)
    quotes_before = marks - (marks - quote)[first][line]
    # the bracket walk from each line's start, and its lowest value so far within the line
    walk = np.cumsum(step)
    walk = walk - (walk - step)[first][line]
    spread = 2 * n + 1                                 # more than any walk can move
    lowest = np.minimum.accumulate(walk - line * spread) + line * spread
    depth = walk - np.minimum(lowest, 0)
    quotes = np.where(plain, quotes_before % 2, 0).astype(np.float32)
    brackets = np.where(plain, depth > 0, False).astype(np.float32)
    out = {"in_quotes": quotes, "in_brackets": brackets, "line_upper": _line_upper(batch, line, first)}
    batch.memo[key] = out
    return out


def _line_upper(batch: TokenBatch, line: np.ndarray, first: np.ndarray) -> np.ndarray:
    """Per token, 1 where its line's letters (from its first token's start to its last token's
    end) are more than three and all upper case."""
    if not len(batch):
        return np.zeros(0, dtype=np.float32)
    offset = np.repeat(np.cumsum([0] + [len(td.document.text) for td in batch.docs[:-1]]), batch.lengths)
    starts = offset + np.concatenate([token_offsets(td)[0] for td in batch.docs if len(td)])
    ends = offset + np.concatenate([token_offsets(td)[1] for td in batch.docs if len(td)])
    codes = _code_points("".join(td.document.text for td in batch.docs))
    letter = ((codes >= 65) & (codes <= 90)) | ((codes >= 97) & (codes <= 122))
    upper = (codes >= 65) & (codes <= 90)
    wide = np.flatnonzero(codes > 127)
    if len(wide):       # other than ASCII: as Python's str methods say, once a character
        chars, where = np.unique(codes[wide], return_inverse=True)
        letter[wide] = np.array([chr(c).isalpha() for c in chars.tolist()], dtype=bool)[where]
        upper[wide] = np.array([chr(c).isalpha() and chr(c).isupper() for c in chars.tolist()], dtype=bool)[where]
    letters = np.concatenate([[0], np.cumsum(letter)])
    uppers = np.concatenate([[0], np.cumsum(upper)])
    last = np.append(first[1:], len(batch)) - 1        # each line's last token
    count = letters[ends[last]] - letters[starts[first]]
    capitals = uppers[ends[last]] - uppers[starts[first]]
    return ((count > 3) & (capitals == count)).astype(np.float32)[line]


def heading_batch(batch: TokenBatch) -> dict[str, np.ndarray]:
    """:func:`~itdeid.featurize.note_columns._heading_columns` of every note of ``batch``:
    whether a token is in a heading, and how many tokens since the last one that is (its
    note's start counting as one before its first token), at most 50."""
    key = ("layout", "heading")
    if key in batch.memo:
        return batch.memo[key]
    inside = _joined(batch, "in_heading")
    index = np.arange(len(batch))
    last = np.maximum.accumulate(np.where(inside, index, batch.start - 1)) if len(batch) else index
    since = np.where(inside, 0, np.minimum(index - last, 50)).astype(np.float32)
    out = {"in_heading": inside.astype(np.float32), "since_heading": since}
    batch.memo[key] = out
    return out
