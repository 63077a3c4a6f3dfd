"""A state or a country standing alone is no identifier: 'lives in California', 'from the Bahamas'.

HIPAA's Safe Harbor removes the geographic subdivisions *smaller* than a state: a street, a town,
a county, a ZIP code. A state or a country alone narrows a patient to millions of people, and a
note that says 'moved from Florida' or 'cardiac cath in the Bahamas' keeps a fact a study may
need. The PhysioNet gold never marks one standing alone, nor do the hand-written held-out letters,
which mark a state only after its town ('Chicopee, MA'). The trees, trained also on synthetic
records that tag a lone country (as the i2b2 2014 gold does), tag them ('California',
'Florida', 'Illinois', the 'Bahamas': experiments/NOTEBOOK.md).

So after the decisions a LOCATION run that is exactly a US state's name or two-letter
abbreviation (not the District of Columbia's, a city), or a country's name
(``gazetteers/us_states.tsv``, ``countries.txt``), loses its tag when it stands alone: its
neighbours untagged, no title before it, and not after a tagged place and a comma ('Portland,
ME' keeps its state, which with the town narrows the place to one:
:func:`itdeid.passes.name_gaps.join_state_after_place`), and not inside an institution's name ('U
Maryland ER', 'MD Hospital': the PhysioNet gold marks the state there, and without this
condition the rule would clear such gold tokens). A
state that is also a common first name or surname ('Virginia', 'Georgia', 'Washington') is left
to the model, as the everyday words are (:func:`itdeid.passes.everyday_words.common_names`).
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from itdeid.document import LABELS
from itdeid.passes.eponyms import after_title
from itdeid.passes.everyday_words import common_names, hospital_words
from itdeid.featurize.word_lists import gazetteer_sets

LOCATION = LABELS.index("LOCATION")
#: Longest region name, in tokens ('Bosnia and Herzegovina', 'Dominican Republic').
MAX_TOKENS = 3


#: Words before a state that make it part of an institution's name ('U Maryland', 'University
#: of Maryland').
INSTITUTION_BEFORE = frozenset({"u", "uof", "univ", "university", "of"})


@lru_cache(maxsize=1)
def institution_words() -> frozenset[str]:
    """Lower-case words after a state that make it part of an institution's name ('MD
    Hospital', 'Maryland General', 'U Maryland ER'): the words of hospitals' names and their
    abbreviations."""
    return hospital_words() | {"hosp", "er", "ed", "ew", "med", "ctr", "univ", "va", "vamc", "rehab"}


#: The District of Columbia is a city ('lives in DC' is a town in the PhysioNet gold).
CITY_STATES = frozenset({("dc",), ("district", "of", "columbia")})


def _is_region(words: tuple[str, ...], texts: list[str]) -> bool:
    lists = gazetteer_sets()
    if words in CITY_STATES:
        return False
    if len(texts) == 1 and texts[0] in lists["state_abbr"]:
        return True
    if len(words) == 1 and words[0] in common_names():
        return False
    return words in lists["states"] or words in lists["countries"]


def lone_region_tokens(text: str, starts: np.ndarray, ends: np.ndarray, codes: np.ndarray) -> list[int]:
    """Indices of the LOCATION tokens to clear: runs that are a state or a country standing
    alone (see the module docstring)."""
    codes = np.asarray(codes)
    n, found = len(codes), []
    located = np.flatnonzero(codes == LOCATION)
    i = 0
    while i < len(located):
        k = int(located[i])
        j = k
        while j + 1 < n and codes[j + 1] == LOCATION:
            j += 1
        i = int(np.searchsorted(located, j + 1))
        if j - k + 1 > MAX_TOKENS or (k > 0 and codes[k - 1]) or (j + 1 < n and codes[j + 1]):
            continue
        texts = [text[int(starts[t]):int(ends[t])] for t in range(k, j + 1)]
        if not _is_region(tuple(t.lower() for t in texts), texts):
            continue
        if after_title(text, int(starts[k])):
            continue
        if k >= 2 and text[int(starts[k - 1]):int(ends[k - 1])] == "," and codes[k - 2]:
            continue          # 'Portland, ME': the town's state
        before = text[int(starts[k - 1]):int(ends[k - 1])].lower() if k else ""
        after = text[int(starts[j + 1]):int(ends[j + 1])].lower() if j + 1 < n else ""
        if before in INSTITUTION_BEFORE or after in institution_words():
            continue          # 'U Maryland ER', 'MD Hospital': an institution's name
        found.extend(range(k, j + 1))
    return found
