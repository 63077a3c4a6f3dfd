"""What a place's name takes after it ('Calvert Hospital', 'Quartermain 3'), learned from the gold.

The i2b2 2006 gold, and the synthetic records of :mod:`itdeid.synth`, mark 'Calvert Hospital' and
'Harbor Medical Center' whole. The PhysioNet gold marks 'Calvert' and 'Harbor' and leaves the
word that names the kind of institution out: of the 50 words of ``features/facility_words.json``
that follow a gold place token in the split ('Hospital', 'Hosp', 'Rehab', 'campus', 'ER', 'EW',
...), it leaves 49 out. It leaves out the number of a ward or a floor after a building's name as
well ('transfer to Quartermain 3', 'Ward 3'): 39 of 40 numbers of one to three digits right after
a gold place token (session 34). The trees, trained on both conventions, tag those words with the
name, and on the split the recipe's out-of-fold tags held some twenty facility words and half a
dozen ward numbers the gold leaves out. Neither way leaks anything: a cut facility word says
which kind of place the redacted name was ('[**LOCATION**] Hospital'), not which one, and a ward
number without its building names no place. It is a convention, and a team that trains on its
own notes expects its spans to follow its own gold.

So training counts, over the corpus's own notes (not the synthetic records added to them), each
kind of :data:`ENDINGS` right after a gold LOCATION or HOSPITAL token on one line: how often the
gold leaves it out and how often it takes it in. A kind the gold leaves out at least
:data:`MIN_LEFT_OUT` times and more often than not is kept in the model (its name: no word of a
note), and after the decisions a tagged run of such endings right after a tagged place loses its
tags ('Calvert Hospital ER' keeps 'Calvert'). An ending that begins a tagged phrase ('Hospital of
Saint Raphael') is left as the model decided.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, Callable, Sequence

import numpy as np

from itdeid.document import LABELS
from itdeid.resources import load_json

if TYPE_CHECKING:
    from itdeid.featurize import TokenizedDocument

#: Fewest endings of a kind the gold must leave out after a place for the model to leave them out.
MIN_LEFT_OUT = 3
PLACES = frozenset({LABELS.index("LOCATION"), LABELS.index("HOSPITAL")})
#: A ward's, floor's or room's number: one to three digits (a ZIP code has five).
_WARD_NUMBER = re.compile(r"\d{1,3}")


@lru_cache(maxsize=1)
def facility_words() -> frozenset[str]:
    """The lower-case words of ``features/facility_words.json``."""
    return frozenset(load_json("features", "facility_words.json")["words"])


#: Kind of ending -> whether token ``i`` of a note is one. A ward's number is no number that
#: goes on in the next token ('CELLULAR- 410 202-6694': an area code).
ENDINGS: dict[str, Callable[["TokenizedDocument", int], bool]] = {
    "facility word": lambda td, i: td.tokens[i].text.lower() in facility_words(),
    "ward number": lambda td, i: (_WARD_NUMBER.fullmatch(td.tokens[i].text) is not None
                                  and not (i + 1 < len(td.tokens) and td.tokens[i + 1].text[:1].isdigit())),
}


def _kind(td: TokenizedDocument, i: int) -> str | None:
    return next((kind for kind, test in ENDINGS.items() if test(td, i)), None)


def _after_name(td: TokenizedDocument, i: int) -> bool:
    """Whether token ``i - 1`` is a word of a place's name: it holds a letter and is no ending,
    and token ``i`` follows it on the same line."""
    before = td.tokens[i - 1].text
    return any(c.isalpha() for c in before) and not _kind(td, i - 1) and _same_line(td, i)


def _same_line(td: TokenizedDocument, i: int) -> bool:
    """Whether token ``i`` follows token ``i - 1`` on the same line."""
    return "\n" not in td.document.text[td.tokens[i - 1].end:td.tokens[i].start]


def left_out(docs: Sequence[TokenizedDocument]) -> list[str]:
    """The kinds of ending the gold of ``docs`` leaves out after a place at least
    :data:`MIN_LEFT_OUT` times and more often than it takes them in, in :data:`ENDINGS`' order."""
    out = dict.fromkeys(ENDINGS, 0)
    taken = dict.fromkeys(ENDINGS, 0)
    for td in docs:
        labels = td.labels
        for i in range(1, len(td.tokens)):
            if labels[i - 1] not in PLACES or not _after_name(td, i):
                continue
            kind = _kind(td, i)
            if kind is not None:
                taken[kind] += int(labels[i] == labels[i - 1])
                out[kind] += int(labels[i] == 0)
    return [kind for kind in ENDINGS if out[kind] >= MIN_LEFT_OUT and out[kind] > taken[kind]]


def check_kinds(kinds) -> list[str]:
    """``kinds`` read from a model file, checked: a list of names of :data:`ENDINGS` (ValueError)."""
    if not isinstance(kinds, list) or not all(isinstance(k, str) and k in ENDINGS for k in kinds):
        raise ValueError(f"place_endings_left_out must be a list of {', '.join(map(repr, ENDINGS))}")
    return list(kinds)


def untag_endings(td: TokenizedDocument, codes: np.ndarray, kinds: Sequence[str]) -> np.ndarray:
    """``codes`` with every tagged run of endings of ``kinds`` right after a tagged place token
    (not itself an ending) untagged: a copy, or ``codes`` itself when nothing changes."""
    if not kinds or not np.any(codes):
        return codes
    tests = [ENDINGS[kind] for kind in kinds]
    drop: list[int] = []
    for i in range(1, len(td.tokens)):
        if not codes[i] or not any(test(td, i) for test in tests) or not _same_line(td, i):
            continue
        if (codes[i - 1] in PLACES and _after_name(td, i)) or (drop and drop[-1] == i - 1):
            drop.append(i)
    if not drop:
        return codes
    codes = codes.copy()
    codes[drop] = 0
    return codes
