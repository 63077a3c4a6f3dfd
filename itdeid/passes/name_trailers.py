"""Ordinary words the trees tagged at a person's name's end: 'SON GERALD CALLS', 'DR FENNIMORE TO'.

The context stage reads the tokens around a name, and at a high-recall operating point it lifts
the word after a name over the threshold with it: 'UNTIL SON GERALD CALLS BACK', 'dr. kaplan to
bedside', 'SONS SOCCER MATCH'. The name is PHI; the word after it is a clinical or everyday fact,
and the surrogates, given the two as one name, write 'Mark Brown' for 'GERALD CALLS'. :func:`name_trailer_tokens` clears the last token of a tagged run when the
token before it is a word of a PATIENT or DOCTOR name, spaces alone between (not the full stop
of an initial: in 'T. BRAMBLE RRT' the surname is an everyday word), and the last token is

- a word of :data:`FUNCTION_WORDS` ('to', 'at', 'with') where its case says nothing (lower
  case, or capitals on a line of capitals: a 'To' in mixed text may be a surname);
- an everyday word of four letters or more whose case says nothing: common in English
  (wordfreq Zipf 3 or more) or an inflection of a common word (:mod:`itdeid.passes.everyday_words`),
  but no misspelling ('susana avril': a name one edit from 'april' and 'avail').

A word that is a listed name or place, a word of a hospital's name or a census name of any
frequency stays ('Pat Good', 'WALKER', 'CARLOS MENDES': 'mend' + 'es', a surname the held-out
letters sign with, which the first version cleared), and so does a drug name or care term:
after a title the phrase is a person's ('Dr. Lasix HCL', as :mod:`itdeid.passes.drug_names` keeps it). On the PhysioNet gold, read
as the model's decisions, the rule clears nothing; in cross-validation it cleared a few
false-alarm tokens and no gold (experiments/NOTEBOOK.md; written after reading those
false alarms, so the gain measured there flatters it).
"""
from __future__ import annotations

import numpy as np

from itdeid.document import LABELS
from itdeid.passes.everyday_words import MIN_LETTERS, MIN_ZIPF, _caseless, _inflection, any_name_words
from itdeid.featurize.zipf import zipf

#: Words that end no name, only where the case says nothing ('TO' of 'DR FENNIMORE TO BEDSIDE').
FUNCTION_WORDS = frozenset("to at in on is was has had will with for the by from per re".split())
#: The classes whose runs the rule trims.
NAMES = frozenset((LABELS.index("PATIENT"), LABELS.index("DOCTOR")))


def name_trailer_tokens(text: str, starts: np.ndarray, ends: np.ndarray, codes: np.ndarray) -> list[int]:
    """Indices of the tagged tokens (``codes`` non-zero) to clear: the last token of a tagged
    run that follows a PATIENT or DOCTOR token on its line and is a function word or an
    everyday word (see the module docstring)."""
    codes = np.asarray(codes)
    n = len(codes)
    found = []
    for k in np.flatnonzero(codes[1:] != 0).tolist():
        k += 1                          # the token after another: k - 1 may be a name's
        if codes[k - 1] not in NAMES or (k + 1 < n and codes[k + 1]):
            continue
        a, b = int(starts[k]), int(ends[k])
        before = text[int(starts[k - 1]):int(ends[k - 1])]
        if text[int(ends[k - 1]):a].strip(" \t") or len(before) < 2 or not before.isalpha():
            continue    # a name's word, then spaces: not 'T. BRAMBLE' (an initial's surname)
        word = text[a:b]
        if not word.isascii() or not word.isalpha():
            continue
        lower = word.lower()
        if lower in FUNCTION_WORDS:     # 'To' is a census surname too: in mixed text it stays
            if _caseless(text, a, b):
                found.append(k)
        elif lower in any_name_words():
            continue    # a surname however rare: 'CARLOS MENDES', 'JOHN PEACE'
        elif (len(word) >= MIN_LETTERS and _caseless(text, a, b)
              and (zipf(lower) >= MIN_ZIPF or _inflection(lower))):
            found.append(k)
    return found
