"""Surrogates: every PHI span replaced by a realistic stand-in of its class.

A surrogate is drawn with a keyed hash, never with a random generator, so the mapping is

* **consistent within a patient**: the same original string (case-folded, whitespace collapsed) of
  the same class always gets the same surrogate in one patient's notes, and a name is replaced
  part by part, so "Smith" alone and the "Smith" of "John Smith" get the same last name. The
  patient is ``Document.patient``, else the note's id (then each note is its own patient):
  PhysioNet and i2b2 2014 notes carry patient ids; for plain-text files ``itdeid deid`` takes
  them from ``--patient-regex`` or ``--patient-map`` (:mod:`itdeid.batch.patients`);
* **stateless and parallel-safe**: nothing is remembered between calls, so notes of one patient
  may be processed by different worker processes, or in different runs, and still agree;
* **irreversible without the key**: the choice is ``HMAC-SHA256(key, patient + "\\x1f" + class +
  "\\x1f" + normalised original)`` (one class ``NAME`` for PATIENT and DOCTOR, so a name the
  model types either way gets one stand-in); without the key, guessing an original and hashing it tells
  nothing. The same key gives the same output in every run.

Every class keeps the shape of what it replaces:

==========  ==================================================================================
class       surrogate
==========  ==================================================================================
PATIENT,    names from the gazetteers (``first_names.tsv`` of the sex both first-name lists give
DOCTOR      the original, one both sexes bear where they give none or the note says the other
            sex: "her husband Ann"; ``last_names.tsv``), part by part: "Smith, John" stays
            "Last, First", "J. Smith" an initial and a last name, "SMITH" upper case; titles
            and degrees (Dr., Mrs., MD, M.D.; DO and PA only after a comma, being surnames
            too) are kept. A single word is a first name only where it is a known first name
            and no known last name, else a last name. A word that is both ("Jordan") draws
            from the names that are both, wherever it stands, so it keeps one stand-in.
HOSPITAL    an invented name from ``hospital_name_parts.tsv``, cities and last names, in the
            case of the original's name, with the original's suffix ("Medical Center",
            "Clinic", "Hosp", ...) kept as written, else " Hospital"; an all-capital
            abbreviation of 2 to 6 letters ("MGH") becomes other capitals, except a known word
            of 4 or more ("MERCY" gets the stand-in "Mercy Hospital" gets).
LOCATION    by comma-separated part: a hospital's name (one ending in a hospital's word:
            "Ashgrove Memorial", "Fenwick Hospital") the stand-in it gets typed HOSPITAL
            (PhysioNet's gold, which has no hospital class, types hospitals LOCATION, and they
            became US cities); a zip code keeps its digits' shape, a 2-letter state
            abbreviation becomes another, two capitals that are none ("GH") two capitals that
            are none either, a state name another state, a street address
            ("12 Main St") a number of as many digits and a street name (its suffix kept), a
            country another country, a world city another, anything else a US city. Parts are
            drawn independently, so "Boston, MA" may become a city of another state.
ID, PHONE   the same characters' shape: each digit a drawn digit, each letter a drawn letter of
            the same case, everything else kept ("(617) 555-1234" stays "(ddd) ddd-dddd");
            drawn run by run (a run of digits or of letters), so an MRN gets one stand-in
            with or without a '#' or a label, and labels ("MRN", "ext", "x") are kept.
AGE         each number from 90 on becomes another of 90 to 99, the rest ("yo") kept; an age
            without digits ("ninety") becomes digits. Numbers under 90 are kept as written:
            HIPAA's Safe Harbor rule lets ages under 90 stand, and research text needs them
            (i2b2 2014 tags every age; i2b2 2006 and PhysioNet only ages over 89).
DATE        shifted by one offset a patient (:meth:`Surrogates.date_offset`), written back in
            the original format; see below.
==========  ==================================================================================

Dates. The offset is 30 to 330 days, earlier or later, drawn from the patient's HMAC and never a
whole number of weeks, so every date of a patient moves by the same number of days (intervals
survive), and a day, a month name alone and a weekday alone always change. Recognised shapes
(separators, zero padding, 2- or 4-digit year, month name or abbreviation and its case, ordinal
suffixes and a leading weekday are all kept): ``3/7/2019``, ``03/07/19``, ``2019-03-07``,
``03-07-2019``, ``20190307``, ``March 7, 2019``, ``Mar. 7th 2019``, ``7 Mar 2019``, ``7 Mar 19``,
``7/Mar/19``,
``7-Mar-2019``, ``05-JAN-10``, ``7th of March``, ``Mar 7``, ``3/7``, ``March 2019``, ``3/2019``,
``12/98`` (month and two-digit year where the day cannot be one), ``2019``, ``'63``, ``March``,
``Monday``; and, only as a whole span, ``92`` (a bare two-digit number is a year, as PhysioNet's
DateYear "92" of "MI '92", whose apostrophe lies outside the span) and ``11th`` or ``the 11th``
(a day alone).

* Numeric dates are read month first (US) unless only day first is a valid date.
* A date without a year is shifted as if in the common year 2001 (as three years in four are,
  so '3/7' moves as '3/7/2019' does; 2/29 as if in 2000); a month and year as if on the 15th;
  a day alone to the day most months of 2001 move it to, never itself (:func:`_day_alone`).
  Four digits that are no year alone and read as a 24-hour time ('0830') are kept.
* A year alone moves as the offset moves its middle day, 2 July (:func:`_year_alone`): into the
  year most of its dates move into, so 'In 2019' agrees with the '3/14/2019' beside it as often
  as one year can. With an offset under half a year (about half the patients) that is the year
  as written, which tells no more than the full dates do: most of them stay in their year too.
* Two-digit years are read with a pivot (00-49: 2000s, 50-99: 1900s), which only matters for
  leap days, and are written back with two digits.
* Zero padding: a date with a zero-padded day or month, and every year-first date, is written
  padded; one without (``12/25/2010``) unpadded (so "12/25/2010" style cannot tell "1/5/2010"
  from "01/05/2010" and writes the former).
* A DATE span that is a pain score, N/10 beside 'pain', 'rates', 'score' or 'scale' ('pain
  7/10'), is kept as written by :meth:`Surrogates.replace` (:func:`_pain_score`).
* A holiday ("Christmas Eve", "Thanksgiving", "4th of July") is a date in a word: it is
  written as "holiday" (in its case), alone or beside a date, since kept it gave the shift away.
* A DATE span that no shape matches has its digits replaced like an ID (its letters too where it
  has no digit, so a word does not survive): no original digit is left, and it is counted in
  :attr:`Surrogates.unparsed_dates`. Digits left over beside a recognised date are replaced and
  counted the same way, except clock times ("3/7/2019 10:30"), which are kept as written.

Not handled: decades ("1990s") and seasons go through that fallback; another word beside a
recognised date ("Spring 2010") is kept as written; a range is shifted date by date; day-first notes
("03/07/2019" meaning 3 July) are read month first. The surrogate for an initial ("J.", or
"JS": two or three capitals without a vowel) is a letter drawn for each letter, so it need not be the initial of the surrogate of "John"; two
originals can draw the same surrogate (about 1 in 700 for two first names of one patient). A
first name whose sex its note contradicts ('her husband Jean', a name the lists give women) gets
a name both sexes bear in that note, and a woman's name in the patient's notes that say nothing
of the sex: the one case of two stand-ins for a name of one patient, where the other choice was a
woman's name for a husband.

Nothing here logs note text: :meth:`Surrogates.replace` logs document ids and offsets only.
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import hmac
import logging
import re
import string
from dataclasses import dataclass
from functools import lru_cache, partial

from itdeid.document import PHI_CLASSES, Document, Span
from itdeid.text.model_text import model_text
from itdeid.featurize.zipf import zipf
from itdeid.resources import load_json, load_table, load_wordlist

logger = logging.getLogger("itdeid.render.surrogate")

#: The version of the stand-in scheme: raised whenever the same original, patient and key can
#: give another stand-in, so ``itdeid deid`` refuses to resume a surrogate folder begun with
#: another (one patient's notes would get two stand-ins for one name). 2: dates,
#: IDs run by run, one draw for both name classes. 3: a year or a day alone moves as most
#: of its dates do, a hospital's name takes its case, a word keeps one stand-in in other forms
#: ('MERCY', 'Mercy Hosp', 'Jordan' first or last), a pain score typed DATE is kept. 4: a North
#: American phone number's area code and exchange can be dialled, its country code 1 is kept.
#: 5: a date without a year moves as the same date of a common year does, backwards too (see
#: :data:`_NO_YEAR`); an abbreviated month that becomes 'May' loses its period ('Sept. 16').
#: 6: two capitals of a place that are no state abbreviation ('GH') become two other capitals,
#: not a state's. 7: a place that is a hospital's name ('Ashgrove Memorial') gets a hospital's
#: stand-in, not a city's; 'Memorial' is a hospital's ending kept like 'Hospital'. 8: a first
#: name's sex is the one both name lists give it; a name they give no sex, or whose sex the note
#: contradicts, gets a name both sexes bear (an unlisted name drew from either sex's).
SURROGATE_SCHEME = 8
#: The message separator of the keyed hash (ASCII unit separator: not in normalised note text).
_SEP = "\x1f"
#: The class both name classes are keyed by (see the module docstring).
NAME_KEY = "NAME"
#: A word at least this frequent in English (Zipf) that is no listed name is an ordinary word.
COMMON_ZIPF = 3.0
#: Date offsets, in days: at least, at most (before the whole-week correction).
OFFSET_DAYS = (30, 329)


# --------------------------------------------------------------------------------------------
# Keyed draws


class _Draw:
    """Integers drawn from ``HMAC-SHA256(key, message)``, extended by counter blocks when one
    message needs more than four draws (a long ID), so every draw depends on the key and the
    message only. 64 bits a draw make the modulo bias negligible."""

    def __init__(self, key: bytes, message: str):
        self._key = key
        self._message = message.encode("utf-8", "surrogatepass")   # a lone surrogate too
        self._pool = hmac.new(key, self._message, hashlib.sha256).digest()
        self._block = 0

    def below(self, n: int) -> int:
        """A number in ``range(n)``."""
        if len(self._pool) < 8:
            self._block += 1
            counter = b"\x1e" + self._block.to_bytes(4, "big")
            self._pool += hmac.new(self._key, self._message + counter, hashlib.sha256).digest()
        value, self._pool = int.from_bytes(self._pool[:8], "big"), self._pool[8:]
        return value % n

    def choice(self, items, avoid: str = "") -> str:
        """An item of ``items``; if it is ``avoid`` (case-folded), the next one, so a surrogate
        is never its original."""
        index = self.below(len(items))
        if items[index].casefold() == avoid.casefold():
            index = (index + 1) % len(items)
        return items[index]


def _normalise(text: str) -> str:
    """Case-folded with whitespace runs as one space: "SMITH" and "Smith" are one original."""
    return " ".join(text.casefold().split())


def _reshape(draw: _Draw, text: str, letters: bool = True) -> str:
    """``text`` with every digit replaced by a drawn digit and (``letters``) every letter by a
    drawn ASCII letter of the same case; anything else kept."""
    out = []
    for char in text:
        if char.isdigit():
            out.append(str(draw.below(10)))
        elif letters and char.isalpha():
            letter = string.ascii_lowercase[draw.below(26)]
            out.append(letter if char.islower() else letter.upper())
        else:
            out.append(char)
    return "".join(out)


def _reshape_new(draw: _Draw, text: str, letters: bool = True, valid=None) -> str:
    """:func:`_reshape`, drawn again while the result equals ``text`` (a one-digit ID draws its
    own digit one time in ten) or ``valid`` refuses it (an IPv4 octet over 255); text without
    digits or letters has nothing to replace."""
    new = text
    for _ in range(20 if valid is None else 1000):
        new = _reshape(draw, text, letters)
        if new.casefold() != text.casefold() and (valid is None or valid(new)):
            return new
    return new


def _split_space(text: str) -> tuple[str, str, str]:
    """(leading whitespace, the rest stripped, trailing whitespace): kept around a surrogate."""
    core = text.strip()
    if not core:
        return text, "", ""
    start = text.index(core)
    return text[:start], core, text[start + len(core):]


def _case_like(original: str, new: str) -> str:
    """``new`` in the case of ``original`` where it is all capitals or all small letters;
    otherwise as the word list writes it."""
    if original.isupper():
        return new.upper()
    if original.islower():
        return new.lower()
    return new


# --------------------------------------------------------------------------------------------
# Word lists


@dataclass(frozen=True)
class _Words:
    first: tuple[str, ...]
    first_by_sex: dict
    sex_of: dict
    last: tuple[str, ...]
    both: tuple[str, ...]       # first names that are last names too ('Jordan')
    both_by_sex: dict           # of each sex
    one_sex: dict               # first names of one sex alone, by sex (:func:`_name_sexes`)
    both_one_sex: dict          # of those, the last names too
    unisex: tuple[str, ...]     # first names both sexes bear
    both_unisex: tuple[str, ...]    # of those, the last names too
    first_set: frozenset
    last_set: frozenset
    cities: tuple[str, ...]
    state_abbrs: tuple[str, ...]
    streets: tuple[str, ...]
    hospital: dict
    places: tuple   # (names, their case-folded set) for states, countries, world cities


#: A first name is one sex's where every list holding it gives that sex at least this share of
#: the name's bearers; a name below it in some list is one both sexes bear ('Jordan', 'Lee').
ONE_SEX_SHARE = 0.9


@lru_cache(maxsize=1)
def _name_sexes() -> dict:
    """Each first name of ``first_names.tsv`` and ``census_first_names.tsv`` (case-folded): 'M'
    or 'F' where every list that holds it gives that sex :data:`ONE_SEX_SHARE` of its weight
    (``first_names.tsv``'s weight column; the census's percentage of each sex's bearers), else
    None: both sexes bear it ('Kelly' 82 % women in the census, 'Lee' 76 % men), or the lists
    disagree."""
    verdicts: dict[str, set] = {}
    for table in ("first_names.tsv", "census_first_names.tsv"):
        weights: dict[str, dict[str, float]] = {}
        for name, sex, weight in load_table("gazetteers", table):
            share = weights.setdefault(name.casefold(), {"M": 0.0, "F": 0.0})
            share[sex] += float(weight)
        for name, share in weights.items():
            total = share["M"] + share["F"]
            verdicts.setdefault(name, set()).add(
                next((sex for sex in "MF" if total and share[sex] >= ONE_SEX_SHARE * total), None))
    return {name: next(iter(found)) if len(found) == 1 else None for name, found in verdicts.items()}


@lru_cache(maxsize=2)
def _words(broad: bool = False) -> _Words:
    """The gazetteer lists, read once a process; ``broad``: names from the census lists."""
    prefix = "census_" if broad else ""
    first_rows = load_table("gazetteers", f"{prefix}first_names.tsv")
    first = tuple(dict.fromkeys(row[0] for row in first_rows))
    by_sex = {sex: tuple(row[0] for row in first_rows if row[1] == sex) for sex in "FM"}
    last = tuple(row[0] for row in load_table("gazetteers", f"{prefix}last_names.tsv"))
    last_set = frozenset(n.casefold() for n in last)
    both = tuple(n for n in first if n.casefold() in last_set)
    both_by_sex = {sex: tuple(n for n in names if n.casefold() in last_set) for sex, names in by_sex.items()}
    states = load_table("gazetteers", "us_states.tsv")
    parts: dict[str, list[str]] = {}
    for kind, part in load_table("gazetteers", "hospital_name_parts.tsv"):
        parts.setdefault(kind, []).append(part)
    streets = load_json("gazetteers", "synth_phrases.json")["street_names"]
    countries = tuple(c for c in load_wordlist("gazetteers", "countries.txt") if "," not in c)
    world_cities = load_wordlist("gazetteers", "world_cities.txt")
    state_names = tuple(row[0] for row in states)
    sexes = _name_sexes()
    return _Words(
        first=first, first_by_sex=by_sex, sex_of={row[0].casefold(): row[1] for row in first_rows},
        last=last, both=both, both_by_sex=both_by_sex,
        one_sex={sex: tuple(n for n in first if sexes.get(n.casefold()) == sex) for sex in "FM"},
        both_one_sex={sex: tuple(n for n in both if sexes.get(n.casefold()) == sex) for sex in "FM"},
        unisex=tuple(n for n in first if sexes.get(n.casefold(), "") is None),
        both_unisex=tuple(n for n in both if sexes.get(n.casefold(), "") is None),
        first_set=frozenset(n.casefold() for n in first),
        last_set=last_set,
        cities=tuple(sorted({row[0] for row in load_table("gazetteers", "us_cities.tsv")})),
        state_abbrs=tuple(row[1] for row in states), streets=tuple(streets) + last,
        hospital={kind: tuple(values) for kind, values in parts.items()},
        places=tuple((names, frozenset(n.casefold() for n in names))
                     for names in (state_names, countries, world_cities)))


def _abbreviation(head: str) -> bool:
    """Whether a hospital name without a suffix is an abbreviation ('MGH', 'BIDMC'), whose
    stand-in is other capitals: 2 to 6 capitals, and of 4 or more no name, city, word of a
    hospital name or everyday word. 'MERCY' was read as one and drew 'RJXYF', where 'Mercy'
    and 'MERCY HOSPITAL' draw one invented name; a word in capitals is the word. 'UCLA' and
    'CHOP' are read as words too (their stand-in is a name), 'LAHEY' still as an abbreviation."""
    if not (head.isalpha() and head.isupper() and 2 <= len(head) <= 6):
        return False
    if len(head) < 4:
        return True
    folded, lexicon = head.casefold(), _words()
    return not (folded in lexicon.first_set or folded in lexicon.last_set
                or folded in _hospital_words() or zipf(folded) >= COMMON_ZIPF)


@lru_cache(maxsize=1)
def _hospital_words() -> frozenset:
    """The case-folded cities and words of hospital names in the gazetteers."""
    words = _words()
    parts = (part for values in words.hospital.values() for value in values for part in value.split())
    return frozenset(w.casefold() for w in (*words.cities, *parts))


@lru_cache(maxsize=1)
def _hospital_suffixes() -> tuple[str, ...]:
    """Endings kept from an original hospital name, longest first so "Regional Medical Center"
    wins over "Medical Center"."""
    words = _words().hospital
    extra = ("Hospital", "Clinic", "Clinics", "Medical Center", "Medical Centre", "Health Center",
             "Health System", "Health Care", "Center", "Centre", "Institute", "Rehab",
             "Cancer Center", "Medical Group", "Associates", "Memorial",
             # abbreviated: 'Mercy Hosp' drew another name than 'Mercy Hospital'
             "Hosp", "Hosp.", "Gen Hosp", "Gen. Hosp.", "Ctr", "Ctr.", "Med Ctr", "Med. Ctr.",
             "Med Center", "Med. Center", "Medical Ctr", "Medical Ctr.")
    # an ending that names whom the hospital serves ("Women's Hospital", "Children's Hospital")
    # is part of the name: kept, it narrowed the stand-in to the few hospitals so named
    suffixes = {s.casefold(): s for s in words["suffix"] + words["facility"] + extra
                if "'" not in s and "\u2019" not in s}
    return tuple(sorted(suffixes.values(), key=lambda s: (-len(s), s)))


def _hospital_suffix(core: str) -> str:
    """The hospital ending ``core`` ends in, as a whole word or words (:func:`_hospital_suffixes`;
    '' where none: 'Ashgrove Memorial' ends in 'Memorial', 'Centreville' in none)."""
    folded = core.casefold()
    return next((s for s in _hospital_suffixes()
                 if folded.endswith(s.casefold())
                 and (len(core) == len(s) or not core[-len(s) - 1].isalnum())), "")


# --------------------------------------------------------------------------------------------
# Names

#: Words of a name span that are kept: titles, degrees, generational suffixes.
_NAME_KEEP = frozenset((
    "dr", "drs", "mr", "mrs", "ms", "miss", "mx", "prof", "professor", "doctor", "md", "phd", "do",
    "rn", "np", "pa", "pac", "crnp", "dds", "dmd", "mph", "facs", "facp", "jr", "sr", "ii", "iii",
    "iv", "and"))
#: Degrees that are also surnames (Vietnamese "Do", Hmong "Pa"): kept only after a comma
#: ("Smith, DO"), so "Linh Do" is replaced whole.
_NAME_KEEP_AFTER_COMMA = frozenset(("do", "pa"))
#: Particles of surnames, kept when written in lower case ('van der Berg', 'da Silva'): a
#: capitalized 'Van' or 'Del' may be a first name.
_PARTICLES = frozenset(("van", "der", "den", "de", "la", "le", "von", "di", "da", "del", "della", "du",
                        "dos", "das", "bin", "ibn", "al", "el", "ten", "ter"))
#: Titles after which a lone word is a last name ("Mr. Smith").
_TITLES = frozenset(("dr", "drs", "mr", "mrs", "ms", "miss", "mx", "prof", "professor", "doctor"))
_LETTERS = r"[^\W\d_]"
_NAME_TOKEN = re.compile(
    rf"(?P<degree>(?<!{_LETTERS})(?i:m\.d|ph\.d|d\.o|r\.n|n\.p|p\.a|d\.d\.s|d\.m\.d)\.?"
    rf"(?!{_LETTERS}))"
    rf"|(?P<word>{_LETTERS}+(?:['’]{_LETTERS}+)*(?:-{_LETTERS}+(?:['’]{_LETTERS}+)*)*)")


#: A possessive ending alone, tagged apart from its name ("'s").
_POSSESSIVE_ALONE = re.compile(r"['’]?[sS]")
_POSSESSIVE = re.compile(r"(.+?)(['’][sS])")


def _possessive(word: str) -> tuple[str, str]:
    """('Okonkwo', "'s") for "Okonkwo's", (word, '') for a word with no possessive ending."""
    match = _POSSESSIVE.fullmatch(word)
    return (match.group(1), match.group(2)) if match else (word, "")


def _kept(text: str, token: re.Match) -> bool:
    """Whether a name word is a title, degree or generational suffix, or a surname's particle
    written in lower case ('van der Berg'), kept as written."""
    if token.group() in _PARTICLES:
        return True
    word = token.group().casefold()
    if word in _NAME_KEEP_AFTER_COMMA:
        return "," in text[:token.start()]
    return word in _NAME_KEEP


#: Two or three capitals without a vowel ('JS', 'MW', 'JRH'): a person's initials, written back
#: as initials (a last name drawn for 'JS' read as 'JIMENEZ').
_INITIALS = re.compile(r"[B-DF-HJ-NP-TV-XZ]{2,3}")


def _names_for(lexicon: _Words, word: str, role: str, cue: str | None = None,
               gendered: bool = True) -> tuple[str, ...]:
    """The names a name word's stand-in is drawn from: a first name of its sex for a first name,
    a last name for a last name; but a word that is a known first name and a known last name
    ('Jordan') draws from the names that are both, of its sex, in either role, so 'Jordan Smith',
    'Mike Jordan' and 'Jordan' alone give it one stand-in (they gave two), which reads as a name
    either way.

    The sex is the one the name lists give the word (:func:`_name_sexes`), and a stand-in is a
    name they give that sex alone ('Alexis', a man's in the gazetteer but mostly a woman's in the
    census, was a man's stand-in). A word they give no sex (an unlisted name, or one both sexes
    bear) draws a name both sexes bear: a husband's unlisted first name drew a woman's name half
    the time. So does a word whose sex the note's ``cue`` contradicts ('M' or 'F': a title or
    relation word before the name, :func:`_sex_cues`), as in 'her husband Jean'. The cue never
    chooses a sex the lists do not give, so a name keeps one stand-in in the notes that say
    'husband' and in those that do not. The gazetteers hold 84 men's names that are both first
    and last names, 9 women's and 13 that both sexes bear: two of a patient's such women's
    names draw one stand-in one time in 9. Without ``gendered`` (the re-substituted training
    copies, whose names the trees read for their shape, not their sex) the draws stay those the
    shipped model was trained on, so its preset still rebuilds it: the gazetteer's last listed
    sex, and all first names for an unlisted one."""
    folded = word.casefold()
    if not gendered:
        sex = lexicon.sex_of.get(folded)
        if folded in lexicon.first_set and folded in lexicon.last_set:
            return lexicon.both_by_sex.get(sex) or lexicon.both
        if role == "first":
            return lexicon.first_by_sex.get(sex, lexicon.first)
        return lexicon.last
    sex = _name_sexes().get(folded)
    if cue and cue != sex:
        sex = None      # the note says the other sex, or the lists say none: a name of both
    if folded in lexicon.first_set and folded in lexicon.last_set:
        return (lexicon.both_one_sex[sex] if sex else lexicon.both_unisex) or lexicon.unisex
    if role == "first":
        return lexicon.one_sex[sex] if sex else lexicon.unisex
    return lexicon.last


#: Titles and relation words that say the sex of the person named right after them.
_SEX_WORDS = {**dict.fromkeys(("mr mister husband son brother father dad grandfather grandson uncle "
                               "nephew boyfriend stepson stepfather").split(), "M"),
              **dict.fromkeys(("mrs ms miss wife daughter sister mother mom mum grandmother "
                               "granddaughter aunt niece girlfriend stepdaughter stepmother").split(), "F")}
#: Words that end the reach of a sex word before a name: 'wife of John' says nothing of John.
_CUE_STOPS = frozenset(("of", "to", "for", "with", "by", "from", "and", "or", "than", "per"))
#: The words and sentence ends a cue is looked for among.
_CUE_TOKEN = re.compile(r"[^\W\d_]+|[.;!?]")


def _sex_cue(text: str, start: int, end: int) -> str | None:
    """'M' or 'F' where a title or relation word (:data:`_SEX_WORDS`) begins the name span
    ``text[start:end]`` ('Mrs. Ann Lee') or stands before it on its line, at most two other words
    between and no sentence end or :data:`_CUE_STOPS` word ('Mr. Lee', 'her husband, retired
    teacher Tom', 'Wife: Ann'); else None. Pronouns are not read: in 'Dr. Tom Lee saw her' the
    pronoun is another person's."""
    first = _CUE_TOKEN.match(text, start, end)
    if first and first.group().casefold() in _SEX_WORDS:
        return _SEX_WORDS[first.group().casefold()]
    line = max(text.rfind("\n", 0, start) + 1, start - 60)
    tokens = _CUE_TOKEN.findall(text, line, start)
    words = 0
    for i in range(len(tokens) - 1, -1, -1):
        low = tokens[i].casefold()
        if low in _SEX_WORDS:
            return _SEX_WORDS[low]
        if low == "." and i and tokens[i - 1].casefold() in _SEX_WORDS:
            continue    # the full stop of 'Mr.'
        if low in ".;!?" or low in _CUE_STOPS or words == 2:
            return None
        words += 1
    return None


def _sex_cues(text: str, spans) -> dict:
    """The sex ``text`` says the bearer of each name word of the name ``spans`` is (case-folded
    word: 'M' or 'F', :func:`_sex_cue`), for every mention of the word in the note alike; a
    word whose mentions say both has none."""
    found: dict[str, set] = {}
    for span in spans:
        cue = _sex_cue(text, span.start, span.end)
        if cue is None:
            continue
        name = model_text(text[span.start:span.end])[0]
        for token in _NAME_TOKEN.finditer(name):
            if token.group("word") and not _kept(name, token):
                for part in _possessive(token.group())[0].split("-"):
                    found.setdefault(part.casefold(), set()).add(cue)
    return {word: cues.pop() for word, cues in found.items() if len(cues) == 1}


def _name_roles(text: str, words: list[re.Match]) -> list[str]:
    """``first``, ``last`` or ``initial`` for each name word, from the name's shape: "Last,
    First" where a comma stands between name words, "Last First" where two words are a known
    last name only and a known first name only, else the last full word is the last name; a
    lone word is a first name only if it is a known first name and no known last name (each
    part of a hyphenated one)."""
    initial = [len(w.group()) == 1 or bool(_INITIALS.fullmatch(w.group())) for w in words]
    comma = text.find(",")
    if (comma >= 0 and any(w.end() <= comma for w in words)
            and any(w.start() > comma for w in words)):
        return ["initial" if one else ("last" if w.end() <= comma else "first")
                for w, one in zip(words, initial)]
    full = [i for i, one in enumerate(initial) if not one]
    roles = ["initial" if one else "first" for one in initial]
    lexicon = _words()

    def only(word: str, names: frozenset, others: frozenset) -> bool:
        # each hyphen-joined part ('Mary-Kate') a name of ``names`` and of no ``others``, a
        # possessive ending aside ("John's" is John's role)
        parts = _possessive(word)[0].casefold().split("-")
        return all(part in names and part not in others for part in parts)
    if len(full) == 2 and only(words[full[0]].group(), lexicon.last_set, lexicon.first_set) \
            and only(words[full[1]].group(), lexicon.first_set, lexicon.last_set):
        roles[full[0]] = "last"         # 'SMITH JOHN' (a header's order): known names say so
    elif len(full) >= 2:
        roles[full[-1]] = "last"
    elif len(full) == 1:
        titled = any(t.strip(".").casefold() in _TITLES for t in re.findall(r"[\w.]+", text))
        first_only = only(words[full[0]].group(), lexicon.first_set, lexicon.last_set)
        if titled or any(initial) or not first_only:
            roles[full[0]] = "last"
    return roles


# --------------------------------------------------------------------------------------------
# Dates

_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
           "October", "November", "December")
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_B = r"(?<![^\W_])"   # not after a letter or digit
_E = r"(?![^\W_])"    # not before a letter or digit
_MON = (r"(?P<mon>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
        r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)(?![^\W\d_])\.?")
_WDAY = (r"(?P<wd>mon(?:day)?|tue(?:s(?:day)?)?|wed(?:nesday)?|thu(?:r(?:s(?:day)?)?)?"
         r"|fri(?:day)?|sat(?:urday)?|sun(?:day)?)(?![^\W\d_])\.?")
_WD_OPT = rf"(?:{_WDAY},?\s*)?"
_DAY = r"(?P<d>\d{1,2})(?P<ord>st|nd|rd|th)?"
# A two-digit year after a month name only behind an apostrophe or hyphen ("Jan '10",
# "5-Jan-10"), so "Jan 5 10:30" is not read as 2010.
_YEAR = r"['’]?(?P<y>\d{4}|(?<=['’-])\d{2})"
#: Date shapes, most specific first; the first that matches (and is a valid date) wins.
_DATE_PATTERNS = tuple(re.compile(p, re.IGNORECASE) for p in (
    # a range of days in one month: 'March 7-9, 2019', 'Jan 5 through 9', 'March 7th and 9th'
    _B + _WD_OPT + _MON + r"[\s-]*" + _DAY + r"\s*(?:-|–|through|thru|to|and|&)\s*"
    + r"(?P<d2>\d{1,2})(?P<ord2>st|nd|rd|th)?" + r"(?:(?:\s*,\s*|\s+)" + _YEAR + r")?" + _E,
    _B + _WD_OPT + _MON + r"[\s-]*" + _DAY + r"(?:\s*,\s*|\s+|-)" + _YEAR + _E,
    # a two-digit year after the day, not a clock's hour: 'Dec 31 99', 'Dec. 31st, 99'
    _B + _WD_OPT + _MON + r"[\s-]*" + _DAY + r"(?:\s*,\s*|\s+)(?P<y>\d{2})(?![^\W_]|:)",
    _B + _WD_OPT + _DAY + r"(?:\s+of)?[\s-]*" + _MON + r"(?:\s*,\s*|[\s-]+)?" + _YEAR + _E,
    # a two-digit year after the month, not a clock's hour: '14 Mar 19' (its '19' was drawn as
    # leftover digits, the year scrambled), and '14/Mar/19'
    _B + _WD_OPT + _DAY + r"[ \t]+" + _MON + r"[ \t]+(?P<y>\d{2})(?![^\W_]|:)",
    _B + _DAY + r"/" + _MON + r"/(?P<y>\d{4}|\d{2})" + _E,
    _B + _WD_OPT + r"(?P<y>\d{4})(?P<s>[-/.])(?P<m>\d{1,2})(?P=s)(?P<d>\d{1,2})(?:(?=T\d)|" + _E + ")",   # ISO 'T10:30'
    _B + r"(?P<y>\d{4})(?P<s>[-/])(?P<m>0[1-9]|1[0-2])" + _E,                           # '2019-03'
    _B + r"(?P<y>\d{4})\s+" + _MON + r"\s+" + _DAY + _E,                                # '2019 March 7'
    # a range of days written with numbers: '3/14-16/2019', '3/14-16' (its last day was drawn as
    # leftover digits: '9/14-71/2018')
    _B + _WD_OPT + r"(?P<m>\d{1,2})/(?P<d>\d{1,2})\s*[-–]\s*(?P<d2>\d{1,2})(?:/(?P<y>\d{4}|\d{2}))?"
    + r"(?![/.]?\d)" + _E,
    _B + _WD_OPT + r"(?P<m>\d{1,2})(?P<s>[-/.])(?P<d>\d{1,2})(?P=s)(?P<y>\d{4}|\d{2})" + _E,
    _B + r"(?P<y>\d{4})(?P<m>\d{2})(?P<d>\d{2})" + _E,
    _B + _WD_OPT + _MON + r"[\s-]*(?:the\s+)?" + _DAY + _E,
    _B + _WD_OPT + _DAY + r"(?:\s+of)?[\s-]*" + _MON + _E,
    _B + _MON + r"(?:\s*,\s*|[\s-]+)?" + _YEAR + _E,
    _B + _MON + r"\s+(?P<y>\d{2})" + _E,            # 'Dec 99': a number no day can be
    # 'Tuesday the 7th': a weekday and its day ('Friday 3/8' is a weekday and a month/day)
    _B + _WDAY + r",?\s+(?:the\s+)?" + _DAY + r"(?![/.-]\d)" + _E,
    _B + r"(?P<m>\d{1,2})(?P<s>[-/])(?P<y>\d{4})" + _E,
    _B + _WD_OPT + r"(?P<m>\d{1,2})/(?P<d>\d{1,2})" + _E,
    _B + r"(?P<m>\d{1,2})/(?P<y>\d{2})" + _E,
    r"['’](?P<y>\d{2})" + _E,
    _B + r"(?P<y>1[6-9]\d\d|20\d\d|21\d\d)" + _E,   # a year alone; '0830', '2300' are clock times
    _B + _MON + _E,
    _B + _WDAY + _E,
))
#: A holiday: a date in a word. Kept beside a shifted date it gave the shift away ('Thanksgiving
#: 2018 (11/22/2018)' written back as 'Thanksgiving 2019 (3/22/2019)'), and scrambled alone it
#: was gibberish ('Chwguspxt'): it is written back as the word 'holiday'.
_HOLIDAY = (r"(?P<hol>new[ \t]+year(?:['’]?s)?(?:[ \t]+(?:eve|day))?|christmas(?:[ \t]+(?:eve|day))?"
            r"|x-?mas(?:[ \t]+eve)?|thanksgiving(?:[ \t]+day)?|easter(?:[ \t]+(?:sunday|monday))?"
            r"|good[ \t]+friday|hallowe['’]?en|valentine['’]?s(?:[ \t]+day)?|independence[ \t]+day"
            r"|(?:fourth|4th)[ \t]+of[ \t]+july|memorial[ \t]+day|labou?r[ \t]+day"
            r"|veterans['’]?[ \t]+day|columbus[ \t]+day|presidents['’]?[ \t]+day"
            r"|(?:martin[ \t]+luther[ \t]+king(?:[ \t]+jr\.?)?|mlk)[ \t]+day|juneteenth"
            r"|mother['’]?s[ \t]+day|father['’]?s[ \t]+day|st\.?[ \t]+patrick['’]?s[ \t]+day"
            r"|hanukk?ah|chanukk?ah|passover|ramadan|eid[ \t]+al[- ](?:fitr|adha)|yom[ \t]+kippur"
            r"|rosh[ \t]+hashanah?|diwali|kwanzaa|boxing[ \t]+day|(?:lunar|chinese)[ \t]+new[ \t]+year)"
            r"(?![^\W_])")
_HOLIDAY_WORDS = re.compile(_B + _HOLIDAY, re.IGNORECASE)
#: A weekday or holiday written just before a date span (on its line, a comma or an opening
#: parenthesis at most between),
#: or just after it (a comma or parentheses at most around it: '3/14/2019 (Thursday)'; a
#: weekday there only written in full, since '3/14, sat up in chair' is no weekday): the span
#: grows to hold it, and it is shifted with the date.
_DATE_WORD_BEFORE = re.compile(_B + rf"(?:{_WDAY}|{_HOLIDAY}),?[ \t]*\(?[ \t]*\Z", re.IGNORECASE)
_DATE_WORD_AFTER = re.compile(r"(?:[ \t]*,[ \t]*|[ \t]*\([ \t]*|[ \t]+)(?:(?P<wd>"
                              + "|".join(_WEEKDAYS) + rf")(?![^\W_])|{_HOLIDAY})(?:[ \t]*\))?",
                              re.IGNORECASE)
#: Shapes only read as a date when they are the whole span: a bare two-digit number is a year
#: (PhysioNet's DateYear "92" of "MI '92", the apostrophe outside the span), an ordinal a day
#: ('the 14th' too: read nowhere, its digits were drawn, 'the 92th').
_WHOLE_DATE_PATTERNS = (re.compile(r"(?P<y>\d{2})"),
                        re.compile(r"(?:the\s+)?(?P<d>\d{1,2})(?P<ord>st|nd|rd|th)", re.IGNORECASE))
#: Clock times beside a date are kept: they identify nothing once the date is shifted ("10:30",
#: "10:30:15", and four digits of a 24-hour clock that are no year alone: "0830", "2300").
_CLOCK = re.compile(r"(?<!\d)(\d{1,2}:\d{2}(?::\d{2})?|(?:[01]\d|2[0-3])[0-5]\d)(?!\d)")
#: A run of digits or of letters: the unit an ID or phone stand-in is drawn by.
_ID_RUN = re.compile(r"\d+|[^\W\d_]+")
#: Words written beside an identifier that are no part of it.
_ID_LABELS = frozenset((
    "mrn", "mr", "id", "no", "nr", "num", "number", "ext", "x", "tel", "ph", "phone", "fax", "pager",
    "cell", "acct", "account", "ssn", "dob", "med", "rec", "record", "unit", "chart", "pt", "patient"))
#: An IPv4 address and a US social security number, whose stand-ins must be ones too
#: ('192.168.1.20' was drawn as '796.767.9.81', an SSN with group '00', which is never issued).
_IPV4 = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}")
_SSN = re.compile(r"\d{3}-\d{2}-\d{4}")
#: A North American phone number: its area code and exchange are the first two runs of three
#: digits (after a leading country code 1, which is kept).
_NANP = re.compile(r"(?:\+?1[ .-]?)?\(?\d{3}\)?[ .-]?\d{3}[ .-]?\d{4}(?:\s*(?:x|ext\.?|extension)\s*\d{1,5})?",
                   re.IGNORECASE)


def _valid_part(kind: str | None, index: int, part: str) -> bool:
    """Whether ``part``, the ``index``-th run of digits of an IPv4 address or an SSN (``kind``
    'ip' or 'ssn'), can stand there: an octet up to 255 without a leading zero; an SSN's area
    not 000, 666 or 9xx, its group not 00, its serial not 0000."""
    if kind == "ip":
        return int(part) <= 255 and (len(part) == 1 or part[0] != "0")
    if kind == "ssn":
        return {0: part not in ("000", "666") and part[0] != "9", 1: part != "00",
                2: part != "0000"}[index]
    if kind in ("nanp", "nanp1") and index - (kind == "nanp1") in (0, 1):
        # a North American area code or exchange ('nanp1': after the country code 1): [2-9]XX,
        # not N11 (a drawn 057 or 811 is no number anyone could dial)
        return len(part) == 3 and part[0] not in "01" and part[1:] != "11"
    return True


#: An email address or a URL, in a span of any class.
_WEB_ADDRESS = re.compile(r"[^\W_][\w.+-]*@[^\W_][\w-]*\.|(?:https?://|www\.)[^\W_]"
                          r"|[^\W_][\w-]*\.(?:com|org|net|edu|gov)(?![^\W_])", re.IGNORECASE)
#: The parts of an address kept: schemes, 'www' and the common top-level domains.
_WEB_LABELS = frozenset((
    "http", "https", "www", "com", "org", "net", "edu", "gov", "mil", "int", "info", "biz", "io", "us",
    "uk", "ca", "au", "de", "fr", "nl", "html", "htm", "php", "aspx"))
#: An age over 89 in words ('ninety-two', 'a hundred and one'): written back as digits.
_OVER_89_WORDS = re.compile(r"ninety|hundred", re.IGNORECASE)
#: Words a DATE or AGE span may hold beside its numbers, kept as written: month and weekday
#: names and their short forms, ordinal endings, and the words of dates and ages.
_DATE_AND_AGE_WORDS = frozenset(
    [m.casefold() for m in _MONTHS] + [m[:3].casefold() for m in _MONTHS] + ["sept"]
    + [d.casefold() for d in _WEEKDAYS] + [d[:3].casefold() for d in _WEEKDAYS]
    + "tues thur thurs st nd rd th of the and to through thru from on at in until since by am pm a m "
      "year years yr yrs y o yo yof yom old aged age ninety hundred day days week weeks month months "
      "ago about approx around early late mid s".split())
#: A pain score ('pain 7/10'), which the trees sometimes type DATE: N/10 with N from 0 to 10.
_PAIN_SCORE = re.compile(r"(?:10|\d)/10")
#: Words that make an N/10 near them a score, not a date, and how many words away they may stand
#: (before, after), on its line: pain ('cp 7/10' is chest pain) and the ventilator's pressure
#: support over PEEP ('PEEP/PS 5/10', 'CPAP 5/10').
_PAIN_WORDS = frozenset(("pain", "painful", "score", "scale", "rate", "rates", "rated", "rating",
                         "cp", "discomfort", "ache", "headache", "peep", "ps", "psv", "cpap", "bipap"))
_PAIN_REACH = (4, 2)
#: A word just before an N/10 that makes it a date whatever stands near ('pain since 3/10').
_DATE_BEFORE = frozenset(("on", "since", "until", "till", "by", "dated", "before", "after"))


def _pain_score(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]``, a DATE span, is a pain score: N/10 with a word of
    :data:`_PAIN_WORDS` up to four words before or two after it on its line, and no word of
    :data:`_DATE_BEFORE` just before it. Shifted, 'pain 7/10' became 'pain 5/11'; a score
    identifies no one. Narrow on purpose: every N/10 from 1/10 to 10/10 is also a date, and a
    date kept as written is PHI, so '1/10' without such words, and 'pain since 1/10', move."""
    if not _PAIN_SCORE.fullmatch(text[start:end]):
        return False
    line_start = max(text.rfind("\n", 0, start), text.rfind("\r", 0, start)) + 1
    line_end = min((i for i in (text.find("\n", end), text.find("\r", end)) if i >= 0), default=len(text))
    before = [w.casefold() for w in re.findall(r"[^\W\d_]+", text[line_start:start])]
    after = [w.casefold() for w in re.findall(r"[^\W\d_]+", text[end:line_end])]
    if before and before[-1] in _DATE_BEFORE:
        return False
    reach_before, reach_after = _PAIN_REACH
    return any(w in _PAIN_WORDS for w in before[-reach_before:] + after[:reach_after])


#: Two-digit years below the pivot are 20xx, the others 19xx.
YEAR_PIVOT = 50
#: The year in which dates without a year are shifted: a common year between two common years,
#: as most years lie, so '3/7' moves as the '3/7/2019' of the same note does, forwards and
#: backwards (2001, the year after a leap year, moved 'Jan. 3' back over February 29 of 2000:
#: 'Feb. 15' beside 'Jan. 3, 2019' -> 'Feb. 14, 2018'); February 29 (and the check of whether
#: a day exists) in a leap year.
_NO_YEAR = 2002
_LEAP_NO_YEAR = 2000


def _index_of(token: str, names: tuple[str, ...]) -> int:
    """The index of the month or weekday whose first three letters start ``token``."""
    head = token[:3].casefold()
    return next(i for i, name in enumerate(names) if name[:3].casefold() == head)


def _name_like(original: str, names: tuple[str, ...], index: int, abbreviated: bool = False) -> str:
    """``names[index]`` written as ``original`` is: in full or as a 3-letter abbreviation
    ("May" counts as full unless the date's layout is ``abbreviated``: '05-MAY-10'), in its case."""
    full = original.casefold() in {name.casefold() for name in names} and not (
        abbreviated and len(original.rstrip(".")) == 3)
    return _case_like(original, names[index] if full else names[index][:3])


def _holiday_like(original: str) -> str:
    """The word 'holiday' in the case of the holiday ``original`` ('Christmas' -> 'Holiday')."""
    return ("HOLIDAY" if original.isupper() else "Holiday" if original[0].isupper()
            else "holiday")


def _ordinal(day: int) -> str:
    return "th" if 10 <= day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")


def _scrub(draw: _Draw, text: str) -> str:
    """Text beside a recognised date: clock times ("10:30") kept, other digits drawn."""
    return "".join(piece if index % 2 else _reshape(draw, piece, letters=False)
                   for index, piece in enumerate(_CLOCK.split(text)))


def _full_year(text: str) -> int:
    value = int(text)
    if len(text) == 2:
        return value + (2000 if value < YEAR_PIVOT else 1900)
    return value


def _valid(year: int, month: int, day: int) -> bool:
    try:
        _dt.date(year, month, day)
    except ValueError:
        return False
    return True


def _year_alone(year: int, offset: int) -> int:
    """The year a year written alone becomes: the year of its 2 July moved by ``offset`` days.

    Its day is unknown, and the patient's full dates of that year land in the year itself or
    the next (or the one before) in the share the offset gives; the middle day lands where most
    of them do. Moving every year alone by one year (as this did) disagreed with most of them
    when the offset is under half a year ('In 2020 ... 5/7/2019' for 'In 2019 ... 3/14/2019').
    To one who knows the real year, this tells whether the offset is over half a year (and then
    its sign); a single real full date tells the whole offset, so it reveals nothing new."""
    return (_dt.date(year, 7, 2) + _dt.timedelta(days=offset)).year


def _day_alone(day: int, offset: int) -> int:
    """The day a day of the month written alone ('the 14th') becomes: the day that this day of
    most months of the common year moves to by ``offset`` days, leaving out months where it
    lands on itself (a kept day tells that the offset is a whole number of months); between
    months as common, the earliest's. ``ValueError`` where no month has the day.

    Its month is unknown, and where a day lands depends on the lengths of the months the offset
    passes over. The day most months agree on agrees with the patient's dates of an unknown
    month ('March 14' beside 'the 14th', :data:`_NO_YEAR`) as often as one day can; shifted as
    a day of January (as this did), 'the 14th' disagreed with them wherever February lay
    between."""
    landed = [(_dt.date(_NO_YEAR, month, day) + _dt.timedelta(days=offset)).day
              for month in range(1, 13) if _valid(_NO_YEAR, month, day)]
    moved = [new for new in landed if new != day]
    return max(moved, key=moved.count)


def _shifted(month, day, year, offset: int, weekday: bool):
    """(new date or None, new year or None) for the parts read from a date: a full or partial
    date moved by ``offset`` days, a year alone by :func:`_year_alone`; None where the parts
    are no date."""
    try:
        if month is not None:
            base = _dt.date(year if year is not None else _LEAP_NO_YEAR if (month, day) == (2, 29)
                            else _NO_YEAR, month, day if day is not None else 15)
            new = base + _dt.timedelta(days=offset)
            return new, new.year
        if year is not None:
            return None, _year_alone(year, offset)
        if day is not None:   # a day alone ("the 11th"): only the new date's day is read
            return _dt.date(_NO_YEAR, 1, _day_alone(day, offset)), None
    except (ValueError, OverflowError):
        return None
    return (None, None) if weekday else None


def _shift_match(match: re.Match, offset: int) -> str | None:
    """The text of a date ``match`` shifted by ``offset`` days, each part written as the
    original wrote it; None where the parts are no valid date (another shape is tried)."""
    text_of = {name: value for name, value in match.groupdict().items() if value is not None}
    numeric_month, day_group, month_group = "m" in text_of, "d", "m"
    month = (_index_of(text_of["mon"], _MONTHS) + 1 if "mon" in text_of
             else int(text_of["m"]) if numeric_month else None)
    day = int(text_of["d"]) if "d" in text_of else None
    year = _full_year(text_of["y"]) if "y" in text_of else None
    check_year = year if year is not None else _LEAP_NO_YEAR
    if (numeric_month and day is not None and not _valid(check_year, month, day)
            and _valid(check_year, day, month) and match.start("m") < match.start("d")):
        month, day, day_group, month_group = day, month, "m", "d"   # day first: 25/12/2010
    shifted = _shifted(month, day, year, offset, "wd" in text_of)
    if shifted is None:
        return None
    new, new_year = shifted
    year_first = numeric_month and "y" in text_of and match.start("y") < match.start("m")
    padded = year_first or any(text_of[g].startswith("0") for g in ("m", "d") if g in text_of)
    parts, ends = {}, {}
    if "wd" in text_of:
        parts["wd"] = _name_like(text_of["wd"], _WEEKDAYS,
                                 (_index_of(text_of["wd"], _WEEKDAYS) + offset) % 7)
    if "mon" in text_of:
        # a month glued to its numbers ('05-MAY-10', '7MAY2019') is the 3-letter layout
        glued = any(c.isdigit() for c in match.group()) and not any(c.isspace() for c in match.group())
        parts["mon"] = _name_like(text_of["mon"], _MONTHS, new.month - 1, abbreviated=glued)
        if (parts["mon"].casefold() == "may" and text_of["mon"].casefold() != "may"
                and match.string[match.end("mon"):match.end("mon") + 1] == "."):
            ends["mon"] = match.end("mon") + 1     # 'Sept. 16' -> 'May 15', not 'May. 15'
    if numeric_month:
        parts[month_group] = f"{new.month:02d}" if padded else str(new.month)
    if day is not None:
        parts[day_group] = f"{new.day:02d}" if padded else str(new.day)
        if "ord" in text_of:
            parts["ord"] = _case_like(text_of["ord"], _ordinal(new.day))
    if "d2" in text_of:   # the range's last day, in the first day's month and year
        last = _shifted(month, int(text_of["d2"]), year, offset, False)
        if last is None or last[0] is None:
            return None
        parts["d2"] = str(last[0].day)
        if "ord2" in text_of:
            parts["ord2"] = _case_like(text_of["ord2"], _ordinal(last[0].day))
    if year is not None:
        parts["y"] = f"{new_year % 100:02d}" if len(text_of["y"]) == 2 else str(new_year)
    return _rewrite(match, parts, ends)


def _rewrite(match: re.Match, parts: dict[str, str], ends: dict[str, int] | None = None) -> str:
    """The matched text with the named groups replaced, everything between them kept; a part
    in ``ends`` replaces the text up to that offset instead of its group's end."""
    out, position = [], match.start()
    for name in sorted(parts, key=match.start):
        out += [match.string[position:match.start(name)], parts[name]]
        position = (ends or {}).get(name, match.end(name))
    out.append(match.string[position:match.end()])
    return "".join(out)


def _date_pieces(text: str, offset: int) -> list[tuple[str, bool]]:
    """``text`` cut into (piece, is_date): recognised dates already shifted, the stretches
    between them as written, for the caller to scrub."""
    lead, core, trail = _split_space(text)
    for pattern in _WHOLE_DATE_PATTERNS:
        match = pattern.fullmatch(core)
        new = _shift_match(match, offset) if match else None
        if new is not None:
            return [(piece, is_date) for piece, is_date in
                    ((lead, False), (new, True), (trail, False)) if piece]
    pieces, position, last = [], 0, 0
    while position < len(text):
        for pattern in _DATE_PATTERNS:
            match = pattern.match(text, position)
            new = _shift_match(match, offset) if match else None
            if new is not None:
                pieces += [(text[last:position], False), (new, True)]
                position = last = match.end()
                break
        else:
            position += 1
    pieces.append((text[last:], False))
    return [(piece, is_date) for piece, is_date in pieces if piece]


# --------------------------------------------------------------------------------------------
# Locations

_ZIP = re.compile(r"\d{5}(?:-\d{4})?")
_STREET = re.compile(r"(?P<number>\d+[A-Za-z]?)(?P<space>\s+)(?P<name>.+)")
#: Street suffixes kept from an address (the gazetteer's and their usual abbreviations).
_STREET_SUFFIXES = frozenset((
    "st", "street", "ave", "av", "avenue", "rd", "road", "dr", "drive", "blvd", "boulevard", "ln",
    "lane", "ct", "court", "pl", "place", "hwy", "highway", "pkwy", "parkway", "ter", "terrace",
    "sq", "square", "cir", "circle", "way"))
_DIRECTIONS = frozenset(("n", "s", "e", "w", "ne", "nw", "se", "sw", "north", "south", "east",
                         "west"))
#: The words that label a unit of an address.
_UNIT_LABEL = r"apt\.?|apartment|suite|ste\.?|unit|room|rm\.?|floor|#"
_UNIT = re.compile(rf"(?i)(?P<label>{_UNIT_LABEL})(?P<rest>.*)")
_TRAILING_STATE = re.compile(r"(?P<head>.*?\S)(?P<space>\s+)(?P<tail>[A-Z]{2})")
#: A unit after a street address ('... Apt 3', '... Suite 200').
_TRAILING_UNIT = re.compile(rf"(?P<head>\d.*?\S)(?P<space>\s+)(?P<tail>(?i:{_UNIT_LABEL})\s*\S*\d\S*)")
#: A number behind a label that is no name: a post office box, a road number.
_LABELLED_NUMBER = re.compile(r"(?P<label>(?i:p\.?\s?o\.?\s?box|post office box|route|rte\.?|highway|hwy\.?"
                              r"|interstate|i-)\s*)(?P<number>\d+[A-Za-z]?)")
#: The country of the notes, kept: Safe Harbor removes areas smaller than a state only.
_HOME_COUNTRY = frozenset(("usa", "u.s.a.", "u.s.a", "us", "u.s.", "united states",
                           "united states of america"))
_TRAILING_ZIP = re.compile(r"(?P<head>.*?\S)(?P<space>\s+)(?P<tail>\d{5}(?:-\d{4})?)")


# --------------------------------------------------------------------------------------------
# The surrogate generator


class Surrogates:
    """Realistic, consistent, keyed surrogates for PHI (see the module docstring).

    Parameters
    ----------
    key : bytes
        The secret that selects every surrogate and date offset (for example
        ``secrets.token_bytes(32)``, kept apart from the output). The same key gives the same
        output across runs and processes; without it, the mapping cannot be reversed by guessing
        an original and hashing it. Whoever holds it can undo every date shift and test guessed
        originals against surrogates, so keep it as secret as the notes; losing it only means
        later runs cannot continue the same mapping.
    broad_names : bool, default False
        Draw names from the 1990 US Census lists (about 5,500 first names and 89,000 surnames)
        instead of the gazetteers' 700 and 1,000: the varied stand-ins of training-time
        re-substitution (:mod:`itdeid.estimators.resubstitute`).
    common_names : float, default 0.0
        With ``broad_names``, the share of name words drawn from the gazetteers' common names
        instead (each word's own keyed draw decides), so the stand-ins are as often ordinary
        words as real names are.

    Attributes
    ----------
    unparsed_dates : int
        DATE spans (or leftover digits beside a date) that no date shape matched and that were
        replaced character by character instead, since this instance was made. Each worker
        process counts its own.
    """

    def __init__(self, key: bytes, broad_names: bool = False, common_names: float = 0.0):
        if not isinstance(key, (bytes, bytearray)) or not key:
            raise ValueError("the surrogate key must be a non-empty bytes secret")
        self._key = bytes(key)
        self.broad_names = broad_names
        self.common_names = common_names
        self.unparsed_dates = 0

    def __repr__(self) -> str:
        return "Surrogates(key=<secret>)"

    # keyed draws
    def _draw(self, patient: str, cls: str, normalised: str) -> _Draw:
        """The draw of ``normalised`` in ``cls`` (:data:`NAME_KEY` for both name classes)."""
        return _Draw(self._key, f"{patient}{_SEP}{cls}{_SEP}{normalised}")

    def date_offset(self, patient: str) -> int:
        """The patient's date shift in days: ±30..330, never a multiple of 7 (so weekdays
        change too), drawn from the key and the patient alone."""
        draw = self._draw(patient, "DATE-OFFSET", "")   # not a class: no original collides
        low, high = OFFSET_DAYS
        days = low + draw.below(high - low + 1)
        if days % 7 == 0:
            days += 1
        return days if draw.below(2) else -days

    # public API
    def surrogate(self, patient: str, cls: str, original: str, cues: dict | None = None) -> str:
        """The surrogate of ``original``, a PHI string of class ``cls`` in the notes of
        ``patient`` (the patient id, or the document id for a note without one); ``cues``: the
        sex its note says each name word's bearer is (:func:`_sex_cues`; default: what a title
        in ``original`` says)."""
        if cls not in PHI_CLASSES:
            raise ValueError(f"PHI class must be one of {', '.join(PHI_CLASSES)}, got {cls!r}")
        if not any(c.isalnum() for c in original):
            return original     # whitespace or punctuation alone identifies no one
        # read as the model reads it (ASCII separators, no invisible characters, accents
        # composed): '03∕14∕2019' is a date to shift, not digits to draw at random
        # ('66∕79∕2018'), and a decomposed 'Hélène' one name, not three pieces
        original = model_text(original)[0]
        if _WEB_ADDRESS.search(original):
            # an email or URL keeps its form whatever class the model gave it (a name or a
            # town drawn for 'jsmith@partners.org' is no address)
            return self._shape(str(patient), "ID", original, _WEB_LABELS)
        if cls in ("PATIENT", "DOCTOR"):
            # one key for both name classes: a surname the model types PATIENT in one place and
            # DOCTOR in another ('Mr. Quintanilla', 'Quintanilla's wife') is one person's name
            if cues is None:
                cues = _sex_cues(original, [Span(0, len(original), cls)])
            return self._name(str(patient), NAME_KEY, original, cues)
        method = {"HOSPITAL": self._hospital, "LOCATION": self._location, "DATE": self._date,
                  "ID": self._shape, "PHONE": self._shape, "AGE": self._age}[cls]
        return method(str(patient), cls, original)

    def replace(self, document: Document, spans: list[Span],
                weekdays: bool = True) -> tuple[str, list[Span]]:
        """The text of ``document`` with each span replaced by its surrogate, and the spans
        re-based onto that text (same classes and subtypes), so the output can be annotated.

        ``spans`` must lie in the text and not overlap (``ValueError`` otherwise, naming the
        document and offsets). The patient is ``document.patient``, else the document id. With
        ``weekdays``, a weekday or holiday just before or after a DATE span is replaced with it
        (its span grows to hold it: :data:`_DATE_WORD_BEFORE`, :data:`_DATE_WORD_AFTER`);
        re-substituted training copies leave the gold spans as they are. A DATE span that is a
        pain score ('pain 7/10', :func:`_pain_score`) is kept as written.
        """
        spans = sorted(spans)
        Document(document.id, document.text, spans).check_spans()
        patient = document.patient or document.id
        # what the note says of its names' sexes, alike for every mention of a name in it
        cues = {} if self.broad_names else _sex_cues(
            document.text, [s for s in spans if s.type in ("PATIENT", "DOCTOR")])
        pieces, new_spans, position, shift = [], [], 0, 0
        for index, span in enumerate(spans):
            score = span.type == "DATE" and _pain_score(document.text, span.start, span.end)
            if weekdays and span.type == "DATE" and not score:
                # 'Monday 3/4/2019' or '3/4/2019 (Monday)' with the date alone tagged: the
                # weekday kept beside the shifted date told the real date's weekday, and the
                # shift mod 7 (a holiday the whole shift)
                before = _DATE_WORD_BEFORE.search(document.text, position, span.start)
                limit = spans[index + 1].start if index + 1 < len(spans) else len(document.text)
                after = _DATE_WORD_AFTER.match(document.text, span.end, limit)
                span = Span(before.start() if before else span.start,
                            after.end() if after else span.end, span.type, span.subtype)
            original = document.text[span.start:span.end]
            unparsed = self.unparsed_dates
            new = original if score else self.surrogate(patient, span.type, original, cues)
            if self.unparsed_dates != unparsed:
                logger.debug("document %s: date %d-%d not parsed; replaced character by "
                             "character", document.id, span.start, span.end)
            pieces += [document.text[position:span.start], new]
            start = span.start + shift
            new_spans.append(Span(start, start + len(new), span.type, span.subtype))
            shift += len(new) - len(original)
            position = span.end
        pieces.append(document.text[position:])
        return "".join(pieces), new_spans

    # ID, PHONE
    def _shape(self, patient: str, cls: str, original: str, labels: frozenset | None = None) -> str:
        """Same characters' shape: each run of digits or of letters drawn for itself (so an MRN
        gets one stand-in whether the span is '4417392', '#4417392' or 'MRN 4417392'), the
        labels of :data:`_ID_LABELS` ('MRN', 'ext', the 'x' of 'x4-5521') and punctuation kept.
        An IPv4 address, an SSN and a North American phone number get parts that can be one
        (:func:`_valid_part`: no area code 057 or 811), and a phone number keeps its country
        code 1."""
        out, position = [], 0
        kind = "ip" if _IPV4.fullmatch(original) else "ssn" if _SSN.fullmatch(original) else None
        if kind is None and cls == "PHONE" and _NANP.fullmatch(original.strip()):
            kind = "nanp1" if re.match(r"\s*\+?1(?!\d)", original) else "nanp"
        for index, run in enumerate(_ID_RUN.finditer(original)):
            out.append(original[position:run.start()])
            word = run.group()
            kept = word.isalpha() and word.casefold() in (_ID_LABELS if labels is None else labels)
            if kept or (kind == "nanp1" and index == 0):     # a label; the country code 1
                out.append(word)
            else:
                out.append(_reshape_new(self._draw(patient, cls, word.casefold()), word,
                                        valid=partial(_valid_part, kind, index) if kind else None))
            position = run.end()
        out.append(original[position:])
        return "".join(out)

    # AGE
    def _age(self, patient: str, cls: str, original: str) -> str:
        """Each number from 90 on becomes 90..99 (never itself), drawn for that number, so "92"
        in "92 yo" and in "92-year-old" agree; numbers under 90 and the text around are kept."""
        def number(match: re.Match) -> str:
            if int(match.group()) < 90:
                return match.group()
            value = 90 + self._draw(patient, cls, str(int(match.group()))).below(10)
            if str(value) == match.group():
                value = 90 + (value - 89) % 10
            return str(value)

        # a decade ('in her 90s') is already the aggregate HIPAA allows, and is kept
        new, count = re.subn(r"\d+(?!['’]?s(?![^\W_]))", number, original)
        if count or any(c.isdigit() for c in original):
            return self._other_words(patient, new)
        if not _OVER_89_WORDS.search(original):
            return original     # no age over 89 in it ('eighty', 'elderly', an empty span)
        return str(90 + self._draw(patient, cls, _normalise(original)).below(10))

    # DATE
    def _date(self, patient: str, cls: str, original: str) -> str:
        """Shifted by the patient's offset in the original format, a holiday written as
        'holiday'; what is left unparsed is replaced character by character (digits always,
        letters too if nothing parsed)."""
        original, holidays = _HOLIDAY_WORDS.subn(lambda m: _holiday_like(m.group()), original)
        pieces = _date_pieces(original, self.date_offset(patient))
        draw = self._draw(patient, cls, _normalise(original))
        if not any(is_date for _, is_date in pieces):
            if _CLOCK.fullmatch(original.strip()):
                return original        # a time of day ('1430') the model tagged with its date
            if holidays and not any(c.isdigit() for c in original):
                return original        # 'Christmas Eve' -> 'holiday': nothing else to shift
            self.unparsed_dates += 1   # letters too only where no digit carries the date
            digits = any(c.isdigit() for c in original)
            new = _reshape_new(draw, original, letters=not digits)
            return self._other_words(patient, new) if digits else new
        leftover = "".join(piece for piece, is_date in pieces if not is_date)
        if any(c.isdigit() for c in _CLOCK.sub("", leftover)):
            self.unparsed_dates += 1
        return "".join(piece if is_date else _scrub(draw, self._other_words(patient, piece))
                       for piece, is_date in pieces)

    def _other_words(self, patient: str, text: str) -> str:
        """``text``, beside the numbers of a DATE or AGE span, with each word that may be a name
        replaced as a last name (one keyed draw with the name classes): a known first or last
        name, or a word rarer than everyday English. The trees sometimes type a name and the
        date after it as one DATE span, and its surrogate kept the name ('John Smith
        07/03/2018'). Date and age words and common words stay."""
        lexicon = _words()

        def word(match: re.Match) -> str:
            found = match.group()
            low = found.casefold()
            if low in _DATE_AND_AGE_WORDS or (low not in lexicon.first_set and low not in lexicon.last_set
                                              and zipf(low) >= COMMON_ZIPF):
                return found
            return self._name_word(patient, NAME_KEY, found, "last")
        return re.sub(r"[^\W\d_]+", word, text)

    # PATIENT, DOCTOR
    def _name(self, patient: str, cls: str, original: str, cues: dict) -> str:
        """Name word by word (hyphenated parts apart), titles and degrees kept; a possessive
        ending is kept after the stand-in of the name it ends, so 'Okonkwo's' is the same
        person as 'Okonkwo' (it drew another name, and a lone "'s" became "'t")."""
        if _POSSESSIVE_ALONE.fullmatch(original.strip()):
            return original
        tokens = list(_NAME_TOKEN.finditer(original))
        words = [t for t in tokens if t.group("word") and not _kept(original, t)]
        if not words:
            if not any(c.isdigit() for c in original):
                return original     # a title or punctuation alone ('Dr.', ''): no name to replace
            return self._single_last(patient, cls, original)
        draw = self._draw(patient, cls, _normalise(original))   # for stray digits only
        out, position = [], 0
        for word, role in zip(words, _name_roles(original, words)):
            name, ending = _possessive(word.group())
            out += [_reshape(draw, original[position:word.start()], letters=False),
                    self._name_word(patient, cls, name, role, cues) + ending]
            position = word.end()
        out.append(_reshape(draw, original[position:], letters=False))
        return "".join(out)

    def _name_word(self, patient: str, cls: str, word: str, role: str, cues: dict | None = None) -> str:
        """One name word: each hyphen-joined part drawn for itself in its role's list, of the
        sex the lists and ``cues`` give it (:func:`_names_for`)."""
        parts = []
        for part in word.split("-"):
            draw = self._draw(patient, cls, part.casefold())
            broad = self.broad_names
            if broad and self.common_names and draw.below(1000) < round(1000 * self.common_names):
                broad = False
            lexicon = _words(broad)
            if role == "initial":     # 'J' or 'JS': a letter drawn for each
                letters = "".join(draw.choice(string.ascii_uppercase, avoid=c) for c in part.upper())
                parts.append(letters.lower() if part.islower() else letters)
                continue
            cue = (cues or {}).get(part.casefold())
            names = _names_for(lexicon, part, role, cue, gendered=not self.broad_names)
            parts.append(_case_like(part, draw.choice(names, avoid=part)))
        return "-".join(parts)

    def _single_last(self, patient: str, cls: str, original: str) -> str:
        """A name span with no name word in it (only a title, or digits): a last name."""
        draw = self._draw(patient, cls, _normalise(original))
        return _case_like(original, draw.choice(_words(self.broad_names).last, avoid=original))

    # HOSPITAL
    def _hospital(self, patient: str, cls: str, original: str) -> str:
        """A drawn name with the original's suffix, drawn for the name without it, so
        "Cedar Hospital" and "Cedar Medical Center" keep one name. The name is written in the
        case of the original's name and the suffix as the original writes it ("MERCY Hospital"
        took the word list's case, "Christian Hospital"); an added " Hospital" in the name's."""
        lead, core, trail = _split_space(original)
        suffix = _hospital_suffix(core)
        head = core[:len(core) - len(suffix)].rstrip(" ,-") if suffix else core
        separator = core[len(head):len(core) - len(suffix)] if suffix else " "
        draw = self._draw(patient, cls, _normalise(head))
        if not suffix and _abbreviation(head):
            return lead + _reshape_new(draw, head) + trail     # an abbreviation: MGH
        new_head = _case_like(head or core, self._hospital_head(draw, head))
        if not head:
            separator = " "
        written_suffix = core[len(core) - len(suffix):] if suffix else _case_like(head, "Hospital")
        return lead + new_head + separator + written_suffix + trail

    def _hospital_head(self, draw: _Draw, head: str) -> str:
        """An invented hospital name, never ``head``."""
        lexicon = _words()
        parts = lexicon.hospital
        for _ in range(20):
            kind = draw.below(6)
            if kind == 0:
                new = draw.choice(parts["adjective"]) + draw.choice(parts["landform"]).lower()
            elif kind == 1:
                new = f"{draw.choice(parts['adjective'])} {draw.choice(parts['landform'])}"
            elif kind == 2:
                new = f"St. {draw.choice(parts['saint'])}'s"
            elif kind == 3:
                new = draw.choice(lexicon.cities)
            elif kind == 4:
                new = draw.choice(parts["descriptor"])
            else:
                new = draw.choice(lexicon.last)
            if new.casefold() != head.casefold():
                return new
        return new

    # LOCATION
    def _location(self, patient: str, cls: str, original: str) -> str:
        """Part by part, between commas and line ends (see the module docstring)."""
        pieces = re.split(r"(\s*[,;\n]\s*)", original)
        new = "".join(piece if index % 2 else self._place(patient, cls, piece)
                      for index, piece in enumerate(pieces))
        if (new.casefold() == original.casefold() and any(c.isalnum() for c in original)
                and original.strip().casefold() not in _HOME_COUNTRY):
            return _reshape_new(self._draw(patient, cls, _normalise(original)), original)
        return new

    def _place(self, patient: str, cls: str, part: str) -> str:
        """One comma-separated part of a location."""
        lead, core, trail = _split_space(part)
        if not core:
            return part
        return lead + self._place_core(patient, cls, core) + trail

    def _place_core(self, patient: str, cls: str, core: str) -> str:
        """One part without its surrounding whitespace: zip, state, street, unit, place."""
        lexicon = _words()
        draw = self._draw(patient, cls, _normalise(core))
        if _ZIP.fullmatch(core):
            return _reshape_new(draw, core)
        if core.casefold() in _HOME_COUNTRY:
            return core      # the country of every note: no smaller area than a state (HIPAA)
        if len(core) == 2 and core.isalpha() and core.upper() in lexicon.state_abbrs:
            return _case_like(core, draw.choice(lexicon.state_abbrs, avoid=core.upper()))
        if len(core) == 2 and core.isalpha() and core.isupper():
            # 'GH', a hospital's initials, is no state: other capitals, never a state's ('to
            # GH' became 'to OR', 'to IN', 'to OK' in the output and in the re-substituted
            # training copies; experiments/NOTEBOOK.md, measured what that did)
            return _reshape_new(draw, core, valid=lambda new: new not in lexicon.state_abbrs)
        labelled = _LABELLED_NUMBER.fullmatch(core)
        if labelled:         # 'P.O. Box 123', 'Route 9': the label kept, the number drawn
            return labelled["label"] + _reshape_new(draw, labelled["number"])
        unit = _TRAILING_UNIT.fullmatch(core)
        if unit:             # '12 Main Street Apt 3': the street and the unit each on its own
            return (self._place_core(patient, cls, unit["head"]) + unit["space"]
                    + self._place_core(patient, cls, unit["tail"]))
        tail = _TRAILING_ZIP.fullmatch(core) or _TRAILING_STATE.fullmatch(core)
        if tail and (tail["tail"] in lexicon.state_abbrs or tail["tail"][0].isdigit()):
            # "Boston MA 02115", "Boston MA": each piece on its own
            return (self._place_core(patient, cls, tail["head"]) + tail["space"]
                    + self._place_core(patient, cls, tail["tail"]))
        unit = _UNIT.fullmatch(core)
        if unit and any(c.isdigit() for c in unit["rest"]):
            return unit["label"] + _reshape_new(draw, unit["rest"])
        street = _STREET.fullmatch(core)
        if street:
            # '12 Main St Boston': the street ends at its suffix and a town follows
            words = list(re.finditer(r"\S+", core))
            plain = [w.group().strip(".,").casefold() not in _STREET_SUFFIXES | _DIRECTIONS for w in words]
            ends = [i for i in range(2, len(words) - 1)
                    if not plain[i] and words[i].group().strip(".,").casefold() in _STREET_SUFFIXES
                    and all(plain[i + 1:])]
            if ends:
                cut, rest = words[ends[0]].end(), words[ends[0] + 1].start()
                return (self._place_core(patient, cls, core[:cut]) + core[cut:rest]
                        + self._place_core(patient, cls, core[rest:]))
            return self._street(patient, cls, street)
        if any(c.isdigit() for c in core):
            return _reshape_new(draw, core)
        if _hospital_suffix(core):
            # a hospital typed LOCATION (PhysioNet's gold has no hospital class): a hospital's
            # stand-in, drawn as the same name typed HOSPITAL draws it
            return self._hospital(patient, "HOSPITAL", core)
        folded = core.casefold()
        for names, folded_names in lexicon.places:
            if folded in folded_names:
                return _case_like(core, draw.choice(names, avoid=core))
        return _case_like(core, draw.choice(lexicon.cities, avoid=core))

    def _street(self, patient: str, cls: str, street: re.Match) -> str:
        """A house number of as many digits (not starting with 0) and a street name drawn for
        the original name, with its suffix and direction words ("N", "St", "Avenue") kept."""
        words = street["name"].split(" ")
        tail = []
        while len(words) > 1 and words[-1].strip(".,").casefold() in _STREET_SUFFIXES | _DIRECTIONS:
            tail.insert(0, words.pop())
        head = []
        while len(words) > 1 and words[0].strip(".,").casefold() in _DIRECTIONS:
            head.append(words.pop(0))
        name = " ".join(words)
        # the number drawn for itself and the street's name, not for how the suffix is spelled:
        # '12 Main St' and '12 Main Street' are one address
        draw = self._draw(patient, cls, f"{street['number'].casefold()} {_normalise(name)}")
        number = _reshape_new(draw, street["number"])
        if number[0] == "0":
            number = str(1 + draw.below(9)) + number[1:]
        name_draw = self._draw(patient, cls, _normalise(name))
        if any(c.isdigit() for c in name):
            new_name = _reshape_new(name_draw, name)     # "5th": an ordinal street
        else:
            new_name = _case_like(name, name_draw.choice(_words().streets, avoid=name))
        return number + street["space"] + " ".join(head + [new_name] + tail)
