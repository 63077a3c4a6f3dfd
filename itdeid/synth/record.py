"""One record: the choices that hold for the whole of it, and the order of its parts.

A :class:`Record` is drawn for one admission of one patient of the
:class:`~itdeid.synth.world.World`: its style (the hospital's, one record in five another's),
attending, consultants, dictating doctor, principal problem (:mod:`~itdeid.synth.problems`),
service, other hospitals it may mention, pronouns and date-format weights; it remembers the
templates it has drawn (``used``, ``drawn``), so that none is drawn twice. :meth:`Record.build` then writes the header, the sections in the style's
order (the core ones always, each other one with probability :data:`~itdeid.synth.styles.KEEP`),
wrapped or upper-cased as the style says, and the signature: one list of pieces, now and then
with punctuation set off by spaces (:func:`~itdeid.synth.render.spaced`).

What each part looks like lives in the mixins a Record is made of, one module a job:
:mod:`~itdeid.synth.mentions` (how names, doctors, hospitals, places, phones and dates are
written), :mod:`~itdeid.synth.templates` (sentence templates and their slots),
:mod:`~itdeid.synth.problems` (the principal problem and the sections it writes),
:mod:`~itdeid.synth.content` (the other section bodies), :mod:`~itdeid.synth.layout` (header and signature
blocks). Why mixins over one object rather than functions: the parts share the record's state
and its one random stream and call one another freely (a slot writes a date, a header renders a
template), so the state lives here and this module is where to look for what a record knows.

Every draw comes from the one ``random.Random`` of :func:`~itdeid.synth.generate`, in program
order: moving a call changes the corpus (``test_corpus_pinned`` in tests/test_synth.py notices).
"""
from __future__ import annotations

import random

from itdeid.synth.content import Content
from itdeid.synth.layout import Layout
from itdeid.synth.mentions import Mentions
from itdeid.synth.problems import Problems
from itdeid.synth.render import Piece, spaced, wrap
from itdeid.synth.styles import CORE, KEEP, ORDERS, STYLES
from itdeid.synth.templates import Templates
from itdeid.synth.world import Patient, World


#: Probability that a record of a style that does not say otherwise is written with punctuation
#: set off by spaces, as the distributed 2006 files are (``spaced`` in a style).
SPACED = 0.05


class Record(Layout, Content, Problems, Templates, Mentions):
    """Draws one record's pieces: a list of ``(text, class or None)``."""

    def __init__(self, world: World, patient: Patient, index: int, rng: random.Random):
        self.w, self.p, self.rng, self.lex = world, patient, rng, world.lex
        hospital = patient.hospital
        style = hospital.style if rng.random() < 0.8 else rng.choice(list(STYLES))
        self.style_name, self.s = style, STYLES[style]
        self.hospital = hospital
        self.adm, self.dis = patient.admissions[index]
        self.index = index
        self.attending = patient.attendings[0] if rng.random() < 0.7 else patient.attendings[1]
        self.consultants = world.popular(hospital.doctors, 3)
        self.dictator = self.attending if rng.random() < 0.5 else world.popular(hospital.doctors)
        self.age = patient.age + (self.adm - patient.admissions[0][0]).days // 365
        self.drug = None
        self.used: set[str] = set()     # templates drawn or barred: none is drawn twice
        self.drawn: list[str] = []      # templates drawn, in order
        self.focus = None               # the section whose generic slots lean to the problem
        self.cursor = None              # while a course is written, its last date (problems.py)
        self.pace = 0
        self.draw_problem()
        services = self.problem["services"] if rng.random() < 0.7 else self.lex.t["services"]
        self.service = rng.choice(services)
        self.other_hospitals = [h for h in world.popular(world.hospitals, 3) if h is not hospital]
        he = patient.person.sex == "M"
        self.pron = {"he": "he" if he else "she", "his": "his" if he else "her",
                     "him": "him" if he else "her", "himself": "himself" if he else "herself",
                     "man": "man" if he else "woman",
                     "gentleman": "gentleman" if he else "lady"}
        self.date_weights = (list(self.s["dates"]), list(self.s["dates"].values()))
        precise = {k: v for k, v in self.s["dates"].items() if k not in ("year", "month_year")}
        self.precise_weights = (list(precise), list(precise.values()))

    # ---- small drawing helpers
    def ch(self, items):
        return self.rng.choice(items)

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    # ---- the whole record
    def build(self) -> list[Piece]:
        out = self.header()
        order = ORDERS[self.s["order"]]
        width = self.s["wrap"]
        first = True
        for key in order:
            if key not in CORE and not self.chance(KEEP):
                continue
            if key == "hpi" and self.s["order"] == "letter" and first and self.chance(0.4):
                body = self.section(key)  # letters often open without a heading
            else:
                body = self.heading(key) + self.section(key)
            if width:
                body = wrap(body, width)
            if self.chance(self.s["caps_section"]):
                body = [(text.upper(), cls) for text, cls in body]
            out += ([] if first else [("\n\n", None)]) + body
            first = False
        out += self.signature()
        out.append(("\n\n[ report_end ]\n", None))
        return spaced(out) if self.chance(self.s.get("spaced", SPACED)) else out
