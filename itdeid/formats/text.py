"""Plain-text notes, no spans: one file a note, from files, folders or glob patterns."""
from __future__ import annotations

import glob
import logging
import os
import re
from pathlib import Path

from itdeid.document import Document
from itdeid.errors import FormatError
from itdeid.formats.common import read_bytes, unique

logger = logging.getLogger("itdeid.formats")


def has_magic(path) -> bool:
    """Whether ``path`` is a glob pattern (holds ``*``, ``?`` or ``[``)."""
    return re.search(r"[*?[]", str(path)) is not None


def _hidden(relative: Path) -> bool:
    return any(part.startswith(".") for part in relative.parts)


def _read_text_file(path: Path, doc_id: str) -> Document:
    data = read_bytes(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        # latin-1 maps every byte to a character, so nothing is lost and offsets stay per byte.
        logger.warning("%s: not UTF-8 (byte %d); read as latin-1", path, error.start)
        text = data.decode("latin-1")
    return Document(doc_id, text, source=str(path))


def read_text(paths) -> list[Document]:
    """Plain-text notes (no spans) from files, folders or glob patterns (one, or a list).

    A folder gives every regular file under it, recursively, sorted, hidden files and folders
    skipped; its documents are named by their path relative to the folder, without ``.txt``
    (``sub/note1``). A file, or a file a pattern matches, is named by its stem. Text is UTF-8,
    else latin-1 with a warning naming the file.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    documents = []
    for given in map(Path, paths):
        if given.is_dir():
            for path in sorted(p for p in given.rglob("*") if p.is_file()):
                relative = path.relative_to(given)
                if not _hidden(relative):
                    name = relative.as_posix()
                    documents.append(_read_text_file(path, name.removesuffix(".txt")))
        elif given.is_file():
            documents.append(_read_text_file(given, given.stem))
        elif has_magic(given):
            matches = sorted(Path(p) for p in glob.glob(str(given), recursive=True))
            files = [p for p in matches if p.is_file()]
            if not files:
                raise FormatError(given, "no file matches this pattern")
            documents += [_read_text_file(path, path.stem) for path in files]
        else:
            raise FormatError(given, "no such file or folder")
    return unique(documents)
