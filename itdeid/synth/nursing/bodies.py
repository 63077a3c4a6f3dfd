"""The four bodies of a nursing note and the sentences they are made of.

:data:`BODIES` are the ways ICU notes of the PhysioNet corpus are written: by system heading
('NEURO:', 'CV:', 'RESP:' ... 'PLAN:', the commonest), S/O/A/P, a few lines of narrative, and a
respiratory therapist's note of ventilator lines. Each body draws its sentences from the phrases
of ``synth_nursing.json`` (:mod:`~itdeid.synth.nursing.phrases`) and adds, unless the note is
plain, the sentences that carry its PHI: staff told of something, past events with their day,
the places the patient came from or goes to, relatives in a social line, the patient's name in
an opening line or, in a share ``named`` of notes, as the subject of a sentence ('Pt Murphy
resting comfortably'), two-digit years in a past history.

Methods of :class:`~itdeid.synth.nursing.note.NursingNote` (a mixin), called by name from
``body`` (``_systems``, ``_soap``, ``_narrative``, ``_rt``); they read its ``n``, ``p``, ``day``,
``age``, ``plain`` and ``named`` and draw with its ``ch``/``chance``.
"""
from __future__ import annotations

from itdeid.synth.render import Piece

#: The note's body, by weight.
BODIES = {"systems": 0.6, "soap": 0.12, "narrative": 0.1, "rt": 0.18}
#: Share of notes of system sections with a social line (relatives, named or not).
SOCIAL = 0.5
#: Systems written in a note of system sections, in order, with the probability of each.
SYSTEMS = {"neuro": 0.9, "cv": 0.9, "resp": 0.9, "gi": 0.8, "gu": 0.75, "id": 0.55,
           "skin": 0.45, "endo": 0.2, "heme": 0.2, "access": 0.2, "pain": 0.15}


class NoteBodies:
    """The bodies of :data:`BODIES`, their PHI sentences, opening line and past history."""

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
        if self.named and self.chance(self.named):
            objective[:0] = self.sentence("named")
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
                sentences[at:at] = self.sentence(self.ch(("staff", "social", "events", "places")
                                                          + (("named",) if self.named else ())))
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

    def extras(self) -> dict[str, list[list[Piece]]]:
        """Sentences with PHI for a note of system sections, by the section they go in: staff
        told of something, past events with their day, the places the patient came from or goes
        to, the patient named."""
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
        if self.named and self.chance(self.named):
            extras.setdefault(self.ch(("neuro", "gi", "resp", "pain")), []).append(
                self.fill(self.ch(self.n["named"])))
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
