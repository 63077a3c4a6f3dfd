"""Plain-text notes, no spans: one file a note, from files, folders or glob patterns."""
from __future__ import annotations

import glob
import os
import re
from pathlib import Path

from itdeid.document import Document
from itdeid.errors import FormatError
from itdeid.formats.common import logger, unique
from itdeid.formats.markup import note_text
from itdeid.formats.files import read_bytes, walk_folder


def has_magic(path) -> bool:
    """Whether ``path`` is a glob pattern (holds ``*``, ``?`` or ``[``)."""
    return re.search(r"[*?[]", str(path)) is not None


#: Files of a notes folder that hold spans, not notes (BRAT standoff, JSON Lines spans: what
#: ``itdeid deid --format brat/jsonl`` and redaction sidecars are), skipped with a warning.
SPAN_SUFFIXES = (".ann", ".jsonl")


def pattern_root(pattern) -> Path:
    """The folder part of a glob pattern before its first wildcard: relative paths of its
    matches start there, so ``notes/**/*.txt`` mirrors the tree under ``notes``."""
    fixed = []
    for part in Path(pattern).parts[:-1]:
        if has_magic(part):
            break
        fixed.append(part)
    return Path(*fixed) if fixed else Path(".")


def read_text_file(path, doc_id: str) -> Document:
    """The note of one plain-text file, decoded by :func:`~itdeid.formats.decoding.decode_text`
    and an HTML document converted to its text (:func:`~itdeid.formats.markup.note_text`, as
    ``itdeid deid`` reads it too); a file that is not a readable text file is a
    :class:`FormatError` naming it."""
    return Document(doc_id, note_text(read_bytes(path), path)[0], source=str(path))


def read_text(paths) -> list[Document]:
    """Plain-text notes (no spans) from files, folders or glob patterns (one, or a list).

    A folder gives every file under it, recursively, sorted, hidden files and folders skipped,
    symbolic links followed (:func:`~itdeid.formats.files.walk_folder`), span files
    (:data:`SPAN_SUFFIXES`) skipped with a warning; its documents are named
    by their path relative to the folder, without ``.txt`` (``sub/note1``), and so are the files
    a pattern matches, relative to its folder part (:func:`pattern_root`: ``notes/*/n.txt``
    gives ``A/n`` and ``B/n``, where stems alone collided). A file is named by its stem. Text is
    decoded as
    :mod:`itdeid.formats.decoding` says (UTF-8, or a byte-order mark; binary and RTF refused),
    HTML converted to its text (:mod:`itdeid.formats.markup`); any file
    that cannot be read so is a :class:`FormatError` naming it.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    documents = []
    for given in map(Path, paths):
        if given.is_dir():
            found = walk_folder(given)
            notes = [path for path in found if path.suffix.lower() not in SPAN_SUFFIXES]
            if len(notes) < len(found):
                logger.warning("%s: %d span files (.ann, .jsonl) skipped: not notes", given,
                               len(found) - len(notes))
            for path in notes:
                name = path.relative_to(given).as_posix()
                documents.append(read_text_file(path, name.removesuffix(".txt")))
        elif given.is_file():
            documents.append(read_text_file(given, given.stem))
        elif has_magic(given):
            try:
                matches = sorted(Path(p) for p in glob.glob(str(given), recursive=True))
            except RecursionError:      # glob's '**' recurses a level a folder
                raise FormatError(given, "the folders under the pattern nest too deep for it; "
                                         "name the folder instead") from None
            files = [p for p in matches if not p.is_dir()]
            if not files:
                raise FormatError(given, "no file matches this pattern")
            root = pattern_root(given)
            documents += [read_text_file(path, path.relative_to(root).as_posix().removesuffix(".txt"))
                          for path in files]
        else:
            raise FormatError(given, "no such file or folder")
    return unique(documents)
