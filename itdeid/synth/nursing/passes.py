"""The two passes that finish a nursing note: misspellings, then casing.

Real nursing notes are typed fast, often in one case (:data:`CASING`), with misspelled ordinary
words; a model that learned capitals or spelling as a sign of a name would be lost on them. Both passes run over the finished pieces, so every span stays exact: a
misspelling never touches a PHI piece, and casing changes no length.
"""
from __future__ import annotations

import random
import re

from itdeid.synth.render import Piece

#: How a note is cased, by weight: all capitals, all lower case, or as its phrases are written
#: (lower case with capital headings and abbreviations). On the PhysioNet developer split about 3
#: notes in 10 are all capitals, 2 all lower case and 5 lower case with a few capitals; these
#: weights lean to capitals, the harder case for a model trained on discharge summaries.
CASING = {"upper": 0.5, "lower": 0.25, "mixed": 0.25}
#: Share of notes with misspelled words (one to three each).
MISSPELLED = 0.6

#: A word a misspelling may touch: five or more lower-case letters, not inside a number shape.
_WORD = re.compile(r"(?<![\w/'.-])[a-z]{5,}(?![\w/'-])")


def misspell(pieces: list[Piece], rng: random.Random,
             count: int) -> tuple[list[Piece], list[tuple[str, str]]]:
    """``pieces`` with ``count`` ordinary words (five or more lower-case letters) of non-PHI
    pieces misspelled: a letter after the first dropped, two swapped or one doubled. PHI pieces
    are never touched. Also returns the ``(word, misspelling)`` pairs."""
    spots = [(i, m.start(), m.group()) for i, (text, cls) in enumerate(pieces) if cls is None
             for m in _WORD.finditer(text)]
    out, changed = list(pieces), []
    for i, start, word in sorted(rng.sample(spots, min(count, len(spots))), reverse=True):
        k, kind = rng.randint(1, len(word) - 2), rng.random()
        if kind < 0.45:
            wrong = word[:k] + word[k + 1:]
        elif kind < 0.8 and word[k] != word[k + 1]:
            wrong = word[:k] + word[k + 1] + word[k] + word[k + 2:]
        else:
            wrong = word[:k] + word[k] + word[k:]
        text = out[i][0]
        out[i] = (text[:start] + wrong + text[start + len(word):], None)
        changed.append((word, wrong))
    return out, changed


def cased(pieces: list[Piece], casing: str) -> list[Piece]:
    """``pieces``, PHI included, in capitals (``upper``), lower case (``lower``) or as written."""
    if casing == "upper":
        return [(text.upper(), cls) for text, cls in pieces]
    if casing == "lower":
        return [(text.lower(), cls) for text, cls in pieces]
    return list(pieces)
