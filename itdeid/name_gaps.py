"""A capitalized word standing between two PHI tokens on one line belongs to the same name.

The trees decide token by token. In "Harborview Cardiology Associates" or "Pinewood Family
Practice" the middle word is an ordinary English word, and it can fall below the threshold while
the words on both sides pass it: the released note then keeps a piece of the name
("[**HOSPITAL**] Cardiology [**HOSPITAL**]"), and the sample notes of issue J showed exactly
that. So after the decisions :func:`join_name_gaps` gives such a word the class of the PHI token
after it (the last word of an institution's name, 'Associates', 'Practice', names its kind).

The same holds for a place and its state: after 'Portland, ME' the trees tagged the town and left
the state, which with the town narrows the place to one ('ME' is also a pronoun, 'MD' a degree).
So :func:`join_state_after_place` gives a US state's abbreviation or name right after a place
the model tagged LOCATION and a comma, on the same line, the class LOCATION (the sample letter
of issue J showed it).

The first rule is narrow on purpose: one word of a capital and lower-case letters only, with nothing
but spaces or tabs between it and PHI tokens on both sides. A comma, a line break, a number or a
lower-case word ('Smith and Jones') ends a name. On the PhysioNet split's out-of-fold decisions
of the recipe it changed one token over 1,422 notes (a false alarm, "Harbor Hosp", where the gold
marks the first word alone: a local count, session 17); it matters where names of institutions
are written in full, as in discharge letters.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np

from itdeid.document import LABELS
from itdeid.word_lists import gazetteer_sets

if TYPE_CHECKING:
    from itdeid.featurize import TokenizedDocument

#: The word a gap may hold.
CAPITALIZED = re.compile(r"[A-Z][a-z]+")
#: What may separate it from its neighbours.
SPACES = re.compile(r"[ \t]+")
LOCATION = LABELS.index("LOCATION")


def _is_state(word: str) -> bool:
    """A US state's two-capital abbreviation or one-word name ('ME', 'Maine'), from the
    ``location`` group's lists (``gazetteers/us_states.tsv``)."""
    gazetteers = gazetteer_sets()
    return word in gazetteers["state_abbr"] or (word.istitle() and (word.lower(),) in gazetteers["states"])


def join_name_gaps(td: TokenizedDocument, codes: np.ndarray) -> np.ndarray:
    """``codes`` (label codes of ``td``'s tokens, 0 for non-PHI) with every capitalized word that
    stands alone between two PHI tokens on one line given the class of the token after it."""
    codes = np.asarray(codes)
    phi = codes != 0
    if len(codes) < 3:
        return codes
    gaps = np.flatnonzero(~phi[1:-1] & phi[:-2] & phi[2:]) + 1
    if not len(gaps):
        return codes
    text, tokens = td.document.text, td.tokens
    out = codes.copy()
    for i in gaps.tolist():
        before, word, after = tokens[i - 1], tokens[i], tokens[i + 1]
        if (CAPITALIZED.fullmatch(word.text) and SPACES.fullmatch(text[before.end:word.start])
                and SPACES.fullmatch(text[word.end:after.start])):
            out[i] = codes[i + 1]
    return out


def join_state_after_place(td: TokenizedDocument, codes: np.ndarray) -> np.ndarray:
    """``codes`` with a US state ('ME', 'Maine') standing right after a LOCATION token and a
    comma, on the same line ('Portland, ME'), made LOCATION."""
    codes = np.asarray(codes)
    text, tokens = td.document.text, td.tokens
    out = None
    for i in np.flatnonzero(codes[:-2] == LOCATION).tolist():
        comma, state = tokens[i + 1], tokens[i + 2]
        if (codes[i + 2] == 0 and comma.text == "," and _is_state(state.text)
                and comma.start == tokens[i].end and SPACES.fullmatch(text[comma.end:state.start])):
            out = codes.copy() if out is None else out
            out[i + 2] = LOCATION     # the comma stays outside, as the gold has it
    return codes if out is None else out


def join_gaps(td: TokenizedDocument, codes: np.ndarray) -> np.ndarray:
    """Both rules of this module, as the recipe applies them (``join_gaps``)."""
    return join_state_after_place(td, join_name_gaps(td, codes))
