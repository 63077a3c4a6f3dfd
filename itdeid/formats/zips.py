"""Zip archives of XML notes (the i2b2 releases are distributed as .zip): which members are notes,
and reading them with every failure a :class:`~itdeid.errors.FormatError` naming the archive.
"""
from __future__ import annotations

import zipfile
import zlib

from itdeid.errors import FormatError


def zip_xml_names(archive: zipfile.ZipFile) -> list[str]:
    """The ``*.xml`` members, sorted, without folders, hidden files and macOS resource forks."""
    return sorted(name for name in archive.namelist()
                  if name.lower().endswith(".xml")
                  and not any(part.startswith((".", "__MACOSX")) for part in name.split("/")))


def open_zip(path) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(path)
    except FileNotFoundError:
        raise FormatError(path, "no such file or folder") from None
    except (zipfile.BadZipFile, OSError) as error:
        raise FormatError(path, f"cannot read the zip archive ({error})") from None


def zip_xml(path) -> list[tuple[str, bytes]]:
    """(``archive.zip/member.xml``, bytes) for each XML member of the archive."""
    with open_zip(path) as archive:
        try:
            return [(f"{path}/{name}", archive.read(name)) for name in zip_xml_names(archive)]
        except (zipfile.BadZipFile, zlib.error, NotImplementedError, OSError) as error:
            raise FormatError(path, f"cannot read the zip archive ({error})") from None
