"""How a record writes its PHI: each entity as pieces, in one of its surface forms.

The same patient, doctor or hospital appears in a record under several forms, as in real notes:
'SMITH, JOHN' in the header, 'Mr. Smith', 'John Smith' or 'J. Smith' in the text; 'LEARY, KEVIN
M.D.' in a signature, 'Dr. Leary' in the text; 'Fairview Memorial Hospital', 'FMH', 'the
Cardiology Clinic of FMH'; now and then in lower case. Each method draws a form and returns pieces
in which only the PHI itself carries a class: titles, degrees, a unit's name and a weekday
before a date do not (the corpus's span conventions, see :mod:`itdeid.synth`). Dates (in a format
the style favours, :mod:`~itdeid.synth.dates`), phones (five layouts, an extension now and then),
places (a city, 'city, state', a country) and addresses are written here for the same reason.

Why apart: a model that saw one form of a name would learn the form, not the name, so the forms
are the heart of the generator, and this is the only place they are decided: a new surface form
is one branch in one method. Methods of :class:`~itdeid.synth.record.Record` (a mixin); they read
its ``rng``, ``lex``, ``w`` (the world), ``p`` (the patient), ``hospital``, ``adm``/``dis`` and
the style's date weights, and draw with its ``ch``/``chance``.
"""
from __future__ import annotations

import datetime as _dt

from itdeid.synth.dates import fmt_date
from itdeid.synth.render import Piece
from itdeid.synth.world import Hospital, Person


class Mentions:
    """The surface forms of dates, phones, patients, doctors, hospitals and places."""

    def date(self, d: _dt.date, fmt: str | None = None, precise: bool = True) -> list[Piece]:
        """``d`` as a DATE piece in ``fmt`` or a format the style favours (a day-precise one
        unless ``precise`` is false), now and then after a weekday (not PHI)."""
        if fmt is None:
            fmt = self.rng.choices(*(self.precise_weights if precise else self.date_weights))[0]
        pieces: list[Piece] = []
        if self.chance(0.04):
            pieces.append((_dt.date.strftime(d, "%A") + ", ", None))
        pieces.append((fmt_date(d, fmt), "DATE"))
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

    def doctor(self, d: Person, kind: str = "text") -> list[Piece]:
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

    def hosp(self, h: Hospital | None = None, kind: str = "text") -> list[Piece]:
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
