"""The phrases of a nursing note and the slots in them.

The phrases and headings live in ``gazetteers/synth_nursing.json`` (``lex.nursing``), so that
writing a new kind of sentence is an edit of data. A phrase names its slots in braces: lower case
for what is not PHI (measurements, :data:`~itdeid.synth.nursing.readings.MEASURES`; the age,
PHI only over 89; sex, relation words, problems), upper case for PHI (``{FAM}``, ``{DOC}``,
``{STAFF}``, ``{HOSP}``, ``{REHAB}``, ``{DATE}``, ``{PHONE}``, ``{CITY}``, ``{PT}``). A plain note (no PHI)
draws only from the phrases without upper-case slots.

Methods of :class:`~itdeid.synth.nursing.note.NursingNote` (a mixin); they read its ``n``,
``plain``, ``age``, ``p``, ``family``, ``doctors``, ``staff``, ``hospitals``, ``day`` and
``adm``, and write PHI with :mod:`~itdeid.synth.nursing.mentions` and
:class:`~itdeid.synth.mentions.Mentions`.
"""
from __future__ import annotations

import datetime as _dt
import re

from itdeid.synth.nursing.readings import MEASURES
from itdeid.synth.render import Piece

_SLOT = re.compile(r"\{(\w+)\}")


class NotePhrases:
    """Phrases drawn by key and filled slot by slot."""

    def phrases(self, key: str) -> list[str]:
        """The phrases of ``key``; in a note without PHI, those without PHI slots."""
        if not self.plain:
            return self.n[key]
        return [t for t in self.n[key] if not any(slot.isupper() for slot in _SLOT.findall(t))]

    def sentence(self, key: str) -> list[list[Piece]]:
        """One phrase of ``key`` filled, as a list of none or one sentence."""
        phrases = self.phrases(key)
        return [self.fill(self.ch(phrases))] if phrases else []

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
        if name == "PT":
            return self.patient_named()
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
