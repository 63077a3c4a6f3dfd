"""PhysioNet deid: ``id.text`` (``START_OF_RECORD=<patient>||||<note>||||`` .. ``||||END_OF_
RECORD``) and ``id-phi.phrase`` (``<patient> <note> <start> <end> <category> <text>``), as the
PhysioNet deid 1.1 corpus is distributed.

PhysioNet categories (:data:`PHYSIONET_TO_2006`, as the corpus README gives them): HCPName →
DOCTOR; PTName, PTNameInitial, RelativeProxyName → PATIENT; Date, DateYear → DATE; Location →
LOCATION; Phone → PHONE; Age → AGE; Other → ID. Both readers keep the corpus's own label in
``Span.subtype``.
"""
from __future__ import annotations

import logging
import os
import re
from pathlib import Path

from itdeid.document import Document, Span
from itdeid.errors import FormatError
from itdeid.formats.common import (atomic_write, check_spans, clean_spans, corpus_label, line_of,
                                   not_one_of, unique, whole_number)
from itdeid.formats.decoding import refuse_binary
from itdeid.formats.files import read_bytes

logger = logging.getLogger("itdeid.formats")

#: PhysioNet deid ``id-phi.phrase`` category → 2006 class.
PHYSIONET_TO_2006: dict[str, str] = {
    "HCPName": "DOCTOR",
    "PTName": "PATIENT", "PTNameInitial": "PATIENT", "RelativeProxyName": "PATIENT",
    "Date": "DATE", "DateYear": "DATE",
    "Location": "LOCATION",
    "Phone": "PHONE",
    "Age": "AGE",
    "Other": "ID",
}
#: The category written for a span with no PhysioNet subtype (HOSPITAL reads back as LOCATION:
#: the corpus does not separate them).
_PHYSIONET_CATEGORY = {"DOCTOR": "HCPName", "PATIENT": "PTName", "DATE": "Date",
                       "LOCATION": "Location", "HOSPITAL": "Location", "PHONE": "Phone",
                       "AGE": "Age", "ID": "Other"}


# the patient field holds no '-': the id is <patient>-<note>, and '1-2||||3' and '1||||2-3'
# would both be note 1-2-3
_RECORD_START = re.compile(r"START_OF_RECORD=([^|\s-]+)\|\|\|\|([^|\s]+)\|\|\|\|\r?\n")
_RECORD_END = "||||END_OF_RECORD"
_WHITESPACE = re.compile(r"\s*")
_PHYSIONET_FIELD = re.compile(r"[^|\s]+")


def _phrase_path(text_path: Path) -> Path:
    """``id-phi.phrase`` beside ``id.text`` (generally ``<stem>-phi.phrase``)."""
    return text_path.with_name(f"{text_path.stem}-phi.phrase")


def _same_phrase(piece: str, phrase: str) -> bool:
    """Whether a phrase-file text names ``piece``. The developer split matches exactly (the
    phrase being the rest of the line after the category); runs of whitespace compare equal so a
    span across a line break, which a one-line phrase cannot hold, still checks."""
    return piece == phrase or piece.split() == phrase.split()


def _read_latin1(path) -> str:
    """A PhysioNet file's text: latin-1, the format's own encoding (phrase offsets count bytes,
    so every byte must be one character), after refusing binary content (a signature, or a NUL
    byte anywhere), which latin-1 would otherwise read as characters."""
    data = read_bytes(path)
    refuse_binary(data, path)
    if not data.isascii() and _is_utf8(data):
        # a hospital's own export in this layout is often UTF-8: read as latin-1 each accented
        # letter became two characters ('cafÃ©') in the output, without a word
        logger.warning("%s: its non-ASCII bytes are UTF-8, but PhysioNet files are read as latin-1 "
                       "(offsets count bytes): each accented letter reads as two characters; "
                       "convert the file to latin-1 (iconv -f utf-8 -t latin1)", path)
    return data.decode("latin-1")


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def read_physionet(text_path, phrase_path=None) -> list[Document]:
    """The notes of a PhysioNet deid ``id.text`` file with the spans of its ``id-phi.phrase``.

    ``Document.id`` is ``<patient>-<note>``, ``patient`` the patient number; the text lies between
    the newline ending the START line and ``||||END_OF_RECORD``. Files are latin-1 (binary content
    refused: :func:`_read_latin1`). The phrase
    file defaults to ``id-phi.phrase`` beside ``id.text`` when it exists (else no spans).
    ``text_path`` may also be the folder holding ``id.text`` (and ``id-phi.phrase``). Every
    phrase must match the note text at its offsets; duplicates and overlaps are handled as the
    module docstring says.
    """
    text_path = Path(text_path)
    if text_path.is_dir():
        if not (text_path / "id.text").is_file():
            raise FormatError(text_path, "no id.text in this folder (a PhysioNet deid folder holds "
                                         "id.text and id-phi.phrase)")
        # other notes or annotations beside them (a README is no corpus file) are not read
        others = [e for e in os.scandir(text_path) if e.name not in ("id.text", "id-phi.phrase")
                  and Path(e.name).suffix.lower() in (".xml", ".text", ".phrase", ".txt", ".zip")]
        if others:
            logger.warning("%s: read id.text and id-phi.phrase; %d other corpus files skipped",
                           text_path, len(others))
        text_path = text_path / "id.text"
    raw = _read_latin1(text_path)
    documents: dict[str, Document] = {}
    position = _WHITESPACE.match(raw).end()
    while position < len(raw):
        start = _RECORD_START.match(raw, position)
        if start is None:
            raise FormatError(text_path, "expected START_OF_RECORD=<patient>||||<note>||||",
                              line_of(raw, position))
        end = raw.find(_RECORD_END, start.end())
        if end < 0:
            raise FormatError(text_path, "record has no ||||END_OF_RECORD", line_of(raw, position))
        patient, note = start.groups()
        doc_id = f"{patient}-{note}"
        if doc_id in documents:
            raise FormatError(text_path, f"document id {doc_id!r} occurs more than once",
                              line_of(raw, position))
        documents[doc_id] = Document(doc_id, raw[start.end():end], patient=patient,
                                     source=str(text_path))
        position = _WHITESPACE.match(raw, end + len(_RECORD_END)).end()
    if phrase_path is None and _phrase_path(text_path).is_file():
        phrase_path = _phrase_path(text_path)
    if phrase_path is not None:
        _read_phrases(Path(phrase_path), documents)
    return list(documents.values())


def _read_phrases(path: Path, documents: dict[str, Document]) -> None:
    spans: dict[str, list[Span]] = {doc_id: [] for doc_id in documents}
    lines = _read_latin1(path).split("\n")
    for number, line in enumerate(lines, 1):
        fields = line.rstrip("\r").split(None, 5)
        if not fields:
            continue
        if len(fields) < 6:
            raise FormatError(path, "expected <patient> <note> <start> <end> <category> <text>",
                              number)
        patient, note, start, end, category, phrase = fields
        doc = documents.get(f"{patient}-{note}")
        if doc is None:
            # the two fields are shown only as numbers: a shifted line puts note text there
            named = f"{patient}-{note}" if f"{patient}{note}".isdigit() else "of these fields"
            raise FormatError(path, f"no note {named} in the text file", number)
        if category not in PHYSIONET_TO_2006:
            raise FormatError(path, not_one_of("the category", PHYSIONET_TO_2006), number)
        try:
            start, end = whole_number(start), whole_number(end)
        except ValueError:
            raise FormatError(path, "start and end must be integers", number) from None
        if not 0 <= start < end <= len(doc.text):
            raise FormatError(path, f"offsets {start}-{end} are outside note {doc.id} "
                                    f"({len(doc.text)} characters)", number)
        if not _same_phrase(doc.text[start:end], phrase):
            raise FormatError(path, f"the phrase does not match note {doc.id} at {start}-{end}",
                              number)
        spans[doc.id].append(Span(start, end, PHYSIONET_TO_2006[category], category))
    merged = 0
    for doc in documents.values():
        doc.spans, count = clean_spans(spans[doc.id], path, doc.id)
        merged += count
    if merged:
        logger.warning("%s: merged %d duplicate phrase lines", path, merged)


def _physionet_key(doc: Document, path) -> tuple[str, str]:
    """(patient, note) of a document: ``patient`` when the id starts with it, else the id split
    at its first ``-``."""
    if doc.patient and doc.id.startswith(f"{doc.patient}-"):
        patient = doc.patient
    else:
        patient = doc.id.partition("-")[0]
    note = doc.id[len(patient) + 1:]
    if not (doc.id == f"{patient}-{note}" and _PHYSIONET_FIELD.fullmatch(patient) and "-" not in patient
            and _PHYSIONET_FIELD.fullmatch(note)):
        raise FormatError(path, f"document id {doc.id!r} is not <patient>-<note>, which "
                                "PhysioNet records need")
    return patient, note


def write_physionet(documents: list[Document], text_path, phrase_path=None) -> None:
    """Write ``documents`` as a PhysioNet deid ``id.text`` and its phrase file (by default
    ``<stem>-phi.phrase`` beside it, so :func:`read_physionet` finds it).

    The category is the span's subtype where it is a PhysioNet category of the span's class,
    else the default one of the class (HOSPITAL is written as Location). Phrases are the span
    text with whitespace runs as single spaces, so each stays on its line.
    """
    text_path = Path(text_path)
    phrase_path = Path(phrase_path) if phrase_path is not None else _phrase_path(text_path)
    unique(documents, text_path)
    records, phrases = [], []
    for doc in documents:
        patient, note = _physionet_key(doc, text_path)
        check_spans(doc, text_path)
        if _RECORD_END in doc.text:
            raise FormatError(text_path, f"document {doc.id}: the text holds {_RECORD_END}")
        beyond = re.search(r"[^\x00-\xff]", doc.text)
        if beyond:
            raise FormatError(text_path, f"document {doc.id}: character U+{ord(beyond.group()):04X} "
                                         f"at offset {beyond.start()} cannot be written in latin-1")
        records.append(f"START_OF_RECORD={patient}||||{note}||||\n{doc.text}{_RECORD_END}\n")
        phrases += [f"{patient} {note} {span.start} {span.end} "
                    f"{corpus_label(span, PHYSIONET_TO_2006, _PHYSIONET_CATEGORY)} "
                    f"{' '.join(doc.text[span.start:span.end].split())}\n"
                    for span in sorted(doc.spans)]
    atomic_write(text_path, "".join(records).encode("latin-1"))
    atomic_write(phrase_path, "".join(phrases).encode("latin-1"))
