"""Words of intensive and hospital care, never PHI: 'PERMACATH', 'VF', 'PMV', 'CVVHF', 'MICU'.

Nursing notes are full of devices, rhythms, blood gases, units and order abbreviations. Written
in capitals or alone, rare in English and often after words that announce a name or a place
('placed on PMV', 'found in VF', 'transferred from MICU'), some of them look to the trees like a
name or a place, and at a high-recall operating point the model tags them: the note loses a
clinical fact, and the surrogates write a stranger's name into it. The knowledge is a
hand-written list, ``features/clinical_terms.json``, applied as the drug names are
(:mod:`itdeid.passes.drug_names`): a tagged token that is a listed term loses its tag when it stands
alone, its neighbours untagged, and no title comes before it. The list holds no word of the name
and place lists ('Peg', 'Art' and 'Ed' are names, 'VT' is Vermont), which
``tests/test_clinical_terms.py`` checks.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from itdeid.passes.drug_names import drug_names, lone_listed_tokens, spaced_runs
from itdeid.passes.eponyms import after_title
from itdeid.resources import load_json


@lru_cache(maxsize=1)
def clinical_terms() -> frozenset[str]:
    """The lower-case terms of features/clinical_terms.json."""
    return frozenset(t.lower() for t in load_json("features", "clinical_terms.json")["terms"])


def clinical_term_tokens(text: str, starts: np.ndarray, ends: np.ndarray, codes: np.ndarray) -> list[int]:
    """Indices of the tagged tokens (``codes`` non-zero) to clear: listed terms standing alone
    (the tokens either side untagged), after no title."""
    return lone_listed_tokens(text, starts, ends, codes, clinical_terms())


#: Longest run of tagged drug names and care terms cleared whole ('Trazodone HCL').
MAX_RUN = 3


@lru_cache(maxsize=1)
def medicine_words() -> frozenset[str]:
    """The drug names and the care terms in one set, built once: a union of the 26,000 names
    made for every note took a tenth of the tagging time."""
    return drug_names() | clinical_terms()


def medicine_run_tokens(text: str, starts: np.ndarray, ends: np.ndarray, codes: np.ndarray) -> list[int]:
    """Indices of the tokens of each tagged run of two to :data:`MAX_RUN` words, apart by spaces
    alone, every one a listed drug name or care term ('Trazodone HCL', 'VAP PNA'), with no title
    before it. Neither list holds a name or a place, so such a run names no one; a drug name
    beside a name ('Ondansetron Rivera') or after a title ('Dr. Lasix') keeps its tag."""
    words = medicine_words()
    found = []
    for lo, hi in spaced_runs(text, starts, ends, codes, MAX_RUN):
        if not after_title(text, int(starts[lo])) and all(
                text[int(starts[k]):int(ends[k])].lower() in words for k in range(lo, hi)):
            found += range(lo, hi)
    return found
