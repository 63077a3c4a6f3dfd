"""One input file of a batch: read, tag, render. No writing: workers send the outputs back as
bytes and the parent process writes them (:mod:`itdeid.batch.manifest`).

A bad input is a :class:`UnitResult` with an ``error``, never an exception, so one bad file cannot
stop the batch. The error and the warnings name the file, note ids and offsets, never note text;
an unexpected error is described by its type and where it happened, without its message (which
could quote text).
"""
from __future__ import annotations

import logging
import os
import time
import traceback
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

from itdeid.document import Document, Span
from itdeid.errors import UserError
from itdeid.batch.files import content_digest
from itdeid.batch.inputs import InputFailed, Unit, read_documents, read_input
from itdeid.render.outputs import RELEASED, render
from itdeid.batch.rename import looks_like_phi
from itdeid.batch.settings import Settings
from itdeid.batch.tagging import tag_notes
from itdeid.text.pieces import tags_independently
from itdeid.text.spans import with_annotated


@dataclass
class UnitResult:
    """What processing one input gave: its outputs (paths relative to ``OUT`` → bytes) and
    counts, or ``error`` (a PHI-free reason) when it failed."""

    unit: Unit
    digest: str | None = None
    size: int = 0
    read_as: str | None = None
    outputs: dict[str, bytes] = field(default_factory=dict)
    documents: int = 0
    tokens: int = 0
    phi: Counter = field(default_factory=Counter)
    empty: bool = False
    #: notes of a multi-note file whose ids look like PHI and name outputs (no ``--rename``)
    named_notes: int = 0
    warnings: list[str] = field(default_factory=list)
    error: str | None = None
    #: when (``time.time()``) the process that tagged it, its model loaded, began its chunk:
    #: the run's speed is measured from the first, after start-up (None: never tagged)
    started: float | None = None


class _Warnings(logging.Handler):
    """Collects the warnings itdeid logs while one unit is processed (they name the file and
    line, never text), so they reach the user through the parent whatever process made them."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def _render_outputs(unit: Unit, documents: list[Document], spans: list[list[Span]], fmt: str,
                    several: bool, surrogates) -> dict[str, bytes]:
    """Output files (relative paths) of a unit, laid out as :mod:`itdeid.batch` says."""
    width = len(str(len(documents)))
    # with --rename, a note of a file of several is named by its place in the file
    names = [f"{k:0{width}d}" if unit.renamed else doc.id for k, doc in enumerate(documents, 1)]
    documents = [_as_written(unit, doc, several, fmt, name) for doc, name in zip(documents, names)]
    outputs: dict[str, bytes] = {}
    if several and fmt == "jsonl":
        outputs[f"{unit.stem}.jsonl"] = b"".join(
            render(doc, found, fmt, surrogates)[".jsonl"] for doc, found in zip(documents, spans))
        return outputs
    for doc, found, note in zip(documents, spans, names):
        name = f"{unit.stem}/{note}" if several else unit.stem
        for suffix, content in render(doc, found, fmt, surrogates).items():
            outputs[name + suffix] = content
    return outputs


def _as_written(unit: Unit, doc: Document, several: bool, fmt: str, position: str) -> Document:
    """The note as its outputs name it. With ``--rename``, the note of a one-note file (whose
    id, and patient where it has one, come from its file name: i2b2 2014 ``100-01.xml``) takes
    the file's hashed name, and a note of a file of several the file's hashed name and its
    ``position`` in the file ('3f9c...e1/2': its id may be a member's file name or a record id,
    which can hold a name or an MRN), with no patient either way. For surrogates, ``patient`` is set to the patient the
    surrogates are keyed by (:func:`surrogate_patient`), which surrogate text never shows;
    other formats keep the note's own patient (xml writes it)."""
    renamed = bool(unit.renamed)
    patient = surrogate_patient(unit, doc) if fmt == "surrogate" else (None if renamed else doc.patient)
    doc_id = (f"{unit.renamed}/{position}" if several else unit.renamed) if renamed else doc.id
    return Document(doc_id, doc.text, doc.spans, patient=patient,
                    source=unit.renamed or doc.source)


def surrogate_patient(unit: Unit, doc: Document) -> str:
    """Whose note ``doc`` is, for surrogates: its own patient id where the file gives one, else
    the patient its file was grouped under (:mod:`itdeid.batch.patients`), else the note alone:
    its id as read within its file's absolute path (renaming changes no surrogate). The id
    alone made two patients one: 'note.txt' of two folders, or i2b2 records ``ID="4"`` of two
    files, drew the same stand-ins and one date shift under one key, so one patient's real
    dates undid the other's."""
    return doc.patient or unit.patient or f"{unit.path}\0{doc.id}"


def _unexpected(error: BaseException) -> str:
    """A PHI-free description of an unexpected error: its type, the line that raised it and the
    innermost itdeid line on the way (its message might quote the note, so it is left out)."""
    frames = traceback.extract_tb(error.__traceback__)
    where = ""
    if frames:
        where = f" at {Path(frames[-1].filename).name}:{frames[-1].lineno}"
        ours = [f for f in frames if f"{os.sep}itdeid{os.sep}" in f.filename]
        if ours and ours[-1] is not frames[-1]:
            where += f" (from {Path(ours[-1].filename).name}:{ours[-1].lineno})"
    return f"unexpected {type(error).__name__}{where}; an itdeid bug, please report it"


def _raised_by_itdeid(error: BaseException) -> bool:
    frames = traceback.extract_tb(error.__traceback__)
    return bool(frames) and f"{os.sep}itdeid{os.sep}" in frames[-1].filename


def _format_reason(error, unit: Unit) -> str:
    """A FormatError's message without the input path the report already names (kept where
    the error is about another file, such as a zip member or a PhysioNet phrase file)."""
    message = str(error)
    if error.path not in (unit.path, unit.rel):    # the writers name the note by its relative path
        return message
    message = message.removeprefix(f"{error.path}:")
    if error.line is not None:
        message = f"line {error.line}:" + message.removeprefix(f"{error.line}:")
    return message.strip()


@contextmanager
def _captured_warnings() -> Iterator[_Warnings]:
    """The warnings itdeid logs inside the block, collected instead of printed."""
    capture = _Warnings()
    itdeid_logger = logging.getLogger("itdeid")
    itdeid_logger.addHandler(capture)
    try:
        yield capture
    finally:
        itdeid_logger.removeHandler(capture)


def _guarded(result: UnitResult, step) -> None:
    """Run ``step()`` for ``result.unit``: a bad input becomes ``result.error`` (a PHI-free
    reason), never an exception, and the warnings itdeid logs meanwhile go to
    ``result.warnings``."""
    from itdeid.errors import FormatError
    with _captured_warnings() as capture:
        try:
            step()
        except InputFailed as error:
            result.error = str(error)
        except FormatError as error:
            result.error = _format_reason(error, result.unit)
        except (UserError, ValueError) as error:
            # itdeid's own messages name ids and offsets; another library's might quote the text
            result.error = str(error) if _raised_by_itdeid(error) else _unexpected(error)
        except OSError as error:
            result.error = f"cannot read: {error.strerror}"
        except MemoryError:
            result.error = "out of memory"
        except Exception as error:  # noqa: BLE001 - one bad file must not stop the batch
            result.error = _unexpected(error)
    result.warnings += capture.messages
    if result.error:
        result.outputs = {}


def process_unit(unit: Unit, settings: Settings, model, surrogates) -> UnitResult:
    """Read, tag and render one input file. Never raises for bad input: the reason goes in
    ``UnitResult.error``, so one bad file cannot stop the batch."""
    return process_units([unit], settings, model, surrogates)[0]


def process_units(units: list[Unit], settings: Settings, model, surrogates,
                  progress: Callable[[float], None] | None = None) -> list[UnitResult]:
    """Read, tag and render several input files, one :class:`UnitResult` each, in order.

    Each file is read and rendered on its own, so a bad one fails alone. Their notes are tagged
    in one call when the model allows (:func:`~itdeid.text.pieces.tags_independently`): decoding
    then advances all of them side by side, which is what makes folders of short notes fast,
    and gives each note the tags it would get alone. Should that call fail (or log a warning,
    which must be reported against its own file), every file is tagged on its own instead.

    ``progress(amount)``, if given, hears how many bytes of these files' inputs are tagged so
    far, as tagging moves through their notes (a file's bytes in the share of its characters
    tagged), for a progress bar that moves within a long file.
    """
    began = time.time()
    results = [UnitResult(unit, started=began) for unit in units]
    loaded: list[tuple[UnitResult, list[Document], bool]] = []
    for result in results:
        read: dict = {}

        def step(result=result, read=read):
            data = read_input(result.unit)
            result.digest, result.size = content_digest(settings.digest_key, data), len(data)
            result.read_as, read["documents"], read["several"] = read_documents(
                result.unit, data, settings.input_format, result.warnings)
            if read["several"] and not result.unit.renamed:
                result.named_notes = sum(looks_like_phi(doc.id) for doc in read["documents"])

        _guarded(result, step)
        if result.error is None:
            loaded.append((result, read["documents"], read["several"]))

    tagged: list[tuple[list[list[Span]], list[int]]] | None = None
    sizes = [result.size for result, _, _ in loaded]
    if len(loaded) > 1 and tags_independently(model):
        files = [documents for _, documents, _ in loaded]
        tagged = _tag_together(model, files, _meter(progress, 0, sum(sizes), sum(
            len(doc.text) for documents in files for doc in documents)))
    for k, (result, documents, several) in enumerate(loaded):

        def step(result=result, documents=documents, several=several, k=k):
            advance = _meter(progress, sum(sizes[:k]), sizes[k],
                             sum(len(doc.text) for doc in documents))
            spans, tokens = tagged[k] if tagged is not None else tag_notes(
                model, documents, advance=advance)
            if settings.fmt in RELEASED:   # PHI the input itself marks is released by no one
                spans = [with_annotated(doc.spans, found) for doc, found in zip(documents, spans)]
            result.tokens = sum(tokens)
            result.outputs = _render_outputs(result.unit, documents, spans, settings.fmt, several,
                                             surrogates)
            result.documents = len(documents)
            result.phi = Counter(span.type for found in spans for span in found)
            result.empty = result.size == 0

        _guarded(result, step)
    return results


def _meter(progress: Callable[[float], None] | None, before: float, size: float,
           chars: int) -> Callable[[int], None] | None:
    """An ``advance(n)`` for :func:`~itdeid.batch.tagging.tag_notes` that tells ``progress``
    the bytes done: ``before`` (earlier files) plus the share of ``size`` bytes whose ``chars``
    characters of notes are tagged; None without ``progress``."""
    if progress is None:
        return None
    tagged = 0

    def advance(n: int) -> None:
        nonlocal tagged
        tagged += n
        progress(before + (size * tagged / chars if chars else size))

    return advance


def _tag_together(model, files: list[list[Document]], advance=None):
    """Per file, (spans per note, tokens per note) from one tagging call over all their notes,
    or None when that call raised or logged a warning (then each file is tagged alone)."""
    with _captured_warnings() as capture:
        try:
            spans, tokens = tag_notes(model, [doc for documents in files for doc in documents],
                                      advance=advance)
        except Exception:  # noqa: BLE001 - retried file by file, where the error is reported
            return None
    if capture.messages:
        return None
    out, start = [], 0
    for documents in files:
        end = start + len(documents)
        out.append((spans[start:end], tokens[start:end]))
        start = end
    return out
