"""ICU nursing progress notes, the generator's second kind of record (issue H).

A model trained only on discharge summaries is lost on ICU nursing notes (the PhysioNet deid
corpus): they are short, often all capitals or all lower case, telegraphic, written by system
heading ('NEURO:', 'CV:', 'RESP:') or S/O/A/P, full of numbers shaped like dates that are not
(ventilator settings 'PS 10/5/50%', 'A/C 700x12/5/40%', pain '6/10', cultures '2/4 bottles',
ranges), misspelled, and their PHI is of other kinds: relatives after a relation word ('WIFE
MARY IN TO VISIT'), staff after a title or role ('DR SMITH AWARE', 'NP JEN'), the writer's
signature ('J. DOE RN'), hospitals and rehab facilities in the note's case, days as m/d ('8/14'),
two-digit years after history items ("MI '92"), relatives' phones, ages over 89.

:class:`NursingNote` writes one such note about one admission of one patient of the
:class:`~itdeid.synth.world.World`, naming its doctors, its hospital, the world's other hospitals
and facilities (relatives, nurses and the writer are drawn from the world's name sources): a
header line ('NPN 7a-7p', a DATE in it now and then), one of four bodies (:data:`BODIES`: system
sections, S/O/A/P, a few lines of narrative, a respiratory therapist's note) and the writer's
signature. Its phrases and headings are in ``gazetteers/synth_nursing.json`` (``lex.nursing``).
Two passes finish the note: :func:`misspell` drops, swaps or doubles a letter of a few ordinary
words in non-PHI pieces, and :func:`cased` writes the whole note, PHI included, in the note's
casing (:data:`CASING`).

Conventions, the corpus's (:mod:`itdeid.synth`) and the i2b2 2006 guideline's: a relative's name
is PATIENT (PhysioNet's RelativeProxyName), nurses, therapists and other staff are DOCTOR
(HCPName); relation words, titles and roles are outside the span, and so is the apostrophe of
"'92"; a two-digit year is DATE; shift times, clock times and measurements are not PHI.

Why a module of its own rather than a seventh entry of :data:`~itdeid.synth.styles.STYLES`: a
nursing note shares no section, header or signature with a discharge summary, only the world and
the surface forms of :mod:`~itdeid.synth.mentions`; and hospitals take their styles from
STYLES in turn, from the one random stream, so an entry there would change every corpus already
generated (``test_corpus_pinned``). :func:`~itdeid.synth.generate` writes nursing notes only
when asked (``nursing=``, ``itdeid synth --nursing-share``).
"""
from __future__ import annotations

import datetime as _dt
import random
import re

from itdeid.synth.mentions import Mentions
from itdeid.synth.render import Piece
from itdeid.synth.world import Hospital, Patient, Person, World

#: How a note is cased, by weight: all capitals, all lower case, or as its phrases are written
#: (lower case with capital headings and abbreviations). On the PhysioNet developer split about 3
#: notes in 10 are all capitals, 2 all lower case and 5 lower case with a few capitals; these
#: weights lean to capitals, the harder case for a model trained on discharge summaries.
CASING = {"upper": 0.5, "lower": 0.25, "mixed": 0.25}
#: The note's body, by weight.
BODIES = {"systems": 0.6, "soap": 0.12, "narrative": 0.1, "rt": 0.18}
#: Share of notes with misspelled words (one to three each).
MISSPELLED = 0.6
#: Share of notes of system sections with a social line (relatives, named or not).
SOCIAL = 0.5
#: Share of notes written without PHI (no name, place, date or phone; an age over 89 may stay):
#: two real nursing notes in three have none, so a model must see many such notes.
PLAIN = 0.45
#: Systems written in a note of system sections, in order, with the probability of each.
SYSTEMS = {"neuro": 0.9, "cv": 0.9, "resp": 0.9, "gi": 0.8, "gu": 0.75, "id": 0.55,
           "skin": 0.45, "endo": 0.2, "heme": 0.2, "access": 0.2, "pain": 0.15}

_SLOT = re.compile(r"\{(\w+)\}")
#: A word a misspelling may touch: five or more lower-case letters, not inside a number shape.
_WORD = re.compile(r"(?<![\w/'.-])[a-z]{5,}(?![\w/'-])")


def _range(r: random.Random, lo: int, hi: int, step: int) -> str:
    a = r.randrange(lo, hi, step)
    return f"{a}-{a + step * r.randint(1, 3)}{'s' if r.random() < 0.4 else ''}"


def _vent(r: random.Random) -> str:
    peep, fio2 = r.choice((5, 5, 5, 8, 10, 12)), r.randrange(30, 105, 5)
    ps, tv, rate = r.choice((5, 8, 10, 10, 12, 15, 18, 20)), r.randrange(400, 850, 50), r.randint(8, 22)
    return r.choice((f"PS {ps}/{peep}/{fio2}%", f"PS {ps}/{peep}/{fio2}%",
                     f"A/C {tv}x{rate}/{peep}/{fio2}%", f"A/C {tv}x{rate}/{peep}/{fio2}%",
                     f"CPAP {peep}/{fio2}%", f"SIMV {tv}x{rate}/{peep}/{fio2}% PS {ps}",
                     f"CPAP+PS {ps}/{peep}", f"AC {tv}x{rate} peep {peep} fio2 {fio2}%",
                     f"PSV {ps}/{peep} {fio2}%"))


def _abg(r: random.Random) -> str:
    gas = f"7.{r.randint(20, 49)}/{r.randint(28, 70)}/{r.randint(55, 250)}"
    return gas + (f"/{r.randint(16, 34)}/{r.randint(-8, 6)}" if r.random() < 0.4 else "")


def _decimal(lo: float, hi: float, places: int = 1):
    return lambda r: f"{r.uniform(lo, hi):.{places}f}"


#: Measurement slots of the phrases (none is PHI), each a function of the random stream.
MEASURES = {
    "pupil": lambda r: r.choice(("2", "3", "3-2", "4-3", "2-1")),
    "propofol": lambda r: str(r.randrange(10, 65, 5)), "gcs": lambda r: str(r.randint(3, 15)),
    "pain": lambda r: f"{r.randint(0, 10)}/10", "n": lambda r: str(r.randint(1, 5)),
    "fent": lambda r: str(r.randrange(25, 300, 25)),
    "hr_range": lambda r: _range(r, 50, 130, 10), "sbp_range": lambda r: _range(r, 80, 170, 10),
    "map_range": lambda r: _range(r, 55, 90, 5), "cvp_range": lambda r: _range(r, 8, 24, 2),
    "glu_range": lambda r: _range(r, 70, 300, 10).rstrip("s"),
    "tv_range": lambda r: _range(r, 250, 700, 50).rstrip("s"),
    "sat_range": lambda r: f"{r.randint(88, 95)}-{r.randint(96, 100)}%",
    "rr_range": lambda r: _range(r, 12, 34, 2),
    "bp": lambda r: f"{r.randint(80, 180)}/{r.randint(40, 95)}",
    "pa": lambda r: f"{r.randint(25, 70)}/{r.randint(10, 35)}",
    "clock": lambda r: r.choice((f"{r.randint(0, 23):02d}{r.choice(('00', '30', '15', '45'))}",
                                  f"{r.randint(1, 12)}{r.choice(('am', 'pm', 'a', 'p'))}",
                                  f"{r.randint(1, 12)}:{r.choice(('00', '30'))}")),
    "levo": _decimal(0.02, 0.4, 2), "dopa": lambda r: str(r.randint(2, 20)),
    "k": _decimal(2.9, 5.6), "kcl": lambda r: r.choice(("20", "40", "60")), "mg": _decimal(1.2, 2.8),
    "ci": _decimal(1.5, 4.0), "cvp": lambda r: str(r.randint(2, 22)),
    "hep": lambda r: str(r.randrange(500, 1650, 50)), "ptt": lambda r: str(r.randint(30, 120)),
    "cks": lambda r: str(r.randint(50, 2000)), "trop": _decimal(0.01, 20, 2),
    "hct": _decimal(19, 40), "vent": _vent, "abg": _abg,
    "sat": lambda r: str(r.randint(88, 100)), "lpm": lambda r: str(r.randint(2, 6)),
    "fio2": lambda r: str(r.randrange(30, 105, 5)), "rsbi": lambda r: str(r.randint(20, 140)),
    "tv": lambda r: str(r.randrange(250, 700, 10)), "peep": lambda r: str(r.randint(5, 15)),
    "tf": lambda r: str(r.randrange(10, 85, 5)), "resid": lambda r: str(r.randrange(0, 160, 10)),
    "glu": lambda r: str(r.randint(70, 320)), "pct": lambda r: str(r.randrange(10, 110, 25)),
    "uo": lambda r: _range(r, 20, 150, 10).rstrip("s"),
    "lasix": lambda r: r.choice(("20", "40", "80", "100")),
    "io": lambda r: (f"{r.choice(('+', '-', 'neg ', 'pos '))}{r.randint(1, 30) * 100}"
                     f"{r.choice(('', 'cc', 'ml'))}"),
    "bun": lambda r: str(r.randint(10, 120)), "cr": _decimal(0.5, 6.0),
    "cvvh": lambda r: str(r.randrange(50, 275, 25)), "tmax": _decimal(98.0, 103.5),
    "bottles": lambda r: (lambda n: f"{r.randint(1, n)}/{n}")(r.choice((2, 4, 4))),
    "trough": lambda r: str(r.randint(5, 30)), "wbc": _decimal(2.0, 30.0),
    "ins": _decimal(0.5, 15.0), "inr": _decimal(1.0, 4.5), "plt": lambda r: str(r.randint(20, 450)),
    "dil": lambda r: r.choice(("0.5", "1", "2")), "ve": _decimal(5.0, 15.0),
}


def misspell(pieces: list[Piece], rng: random.Random,
             count: int) -> tuple[list[Piece], list[tuple[str, str]]]:
    """``pieces`` with ``count`` ordinary words (five or more lower-case letters) of non-PHI
    pieces misspelled: a letter after the first dropped, two swapped or one doubled. PHI pieces
    are never touched. Also returns the ``(word, misspelling)`` pairs."""
    spots = [(i, m.start(), m.group()) for i, (text, cls) in enumerate(pieces) if cls is None
             for m in _WORD.finditer(text)]
    out, changed = list(pieces), []
    for i, start, word in sorted(rng.sample(spots, min(count, len(spots))), reverse=True):
        k, kind = rng.randint(1, len(word) - 2), rng.random()
        if kind < 0.45:
            wrong = word[:k] + word[k + 1:]
        elif kind < 0.8 and word[k] != word[k + 1]:
            wrong = word[:k] + word[k + 1] + word[k] + word[k + 2:]
        else:
            wrong = word[:k] + word[k] + word[k:]
        text = out[i][0]
        out[i] = (text[:start] + wrong + text[start + len(word):], None)
        changed.append((word, wrong))
    return out, changed


def cased(pieces: list[Piece], casing: str) -> list[Piece]:
    """``pieces``, PHI included, in capitals (``upper``), lower case (``lower``) or as written."""
    if casing == "upper":
        return [(text.upper(), cls) for text, cls in pieces]
    if casing == "lower":
        return [(text.lower(), cls) for text, cls in pieces]
    return list(pieces)


class NursingNote(Mentions):
    """Draws one nursing progress note's pieces: a list of ``(text, class or None)``."""

    def __init__(self, world: World, patient: Patient, index: int, rng: random.Random):
        self.w, self.p, self.rng, self.lex = world, patient, rng, world.lex
        self.n = world.lex.nursing
        self.hospital: Hospital = patient.hospital
        self.adm, self.dis = patient.admissions[index]
        self.day = self.adm + _dt.timedelta(rng.randint(0, (self.dis - self.adm).days))
        self.age = patient.age + (self.adm - patient.admissions[0][0]).days // 365
        self.casing = rng.choices(list(CASING), list(CASING.values()))[0]
        self.body = rng.choices(list(BODIES), list(BODIES.values()))[0]
        self.doctors = patient.attendings + [patient.pcp] + world.popular(self.hospital.doctors, 2)
        self.staff = [world.person() for _ in range(2)]
        self.writer = world.person()
        self.family = [self._relative() for _ in range(2)]
        others = [h for h in world.popular(world.hospitals, 2) if h is not self.hospital]
        self.hospitals = others + [self.hospital]
        self.sep = self.ch((". ", ". ", ", ", "; ", ". "))
        self.plain = self.chance(PLAIN)
        self.misspelled: list[tuple[str, str]] = []

    def ch(self, items):
        return self.rng.choice(items)

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def _relation(self) -> str:
        relation = self.ch(list(self.n["relations"]))
        if relation in ("wife", "husband"):
            relation = "wife" if self.p.person.sex == "M" else "husband"
        return relation

    def _relative(self) -> tuple[str, Person]:
        relation = self._relation()
        person = self.w.person(self.n["relations"][relation])
        if self.chance(0.5):
            person.last = self.p.person.last
        return relation, person

    def phrases(self, key: str) -> list[str]:
        """The phrases of ``key``; in a note without PHI, those without PHI slots."""
        if not self.plain:
            return self.n[key]
        return [t for t in self.n[key] if not any(slot.isupper() for slot in _SLOT.findall(t))]

    def sentence(self, key: str) -> list[list[Piece]]:
        """One phrase of ``key`` filled, as a list of none or one sentence."""
        phrases = self.phrases(key)
        return [self.fill(self.ch(phrases))] if phrases else []

    # ---- the whole note
    def build(self) -> list[Piece]:
        return self.finish(self.draft())

    def draft(self) -> list[Piece]:
        """The note as written, before its misspellings and casing."""
        return self.header() + getattr(self, f"_{self.body}")() + self.signature()

    def finish(self, pieces: list[Piece]) -> list[Piece]:
        """``pieces`` misspelled now and then (the words in ``misspelled``) and cased."""
        if self.chance(MISSPELLED):
            pieces, self.misspelled = misspell(pieces, self.rng, self.rng.randint(1, 3))
        return cased(pieces, self.casing)

    def header(self) -> list[Piece]:
        if self.body == "rt":
            title = self.ch(self.n["rt_titles"])
        elif self.chance(0.8):
            title = self.ch(self.n["titles"])
            if self.chance(0.4):
                title = f"{self.ch(self.n['units'])} {title}"
        else:
            return []
        out: list[Piece] = [(title, None)]
        if not self.plain and self.chance(0.3):
            out += [(" ", None)] + self.day_mention(self.day)
        if self.chance(0.75):
            out.append((f" {self.ch(self.n['shifts'])}", None))
        return out + [(self.ch((":\n", "\n", "\n", "\n\n")), None)]

    def signature(self) -> list[Piece]:
        if self.plain or not self.chance(0.5 if self.body != "rt" else 0.8):
            return []
        d, form = self.writer, self.rng.random()
        if form < 0.45:
            name = f"{d.first[0]}. {d.last}"
        elif form < 0.75:
            name = f"{d.first} {d.last}"
        elif form < 0.9:
            name = f"{d.first[0]} {d.last}"
        else:
            name = d.first
        roles = self.n["rt_roles" if self.body == "rt" else "signature_roles"]
        return [(self.ch(("\n", "\n", "\n\n", " ")) + self.ch(("", "", "-", "")), None),
                (name, "DOCTOR"), (self.ch(roles) + "\n", None)]

    # ---- the four bodies
    def _systems(self) -> list[Piece]:
        lines: list[list[Piece]] = []
        if self.chance(0.5):
            lines.append(self.intro())
        systems = [key for key, p in SYSTEMS.items() if self.chance(p)] or ["resp"]
        extras = self.extras()
        colon = self.ch((": ", ": ", ":", "- ", ": "))
        for key in systems:
            system = self.n["systems"][key]
            k = min(self.rng.randint(2, 6), len(system["sentences"]))
            sentences = [self.fill(t) for t in self.rng.sample(system["sentences"], k)]
            sentences += extras.get(key, [])
            lines.append([(self.ch(system["headings"]) + colon, None)] + self.join(sentences))
        if self.chance(SOCIAL):
            social = [self.fill(t) for t in self.rng.sample(self.phrases("social"), self.rng.randint(1, 2))]
            lines.append([(self.ch(("SOCIAL", "Social", "SOC", "FAMILY", "Family")) + colon, None)]
                         + self.join(social))
        plan = [self.fill(t) for t in self.rng.sample(self.n["plan"], self.rng.randint(1, 3))]
        plan += extras.get("plan", [])
        lines.append([(self.ch(("PLAN", "Plan", "P", "A/P")) + colon, None)] + self.join(plan))
        return self.lines(lines)

    def _soap(self) -> list[Piece]:
        pool = [t for key in ("neuro", "cv", "resp", "gi", "gu", "id")
                for t in self.n["systems"][key]["sentences"]]
        objective = [self.fill(t) for t in self.rng.sample(pool, self.rng.randint(4, 9))]
        plan = [self.fill(t) for t in self.rng.sample(self.n["plan"], self.rng.randint(1, 3))]
        for key in ("staff", "social", "places"):
            if self.chance(0.5):
                plan += self.sentence(key)
        colon = self.ch((": ", ":", "- "))
        lines = [[("S" + colon, None)] + self.fill(self.ch(self.n["soap"]["S"])),
                 [("O" + colon, None)] + self.join(objective),
                 [("A" + colon, None)] + self.fill(self.ch(self.n["soap"]["A"])),
                 [("P" + colon, None)] + self.join(plan)]
        if self.chance(0.4):
            lines.insert(0, self.intro())
        return self.lines(lines)

    def _narrative(self) -> list[Piece]:
        keys = ("neuro", "cv", "resp", "gi", "gu")
        lines = []
        for _ in range(self.rng.randint(1, 3)):
            sentences = [self.fill(self.ch(self.n["systems"][self.ch(keys)]["sentences"]))
                         for _ in range(self.rng.randint(2, 5))]
            if self.chance(0.5):
                at = self.rng.randint(0, len(sentences))
                sentences[at:at] = self.sentence(self.ch(("staff", "social", "events", "places")))
            lines.append(self.join(sentences))
        if self.chance(0.4):
            lines[0] = [(self.ch(("Addendum: ", "ADDENDUM: ", "Events: ", "Note: ")), None)] + lines[0]
        return self.lines(lines)

    def _rt(self) -> list[Piece]:
        sentences = [self.fill(t) for t in self.rng.sample(self.n["rt_lines"], self.rng.randint(3, 6))]
        if self.chance(0.4):
            sentences += self.sentence("staff")
        if self.chance(0.5):
            return self.lines([self.join(sentences[:2]), self.join(sentences[2:])])
        return self.lines([self.join(sentences)])

    # ---- sentences, lines and their parts
    def extras(self) -> dict[str, list[list[Piece]]]:
        """Sentences with PHI for a note of system sections, by the section they go in: staff
        told of something, past events with their day, the places the patient came from or goes
        to."""
        extras: dict[str, list[list[Piece]]] = {}
        if self.plain:
            return extras
        for _ in range(self.rng.choice((0, 0, 1, 1, 2))):
            extras.setdefault(self.ch(("cv", "resp", "neuro", "gu", "plan")), []).append(
                self.fill(self.ch(self.n["staff"])))
        if self.chance(0.3):
            extras.setdefault(self.ch(("resp", "cv")), []).append(self.fill(self.ch(self.n["events"])))
        if self.chance(0.25):
            extras.setdefault("plan", []).append(self.fill(self.ch(self.n["places"])))
        return extras

    def intro(self) -> list[Piece]:
        out: list[Piece] = []
        if not self.plain and self.chance(0.12):
            p = self.p.person
            title = "Mr " if p.sex == "M" else self.ch(("Mrs ", "Ms "))
            out += [(title, None), (p.last, "PATIENT"), (self.ch((", ", " is ", ": ")), None)]
        out += self.sentence("intro")[0]
        if self.chance(0.6):
            out += [(self.sep + self.ch(self.n["history_labels"]) + ": ", None)] + self.history()
        return out

    def history(self) -> list[Piece]:
        """A past history list: conditions, and events now and then with a two-digit year."""
        items = [[(c, None)] for c in self.rng.sample(self.n["history_conditions"], self.rng.randint(1, 4))]
        for event in self.rng.sample(self.n["history_events"], self.rng.randint(0, 2)):
            year = self.day.year - self.rng.randint(1, max(2, min(30, self.age - 18)))
            form = 1.0 if self.plain else self.rng.random()
            if form < 0.4:
                items.append([(f"{event} '", None), (f"{year % 100:02d}", "DATE")])
            elif form < 0.7:
                items.append([(f"{event} ", None), (f"{year % 100:02d}", "DATE")])
            elif form < 0.8:
                items.append([(f"{event} in ", None), (f"{year % 100:02d}", "DATE")])
            elif form < 0.9:
                items.append([(f"{event} (", None), (str(year), "DATE"), (")", None)])
            else:
                items.append([(event, None)])
        self.rng.shuffle(items)
        out: list[Piece] = []
        for i, item in enumerate(items):
            out += ([(", ", None)] if i else []) + item
        return out

    def join(self, sentences: list[list[Piece]]) -> list[Piece]:
        out: list[Piece] = []
        for i, sentence in enumerate(sentences):
            out += ([(self.sep, None)] if i else []) + sentence
        return out + ([(".", None)] if self.chance(0.5) else [])

    def lines(self, lines: list[list[Piece]]) -> list[Piece]:
        out: list[Piece] = []
        for i, line in enumerate(lines):
            out += ([(self.ch(("\n", "\n", "\n", "\n\n")), None)] if i else []) + line
        return out

    def fill(self, template: str) -> list[Piece]:
        pieces: list[Piece] = []
        position = 0
        for match in _SLOT.finditer(template):
            if match.start() > position:
                pieces.append((template[position:match.start()], None))
            pieces += self.slot(match.group(1))
            position = match.end()
        if position < len(template):
            pieces.append((template[position:], None))
        return pieces

    def slot(self, name: str) -> list[Piece]:
        if name in MEASURES:
            return [(MEASURES[name](self.rng), None)]
        if name == "age":
            return [(str(self.age), "AGE" if self.age > 89 else None)]
        if name == "sex":
            male = self.p.person.sex == "M"
            return [(self.ch(("M", "male", "man", "m") if male else ("F", "female", "woman", "f")), None)]
        if name == "rel":
            return [(self._relation(), None)]
        if name in ("problem", "amount", "color"):
            return [(self.ch(self.n[name + "s"]), None)]
        if name in ("FAM", "FAM2"):
            return self.relative(*self.family[name == "FAM2"])
        if name == "DOC":
            return self.doc(self.rng.choices(self.doctors, [3, 2, 1, 1, 1][:len(self.doctors)])[0])
        if name == "STAFF":
            return self.staff_mention(self.ch(self.staff))
        if name == "HOSP":
            return self.hospital_mention(self.ch(self.hospitals))
        if name == "REHAB":
            return [(self.ch(self.w.facilities), "HOSPITAL")]
        if name == "DATE":
            days = self.rng.randint(0, (self.day - self.adm).days)
            return self.day_mention(self.adm + _dt.timedelta(days))
        if name == "PHONE":
            return self.phone(self.p.phone if self.chance(0.4) else None)
        if name == "CITY":
            return self.city(state=self.chance(0.2))
        raise KeyError(f"synth_nursing.json: unknown slot {{{name}}}")

    # ---- PHI as a nursing note writes it
    def relative(self, relation: str, person: Person) -> list[Piece]:
        form = self.rng.random()
        if form < 0.65:
            return [(f"{relation} ", None), (person.first, "PATIENT")]
        if form < 0.8:
            return [(f"{relation} ", None), (f"{person.first} {person.last}", "PATIENT")]
        if form < 0.9:
            return [(f"pt's {relation} ", None), (person.first, "PATIENT")]
        return [(person.first, "PATIENT"), (f" ({relation})", None)]

    def doc(self, d: Person) -> list[Piece]:
        title, form = self.ch(self.n["doctor_titles"]), self.rng.random()
        if form < 0.7:
            return [(title, None), (d.last, "DOCTOR")]
        if form < 0.82:
            return [(title, None), (f"{d.first} {d.last}", "DOCTOR")]
        if form < 0.92:
            return [(d.last, "DOCTOR"), (f" ({self.ch(self.n['specialties'])})", None)]
        return [(title, None), (f"{d.first[0]}. {d.last}", "DOCTOR")]

    def staff_mention(self, d: Person) -> list[Piece]:
        form = self.rng.random()
        name = d.first if form < 0.6 else d.last if form < 0.8 else f"{d.first} {d.last}"
        return [(self.ch(self.n["staff_roles"]), None), (name, "DOCTOR")]

    def hospital_mention(self, h: Hospital) -> list[Piece]:
        form = self.rng.random()
        name = h.name if form < 0.4 else h.partial if form < 0.8 else h.short
        if self.casing == "mixed" and self.chance(0.3):
            name = name.lower()
        return [(name, "HOSPITAL")]

    def day_mention(self, d: _dt.date) -> list[Piece]:
        form = self.rng.random()
        if form < 0.65:
            text = f"{d.month}/{d.day}"
        elif form < 0.75:
            text = f"{d.month:02d}/{d.day:02d}"
        elif form < 0.9:
            text = f"{d.month}/{d.day}/{d.year % 100:02d}"
        elif form < 0.95:
            text = f"{d.month:02d}/{d.day:02d}/{d.year % 100:02d}"
        else:
            text = f"{d.month}-{d.day}-{d.year % 100:02d}"
        return [(text, "DATE")]
