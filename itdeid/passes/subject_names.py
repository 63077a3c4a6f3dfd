"""A surname right after 'pt' or 'patient' is the patient's name.

Nurses name the patient by surname as the subject of a sentence: 'Pt Murphy tolerating po's',
'pt o'dwyer oob to chair', 'PATIENT GARCIA-LOPEZ RESTING'. The PhysioNet notes never do ('pt'
is followed by a verb or an adjective there: 'PT REMAINS', 'pt alert'), so the trees learned
that the word after 'pt' is ordinary text, and the shipped model missed many such names
(experiments/results/named-subjects.md); synthetic notes that name the patient so raise that only
in part, least in notes written in one case, where capitals say nothing.

So after the decisions, :func:`tag_named_subjects` makes a word PATIENT when all of these hold:

- the word before it is 'pt', 'pt.' or 'patient' (any case), on the same line, with only
  spaces or a full stop between;
- it is a surname of the 1990 census lists (``gazetteers/census_last_names.tsv``, public domain;
  an apostrophe is dropped to look it up: O'Dwyer is ODWYER there);
- it is no everyday English word (``gazetteers/nonphi_words.txt``: 'alert', 'remains', 'will');
- the model never saw it as ordinary text in its training notes (``known``: the lexicon a
  fitted model keeps, of words seen outside PHI): 'foley', 'vent', 'cough' and 'may' are
  census surnames too, and every clinical word the notes use after 'pt' is one the lexicon holds.

A surname joined by a hyphen to another census surname ('Garcia-Lopez') is taken whole. On the
PhysioNet notes, with the vocabulary of all of them (words seen twice or more as ordinary
text), the rule matches rarely: a gold name, or an ordinary word the vocabulary lacks ('reap',
'aud', a misspelt 'denies'). What it changes in cross-validation is in experiments/NOTEBOOK.md.

A title says the same more plainly, and the trees still missed a name after one in letters and
discharge summaries ('Thank you for asking me to see Mr. Brown again': 'brown' is an ordinary
word of the nursing notes). So :func:`tag_named_subjects` also tags the capitalized word after
'Mr', 'Mrs', 'Ms', 'Miss', 'Mx' (PATIENT) or 'Dr' (DOCTOR), with or without its full stop,
and the capitalized census names right after it ('Dr. Hannah Abernathy'), where the model left
them non-PHI. The first word must be an initial, or no everyday English word and either a census
name or a word the training notes never used: 'Mr. Brown', 'Dr. Okonkwo', not 'Dr. Office' or
'Mrs. Denies'; after a title with its full stop, an everyday word that is a census name is taken
too ('Dr. Yellow', 'Ms. Mask': names that synthetic records hold and the trees left). Only where the title itself is written as a title ('Mr', 'Dr'): in capitals 'MR'
and 'MS' are mitral regurgitation and mental status as often as titles (in the PhysioNet notes
the capitalized words after a title that the gold leaves out follow such capitals; the others
are names), and a lower-case word after a title ('Mr. and Mrs.') is no name.
"""
from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Callable

import numpy as np

from itdeid.document import LABELS
from itdeid.featurize.word_lists import census_names, gazetteer_sets, positions_in

if TYPE_CHECKING:
    from itdeid.featurize import TokenizedDocument

#: The words that announce the patient as a sentence's subject.
SUBJECTS = frozenset({"pt", "patient"})
PATIENT = LABELS.index("PATIENT")
DOCTOR = LABELS.index("DOCTOR")
#: Titles (lower case) and the class of the name after them.
TITLES = {"mr": PATIENT, "mrs": PATIENT, "ms": PATIENT, "miss": PATIENT, "mx": PATIENT, "dr": DOCTOR}
#: Names a title's name may run on to ('Dr. Hannah Abernathy'): at most this many words.
TITLED_WORDS = 3


@lru_cache(maxsize=1)
def _surnames() -> frozenset[str]:
    """Census surnames (lower case, no apostrophes) that are no everyday English word: the
    lists the ``census`` and ``nonphi`` feature groups already hold in memory."""
    return frozenset(census_names()[1]) - gazetteer_sets()["english"]


def _surname(word: str, known: Callable[[str], bool]) -> bool:
    return (word.replace("'", "").isalpha() and len(word) >= 2 and not known(word)
            and word.replace("'", "") in _surnames())


def _after_subject(td: TokenizedDocument, i: int) -> bool:
    """Whether token ``i`` follows 'pt', 'pt.' or 'patient' on its line, spaces between."""
    text, tokens, j = td.document.text, td.tokens, i - 1
    if j >= 1 and tokens[j].text == "." and tokens[j].start == tokens[j - 1].end:
        j -= 1          # 'Pt. Murphy'
    return (j >= 0 and td.words[j] in SUBJECTS
            and text[tokens[j].end:tokens[i].start].strip(" \t.") == ""
            and tokens[i].start > tokens[j].end)


def tag_named_subjects(td: TokenizedDocument, codes: np.ndarray, known: Callable[[str], bool]) -> np.ndarray:
    """``codes`` (label codes of ``td``'s tokens, 0 for non-PHI) with a census surname right
    after 'pt' or 'patient' made PATIENT (see the module docstring); ``known(word)``: whether
    the model saw the (lower-case) word as ordinary text."""
    codes = np.asarray(codes)
    out = None
    words, tokens = td.words, td.tokens
    # the words after a subject word ('pt', or 'pt' and its full stop) are all there is to
    # look at: one set lookup a token, in C, as the rule runs on every note tagged
    after = (j + 2 if j + 2 < len(words) and words[j + 1] == "." else j + 1
             for j in positions_in(words, SUBJECTS))
    for i in after:
        if i >= len(words) or codes[i] or not _after_subject(td, i) or not _surname(words[i], known):
            continue
        out = codes.copy() if out is None else out
        out[i] = PATIENT
        k = i     # 'Garcia-Lopez': a hyphen and a second surname, nothing between
        while (k + 2 < len(words) and words[k + 1] == "-" and tokens[k + 1].start == tokens[k].end
               and tokens[k + 2].start == tokens[k + 1].end and _surname(words[k + 2], known)):
            out[k + 1] = out[k + 2] = PATIENT
            k += 2
    return _tag_titled_names(td, codes if out is None else out, known)


def _capitalized(text: str) -> bool:
    """A word written as a name is: a capital, then lower-case letters ('Brown', "O'Dwyer",
    'McGee', 'Garcia-Lopez'), not all capitals."""
    letters = text.replace("'", "").replace("-", "")
    return (len(letters) >= 2 and letters.isalpha() and text[0].isupper()
            and any(c.islower() for c in letters))


def _tag_titled_names(td: TokenizedDocument, codes: np.ndarray, known: Callable[[str], bool]) -> np.ndarray:
    """``codes`` with the capitalized words after a title tagged (see the module docstring)."""
    words, tokens, text = td.words, td.tokens, td.document.text
    first, last = census_names()
    english = gazetteer_sets()["english"]

    def glued(k: int) -> bool:          # token k touches the one before it
        return tokens[k].start == tokens[k - 1].end

    def census(k: int) -> bool:
        bare = words[k].replace("'", "")
        return bare in first or bare in last

    def takes(k: int, taken: int, stopped: bool) -> bool:
        """Whether token ``k``, the ``taken``-th word after a title, is the name's: on the same
        line, left non-PHI, no title itself; the first word an initial, or a capitalized word
        that is no everyday English word and is a census name or a word the training notes
        never used ('Mr. Brown', 'Dr. Okonkwo'; not 'Mr. Alert', 'Dr. Office', 'Mrs. Denies'),
        or, after a title with its full stop (``stopped``), an everyday word that is a census
        name ('Dr. Hope', 'Ms. Mask', 'Dr. Yellow': synthetic records' doctors the trees left);
        the next ones capitalized census names."""
        if (codes[k] or words[k] in TITLES or taken >= TITLED_WORDS
                or text[tokens[k - 1].end:tokens[k].start] not in (" ", "  ", "\t")):
            return False
        word = tokens[k].text
        if taken:
            return _capitalized(word) and census(k)
        if len(word) == 1:
            return word.isupper()
        if words[k] in english:
            return stopped and _capitalized(word) and census(k)
        return _capitalized(word) and (census(k) or not known(words[k]))

    out = None
    for j in positions_in(words, TITLES):
        title = tokens[j].text
        if not (title[0].isupper() and (len(title) == 1 or title[1:].islower())):
            continue
        i = j + 1
        stopped = i < len(words) and words[i] == "." and glued(i)
        if stopped:
            i += 1
        taken = 0
        while i < len(words) and takes(i, taken, stopped):
            out = codes.copy() if out is None else out
            out[i] = TITLES[words[j]]
            taken += 1
            # 'Garcia-Lopez': a hyphen and a capitalized word, nothing between
            while (i + 2 < len(words) and words[i + 1] == "-" and glued(i + 1) and glued(i + 2)
                   and _capitalized(tokens[i + 2].text) and not codes[i + 1] and not codes[i + 2]):
                out[i + 1] = out[i + 2] = TITLES[words[j]]
                i += 2
            i += 1
    return codes if out is None else out
