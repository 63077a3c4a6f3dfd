"""Whether a place's name takes the word of its kind ('Calvert Hospital'), learned from the gold.

The i2b2 2006 gold, and the synthetic records of :mod:`itdeid.synth`, mark 'Calvert Hospital' and
'Harbor Medical Center' whole. The PhysioNet gold marks 'Calvert' and 'Harbor' and leaves the
word that names the kind of institution out: of the 50 words of ``features/facility_words.json``
that follow a gold place token in the split ('Hospital', 'Hosp', 'Rehab', 'campus', 'ER', 'EW',
...), it leaves 49 out (session 34). The trees, trained on both conventions, tag the word with
the name, and on the split the recipe's out-of-fold tags held some twenty such words the gold
leaves out. Neither way leaks anything: a cut facility word says which kind of place the
redacted name was ('[**LOCATION**] Hospital'), not which one. It is a convention, and a team that
trains on its own notes expects its spans to follow its own gold.

So training counts, over the corpus's own notes (not the synthetic records added to them), the
listed words right after a gold LOCATION or HOSPITAL token on one line: how often the gold
leaves the word out and how often it takes it in. Where it leaves them out at least
:data:`MIN_LEFT_OUT` times and more often than not, the model keeps that (one flag: no word of a
note), and after the decisions a tagged run of listed words right after a tagged place loses its
tags ('Calvert Hospital ER' keeps 'Calvert'). A word of the list that begins a tagged phrase
('Hospital of Saint Raphael') is left as the model decided.
"""
from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Sequence

import numpy as np

from itdeid.document import LABELS
from itdeid.resources import load_json

if TYPE_CHECKING:
    from itdeid.featurize import TokenizedDocument

#: Fewest facility words the gold must leave out after a place for the model to leave them out.
MIN_LEFT_OUT = 3
PLACES = frozenset({LABELS.index("LOCATION"), LABELS.index("HOSPITAL")})


@lru_cache(maxsize=1)
def facility_words() -> frozenset[str]:
    """The lower-case words of ``features/facility_words.json``."""
    return frozenset(load_json("features", "facility_words.json")["words"])


def _after_place(td: TokenizedDocument, i: int) -> bool:
    """Whether token ``i`` follows token ``i - 1`` on the same line."""
    return "\n" not in td.document.text[td.tokens[i - 1].end:td.tokens[i].start]


def left_out(docs: Sequence[TokenizedDocument]) -> bool:
    """Whether the gold of ``docs`` leaves the listed words after a place out, at least
    :data:`MIN_LEFT_OUT` times and more often than it takes them in."""
    words = facility_words()
    out = taken = 0
    for td in docs:
        labels = td.labels
        for i in range(1, len(td.tokens)):
            if (labels[i - 1] in PLACES and td.tokens[i].text.lower() in words
                    and td.tokens[i - 1].text.lower() not in words and _after_place(td, i)):
                taken += labels[i] == labels[i - 1]
                out += labels[i] == 0
    return bool(out >= MIN_LEFT_OUT and out > taken)


def untag_endings(td: TokenizedDocument, codes: np.ndarray) -> np.ndarray:
    """``codes`` with every tagged run of listed words right after a tagged place token (not
    itself a listed word) untagged: a copy, or ``codes`` itself when nothing changes."""
    words = facility_words()
    drop = []
    for i in range(1, len(td.tokens)):
        if not codes[i] or td.tokens[i].text.lower() not in words or not _after_place(td, i):
            continue
        before = td.tokens[i - 1].text.lower()
        if (codes[i - 1] in PLACES and before not in words) or (drop and drop[-1] == i - 1):
            drop.append(i)
    if not drop:
        return codes
    codes = codes.copy()
    codes[drop] = 0
    return codes
