"""Writers of one de-identified note, for the batch de-identifier (one input file a call).

:func:`render` turns a document and its predicted spans into the files of one output format, as
``{suffix: bytes}``, so the caller names them (``<stem><suffix>``) and writes each atomically;
nothing here touches the file system.

=========  =========================  ===========================================================
format     files                      content
=========  =========================  ===========================================================
xml        ``.xml``                   i2b2 2006 XML of the note: the **original** text with a
                                      ``<PHI TYPE="..">`` element a span (for review, or to read
                                      back with :func:`itdeid.formats.read_i2b2_2006`).
jsonl      ``.jsonl``                 the spans, ``{"doc", "start", "end", "type"}`` a line
                                      and ``text_length``, the note's length, which evaluation
                                      checks against the gold note's
                                      (:func:`itdeid.formats.read_jsonl_spans` reads it).
redact     ``.txt``,                  the text with each span replaced by ``[**CLASS**]``. Its
           ``.redact.jsonl``          offsets differ from the original's, so the sidecar maps each
                                      replacement: ``start``/``end`` in the redacted text, its
                                      ``type``, and ``original_start``/``original_end``
                                      (``original_length``: the note's length); it holds
                                      no original text, and is itself a span file of the redacted
                                      text for ``read_jsonl_spans``.
surrogate  ``.txt``                   the text with realistic surrogates
                                      (:meth:`itdeid.render.surrogate.Surrogates.replace`); needs a
                                      :class:`~itdeid.render.surrogate.Surrogates`.
brat       ``.txt``, ``.ann``         BRAT standoff: the **original** text unchanged (brat's
                                      offsets point into it) and ``T1<TAB>DOCTOR 10 20<TAB>text``
                                      lines. A span across a line end is written as brat writes a
                                      discontinuous one, a fragment a line (``T1<TAB>DATE 10 15;16
                                      20<TAB>..``), the fragments' texts joined by a space.
=========  =========================  ===========================================================

Only ``redact`` and ``surrogate`` are de-identified text; ``xml``, ``jsonl`` and ``brat`` are
annotations of the original note (``xml`` and ``brat`` hold its text) and must be kept with it.
All files are UTF-8; offsets are character offsets, as everywhere in itdeid.
"""
from __future__ import annotations

import json
import re

from itdeid.document import Document, Span
from itdeid.errors import FormatError
from itdeid.formats import render_i2b2_2006, render_jsonl_spans, span_record
from itdeid.formats.safe_xml import LONE_SURROGATE, unwritable
from itdeid.render.surrogate import Surrogates

#: The formats :func:`render` writes.
FORMATS = ("xml", "jsonl", "redact", "surrogate", "brat")
#: The formats whose files hold note text: a lone surrogate in it cannot be written as UTF-8.
_TEXT_FORMATS = ("redact", "surrogate", "brat")
#: The formats whose text is de-identified, for release (the others are for review beside the
#: original notes).
RELEASED = ("redact", "surrogate")

# Line ends brat splits a discontinuous span at (the line-end characters are left out).
_LINE_END = re.compile(r"\r\n|\r|\n")


def render(document: Document, spans: list[Span], fmt: str,
           surrogates: Surrogates | None = None) -> dict[str, bytes]:
    """The files of ``document`` with PHI ``spans`` in format ``fmt`` (one of :data:`FORMATS`),
    as ``{file-name suffix: content}``.

    ``spans`` (the predictions; ``document.spans`` is ignored) must lie in the text and not
    overlap: ``ValueError`` naming the document and offsets otherwise, as for an unknown format or
    ``surrogate`` without ``surrogates``; :class:`~itdeid.errors.FormatError`, naming the
    document and offset, for a character the format's files cannot hold: a lone surrogate (a
    notebook's ``errors="surrogateescape"``) in any format holding the text, and in ``xml`` also
    a character XML 1.0 cannot hold (a form feed).
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown output format {fmt!r}; expected one of {', '.join(FORMATS)}")
    annotated = Document(document.id, document.text, sorted(spans), patient=document.patient,
                         source=document.source)
    annotated.check_spans()
    surrogate = LONE_SURROGATE.search(document.text) if fmt in _TEXT_FORMATS else None
    if surrogate:
        path = document.source or document.id
        raise FormatError(path, unwritable(document, surrogate.start(), surrogate.group(), path))
    if fmt == "xml":
        return {".xml": render_i2b2_2006([annotated], document.source or document.id)}
    if fmt == "jsonl":
        return {".jsonl": render_jsonl_spans([annotated])}
    if fmt == "redact":
        text, sidecar = redact(annotated)
        return {".txt": _utf8_text(text), ".redact.jsonl": sidecar}
    if fmt == "surrogate":
        if surrogates is None:
            raise ValueError("the surrogate format needs a Surrogates instance (a secret key)")
        text, _ = surrogates.replace(annotated, annotated.spans)
        return {".txt": _utf8_text(text)}
    return {".txt": _utf8_text(document.text), ".ann": brat_ann(annotated).encode("utf-8")}


def _utf8_text(text: str) -> bytes:
    """``text`` as UTF-8 for a ``.txt`` output, nothing added: a text that begins with U+FEFF
    (the byte-order mark of a UTF-8 input, which the text keeps) starts with that mark once, so
    the file read back with ``encoding="utf-8"`` (as itdeid reads it too) is the text that the
    offsets of the sidecar or ``.ann`` index. A reader that drops a leading mark ('utf-8-sig')
    reads a text one character shorter at its start."""
    return text.encode("utf-8")


def redact(document: Document) -> tuple[str, bytes]:
    """The text of ``document`` with each span replaced by ``[**CLASS**]``, and the JSON Lines
    sidecar mapping each replacement to its class and original offsets (no original text).
    The document's spans must be sorted and not overlap, as :func:`render` passes them."""
    pieces, records, position, length = [], [], 0, 0
    for span in document.spans:
        before = document.text[position:span.start]
        marker = f"[**{span.type}**]"
        start = length + len(before)
        record = span_record(document.id, Span(start, start + len(marker), span.type, span.subtype))
        record.update(original_start=span.start, original_end=span.end, original_length=len(document.text))
        records.append(json.dumps(record) + "\n")
        pieces += [before, marker]
        length = start + len(marker)
        position = span.end
    pieces.append(document.text[position:])
    return "".join(pieces), "".join(records).encode("utf-8")


def _fragments(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """(start, end) of the pieces of ``text[start:end]`` between line ends, empty ones left out:
    brat cannot show one fragment across lines."""
    fragments, position = [], start
    for line_end in _LINE_END.finditer(text, start, end):
        fragments.append((position, line_end.start()))
        position = line_end.end()
    fragments.append((position, end))
    return [(a, b) for a, b in fragments if a < b]


def brat_ann(document: Document) -> str:
    """The brat ``.ann`` text of the spans of ``document``: one text-bound annotation a span,
    numbered T1, T2, ... in offset order (the spans sorted, as :func:`render` passes them); a
    span of line ends only, which brat cannot show and which identifies nothing, is left out."""
    lines = []
    spans = [(span, _fragments(document.text, span.start, span.end)) for span in document.spans]
    for number, (span, fragments) in enumerate(((s, f) for s, f in spans if f), 1):
        offsets = ";".join(f"{a} {b}" for a, b in fragments)
        covered = " ".join(document.text[a:b] for a, b in fragments)
        lines.append(f"T{number}\t{span.type} {offsets}\t{covered}\n")
    return "".join(lines)
