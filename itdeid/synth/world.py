"""The world the records are written about: hospitals with their doctors, facilities, patients.

:class:`World` is drawn before any record, from the same ``random.Random``: at least six
hospitals (one more for every RECORDS_PER_HOSPITAL records), each with a full name composed from
parts in one of ten patterns ('Fairview Memorial Hospital'), an acronym ('FMH'), a partial name
('Fairview'), an address, a phone, a writing style (the styles in turn) and 8 to 40 doctors; a
few nursing and rehabilitation facilities; then :meth:`World.patients`, each with a name, an MRN in one of four
shapes, a home address and phone, an age, a primary care physician, two attendings and one to six
admissions in date order.

Why a world rather than independent records: in a real corpus the same people and places recur,
so here too a patient's records share name, MRN, hospital and physicians, and a hospital's
doctors appear in many records, in several contexts and surface forms. Popularity is long-tailed
(:meth:`World.popular`, rank weights): a few hospitals and doctors recur in many records, most
in a few, as in a real corpus, so a model cannot rely on having seen a name before. Names are drawn by
population frequency from :mod:`~itdeid.synth.sources`, some of them common English words, so the
corpus is learnable but not memorizable.
"""
from __future__ import annotations

import datetime as _dt
import random
import re
from dataclasses import dataclass, field

from itdeid.synth.sources import lexicon
from itdeid.synth.styles import STYLES
from itdeid.featurize.word_lists import without_accents

#: Where a name comes from. Real notes name people of every origin, about half of them outside
#: the feature name list: a first name is a word-name ('Hope', 'May') with probability
#: WORD_FIRST_NAMES, a name of faker's non-US locales (``synth_names.tsv``) with WORLD_NAMES, else a
#: 1990 census name (flattened weights, :data:`~itdeid.synth.sources.CENSUS_FLATTEN`); last names
#: likewise with WORD_LAST_NAMES, half of those census surnames that are everyday or clinical
#: words ('Stable', 'Marrow': ``synth_word_names.txt``, the i2b2 surrogates' ambiguity), and
#: HYPHENATED of them two surnames joined. KEEP_ACCENTS: share of accented names written with
#: the accents.
WORD_FIRST_NAMES = 0.08
WORD_LAST_NAMES = 0.12
WORLD_NAMES = 0.25
HYPHENATED = 0.04
KEEP_ACCENTS = 0.2
#: Records per hospital of the world (at least six hospitals): with rank-weighted draws
#: (:meth:`World.popular`) a few hospitals take most records and many appear in a few.
RECORDS_PER_HOSPITAL = 10
#: Share of places that are towns under 15,000 people (``synth_towns.tsv``), which no place
#: feature lists; the rest are the cities of ``us_cities.tsv`` by population.
TOWNS = 0.5


@dataclass
class Person:
    first: str
    last: str
    middle: str
    sex: str

    @property
    def initials(self) -> str:
        return self.first[0] + self.last[0]


@dataclass
class Hospital:
    name: str
    short: str
    partial: str
    city: str
    state: str
    street: str
    zip: str
    phone: tuple[str, str, str]
    style: str
    doctors: list = field(default_factory=list)


@dataclass
class Patient:
    number: int
    person: Person
    mrn: str
    hospital: Hospital
    pcp: Person
    pcp_hospital: Hospital
    attendings: list
    street: str
    city: str
    state: str
    zip: str
    phone: tuple[str, str, str]
    age: int
    admissions: list  # (admission date, discharge date)


def _rank_weights(n: int) -> list[float]:
    """Cumulative weights 1/1, 1/2, ... 1/n (Zipf's law with exponent 1)."""
    total, out = 0.0, []
    for rank in range(n):
        total += 1.0 / (rank + 1)
        out.append(total)
    return out


class World:
    def __init__(self, rng: random.Random, records: int):
        self.rng = rng
        self.lex = lexicon()
        n_hospitals = max(6, records // RECORDS_PER_HOSPITAL)
        names = set()
        self.hospitals: list[Hospital] = []
        styles = list(STYLES)
        while len(self.hospitals) < n_hospitals:
            hospital = self._hospital(styles[len(self.hospitals) % len(styles)])
            if hospital.name in names:
                continue
            names.add(hospital.name)
            hospital.doctors = [self.person() for _ in range(rng.randint(8, 40))]
            self.hospitals.append(hospital)
        self.facilities = [self._facility() for _ in range(max(4, n_hospitals // 2))]

    def popular(self, items: list, k: int | None = None):
        """One item of ``items`` (or ``k`` distinct ones), the first ones far more often: rank
        weights 1/(rank + 1), so a few hospitals and doctors are in many records and most in few."""
        if k is None:
            return self.rng.choices(items, cum_weights=_rank_weights(len(items)))[0]
        chosen: list = []
        while len(chosen) < k:
            item = self.popular(items)
            if item not in chosen:
                chosen.append(item)
        return chosen

    # names
    def first_name(self, sex: str) -> str:
        rng = self.rng
        kind = rng.random()
        if kind < WORD_FIRST_NAMES:
            name = rng.choice(self.lex.common)
            if self.lex.first_sex.get(name, sex) == sex:
                return name
        if kind < WORD_FIRST_NAMES + WORLD_NAMES:
            return self._spelled(rng.choice(self.lex.world_first[sex]))
        return rng.choices(self.lex.census_first[sex], cum_weights=self.lex.census_first_w[sex])[0]

    def last_name(self, hyphenated: bool = True) -> str:
        rng = self.rng
        if hyphenated and rng.random() < HYPHENATED:
            return f"{self.last_name(False)}-{self.last_name(False)}"
        kind = rng.random()
        if kind < WORD_LAST_NAMES:
            return rng.choice(self.lex.common if rng.random() < 0.5 else self.lex.word_names)
        if kind < WORD_LAST_NAMES + WORLD_NAMES:
            return self._spelled(rng.choice(self.lex.world_last))
        return rng.choices(self.lex.census_last, cum_weights=self.lex.census_last_w)[0]

    def _spelled(self, name: str) -> str:
        """``name`` as a US record writes it: accents dropped, except now and then."""
        if self.rng.random() < KEEP_ACCENTS:
            return name
        return without_accents(name)

    def person(self, sex: str | None = None) -> Person:
        sex = sex or self.rng.choice("MF")
        middle = self.rng.choice("ABCDEFGHJKLMNPRSTW")
        first = self.first_name(sex)
        last = self.last_name()
        while last == first:
            last = self.last_name()
        return Person(first, last, middle, sex)

    def city(self) -> tuple[str, str]:
        """A (city, state abbreviation): a town no place feature lists, or a city of 15,000+."""
        if self.rng.random() < TOWNS:
            town, state, _county, _zip = self.rng.choice(self.lex.towns)
            return town, state
        return self.rng.choices(self.lex.cities, cum_weights=self.lex.cities_w)[0]

    def street(self) -> str:
        rng = self.rng
        name = (rng.choice(self.lex.x["street_names"]) if rng.random() < 0.6
                else rng.choice(self.lex.last))
        return f"{rng.randint(1, 999) if rng.random() < 0.8 else rng.randint(1000, 9999)} " \
               f"{name} {rng.choice(self.lex.suffixes)}"

    def phone(self) -> tuple[str, str, str]:
        rng = self.rng
        return (rng.choice(self.lex.x["area_codes"]), f"{rng.randint(200, 989)}",
                f"{rng.randint(0, 9999):04d}")

    def zip(self) -> str:
        return f"{self.rng.randint(1001, 99950):05d}"

    def _hospital(self, style: str) -> Hospital:
        rng, parts = self.rng, self.lex.parts
        city, state = self.city()
        suffix = rng.choice(parts["suffix"])
        kind = rng.random()
        if kind < 0.18:
            partial = rng.choice(parts["adjective"]) + rng.choice(parts["landform"]).lower()
            name = f"{partial} {suffix}"
        elif kind < 0.27:
            partial = f"{rng.choice(parts['adjective'])} {rng.choice(parts['landform'])}"
            name = f"{partial} {suffix}"
        elif kind < 0.37:
            partial = f"St. {rng.choice(parts['saint'])}'s"
            name = f"{partial} {rng.choice(['Hospital', 'Medical Center', 'Hospital Center', 'Health Center'])}"
        elif kind < 0.52 and len(city.split()) <= 2:
            partial = city
            name = f"{partial} {rng.choice(parts['descriptor'])} {suffix}"
        elif kind < 0.59:
            partial = rng.choice(parts["descriptor"])
            name = f"{partial} {suffix}"
        elif kind < 0.67:
            partial = rng.choice(self.lex.last)
            name = f"{partial} {suffix}"
        elif kind < 0.75:
            # named after benefactors: 'Anna Whitfield Memorial Hospital', 'Kessler-Dunn Clinic'
            a, b = rng.choice(self.lex.last), rng.choice(self.lex.last)
            partial = rng.choice((f"{self.first_name(rng.choice('MF'))} {a}", f"{a}-{b}", f"{a} and {b}"))
            name = f"{partial} {rng.choice(('Memorial Hospital', 'Clinic', 'Hospital', 'Medical Center'))}"
        elif kind < 0.82:
            state_name = self.lex.states.get(state, state)
            partial = rng.choice((f"University of {state_name}", f"{state_name} University"))
            name = f"{partial} {rng.choice(('Hospital', 'Medical Center', 'Hospitals'))}"
        elif kind < 0.9 and len(city.split()) <= 2:
            partial = rng.choice((f"{city} County", f"{rng.choice(self.lex.last)} County", city))
            name = f"{partial} {rng.choice(('Hospital', 'Medical Center', 'General Hospital', 'Regional Hospital'))}"
        else:
            partial = city.split()[0] if rng.random() < 0.5 else rng.choice(parts["landform"])
            name = f"{partial} {rng.choice(parts['suffix'])}"
        words = [w for w in re.split(r"[\s-]+", name) if w[:1].isupper()]
        short = "".join(w[0] for w in words)
        if len(short) < 2:
            short = name[:3].upper()
        return Hospital(name, short, partial, city, state, self.street(), self.zip(),
                        self.phone(), style)

    def _facility(self) -> str:
        rng, parts = self.rng, self.lex.parts
        if rng.random() < 0.5:
            head = rng.choice(parts["adjective"]) + rng.choice(parts["landform"]).lower()
        else:
            head = f"{rng.choice(parts['adjective'])} {rng.choice(parts['landform'])}"
        return f"{head} {rng.choice(parts['facility'])}"

    def patients(self, records: int) -> list[tuple[Patient, int]]:
        """(patient, admission index) for every record, a patient's records together."""
        rng = self.rng
        out: list[tuple[Patient, int]] = []
        number = 100
        while len(out) < records:
            number += rng.randint(1, 9)
            k = min(records - len(out), rng.choice((1, 2, 2, 3, 3, 3, 4, 4, 5, 6)))
            hospital = self.popular(self.hospitals)
            pcp_hospital = hospital if rng.random() < 0.75 else self.popular(self.hospitals)
            attendings = self.popular(hospital.doctors, 2)
            pcp = self.popular([d for d in pcp_hospital.doctors if d not in attendings])
            city, state = (hospital.city, hospital.state) if rng.random() < 0.5 else self.city()
            age = rng.randint(90, 99) if rng.random() < 0.006 else rng.randint(24, 86)
            start = _dt.date(rng.randint(1992, 2012), 1, 1) + _dt.timedelta(rng.randint(0, 364))
            admissions, day = [], start
            for _ in range(k):
                stay = rng.choice((1, 2, 3, 3, 4, 5, 6, 7, 9, 12, 16))
                admissions.append((day, day + _dt.timedelta(stay)))
                day = day + _dt.timedelta(stay + rng.randint(20, 500))
            form = rng.random()
            if form < 0.55:
                mrn = f"{rng.randint(1000000, 99999999)}"
            elif form < 0.75:
                mrn = f"{rng.randint(100, 999)}-{rng.randint(10, 99)}-{rng.randint(10, 99)}"
            elif form < 0.85:
                mrn = f"{rng.randint(1, 999999):0{rng.choice((7, 8, 9))}d}"
            else:   # hospital-prefixed: 'BH4471203', 'MR-230117'
                letters = "".join(rng.choice("ABCDEFGHJKLMNPRSTWXY") for _ in range(rng.choice((1, 2, 2, 3))))
                mrn = f"{letters}{rng.choice(('', '', '-'))}{rng.randint(100000, 9999999)}"
            patient = Patient(number, self.person(), mrn, hospital, pcp, pcp_hospital,
                              attendings, self.street(), city, state, self.zip(), self.phone(),
                              age, admissions)
            out += [(patient, i) for i in range(k)]
        return out
