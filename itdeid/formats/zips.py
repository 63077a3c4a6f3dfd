"""Zip archives of XML notes (the i2b2 releases are distributed as .zip): which members are notes,
and reading them with every failure a :class:`~itdeid.errors.FormatError` naming the archive.

A zip can unpack to far more than its size (a 400 KB "zip bomb" unpacks to 400 MB, and nested
deflate streams go further), so what a zip may unpack is capped, per member
(:data:`MAX_MEMBER_BYTES`) and in total (:data:`MAX_TOTAL_BYTES`). The caps count the bytes
actually decompressed, read a chunk at a time, never the sizes the archive's headers declare
(which a crafted zip can set to anything): reading stops at the first chunk past a cap, so at
most a cap's worth is ever held, and the error names the archive and the member.
"""
from __future__ import annotations

import zipfile
import zlib
from contextlib import contextmanager
from typing import Iterator

from itdeid.errors import FormatError
from itdeid.formats.files import open_regular

#: The most one zip member may unpack to: 128 MiB. A note file of tens of MB is plausible (a long
#: stay's notes in one file); the XML of the i2b2 releases is a few MB (2006: one file; 2014: a
#: few KB a note).
MAX_MEMBER_BYTES = 128 * 2**20
#: The most all the members of one zip may unpack to together: 256 MiB, some fifty times the
#: whole i2b2 2014 release, and still a bound on memory a batch worker can afford.
MAX_TOTAL_BYTES = 256 * 2**20
#: How much is decompressed at a time while counting.
_CHUNK_BYTES = 2**20


def zip_xml_names(archive: zipfile.ZipFile) -> list[str]:
    """The ``*.xml`` members, sorted, without folders, hidden files and macOS resource forks."""
    return sorted(name for name in archive.namelist()
                  if name.lower().endswith(".xml")
                  and not any(part.startswith((".", "__MACOSX")) for part in name.split("/")))


def is_zip(path) -> bool:
    """Whether ``path`` is a regular file holding a zip archive (never opening anything else:
    False for a FIFO or a folder, which the caller's reader then refuses with its reason)."""
    try:
        with open_regular(path) as handle:
            return zipfile.is_zipfile(handle)
    except FormatError:
        return False


@contextmanager
def open_zip(path) -> Iterator[zipfile.ZipFile]:
    """The zip archive ``path``, opened through :func:`~itdeid.formats.files.open_regular`
    (so a FIFO is refused, not waited on) and closed with it when the block ends."""
    with open_regular(path) as handle:
        try:
            archive = zipfile.ZipFile(handle)
        except (zipfile.BadZipFile, OSError) as error:
            raise FormatError(path, f"cannot read the zip archive ({error})") from None
        with archive:
            yield archive


def _read_member(archive: zipfile.ZipFile, name: str, path, budget: int) -> bytes:
    """The unpacked bytes of member ``name``, counted as they are decompressed: more than
    :data:`MAX_MEMBER_BYTES`, or more than ``budget`` (what the total cap leaves), is refused."""
    chunks, size = [], 0
    with archive.open(name) as member:
        while chunk := member.read(_CHUNK_BYTES):
            size += len(chunk)
            if size > MAX_MEMBER_BYTES:
                raise FormatError(path, f"member {name} unpacks to more than {MAX_MEMBER_BYTES} "
                                        "bytes, the most one member may (a zip bomb?); refused")
            if size > budget:
                raise FormatError(path, f"the members up to {name} unpack to more than "
                                        f"{MAX_TOTAL_BYTES} bytes, the most one zip may (a zip "
                                        "bomb?); refused")
            chunks.append(chunk)
    return b"".join(chunks)


def zip_xml(path) -> list[tuple[str, bytes]]:
    """(``archive.zip/member.xml``, bytes) for each XML member of the archive, within the caps
    of the module docstring."""
    with open_zip(path) as archive:
        members, left = [], MAX_TOTAL_BYTES
        try:
            for name in zip_xml_names(archive):
                data = _read_member(archive, name, path, left)
                left -= len(data)
                members.append((f"{path}/{name}", data))
        except (zipfile.BadZipFile, zlib.error, NotImplementedError, OSError, RuntimeError,
                EOFError) as error:
            raise FormatError(path, f"cannot read the zip archive ({error})") from None
        return members
