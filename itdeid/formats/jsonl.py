"""Spans as JSON Lines, one ``{"doc": .., "start": .., "end": .., "type": ..}`` a line: the span
files itdeid writes (predictions, sidecars) and reads back for evaluation.
"""
from __future__ import annotations

import json

from itdeid.document import PHI_CLASSES, Document, Span
from itdeid.errors import FormatError
from itdeid.formats.common import atomic_write, clean_spans, line_of, logger, not_one_of
from itdeid.formats.files import read_bytes


_JSONL_KEYS = ("doc", "start", "end", "type")


def read_jsonl_spans(path, original_offsets: bool = False,
                     lengths: dict[str, int] | None = None) -> dict[str, list[Span]]:
    """Spans from JSON Lines ``{"doc": .., "start": .., "end": .., "type": ..}`` (other keys
    allowed; ``subtype`` is kept), keyed by document id in first-seen order, each list sorted,
    duplicates merged and overlaps joined as the corpus readers do. Blank lines and a leading
    byte-order mark are skipped. With ``original_offsets``, a redact sidecar's records are read
    at their ``original_start``/``original_end`` (offsets into the original note, where gold
    spans lie) rather than at their offsets into the redacted text. ``lengths``, when given,
    receives each document's ``text_length`` (``original_length``), the length of the text the
    offsets index, where the file records it."""
    data = read_bytes(path)
    try:
        lines = data.decode("utf-8-sig").split("\n")
    except UnicodeDecodeError as error:
        raise FormatError(path, "not UTF-8", line_of(data, error.start)) from None
    spans: dict[str, list[Span]] = {}
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise FormatError(path, f"not JSON ({error.msg}, column {error.colno})", number) from None
        if not isinstance(record, dict) or any(key not in record for key in _JSONL_KEYS):
            raise FormatError(path, 'expected an object with "doc", "start", "end" and "type"',
                              number)
        doc, start, end, span_type = (record[key] for key in _JSONL_KEYS)
        length_key = "text_length"
        if original_offsets and "original_start" in record and "original_end" in record:
            start, end = record["original_start"], record["original_end"]
            length_key = "original_length"
        if lengths is not None and length_key in record:
            length = record[length_key]
            if type(length) is not int or lengths.setdefault(doc, length) != length:
                raise FormatError(path, f'"{length_key}" must be one integer a document', number)
        subtype = record.get("subtype")
        if not isinstance(doc, str) or not (subtype is None or isinstance(subtype, str)):
            raise FormatError(path, '"doc" and "subtype" must be strings', number)
        if span_type not in PHI_CLASSES:
            raise FormatError(path, not_one_of('"type"', PHI_CLASSES), number)
        if not all(type(value) is int for value in (start, end)) or not 0 <= start < end:
            raise FormatError(path, "start and end must be integers with 0 <= start < end", number)
        spans.setdefault(doc, []).append(Span(start, end, span_type, subtype))
    # the gold readers' rule: identical spans merged, overlapping ones joined with a warning
    # (a span counted twice would count twice at entity level)
    cleaned = {doc: clean_spans(doc_spans, path, doc) for doc, doc_spans in spans.items()}
    merged = sum(n for _, n in cleaned.values())
    if merged:
        logger.warning("%s: merged %d duplicate spans", path, merged)
    return {doc: doc_spans for doc, (doc_spans, _) in cleaned.items()}


def write_jsonl_spans(items: list[Document], path) -> None:
    """Write the spans of ``items`` as JSON Lines, documents in order, spans by offset."""
    atomic_write(path, render_jsonl_spans(items))


def render_jsonl_spans(items: list[Document]) -> bytes:
    """The UTF-8 bytes :func:`write_jsonl_spans` writes, for callers that write the file
    themselves."""
    lines = [json.dumps({**span_record(doc.id, span), "text_length": len(doc.text)}) + "\n"
             for doc in items for span in sorted(doc.spans)]
    return "".join(lines).encode("utf-8")


def span_record(doc_id: str, span: Span) -> dict:
    """The JSON Lines record of one span, ``{"doc", "start", "end", "type"}`` and ``subtype``
    where the span has one, so every span file itdeid writes has the keys
    :func:`read_jsonl_spans` reads."""
    record = {"doc": doc_id, "start": span.start, "end": span.end, "type": span.type}
    if span.subtype is not None:
        record["subtype"] = span.subtype
    return record
