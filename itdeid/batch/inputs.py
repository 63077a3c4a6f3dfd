"""The inputs of a batch: which files they are, their names in the output tree, and their notes.

Inputs. Each input is a file, a folder (every file under it, recursively, sorted, hidden
files and folders skipped) or a glob pattern (``notes/**/*.txt``); every input *file* is one unit
of work. A file's path relative to its input root (the folder; the folder part of a pattern
before its first wildcard; a file's own folder) is its name in the output tree and the manifest.
A PhysioNet gold file (``X-phi.phrase`` beside ``X.text``) is not a note and is left out.

Folders are walked by :func:`itdeid.formats.files.walk_paths`, as ``itdeid tag`` walks them:
symbolic links are followed (named by the link's own path), each folder once. Whatever a folder
or pattern holds that cannot be read (a dangling link, a link to a folder already walked, a FIFO)
is a unit too, and fails with its reason, so it is counted and reported, never skipped silently.

Layouts that could overwrite an input or mix two inputs' outputs are refused before any work
(:func:`check_layout`; listed with the output layout in :mod:`itdeid.batch`).

Reading. With ``input_format="auto"`` each file's format is detected by content
(:func:`itdeid.formats.detect_format`); otherwise all files are read as the given format.

* ``text``: one file, one note; its id is the relative path without ``.txt`` (``ward/note1``).
  Decoded by :func:`itdeid.formats.decoding.decode_text`, the reader ``itdeid tag`` uses too:
  UTF-8, or UTF-8/16/32 with a byte-order mark; a file that is not UTF-8 and has no mark, or is
  binary (a known signature, or a NUL anywhere in the file), fails with the reason and offset. An
  empty file (0 bytes) is a note without text: its (empty) outputs are written so that every
  input has its outputs, and a warning names it. An RTF document fails, with how to convert
  it; an HTML document is converted to its text (:mod:`itdeid.formats.markup`), which its
  outputs hold and their offsets index, and is recorded as read as ``html``.
* ``i2b2-2014``: one note a file, id the file name without ``.xml``.
* ``i2b2-2006`` XML, ``physionet`` ``id.text``, and any ``.zip`` archive hold several notes (ids:
  the RECORD ID; PhysioNet ``<patient>-<note>``).
"""
from __future__ import annotations

import io
import os
import re
import zipfile
from dataclasses import dataclass
from glob import glob
from pathlib import Path
from typing import Callable, Iterable

from itdeid.document import Document
from itdeid.errors import UserError
from itdeid.formats.markup import note_text
from itdeid.formats.files import read_bytes, walk_paths, why_unreadable
from itdeid.formats.text import SPAN_SUFFIXES, has_magic, pattern_root

#: Formats an input may be read as; ``auto`` detects one per file.
INPUT_FORMATS = ("auto", "text", "i2b2-2006", "i2b2-2014", "physionet")
#: Suffixes dropped from a relative path to name its outputs.
_STEM_SUFFIXES = (".txt", ".xml", ".text", ".zip")
# A note id that can be used as a file name under its file's output folder.
_SAFE_NAME = re.compile(r"[^/\\\x00.][^/\\\x00]{0,199}")


class InputFailed(Exception):
    """A unit cannot be processed; the message is the reason (PHI-free)."""


@dataclass(frozen=True, slots=True)
class Unit:
    """One input file: ``path`` (absolute, what workers open and messages name) and ``rel``, its
    POSIX path relative to its input root (its name in the output tree and the manifest)."""

    path: str
    rel: str
    #: With ``--rename``: its keyed-hash name (:mod:`itdeid.batch.rename`), used instead of
    #: ``rel`` in everything written under ``OUT``.
    renamed: str | None = None
    #: The patient its notes belong to, where ``--patient-regex`` or ``--patient-map`` says
    #: (:mod:`itdeid.batch.patients`); else None.
    patient: str | None = None

    @property
    def name(self) -> str:
        """Its name in the manifest: ``renamed`` with ``--rename``, else ``rel``."""
        return self.renamed or self.rel

    @property
    def stem(self) -> str:
        """The output name of the file: ``rel`` without its ``.txt``/``.xml``/``.text``/``.zip``
        (``renamed`` with ``--rename``)."""
        if self.renamed:
            return self.renamed
        for suffix in _STEM_SUFFIXES:
            if self.rel.endswith(suffix) and len(self.rel) > len(suffix):
                return self.rel[:-len(suffix)]
        return self.rel

    @property
    def text_id(self) -> str:
        """The note id of a plain-text file: ``rel`` without ``.txt`` (as :func:`read_text`)."""
        return self.rel.removesuffix(".txt") or self.rel


# --------------------------------------------------------------------------------------------
# Which files

def _hidden(relative: str) -> bool:
    """Whether a relative POSIX path has a hidden part (a name starting with '.')."""
    return any(part.startswith(".") for part in relative.split("/"))


def _is_phrase_companion(path: str) -> bool:
    """A PhysioNet gold file (``X-phi.phrase`` beside ``X.text``): annotations, not a note."""
    return (path.endswith("-phi.phrase")
            and os.path.isfile(path.removesuffix("-phi.phrase") + ".text"))


def _relative(path: str, root: str) -> str:
    """``path`` (found under ``root``, both absolute) relative to ``root``, as a POSIX path."""
    if path == root:
        return "."
    prefix = os.path.join(root, "")
    assert path.startswith(prefix), "a found path lies under its root"
    return path[len(prefix):].replace(os.sep, "/")


def _sorted_paths(paths: Iterable[str]) -> list[str]:
    """``paths`` in the order of their parts, as ``sorted`` orders ``Path`` objects (a
    separator sorts before any character of a name: 'a/b' before 'a-c')."""
    return sorted(paths, key=lambda path: path.replace(os.sep, "\0"))


def expand_inputs(inputs: Iterable[str]) -> tuple[list[Unit], list[Path]]:
    """The input files of ``inputs`` (files, folders, glob patterns) as units, and the input
    roots that are folders (``OUT`` must stay out of them).

    A missing input or a pattern matching nothing is a :class:`UserError` before any work:
    a typo should not cost a night's run. The files are handled as strings, never ``Path``
    objects: the list is kept the whole run, and a million ``Path`` objects (their parts
    interned for good) cost gigabytes.
    """
    units: list[Unit] = []
    roots: list[Path] = []
    for given in map(str, inputs):
        path = Path(given)
        if path.is_dir():
            root = path.resolve()
            roots.append(root)
            files = walk_paths(root)
        elif path.is_file():
            root = path.resolve().parent
            files = [str(path.resolve())]
        elif has_magic(given):
            # matches keep the paths they were found by (a link is not replaced by its target)
            root = Path(os.path.abspath(pattern_root(given)))
            roots += [root] if root == root.resolve() else [root, root.resolve()]
            try:
                files = _sorted_paths({os.path.abspath(p) for p in glob(given, recursive=True)
                                       if not os.path.isdir(p)})
            except RecursionError:      # glob's '**' recurses a level a folder
                raise UserError(f"{given}: the folders under {root} nest too deep for a "
                                "pattern; name the folder instead") from None
            if any(not _inside(p, root) for p in files):
                raise UserError(f"{given}: the pattern matches files outside {root}; name "
                                "their folder instead")
            files = [p for p in files if not _hidden(_relative(p, str(root)))]
            if not files:
                raise UserError(f"{given}: no file matches this pattern")
        else:
            reason = why_unreadable(given) if os.path.lexists(given) else None
            raise UserError(f"{given}: {reason or 'no such file or folder'}")
        # a folder reached through a link holds inputs too: OUT must stay out of it
        roots += [folder for folder in _linked_folders(root, files) if folder not in roots]
        units += [Unit(p, _relative(p, str(root))) for p in files if not _is_phrase_companion(p)]
    if not units:
        hidden = sum(1 for given in map(Path, inputs) if given.is_dir()
                     for entry in os.scandir(given) if entry.name.startswith("."))
        raise UserError("no input files found in " + ", ".join(map(str, inputs))
                        + (f" ({hidden} hidden entries, whose names start with '.', are skipped)" if hidden else ""))
    return units, roots


def _linked_folders(root: Path, files: list[str]) -> list[Path]:
    """The resolved folders that ``files`` (found under ``root``) lie in when they were reached
    through a symbolic link, so the layout check covers them as it covers ``root``."""
    real_root = root.resolve()
    real = {Path(os.path.realpath(parent)) for parent in {os.path.dirname(path) for path in files}}
    return sorted(folder for folder in real if not is_inside(folder, real_root))


def is_inside(path: Path, folder: Path) -> bool:
    """Whether ``path`` is ``folder`` or lies under it."""
    return path == folder or folder in path.parents



def secret_file_outside(path: Path, out: Path, option: str, what: str) -> Path:
    """``path`` (given with ``option``), checked to be a file outside ``out``: ``what`` (a key,
    a rename map) must never be shipped with the outputs. One that exists must be a regular
    file: reading a FIFO waits forever, and a device such as /dev/zero never ends."""
    if is_inside(path, out):
        raise UserError(f"{option} {path} is inside --out {out}: {what} must never be shipped "
                        "with the outputs; keep it outside that folder")
    if path.is_dir():
        raise UserError(f"{option} {path} is a folder, not a file")
    if path.exists() and (reason := why_unreadable(path)) is not None:
        raise UserError(f"{option} {path}: {reason}")
    return path

def check_layout(units: list[Unit], roots: list[Path], out: Path, renaming: bool = False) -> None:
    """Refuse a layout that could overwrite an input, mix two inputs' outputs, or mix outputs
    with notes: ``OUT`` inside an input folder, or inside the folder of an input file (the
    next run over that folder would read the outputs back as notes). With ``renaming``
    (``--rename``: outputs named by a keyed hash of the path) two inputs of one stem are no
    clash, and a refusal naming them showed the file names ``--rename`` keeps out."""
    parents = {Path(folder) for folder in {os.path.dirname(unit.path) for unit in units}}
    folders = list(roots) + sorted(parents - set(roots))
    for folder in folders:
        if is_inside(out, folder):
            raise UserError(f"--out {out} is inside the input folder {folder}: outputs would mix "
                            "with the notes (and be read as input by the next run); choose a "
                            "folder outside it")
    stems: dict[str, Unit] = {}
    seen: dict[str, Unit] = {}
    real_path = _real_paths()
    for unit in units:
        if _inside(unit.path, out) or _inside(real_path(unit.path), out):
            # the second test catches a symbolic link in an input tree that leads into --out
            raise UserError(f"input {unit.path} is inside --out {out}: outputs could overwrite "
                            "it; choose another --out")
        if unit.path in seen:
            continue        # the same file named twice: once is enough
        seen[unit.path] = unit
        other = stems.setdefault(unit.stem, unit)
        if other is not unit and not renaming:
            raise UserError(f"{other.path} and {unit.path} would both be written as "
                            f"{out / unit.stem}*; de-identify them in separate runs or --out "
                            "folders")


def _inside(path: str, folder: Path | str) -> bool:
    """:func:`is_inside` for an absolute, normalized ``path`` given as a string (no ``Path``
    built for each of a million inputs; the layout check took some 50 microseconds a file)."""
    prefix = os.path.join(str(folder), "")
    return path == str(folder) or path.startswith(prefix)


def _real_paths() -> Callable[[str], str]:
    """``os.path.realpath`` of a file's path, its folder resolved once for all its files: the
    same path (a folder's links resolved, then the file's own if it is one) at one ``lstat`` a
    file instead of one a folder of its path."""
    folders: dict[str, str] = {}

    def real_path(path: str) -> str:
        folder, name = os.path.split(path)
        if folder not in folders:
            folders[folder] = os.path.realpath(folder)
        if not name or name in (".", "..") or os.path.islink(path):
            return os.path.realpath(path)
        return os.path.join(folders[folder], name)

    return real_path


def root_of(unit: Unit) -> Path:
    """The input root ``unit.rel`` is relative to."""
    return Path(unit.path).parents[len(Path(unit.rel).parts) - 1]


def without_itdeid_files(units: list[Unit], marker: str, suffixes: tuple[str, ...],
                         named: Iterable[Path] = ()) -> tuple[list[Unit], list[Path]]:
    """(the units that are notes, the itdeid files and folders left out). Left out: every file
    of an itdeid output folder below its input root (a folder holding ``marker``, the
    manifest), whose files are outputs, not notes; itdeid's files beside such folders (names
    ending in one of ``suffixes``: the default key and rename map); and the files ``named`` by
    the run's options (a key, rename map or patient map of any name): none may be processed,
    let alone copied into an output (a patient map's redacted copy kept the paths the model
    missed)."""
    named = {str(Path(path).resolve()) for path in named}
    marked: dict[str, bool] = {}
    kept, found = [], set()
    for unit in units:
        # strings, not a Path a file: a million inputs pass here before any work
        root, folder = _root_string(unit), os.path.dirname(unit.path)
        # resolved only when the run names such files (a resolve is a few system calls a file)
        secret = unit.path.endswith(suffixes) or (bool(named)
                                                   and str(Path(unit.path).resolve()) in named)
        left_out = unit.path if secret else None
        while left_out is None and folder != root and _inside(folder, root):
            if folder not in marked:
                marked[folder] = os.path.isfile(os.path.join(folder, marker))
            if marked[folder]:
                left_out = folder
            folder = os.path.dirname(folder)
        if left_out is None:
            kept.append(unit)
        else:
            found.add(Path(left_out))
    return kept, sorted(found)


def _root_string(unit: Unit) -> str:
    """:func:`root_of` as a string: ``unit.path`` without its ``rel``."""
    tail = os.sep + unit.rel.replace("/", os.sep)
    if unit.rel != "." and unit.path.endswith(tail):
        return unit.path[:-len(tail)] or os.sep
    return str(root_of(unit))


def without_span_files(units: list[Unit]) -> tuple[list[Unit], list[Unit]]:
    """(the units that may be notes, the span files left out): BRAT standoff and JSON Lines
    spans (:data:`~itdeid.formats.text.SPAN_SUFFIXES`: what ``--format brat`` and ``jsonl``
    write, and the redaction sidecars) hold no note, and ``itdeid tag`` skips them too.
    De-identified as notes, they came out as '.txt' outputs that looked released and still
    quoted the PHI they annotate."""
    kept, spans = [], []
    for unit in units:
        (spans if Path(unit.path).suffix.lower() in SPAN_SUFFIXES else kept).append(unit)
    return kept, spans


def unique_units(units: list[Unit]) -> list[Unit]:
    """``units`` with a file named by two inputs kept once, in first-seen order."""
    seen, kept = set(), []
    for unit in units:
        if unit.path not in seen:
            seen.add(unit.path)
            kept.append(unit)
    return kept


# --------------------------------------------------------------------------------------------
# Their notes

def read_input(unit: Unit) -> bytes:
    """The bytes of an input file (:func:`itdeid.formats.files.read_bytes`: a dangling link, a
    folder, a FIFO or a read error fails the unit with its reason)."""
    return read_bytes(unit.path)


def _decode_text(unit: Unit, data: bytes, warnings: list[str]) -> tuple[Document, bool]:
    """(the note of a plain-text file, decoded as ``itdeid tag`` decodes it; whether it was an
    HTML document, converted to its text)."""
    text, html = note_text(data, unit.path)
    if not data:
        warnings.append(f"{unit.path}: empty file (0 bytes); wrote empty outputs")
    return Document(unit.text_id, text, source=unit.rel), html


def read_documents(unit: Unit, data: bytes, input_format: str, warnings: list[str]
                   ) -> tuple[str, list[Document], bool]:
    """(format read as: ``html`` for a text file converted from HTML; the notes of the file;
    whether the file holds several notes)."""
    from itdeid.formats import read_corpus
    from itdeid.formats.detect import detect_file_format
    fmt = detect_file_format(unit.path, data) if input_format == "auto" else input_format
    if fmt == "text":
        document, html = _decode_text(unit, data, warnings)
        return "html" if html else fmt, [document], False
    documents = read_corpus(unit.path, fmt)
    several = fmt in ("i2b2-2006", "physionet") or zipfile.is_zipfile(io.BytesIO(data))
    if several and not unit.renamed:    # with --rename a file's notes are numbered, not named
        for doc in documents:
            if not _SAFE_NAME.fullmatch(doc.id):
                raise InputFailed(f"note id {doc.id!r} cannot be used as a file name")
    return fmt, documents, several
