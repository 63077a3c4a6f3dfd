"""Helpers every format module shares: writing a file atomically (owner-only, like the PHI it
may hold), line numbers for messages, and the checks on documents and spans that every reader
applies (unique ids; duplicate and overlapping spans, as :mod:`itdeid.formats` describes).
"""
from __future__ import annotations

import logging
import os
import tempfile
from pathlib import Path

from itdeid.document import Document, Span
from itdeid.errors import FormatError

logger = logging.getLogger("itdeid.formats")


def atomic_write(path, data: bytes) -> None:
    """Write ``data`` through a temporary file in the same folder, then ``os.replace`` it, so
    readers (and a crash) see the old file or the new one, never half of one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.",
                                             suffix=".tmp")
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def not_one_of(what: str, expected) -> str:
    """The message for a value of a file that is none of the ``expected`` ones, which never
    repeats the value: an unknown type, category or element name may be note text (a name
    written where the category belongs, an unescaped ``<`` in a note), and messages never show
    note text."""
    return f"{what} is none of {', '.join(sorted(expected))}"


def whole_number(text: str) -> int:
    """``text`` as an offset: ASCII digits only (``int`` would also take ' 8' and Arabic-Indic
    digits, which no annotation tool writes: a sign of a damaged file); ValueError otherwise."""
    if not (text.isascii() and text.isdigit()):
        raise ValueError(f"not a whole number: {text!r}")
    return int(text)


def line_of(data, offset: int) -> int:
    """The 1-based line of ``offset`` in ``data`` (str or bytes)."""
    return data.count(b"\n" if isinstance(data, bytes) else "\n", 0, offset) + 1


def unique(documents: list[Document], path=None) -> list[Document]:
    """``documents``, after checking no id occurs twice (naming ``path``, else the file the
    second one came from)."""
    seen: dict[str, int] = {}
    for place, doc in enumerate(documents, 1):
        if doc.id in seen:
            raise FormatError(path if path is not None else doc.source,
                              f"document id {doc.id!r} occurs more than once (notes {seen[doc.id]} "
                              f"and {place} in reading order)")
        seen[doc.id] = place
    return documents


def clean_spans(spans: list[Span], path, doc_id: str) -> tuple[list[Span], int]:
    """Sorted spans with identical ones merged and overlapping ones joined into their union (see
    the module docstring); also the number of identical ones merged, for the caller to report
    once per file."""
    kept: list[Span] = []
    merged = 0
    for span in sorted(spans, key=lambda s: (s.start, -s.end)):  # stable: first listed first
        if kept and span.start < kept[-1].end:
            if span == kept[-1]:
                merged += 1
                continue
            first = kept[-1]
            kept[-1] = Span(first.start, max(first.end, span.end), first.type, first.subtype)
            logger.warning("%s: document %s: span %d-%d overlaps span %d-%d; both are PHI, "
                           "joined as %d-%d %s", path, doc_id, span.start, span.end, first.start,
                           first.end, kept[-1].start, kept[-1].end, first.type)
            continue
        kept.append(span)
    return kept, merged


def check_spans(doc: Document, path) -> None:
    try:
        doc.check_spans()
    except ValueError as error:
        raise FormatError(path, str(error)) from None


def corpus_label(span: Span, table: dict, default: dict) -> str:
    """The corpus label to write: the span's subtype where ``table`` maps it to the span's class
    (so a subtype from another corpus never gives an unreadable file), else ``default``."""
    return span.subtype if table.get(span.subtype) == span.type else default[span.type]
