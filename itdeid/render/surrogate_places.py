"""Hospitals and locations: the shapes their spans are read in.

A hospital's name ending ("Medical Center", "Clinic", "Hosp") is kept with its stand-in, an
abbreviation ("MGH") becomes other capitals; a location is read part by part as a zip code, a
state, a street address (number, name, suffix, unit), a post office box or road number, the
country of the notes, or a place. :class:`itdeid.render.surrogate.Surrogates` draws the
stand-ins (see its module docstring for what each part becomes).
"""
from __future__ import annotations

import re
from functools import lru_cache

from itdeid.featurize.zipf import zipf
from itdeid.render.surrogate_words import COMMON_ZIPF, _words


# --------------------------------------------------------------------------------------------
# Hospitals


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
