"""The file primitives every part of a batch shares, at the bottom of :mod:`itdeid.batch` (it
imports none of its siblings, so imports flow one way: ``files`` <- ``inputs`` <- ``settings``
<- ``unit`` <- ``manifest`` <- the batch loop).

* :func:`write_atomic`: outputs, the manifest, keys and maps are written whole or not at all,
  owner-only, because a crash must never leave half a note or a key that does not match the
  outputs.
* :func:`make_private_folders`: the folders a run creates are owner-only (0700), as its files
  are: their names mirror the input tree's, and a hospital's folders are often named after a
  patient or a record number.
* :func:`sync_filesystem`: one call that makes every file written so far in a folder's
  filesystem durable (Linux ``syncfs``), so a batch of short notes pays one flush a second
  instead of one an output (the fsync of each output cost a large share of a run over many
  short notes). Where it is not available, each output is
  fsynced as it is written, as before.
* :func:`content_digest`, :func:`file_digest`: keyed hashes (HMAC-SHA256) of an input's
  content, read in blocks so a large file costs no memory; the manifest compares them to decide
  what a rerun redoes. Keyed, because the manifest sits inside ``OUT``: a plain SHA-256 of a
  note there confirmed a guess of its text (a name of the redacted length, a date shift among
  a few hundred) to anyone holding the outputs. :func:`folder_sha256`: a model folder's files.
* :func:`fingerprint`: a short public, domain-separated fingerprint of a secret (the key), so the
  manifest can tell that a key changed without holding anything that reveals it.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import hashlib
import hmac
import os
import sys
import tempfile
from pathlib import Path
from typing import Iterable

from itdeid.errors import FormatError
from itdeid.formats.files import open_regular

#: Bytes read at a time when hashing a file.
HASH_BLOCK = 1 << 20
#: Temporary files of :func:`write_atomic` end so; a killed run's are removed by the next.
TEMP_SUFFIX = ".itdeid.tmp"


def _syncfs():
    """libc's ``syncfs`` on Linux (None elsewhere, or when it cannot be found)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        function = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True).syncfs
    except (OSError, AttributeError):
        return None
    function.argtypes = [ctypes.c_int]
    function.restype = ctypes.c_int
    return function


_SYNCFS = _syncfs()
#: Whether :func:`sync_filesystem` can make a folder's outputs durable in one call; if not, each
#: output is fsynced as it is written.
GROUP_SYNC = _SYNCFS is not None


def sync_filesystem(folder: Path) -> None:
    """Make every file written so far on ``folder``'s filesystem durable (its data, and the
    renames that put it in place), waiting until it is; an OSError when that fails."""
    if _SYNCFS is None:
        raise OSError("syncfs is not available here")
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        if _SYNCFS(descriptor) != 0:
            error = ctypes.get_errno()
            raise OSError(error, os.strerror(error))
    finally:
        os.close(descriptor)


def make_private_folders(folder: Path) -> None:
    """Create ``folder`` and each missing folder above it owner-only (0700, whatever the umask);
    folders that already exist keep their modes (``Path.mkdir(parents=True)`` gives the missing
    parents the default mode)."""
    if folder.is_dir():             # the common case: no parents to list
        return
    missing = []
    for candidate in (folder, *folder.parents):
        if candidate.is_dir():
            break
        missing.append(candidate)
    for candidate in reversed(missing):
        try:
            os.mkdir(candidate, 0o700)
        except FileExistsError:           # made meanwhile by another worker
            if not candidate.is_dir():
                raise
            continue
        os.chmod(candidate, 0o700)        # mkdir's mode is masked by the umask; 0700 is the cap


def write_atomic(path: Path, data: bytes | Iterable[bytes], sync: bool = True) -> None:
    """Write ``data`` (bytes, or pieces of bytes written one by one, so a long file such as a
    manifest being compacted is never held whole) through a temporary file in the same folder,
    then ``os.replace``: a crash leaves the old file or the new one. ``sync``: fsync the file before the rename, so that it is on disk
    when this returns; without, the caller makes it durable (:func:`sync_filesystem`) before
    anything says it is done. The temporary file is created owner-only (0600), and the output
    keeps that mode; missing folders are created owner-only (:func:`make_private_folders`)."""
    make_private_folders(path.parent)
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.",
                                             suffix=TEMP_SUFFIX)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            if isinstance(data, (bytes, bytearray)):
                handle.write(data)
            else:
                handle.writelines(data)
            handle.flush()
            if sync:
                os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def _update_from_file(digest, path) -> None:
    """Add the bytes of the regular file ``path`` to ``digest``; anything else is refused
    unopened (:func:`~itdeid.formats.files.open_regular`), so a FIFO put in an input's place
    since the last run cannot stall the check of whether it changed."""
    with open_regular(path) as handle:
        for block in iter(lambda: handle.read(HASH_BLOCK), b""):
            digest.update(block)


def _content_mac(key: bytes):
    """An HMAC-SHA256 of input contents under ``key`` (through a subkey of its own, so it is
    never a value the key's other uses give)."""
    return hmac.new(hmac.new(key, b"itdeid input content", hashlib.sha256).digest(),
                    digestmod=hashlib.sha256)


def content_digest(key: bytes, data: bytes) -> str:
    """The keyed digest of an input's content ``data``."""
    mac = _content_mac(key)
    mac.update(data)
    return mac.hexdigest()


def file_digest(key: bytes, path) -> str | None:
    """:func:`content_digest` of a file's content, or None when it cannot be read (or is no
    regular file)."""
    mac = _content_mac(key)
    try:
        _update_from_file(mac, path)
    except (OSError, FormatError):
        return None
    return mac.hexdigest()


def folder_sha256(folder: Path, files=None) -> str:
    """sha256 of every file of a folder (relative names and contents), or of ``files`` of it:
    equal for a moved copy, different after any file is changed, added or removed."""
    digest = hashlib.sha256()
    for path in sorted(files if files is not None else (p for p in folder.rglob("*") if p.is_file())):
        digest.update(path.relative_to(folder).as_posix().encode("utf-8", "surrogateescape") + b"\0")
        _update_from_file(digest, path)
    return digest.hexdigest()


def fingerprint(secret: bytes, purpose: str = "key") -> str:
    """A short public fingerprint of ``secret``: domain-separated (``purpose``), so it is never
    a value that anything keyed by the secret uses."""
    message = f"itdeid {purpose} fingerprint\0".encode("utf-8") + secret
    return hashlib.sha256(message).hexdigest()[:16]
