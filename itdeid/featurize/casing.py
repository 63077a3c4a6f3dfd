"""Name evidence that survives any casing: announcing words and case relative to the note.

The paper's features read capitalization as if every note were written in sentence case: a
capitalized word in mid-sentence is a name candidate, and the learned trigger lists know the
spellings their training notes used ('Dr.', 'Mr.'). Real notes break both. Nursing notes come in
all capitals ('PT SEEN BY DR SMITH') or all lower case ('wife mary in to visit'), and in such a
note capitalization says nothing about a word. What still says something:

- a word that announces a name, in whatever case it is written (features/context_words.json:
  titles, relation words, care roles, verbs of contact), and how far back it is;
- a word's case *relative to its line and note*: a capitalized word in a line where one word in
  ten is capitalized is a stronger name candidate than in a line where every word is.

These columns depend on the document alone (computed once a note and shared by every model).
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from itdeid.resources import load_json

#: Kinds of announcing words, in the order of their codes (0: none).
ANNOUNCER_KINDS: tuple[str, ...] = ("title", "relation", "role", "verb")
#: How many words after an announcing word are marked (a title, a first and a last name).
REACH = 3
#: Tokens skipped when counting words after an announcer ('Dr. Smith', 'wife: Mary').
_SKIPPED = frozenset({".", ":", ",", "-"})

CASING_COLUMNS = ("announced_by", "announced_distance", "line_cap_share", "note_cap_share",
                  "note_upper_share", "cap_vs_line")


@lru_cache(maxsize=1)
def announcers() -> dict[str, int]:
    """Lower-case announcing word -> kind code (1-based index into :data:`ANNOUNCER_KINDS`)."""
    data = load_json("features", "context_words.json")
    return {w: k for k, kind in enumerate(ANNOUNCER_KINDS, start=1) for w in data[kind]}


def _announced(words: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Per token, the kind of the nearest announcing word among the :data:`REACH` words before
    it (punctuation of :data:`_SKIPPED` not counted), and how many words back it is."""
    table = announcers()
    n = len(words)
    kind = np.zeros(n, dtype=np.float32)
    distance = np.zeros(n, dtype=np.float32)
    last_kind, words_since = 0, REACH + 1
    for i, w in enumerate(words):
        if w in _SKIPPED:
            continue
        if last_kind and words_since < REACH:
            words_since += 1
            kind[i], distance[i] = last_kind, words_since
        code = table.get(w, 0)
        if code:
            last_kind, words_since = code, 0
        elif words_since >= REACH:
            last_kind = 0
    return kind, distance


def casing_columns(td) -> dict[str, np.ndarray]:
    """The columns of the ``casing`` feature group for one tokenized document."""
    n = len(td.tokens)
    kind, distance = _announced(td.words)
    alpha = np.array([t.text[0].isalpha() for t in td.tokens], dtype=bool)
    cap = np.array([t.text[0].isupper() for t in td.tokens], dtype=bool) & alpha
    upper = np.array([t.text.isupper() and len(t.text) > 1 for t in td.tokens], dtype=bool) & alpha
    n_alpha = max(1, int(alpha.sum()))
    note_cap = np.full(n, cap.sum() / n_alpha, dtype=np.float32)
    note_upper = np.full(n, upper.sum() / n_alpha, dtype=np.float32)
    line_cap = np.zeros(n, dtype=np.float32)
    starts = list(np.flatnonzero(np.asarray(td.structure.line_start))) or [0]
    if starts[0] != 0:
        starts = [0] + starts
    for a, b in zip(starts, starts[1:] + [n]):
        k = int(alpha[a:b].sum())
        line_cap[a:b] = cap[a:b].sum() / k if k else 0.0
    return {"announced_by": kind, "announced_distance": distance, "line_cap_share": line_cap,
            "note_cap_share": note_cap, "note_upper_share": note_upper,
            "cap_vs_line": np.where(alpha, cap.astype(np.float32) - line_cap, 0.0).astype(np.float32)}
