"""Slips of the notes' own words: 'BIGEMENY', 'COOCYX', 'occlded', 'Cardic'.

Nurses misspell the words of their trade as often as everyday ones, and a slip of 'bigeminy' or
'coccyx' is rare in English and absent from the training notes, so at a high-recall operating
point the trees take it for a name, and the misspellings rule of :mod:`itdeid.passes.everyday_words`
cannot help: it knows English, and 'bigeminy' is no common English word. The training notes
know it. A fitted model keeps the words it saw as ordinary text with their counts (the lexicon:
words seen outside PHI only), so :func:`note_slip_tokens` clears a tagged token when

- it stands alone (the tokens either side untagged), after no title and no word that announces
  a name (:func:`itdeid.passes.everyday_words._announced`);
- it is a word of :data:`MIN_LETTERS` letters or more (:data:`MIN_CAPITALIZED` where it is
  capitalized in mixed text, as a name is written) that the model never saw as ordinary text,
  no first name or surname of the shipped or census lists at any frequency, no word of a listed
  place or of a hospital's name;
- one edit from it (a letter dropped, added, changed or two swapped) lies a word the training
  notes used as ordinary text :data:`MIN_SEEN` times or more that is itself no name or place
  word ('bigeminy', 'coccyx', 'occluded', 'cardiac').

In cross-validation no gold PHI token meets the word's conditions, with the lexicon of each
fold's training notes, and the rule clears false alarms (experiments/NOTEBOOK.md; the rule was
written after reading them, so the gain measured on that corpus flatters it).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

import numpy as np

from itdeid.passes.drug_names import lone_tagged
from itdeid.passes.eponyms import after_title
from itdeid.passes.everyday_words import _announced, _caseless, any_name_words
from itdeid.featurize.spelling import edits1

if TYPE_CHECKING:
    from itdeid.featurize import TokenizedDocument

#: Shortest word the rule looks at where its case says nothing (lower case, or capitals on a
#: line of capitals): shorter words are one edit from too many.
MIN_LETTERS = 5
#: Shortest word written with a capital in mixed text, the case of a name: a rare surname is
#: more often one edit from a short word of the notes ('Storey': 'story') than from a long one.
MIN_CAPITALIZED = 6
#: How often the training notes must have used the word one edit away as ordinary text.
MIN_SEEN = 5


def note_slip_tokens(td: TokenizedDocument, codes: np.ndarray, seen: Callable[[str], int]) -> list[int]:
    """Indices of the tagged tokens of ``td`` (``codes`` non-zero) to clear (see the module
    docstring); ``seen(word)``: how often the model saw the lower-case word as ordinary text."""
    text, tokens = td.document.text, td.tokens
    names = any_name_words()
    found = []
    for k in lone_tagged(codes):
        word = tokens[k].text
        if len(word) < MIN_LETTERS or not word.isascii() or not word.isalpha():
            continue
        if len(word) < MIN_CAPITALIZED and not _caseless(text, tokens[k].start, tokens[k].end):
            continue
        lower = word.lower()
        if lower in names or seen(lower) or after_title(text, tokens[k].start) or _announced(text, tokens[k].start):
            continue
        if any(seen(near) >= MIN_SEEN and near not in names for near in edits1(lower)):
            found.append(k)
    return found


def clear_note_slips(td: TokenizedDocument, codes: np.ndarray, seen: Callable[[str], int]) -> np.ndarray:
    """``codes`` with :func:`note_slip_tokens` cleared."""
    cleared = note_slip_tokens(td, codes, seen)
    if not cleared:
        return codes
    codes = np.array(codes, copy=True)
    codes[cleared] = 0
    return codes
