"""How a nursing note writes its PHI: relatives, doctors, staff, hospitals and days.

A nursing note names people differently from a discharge summary
(:mod:`~itdeid.synth.mentions`): a relative by first name after a relation word ('wife Mary'),
the relation word fitted to the patient's sex; a doctor after a title ('Dr Smith', 'dr. Smith')
or before a specialty; nurses and therapists by first name after a role ('NP Jen'); hospitals
now and then in lower case in a note written as typed; the patient by last name after 'pt' or a
title ('Pt Murphy'); days as m/d ('8/14') more often than with a year. Each method returns pieces in which only the name or date carries a class (relatives are
PATIENT, staff are DOCTOR); the relation word, title or role stays outside the span.

Methods of :class:`~itdeid.synth.nursing.note.NursingNote` (a mixin); they read its ``n``,
``p``, ``w`` and ``casing`` and draw with its ``ch``/``chance``.
"""
from __future__ import annotations

import datetime as _dt

from itdeid.synth.render import Piece
from itdeid.synth.world import Hospital, Person


class NoteMentions:
    """PHI of a nursing note, each in one of its surface forms."""

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

    def relative(self, relation: str, person: Person) -> list[Piece]:
        form = self.rng.random()
        if form < 0.65:
            return [(f"{relation} ", None), (person.first, "PATIENT")]
        if form < 0.8:
            return [(f"{relation} ", None), (f"{person.first} {person.last}", "PATIENT")]
        if form < 0.9:
            return [(f"pt's {relation} ", None), (person.first, "PATIENT")]
        return [(person.first, "PATIENT"), (f" ({relation})", None)]

    def patient_named(self) -> list[Piece]:
        """The patient by last name after a subject word ('Pt Murphy', 'mrs Murphy'): real notes
        from elsewhere write it, and a model trained on notes that never do missed most such
        names ('Pt Murphy tolerated diet')."""
        p, form = self.p.person, self.rng.random()
        if form < 0.55:
            subject = self.ch(("Pt ", "pt ", "Pt ", "pt. ", "patient ", "Patient "))
        elif form < 0.9:
            subject = ("Mr" if p.sex == "M" else self.ch(("Mrs", "Ms"))) + self.ch((" ", ". "))
        else:
            return [(p.last, "PATIENT")]
        return [(subject, None), (p.last, "PATIENT")]

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
