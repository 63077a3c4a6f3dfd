"""Plain-text notes, no spans: one file a note, from files, folders or glob patterns."""
from __future__ import annotations

import glob
import os
import re
from pathlib import Path

from itdeid.document import Document
from itdeid.errors import FormatError
from itdeid.formats.common import unique
from itdeid.formats.decoding import decode_text
from itdeid.formats.files import read_bytes, walk_folder


def has_magic(path) -> bool:
    """Whether ``path`` is a glob pattern (holds ``*``, ``?`` or ``[``)."""
    return re.search(r"[*?[]", str(path)) is not None


def read_text_file(path, doc_id: str) -> Document:
    """The note of one plain-text file, decoded by :func:`~itdeid.formats.decoding.decode_text`
    (the decoder ``itdeid deid`` uses too); a file that is not a readable text file is a
    :class:`FormatError` naming it."""
    return Document(doc_id, decode_text(read_bytes(path), path), source=str(path))


def read_text(paths) -> list[Document]:
    """Plain-text notes (no spans) from files, folders or glob patterns (one, or a list).

    A folder gives every file under it, recursively, sorted, hidden files and folders skipped,
    symbolic links followed (:func:`~itdeid.formats.files.walk_folder`); its documents are named
    by their path relative to the folder, without ``.txt`` (``sub/note1``). A file, or a file a
    pattern matches, is named by its stem. Text is decoded as
    :mod:`itdeid.formats.decoding` says (UTF-8, or a byte-order mark; binary refused); any file
    that cannot be read so is a :class:`FormatError` naming it.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    documents = []
    for given in map(Path, paths):
        if given.is_dir():
            for path in walk_folder(given):
                name = path.relative_to(given).as_posix()
                documents.append(read_text_file(path, name.removesuffix(".txt")))
        elif given.is_file():
            documents.append(read_text_file(given, given.stem))
        elif has_magic(given):
            matches = sorted(Path(p) for p in glob.glob(str(given), recursive=True))
            files = [p for p in matches if not p.is_dir()]
            if not files:
                raise FormatError(given, "no file matches this pattern")
            documents += [read_text_file(path, path.stem) for path in files]
        else:
            raise FormatError(given, "no such file or folder")
    return unique(documents)
