"""A capitalized word standing between two PHI tokens on one line belongs to the same name.

The trees decide token by token. In "Harborview Cardiology Associates" or "Pinewood Family
Practice" the middle word is an ordinary English word, and it can fall below the threshold while
the words on both sides pass it: the released note then keeps a piece of the name
("[**HOSPITAL**] Cardiology [**HOSPITAL**]"), as sample notes show. So after the decisions :func:`join_name_gaps` gives such a word the class of the PHI token
after it (the last word of an institution's name, 'Associates', 'Practice', names its kind).

The same holds for a place and its state: after 'Portland, ME' the trees tagged the town and left
the state, which with the town narrows the place to one ('ME' is also a pronoun, 'MD' a degree).
So :func:`join_state_after_place` gives a US state's abbreviation or name, or a country's name,
right after a place the model tagged LOCATION and a comma, on the same line, the class LOCATION
(otherwise a state in capitals, 'DUNMORE, VERMONT', is left, and 'Lagos, Nigeria' is typed as a
person's 'Surname, First').
And a place's name that begins with a possessive ("Children's Hospital", which the trees tagged
from "'s" on) takes the word before it (:func:`join_possessive_start`).
A place's name also grows by the words of hospitals' names after it ('WESLEY METHODIST', 'Bethany
Mercy Methodist', 'ashgrove methodist', 'glen springs': :func:`join_place_name_words`): the trees often tag
a place's first word and leave the rest, and in cross-validation the rule joined no word the
gold leaves out. The saint's name after a place's 'St' is the
place's too ('St. Clement' typed LOCATION and DOCTOR lost its full stop between the two spans:
:func:`join_saint_names`). And a person's name holds no 'and', 'or' or 'of': tagged beside
one, they lose the tag (:func:`untag_name_separators`; 'DRS KAPLAN AND MERRIWEATHER').

Headers and care-team lines write a name surname first: 'PCP: Hall, Norman', 'PRIMARY CARE:
HALL, SUSAN, MD'. The trees found the first name and, where the surname is also an English word
('Hall', 'Brown', 'Said', 'Stone'), left the surname in most such headers. So :func:`join_surname_before_name` gives the word before a comma and a tagged
PATIENT or DOCTOR token the name's class, where the word begins its field (first on its line, or
right after a colon or a tab), is written in the name's case, and is a census surname (or, in
title case, no everyday English word), but no announcing word ('GUARDIAN: Niece, Pamela'). And
a name's trailing initial ('EZEALA, CHIDERA N', 'Lopez M.') is the name's too
(:func:`join_initial_after_name`): a single letter right after a PATIENT or DOCTOR token, in the
name's case, before the line's end or a comma, a full stop, a bracket or a semicolon ('C/O' and
'M.D.' are no initials); so is a leading initial with its full stop ('T. BRAMBLE RRT', 'D. Fennick':
:func:`join_initial_before_name`).

The first rule is narrow on purpose: one word of a capital and lower-case letters only, with
nothing but spaces or tabs between it and PHI tokens on both sides. A comma, a line break, a
number or a lower-case word ('Smith and Jones') ends a name, except 'and', '&' and 'of' between
two words the model typed HOSPITAL ('Brigham and Women's', 'Mass Eye and Ear'). In nursing
notes it rarely changes a token; it matters where names of institutions are written in full,
as in discharge letters.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from itdeid.featurize.casing import announcers
from itdeid.document import LABELS
from itdeid.resources import load_table
from itdeid.text.spans import FUNCTION_WORDS
from itdeid.featurize.word_lists import census_names, gazetteer_sets

if TYPE_CHECKING:
    from itdeid.featurize import TokenizedDocument

#: The word a gap may hold.
CAPITALIZED = re.compile(r"[A-Z][a-z]+")
#: What may separate it from its neighbours.
SPACES = re.compile(r"[ \t]+")
LOCATION = LABELS.index("LOCATION")
NAMES = (LABELS.index("PATIENT"), LABELS.index("DOCTOR"))


def _marks(classes) -> np.ndarray:
    """A boolean per label code, True for ``classes``: ``_marks(NAMES)[codes]`` is
    ``np.isin(codes, NAMES)`` without its set-up, which over a note's few hundred codes cost
    five times the lookup, seven times a tagged note."""
    table = np.zeros(len(LABELS), dtype=bool)
    table[list(classes)] = True
    return table


IS_NAME = _marks(NAMES)
IS_NAME_OR_NONE = _marks((0,) + NAMES)


def _is_region(word: str) -> bool:
    """A US state's two-capital abbreviation, or a one-word state or country name in title case
    or capitals ('ME', 'Maine', 'MASSACHUSETTS', 'Nigeria'), from the ``location`` group's lists
    (``gazetteers/us_states.tsv``, ``countries.txt``)."""
    gazetteers = gazetteer_sets()
    if word in gazetteers["state_abbr"]:
        return True
    key = (word.lower(),)
    return (word.istitle() or word.isupper()) and (key in gazetteers["states"] or key in gazetteers["countries"])


#: Lower-case words that join the words of one institution's name ('Brigham and Women's',
#: 'Mass Eye and Ear', 'Hospital of Saint Raphael'): only between two HOSPITAL tokens.
HOSPITAL_JOINERS = frozenset({"and", "&", "of"})
HOSPITAL = LABELS.index("HOSPITAL")


def join_name_gaps(td: TokenizedDocument, codes: np.ndarray) -> np.ndarray:
    """``codes`` (label codes of ``td``'s tokens, 0 for non-PHI) with every capitalized word that
    stands alone between two PHI tokens on one line given the class of the token after it, and
    'and', '&' or 'of' alone between two HOSPITAL tokens made HOSPITAL; a function word between
    two classes ('At' of 'March 3 At Mercy Hospital') is left untagged."""
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
        joiner = word.text.lower() in HOSPITAL_JOINERS and codes[i - 1] == codes[i + 1] == HOSPITAL
        if word.text.lower() in FUNCTION_WORDS and codes[i - 1] != codes[i + 1]:
            continue    # 'March 3 At Mercy Hospital': the 'At' joins two phrases, is neither's
        if ((CAPITALIZED.fullmatch(word.text) or joiner) and SPACES.fullmatch(text[before.end:word.start])
                and SPACES.fullmatch(text[word.end:after.start])):
            out[i] = codes[i + 1]
    return out


def join_state_after_place(td: TokenizedDocument, codes: np.ndarray) -> np.ndarray:
    """``codes`` with a US state or a country ('ME', 'Maine', 'Nigeria') standing right after a
    LOCATION token and a comma, on the same line ('Portland, ME', 'Lagos, Nigeria'), made
    LOCATION: left out, or typed a name (the trees read 'Lagos, Nigeria' as 'Surname, First')."""
    codes = np.asarray(codes)
    text, tokens = td.document.text, td.tokens
    out = None
    for i in np.flatnonzero(codes[:-2] == LOCATION).tolist():
        comma, state = tokens[i + 1], tokens[i + 2]
        if (codes[i + 2] in (0,) + NAMES and comma.text == "," and _is_region(state.text)
                and comma.start == tokens[i].end and SPACES.fullmatch(text[comma.end:state.start])):
            out = codes.copy() if out is None else out
            out[i + 2] = LOCATION     # the comma stays outside, as the gold has it
    return codes if out is None else out


def _case(text: str) -> str:
    return "upper" if text.isupper() else "lower" if text.islower() else "title" if text[:1].isupper() else "other"


def join_surname_before_name(td: TokenizedDocument, codes: np.ndarray) -> np.ndarray:
    """``codes`` with the surname of a 'Surname, Name' field given the name's class (see the
    module docstring)."""
    codes = np.asarray(codes)
    text, tokens, words = td.document.text, td.tokens, td.words
    last = census_names()[1]
    english = gazetteer_sets()["english"]
    relations = announcers()    # 'LEGAL GUARDIAN: Niece, Pamela WETZEL': the relation, no surname
    out = None
    for i in np.flatnonzero(IS_NAME[codes[2:]]).tolist():
        k, comma, name = i, tokens[i + 1], tokens[i + 2]
        word = tokens[k]
        bare = words[k].replace("'", "").replace("-", "")
        if (codes[k] or comma.text != "," or comma.start != word.end
                or not SPACES.fullmatch(text[comma.end:name.start]) or len(bare) < 2 or not bare.isalpha()
                or _case(word.text) != _case(name.text)):
            continue
        line_start = text.rfind("\n", 0, word.start) + 1
        before = text[line_start:word.start]
        if not (before.strip(" \t") == "" or before.rstrip(" ").endswith((":", "\t"))):
            continue
        if not (bare in last or (_case(word.text) != "upper" and words[k] not in english)) or words[k] in relations:
            continue
        out = codes.copy() if out is None else out
        out[k] = codes[i + 2]
    return codes if out is None else out


def join_initial_after_name(td: TokenizedDocument, codes: np.ndarray) -> np.ndarray:
    """``codes`` with a name's trailing initial given the name's class (see the module
    docstring)."""
    codes = np.asarray(codes)
    text, tokens = td.document.text, td.tokens
    out = None
    for i in np.flatnonzero(IS_NAME[codes[:-1]]).tolist():
        letter = tokens[i + 1]
        if codes[i + 1] or len(letter.text) != 1 or not letter.text.isalpha():
            continue
        if not SPACES.fullmatch(text[tokens[i].end:letter.start]):
            continue
        name_case = _case(tokens[i].text)
        if (letter.text.isupper()) != (name_case in ("upper", "title")):
            continue
        line_end = text.find("\n", letter.end)
        after = text[letter.end:len(text) if line_end < 0 else line_end]
        if not (after.strip(" \t") == "" or after[0] in ",;)"
                or (after[0] == "." and (len(after) == 1 or after[1] in " \t,;)"))):
            continue
        out = codes.copy() if out is None else out
        out[i + 1] = codes[i]
    return codes if out is None else out


def join_initial_before_name(td: TokenizedDocument, codes: np.ndarray) -> np.ndarray:
    """``codes`` with a name's leading initial ('T. BRAMBLE RRT', 't. bramble rrt', 'Reported to
    D. Fennick') given the name's class: a single letter, a full stop and spaces right before a
    PATIENT or DOCTOR token, in the name's case, beginning its word (no letter or full stop
    before it: not the 'D' of 'M.D.'). The trees often find the surname and leave the initial,
    which with it narrows the person to one (experiments/NOTEBOOK.md). Without the
    full stop a letter before a name is as often a word ('W WDRAWL', 'C HOSPICE', 'R Hickman'),
    so it is left to the trees."""
    codes = np.asarray(codes)
    text, tokens = td.document.text, td.tokens
    out = None
    for i in np.flatnonzero(IS_NAME[codes[2:]]).tolist():
        letter, stop, name = tokens[i], tokens[i + 1], tokens[i + 2]
        if (codes[i] or len(letter.text) != 1 or not letter.text.isalpha() or stop.text != "."
                or stop.start != letter.end or not SPACES.fullmatch(text[stop.end:name.start])):
            continue
        if letter.start and (text[letter.start - 1].isalnum() or text[letter.start - 1] == "."):
            continue
        if letter.text.isupper() != (_case(name.text) in ("upper", "title")):
            continue
        out = codes.copy() if out is None else out
        out[i] = codes[i + 2]
    return codes if out is None else out


def join_hyphenated_names(td: TokenizedDocument, codes: np.ndarray) -> np.ndarray:
    """``codes`` with a hyphen glued between two tokens of one name class ('Lara-Kate',
    'Garcia-Lopez') given that class, where the model left it out or typed it the other name
    class: then it cut the name in two spans, which the surrogates read as two lone first names
    in one place and as one double-barrelled surname in another ('Lara-Kate' became
    'Jaime-Durham', then 'Wall-Durham'), and the redacted text said '[**PATIENT**]-[**PATIENT**]'."""
    codes = np.asarray(codes)
    if len(codes) < 3:
        return codes
    tokens = td.tokens
    # array tests first: the rule runs on every note tagged
    between = np.flatnonzero(IS_NAME[codes[:-2]] & (codes[2:] == codes[:-2]) & (codes[1:-1] != codes[:-2])
                             & IS_NAME_OR_NONE[codes[1:-1]]) + 1
    out = None
    for i in between.tolist():
        if tokens[i].text == "-" and tokens[i].start == tokens[i - 1].end and tokens[i + 1].start == tokens[i].end:
            out = codes.copy() if out is None else out
            out[i] = codes[i - 1]
    return codes if out is None else out


PLACES = (HOSPITAL, LOCATION)
IS_PLACE = _marks(PLACES)


def join_possessive_start(td: TokenizedDocument, codes: np.ndarray) -> np.ndarray:
    """``codes`` with the word before a "'s" tagged HOSPITAL or LOCATION given its class where
    the model left it out ('Children' of "Children's Hospital", typed "'s Hospital" HOSPITAL;
    not a name's: "updated by MD's")."""
    codes = np.asarray(codes)
    tokens = td.tokens
    out = None
    for i in np.flatnonzero(IS_PLACE[codes[1:]] & (codes[:-1] == 0)).tolist():
        k = i + 1
        if (tokens[k].text.lower() in ("'s", "\u2019s") and tokens[k].start == tokens[i].end
                and tokens[i].text[:1].isupper() and tokens[i].text.isalpha()):
            out = codes.copy() if out is None else out
            out[i] = codes[k]
    return codes if out is None else out


#: The kinds of ``gazetteers/hospital_name_parts.tsv`` whose words go on a place's name
#: ('Wesley Methodist', 'Pine Valley', 'Bethany Mercy', 'Glen Springs'); its facility words
#: ('Hospital', 'Medical Center', 'Clinic') are left as the model tagged them.
NAME_WORD_KINDS = ("descriptor", "landform")


@lru_cache(maxsize=None)
def place_name_words(kinds: tuple[str, ...] = NAME_WORD_KINDS) -> frozenset[str]:
    """Lower-case words that go on a place's name (of ``kinds``)."""
    return frozenset(w.lower() for kind, part in load_table("gazetteers", "hospital_name_parts.tsv")
                     if kind in kinds for w in part.split())


def _same_name_case(word: str, before: str) -> bool:
    """Whether ``word`` is written as the place word ``before`` it is, or is a descriptor in
    lower case after a capitalized word ('Bethany Mercy methodist': notes capitalize the first
    words of a name and let the rest slip; a landform so written is a common noun, 'Boston
    harbor')."""
    case = _case(word)
    return case == _case(before) or (case == "lower" and _case(before) == "title"
                                     and word.lower() in place_name_words(("descriptor",)))


def join_place_name_words(td: TokenizedDocument, codes: np.ndarray) -> np.ndarray:
    """``codes`` with a word of a place's name right after a HOSPITAL or LOCATION token, in its
    case and with spaces alone between them, given the place's class: the trees found 'WESLEY'
    and left 'METHODIST', found 'Bethany' and left 'Mercy Methodist', and the released note named
    the hospital by what was left ('[**LOCATION**] METHODIST'). Left to right, so a name of
    three words grows whole; the facility words ('Fenwick Hospital') are not joined, for the
    PhysioNet gold leaves them out (:mod:`itdeid.passes.place_endings`) and the model tags them where
    its training corpus took them in."""
    codes = np.asarray(codes)
    places = IS_PLACE[codes[:-1]] & (codes[1:] == 0)
    if not np.any(places):
        return codes
    text, tokens = td.document.text, td.tokens
    words = place_name_words()
    out = codes.copy()
    for i in np.flatnonzero(places).tolist():
        if not out[i] or out[i + 1]:
            continue
        k = i
        while (k + 1 < len(tokens) and not out[k + 1] and tokens[k + 1].text.lower() in words
               and _same_name_case(tokens[k + 1].text, tokens[k].text)
               and SPACES.fullmatch(text[tokens[k].end:tokens[k + 1].start])):
            out[k + 1] = out[i]
            k += 1
    return out


#: A saint's title before a place's name ('St. Clement', 'Saint Jude').
SAINTS = frozenset(("st", "saint", "ste"))


def join_saint_names(td: TokenizedDocument, codes: np.ndarray) -> np.ndarray:
    """``codes`` with the name after a saint's title the model tagged a place ('St. Clement', 'St
    Jude') given the place's class, with the title's full stop: the trees typed 'St' LOCATION and
    'Clement' DOCTOR, the full stop between fell out of both spans, and the released note read
    '[**LOCATION**].[**DOCTOR**]'. The saint is the place's name, not a person."""
    codes = np.asarray(codes)
    text, tokens = td.document.text, td.tokens
    out = None
    for i in np.flatnonzero(IS_PLACE[codes[:-1]]).tolist():
        if tokens[i].text.lower() not in SAINTS:
            continue
        k = i + 1
        if tokens[k].text == "." and tokens[k].start == tokens[i].end and k + 1 < len(tokens):
            k += 1
        while k < len(tokens) and codes[k] in NAMES and _spaces_or_none(text[tokens[k - 1].end:tokens[k].start]):
            out = codes.copy() if out is None else out
            out[i + 1:k + 1] = codes[i]      # 'St. Jude Thaddeus': every word of the saint's name
            k += 1
    return codes if out is None else out


def _spaces_or_none(gap: str) -> bool:
    return not gap or SPACES.fullmatch(gap) is not None


def one_class_a_name(td: TokenizedDocument, codes: np.ndarray) -> np.ndarray:
    """``codes`` with the words of one name given the class of its first word, where the model
    typed them PATIENT and DOCTOR by turns: two words tagged as names with nothing but spaces or
    tabs between them ('daughter NORA VELLUCCI', 'grandaughter: Edna Wroblinski') are one person
    (a tagged comma or full stop before a word is no part of its name: 'Niece, Pamela').
    The first word's class wins: it stands next to what says whose name it is (a title, a
    relation word, 'Dr'), while a later word is typed from its own spelling, and surnames are
    mostly doctors' in the notes the model learnt from. Where the gold marks such a pair, it is of
    the first word's class (experiments/NOTEBOOK.md).
    Left to right, so a name of three words takes its first word's class."""
    codes = np.asarray(codes)
    if len(codes) < 2:
        return codes
    names = IS_NAME[codes]
    pairs = np.flatnonzero(names[:-1] & names[1:])
    if not np.any(codes[pairs] != codes[pairs + 1]):
        return codes
    text, tokens = td.document.text, td.tokens
    out = codes.copy()
    for i in pairs.tolist():      # all adjacent pairs: 'A B C' typed P, D, D gives P, P, P
        if (out[i + 1] != out[i] and tokens[i].text[0].isalpha() and tokens[i + 1].text[0].isalpha()
                and SPACES.fullmatch(text[tokens[i].end:tokens[i + 1].start])):
            out[i + 1] = out[i]
    return out


#: Words that join two people's names and are no part of either ('DRS KAPLAN AND MERRIWEATHER',
#: 'Sons Dusty, Walter and Glen', 'Dr. Hale of wound care').
NAME_SEPARATORS = frozenset({"and", "&", "or", "of"})


def untag_name_separators(td: TokenizedDocument, codes: np.ndarray) -> np.ndarray:
    """``codes`` with a tagged 'and', '&', 'or' or 'of' next to a PATIENT or DOCTOR token
    untagged, unless it stands between two HOSPITAL tokens (:data:`HOSPITAL_JOINERS`): a
    person's name holds none of them, and the trees, reading 'AND' between two tagged surnames,
    tagged it with them."""
    codes = np.asarray(codes)
    tokens = td.tokens
    out = None
    for i in np.flatnonzero(codes).tolist():
        if tokens[i].text.lower() not in NAME_SEPARATORS:
            continue
        before = codes[i - 1] if i else 0
        after = codes[i + 1] if i + 1 < len(codes) else 0
        if (before in NAMES or after in NAMES) and not (before == after == HOSPITAL):
            out = codes.copy() if out is None else out
            out[i] = 0
    return codes if out is None else out
