"""The gazetteer lists surrogates are drawn from, read once a process.

First and last names (the gazetteers', or with ``broad`` the census lists'), each first name's
sex as the name lists give it, the names that are first and last names alike, US cities,
states and their abbreviations, street names, countries, world cities and the parts of invented
hospital names: one :class:`_Words` shared by every class's stand-in.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from itdeid.resources import load_json, load_table, load_wordlist


#: A word at least this frequent in English (Zipf) that is no listed name is an ordinary word.
COMMON_ZIPF = 3.0


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
