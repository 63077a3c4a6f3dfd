"""The principal problem of a record, and the sections it writes.

Each record is about one problem of ``gazetteers/synth_problems.json`` (24 common inpatient
problems: CHF exacerbation, pneumonia, NSTEMI, hip fracture, GI bleed, sepsis, stroke, elective
CABG, ...; drawn by weight), and the problem writes what a real summary derives from it: the
chief complaint, the history's presentation, the principal diagnosis (and the header's), the
hospital course (work-up, treatment, complications, course, in that order), the procedures,
the discharge medications, the follow-up and the disposition. About a third of those sentences
are still generic templates, for variety; while a problem's section is written, generic slots
lean to the problem's words (:meth:`Problems.lean`: ``{symptom}``, ``{proc}`` with its
``{finding}``, ``{drug}``, ``{disposition_place}``), so the generic sentences stay on topic, and
a problem's ``avoid`` templates (generic ones that contradict it: 'denies orthopnea' in a CHF
record) are never drawn.

Hospital courses are long-tailed (:meth:`Problems.course`): most are 4-12 sentences, in prose or
as a short problem list; about 15 % (mostly stays of a week or more) are 20-40 sentences in
paragraphs by problem ('1. CHF exacerbation: ...', then organ systems of the file's ``systems``:
'2. Renal: ...') or by hospital day, where the same attending, consultants and hospital come
back again and again through the slots.

Why apart: this is the record's story, what makes it clinically coherent, and its knowledge is
declarative (a problem is an entry of the JSON file, added there, not here). Sentences never
repeat within a record: :meth:`~itdeid.synth.templates.Templates.template` draws each template
once, and the counts here stay within the templates left (:meth:`Problems.fresh`). Methods of
:class:`~itdeid.synth.record.Record` (a mixin).
"""
from __future__ import annotations

import datetime as _dt

from itdeid.synth.render import Piece
from itdeid.synth.templates import cap

#: The sections the problem writes (the others are :mod:`~itdeid.synth.content`'s).
PROBLEM_SECTIONS = frozenset(("cc", "hpi", "principal_dx", "course", "procedures", "dis_meds",
                              "followup", "disposition"))
#: The sections in which generic slots lean to the problem's words.
FOCUS = PROBLEM_SECTIONS | {"studies"}
#: Probability that a sentence of a problem section is the problem's own, not a generic one.
OWN = 0.7
#: Probability that a generic slot, in a focused section, takes the problem's word.
LEAN = 0.75
#: Probability of a long course (20-40 sentences) for a stay of a week or more, and a shorter one
#: (with about a third of stays that long, some 15 % of courses are long).
LONG = (0.35, 0.035)
#: The course's phases in order, and the weight of each in a course's own sentences.
PHASES = {"workup": 3.0, "treatment": 3.0, "complications": 0.5, "course": 3.0}
#: Probability that a course ends on a generic closing sentence ('course_close': discharge,
#: outpatient plans), which no other place in a course may take.
CLOSE = 0.6


class Problems:
    """The record's principal problem and the sections it drives."""

    def draw_problem(self) -> None:
        """Draw the record's problem (``problem_key``, ``problem``) and bar its ``avoid``s."""
        lex = self.lex
        self.problem_key = self.rng.choices(lex.problem_keys, cum_weights=lex.problem_w)[0]
        self.problem = lex.problems[self.problem_key]
        self.used.update(self.problem.get("avoid", ()))
        self.finding = None
        self.studies_used: set[int] = set()

    # ---- slots
    def lean(self, field: str):
        """One of the problem's ``field`` (symptoms, drugs, dispositions) for a generic slot,
        with probability :data:`LEAN` in a focused section; else None (the slot's own draw)."""
        values = self.problem.get(field) if self.focus else None
        if values and self.chance(LEAN):
            return self.ch(values)
        return None

    def lean_proc(self):
        """The problem's study (then its finding is pending) or, in the course, procedure, for
        ``{proc}``; not in the history, where a ``{proc}`` is a past one."""
        if self.focus not in ("course", "studies") or not self.chance(LEAN):
            return None
        if self.focus == "course" and self.problem["procedures"] and self.chance(0.4):
            return self.ch(self.problem["procedures"])
        return self.study()

    def study(self) -> str:
        """One of the problem's studies, each once a record while some are left; its finding
        is kept for the template's ``{finding}`` or ``{p_finding}``."""
        studies = self.problem["studies"]
        left = [i for i in range(len(studies)) if i not in self.studies_used] or range(len(studies))
        i = self.ch(left)
        self.studies_used.add(i)
        self.finding = studies[i][1]
        return studies[i][0]

    def problem_slot(self, name: str):
        """The slots a template may ask of the problem: ``{problem}`` (a name of it),
        ``{presenting}`` (a symptom it presents with), ``{other_symptom}`` (one it does not),
        ``{p_study}`` and ``{p_finding}`` (a study of it and that study's finding), ``{p_drug}``
        (one of its drugs, then ``{dose}``). :meth:`~itdeid.synth.templates.Templates.slot`
        asks here for the names it does not know."""
        p = self.problem
        if name == "problem":
            return self.ch(p["names"])
        if name == "presenting":
            return self.ch(p["symptoms"])
        if name == "other_symptom":     # a symptom the problem does not present with
            for _ in range(8):
                symptom = self.ch(self.lex.t["symptoms"])
                if symptom not in p["symptoms"]:
                    break
            return symptom
        if name == "p_study":
            return self.study()
        if name == "p_finding":
            if self.finding is None:
                self.study()
            finding, self.finding = self.finding, None
            return finding
        if name == "p_drug":
            self.drug = self.lex.drug[self.ch(p["drugs"])]
            return self.drug[0]
        raise KeyError(f"unknown template slot {{{name}}}")

    # ---- sections
    def problem_section(self, key: str) -> list[Piece]:
        p, rng, sent = self.problem, self.rng, self.lex.sent
        if key == "cc":
            pool = p["complaints"] if self.chance(0.75) else self.lex.x["chief_complaints"]
            return self.render(self.template(pool))
        if key == "hpi":
            out = self.render(self.template(sent["hpi_open"])) + [(" ", None)]
            out += self.sentences_of(self.mixed(p["hpi"], sent["hpi"], rng.randint(4, 8)))
            if self.chance(0.4):
                out += [("\n\n", None)]
                out += self.sentences_of(self.mixed(p["hpi"], sent["hpi"], rng.randint(2, 4)))
            return out
        if key == "principal_dx":
            return [(cap(self.ch(p["names"])), None)]
        if key == "course":
            return self.course()
        if key == "procedures":
            names = list(dict.fromkeys(p["procedures"] + [s for s, _ in p["studies"]]))
            names = rng.sample(names, min(len(names), rng.randint(1, 3)))
            if self.chance(0.2):
                names[-1] = self.ch(self.lex.t["procedures"])
            items = []
            for name in names:
                item: list[Piece] = []
                if self.chance(0.6):
                    item += self.date(self.during()) + [(self.ch((" ", " - ", ": ")), None)]
                items.append(item + [(name, None)])
            return self.listing(items)
        if key == "dis_meds":
            own = rng.sample(p["drugs"], min(len(p["drugs"]), rng.randint(2, 4)))
            items = [self.med(self.lex.drug[name]) for name in own]
            items += [self.med() for _ in range(rng.randint(2, 8))]
            rng.shuffle(items)
            return self.listing(items, inline=self.chance(self.s["meds_inline"]))
        if key == "followup":           # the problem's, then generic appointments and calls
            return self.sentences_of([p["followup"]] + [sent["followup"]] * rng.randint(0, 2))
        if key == "disposition":
            out = self.render(self.template(sent["disposition"]))
            if self.chance(0.4):
                out += [(" ", None)] + self.sentences_of(
                    [self.lex.x["sentences"]["instructions"]] * rng.randint(1, 3))
            return out
        raise KeyError(key)

    def fresh(self, pool: list[str]) -> int:
        """How many templates of ``pool`` this record has not used yet."""
        return sum(template not in self.used for template in pool)

    def mixed(self, own: list[str], generic: list[str], n: int) -> list[list[str]]:
        """``n`` pools in random order, each the problem's (``own``) with probability
        :data:`OWN` while it has templates left, else ``generic``."""
        k = min(sum(self.chance(OWN) for _ in range(n)), self.fresh(own))
        pools = [own] * k + [generic] * (n - k)
        self.rng.shuffle(pools)
        return pools

    def sentences_of(self, pools: list) -> list[Piece]:
        """A sentence of each pool (or of each template drawn already), one space between; a
        pool with no template left (two pools may share one) gives none."""
        out: list[Piece] = []
        for pool in pools:
            if isinstance(pool, str):
                self.finding = None
                sentence = self.render(pool)
            elif self.fresh(pool):
                sentence = self.render(self.template(pool))
            else:
                continue
            out += ([(" ", None)] if out else []) + sentence
        return out

    # ---- the hospital course
    def track(self, n: int, fill: list[list[str]] | None = None, close: bool = True) -> list:
        """``n`` course sentences to be: the problem's own templates (about :data:`OWN` of
        them and at least three, as many as are left) in phase order, with ``fill`` pools (generic course
        templates unless given) put in at random places after the first, and now and then
        (``close``) a closing sentence last."""
        p, rng = self.problem, self.rng
        closing = close and n > 2 and self.chance(CLOSE)
        n -= closing
        left = {phase: self.fresh(p[phase]) for phase in PHASES}
        phases = []
        for i in range(max(min(3, n), sum(self.chance(OWN) for _ in range(n)))):
            open_ = [phase for phase in PHASES if left[phase]]
            if i < 3:       # a work-up, a treatment and a course sentence first, where left
                open_ = [phase for phase in ("workup", "treatment", "course")[i:]
                         if left[phase]][:1] or open_
            if not open_:
                break
            phase = rng.choices(open_, [PHASES[x] for x in open_])[0]
            left[phase] -= 1
            phases.append(phase)
        # the problem's sentences are drawn now, to be told in the order of the phases and of
        # the file (a phase's templates are written in the order things happen)
        drawn = [(list(PHASES).index(phase), p[phase].index(template), template)
                 for phase in phases for template in [self.template(p[phase])]]
        pools: list = [template for _, _, template in sorted(drawn)]
        fill = fill or [self.lex.sent["course"]]
        left_fill = [self.fresh(pool) for pool in fill]
        for _ in range(n - len(pools)):
            i = rng.choices(range(len(fill)), [min(x, 1) for x in left_fill])[0] \
                if any(left_fill) else 0
            left_fill[i] -= 1
            pools.insert(rng.randint(min(1, len(pools)), len(pools)), fill[i])
        return pools + [self.lex.sent["course_close"]] * closing

    def course_date(self) -> _dt.date:
        """A date of the course being written: the last one or up to ``pace`` days later (a
        course is told in order; a course by day keeps to the paragraph's day)."""
        room = (self.dis - self.cursor).days
        self.cursor += _dt.timedelta(self.rng.randint(0, min(self.pace, room)))
        return self.cursor

    def course(self) -> list[Piece]:
        stay = (self.dis - self.adm).days
        self.cursor, self.pace = self.adm, max(1, stay // 4)
        out = self.course_body(stay)
        self.cursor = None
        return out

    def course_body(self, stay: int) -> list[Piece]:
        rng = self.rng
        if self.chance(LONG[0] if stay >= 7 else LONG[1]):
            n = rng.randint(20, 40)
            if self.chance(0.4) and stay >= 3:
                return self.course_by_day(n, stay)
            return self.course_by_problem(n)
        n = rng.randint(4, 12)
        if self.chance(0.3):       # a short problem list: the problem, then one to three others
            out = self.problem_head() + self.sentences_of(self.track(max(2, n - 3)))
            self.focus = None      # the other problems are not the principal one
            for _ in range(rng.randint(1, 3)):
                out.append(("\n\n" if self.chance(0.6) else "\n", None))
                out += self.render(self.template(self.lex.sent["course_problem"]))
            return out
        pools = self.track(n)
        if n >= 7 and self.chance(0.5):
            cut = rng.randint(3, n - 2)
            return (self.sentences_of(pools[:cut]) + [("\n\n", None)]
                    + self.sentences_of(pools[cut:]))
        return self.sentences_of(pools)

    def problem_head(self, number: str = "") -> list[Piece]:
        name = cap(self.ch(self.problem["names"]))
        return [(number + name + self.ch((": ", ": ", ".  ", ":\n")), None)]

    def course_by_problem(self, n: int) -> list[Piece]:
        """The problem's paragraph, then some organ systems' paragraphs of 2-5 sentences,
        numbered ('1. ', '#2 ') or not; what the systems leave goes to the problem's."""
        rng = self.rng
        numbering = self.ch(("{}. ", "{}. ", "#{} ", "{}) ", ""))
        own = min(n // 2, rng.randint(8, 14))
        systems = [key for key in self.lex.systems if key != self.problem["system"]]
        systems = [key for key in systems if self.chance(0.6)] or systems[:3]
        sizes, left = [], n - own
        for key in systems:
            if left <= 0:
                break
            sizes.append((key, min(left, rng.randint(2, 5))))
            left -= sizes[-1][1]
        out = self.problem_head(numbering.format(1))
        out += self.sentences_of(self.track(own + left, close=False))
        for number, (key, m) in enumerate(sizes, 2):
            system = self.lex.systems[key]
            k = min(m, self.fresh(system["sentences"]))
            pools = [system["sentences"]] * k + [self.lex.sent["course"]] * (m - k)
            head = numbering.format(number) + self.ch(system["heads"]) + self.ch((": ", ":\n"))
            out += [("\n\n", None), (head, None)] + self.sentences_of(pools)
        return out

    def course_by_day(self, n: int, stay: int) -> list[Piece]:
        """Paragraphs headed by their hospital day or date, in order, one day each."""
        rng = self.rng
        fill = [self.lex.sent["course"]] * 3 + [s["sentences"] for key, s in
                                                 self.lex.systems.items() if key != "dispo"]
        pools = self.track(n, fill)
        days = max(1, min(stay + 1, round(n / rng.uniform(2.5, 5))))
        sizes = [1] * days
        for i in rng.choices(range(days), k=n - days):
            sizes[i] += 1
        numbers = sorted(rng.sample(range(1, stay + 2), days))
        numbers[0] = 1
        self.pace = 0
        kind = self.ch(("Hospital day {}: ", "HD #{}: ", "date", "Day {}: "))
        out: list[Piece] = []
        for i, day in enumerate(numbers):
            if i:
                out.append(("\n\n", None))
            self.cursor = self.adm + _dt.timedelta(day - 1)
            if kind == "date":
                out += self.date(self.cursor) + [(": ", None)]
            else:
                out.append((kind.format(day), None))
            out += self.sentences_of(pools[sum(sizes[:i]):sum(sizes[:i + 1])])
        return out
