"""Synthetic discharge summaries in the manner of the i2b2 2006 de-identification corpus.

``generate(records, seed)`` returns ``records`` :class:`~itdeid.document.Document` objects with
gold PHI spans of the eight 2006 classes. It is the project's default corpus for demos, tests and
experiments, so it is built to be *learnable but not memorizable*:

- a world of hospitals (full name, acronym, partial name, address, phone, units), their doctors
  and patients, each patient with a timeline of admissions (increasing dates, the same name, MRN
  and hospital, the same primary care physician and attendings);
- five writing styles (header layout, heading case, date-format habits, list layout, signature
  block, line wrapping, how often the patient is named in flow text), chosen per hospital with
  some records written in another style;
- 25 kinds of section under many surface headings, structured lines (medications with doses,
  labs, vital signs, ranges such as '2-3' and '150-160/80-90' that look like dates), flow text from
  a few hundred sentence templates with PHI and clinical slots (``gazetteers/clinical_terms.json``
  and ``gazetteers/synth_phrases.json``);
- the same entity in several surface forms within a record ('SMITH, JOHN', 'Mr. Smith',
  'J. Smith'; 'LEARY, KEVIN M.D.', 'Dr. Leary', 'KL/ab'; 'Fairview Memorial Hospital', 'FMH',
  'Cardiology Clinic of FMH'), names that are common words or eponyms
  (``common_word_names.txt``), lower-case and all-caps mentions;
- token class proportions near the 2006 test set (the paper's Table 2): doctors, dates and
  hospitals dominate, AGE (ages over 89 only) is very rare.

Text and spans are built together from ``(text, class or None)`` pieces, so every span's
offsets are exact. Everything is drawn from one ``random.Random(seed)``: the same seed gives the
same corpus, byte for byte.

Conventions (deliberate, so a model can learn them): clock times are not PHI; header, accession
and transcription numbers (``Batch:``, ``Job #``, ``Index No.``, document numbers) are ID, since
they lead back to the patient's record;
weekdays are not DATE; ages of 89 and under are not AGE; a span never includes titles or degrees
('Dr.', 'Mr.', 'M.D.'); city, state, street and zip are separate LOCATION spans; a unit's name is
not part of the HOSPITAL span ('Cardiology Clinic of <FMH>').
"""
from __future__ import annotations

import datetime as _dt
import random
import re
from dataclasses import dataclass, field

from itdeid.document import Document, Span
from itdeid.resources import load_json, load_table, load_wordlist

__all__ = ["generate", "STYLES"]

Piece = tuple[str, "str | None"]

_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")
_MONTHS_ABBR = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")

# --------------------------------------------------------------------------------------------
# Writing styles. Each knob is a probability or a weight table; phrase material is in the JSON.

#: The writing styles, by name. ``header``/``signature``: layout functions; ``heading_case``:
#: upper, as-is or title; ``heading_newline``: probability the section body starts on the next
#: line; ``dates``: weights of date formats in flow text, ``header_date``: the header's format;
#: ``pt_named``: probability that a ``{Pt}`` slot names the patient; ``wrap``: line width or 0.
STYLES: dict[str, dict] = {
    "partners": dict(
        header="pipe", signatures=("dictated", "dictated", "initials"), heading_case="upper",
        heading_newline=0.35, header_date="mdy4", wrap=0, caps_section=0.08, list="numbered",
        order="dx_first", pt_named=0.18, meds_inline=0.3, labs_prose=0.4,
        dates={"mdy4": 6, "mdy2": 2, "md": 2, "long": 1, "month_year": 1, "year": 1, "ord": 0.3}),
    "block": dict(
        header="block", signatures=("dictated2", "dictated"), heading_case="upper",
        heading_newline=0.1, header_date="mdy2", wrap=72, caps_section=0.15, list="numbered",
        order="chrono", pt_named=0.2, meds_inline=0.6, labs_prose=0.6,
        dates={"mdy2": 5, "mdy4": 2, "long": 2, "abbr": 1, "md": 2, "month_year": 1, "year": 1}),
    "labeled": dict(
        header="labeled", signatures=("esign", "esign", "dictated"), heading_case="title",
        heading_newline=0.7, header_date="long", wrap=0, caps_section=0.03, list="plain",
        order="chrono", pt_named=0.15, meds_inline=0.2, labs_prose=0.3,
        dates={"long": 3, "mdy4z": 4, "iso": 1, "abbr": 2, "md_long": 1, "month_year": 1,
               "year": 1, "ord": 0.5}),
    "letter": dict(
        header="letter", signatures=("letter",), heading_case="title", heading_newline=0.2,
        header_date="mdy4", wrap=80, caps_section=0.0, list="plain", order="letter",
        pt_named=0.4, meds_inline=0.7, labs_prose=0.8,
        dates={"long": 4, "mdy4": 3, "md_long": 2, "abbr": 1, "month_year": 1, "year": 1,
               "ord": 1}),
    "terse": dict(
        header="terse", signatures=("initials", "esign"), heading_case="short",
        heading_newline=0.0, header_date="dash2", wrap=0, caps_section=0.1, list="dash",
        order="chrono", pt_named=0.15, meds_inline=0.5, labs_prose=0.1,
        dates={"dash2": 4, "md": 4, "mdy2": 2, "iso": 1, "abbr": 1, "year": 1}),
}

_ORDERS = {
    "dx_first": ("principal_dx", "other_dx", "procedures", "cc", "hpi", "pmh", "psh", "adm_meds",
                 "allergies", "social", "family", "ros", "exam", "labs", "studies", "course",
                 "consults", "condition", "dis_meds", "disposition", "diet", "activity",
                 "followup", "code"),
    "chrono": ("cc", "hpi", "pmh", "psh", "adm_meds", "allergies", "social", "family", "ros",
               "exam", "labs", "studies", "course", "consults", "procedures", "principal_dx",
               "other_dx", "condition", "disposition", "dis_meds", "diet", "activity",
               "followup", "code"),
    "letter": ("hpi", "pmh", "adm_meds", "allergies", "social", "exam", "labs", "course",
               "principal_dx", "other_dx", "dis_meds", "followup", "code"),
}
# Sections every record has; the others are kept with probability _KEEP.
_CORE = {"hpi", "course", "dis_meds", "principal_dx", "followup"}
_KEEP = 0.72


# --------------------------------------------------------------------------------------------
# Gazetteers


def _rows(name: str, header: str) -> list[tuple[str, ...]]:
    """Rows of a gazetteer table, without a header row that ``load_table`` kept (the files
    start with a comment line, which ``load_table`` takes for the header)."""
    return [row for row in load_table("gazetteers", name) if row and row[0] != header]


class _Lexicon:
    def __init__(self):
        terms = load_json("gazetteers", "clinical_terms.json")
        extra = load_json("gazetteers", "synth_phrases.json")
        self.t = terms
        self.x = extra
        self.sent: dict[str, list[str]] = {}
        for source in (terms["sentences"], extra["sentences"]):
            for key, values in source.items():
                self.sent.setdefault(key, []).extend(values)
        first = _rows("first_names.tsv", "name")
        self.first = {"M": [r[0] for r in first if r[1] == "M"],
                      "F": [r[0] for r in first if r[1] == "F"]}
        self.first_w = {s: _cum([float(r[2]) for r in first if r[1] == s]) for s in "MF"}
        self.first_sex = {r[0]: r[1] for r in first}
        last = _rows("last_names.tsv", "name")
        self.last = [r[0] for r in last]
        self.last_w = _cum([float(r[1]) for r in last])
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
        self.world = list(load_wordlist("gazetteers", "world_cities.txt"))


def _cum(weights: list[float]) -> list[float]:
    total, out = 0.0, []
    for w in weights:
        total += w
        out.append(total)
    return out


_LEX: _Lexicon | None = None


def _lexicon() -> _Lexicon:
    global _LEX
    if _LEX is None:
        _LEX = _Lexicon()
    return _LEX


# --------------------------------------------------------------------------------------------
# The world


@dataclass
class _Person:
    first: str
    last: str
    middle: str
    sex: str

    @property
    def initials(self) -> str:
        return self.first[0] + self.last[0]


@dataclass
class _Hospital:
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
class _Patient:
    number: int
    person: _Person
    mrn: str
    hospital: _Hospital
    pcp: _Person
    pcp_hospital: _Hospital
    attendings: list
    street: str
    city: str
    state: str
    zip: str
    phone: tuple[str, str, str]
    age: int
    admissions: list  # (admission date, discharge date)


class _World:
    def __init__(self, rng: random.Random, records: int):
        self.rng = rng
        self.lex = _lexicon()
        n_hospitals = max(6, records // 25)
        names = set()
        self.hospitals: list[_Hospital] = []
        styles = list(STYLES)
        while len(self.hospitals) < n_hospitals:
            hospital = self._hospital(styles[len(self.hospitals) % len(styles)])
            if hospital.name in names:
                continue
            names.add(hospital.name)
            hospital.doctors = [self.person() for _ in range(rng.randint(8, 16))]
            self.hospitals.append(hospital)
        self.facilities = [self._facility() for _ in range(max(4, n_hospitals // 2))]

    # names
    def first_name(self, sex: str) -> str:
        if self.rng.random() < 0.08:
            name = self.rng.choice(self.lex.common)
            if self.lex.first_sex.get(name, sex) == sex:
                return name
        return self.rng.choices(self.lex.first[sex], cum_weights=self.lex.first_w[sex])[0]

    def last_name(self) -> str:
        if self.rng.random() < 0.12:
            return self.rng.choice(self.lex.common)
        return self.rng.choices(self.lex.last, cum_weights=self.lex.last_w)[0]

    def person(self, sex: str | None = None) -> _Person:
        sex = sex or self.rng.choice("MF")
        middle = self.rng.choice("ABCDEFGHJKLMNPRSTW")
        first = self.first_name(sex)
        last = self.last_name()
        while last == first:
            last = self.last_name()
        return _Person(first, last, middle, sex)

    def city(self) -> tuple[str, str]:
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

    def _hospital(self, style: str) -> _Hospital:
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
        return _Hospital(name, short, partial, city, state, self.street(), self.zip(),
                         self.phone(), style)

    def _facility(self) -> str:
        rng, parts = self.rng, self.lex.parts
        if rng.random() < 0.5:
            head = rng.choice(parts["adjective"]) + rng.choice(parts["landform"]).lower()
        else:
            head = f"{rng.choice(parts['adjective'])} {rng.choice(parts['landform'])}"
        return f"{head} {rng.choice(parts['facility'])}"

    def patients(self, records: int) -> list[tuple[_Patient, int]]:
        """(patient, admission index) for every record, a patient's records together."""
        rng = self.rng
        out: list[tuple[_Patient, int]] = []
        number = 100
        while len(out) < records:
            number += rng.randint(1, 9)
            k = min(records - len(out), rng.choice((1, 2, 2, 3, 3, 3, 4, 4, 5, 6)))
            hospital = rng.choice(self.hospitals)
            pcp_hospital = hospital if rng.random() < 0.75 else rng.choice(self.hospitals)
            attendings = rng.sample(hospital.doctors, 2)
            pcp = rng.choice([d for d in pcp_hospital.doctors if d not in attendings])
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
            patient = _Patient(number, self.person(), mrn, hospital, pcp, pcp_hospital,
                               attendings, self.street(), city, state, self.zip(), self.phone(),
                               age, admissions)
            out += [(patient, i) for i in range(k)]
        return out


# --------------------------------------------------------------------------------------------
# One record


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _fmt_date(d: _dt.date, fmt: str) -> str:
    yy = f"{d.year % 100:02d}"
    if fmt == "mdy4":
        return f"{d.month}/{d.day}/{d.year}"
    if fmt == "mdy4z":
        return f"{d.month:02d}/{d.day:02d}/{d.year}"
    if fmt == "mdy2":
        return f"{d.month:02d}/{d.day:02d}/{yy}"
    if fmt == "mdy2n":
        return f"{d.month}/{d.day}/{yy}"
    if fmt == "dash2":
        return f"{d.month:02d}-{d.day:02d}-{yy}"
    if fmt == "iso":
        return f"{d.year}-{d.month:02d}-{d.day:02d}"
    if fmt == "long":
        return f"{_MONTHS[d.month - 1]} {d.day}, {d.year}"
    if fmt == "abbr":
        dot = "." if d.month != 5 else ""
        return f"{_MONTHS_ABBR[d.month - 1]}{dot} {d.day}, {d.year}"
    if fmt == "md_long":
        return f"{_MONTHS[d.month - 1]} {d.day}"
    if fmt == "md_abbr":
        return f"{_MONTHS_ABBR[d.month - 1]} {d.day}"
    if fmt == "ord":
        suffix = "th" if 10 <= d.day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(d.day % 10, "th")
        return f"{d.day}{suffix} of {_MONTHS[d.month - 1]}"
    if fmt == "md":
        return f"{d.month}/{d.day}"
    if fmt == "month_year":
        return f"{_MONTHS[d.month - 1]} {d.year}"
    if fmt == "year":
        return f"{d.year}"
    raise ValueError(fmt)


_SLOT = re.compile(r"\{(\w+)\}")
#: The PHI class a template slot (lower-cased) produces, and the probability per such slot that a
#: drawn template is kept (else another is drawn): the knob that sets the class proportions.
_SLOT_CLASS = {
    **dict.fromkeys(("pcp", "attending", "consultant", "pcp_full", "consultant_full", "pcp_last",
                     "pcp_possessive"), "DOCTOR"),
    **dict.fromkeys(("hosp", "hosp_full", "hosp_short", "other_hosp", "facility", "hosp_unit"),
                    "HOSPITAL"),
    **dict.fromkeys(("date", "adm_date", "dis_date", "date_recent", "fu_date", "past_date",
                     "past_year", "past_month"), "DATE"),
    **dict.fromkeys(("city_phrase", "country"), "LOCATION"),
    **dict.fromkeys(("clinic_phone", "pcp_phone"), "PHONE"),
    **dict.fromkeys(("accession", "mrn"), "ID"),
}
_ACCEPT = {"DOCTOR": 0.5, "HOSPITAL": 0.5, "DATE": 0.75, "LOCATION": 0.4, "PHONE": 0.15}


class _Record:
    """Draws one record's pieces: a list of ``(text, class or None)``."""

    def __init__(self, world: _World, patient: _Patient, index: int, rng: random.Random):
        self.w, self.p, self.rng, self.lex = world, patient, rng, world.lex
        hospital = patient.hospital
        style = hospital.style if rng.random() < 0.8 else rng.choice(list(STYLES))
        self.style_name, self.s = style, STYLES[style]
        self.hospital = hospital
        self.adm, self.dis = patient.admissions[index]
        self.index = index
        self.attending = patient.attendings[0] if rng.random() < 0.7 else patient.attendings[1]
        self.consultants = rng.sample(hospital.doctors, 3)
        self.dictator = self.attending if rng.random() < 0.5 else rng.choice(hospital.doctors)
        self.age = patient.age + (self.adm - patient.admissions[0][0]).days // 365
        self.drug = None
        self.service = rng.choice(self.lex.t["services"])
        self.other_hospitals = [h for h in rng.sample(world.hospitals, 3) if h is not hospital]
        he = patient.person.sex == "M"
        self.pron = {"he": "he" if he else "she", "his": "his" if he else "her",
                     "him": "him" if he else "her", "man": "man" if he else "woman",
                     "gentleman": "gentleman" if he else "lady"}
        self.date_weights = (list(self.s["dates"]), list(self.s["dates"].values()))
        precise = {k: v for k, v in self.s["dates"].items() if k not in ("year", "month_year")}
        self.precise_weights = (list(precise), list(precise.values()))
        self.out: list[Piece] = []

    # ---- small drawing helpers
    def ch(self, items):
        return self.rng.choice(items)

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def date(self, d: _dt.date, fmt: str | None = None, precise: bool = True) -> list[Piece]:
        """``d`` as a DATE piece in ``fmt`` or a format the style favours (a day-precise one
        unless ``precise`` is false), now and then after a weekday (not PHI)."""
        if fmt is None:
            fmt = self.rng.choices(*(self.precise_weights if precise else self.date_weights))[0]
        pieces: list[Piece] = []
        if self.chance(0.04):
            pieces.append((_dt.date.strftime(d, "%A") + ", ", None))
        pieces.append((_fmt_date(d, fmt), "DATE"))
        return pieces

    def during(self) -> _dt.date:
        return self.adm + _dt.timedelta(self.rng.randint(0, (self.dis - self.adm).days))

    def before(self, lo: int, hi: int) -> _dt.date:
        return self.adm - _dt.timedelta(self.rng.randint(lo, hi))

    def phone(self, number=None) -> list[Piece]:
        a, b, c = number or self.w.phone()
        fmt = self.rng.random()
        if fmt < 0.4:
            text = f"{a}-{b}-{c}"
        elif fmt < 0.65:
            text = f"({a}) {b}-{c}"
        elif fmt < 0.75:
            text = f"{a} {b} {c}"
        elif fmt < 0.85:
            text = f"{b}-{c}"
        else:
            text = f"{a}.{b}.{c}"
        pieces = [(text, "PHONE")]
        if self.chance(0.12):
            pieces += [(" x", None), (f"{self.rng.randint(1000, 9999)}", "PHONE")]
        return pieces

    # ---- names
    def patient_name(self, kind: str) -> list[Piece]:
        p, rng = self.p.person, self.rng
        title = "Mr." if p.sex == "M" else self.ch(("Ms.", "Mrs.", "Ms."))
        if kind == "header":
            form = rng.random()
            if form < 0.55:
                return [(f"{p.last.upper()}, {p.first.upper()}", "PATIENT")] + (
                    [(f" {p.middle}", None)] if False else [])
            if form < 0.75:
                return [(f"{p.last}, {p.first}", "PATIENT")]
            if form < 0.9:
                return [(f"{p.first} {p.middle}. {p.last}", "PATIENT")]
            return [(f"{p.first.upper()} {p.last.upper()}", "PATIENT")]
        if kind == "full":
            if self.chance(0.3):
                return [(f"{title} ", None), (f"{p.first} {p.last}", "PATIENT")]
            return [(f"{p.first} {p.last}", "PATIENT")]
        form = rng.random()
        if form < 0.55:
            pieces = [(f"{title} ", None), (p.last, "PATIENT")]
        elif form < 0.7:
            pieces = [(f"{p.first} {p.last}", "PATIENT")]
        elif form < 0.8:
            pieces = [(f"{p.first[0]}. {p.last}", "PATIENT")]
        elif form < 0.9:
            pieces = [(p.last, "PATIENT")]
        else:
            pieces = [(p.first, "PATIENT")]
        if self.chance(0.04):
            pieces = [(t.lower(), c) for t, c in pieces]
        return pieces

    def doctor(self, d: _Person, kind: str = "text") -> list[Piece]:
        rng = self.rng
        degree = self.ch(self.lex.x["degrees"])
        if kind == "sig":
            form = rng.random()
            if form < 0.5:
                return [(f"{d.last.upper()}, {d.first.upper()}", "DOCTOR"), (f" {degree}", None)]
            if form < 0.7:
                return [(f"{d.last.upper()}, {d.first.upper()} {d.middle}.", "DOCTOR"),
                        (f", {degree}", None)]
            if form < 0.85:
                return [(f"{d.first} {d.middle}. {d.last}", "DOCTOR"), (f", {degree}", None)]
            return [(f"{d.first} {d.last}", "DOCTOR"), (f", {degree}", None)]
        if kind == "full":
            if self.chance(0.5):
                return [("Dr. ", None), (f"{d.first} {d.last}", "DOCTOR")]
            return [(f"{d.first} {d.last}", "DOCTOR"), (f", {degree}", None)]
        form = rng.random()
        if form < 0.5:
            pieces = [("Dr. ", None), (d.last, "DOCTOR")]
        elif form < 0.75:
            pieces = [("Dr. ", None), (f"{d.first} {d.last}", "DOCTOR")]
        elif form < 0.85:
            pieces = [(f"{d.first} {d.last}", "DOCTOR"), (f", {degree}", None)]
        elif form < 0.93:
            pieces = [("Dr. ", None), (f"{d.first[0]}. {d.last}", "DOCTOR")]
        else:
            pieces = [(f"{d.last.upper()}, {d.first.upper()}", "DOCTOR"), (f" {degree}", None)]
        if self.chance(0.03):
            pieces = [(t.lower(), c) for t, c in pieces]
        return pieces

    def hosp(self, h: _Hospital | None = None, kind: str = "text") -> list[Piece]:
        h = h or self.hospital
        if kind == "full":
            return [(h.name, "HOSPITAL")]
        if kind == "short":
            return [(h.short, "HOSPITAL")]
        form = self.rng.random()
        if form < 0.35:
            return [(h.name, "HOSPITAL")]
        if form < 0.85:
            return [(h.short, "HOSPITAL")]
        if form < 0.95 or kind != "unit":
            return [(h.partial if self.chance(0.7) else h.name.upper(), "HOSPITAL")]
        unit = self.ch(self.lex.x["units"])
        if self.chance(0.5):
            return [(f"the {unit} of ", None), (self.ch((h.short, h.name)), "HOSPITAL")]
        return [("the ", None), (self.ch((h.short, h.partial)), "HOSPITAL"), (f" {unit}", None)]

    def city(self, state: bool | None = None) -> list[Piece]:
        if self.chance(0.06):
            return [(self.ch(self.lex.countries), "LOCATION")]
        city, st = (self.p.city, self.p.state) if self.chance(0.4) else self.w.city()
        if state is None:
            state = self.chance(0.5)
        if not state:
            return [(city, "LOCATION")]
        name = st if self.chance(0.6) else self.lex.states.get(st, st)
        return [(city, "LOCATION"), (", ", None), (name, "LOCATION")]

    def address(self, street, city, state, zipcode, sep=", ") -> list[Piece]:
        return [(street, "LOCATION"), (sep, None), (city, "LOCATION"), (", ", None),
                (state, "LOCATION"), (" ", None), (zipcode, "LOCATION")]

    # ---- templates
    def render(self, template: str) -> list[Piece]:
        pieces: list[Piece] = []
        position = 0
        for match in _SLOT.finditer(template):
            if match.start() > position:
                pieces.append((template[position:match.start()], None))
            slot = match.group(1)
            value = self.slot(slot[0].lower() + slot[1:])
            if isinstance(value, str):
                value = [(value, None)]
            if slot[0].isupper() and value:
                text, cls = value[0]
                value = [(_cap(text), cls)] + value[1:]
            pieces += value
            position = match.end()
        if position < len(template):
            pieces.append((template[position:], None))
        return pieces

    def slot(self, name: str):  # noqa: C901 - one table of slots
        rng, t, x = self.rng, self.lex.t, self.lex.x
        if name in self.pron:
            return self.pron[name]
        if name == "pt":
            if self.chance(self.s["pt_named"]):
                return self.patient_name("text")
            return self.ch(("the patient", "the patient", "the patient", "patient", "this patient"))
        if name == "pt_full":
            return self.patient_name("full")
        if name == "age":
            if self.age > 89:
                return [(str(self.age), "AGE")]
            return str(self.age)
        if name == "dx":
            return self.ch(t["diagnoses"])
        if name == "symptom":
            return self.ch(t["symptoms"])
        if name == "proc":
            return self.ch(t["procedures"])
        if name == "finding":
            return self.ch(t["findings"])
        if name == "drug":
            self.drug = self.ch(t["drugs"])
            return self.drug[0]
        if name == "dose":
            drug = self.drug or self.ch(t["drugs"])
            return f"{self.ch(drug[1])} {drug[2]}"
        if name == "freq":
            return self.ch(t["frequencies"])
        if name == "route":
            return self.ch(t["routes"])
        if name == "relative":
            return self.ch(t["relatives"])
        if name == "occupation":
            return self.ch(t["occupations"])
        if name == "specialty":
            return self.ch(t["specialties"])
        if name == "service":
            return self.service
        if name == "disposition_place":
            return self.ch(t["dispositions"]).lower()
        if name == "duration":
            return self.ch(x["durations"])
        if name == "clock":
            return self.ch(x["clock_times"])
        if name == "nth":
            return self.ch(x["nth"])
        if name == "facility":
            return [(self.ch(self.w.facilities), "HOSPITAL")]
        if name == "city_phrase":
            return self.city()
        if name == "country":
            return [(self.ch(self.lex.countries), "LOCATION")]
        if name == "hosp":
            return self.hosp()
        if name == "hosp_full":
            return self.hosp(kind="full")
        if name == "hosp_short":
            return self.hosp(kind="short")
        if name == "hosp_unit":
            unit = self.ch(self.lex.x["units"])
            if self.chance(0.5):
                return [(f"the {unit} of ", None), (self.ch((self.hospital.short, self.hospital.name)), "HOSPITAL")]
            return [("the ", None), (self.ch((self.hospital.short, self.hospital.partial)), "HOSPITAL"),
                    (f" {unit}", None)]
        if name == "other_hosp":
            other = self.ch(self.other_hospitals) if self.other_hospitals else self.hospital
            return self.hosp(other, "full" if self.chance(0.6) else "text")
        if name in ("pcp", "attending", "consultant"):
            return self.doctor(self._doc(name))
        if name in ("pcp_full", "consultant_full"):
            return self.doctor(self._doc(name[:-5]), "full")
        if name == "pcp_last":
            return [(self.p.pcp.last, "DOCTOR")]
        if name == "pcp_possessive":
            return [("Dr. ", None), (self.p.pcp.last, "DOCTOR"), ("'s", None)]
        if name in ("clinic_phone", "pcp_phone"):
            return self.phone(self.hospital.phone if name == "clinic_phone" and self.chance(0.5)
                              else None)
        if name == "date":
            return self.date(self.during())
        if name == "adm_date":
            return self.date(self.adm)
        if name == "dis_date":
            return self.date(self.dis)
        if name == "date_recent":
            return self.date(self.before(1, 12))
        if name == "fu_date":
            return self.date(self.dis + _dt.timedelta(rng.randint(5, 60)))
        if name == "past_date":
            return self.date(self.before(30, 3000), precise=False)
        if name == "past_year":
            return [(str(self.before(200, 5000).year), "DATE")]
        if name == "past_month":
            d = self.before(30, 700)
            fmt = rng.random()
            if fmt < 0.5:
                return [(f"{_MONTHS[d.month - 1]} {d.year}", "DATE")]
            if fmt < 0.7:
                return [(f"{_MONTHS[d.month - 1]} of ", "DATE")][:0] + [
                    (f"{_MONTHS[d.month - 1]} of {d.year}", "DATE")]
            if fmt < 0.85:
                return [(f"{d.month}/{d.year % 100:02d}", "DATE")]
            return [(_MONTHS[d.month - 1], "DATE")]
        if name == "accession":
            return [(self.ch((f"{rng.randint(1000000, 99999999)}",
                              f"{self.ch('SRPC')}{self.adm.year % 100:02d}-{rng.randint(1000, 99999)}")),
                     "ID")]
        if name == "mrn":
            return [(self.p.mrn, "ID")]
        if name == "lab_phrase":
            lab = self.ch(t["labs"])
            return f"{lab[0]} of {self._lab_value(lab)}"
        if name == "bp":
            return f"{rng.randint(90, 190)}/{rng.randint(50, 105)}"
        if name == "hr":
            return str(rng.randint(52, 128))
        if name == "rr":
            return str(rng.randint(12, 28))
        if name == "sat":
            return str(rng.randint(88, 100))
        if name == "temp":
            return self.ch((f"{rng.randint(970, 1032) / 10:.1f}", f"{rng.randint(360, 395) / 10:.1f}"))
        if name == "cr":
            return f"{rng.randint(6, 40) / 10:.1f}"
        if name == "hct":
            return f"{rng.randint(200, 450) / 10:.1f}"
        if name == "inr":
            return f"{rng.randint(9, 45) / 10:.1f}"
        if name == "n_small":
            self._n = rng.randint(2, 5)
            return str(self._n)
        if name == "n_small2":
            return str(getattr(self, "_n", 2) + rng.randint(1, 3))
        if name == "n_years":
            return str(rng.randint(2, 30))
        if name == "n_packyears":
            return str(rng.choice((10, 20, 30, 40, 50, 60, 80)))
        if name == "n_age_relative":
            return str(rng.randint(45, 85))
        if name == "course":
            return self.render(self.template(self.lex.sent["course"]))
        raise KeyError(f"unknown template slot {{{name}}}")

    def _doc(self, role: str) -> _Person:
        if role == "pcp":
            return self.p.pcp
        if role == "attending":
            return self.attending
        return self.ch(self.consultants)

    def _lab_value(self, lab) -> str:
        value = self.rng.uniform(lab[2], lab[3])
        return f"{value:.{lab[4]}f}"

    def template(self, templates: list[str]) -> str:
        """A template of ``templates``, drawn so that templates with PHI slots are kept with
        probability :data:`_ACCEPT` per slot (this tunes the class proportions)."""
        for _ in range(4):
            template = self.ch(templates)
            keep = 1.0
            for slot in _SLOT.findall(template):
                keep *= _ACCEPT.get(_SLOT_CLASS.get(slot.lower()), 1.0)
            if self.rng.random() < keep:
                return template
        return template

    def sentences(self, key: str, n: int) -> list[Piece]:
        return self._sentences_from(self.lex.sent[key], n)

    # ---- headings and sections
    def heading(self, key: str) -> list[Piece]:
        variants = self.lex.t["headings"][key]
        case = self.s["heading_case"]
        if case == "short":
            name = min(variants, key=len) if self.chance(0.6) else self.ch(variants)
        else:
            name = self.ch(variants)
        if case == "upper":
            name = name.upper()
        elif case == "title" and name.isupper() and len(name) > 4 and self.chance(0.7):
            name = " ".join(w if w in ("AND", "OF", "ON", "AT", "THE", "BY") and False
                            else w.capitalize() for w in name.split())
            name = re.sub(r"\b(And|Of|On|At|The|By)\b", lambda m: m.group().lower(), name)
        colon = ":" if self.chance(0.85) else ""
        newline = self.chance(self.s["heading_newline"]) or not colon
        return [(name + colon, None), ("\n" if newline else " ", None)]

    def listing(self, items: list[list[Piece]], inline: bool = False) -> list[Piece]:
        out: list[Piece] = []
        if inline:
            for i, item in enumerate(items):
                if i:
                    out.append((", " if self.chance(0.85) else "; ", None))
                out += item
            return out + [(".", None)] if self.chance(0.5) else out
        kind = self.s["list"] if self.chance(0.8) else self.ch(("numbered", "plain", "dash"))
        for i, item in enumerate(items):
            if i:
                out.append(("\n", None))
            if kind == "numbered":
                out.append((f"{i + 1}{self.ch(('.', '.', ')'))} ", None))
            elif kind == "dash":
                out.append(("- ", None))
            out += item
        return out

    def med(self) -> list[Piece]:
        name, doses, unit = self.ch(self.lex.t["drugs"])
        dose = self.ch(doses)
        text = f"{name} {dose}{'' if self.chance(0.8) else ''} {unit}" if self.chance(0.85) \
            else f"{name} {dose}{unit}"
        if self.chance(0.7):
            text += f" {self.ch(self.lex.t['routes'])}"
        text += f" {self.ch(self.lex.t['frequencies'])}"
        return [(text, None)]

    def labs(self) -> list[Piece]:
        labs = self.rng.sample(self.lex.t["labs"], self.rng.randint(4, 10))
        prose = self.chance(self.s["labs_prose"])
        parts = [f"{(lab[0] if prose else lab[1])} {self._lab_value(lab)}" for lab in labs]
        out: list[Piece] = []
        if self.chance(0.35):
            out += [(self.ch(("On admission, ", "Labs on ", "Admission labs ", "On ")), None)]
            out += self.date(self.adm)
            out += [(self.ch((": ", ", ", " were notable for ")), None)]
        body = ", ".join(parts)
        out.append((_cap(body) if not out else body, None))
        out.append((".", None))
        if self.chance(0.3):
            out += [(" Discharge labs", None)]
            if self.chance(0.5):
                out += [(" (", None)] + self.date(self.dis) + [(")", None)]
            out += [(": " + ", ".join(f"{lab[1]} {self._lab_value(lab)}" for lab in labs[:4]) + ".",
                     None)]
        return out

    def section(self, key: str) -> list[Piece]:  # noqa: C901 - one branch a section
        rng, t, x = self.rng, self.lex.t, self.lex.x
        if key == "cc":
            return self.render(self.template(x["chief_complaints"]))
        if key == "hpi":
            out = self.render(self.template(self.lex.sent["hpi_open"]))
            out += [(" ", None)] + self.sentences("hpi", rng.randint(4, 8))
            if self.chance(0.4):
                out += [("\n\n", None)] + self.sentences("hpi", rng.randint(2, 4))
            return out
        if key == "pmh":
            items = []
            for _ in range(rng.randint(3, 7)):
                if self.chance(0.3):
                    items.append(self.render(self.template(self.lex.sent["pmh_year"])))
                else:
                    items.append([(_cap(self.ch(t["diagnoses"])), None)])
            return self.listing(items, inline=self.chance(0.35))
        if key == "psh":
            items = [self.render(self.ch(("{Proc} ({past_year})", "{Proc}", "{Proc}, {past_date}",
                                          "{Proc} at {other_hosp}")))
                     for _ in range(rng.randint(1, 3))]
            return self.listing(items, inline=self.chance(0.5))
        if key in ("adm_meds", "dis_meds"):
            items = [self.med() for _ in range(rng.randint(4, 12))]
            return self.listing(items, inline=self.chance(self.s["meds_inline"]))
        if key == "allergies":
            return [(self.ch(t["allergies"]) + self.ch(("", ".")), None)]
        if key == "social":
            return self.sentences("social", rng.randint(2, 4)) if "social" in self.lex.sent \
                else self._sentences_from(t["social"], rng.randint(2, 4))
        if key == "family":
            return self._sentences_from(t["family"], rng.randint(1, 2))
        if key == "ros":
            return self._sentences_from(t["ros"], rng.randint(1, 2))
        if key == "exam":
            out: list[Piece] = []
            parts = [p for p in t["exam"] if p == "vitals" or self.chance(0.7)]
            for i, part in enumerate(parts):
                if i:
                    out.append(("\n" if self.chance(0.7) else " ", None))
                out.append((self.ch(x["exam_labels"][part]) + ": ", None))
                out += self.render(self.ch(t["exam"][part]))
            return out
        if key == "labs":
            return self.labs()
        if key == "studies":
            return self.listing([self.render(self.template(self.lex.sent["studies"]))
                                 for _ in range(rng.randint(1, 4))])
        if key == "course":
            if self.chance(0.35):
                out = []
                for i in range(rng.randint(2, 5)):
                    if i:
                        out.append(("\n\n" if self.chance(0.6) else "\n", None))
                    out += self.render(self.template(self.lex.sent["course_problem"]))
                return out
            out = self.sentences("course", rng.randint(5, 10))
            if self.chance(0.5):
                out += [("\n\n", None)] + self.sentences("course", rng.randint(2, 5))
            return out
        if key == "consults":
            return self.listing([self.render(self.template(self.lex.sent["consults"]))
                                 for _ in range(rng.randint(1, 3))])
        if key == "procedures":
            items = []
            for _ in range(rng.randint(1, 3)):
                item: list[Piece] = []
                if self.chance(0.6):
                    item += self.date(self.during()) + [(self.ch((" ", " - ", ": ")), None)]
                item.append((self.ch(t["procedures"]), None))
                items.append(item)
            return self.listing(items)
        if key == "principal_dx":
            return [(_cap(self.ch(t["diagnoses"])), None)]
        if key == "other_dx":
            return self.listing([[(_cap(self.ch(t["diagnoses"])), None)]
                                 for _ in range(rng.randint(2, 5))], inline=self.chance(0.3))
        if key == "condition":
            return [(self.ch(t["conditions"]) + self.ch(("", ".")), None)]
        if key == "disposition":
            out = self.render(self.template(self.lex.sent["disposition"]))
            if self.chance(0.4):
                out += [(" ", None)] + self._sentences_from(x["sentences"]["instructions"],
                                                           rng.randint(1, 3))
            return out
        if key == "diet":
            return [(self.ch(t["diets"]), None)]
        if key == "activity":
            return [(self.ch(t["activities"]), None)]
        if key == "followup":
            return self.sentences("followup", rng.randint(1, 3))
        if key == "code":
            return [(self.ch(x["code_status"]), None)]
        raise KeyError(key)

    def _sentences_from(self, templates: list[str], n: int) -> list[Piece]:
        out: list[Piece] = []
        for i in range(n):
            if i:
                out.append((" ", None))
            out += self.render(self.template(templates))
        return out

    # ---- header and signature layouts
    def id_line(self) -> list[Piece]:
        rng = self.rng
        first = f"{rng.randint(100000000, 999999999)}"
        second = f"{rng.randint(1000000, 9999999)}"
        form = rng.random()
        if form < 0.3:
            return [("Record #: ", None), (first, "ID"), ("  Encounter: ", None), (self.account(), "ID")]
        if form < 0.55:
            return [(first, "ID"), (f" {self.ch(('EMR', 'DS', 'DIS', 'ED'))} ", None), (second, "ID")]
        if form < 0.8:
            return [("Report ID: ", None), (first, "ID")]
        return [("[", None), (second, "ID"), ("]", None)]

    def account(self) -> str:
        return f"{self.ch(('', '', 'A', 'V', 'E'))}{self.rng.randint(10000000, 99999999)}"

    def label(self, key: str) -> str:
        return self.ch(self.lex.x["header_labels"][key])

    def header(self) -> list[Piece]:
        rng, s, p, h = self.rng, self.s, self.p, self.hospital
        hd = s["header_date"]
        layout = s["header"]
        out: list[Piece] = []
        if layout != "pipe" and self.chance(0.6):
            out += self.id_line() + [("\n", None)]
        if layout == "pipe":
            out += [(f"{rng.randint(100000000, 999999999)}", "ID"), (" | ", None),
                    (h.short, "HOSPITAL"), (" | ", None), (p.mrn.replace("-", ""), "ID"),
                    (" | | ", None), (f"{rng.randint(1000000, 9999999)}", "ID"), (" | ", None)]
            out += self.date(self.adm, "mdy4")[-1:]
            out += [(f" 12:00:00 AM | {self.ch(self.lex.t['diagnoses']).upper()} | "
                     f"{self.ch(self.lex.x['pipe_status'])} | {self.ch(self.lex.x['pipe_codes'])} | "
                     f"Admission Date: ", None)]
            out += self.date(self.adm, "mdy4")[-1:]
            out += [(" Report Status: Signed\n\nDischarge Date: ", None)]
            out += self.date(self.dis, "mdy4")[-1:]
            if self.chance(0.3):
                out += [("\n\nPATIENT: ", None)] + self.patient_name("header")
            if self.chance(0.4):
                out += [("\nUNIT NUMBER: ", None), (self.p.mrn, "ID")]
            out += [("\nATTENDING: ", None)] + self.doctor(self.attending, "sig")
            if self.chance(0.5):
                out += [(f"\nSERVICE: {self.service.upper()}", None)]
            return out + [("\n\n", None)]
        if layout == "block":
            out += [(h.name.upper(), "HOSPITAL"), ("\n", None)]
            if self.chance(0.3):
                out += [(h.city.upper(), "LOCATION"), (", ", None), (h.state, "LOCATION"),
                        ("\n", None)]
            out += [(f"{self.label('title').upper()}\n\n", None)]
            out += [(f"{self.label('patient').upper()}: ", None)] + self.patient_name("header")
            out += [(self.ch(("    ", "\n", "  ")) + f"{self.label('mrn').upper()}: ", None),
                    (p.mrn, "ID"), ("\n", None)]
            if self.chance(0.8):
                out += [(f"{self.label('account').upper()}: ", None), (self.account(), "ID")]
                if self.chance(0.5):
                    out += [("    ADM #: ", None), (f"{rng.randint(100000, 9999999)}", "ID")]
                out.append(("\n", None))
            out += [(f"{self.label('admission').upper()}: ", None)] + self.date(self.adm, hd)[-1:]
            out += [(self.ch(("    ", "\n")) + f"{self.label('discharge').upper()}: ", None)]
            out += self.date(self.dis, hd)[-1:] + [("\n", None)]
            out += [(f"{self.label('attending').upper()}: ", None)] + self.doctor(self.attending, "sig")
            if self.chance(0.4):
                out += [(f"\n{self.label('pcp').upper()}: ", None)] + self.doctor(p.pcp, "sig")
            return out + [("\n\n", None)]
        if layout == "labeled":
            out += [(self.label("title") + "\n", None), (h.name, "HOSPITAL")]
            if self.chance(0.5):
                out += [(" (", None), (h.short, "HOSPITAL"), (")", None)]
            out.append(("\n", None))
            if self.chance(0.25):
                out += self.address(h.street, h.city, h.state, h.zip) + [("\n", None)]
            out += [(self.label("patient") + ": ", None)] + self.patient_name("header")
            out += [("\n" + self.label("mrn") + ": ", None), (p.mrn, "ID")]
            if self.chance(0.85):
                out += [(self.ch(("   ", "\n")) + self.label("account") + ": ", None),
                        (self.account(), "ID")]
            if self.chance(0.4):
                out += [(self.ch(("   ", "\n")) + "Admission #: ", None),
                        (f"{rng.randint(100000, 9999999)}", "ID")]
            out += [("\n" + self.label("admission") + ": ", None)] + self.date(self.adm, hd)[-1:]
            out += [("\n" + self.label("discharge") + ": ", None)] + self.date(self.dis, hd)[-1:]
            out += [("\n" + self.label("attending") + ": ", None)] + self.doctor(self.attending, "full")
            if self.chance(0.4):
                out += [("\n" + self.label("pcp") + ": ", None)] + self.doctor(p.pcp, "full")
                if self.chance(0.3):
                    out += [(", ", None)] + self.phone()
            out += [("\n" + self.label("service") + ": " + self.service, None)]
            return out + [("\n\n", None)]
        if layout == "letter":
            out += [(h.name, "HOSPITAL"), ("\n", None)]
            out += [(f"Department of {self.ch(('Medicine', 'Cardiology', 'Surgery', 'Neurology'))}\n", None)]
            if self.chance(0.4):
                out += [(h.street, "LOCATION"), ("\n", None), (h.city, "LOCATION"), (", ", None),
                        (h.state, "LOCATION"), (" ", None), (h.zip, "LOCATION"), ("\n", None)]
            if self.chance(0.3):
                out += [(self.ch(("Tel: ", "Phone ", "Telephone: ")), None)] + self.phone(h.phone)
            if self.chance(0.1):
                out += [("  Fax: ", None)] + self.phone((h.phone[0], h.phone[1], f"{self.rng.randint(0, 9999):04d}"))
            out += [("\n\n", None)] + self.date(self.dis + _dt.timedelta(rng.randint(0, 4)), "long")
            out += [("\n\n", None)] + self.doctor(p.pcp, "full") + [("\n", None)]
            out += [(self.ch(("Internal Medicine Associates", "Primary Care Center", "Family Practice")), None),
                    (self.ch((" of ", ", ")), None)] + self.hosp(p.pcp_hospital, "short")
            out += [("\n\n", None), (self.ch(("RE: ", "Re: ", "RE: ")), None)]
            out += self.patient_name(self.ch(("full", "header")))
            out += [("\n" + self.label("mrn") + ": ", None), (p.mrn, "ID")]
            if self.chance(0.6):
                out += [("   " + self.label("account") + ": ", None), (self.account(), "ID")]
            if self.chance(0.5):
                out += [("\nDOB: ", None)] + self.date(self.adm.replace(day=1) - _dt.timedelta(
                    days=365 * self.age + rng.randint(0, 360)), "mdy4z")[-1:]
            out += [("\nDates of hospitalization: ", None)] + self.date(self.adm, "mdy4")[-1:]
            out += [(" - ", None)] + self.date(self.dis, "mdy4")[-1:]
            out += [("\n\nDear ", None), ("Dr. ", None), (p.pcp.last, "DOCTOR"), (":\n\n", None)]
            out += self.render(self.template(self.lex.sent["letter_open"])) + [("\n\n", None)]
            return out
        # terse
        out += [(self.ch(("DISCHARGE NOTE", "D/C SUMMARY", "Discharge Summary")), None), ("  ", None)]
        out += self.hosp(kind="short") + [("\n", None)]
        out += [(self.ch(("Pt: ", "Name: ", "")), None)] + self.patient_name("header")
        out += [(self.ch(("   MR#: ", "  MRN ", "\nMRN: ")), None), (p.mrn, "ID")]
        if self.chance(0.7):
            out += [(self.ch(("  Acct: ", "  Visit: ", " / ")), None), (self.account(), "ID")]
        out.append(("\n", None))
        out += [("Adm: ", None)] + self.date(self.adm, hd)[-1:] + [(self.ch(("  D/C: ", "\nD/C: ")), None)]
        out += self.date(self.dis, hd)[-1:] + [("\n", None)]
        out += [("Attg: ", None)] + self.doctor(self.attending)
        if self.chance(0.5):
            out += [(" / PCP: ", None)] + self.doctor(p.pcp)
        out += [("\n\n", None)]
        return out

    def signature(self) -> list[Piece]:
        rng = self.rng
        kind = self.ch(self.s["signatures"])
        d = self.dictator
        tx = self.ch(self.lex.x["transcriptionists"])
        dd = self.dis + _dt.timedelta(rng.randint(0, 2))
        td = dd + _dt.timedelta(rng.randint(0, 3))
        fmt = self.ch(("mdy2", "mdy4", "mdy2n"))
        out: list[Piece] = [("\n\n", None)]
        if kind == "dictated":
            out += [(self.label("dictated") + ": ", None)] + self.doctor(d, "sig")
            if self.chance(0.6):
                out += [("\n" + self.ch(("Attending", "ATTENDING")) + ": ", None)] + self.doctor(self.attending, "sig")
            if self.chance(0.7):
                out += [(" " if self.chance(0.5) else "\n", None), (d.initials, "DOCTOR"),
                        (f"/{tx}", None)]
            out += [("\n" + self.ch(("DD", "D")) + ": ", None)] + self.date(dd, fmt)[-1:]
            out += [("\n" + self.ch(("TD", "T")) + ": ", None)] + self.date(td, fmt)[-1:]
            if self.chance(0.5):
                out += [(f" {rng.randint(1, 12)}:{rng.randint(0, 59):02d} {self.ch(('A', 'P', 'AM', 'PM'))}", None)]
            if self.chance(0.7):
                out += [("\nBatch: ", None), (f"{rng.randint(1000, 99999)}", "ID")]
                if self.chance(0.5):
                    out += [(" Index No. ", None),
                            ("".join(rng.choice("ABCDEFGHJKLMNPRSTVWXYZ0123456789") for _ in range(10)), "ID")]
            if self.chance(0.5):
                out += [("\n" + self.ch(("Document", "DICTATION ID", "Dictation #", "eScription document")) + ": ", None),
                        (f"{rng.randint(100000, 9999999)}", "ID")]
            if self.chance(0.5):
                out += [("\ncc: ", None)] + self.doctor(self.p.pcp, "sig")
                if self.chance(0.3):
                    out += [("\n", None)] + self.doctor(self.ch(self.consultants), "sig")
        elif kind == "dictated2":
            out += [("______________________________\n", None)] + self.doctor(d, "sig")
            out += [("\n\n" + self.label("dictated").upper() + ": ", None)] + self.doctor(d, "sig")
            if self.chance(0.6):
                out += [("\nDOC #: ", None), (f"{rng.randint(100000, 9999999)}", "ID")]
            out += [(f"\nTR: {tx}\nDD: ", None)] + self.date(dd, fmt)[-1:]
            out += [("\nTD: ", None)] + self.date(td, fmt)[-1:]
            out += [(f" {rng.randint(1, 12)}:{rng.randint(0, 59):02d} {self.ch(('A', 'P'))}", None)]
            if self.chance(0.7):
                out += [("\ncc: ", None)] + self.doctor(self.p.pcp, "sig")
        elif kind == "esign":
            out += [(self.label("signed") + ": ", None)] + self.doctor(d, "full")
            out += [(" on " if self.chance(0.5) else " ", None)] + self.date(td, "mdy4z")[-1:]
            out += [(f" {rng.randint(7, 18)}:{rng.randint(0, 59):02d}", None)]
            if self.chance(0.7):
                out += [("\nDocument #: ", None), (f"{rng.randint(1000000, 9999999)}", "ID")]
            if self.chance(0.5):
                out += [("\ncc: ", None)] + self.doctor(self.p.pcp, "full")
        elif kind == "letter":
            out += self.render(self.template(self.lex.sent["letter_close"]))
            out += [("\n\nSincerely,\n\n", None)] + self.doctor(d, "full")
            out += [(f"\n{self.ch(('Division', 'Department', 'Section'))} of "
                     f"{_cap(self.ch(self.lex.t['specialties']))}\n", None)]
            out += self.hosp(kind="short" if self.chance(0.5) else "full")
            out += [("\n\ncc: ", None)] + self.doctor(self.ch(self.consultants), "full")
            out += [("\n", None), (d.initials, "DOCTOR"), (f"/{tx}", None)]
            out += [("\nD: ", None)] + self.date(dd, fmt)[-1:] + [("\nT: ", None)] + self.date(td, fmt)[-1:]
        else:  # initials
            out += [(d.initials, "DOCTOR"), (f"/{tx}", None), ("  D: ", None)]
            out += self.date(dd, fmt)[-1:] + [("  T: ", None)] + self.date(td, fmt)[-1:]
            if self.chance(0.6):
                out += [(self.ch(("  Job#: ", "  Job #: ", "  JOB#: ")), None), (f"{rng.randint(10000, 999999)}", "ID")]
            if self.chance(0.5):
                out += [("\n", None)] + self.doctor(d, "sig")
        return out

    # ---- the whole record
    def build(self) -> list[Piece]:
        out = self.header()
        order = _ORDERS[self.s["order"]]
        wrap = self.s["wrap"]
        first = True
        for key in order:
            if key not in _CORE and not self.chance(_KEEP):
                continue
            if key == "hpi" and self.s["order"] == "letter" and first and self.chance(0.4):
                body = self.section(key)  # letters often open without a heading
            else:
                body = self.heading(key) + self.section(key)
            if wrap:
                body = _wrap(body, wrap)
            if self.chance(self.s["caps_section"]):
                body = [(text.upper(), cls) for text, cls in body]
            out += ([] if first else [("\n\n", None)]) + body
            first = False
        out += self.signature()
        out.append(("\n\n[ report_end ]\n", None))
        return out


def _wrap(pieces: list[Piece], width: int) -> list[Piece]:
    """``pieces`` with spaces of non-PHI text turned into line breaks where a line would pass
    ``width`` (a PHI piece is never broken)."""
    atoms: list[Piece] = []
    for text, cls in pieces:
        if cls is not None:
            atoms.append((text, cls))
        else:
            atoms += [(part, None) for part in re.split(r"( )", text) if part]
    out: list[Piece] = []
    column = 0
    for i, (text, cls) in enumerate(atoms):
        if text == " " and cls is None:
            following = atoms[i + 1][0] if i + 1 < len(atoms) else ""
            if column + 1 + len(following) > width:
                out.append(("\n", None))
                column = 0
                continue
        out.append((text, cls))
        newline = text.rfind("\n")
        column = len(text) - newline - 1 if newline >= 0 else column + len(text)
    return out


def _assemble(pieces: list[Piece]) -> tuple[str, list[Span]]:
    parts: list[str] = []
    spans: list[Span] = []
    position = 0
    previous = ""
    for text, cls in pieces:
        if cls is None and previous.endswith(".") and text.startswith(".") \
                and not text.startswith(".."):
            text = text[1:]  # 'M.D.' or 'q.i.d.' before a sentence's period
        if not text:
            continue
        previous = text if cls is None else ""
        if cls is not None:
            if text != text.strip():
                raise AssertionError(f"PHI piece with surrounding whitespace: {text!r}")
            if spans and spans[-1].end == position and spans[-1].type == cls:
                # adjacent pieces of one class make one mention
                spans[-1] = Span(spans[-1].start, position + len(text), cls)
            else:
                spans.append(Span(position, position + len(text), cls))
        parts.append(text)
        position += len(text)
    return "".join(parts), spans


def generate(records: int, seed: int = 0) -> list[Document]:
    """``records`` synthetic discharge summaries with gold PHI spans, the same for the same
    ``seed``. Documents are ``<patient>-<n>`` (a patient's admissions in date order) and carry
    ``patient``."""
    if records < 0:
        raise ValueError("records must be >= 0")
    rng = random.Random(seed)
    world = _World(rng, records)
    documents = []
    for patient, index in world.patients(records):
        record = _Record(world, patient, index, rng)
        text, spans = _assemble(record.build())
        documents.append(Document(f"{patient.number}-{index + 1}", text, spans,
                                  patient=str(patient.number)))
    return documents
