"""Reading and writing a corpus in any format by name: :func:`read_corpus` detects the format
(``auto``) and calls its reader; :func:`write_corpus` calls the writer of the format asked for."""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Sequence

from itdeid.document import Document, Span
from itdeid.errors import FormatError
from itdeid.formats.detect import detect_format
from itdeid.formats.files import walk_folder
from itdeid.formats.i2b2_2006 import read_i2b2_2006, write_i2b2_2006
from itdeid.formats.i2b2_2014 import read_i2b2_2014, write_i2b2_2014
from itdeid.formats.jsonl import read_jsonl_spans, write_jsonl_spans
from itdeid.formats.physionet import read_physionet, write_physionet
from itdeid.formats.text import read_text

logger = logging.getLogger(__name__)

#: Formats :func:`read_corpus` reads; ``auto`` detects one of the others.
READ_FORMATS = ("auto", "i2b2-2006", "i2b2-2014", "physionet", "text")
#: Formats :func:`write_corpus` writes.
WRITE_FORMATS = ("i2b2-2006", "i2b2-2014", "physionet", "jsonl")


_READERS = {"i2b2-2006": read_i2b2_2006, "i2b2-2014": read_i2b2_2014,
            "physionet": read_physionet, "text": read_text}
_WRITERS = {"i2b2-2006": write_i2b2_2006, "i2b2-2014": write_i2b2_2014,
            "physionet": write_physionet, "jsonl": write_jsonl_spans}


def read_corpus(path, format: str = "auto") -> list[Document]:
    """The documents at ``path`` in ``format`` (one of :data:`READ_FORMATS`; ``auto``:
    :func:`detect_format`). A ``.jsonl`` or BRAT ``.ann`` file is refused unless ``format`` is
    given: read as plain text it was one note of JSON or standoff lines (a span file holds
    offsets without the notes' text; itdeid writes BRAT and does not read it)."""
    if format == "auto" and Path(path).is_file():
        suffix = Path(path).suffix.lower()
        if suffix == ".jsonl":
            raise FormatError(path, "a JSON Lines span file holds offsets, not the notes' text: not "
                                    "a corpus (itdeid evaluate reads it as predictions)")
        if suffix == ".ann":
            raise FormatError(path, "BRAT .ann files are written for review (itdeid deid --format "
                                    "brat), not read; score the --format jsonl output instead")
    if format == "auto":
        format = detect_format(path)
    if format not in _READERS:
        raise FormatError(path, f"unknown format {format!r}; expected one of {', '.join(READ_FORMATS)}")
    return _READERS[format](path)


def read_annotated_corpus(path, format: str = "auto") -> list[Document]:
    """:func:`read_corpus` for training: a corpus none of whose documents holds a PHI span is
    refused, naming the format it was read as. A model trained on it would learn that nothing
    is PHI, and would keep every word of the notes as ordinary text (the privacy rule, that model files keep nothing learned from PHI, holds only
    where the gold marks the PHI): the usual cause is a corpus read in the wrong format."""
    if format == "auto":
        format = detect_format(path)
    documents = read_corpus(path, format)
    if not any(doc.spans for doc in documents):
        hint = (": plain text holds no annotations; give an annotated corpus (i2b2 2006 or 2014 "
                "XML, PhysioNet deid) or its --format (BRAT .ann files are not read)"
                if format == "text" else "")
        raise FormatError(path, f"the {len(documents)} documents read as {format} hold no PHI "
                                f"annotation, so there is nothing to learn PHI from{hint}")
    if len(documents) > 1 and all(doc.patient is None for doc in documents):
        # folds by patient keep a patient's names on one side; with none, a name in two of a
        # patient's notes is learned in one and found again in the other
        logger.warning("%s: no note names its patient, so each is taken as its own patient: "
                       "cross-validation and the threshold's inner split are too optimistic for "
                       "patients with several notes (README, 'Corpus formats', says how to give "
                       "patient ids)", path)
    return documents


def read_spans(path, format: str = "auto", gold: Sequence[Document] = ()) -> dict[str, list[Span]]:
    """Spans keyed by document id, from a ``.jsonl`` span file (or ``format="jsonl"``), a folder
    of them (``itdeid deid --format jsonl`` writes one a note) or a corpus in any readable
    format, so predictions can be given in any of them. A redact sidecar (``.redact.jsonl``) is
    read at its offsets into the original note. A corpus's notes
    must have the text of the ``gold`` documents of the same id: spans of another text (another
    version of the note, other line ends) would be scored at offsets that mean other words."""
    span_files = _span_files(path) if format in ("auto", "jsonl") else []
    if not span_files and (format == "jsonl" or (format == "auto" and Path(path).suffix.lower() == ".jsonl")):
        span_files = [Path(path)]
    if span_files:
        spans: dict[str, list[Span]] = {}
        for file in span_files:
            lengths: dict[str, int] = {}
            read = read_jsonl_spans(file, original_offsets=True, lengths=lengths)
            for doc_id, doc_spans in read.items():
                if doc_id in spans:
                    raise FormatError(file, f"document {doc_id} has spans in another file of {path} too")
                spans[doc_id] = doc_spans
            _check_lengths(file, lengths, gold)
            _check_ends(file, read, gold)
        return spans
    texts = {doc.id: doc.text for doc in gold}
    if format == "auto":
        format = detect_format(path)
    if format == "text":
        # plain notes (or a --format brat folder, whose .ann files are not read) hold no spans:
        # read as predictions they scored every gold PHI missed, with status 0
        raise FormatError(path, "read as plain text, which holds no predictions: give itdeid's "
                                "--format jsonl outputs, redact sidecars (.redact.jsonl) or an "
                                "annotated corpus (i2b2 XML, PhysioNet)")
    documents = read_corpus(path, format)
    for doc in documents:
        if doc.id in texts and doc.text != texts[doc.id]:
            raise FormatError(path, f"the text of document {doc.id} differs from the gold note's "
                                    "(predictions must be made on the same notes)")
    return {doc.id: doc.spans for doc in documents}


def _check_lengths(path, lengths: dict[str, int], gold: Sequence[Document]) -> None:
    """Spans whose file records the length of the note they index (itdeid writes it) must come
    from a note of the gold note's length: the gold of an i2b2 2014 file with CRLF line ends is
    read with LF (XML's rule), while ``itdeid deid`` keeps the .txt note's CRLF, so every span
    after the first line end was scored one character further off per line, without a word."""
    for doc in gold:
        if doc.id in lengths and lengths[doc.id] != len(doc.text):
            raise FormatError(path, f"the spans of document {doc.id} were made on a text of "
                                    f"{lengths[doc.id]} characters, and the gold note has {len(doc.text)} "
                                    "(another version, or other line ends: CRLF against LF?)")


def _check_ends(path, spans: dict[str, list[Span]], gold: Sequence[Document]) -> None:
    """A span past the end of its gold note is refused naming the file that holds it (scoring
    found it later, naming the document alone)."""
    for doc in gold:
        past = [s for s in spans.get(doc.id, ()) if s.end > len(doc.text)]
        if past:
            raise FormatError(path, f"document {doc.id}: span {past[0].start}-{past[0].end} ends "
                                    f"past the gold note's text ({len(doc.text)} characters)")


def _span_files(path) -> list[Path]:
    """The ``.jsonl`` span files of a folder such as ``itdeid deid --format jsonl`` writes (one
    a note; at any depth, sorted, hidden ones such as the run's manifest left out), or [] when
    ``path`` is no folder or holds none."""
    if not Path(path).is_dir():
        return []
    return [file for file in walk_folder(path) if file.suffix.lower() == ".jsonl" and file.is_file()]


def write_corpus(documents: list[Document], path, format: str) -> None:
    """Write ``documents`` to ``path`` in ``format`` (one of :data:`WRITE_FORMATS`; i2b2-2014
    writes a folder, physionet ``path`` and the phrase file beside it, jsonl only the spans)."""
    if format not in _WRITERS:
        raise FormatError(path, f"cannot write format {format!r}; expected one of "
                                f"{', '.join(WRITE_FORMATS)}")
    _WRITERS[format](documents, path)
