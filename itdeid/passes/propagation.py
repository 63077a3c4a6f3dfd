"""A rare word tagged once in a note is tagged wherever the note writes it.

The trees decide each occurrence of a word from its own neighbours, so a name the note writes
twice can pass the threshold in one place and not in the other ('updated
nell from Pine Hollow' after 'Nell in to visit'; 'BRACKENRIDGE' after 'S-ICU/' where the
same note's 'Brackenridge' was tagged): the released note then names the person or the place the
redaction hid a line before. Yang and Garibaldi (2015) propagate a note's PHI to its other
occurrences for this reason.

:func:`propagate_in_note` gives every untagged occurrence (the whole word, any case) of a tagged
word its first tagged occurrence's class, for words of three letters or more that English uses
rarely (wordfreq's Zipf below :data:`MAX_ZIPF`): an everyday word tagged once ('hospital',
'good') is as often the model's slip as a name, and spreading it would spread the slip (with
every word, spreading gave many more false alarms than PHI; with rare words alone, a little PHI
and no false alarm: experiments/NOTEBOOK.md).
Nor does a short acronym in capitals on a line of mixed case spread ('GBS', 'DLBCL': on the
project's held-out discharge letters spreading such acronyms gave false alarms and no PHI).
It runs before the rules that clear a tagged drug name, care term or everyday word standing
alone (:mod:`itdeid.passes.identifiers`), so an occurrence it tags is judged by them as the model's own
tags are. Propagating a word's *probability* instead, to the patient's other notes or across a
batch, was measured and lost precision: what crosses notes is the model's slips.
"""
from __future__ import annotations

import numpy as np

from itdeid.featurize.zipf import zipf

#: Zipf frequency below which a tagged word spreads (that of the everyday words' rule).
MAX_ZIPF = 3.0
#: Shortest word that spreads: shorter ones are initials and abbreviations.
MIN_LETTERS = 3
#: Longest word in capitals that is read as an acronym on a line with lower-case letters.
MAX_ACRONYM = 5


def _acronym(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is written in capitals, is short, and stands on a line with
    lower-case letters: a clinical acronym ('GBS', 'DLBCL') the trees took for a name once; in a
    line of capitals ('WIFE KEELY CALLED') capitals say nothing, and the word may spread."""
    word = text[start:end]
    if len(word) > MAX_ACRONYM or not word.isupper():
        return False
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    return any(c.islower() for c in text[line_start:len(text) if line_end < 0 else line_end])


def propagate_in_note(text: str, starts: np.ndarray, ends: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """``codes`` with each untagged token that is, whole and in any case, a rare tagged word
    of the note given that word's class (its first tagged occurrence's)."""
    tagged = np.flatnonzero(codes)
    if not len(tagged):
        return codes
    classes: dict[str, int] = {}
    for k in tagged.tolist():
        word = text[int(starts[k]):int(ends[k])]
        lower = word.lower()
        if (len(word) >= MIN_LETTERS and word.isalpha() and lower not in classes and zipf(lower) < MAX_ZIPF
                and not _acronym(text, int(starts[k]), int(ends[k]))):
            classes[lower] = int(codes[k])
    if not classes:
        return codes
    # only untagged tokens of a tagged word's length are read (a pattern of the note's
    # words compiled for every note would cost more than the rest of this pass)
    lengths = np.zeros(max(map(len, classes)) + 1, dtype=bool)
    lengths[[len(w) for w in classes]] = True
    size = ends - starts
    candidates = np.flatnonzero((size < len(lengths)) & (codes == 0))
    candidates = candidates[lengths[size[candidates]]]
    out = None
    for k in candidates.tolist():
        code = classes.get(text[int(starts[k]):int(ends[k])].lower())
        if code is not None:
            out = np.array(codes, copy=True) if out is None else out
            out[k] = code
    return codes if out is None else out
