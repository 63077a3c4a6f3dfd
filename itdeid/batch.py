"""Batch de-identification: a tree of notes in, a tree of de-identified notes out, resumably.

:func:`deidentify` is what ``itdeid deid`` runs; it can be called from Python the same way.

Inputs. Each input is a file, a folder (every regular file under it, recursively, sorted, hidden
files and folders skipped) or a glob pattern (``notes/**/*.txt``); every input *file* is one unit
of work. A file's path relative to its input root (the folder; the folder part of a pattern
before its first wildcard; a file's own folder) is its name in the output tree and the manifest.
A PhysioNet gold file (``X-phi.phrase`` beside ``X.text``) is not a note and is left out.

Reading. With ``input_format="auto"`` each file's format is detected by content
(:func:`itdeid.formats.detect_format`); otherwise all files are read as the given format.

* ``text``: one file, one note; its id is the relative path without ``.txt`` (``ward/note1``).
  UTF-8, else latin-1 (every byte is a character, so nothing is lost) with a warning naming the
  file. A file with a NUL byte in its first 8 KB is binary: skipped and reported as failed. An
  empty file (0 bytes) is a note without text: its (empty) outputs are written so that every
  input has its outputs, and a warning names it.
* ``i2b2-2014``: one note a file, id the file name without ``.xml``.
* ``i2b2-2006`` XML, ``physionet`` ``id.text``, and any ``.zip`` archive hold several notes (ids:
  the RECORD ID; PhysioNet ``<patient>-<note>``).

Output layout (``OUT`` is ``--out``; ``STEM`` the relative path without its ``.txt``, ``.xml``,
``.text`` or ``.zip``; suffixes as :func:`itdeid.outputs.render` gives them)::

    one note a file     OUT/STEM<suffix>                e.g. OUT/ward/note1.txt + .redact.jsonl
    several notes       --format jsonl: OUT/STEM.jsonl  (the spans of all its notes, in order)
                        other formats:  OUT/STEM/<note id><suffix>   e.g. OUT/id/1-1.txt
    bookkeeping         OUT/.itdeid-manifest.jsonl, OUT/.itdeid-surrogate-key

The run is refused (:class:`~itdeid.errors.UserError`) before anything is processed when ``OUT``
is an input folder or lies inside one, when an input file lies inside ``OUT``, or when two inputs
would get the same ``STEM``; every output path is checked again before it is written.

Writing. Workers read, tag and render; the parent process alone writes, each file to a temporary
file in the same folder (``.NAME.*.itdeid.tmp``), fsynced, then ``os.replace`` d, so a crash
leaves the old file or the new one; the next run deletes such leftovers. Output files and the
manifest are readable by their owner only, like the notes. The manifest is locked while a run
writes ``OUT``: a second run into the same ``OUT`` is refused.

Manifest (``OUT/.itdeid-manifest.jsonl``): one JSON object a finished input, appended, flushed
and fsynced after that input's outputs are written: ``input`` (relative path), ``sha256`` and
``bytes`` of its content, ``read_as`` (the format it was read as), ``outputs`` (paths relative to
``OUT``), ``documents``, ``tokens``, ``phi`` (spans a class), ``empty``, ``model_dir``,
``finished`` (UTC time, the only clock reading; outputs hold none) and ``settings``: ``format``,
``input_format``, ``model`` (sha256 of the model folder's files), ``vote``, ``surrogate_key``
(a fingerprint of the key, never the key) and ``itdeid`` (version). On a rerun an input is
skipped when the last entry for it has the same settings and content hash and its outputs all
exist; anything else is redone (``force`` redoes everything). A run killed at any point and rerun
therefore finishes the rest, redoing at most the inputs that were in flight, and since outputs
depend only on the input, the model and the key, they are byte-identical to an uninterrupted
run's. Entries of a killed run's half-written last line are ignored; at the end of a run the
manifest is rewritten with one entry an input if it held more. Failed inputs get no entry (so
the next run retries them). Outputs that a redone input no longer has (those of other settings,
or of notes since removed from a multi-note file) are left where they are.

Bad input never stops the batch (unless ``strict``): an unreadable, binary or malformed file, an
output that cannot be written, is reported on stderr with its path and the reason, and counted as
failed; the others are processed. Messages, warnings and the summary name files, note ids and
offsets, never note text; an unexpected error is reported by its type and where it happened,
without its message (which could quote text).

Long notes. A note longer than :data:`LONG_NOTE_CHARS` characters is tagged in pieces cut at
line ends, and the notes of a multi-note file in groups of at most that many characters, so
memory stays bounded whatever the size of a note (measured: a 10 MB note, 2 million tokens, in
78 s and 0.56 GB peak on one core; tagged whole, a note takes about 2 GB a million tokens).
The model sees each piece as a note: the previous-label feature, the note's word-case counts and
(for the iterative system) its trusted and standardized phrases do not cross a cut, so tagging
near a cut can differ from tagging the whole note at once. Cuts depend on the text alone, so
outputs stay deterministic.

Parallelism. ``workers`` processes (default: all cores), each loading the model once and tagging
on one thread, with at most two inputs a worker in flight, so memory does not grow with the
number of files; ``workers=1`` runs in this process. ``engine="dask"`` sends inputs to a Dask cluster (``scheduler``, else a
local one): its workers need itdeid installed, read the inputs by absolute path (so they must
see the same file system) and receive the surrogate key with each task; results come back here to be written, so outputs
are the same as with the local engine.

Surrogates (``fmt="surrogate"``) are keyed (:class:`itdeid.surrogate.Surrogates`): the key is
the bytes of ``surrogate_key_file``, else a random 32-byte key created once in
``OUT/.itdeid-surrogate-key`` (mode 0600) and reused by reruns. Keep it secret and do not ship
it with the outputs: it undoes the date shifts. Deleting it makes the next run draw other
surrogates (and redo every input).
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import json
import logging
import multiprocessing
import os
import re
import secrets
import sys
import tempfile
import time
import traceback
import zipfile
from collections import Counter
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from glob import glob
from pathlib import Path
from typing import Callable, Iterable, Iterator

from itdeid import __version__
from itdeid.document import Document, Span
from itdeid.errors import UserError
from itdeid.outputs import FORMATS, render

#: Formats an input may be read as; ``auto`` detects one per file.
INPUT_FORMATS = ("auto", "text", "i2b2-2006", "i2b2-2014", "physionet")
#: Where the inputs are processed.
ENGINES = ("local", "dask")
#: Default output format: de-identified text that needs no secret key.
DEFAULT_FORMAT = "redact"
#: Characters of text tagged at once (see "Long notes" in the module docstring).
LONG_NOTE_CHARS = 500_000
#: A text file with a NUL byte in this many first bytes is binary.
BINARY_SNIFF_BYTES = 8192
MANIFEST_NAME = ".itdeid-manifest.jsonl"
KEY_NAME = ".itdeid-surrogate-key"
#: Suffixes dropped from a relative path to name its outputs.
_STEM_SUFFIXES = (".txt", ".xml", ".text", ".zip")
# A note id that can be used as a file name under its file's output folder.
_SAFE_NAME = re.compile(r"[^/\\\x00.][^/\\\x00]{0,199}")
_HASH_BLOCK = 1 << 20
# Temporary files of _write_atomic end so; a killed run's are removed by the next.
_TEMP_SUFFIX = ".itdeid.tmp"


def _stderr(message: str) -> None:
    """Print a message on stderr without breaking the progress bar."""
    from tqdm import tqdm
    tqdm.write(message, file=sys.stderr)


# --------------------------------------------------------------------------------------------
# Inputs

@dataclass(frozen=True)
class Unit:
    """One input file: ``path`` (absolute, what workers open and messages name) and ``rel``, its
    POSIX path relative to its input root (its name in the output tree and the manifest)."""

    path: str
    rel: str

    @property
    def stem(self) -> str:
        """The output name of the file: ``rel`` without its ``.txt``/``.xml``/``.text``/``.zip``."""
        for suffix in _STEM_SUFFIXES:
            if self.rel.endswith(suffix) and len(self.rel) > len(suffix):
                return self.rel[:-len(suffix)]
        return self.rel

    @property
    def text_id(self) -> str:
        """The note id of a plain-text file: ``rel`` without ``.txt`` (as :func:`read_text`)."""
        return self.rel.removesuffix(".txt") or self.rel


def _has_magic(text: str) -> bool:
    return re.search(r"[*?[]", text) is not None


def _hidden(relative: Path) -> bool:
    return any(part.startswith(".") for part in relative.parts)


def _pattern_root(pattern: str) -> Path:
    """The folder part of a glob pattern before its first wildcard: relative paths of its
    matches start there, so ``notes/**/*.txt`` mirrors the tree under ``notes``."""
    parts = Path(pattern).parts
    fixed = []
    for part in parts[:-1]:
        if _has_magic(part):
            break
        fixed.append(part)
    return Path(*fixed) if fixed else Path(".")


def _is_phrase_companion(path: Path) -> bool:
    """A PhysioNet gold file (``X-phi.phrase`` beside ``X.text``): annotations, not a note."""
    return (path.name.endswith("-phi.phrase")
            and path.with_name(path.name.removesuffix("-phi.phrase") + ".text").is_file())


def expand_inputs(inputs: Iterable[str]) -> tuple[list[Unit], list[Path]]:
    """The input files of ``inputs`` (files, folders, glob patterns) as units, and the input
    roots that are folders (``OUT`` must stay out of them).

    A missing input or a pattern matching nothing is a :class:`UserError` before any work:
    a typo should not cost a night's run.
    """
    units: list[Unit] = []
    roots: list[Path] = []
    for given in map(str, inputs):
        path = Path(given)
        if path.is_dir():
            root = path.resolve()
            roots.append(root)
            files = sorted(p for p in root.rglob("*")
                           if p.is_file() and not _hidden(p.relative_to(root)))
        elif path.is_file():
            root, files = path.resolve().parent, [path.resolve()]
        elif _has_magic(given):
            root = _pattern_root(given).resolve()
            roots.append(root)
            files = sorted({Path(p).resolve() for p in glob(given, recursive=True)
                            if Path(p).is_file()})
            if any(not _inside(p, root) for p in files):
                raise UserError(f"{given}: the pattern matches files outside {root}; name "
                                "their folder instead")
            files = [p for p in files if not _hidden(p.relative_to(root))]
            if not files:
                raise UserError(f"{given}: no file matches this pattern")
        else:
            raise UserError(f"{given}: no such file or folder")
        units += [Unit(str(p), p.relative_to(root).as_posix()) for p in files
                  if not _is_phrase_companion(p)]
    if not units:
        raise UserError("no input files found in " + ", ".join(map(str, inputs)))
    return units, roots


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def check_layout(units: list[Unit], roots: list[Path], out: Path) -> None:
    """Refuse a layout that could overwrite an input or mix two inputs' outputs."""
    for root in roots:
        if _inside(out, root):
            raise UserError(f"--out {out} is inside the input folder {root}: outputs would mix "
                            "with the notes (and be read as input by the next run); choose a "
                            "folder outside it")
    stems: dict[str, Unit] = {}
    seen: dict[str, Unit] = {}
    for unit in units:
        if _inside(Path(unit.path), out):
            raise UserError(f"input {unit.path} is inside --out {out}: outputs could overwrite "
                            "it; choose another --out")
        if unit.path in seen:
            continue        # the same file named twice: once is enough
        seen[unit.path] = unit
        other = stems.setdefault(unit.stem, unit)
        if other is not unit:
            raise UserError(f"{other.path} and {unit.path} would both be written as "
                            f"{out / unit.stem}*; de-identify them in separate runs or --out "
                            "folders")


def _unique_units(units: list[Unit]) -> list[Unit]:
    """``units`` with a file named by two inputs kept once, in first-seen order."""
    seen, kept = set(), []
    for unit in units:
        if unit.path not in seen:
            seen.add(unit.path)
            kept.append(unit)
    return kept


# --------------------------------------------------------------------------------------------
# Model, key and settings

def resolve_model_dir(model: str | os.PathLike | None) -> Path:
    """``model`` as a model folder, or the default model shipped with itdeid; a clear one-line
    error where neither exists."""
    if model is None:
        from itdeid.resources import default_model_dir
        folder = default_model_dir()
        if not _is_model_dir(folder):
            raise UserError("no default model is installed with this itdeid; pass --model DIR "
                            "(train one with itdeid train)")
        return folder
    folder = Path(model)
    if not folder.is_dir():
        raise UserError(f"--model {folder}: no such folder")
    if not _is_model_dir(folder):
        raise UserError(f"--model {folder}: not a model folder (no model.json or "
                        "deidentifier.json; train one with itdeid train)")
    return folder.resolve()


def _is_model_dir(folder: Path) -> bool:
    return (folder / "model.json").is_file() or (folder / "deidentifier.json").is_file()


def model_fingerprint(folder: Path) -> str:
    """sha256 of every file of a model folder (names and contents), so a retrained or edited
    model redoes the inputs, while a moved one does not."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(path.relative_to(folder).as_posix().encode("utf-8") + b"\0")
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(_HASH_BLOCK), b""):
                digest.update(block)
    return digest.hexdigest()


def load_surrogate_key(out: Path, key_file, report: Callable[[str], None]) -> bytes:
    """The surrogate key: the bytes of ``key_file``, else the key kept in ``OUT`` (created
    once, mode 0600, so reruns draw the same surrogates)."""
    if key_file is not None:
        try:
            key = Path(key_file).read_bytes()
        except OSError as error:
            raise UserError(f"--surrogate-key-file {key_file}: cannot read: "
                            f"{error.strerror}") from None
        if not key:
            raise UserError(f"--surrogate-key-file {key_file}: the file is empty")
        return key
    path = out / KEY_NAME
    if path.is_file():
        key = path.read_bytes()
        if not key:
            raise UserError(f"{path}: the surrogate key file is empty; delete it to draw a new "
                            "key (other surrogates than before)")
        report(f"note: using the surrogate key {path}; keep it secret (it undoes the date "
               "shifts) and do not ship it with the outputs")
        return key
    key = secrets.token_bytes(32)
    _write_atomic(path, key)
    report(f"note: wrote a new secret surrogate key to {path} (mode 0600). Keep it secret and "
           "do not ship it with the outputs (it undoes the date shifts); keep it to rerun with "
           "the same surrogates: deleting it makes reruns draw different surrogates. Next time "
           "you can pass it with --surrogate-key-file.")
    return key


def key_fingerprint(key: bytes) -> str:
    """A short public fingerprint of the key for the manifest (a changed key redoes the
    inputs); domain-separated so it is never a value the surrogates use."""
    return hashlib.sha256(b"itdeid surrogate key fingerprint\0" + key).hexdigest()[:16]


@dataclass(frozen=True)
class Settings:
    """What a worker needs to process a unit (picklable), and what the manifest compares."""

    model_dir: str
    model_sha256: str
    fmt: str
    input_format: str
    vote: str | None
    key: bytes | None = field(default=None, repr=False)

    def fingerprint(self) -> dict:
        """The settings an output depends on (no secret): equal settings and input content
        give byte-identical outputs."""
        return {"format": self.fmt, "input_format": self.input_format,
                "model": self.model_sha256, "vote": self.vote,
                "surrogate_key": key_fingerprint(self.key) if self.key else None,
                "itdeid": __version__}


def load_tagger(settings: Settings):
    """The model and (for surrogates) the Surrogates of ``settings``, as each worker loads
    them once."""
    from itdeid.deidentifier import Deidentifier, load_model
    from itdeid.surrogate import Surrogates
    model = load_model(settings.model_dir)
    if settings.vote is not None and isinstance(model, Deidentifier):
        model.set_params(vote=settings.vote)
    surrogates = Surrogates(settings.key) if settings.key else None
    return model, surrogates


# --------------------------------------------------------------------------------------------
# One unit: read, tag, render (no writing: the parent writes)

@dataclass
class UnitResult:
    """What processing one input gave: its outputs (paths relative to ``OUT`` → bytes) and
    counts, or ``error`` (a PHI-free reason) when it failed."""

    unit: Unit
    sha256: str | None = None
    size: int = 0
    read_as: str | None = None
    outputs: dict[str, bytes] = field(default_factory=dict)
    documents: int = 0
    tokens: int = 0
    phi: Counter = field(default_factory=Counter)
    empty: bool = False
    warnings: list[str] = field(default_factory=list)
    error: str | None = None


class _Failed(Exception):
    """A unit cannot be processed; the message is the reason (PHI-free)."""


class _Warnings(logging.Handler):
    """Collects the warnings itdeid logs while one unit is processed (they name the file and
    line, never text), so they reach the user through the parent whatever process made them."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def _read_input(unit: Unit) -> bytes:
    try:
        with open(unit.path, "rb") as handle:
            return handle.read()
    except OSError as error:
        raise _Failed(f"cannot read: {error.strerror}") from None


def _decode_text(unit: Unit, data: bytes, warnings: list[str]) -> Document:
    """The note of a plain-text file: binary refused, UTF-8 else latin-1 (with a warning)."""
    nul = data.find(b"\0", 0, BINARY_SNIFF_BYTES)
    if nul >= 0:
        raise _Failed(f"binary file (NUL byte at offset {nul}); skipped")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        # latin-1 maps every byte to a character: nothing is lost, offsets stay per byte.
        warnings.append(f"{unit.path}: not UTF-8 (byte {error.start}); read as latin-1")
        text = data.decode("latin-1")
    if not data:
        warnings.append(f"{unit.path}: empty file (0 bytes); wrote empty outputs")
    return Document(unit.text_id, text, source=unit.rel)


def _read_documents(unit: Unit, data: bytes, input_format: str, warnings: list[str]
                    ) -> tuple[str, list[Document], bool]:
    """(format read as, the notes of the file, whether the file holds several notes)."""
    from itdeid.formats import detect_format, read_corpus
    fmt = detect_format(unit.path) if input_format == "auto" else input_format
    if fmt == "text":
        return fmt, [_decode_text(unit, data, warnings)], False
    documents = read_corpus(unit.path, fmt)
    several = fmt in ("i2b2-2006", "physionet") or zipfile.is_zipfile(unit.path)
    if several:
        for doc in documents:
            if not _SAFE_NAME.fullmatch(doc.id):
                raise _Failed(f"note id {doc.id!r} cannot be used as a file name")
    return fmt, documents, several


def _cuts(text: str, limit: int) -> list[tuple[int, int]]:
    """(start, end) pieces of at most ``limit`` characters covering ``text``, cut after a line
    end where one lies in the second half of the piece, else after a space, else anywhere."""
    pieces, start = [], 0
    while len(text) - start > limit:
        end = start + limit
        cut = text.rfind("\n", start + limit // 2, end)
        if cut < 0:
            cut = text.rfind(" ", start + limit // 2, end)
        cut = cut + 1 if cut >= 0 else end
        pieces.append((start, cut))
        start = cut
    pieces.append((start, len(text)))
    return pieces


def _groups(documents: list[Document], limit: int) -> Iterator[list[tuple[Document, int]]]:
    """The (piece, offset in its note) of every non-empty note, in groups of at most ``limit``
    characters tagged together (one call: the model batches them; long notes are cut). Lazy,
    so only one group's pieces are copied out of a long note at a time."""
    group: list[tuple[Document, int]] = []
    size = 0
    for doc in documents:
        for start, end in _cuts(doc.text, limit) if doc.text else []:
            if group and size + (end - start) > limit:
                yield group
                group, size = [], 0
            piece = doc if (start, end) == (0, len(doc.text)) else Document(
                doc.id, doc.text[start:end], patient=doc.patient, source=doc.source)
            group.append((piece, start))
            size += end - start
    if group:
        yield group


def tag_documents(model, documents: list[Document], limit: int | None = None
                  ) -> tuple[list[list[Span]], int]:
    """Predicted spans of each note (offsets into its whole text) and the number of tokens,
    tagging at most ``limit`` characters at a time (see "Long notes")."""
    from itdeid.tokens import tokenize
    limit = limit or LONG_NOTE_CHARS
    spans: dict[str, list[Span]] = {doc.id: [] for doc in documents}
    tokens = 0
    for group in _groups(documents, limit):
        predicted = model.predict([piece for piece, _ in group])
        for (piece, offset), found in zip(group, predicted):
            tokens += len(tokenize(piece.text))
            spans[piece.id] += [Span(s.start + offset, s.end + offset, s.type, s.subtype)
                                for s in found]
    return [spans[doc.id] for doc in documents], tokens


def _render_outputs(unit: Unit, documents: list[Document], spans: list[list[Span]], fmt: str,
                    several: bool, surrogates) -> dict[str, bytes]:
    """Output files (relative paths) of a unit, laid out as the module docstring says."""
    outputs: dict[str, bytes] = {}
    if several and fmt == "jsonl":
        outputs[f"{unit.stem}.jsonl"] = b"".join(
            render(doc, found, fmt, surrogates)[".jsonl"] for doc, found in zip(documents, spans))
        return outputs
    for doc, found in zip(documents, spans):
        name = f"{unit.stem}/{doc.id}" if several else unit.stem
        for suffix, content in render(doc, found, fmt, surrogates).items():
            outputs[name + suffix] = content
    return outputs


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
    if error.path != unit.path:
        return message
    message = message.removeprefix(f"{error.path}:")
    if error.line is not None:
        message = f"line {error.line}:" + message.removeprefix(f"{error.line}:")
    return message.strip()


def process_unit(unit: Unit, settings: Settings, model, surrogates) -> UnitResult:
    """Read, tag and render one input file. Never raises for bad input: the reason goes in
    ``UnitResult.error``, so one bad file cannot stop the batch."""
    from itdeid.errors import FormatError
    result = UnitResult(unit)
    capture = _Warnings()
    itdeid_logger = logging.getLogger("itdeid")
    itdeid_logger.addHandler(capture)
    try:
        data = _read_input(unit)
        result.sha256, result.size = hashlib.sha256(data).hexdigest(), len(data)
        result.read_as, documents, several = _read_documents(unit, data, settings.input_format,
                                                             result.warnings)
        del data
        spans, result.tokens = tag_documents(model, documents)
        result.outputs = _render_outputs(unit, documents, spans, settings.fmt, several, surrogates)
        result.documents = len(documents)
        result.phi = Counter(span.type for found in spans for span in found)
        result.empty = result.size == 0
    except _Failed as error:
        result.error = str(error)
    except FormatError as error:
        result.error = _format_reason(error, unit)
    except (UserError, ValueError) as error:
        # itdeid's own messages name ids and offsets; another library's might quote the text
        result.error = str(error) if _raised_by_itdeid(error) else _unexpected(error)
    except OSError as error:
        result.error = f"cannot read: {error.strerror}"
    except MemoryError:
        result.error = "out of memory"
    except Exception as error:  # noqa: BLE001 - one bad file must not stop the batch
        result.error = _unexpected(error)
    finally:
        itdeid_logger.removeHandler(capture)
    result.warnings += capture.messages
    if result.error:
        result.outputs = {}
    return result


# --------------------------------------------------------------------------------------------
# Engines: each yields a UnitResult a unit, in completion order

_WORKER_STATE: dict = {}


def _init_worker(settings: Settings) -> None:
    """Pool worker start: one thread a worker (so N workers do not each take every core; the
    learners predict on one thread anyway), and the model loaded once."""
    os.environ["OMP_NUM_THREADS"] = "1"
    _WORKER_STATE["tagger"] = load_tagger(settings)
    _WORKER_STATE["settings"] = settings


def _work(unit: Unit) -> UnitResult:
    return process_unit(unit, _WORKER_STATE["settings"], *_WORKER_STATE["tagger"])


def _run_inline(units: Iterator[Unit], settings: Settings, tagger) -> Iterator[UnitResult]:
    for unit in units:
        yield process_unit(unit, settings, *tagger)


_DIED = "the worker process ended abruptly (out of memory?); rerun to retry"


def _run_pool(units: Iterator[Unit], settings: Settings, workers: int) -> Iterator[UnitResult]:
    """A process pool with at most two units a worker in flight (memory stays flat however many
    files). A dead worker fails the units in flight (a rerun retries them) and the pool is
    restarted; three deaths in a row stop the batch."""
    context = multiprocessing.get_context("spawn")     # no fork of a process with threads

    def start():
        return ProcessPoolExecutor(workers, mp_context=context, initializer=_init_worker,
                                   initargs=(settings,))

    executor, pending, breaks = start(), {}, 0
    try:
        while True:
            while len(pending) < 2 * workers:
                unit = next(units, None)
                if unit is None:
                    break
                pending[executor.submit(_work, unit)] = unit
            if not pending:
                return
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            broken = []
            for future in done:
                unit = pending.pop(future)
                try:
                    result = future.result()
                except BrokenProcessPool:
                    broken.append(unit)
                    continue
                breaks = 0
                yield result
            if broken:
                breaks += 1
                if breaks >= 3:
                    raise UserError("worker processes died three times in a row without "
                                    "finishing an input (out of memory?); try fewer --workers")
                broken += list(pending.values())
                pending.clear()
                executor.shutdown(wait=False, cancel_futures=True)
                executor = start()
                for unit in broken:
                    yield UnitResult(unit, error=_DIED)
    finally:
        executor.shutdown(wait=True, cancel_futures=True)


_DASK_CACHE: dict = {}


def _dask_work(unit: Unit, settings: Settings) -> UnitResult:
    """A Dask task: the model is loaded once a worker process (cached by its settings)."""
    key = (settings.model_dir, settings.model_sha256, settings.vote, settings.key)
    if key not in _DASK_CACHE:
        _DASK_CACHE[key] = load_tagger(settings)
    return process_unit(unit, settings, *_DASK_CACHE[key])


def _import_distributed():
    try:
        import distributed
    except ImportError:
        raise UserError("--engine dask needs dask.distributed: pip install 'itdeid[dask]'") from None
    return distributed


def _run_dask(units: Iterator[Unit], settings: Settings, workers: int,
              scheduler: str | None) -> Iterator[UnitResult]:
    """The same units on a Dask cluster (``scheduler``, else a local one of ``workers``
    single-threaded workers), at most two units a worker in flight."""
    distributed = _import_distributed()
    cluster = None
    try:
        if scheduler:
            client = distributed.Client(scheduler)
        else:
            # one worker: threads in this process (in-process transport); more: processes
            # listening on loopback only
            where = {"processes": True, "host": "127.0.0.1"} if workers > 1 else {"processes": False}
            cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1,
                                               dashboard_address=None, silence_logs=logging.ERROR,
                                               **where)
            client = distributed.Client(cluster)
    except OSError as error:
        raise UserError(f"cannot reach the Dask scheduler {scheduler}: {error}") from None
    try:
        slots = 2 * max(1, len(client.scheduler_info().get("workers", {})) or workers)
        pending: dict = {}
        while True:
            while len(pending) < slots:
                unit = next(units, None)
                if unit is None:
                    break
                pending[client.submit(_dask_work, unit, settings, pure=False)] = unit
            if not pending:
                return
            done = distributed.wait(list(pending), return_when="FIRST_COMPLETED").done
            for future in done:
                unit = pending.pop(future)
                try:
                    result = future.result()
                except Exception as error:  # noqa: BLE001 - a lost worker fails its unit only
                    result = UnitResult(unit, error=f"Dask task failed: {type(error).__name__}")
                yield result
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


# --------------------------------------------------------------------------------------------
# Writing and the manifest

def _write_atomic(path: Path, data: bytes) -> None:
    """Write through a fsynced temporary file in the same folder, then ``os.replace``: a crash
    leaves the old file or the new one, and once the manifest says an output is done, it is on
    disk. The temporary file is created owner-only, and the output keeps that mode."""
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.",
                                             suffix=_TEMP_SUFFIX)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


class Manifest:
    """The JSON Lines record of finished inputs in ``OUT`` (see the module docstring)."""

    def __init__(self, out: Path):
        self.path = out / MANIFEST_NAME
        self.entries: dict[str, dict] = {}
        self.lines = 0
        self.unreadable = 0
        self._handle = None

    def load(self) -> "Manifest":
        """Read the entries (the last one an input wins); a torn or foreign line is counted and
        ignored, so a run killed while appending does not block the next."""
        try:
            with open(self.path, "rb") as handle:
                raw = handle.read().split(b"\n")
        except FileNotFoundError:
            return self
        except OSError as error:
            raise UserError(f"{self.path}: cannot read the manifest: {error.strerror}") from None
        for line in raw:
            if not line.strip():
                continue
            self.lines += 1
            try:
                entry = json.loads(line)
                self.entries[entry["input"]] = entry
            except (ValueError, KeyError, TypeError):
                self.unreadable += 1
        return self

    def open(self) -> None:
        """Open for appending, locked so that two runs cannot write one ``OUT`` at once, and
        start a new line if a killed run left half of one."""
        try:
            # owner-only, like the outputs: it lists the notes' file names
            self._handle = os.fdopen(os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT,
                                             0o600), "ab")
        except OSError as error:
            raise UserError(f"cannot write to --out {self.path.parent}: {error.strerror}") from None
        try:
            import fcntl
            fcntl.flock(self._handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except ImportError:     # no fcntl (Windows): no lock
            pass
        except OSError:
            self.close()
            raise UserError(f"another itdeid deid is writing to {self.path.parent}; wait for it "
                            "to finish (or use another --out)") from None
        if self._handle.tell() and self._last_byte() != b"\n":
            self._handle.write(b"\n")

    def _last_byte(self) -> bytes:
        with open(self.path, "rb") as handle:
            handle.seek(-1, os.SEEK_END)
            return handle.read(1)

    def append(self, entry: dict) -> None:
        """Record a finished input durably (flush and fsync) before the next one is written.
        A manifest that cannot be written stops the batch: progress could not be kept."""
        try:
            self._handle.write(json.dumps(entry, sort_keys=True).encode("utf-8") + b"\n")
            self._handle.flush()
            os.fsync(self._handle.fileno())
        except OSError as error:
            raise UserError(f"{self.path}: cannot write the manifest ({error.strerror}); "
                            "stopped, rerun to continue") from None
        self.entries[entry["input"]] = entry
        self.lines += 1

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def compact(self) -> None:
        """Rewrite with one entry an input (sorted) when reruns or a kill left more lines."""
        if self.lines == len(self.entries) and not self.unreadable:
            return
        lines = [json.dumps(self.entries[name], sort_keys=True) + "\n"
                 for name in sorted(self.entries)]
        _write_atomic(self.path, "".join(lines).encode("utf-8"))
        self.lines, self.unreadable = len(self.entries), 0


def remove_orphans(out: Path) -> int:
    """Delete the temporary files a killed run left in ``OUT`` (they may hold note text);
    returns how many. Only called while holding the manifest lock."""
    removed = 0
    for folder, _, names in os.walk(out):
        for name in names:
            if name.startswith(".") and name.endswith(_TEMP_SUFFIX):
                try:
                    os.unlink(os.path.join(folder, name))
                    removed += 1
                except OSError:
                    pass        # left for a later run; it is hidden and never read
    return removed


def _file_sha256(path: str) -> str | None:
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(_HASH_BLOCK), b""):
                digest.update(block)
    except OSError:
        return None
    return digest.hexdigest()


def up_to_date(unit: Unit, entry: dict | None, settings: dict, out: Path) -> bool:
    """Whether ``entry`` says this input, as it is now, was finished with these settings and
    its outputs are all still there (then the input is skipped)."""
    if not entry or entry.get("settings") != settings:
        return False
    try:
        if os.stat(unit.path).st_size != entry.get("bytes"):
            return False
    except OSError:
        return False
    if not all((out / name).is_file() for name in entry.get("outputs", [])):
        return False
    return _file_sha256(unit.path) == entry.get("sha256")


def _safe_output(out: Path, name: str, inputs: set[str]) -> Path:
    """``OUT/name``, after checking it stays in ``OUT`` and is not an input file."""
    path = out / name
    resolved = path.resolve()
    if not _inside(resolved, out) or ".." in Path(name).parts:
        raise _Failed(f"output name {name!r} leaves --out")
    if str(resolved) in inputs:
        raise _Failed(f"output {path} would overwrite an input file; refused")
    return path


def write_result(out: Path, result: UnitResult, inputs: set[str], owners: dict[str, str]) -> None:
    """Write a unit's outputs (see :func:`_write_atomic`); a clash with another input's output
    in this run, or a write error, fails the unit with the path named."""
    for name, content in sorted(result.outputs.items()):
        path = _safe_output(out, name, inputs)
        owner = owners.setdefault(name, result.unit.rel)
        if owner != result.unit.rel:
            raise _Failed(f"output {path} is also an output of {owner}; refused")
        try:
            _write_atomic(path, content)
        except OSError as error:
            raise _Failed(f"cannot write {path}: {error.strerror}") from None


# --------------------------------------------------------------------------------------------
# The batch

@dataclass
class BatchSummary:
    """What a batch did; ``failed`` lists (input path, reason)."""

    out: Path
    fmt: str
    files: int = 0
    done: int = 0
    skipped: int = 0
    empty: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)
    warnings: int = 0
    documents: int = 0
    tokens: int = 0
    phi: Counter = field(default_factory=Counter)
    seconds: float = 0.0
    stopped: bool = False
    left_out: int = 0

    @property
    def notes_per_second(self) -> float:
        return self.documents / self.seconds if self.seconds > 0 else 0.0

    @property
    def ok(self) -> bool:
        return not self.failed and not self.stopped


def _check_options(fmt, input_format, vote, workers, engine, scheduler) -> None:
    from itdeid.vote import RULES
    if fmt not in FORMATS:
        raise UserError(f"unknown output format {fmt!r}; expected one of {', '.join(FORMATS)}")
    if input_format not in INPUT_FORMATS:
        raise UserError(f"unknown input format {input_format!r}; expected one of "
                        f"{', '.join(INPUT_FORMATS)}")
    if vote is not None and vote not in RULES:
        raise UserError(f"unknown vote rule {vote!r}; expected one of {', '.join(RULES)}")
    if workers is not None and workers < 1:
        raise UserError("--workers must be at least 1")
    if engine not in ENGINES:
        raise UserError(f"unknown engine {engine!r}; expected one of {', '.join(ENGINES)}")
    if scheduler and engine != "dask":
        raise UserError("--scheduler needs --engine dask")


def _prepare_out(out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {out} is a file, not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UserError(f"cannot create --out {out}: {error.strerror}") from None


def _entry(result: UnitResult, settings: Settings) -> dict:
    return {"input": result.unit.rel, "sha256": result.sha256, "bytes": result.size,
            "read_as": result.read_as, "outputs": sorted(result.outputs),
            "documents": result.documents, "tokens": result.tokens,
            "phi": dict(sorted(result.phi.items())), "empty": result.empty,
            "model_dir": settings.model_dir, "settings": settings.fingerprint(),
            "finished": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")}


def deidentify(inputs: Iterable[str], out, model=None, fmt: str = DEFAULT_FORMAT,
               input_format: str = "auto", vote: str | None = None, workers: int | None = None,
               engine: str = "local", scheduler: str | None = None, force: bool = False,
               strict: bool = False, surrogate_key_file=None, progress: bool = True,
               report: Callable[[str], None] = _stderr) -> BatchSummary:
    """De-identify every input file into ``out`` (see the module docstring for the layout,
    the manifest, bad input and parallelism); returns what was done.

    ``report`` receives every message for the user (warnings, failures, notes; stderr by
    default): they name files, note ids and offsets, never note text. Usage problems (bad
    options, a missing input or model, a refused layout) raise :class:`UserError` before any
    input is processed.
    """
    inputs = list(inputs)
    _check_options(fmt, input_format, vote, workers, engine, scheduler)
    out = Path(out).resolve()
    model_dir = resolve_model_dir(model)
    units, roots = expand_inputs(inputs)
    check_layout(units, roots, out)
    units = _unique_units(units)
    _prepare_out(out)

    is_system = (model_dir / "deidentifier.json").is_file()
    if vote is not None and not is_system:
        report(f"warning: --vote {vote} is ignored: {model_dir} is a single token model, "
               "which does not vote")
        vote = None
    if surrogate_key_file is not None and fmt != "surrogate":
        report("warning: --surrogate-key-file is ignored: only --format surrogate uses a key")
    key = load_surrogate_key(out, surrogate_key_file, report) if fmt == "surrogate" else None
    settings = Settings(str(model_dir), model_fingerprint(model_dir), fmt, input_format, vote, key)
    workers = min(workers or os.cpu_count() or 1, len(units))
    tagger = load_tagger(settings) if engine == "local" and workers == 1 else None
    if engine == "local" and workers > 1:
        load_tagger(settings)       # a bad model is one clear error here, not N in the workers
    if engine == "dask":
        _import_distributed()

    manifest = Manifest(out)
    manifest.open()
    manifest.load()
    if manifest.unreadable:
        report(f"warning: {manifest.path}: {manifest.unreadable} unreadable lines ignored "
               "(a run killed while writing?)")
    removed = remove_orphans(out)
    if removed:
        report(f"note: removed {removed} temporary files left in {out} by an interrupted run")
    return _run(units, out, settings, manifest, force, strict, workers, engine, scheduler,
                tagger, progress, report)


def _run(units, out, settings, manifest, force, strict, workers, engine, scheduler, tagger,
         progress, report) -> BatchSummary:
    """The batch loop: skip finished inputs, process the rest on the engine, write, record."""
    from tqdm import tqdm
    summary = BatchSummary(out, settings.fmt, files=len(units))
    fingerprint = settings.fingerprint()
    inputs = {unit.path for unit in units}
    owners: dict[str, str] = {}
    bar = tqdm(total=len(units), unit="file", file=sys.stderr, disable=None if progress else True,
               desc="itdeid deid")
    started = time.perf_counter()

    def todo() -> Iterator[Unit]:
        for unit in units:
            if not force and up_to_date(unit, manifest.entries.get(unit.rel), fingerprint, out):
                summary.skipped += 1
                bar.update(1)
            else:
                yield unit

    if engine == "dask":
        results = _run_dask(todo(), settings, workers, scheduler)
    elif workers > 1:
        results = _run_pool(todo(), settings, workers)
    else:
        results = _run_inline(todo(), settings, tagger)
    try:
        for result in results:
            _finish(result, out, settings, manifest, inputs, owners, summary, report)
            bar.update(1)
            if strict and summary.failed:
                summary.stopped = True
                break
    finally:
        results.close()
        bar.close()
        manifest.close()
    summary.left_out = summary.files - summary.done - summary.skipped - len(summary.failed)
    summary.seconds = time.perf_counter() - started
    try:
        manifest.compact()
    except OSError as error:
        report(f"warning: {manifest.path}: not compacted ({error.strerror}); it still works")
    return summary


def _finish(result: UnitResult, out: Path, settings: Settings, manifest: Manifest,
            inputs: set[str], owners: dict, summary: BatchSummary, report) -> None:
    """Report a unit's warnings, write its outputs and record it, or report its failure."""
    for message in result.warnings:
        report(f"warning: {message}")
    summary.warnings += len(result.warnings)
    if result.error is None:
        try:
            write_result(out, result, inputs, owners)
        except _Failed as error:
            result.error = str(error)
    if result.error is not None:
        summary.failed.append((result.unit.path, result.error))
        report(f"failed: {result.unit.path}: {result.error}")
        return
    manifest.append(_entry(result, settings))
    summary.done += 1
    summary.empty += result.empty
    summary.documents += result.documents
    summary.tokens += result.tokens
    summary.phi.update(result.phi)
