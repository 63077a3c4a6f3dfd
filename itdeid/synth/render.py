"""Pieces, and how a record's pieces become text with exact spans.

Every part of the generator writes a record as pieces, ``(text, class or None)``; only this
module turns them into text. :func:`assemble` concatenates them and makes one span of each run of
adjacent pieces of one class, so a span's offsets are exact by construction and nothing is
searched for in the text afterwards ('Dr. ' + 'Leary' gives a DOCTOR span over 'Leary' only;
'Boston', ', ', 'MA' two LOCATION spans). It drops a period that would double one ('M.D.' before
a sentence's '.') and refuses a PHI piece with surrounding whitespace. :func:`wrap` breaks long
lines, for the styles that wrap, at spaces of non-PHI text only, so a mention is never split.

Why apart: both are pure functions of the pieces (no random draws), the one place where text and
gold spans are joined, and the place to look when a span is wrong.
"""
from __future__ import annotations

import re
from bisect import bisect_left, bisect_right

from itdeid.document import Span

Piece = tuple[str, "str | None"]


#: Where the 2006 files put a space: before , ; : ? ! ) and 's that end a word, after ( that
#: starts one, and before a sentence's final period (not an abbreviation's or an initial's).
_SPACE_BEFORE = re.compile(r"(?<=\S)(?=[,;:?!)](?:\s|$))|(?<=\S)(?='s(?:\s|$))|(?:(?<=[^\W\d_]{3})|(?<=\d{3}))(?=\.(?:\s|$))")
_SPACE_AFTER = re.compile(r"(?:(?<=\s)|^)\((?=\S)")
#: Words whose period stays: titles, degrees, 'No.', initials (one letter) are handled by the
#: three-letter lookbehind; these are the longer ones.
_ABBREVIATIONS = ("Mrs", "Drs", "Dept", "Ph.D", "approx", "etc")


def spaced(pieces: list[Piece]) -> list[Piece]:
    """``pieces`` written as the distributed i2b2 2006 files are: punctuation set off by spaces
    ('OBRIEN , NATHANIEL', 'ADMISSION DATE :', '( FMH )', 'on 06/25/2005 .'); number shapes
    ('06/21/2005', '555-1212', '12:30') are untouched. A space that falls at the edge of a PHI
    piece goes into the neighbouring non-PHI piece, so no span gains whitespace."""
    text = "".join(t for t, _ in pieces)
    cuts = {m.start() for m in _SPACE_BEFORE.finditer(text)
            if not (text[m.start()] == "." and text.endswith(_ABBREVIATIONS, 0, m.start()))}
    cuts |= {m.end() for m in _SPACE_AFTER.finditer(text)}
    ordered = sorted(cuts)
    out: list[Piece] = []
    position = 0
    for piece, cls in pieces:
        inner = [c - position for c in ordered[bisect_right(ordered, position):
                                               bisect_left(ordered, position + len(piece))]]
        if position in cuts and position > 0:
            if cls is None:
                inner = [0] + inner
            elif out and out[-1][1] is None:
                out[-1] = (out[-1][0] + " ", None)
            else:
                out.append((" ", None))
        parts, last = [], 0
        for c in inner:
            parts.append(piece[last:c])
            last = c
        parts.append(piece[last:])
        out.append((" ".join(parts), cls))
        position += len(piece)
    if position in cuts:
        out.append((" ", None))
    return out


def wrap(pieces: list[Piece], width: int) -> list[Piece]:
    """``pieces`` with spaces of non-PHI text turned into line breaks where a line would pass
    ``width`` (a PHI piece is never broken)."""
    atoms: list[Piece] = []
    for text, cls in pieces:
        if cls is not None:
            atoms.append((text, cls))
        else:
            atoms += [(part, None) for part in re.split(r"( )", text) if part]
    out: list[Piece] = []
    column = 0
    for i, (text, cls) in enumerate(atoms):
        if text == " " and cls is None:
            following = atoms[i + 1][0] if i + 1 < len(atoms) else ""
            if column + 1 + len(following) > width:
                out.append(("\n", None))
                column = 0
                continue
        out.append((text, cls))
        newline = text.rfind("\n")
        column = len(text) - newline - 1 if newline >= 0 else column + len(text)
    return out


def assemble(pieces: list[Piece]) -> tuple[str, list[Span]]:
    parts: list[str] = []
    spans: list[Span] = []
    position = 0
    previous = ""
    for text, cls in pieces:
        if cls is None and previous.endswith(".") and text.startswith(".") \
                and not text.startswith(".."):
            text = text[1:]  # 'M.D.' or 'q.i.d.' before a sentence's period
        if not text:
            continue
        previous = text if cls is None else ""
        if cls is not None:
            if text != text.strip():
                raise AssertionError(f"PHI piece with surrounding whitespace: {text!r}")
            if spans and spans[-1].end == position and spans[-1].type == cls:
                # adjacent pieces of one class make one mention
                spans[-1] = Span(spans[-1].start, position + len(text), cls)
            else:
                spans.append(Span(position, position + len(text), cls))
        parts.append(text)
        position += len(text)
    return "".join(parts), spans
