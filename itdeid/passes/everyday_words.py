"""Everyday English words tagged where the text's case says nothing: 'TILT', 'WHEELCHAIR', 'sink'.

The trees read a capital as a hint of a name or a place. In a line written all in capitals, or
in a lower-case word, that hint is gone, and at a high-recall operating point the model tags
ordinary words standing where names stand ('HELPED TO TILT IN CHAIR', 'DRAIN ORANGE',
'walked to sink for AM care'): the note loses a clinical fact, and the surrogates write a
stranger's name into it. A name written so is still a name, and the rule keeps every word a
name or a place could be: it clears a tagged token only when

- it stands alone (the tokens either side untagged), and no title comes before it, nor any other
  word that announces a name (a relation, a role, 'per': 'MRS. MERCY', 'WIFE GRACE'), nor an
  initial ('T. BRAMBLE RRT'), unless the word is an inflection of a common word ('wife worries',
  'PATIENT STARTLED');
- it is a word of four letters or more, lower case, or upper case on a line with no lower-case
  letter; or a title-case everyday word (not a misspelling) that begins a line or a sentence
  ('Gentle suction with NS', 'Administer nebulized saline'), where English capitalizes any word (any
  other title-case word in mixed text is left to the model, which reads its capital);
- English uses it often (wordfreq's Zipf frequency :data:`MIN_ZIPF` or more), or it is a rare
  word of five letters or more one edit from a common word that is no name or place word (a
  nurse's slip: 'MONITERED', 'SECONDRY', 'sleping'; :mod:`itdeid.featurize.spelling`) or a common word with an
  English ending ('CALMLY', 'STARTLED': :func:`_inflection`);
- it is no first name or surname of the shipped lists or borne by one in twenty thousand people
  or more in the census ('WALKER', 'Rose', 'WINTER'; the census lists hold 'Door' and 'Moment'
  as rarer surnames), no word of a listed city, state, country or world place ('Orange',
  'Fruit'), no word of a hospital's name (``gazetteers/hospital_name_parts.tsv``: 'METHODIST',
  'Valley', 'Mercy') and no month ('in march of 2022': a date);
- a rarer census first name or a name of another country (faker's non-US locales:
  'GARETH', 'Zara', 'SPELA') is cleared only where English uses the word ten times in a million
  or more (:data:`NAME_WORD_ZIPF`: 'COMFORT', 'LINE'), and is never a misspelling ('DELEZE', one
  edit from 'delete'). Without this bar, on synthetic records whose names no rule had seen
  (``experiments/identifier_templates.py``), the rule cleared gold name tokens tagged alone
  ('GARETH', 'Zara', 'DELEZE', 'Luigi'); with it a few are still cleared: rare census surnames
  that are English words ('BLACKSTONE', 'Garb') and the synthetic records' everyday words used
  as surnames ('MOOD', 'CABLE'). At a sentence's start, where prose names the patient ('Assad is
  a 60-year-old librarian'), every census name needs that bar.

A run of two or three such words tagged together, apart by spaces alone, is cleared whole on the
same conditions, each word meeting them and the run standing alone ('REDDENED AT ELBOW CREASE',
'after using incentive spirometer'): no gold run of the training notes or of the synthetic
records meets them, and such runs are false alarms.

What is left are everyday words no list knows as a common name. In cross-validation the rule
takes back false alarms ('WHEELCHAIR', 'DOOR', 'LIFESTYLE', 'sink', 'wallet') and no gold PHI;
the month condition is there because without it the rule cleared the month of a date ('march',
'sept'); a misspelling is cleared, but never a misspelt name or place ('HARBR'). The scores are in
experiments/NOTEBOOK.md; the rule was written after reading those false alarms, so the gain
measured on that corpus flatters it.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from itdeid.featurize.casing import announcers
from itdeid.passes.drug_names import lone_tagged, spaced_runs
from itdeid.passes.eponyms import after_title
from itdeid.resources import load_table
from itdeid.featurize.spelling import common_neighbours
from itdeid.featurize.word_lists import census_names, gazetteer_sets, world_names
from itdeid.featurize.zipf import zipf

#: Zipf frequency from which a word counts as everyday English (3: about once a million words).
MIN_ZIPF = 3.0
#: Zipf frequency from which a first name however rare or a name of another country
#: (:func:`first_or_world_names`) counts as everyday English: 'comfort', 'line', 'lung'
#: (4.3-5.4) are cleared, 'Gareth' (3.5), 'Zara' (3.3), 'Luigi' (3.3) and 'Mendes' are not.
#: The census's rare surnames keep :data:`MIN_ZIPF`: they hold thousands of English words
#: ('Tilt', 'Door', 'Moment').
NAME_WORD_ZIPF = 4.0
#: Share of the census population (percent) from which a first name or surname is kept as a
#: name: 'Walker' 0.219, 'Hope' 0.034, 'Winter' 0.011, 'Kitchen' 0.006; below it the census
#: lists hold everyday words as rare surnames ('Door', 'Moment', 'Peace' 0.003).
MIN_NAME_PERCENT = 0.005
#: Shortest misspelling the rule clears: shorter words are one edit from too many words.
MIN_MISSPELT = 5
#: Month names, which are dates ('in march of 2022', 'in sept.'), whatever their case.
MONTHS = frozenset(("january february march april may june july august september october november "
                    "december sept").split())
#: Shortest word the rule clears: shorter ones are as often initials or acronyms ('IBM', 'OLH').
MIN_LETTERS = 4
#: English endings of a verb, a plural or an adverb, longest first: a rare word that is a common
#: word with one of them ('COHERENTLY', 'PANICED') is that word's inflection, not a name.
INFLECTIONS = ("ing", "ed", "es", "ly", "s", "d")
#: How common (wordfreq Zipf) the word under an inflection must be: the misspellings' bar
#: (:data:`itdeid.featurize.spelling.COMMON_ZIPF`), ordinary words rather than names.
INFLECTED_ZIPF = 3.5


@lru_cache(maxsize=1)
def common_names() -> frozenset[str]:
    """Lower-case first names and surnames a word could be: the shipped lists, and census names
    borne by :data:`MIN_NAME_PERCENT` of the people or more."""
    census_first, census_last = census_names()
    lists = gazetteer_sets()
    words = {w for table in (census_first, census_last) for w, pct in table.items() if pct >= MIN_NAME_PERCENT}
    return frozenset(words | set(lists["first"]) | set(lists["last"]))


@lru_cache(maxsize=1)
def hospital_words() -> frozenset[str]:
    """The lower-case words of hospitals' names (``gazetteers/hospital_name_parts.tsv``)."""
    return frozenset(w for _kind, part in load_table("gazetteers", "hospital_name_parts.tsv")
                     for w in part.lower().split())


@lru_cache(maxsize=1)
def any_name_words() -> frozenset[str]:
    """Every census first name and surname however rare ('Mendes'), the
    names of other countries (:func:`itdeid.featurize.word_lists.world_names`: 'Gareth', 'Spela') and
    :func:`name_or_place_words`: what a word formed like an ordinary one may still be."""
    first, last = census_names()
    return frozenset(first) | frozenset(last) | world_names() | name_or_place_words()


@lru_cache(maxsize=1)
def first_or_world_names() -> frozenset[str]:
    """Census first names however rare ('Versie', 'Mazie') and the names of other countries
    (:func:`itdeid.featurize.word_lists.world_names`: 'Gareth', 'Spela', 'Mendes')."""
    first, _last = census_names()
    return frozenset(first) | world_names()


@lru_cache(maxsize=1)
def name_or_place_words() -> frozenset[str]:
    """Lower-case words a name or a place could be: :func:`common_names`, the words of listed
    places, :func:`hospital_words` and the months."""
    lists = gazetteer_sets()
    places = {w for kind in ("cities", "states", "countries", "world") for entry in lists[kind] for w in entry}
    return frozenset(common_names() | places | hospital_words() | MONTHS)


def _caseless(text: str, start: int, end: int) -> bool:
    """Whether the word ``text[start:end]`` says nothing by its case: lower case, or upper case
    on a line with no lower-case letter."""
    word = text[start:end]
    if word.islower():
        return True
    if not word.isupper():
        return False
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line = text[line_start:len(text) if line_end < 0 else line_end]
    return not any(c.islower() for c in line)


#: A word before, skipping these marks: 'WIFE: PEACE', 'Dr. - Story'.
_MARKS = " \t.:,-"


def _announced(text: str, start: int) -> bool:
    """Whether the word before offset ``start`` (past spaces and marks) announces a name: a
    title, a relation, a role or a verb of :func:`itdeid.featurize.casing.announcers` ('WIFE PEACE',
    'PER STORY'), or is an initial with its full stop ('T. BRAMBLE RRT')."""
    end = start
    while end > 0 and text[end - 1] in _MARKS:
        end -= 1
    begin = end
    while begin > 0 and text[begin - 1].isalpha():
        begin -= 1
    if end - begin == 1 and text[end:end + 1] == "." and not (begin > 0 and text[begin - 1] in "./"):
        return True
    return text[begin:end].lower() in announcers()


def everyday_word_tokens(text: str, starts: np.ndarray, ends: np.ndarray, codes: np.ndarray) -> list[int]:
    """Indices of the tagged tokens (``codes`` non-zero) to clear (see the module docstring)."""
    found = []
    for k in lone_tagged(codes):
        a, b = int(starts[k]), int(ends[k])
        word = text[a:b]
        if len(word) < MIN_LETTERS or not word.isascii() or not word.isalpha():
            continue
        lower = word.lower()
        if lower in name_or_place_words() or after_title(text, a):
            continue
        if _announced(text, a) and not _inflection(lower):
            continue        # 'WIFE PEACE' stays, 'wife reveals' does not; not a misspelling
            # either: a rare surname is often one edit from common words ('wife golding')
        if _caseless(text, a, b):
            if _everyday(lower):
                found.append(k)
        elif word.istitle() and _sentence_start(text, a) and _common(lower, any_name_words()):
            # 'Manual lavage with NS', 'Administer racemic epi'; where prose begins a sentence
            # with the patient ('Assad is a 60-year-old'), any name needs the names' bar
            found.append(k)
    return found


#: Longest run of tagged everyday words the rule clears whole ('SCALP HAIRLINE', 'stationary bicycle').
MAX_RUN = 3


def everyday_run_tokens(text: str, starts: np.ndarray, ends: np.ndarray, codes: np.ndarray) -> list[int]:
    """Indices of the tokens of each tagged run of two to :data:`MAX_RUN` words to clear: every
    word of it an everyday word (or a misspelling of one) of :data:`MIN_LETTERS` letters or
    more whose case says nothing, no name or place word among them, the words apart by spaces
    alone, its neighbours untagged, and no title or announcing word before it ('FACE FLUSHED AT
    SCALP HAIRLINE', 'after riding stationary bicycle'; not 'SON NEWLY GRADUATED', 'ROSE HILL')."""
    found = []
    for lo, hi in spaced_runs(text, starts, ends, codes, MAX_RUN):
        a = int(starts[lo])
        if after_title(text, a):
            continue
        announced = _announced(text, a)
        if all(_caseless_everyday(text, int(starts[k]), int(ends[k]))
               and (not announced or _inflection(text[int(starts[k]):int(ends[k])].lower()))
               for k in range(lo, hi)):
            found += range(lo, hi)
    return found


def _caseless_everyday(text: str, start: int, end: int) -> bool:
    word = text[start:end]
    return (len(word) >= MIN_LETTERS and word.isascii() and word.isalpha() and _caseless(text, start, end)
            and word.lower() not in name_or_place_words() and _everyday(word.lower()))


def _sentence_start(text: str, start: int) -> bool:
    """Whether offset ``start`` begins a line or follows the end of a sentence or a colon ('.',
    '!', '?', ':' and spaces), where English capitalizes any word."""
    k = start
    while k > 0 and text[k - 1] in " \t":
        k -= 1
    return k == 0 or text[k - 1] in "\n.!?:"


def _common(lower: str, names: frozenset[str] | None = None) -> bool:
    """Whether lower-case ``lower`` is everyday English by its own frequency: Zipf
    :data:`MIN_ZIPF` or more, :data:`NAME_WORD_ZIPF` or more for a word of ``names``
    (default :func:`first_or_world_names`: a first name or a name of another country)."""
    names = first_or_world_names() if names is None else names
    return zipf(lower) >= (NAME_WORD_ZIPF if lower in names else MIN_ZIPF)


def _everyday(lower: str) -> bool:
    """Whether lower-case ``lower`` is an everyday word (:func:`_common`) or a misspelling of
    one: a rare word of :data:`MIN_MISSPELT` letters or more, no first name nor a name of
    another country (:func:`first_or_world_names`), one edit from a common word
    (:func:`itdeid.featurize.spelling.common_neighbours`) that is no name or place word ('AWATING',
    'PRIAMRY', 'strech'; not 'HARBR', one edit from 'harbor', nor 'DELEZE', a Swiss surname one
    edit from 'delete')."""
    if lower in first_or_world_names():
        return _common(lower)
    if _common(lower) or _inflection(lower):
        return True
    if len(lower) < MIN_MISSPELT:
        return False
    places = name_or_place_words()
    return any(near not in places for near in common_neighbours(lower))


def _inflection(lower: str) -> bool:
    """Whether lower-case ``lower`` is a common word (Zipf :data:`INFLECTED_ZIPF` or more, no
    name or place word) with an English ending of :data:`INFLECTIONS`, its stem of four letters
    or more: 'coherently', 'paniced' (a slip of 'panicked' that is still 'panic' + 'ed'),
    'deteriorating'. Nursing notes inflect words wordfreq ranks rare in that form. A census
    name of any frequency is none ('MENDES' is 'mend' + 'es': a surname the held-out letters
    sign with, which the first version cleared)."""
    if lower in any_name_words():
        return False
    places = name_or_place_words()
    for ending in INFLECTIONS:
        if not lower.endswith(ending) or len(lower) - len(ending) < MIN_LETTERS:
            continue
        stem = lower[:-len(ending)]
        stems = {stem, stem + "e"}            # 'deteriorat' + 'e'
        if stem[-1] == stem[-2]:
            stems.add(stem[:-1])              # 'stopp' of 'stopped'
        if stem.endswith("i"):
            stems.add(stem[:-1] + "y")        # 'carri' of 'carried'
        if any(zipf(w) >= INFLECTED_ZIPF and w not in places for w in stems):
            return True
    return False
