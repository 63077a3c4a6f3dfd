"""The bodies of a record's sections: headings, sentences, lists, medications, labs.

:meth:`Content.section` hands the sections the record's principal problem writes (chief
complaint, history, principal diagnosis, hospital course, procedures, discharge medications,
follow-up, disposition) to :mod:`~itdeid.synth.problems` and has one branch for each other kind
(past history, admission medications, allergies, social and family history, exam, labs,
studies, consults, other diagnoses, diet, code status, ...); :meth:`Content.heading` writes a section's heading in one of its surface forms
and the style's case; :meth:`Content.listing` lays items out numbered, dashed, plain or inline;
:meth:`Content.med` and :meth:`Content.labs` write the structured lines (drug, dose, route and
frequency; lab values in prose or abbreviated).

Why apart: this is the clinical content, the part of a record that is mostly not PHI (its PHI
comes through templates and dates) and the part a rewrite for realism changes most. Methods of
:class:`~itdeid.synth.record.Record` (a mixin).
"""
from __future__ import annotations

import re

from itdeid.synth.problems import FOCUS, PROBLEM_SECTIONS
from itdeid.synth.render import Piece
from itdeid.synth.templates import cap


class Content:
    """Section bodies, their headings and their list layouts."""

    def sentences(self, key: str, n: int) -> list[Piece]:
        return self._sentences_from(self.lex.sent[key], n)

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

    def med(self, drug=None) -> list[Piece]:
        """A medication line: ``drug`` (an entry of the drugs list) or a random one."""
        name, doses, unit = drug or self.ch(self.lex.t["drugs"])
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
        parts = [f"{(lab[0] if prose else lab[1])} {self.lab_value(lab)}" for lab in labs]
        out: list[Piece] = []
        if self.chance(0.35):
            out += [(self.ch(("On admission, ", "Labs on ", "Admission labs ", "On ")), None)]
            out += self.date(self.adm)
            out += [(self.ch((": ", ", ", " were notable for ")), None)]
        body = ", ".join(parts)
        out.append((cap(body) if not out else body, None))
        out.append((".", None))
        if self.chance(0.3):
            out += [(" Discharge labs", None)]
            if self.chance(0.5):
                out += [(" (", None)] + self.date(self.dis) + [(")", None)]
            out += [(": " + ", ".join(f"{lab[1]} {self.lab_value(lab)}" for lab in labs[:4]) + ".",
                     None)]
        return out

    def section(self, key: str) -> list[Piece]:
        """The body of section ``key``: the problem's (:mod:`~itdeid.synth.problems`) or one of
        the others; generic slots lean to the problem in the sections of ``FOCUS``."""
        self.focus = key if key in FOCUS else None
        out = self.problem_section(key) if key in PROBLEM_SECTIONS else self.other_section(key)
        self.focus = None
        return out

    def other_section(self, key: str) -> list[Piece]:  # noqa: C901 - one branch a section
        rng, t, x = self.rng, self.lex.t, self.lex.x
        if key == "pmh":
            items = []
            for _ in range(rng.randint(3, 7)):
                if self.chance(0.3) and self.fresh(self.lex.sent["pmh_year"]):
                    items.append(self.render(self.template(self.lex.sent["pmh_year"])))
                else:
                    items.append([(cap(self.ch(t["diagnoses"])), None)])
            return self.listing(items, inline=self.chance(0.35))
        if key == "psh":
            items = [self.render(self.ch(("{Proc} ({past_year})", "{Proc}", "{Proc}, {past_date}",
                                          "{Proc} at {other_hosp}")))
                     for _ in range(rng.randint(1, 3))]
            return self.listing(items, inline=self.chance(0.5))
        if key == "adm_meds":
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
        if key == "consults":
            return self.listing([self.render(self.template(self.lex.sent["consults"]))
                                 for _ in range(rng.randint(1, 3))])
        if key == "other_dx":
            pool = [dx for dx in t["diagnoses"] if dx not in self.problem["names"]]
            return self.listing([[(cap(self.ch(pool)), None)]
                                 for _ in range(rng.randint(2, 5))], inline=self.chance(0.3))
        if key == "condition":
            return [(self.ch(t["conditions"]) + self.ch(("", ".")), None)]
        if key == "diet":
            return [(self.ch(t["diets"]), None)]
        if key == "activity":
            return [(self.ch(t["activities"]), None)]
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

    def lab_value(self, lab) -> str:
        """A value of ``lab`` (name, abbreviation, low, high, decimals), uniform in its range."""
        value = self.rng.uniform(lab[2], lab[3])
        return f"{value:.{lab[4]}f}"
