"""Format detection, in one place: which reader a path needs, by content (root element, record
marker) and layout (folder with ``id.text``, folder of ``*.xml``), never by suffix alone."""
from __future__ import annotations

import io
import os
import re
import zipfile
import zlib
from pathlib import Path

from itdeid.errors import FormatError
from itdeid.formats.decoding import BYTE_ORDER_MARKS
from itdeid.formats.files import open_regular, walk_folder, why_unreadable
from itdeid.formats.text import has_magic
from itdeid.formats.zips import check_member_names, is_zip, open_zip, zip_xml_names


_XML_ROOT = re.compile(rb"\s*(?:<\?.*?\?>\s*|<!--.*?-->\s*|<!DOCTYPE[^\[>]*(?:\[.*?\]\s*)?>\s*)*"
                       rb"<([\w:.-]+)", re.S)
# A document type declaration names the root element; used when the root itself lies beyond the
# sniffed bytes (a long internal subset), so such a file still reaches the parser, which refuses it.
_XML_DOCTYPE = re.compile(rb"\s*(?:<\?.*?\?>\s*|<!--.*?-->\s*)*<!DOCTYPE\s+([\w:.-]+)", re.S)
_SNIFF_BYTES = 4096


def _xml_root(head: bytes) -> str | None:
    """The root element the first bytes of a file name, if they are XML; a byte-order mark
    (UTF-8, UTF-16, UTF-32, which the XML parser reads too) is decoded first."""
    for mark, codec, _ in BYTE_ORDER_MARKS:
        if head.startswith(mark):
            # "ignore": the sniffed bytes may end inside a character
            head = head[len(mark):].decode(codec, "ignore").encode("utf-8")
            break
    match = _XML_ROOT.match(head) or _XML_DOCTYPE.match(head)
    return match.group(1).decode("ascii", "replace") if match else None


def _sniffed_root(path: Path) -> str | None:
    """The root element of the XML file ``path`` (None when unreadable or not XML)."""
    try:
        with open_regular(path) as handle:
            return _xml_root(handle.read(_SNIFF_BYTES))
    except (OSError, FormatError):
        return None


def is_xml(path: Path) -> bool:
    """Whether an entry :func:`~itdeid.formats.files.walk_folder` found is an ``*.xml`` file
    (any case of the suffix): a note of an i2b2 2014 folder."""
    return path.suffix.lower() == ".xml" and not path.is_dir()


def xml_files(folder) -> list[Path]:
    """The ``*.xml`` files under ``folder`` (any depth, hidden entries skipped, as
    :func:`~itdeid.formats.files.walk_folder` walks), sorted: an i2b2 2014 corpus."""
    return [p for p in walk_folder(folder) if is_xml(p)]


def detect_format(path) -> str:
    """The format of ``path``, by content: ``i2b2-2006``, ``i2b2-2014``, ``physionet`` or
    ``text``.

    A .zip or an XML file by its root element (``ROOT`` or ``deIdi2b2``); a folder holding
    ``id.text`` is PhysioNet, one holding ``*.xml`` files (at any depth, as the 2014 release
    keeps its sets in subfolders) i2b2 2014, or i2b2 2006 when the first is (as ``itdeid deid
    --format xml`` writes them), any other folder text; a file
    named ``id.text`` or starting with ``START_OF_RECORD=`` is PhysioNet; any other file, or a
    glob pattern, is text.
    """
    path = Path(path)
    if path.is_dir():
        if (path / "id.text").is_file():
            return "physionet"
        files = xml_files(path)
        if files:
            # one file a note either way: i2b2 2014's, or i2b2 2006's as itdeid deid --format
            # xml writes them (a 2006 root element, ROOT, in the first)
            return "i2b2-2006" if _sniffed_root(files[0]) == "ROOT" else "i2b2-2014"
        return "text"
    if not path.is_file():
        if not os.path.lexists(path):
            if has_magic(path):
                return "text"
            raise FormatError(path, "no such file or folder")
        raise FormatError(path, why_unreadable(path) or "not a file")
    return _file_format(path, is_zip(path))


def detect_file_format(path, data: bytes) -> str:
    """:func:`detect_format` of the regular file ``path`` whose bytes ``data`` are in hand (the
    batch tool read them to digest them): the format from those bytes, without opening the
    file twice more to sniff it. A zip archive is still opened, to sniff
    its first member."""
    path = Path(path)
    is_zip = zipfile.is_zipfile(io.BytesIO(data))
    return _file_format(path, is_zip, None if is_zip else data[:_SNIFF_BYTES])


def _file_format(path: Path, is_zip: bool, head: bytes | None = None) -> str:
    """The format of the file ``path`` (a zip archive when ``is_zip``) from its first bytes
    ``head`` (read here when None)."""
    if is_zip:
        with open_zip(path) as archive:
            check_member_names(archive, path)
            names = zip_xml_names(archive)
            if not names:
                raise FormatError(path, "no XML file in the zip archive (itdeid reads a .zip of "
                                        "i2b2 XML files; unpack other notes into a folder)")
            try:
                with archive.open(names[0]) as member:
                    head = member.read(_SNIFF_BYTES)
            except (zipfile.BadZipFile, zlib.error, NotImplementedError, OSError, RuntimeError,
                    EOFError) as error:
                raise FormatError(path, f"cannot read the zip archive ({error})") from None
    elif head is None:
        with open_regular(path) as handle:
            head = handle.read(_SNIFF_BYTES)
    root = _xml_root(head)
    if root == "ROOT":
        return "i2b2-2006"
    if root == "deIdi2b2":
        return "i2b2-2014"
    if is_zip or path.suffix.lower() == ".xml":
        # not the root's name: a note saved as '.xml' that begins with '<' would be quoted
        found = "an XML root element" if root else "no XML root element at the start"
        raise FormatError(path, f"{found}: neither i2b2 2006 (<ROOT>) nor i2b2 2014 (<deIdi2b2>)")
    if path.name == "id.text" or head.startswith(b"START_OF_RECORD="):
        return "physionet"
    return "text"
