"""Sentence templates and their slots: how flow text is drawn.

Flow text (history, hospital course, follow-up, ...) comes from a few hundred sentence templates
in ``clinical_terms.json`` and ``synth_phrases.json`` with slots such as ``{pt}``, ``{pcp}``,
``{adm_date}``, ``{dx}``, ``{drug}``, ``{bp}``. :meth:`Templates.render` fills a template into
pieces (a capitalized slot, ``{Pt}``, capitalizes its value); :meth:`Templates.slot` is the one
table of what each slot draws: a PHI mention (:mod:`~itdeid.synth.mentions`) or clinical words and
numbers that are not PHI (the few slots of the record's principal problem, ``{problem}``,
``{presenting}``, ..., are :meth:`~itdeid.synth.problems.Problems.problem_slot`'s; in the
problem's sections ``{symptom}``, ``{proc}``, ``{drug}`` lean to its words, and a ``{finding}``
is the finding of the study just named); :meth:`Templates.template` draws a template the record
has not used yet (no sentence repeats within a record), keeping one with PHI slots only with
probability :data:`_ACCEPT` a slot, the knob that sets the class proportions near the 2006 test
set's.

Why apart: templates are where PHI meets clinical language in running text, and the slot table
is the single list of what a template may ask for, so a new slot is added here and in the JSON,
nowhere else. Methods of :class:`~itdeid.synth.record.Record` (a mixin).
"""
from __future__ import annotations

import datetime as _dt
import re

from itdeid.synth.dates import MONTHS
from itdeid.synth.render import Piece
from itdeid.synth.world import Person

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
#: Draws of a template before the last one not yet used is taken (used ones are drawn again).
_TRIES = 6


def cap(text: str) -> str:
    """``text`` with its first character upper-cased and the rest as it was."""
    return text[:1].upper() + text[1:]


class Templates:
    """Sentence templates: drawing one and filling its slots."""

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
                value = [(cap(text), cls)] + value[1:]
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
            return self.lean("symptoms") or self.ch(t["symptoms"])
        if name == "proc":
            return self.lean_proc() or self.ch(t["procedures"])
        if name == "finding":           # the finding of the study just named, if any
            finding, self.finding = self.finding, None
            return finding or self.ch(t["findings"])
        if name == "drug":
            drug = self.lean("drugs")
            self.drug = self.lex.drug[drug] if drug else self.ch(t["drugs"])
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
            return (self.lean("dispositions") or self.ch(t["dispositions"])).lower()
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
        if name == "date":             # in a course, in order (problems.py)
            return self.date(self.course_date() if self.cursor else self.during())
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
                return [(f"{MONTHS[d.month - 1]} {d.year}", "DATE")]
            if fmt < 0.7:
                return [(f"{MONTHS[d.month - 1]} of ", "DATE")][:0] + [
                    (f"{MONTHS[d.month - 1]} of {d.year}", "DATE")]
            if fmt < 0.85:
                return [(f"{d.month}/{d.year % 100:02d}", "DATE")]
            return [(MONTHS[d.month - 1], "DATE")]
        if name == "accession":
            return [(self.ch((f"{rng.randint(1000000, 99999999)}",
                              f"{self.ch('SRPC')}{self.adm.year % 100:02d}-{rng.randint(1000, 99999)}")),
                     "ID")]
        if name == "mrn":
            return [(self.p.mrn, "ID")]
        if name == "lab_phrase":
            lab = self.ch(t["labs"])
            return f"{lab[0]} of {self.lab_value(lab)}"
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
        if name == "hct_low":       # a hematocrit that calls for a transfusion
            return f"{rng.randint(195, 270) / 10:.1f}"
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
        return self.problem_slot(name)     # the principal problem's slots (problems.py)

    def _doc(self, role: str) -> Person:
        if role == "pcp":
            return self.p.pcp
        if role == "attending":
            return self.attending
        return self.ch(self.consultants)

    def template(self, templates: list[str]) -> str:
        """A template of ``templates`` this record has not used (while there is one), drawn so
        that templates with PHI slots are kept with probability :data:`_ACCEPT` per slot (this
        tunes the class proportions). The record remembers it (``used``, ``drawn``)."""
        self.finding = None
        fresh = None
        for _ in range(_TRIES):
            template = self.ch(templates)
            if template in self.used:
                continue
            fresh = template
            keep = 1.0
            for slot in _SLOT.findall(template):
                keep *= _ACCEPT.get(_SLOT_CLASS.get(slot.lower()), 1.0)
            if self.rng.random() < keep:
                break
        if fresh is None:
            left = [template for template in templates if template not in self.used]
            fresh = self.ch(left) if left else template
        self.used.add(fresh)
        self.drawn.append(fresh)
        return fresh
