"""A single letter tagged with no other tag near it is no name: 'PTCA to L circ', 'C/O pain'.

Nursing notes abbreviate with single letters: a side ('L circ', 'placed in L basilic'), a
rhythm's first letter ('a run of V-Tach'), a lead ('III, F, V2-6'), the C of 'C/O' and the B of
'B.M.'. At a high-recall operating point the trees tag some of them as names or places. A letter
is PHI as a person's initial, and an initial stands next to the rest of the name: in the
PhysioNet gold every single-letter PHI token has another PHI token within two tokens ('T.
BRAMBLE RRT', 'BRAMBLE, T'), and so has every synthetic record. So after
the decisions a tagged single letter with no other tagged token within :data:`REACH` tokens
either side, and no title before it ('Dr. K' is left to the model), loses its tag: in cross-validation
this takes back false alarms and no gold PHI.
"""
from __future__ import annotations

import numpy as np

from itdeid.passes.eponyms import after_title

#: Tokens each side that must be untagged for a tagged letter to be cleared.
REACH = 2


def lone_letter_tokens(text: str, starts: np.ndarray, ends: np.ndarray, codes: np.ndarray) -> list[int]:
    """Indices of the tagged single letters (``codes`` non-zero) with no tagged token within
    :data:`REACH` tokens either side and no title before them."""
    codes = np.asarray(codes)
    found = []
    for k in np.flatnonzero(codes != 0).tolist():
        a, b = int(starts[k]), int(ends[k])
        if b - a != 1 or not text[a].isalpha() or _glued(text, a, b):
            continue
        near = codes[max(0, k - REACH):k + REACH + 1]
        if np.count_nonzero(near) == 1 and not after_title(text, a):
            found.append(k)
    return found


def _glued(text: str, start: int, end: int) -> bool:
    """Whether the letter at ``start`` is part of a longer word or number ('70yoM': the sex
    letter; a piece of a word split at a span's edge)."""
    return (start > 0 and text[start - 1].isalnum()) or (end < len(text) and text[end].isalnum())
