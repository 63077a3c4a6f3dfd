"""The word lists the generator draws from, read once a process from ``gazetteers/``.

:func:`lexicon` returns one shared :class:`Lexicon`: the 1990 census first names by sex and
surnames with flattened frequencies (:data:`CENSUS_FLATTEN`), names of faker's non-US locales
(``synth_names.tsv``), words that are also names (``common_word_names.txt``: 'Rose', 'Baker',
'Young'; ``synth_word_names.txt``: 'Stable', 'Marrow'), US cities weighted by the square root of
their population and towns under 15,000 people (``synth_towns.tsv``), states, hospital-name parts, street
suffixes, countries, the clinical vocabulary and sentence templates of ``clinical_terms.json``
(``t``) and ``synth_phrases.json`` (``x``; ``sent`` merges the sentence templates of both by key),
the principal problems of ``synth_problems.json`` (``problems``, ``systems``), and the phrases
and headings of nursing progress notes, ``synth_nursing.json`` (``nursing``,
:mod:`~itdeid.synth.nursing`).

Why a module of its own: what the records *say* lives in data files, so the vocabulary can grow
or be corrected without touching the generator (several of these tables are read by
:mod:`~itdeid.render.surrogate` and :mod:`~itdeid.featurize` too), and reading them is slow next to
drawing from them, hence the cache: ``generate`` is called many times in one test run. Lists keep
their file's order, which the random draws depend on: reordering a file changes the corpus.
"""
from __future__ import annotations

from itdeid.resources import load_json, load_table, load_wordlist

#: Census names are drawn with weight ``percent ** CENSUS_FLATTEN``: 1 would draw as the
#: population does (mostly names of the feature list), 0 uniformly (mostly names no note has).
#: 0.8 puts about half the name tokens in the feature list, as in real notes
#: (tests/test_synth.py::test_names_are_as_often_in_the_feature_lists_as_real_names).
CENSUS_FLATTEN = 0.9


def _rows(name: str, header: str) -> list[tuple[str, ...]]:
    """Rows of a gazetteer table, without a header row that ``load_table`` kept (the files
    start with a comment line, which ``load_table`` takes for the header)."""
    return [row for row in load_table("gazetteers", name) if row and row[0] != header]


class Lexicon:
    """Every word list the generator draws from; one a process, through :func:`lexicon`."""

    def __init__(self):
        terms = load_json("gazetteers", "clinical_terms.json")
        extra = load_json("gazetteers", "synth_phrases.json")
        self.t = terms
        self.x = extra
        # The principal problems a record is about (synth_problems.json; itdeid.synth.problems),
        # drawn by weight, the organ systems a long course is written by, and drugs by name.
        problems = load_json("gazetteers", "synth_problems.json")
        self.problems: dict[str, dict] = problems["problems"]
        self.problem_keys = list(self.problems)
        self.problem_w = _cum([float(p["weight"]) for p in self.problems.values()])
        self.systems: dict[str, dict] = problems["systems"]
        self.nursing: dict = load_json("gazetteers", "synth_nursing.json")
        self.drug = {entry[0]: entry for entry in terms["drugs"]}
        self.sent: dict[str, list[str]] = {}
        for source in (terms["sentences"], extra["sentences"]):
            for key, values in source.items():
                self.sent.setdefault(key, []).extend(values)
        # the feature name lists serve only the sex of a word-name and the surnames streets
        # and hospitals are named after; people are named from the lists below
        self.first_sex = {r[0]: r[1] for r in _rows("first_names.tsv", "name")}
        self.last = [r[0] for r in _rows("last_names.tsv", "name")]
        self.common = [w for w in load_wordlist("gazetteers", "common_word_names.txt")
                       if w.isalpha()]
        cities = _rows("us_cities.tsv", "city")
        self.cities = [(r[0], r[1]) for r in cities]
        self.cities_w = _cum([float(r[2]) ** 0.5 for r in cities])
        self.states = {r[1]: r[0] for r in _rows("us_states.tsv", "name")}
        parts: dict[str, list[str]] = {}
        for kind, part in _rows("hospital_name_parts.tsv", "kind"):
            parts.setdefault(kind, []).append(part)
        self.parts = parts
        self.suffixes = list(load_wordlist("gazetteers", "street_suffixes.txt"))
        self.countries = [c for c in load_wordlist("gazetteers", "countries.txt")
                          if "," not in c and len(c) < 20]
        # Names and towns from sources no feature reads: the 1990 census lists with
        # flattened weights (real notes' names are mostly census names, but not mostly the
        # frequent ones the feature list 'first_names.tsv' holds), faker's non-US locales, and
        # towns under 15,000 people.
        census_first = _rows("census_first_names.tsv", "name")
        self.census_first = {s: [r[0] for r in census_first if r[1] == s] for s in "MF"}
        self.census_first_w = {s: _cum([float(r[2]) ** CENSUS_FLATTEN for r in census_first
                                        if r[1] == s]) for s in "MF"}
        census_last = _rows("census_last_names.tsv", "name")
        self.census_last = [r[0] for r in census_last]
        self.census_last_w = _cum([float(r[1]) ** CENSUS_FLATTEN for r in census_last])
        world_names = _rows("synth_names.tsv", "name")
        self.world_first = {s: [r[0] for r in world_names if r[1] == "first" and r[2] in (s, "-")]
                            for s in "MF"}
        self.world_last = [r[0] for r in world_names if r[1] == "last"]
        self.word_names = list(load_wordlist("gazetteers", "synth_word_names.txt"))
        self.towns = [(r[0], r[1], r[2], r[3]) for r in _rows("synth_towns.tsv", "town")]


def _cum(weights: list[float]) -> list[float]:
    total, out = 0.0, []
    for w in weights:
        total += w
        out.append(total)
    return out


_LEX: Lexicon | None = None


def lexicon() -> Lexicon:
    global _LEX
    if _LEX is None:
        _LEX = Lexicon()
    return _LEX
