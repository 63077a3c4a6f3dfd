"""The frame of a nursing note: its header line, its signature, and how its text is laid out.

A nursing note has no header block or signature block like a discharge summary's
(:mod:`~itdeid.synth.layout`): a title line ('NPN 7a-7p', 'Resp Care Note', a unit before it now
and then, a DATE in it now and then) and, in many notes that name anyone, the writer's name and
role at the end ('J. Doe RN'), the name DOCTOR, the role outside the span. Sentences are run together with
the note's one separator (``sep``) into lines, lines into a body.

Methods of :class:`~itdeid.synth.nursing.note.NursingNote` (a mixin); they read its ``n`` (the
nursing phrases), ``body``, ``plain``, ``day``, ``writer`` and ``sep``, and draw with its
``ch``/``chance``.
"""
from __future__ import annotations

from itdeid.synth.render import Piece


class NoteLayout:
    """Header line, signature, and the joining of sentences and lines."""

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
