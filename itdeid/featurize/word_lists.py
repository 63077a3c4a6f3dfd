"""The public word lists every stage reads, loaded once a process.

The feature groups (:mod:`itdeid.featurize`), the rules applied after the model's decisions
(:mod:`itdeid.passes.name_gaps`, :mod:`itdeid.passes.subject_names`, :mod:`itdeid.estimators.rules`), the CRF peer, the
PHI-looking-paths check of ``itdeid deid`` (:mod:`itdeid.batch.rename`) and the error analysis
all ask the same questions of gazetteers/: is this a census surname, an everyday English word,
a US state's abbreviation? Each list takes a second or more to read and tens of megabytes to
hold, so they are read here once (cached) and shared, rather than each stage loading its own
copy.

- :func:`gazetteer_sets`: the name, place and English-word lists of the feature groups
  (gazetteers/*.tsv and *.txt; see gazetteers/README and ``python -m itdeid.gazetteers.build``
  for their sources and licences);
- :func:`census_names`: the 1990 US census first names and surnames with their share of the
  population (public domain);
- :func:`world_names`: first names and surnames of faker's non-US locales (synth_names.tsv),
  the names of other countries the synthetic records are written with and that no US list
  holds ('Gareth', 'Zara', 'Spela'); the rules read them only to leave a word tagged.

Nothing here is learned from notes: these lists ship with the package, never with a model.
"""
from __future__ import annotations

import unicodedata
from functools import lru_cache
from itertools import compress, count

from itdeid.resources import load_table, load_wordlist
from itdeid.text.tokens import tokenize


def _words(text: str) -> tuple[str, ...]:
    """The lower-case tokens of a list entry ('New York' -> ('new', 'york')), as the feature
    groups tokenize the notes they look the entry up in."""
    return tuple(t.text.lower() for t in tokenize(text))


@lru_cache(maxsize=1)
def gazetteer_sets() -> dict:
    """The feature groups' lists: ``first`` and ``last`` (lower-case name -> weight), ``cities``,
    ``states``, ``countries`` and ``world`` (frozen sets of token tuples), ``state_abbr`` (upper
    case) and ``english`` (lower-case everyday words that are no names, nonphi_words.txt)."""
    first = {}
    for name, _sex, weight in load_table("gazetteers", "first_names.tsv"):
        key = name.lower()
        first[key] = max(first.get(key, 0.0), float(weight))
    last = {name.lower(): float(weight) for name, weight in load_table("gazetteers", "last_names.tsv")}
    # phrase sets are frozen: hashable, so their first-word index is cached (_phrase_lengths)
    cities = frozenset(_words(row[0]) for row in load_table("gazetteers", "us_cities.tsv"))
    states = frozenset(_words(name) for name, _abbr in load_table("gazetteers", "us_states.tsv"))
    state_abbr = {abbr.upper() for _name, abbr in load_table("gazetteers", "us_states.tsv")}
    countries = frozenset(_words(x) for x in load_wordlist("gazetteers", "countries.txt"))
    world = frozenset(_words(x) for x in load_wordlist("gazetteers", "world_cities.txt"))
    english = {w.lower() for w in load_wordlist("gazetteers", "nonphi_words.txt")}
    return {"first": first, "last": last, "cities": cities, "states": states,
            "state_abbr": state_abbr, "countries": countries, "world": world, "english": english}


@lru_cache(maxsize=1)
def census_names() -> tuple[dict, dict]:
    """Lower-case census first names and surnames -> percent of the population."""
    first: dict[str, float] = {}
    for name, _sex, pct in load_table("gazetteers", "census_first_names.tsv"):
        first[name.lower()] = first.get(name.lower(), 0.0) + float(pct)
    last = {name.lower(): float(pct) for name, pct in load_table("gazetteers", "census_last_names.tsv")}
    return first, last


@lru_cache(maxsize=1)
def world_names() -> frozenset[str]:
    """Lower-case first names and surnames of faker's non-US locales (gazetteers/synth_names.tsv),
    each also without its accents, as a US record often writes it ('Špela' and 'spela')."""
    names = {row[0].lower() for row in load_table("gazetteers", "synth_names.tsv")}
    return frozenset(names | {without_accents(name) for name in names})


def positions_in(words, wanted) -> list[int]:
    """The positions of ``words`` that are in ``wanted`` (a set or a dict), found by a lookup
    mapped in C rather than a Python step a word."""
    return list(compress(count(), map(wanted.__contains__, words)))


def without_accents(word: str) -> str:
    """``word`` with its combining accents dropped ('Špela' -> 'Spela')."""
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))
