"""What a place's name takes after it ('Brackenridge 3'), learned from the gold; what it always keeps.

The PhysioNet gold marks the name of a building and leaves out the number of a ward or a floor
after it ('transfer to Brackenridge 3', 'back to Ward 3'): nearly every number of one to three
digits right after a gold place token. The trees tag the number with the name. A
ward's number without its building names no place, so which way a gold goes is a convention, and
a team that trains on its own notes expects its spans to follow its own gold. So training counts,
over the corpus's own notes (not the synthetic records added to them), each kind of
:data:`ENDINGS` right after a gold LOCATION or HOSPITAL token on one line: how often the gold
leaves it out and how often it takes it in. A kind the gold leaves out at least
:data:`MIN_LEFT_OUT` times and more often than not is kept in the model (its name: no word of a
note), and after the decisions a tagged ending right after a tagged place loses its tag. A number
after a word of a street address ('Suite 400', 'Apt 5') is part of the address, never a ward's.

Measured and left out: the word that names an institution's kind ('Fenwick Hospital', 'Ashgrove
Hosp', 'Fenwick Rehab'), which the PhysioNet gold nearly always leaves out and the i2b2 gold,
the project's held-out letters and the sample notes' gold take in. Learned from PhysioNet it took
back false alarms, but it left 'Medical Center' of 'Pine Coast Medical
Center' in the shipped model's demo output, and the kind narrows which institution it was
('Mercy Medical Center' against 'Mercy Hospital'): a name is redacted whole.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Callable, Sequence

import numpy as np

from itdeid.document import LABELS

if TYPE_CHECKING:
    from itdeid.featurize import TokenizedDocument

#: Fewest endings of a kind the gold must leave out after a place for the model to leave them out.
MIN_LEFT_OUT = 3
PLACES = frozenset({LABELS.index("LOCATION"), LABELS.index("HOSPITAL")})
#: A ward's, floor's or room's number: one to three digits (a ZIP code has five).
_WARD_NUMBER = re.compile(r"\d{1,3}")


#: Words of a street address after which a number is the address's ('Suite 400', 'Apt 5').
ADDRESS_WORDS = frozenset({"suite", "ste", "apt", "apartment", "unit", "room", "rm", "box", "floor",
                           "fl", "building", "bldg", "lot", "space", "no", "number", "#"})


def _ward_number(td: TokenizedDocument, i: int) -> bool:
    """A number of one to three digits that does not go on in the next token ('CELLULAR- 410
    202-6694': an area code) and follows no word of a street address."""
    return (_WARD_NUMBER.fullmatch(td.tokens[i].text) is not None
            and not (i + 1 < len(td.tokens) and td.tokens[i + 1].text[:1].isdigit())
            and not (i > 0 and td.tokens[i - 1].text.lower() in ADDRESS_WORDS))


#: Kind of ending -> whether token ``i`` of a note is one.
ENDINGS: dict[str, Callable[["TokenizedDocument", int], bool]] = {"ward number": _ward_number}


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
