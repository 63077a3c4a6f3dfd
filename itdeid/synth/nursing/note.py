"""One nursing note: the choices that hold for the whole of it, and the order of its parts.

A :class:`NursingNote` is drawn for one admission of one patient of the
:class:`~itdeid.synth.world.World`: the day it is written, the patient's age, its casing
(:data:`~itdeid.synth.nursing.passes.CASING`) and body
(:data:`~itdeid.synth.nursing.bodies.BODIES`), the doctors, staff, writer, relatives and
hospitals it may name, its sentence separator and whether it names anyone at all
(:data:`PLAIN`). :meth:`NursingNote.build` then writes the header, the body and the signature and
finishes them with the misspelling and casing passes.

What each part looks like lives in the mixins a note is made of, as for
:class:`~itdeid.synth.record.Record` and for the same reason (the parts share the note's state
and its one random stream and call one another freely): :mod:`~itdeid.synth.nursing.layout`,
:mod:`~itdeid.synth.nursing.bodies`, :mod:`~itdeid.synth.nursing.phrases`,
:mod:`~itdeid.synth.nursing.mentions`, and :class:`~itdeid.synth.mentions.Mentions` for phones
and cities written as in a discharge summary.

Every draw comes from the one ``random.Random`` of :func:`~itdeid.synth.generate`, in program
order: moving a call changes the corpus.
"""
from __future__ import annotations

import datetime as _dt
import random

from itdeid.synth.mentions import Mentions
from itdeid.synth.nursing.bodies import BODIES, NoteBodies
from itdeid.synth.nursing.layout import NoteLayout
from itdeid.synth.nursing.mentions import NoteMentions
from itdeid.synth.nursing.passes import CASING, MISSPELLED, cased, misspell
from itdeid.synth.nursing.phrases import NotePhrases
from itdeid.synth.render import Piece
from itdeid.synth.world import Hospital, Patient, World

#: Share of notes written without PHI (no name, place, date or phone; an age over 89 may stay):
#: two real nursing notes in three have none, so a model must see many such notes.
PLAIN = 0.45


class NursingNote(NoteLayout, NoteBodies, NotePhrases, NoteMentions, Mentions):
    """Draws one nursing progress note's pieces: a list of ``(text, class or None)``."""

    def __init__(self, world: World, patient: Patient, index: int, rng: random.Random,
                 named: float = 0.0):
        self.w, self.p, self.rng, self.lex = world, patient, rng, world.lex
        #: share of notes that name the patient in a sentence (bodies' ``named``); 0 spends no draw
        self.named = named
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
