"""Zip archives of XML notes (the i2b2 releases are distributed as .zip): which members are notes,
and reading them with every failure a :class:`~itdeid.errors.FormatError` naming the archive.

A zip can unpack to far more than its size (a 400 KB "zip bomb" unpacks to 400 MB, and nested
deflate streams go further), so what a zip may unpack is capped, per member
(:data:`MAX_MEMBER_BYTES`) and in total (:data:`MAX_TOTAL_BYTES`). The caps count the bytes
actually decompressed, read a chunk at a time, never the sizes the archive's headers declare
(which a crafted zip can set to anything): reading stops at the first chunk past a cap, so at
most a cap's worth is ever held, and the error names the archive and the member.

Every member is read or reported. A member whose name leads out of the archive's folder
(``../../x.xml``, ``/etc/x.xml``: never made by an ordinary zip tool) fails the archive, naming
the member, as a zip bomb does. Members that are not notes (not ``*.xml``, hidden, macOS
metadata under ``__MACOSX``) are left unread with a warning naming them and why; only folder
entries, which hold nothing, pass without a word.
"""
from __future__ import annotations

import logging
import zipfile
import zlib
from contextlib import contextmanager
from typing import Iterator

from itdeid.errors import FormatError
from itdeid.formats.files import open_regular

logger = logging.getLogger("itdeid.formats")

#: The most one zip member may unpack to: 128 MiB. A note file of tens of MB is plausible (a long
#: stay's notes in one file); the XML of the i2b2 releases is a few MB (2006: one file; 2014: a
#: few KB a note).
MAX_MEMBER_BYTES = 128 * 2**20
#: The most all the members of one zip may unpack to together: 256 MiB, some fifty times the
#: whole i2b2 2014 release, and still a bound on memory a batch worker can afford.
MAX_TOTAL_BYTES = 256 * 2**20
#: How much is decompressed at a time while counting.
_CHUNK_BYTES = 2**20
#: The most member names a warning about members not read lists (it counts them all).
_NAMES_SHOWN = 10


def zip_xml_names(archive: zipfile.ZipFile) -> list[str]:
    """The ``*.xml`` members, sorted, without folders, hidden files, macOS resource forks and
    names that lead out of the archive's folder."""
    return sorted(name for name in archive.namelist() if _why_not_read(name) is None)


def _leads_out(name: str) -> bool:
    """Whether a member's name leads out of the folder it would be unpacked in: an absolute
    path, a drive ('C:'), or a '..' part (with either slash)."""
    drive = name[:1].isalpha() and name[1:2] == ":"
    return name.startswith(("/", "\\")) or drive or ".." in name.replace("\\", "/").split("/")


def _why_not_read(name: str) -> str | None:
    """Why member ``name`` is not read as a note, or None when it is one."""
    if name.endswith("/"):
        return "a folder"
    if _leads_out(name):
        return "leads out of the archive's folder"
    if any(part.startswith("__MACOSX") for part in name.split("/")):
        return "macOS metadata under __MACOSX, not notes"
    if any(part.startswith(".") for part in name.split("/")):
        return "hidden: a name starting with '.'"
    if not name.lower().endswith(".xml"):
        return "not *.xml; a zip's notes are i2b2 XML files"
    return None


def check_member_names(archive: zipfile.ZipFile, path) -> None:
    """Refuse an archive with a member whose name leads out of its folder (see the module
    docstring), naming the first such member."""
    for name in archive.namelist():
        if _leads_out(name):
            raise FormatError(path, f"member {name}: its name leads out of the archive's folder "
                                    "(an absolute path or a '..' part); the archive is refused")


def _warn_of_members_not_read(archive: zipfile.ZipFile, path) -> None:
    """A warning for each kind of member left unread (folders aside), naming them."""
    skipped: dict[str, list[str]] = {}
    for name in archive.namelist():
        reason = _why_not_read(name)
        if reason is not None and reason != "a folder":
            skipped.setdefault(reason, []).append(name)
    for reason, names in skipped.items():
        more = len(names) - _NAMES_SHOWN
        logger.warning("%s: %d zip members not read (%s): %s%s", path, len(names), reason,
                       ", ".join(names[:_NAMES_SHOWN]), f" and {more} more" if more > 0 else "")


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
    of the module docstring; the members not read are refused or warned of, as it says."""
    with open_zip(path) as archive:
        check_member_names(archive, path)
        _warn_of_members_not_read(archive, path)
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
