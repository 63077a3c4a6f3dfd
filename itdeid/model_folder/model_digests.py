"""``SHA256SUMS``: the digests of a model folder's files, so a copy that is incomplete or mixed
with another model's files is refused at load time.

A model folder travels: a data team copies it onto the machine inside the hospital that runs
``itdeid deid`` over millions of notes. A copy interrupted half-way, or a member folder taken
from another training, can still be a well-formed model, one that every structural check of
:mod:`itdeid.model_folder.model_files` passes and that tags with other thresholds and trees than the card
describes, without a word. So ``itdeid train`` (:func:`itdeid.model_folder.model_out.replacing`) writes the
SHA-256 digest of every file of the new folder, in the format of ``sha256sum`` (a team can check
a copy with ``sha256sum -c SHA256SUMS`` before moving it), and :func:`check` reads the folder
against it before the model is built. ``MODEL_CARD.md`` is documentation, rescored by
``experiments/card_scores.py``, and is left out. A folder without the file (saved through the
Python API's ``save``, or by an older itdeid) is loaded as before: the digests are for finding
damage, not a seal against someone who can rewrite the folder. But deleting the file turns the
check off, so the commands warn of a folder without it (:func:`not_checked`) and name what was
checked in their closing summary (:func:`described`).
"""
from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path, PurePosixPath

from itdeid.errors import UserError
from itdeid.model_folder.layout import DIGESTS, model_files

FILE = DIGESTS
#: Files of a model folder the digests leave out: the list itself, and the card (documentation).
UNLISTED = (FILE, "MODEL_CARD.md")

_LINE = re.compile(r"([0-9a-fA-F]{64}) [ *](.+)")


def digest(path: Path) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def write(folder) -> Path:
    """Write ``folder/SHA256SUMS``: a line ``DIGEST  PATH`` for each file below ``folder`` but
    those of :data:`UNLISTED`, paths relative to it with ``/``, in sorted order."""
    folder = Path(folder)
    files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*")
                   if p.is_file() and p.relative_to(folder).as_posix() not in UNLISTED)
    path = folder / FILE
    path.write_text("".join(f"{digest(folder / name)}  {name}\n" for name in files), encoding="utf-8")
    return path


def described(matched: int | None) -> str:
    """What :func:`check` found, for a run's summary: how many files matched, or that none was
    checked."""
    return f"NOT checked: no {FILE}" if matched is None else f"checked: {matched} files match {FILE}"


def not_checked(folder) -> str:
    """The warning for a model folder without ``SHA256SUMS``."""
    return (f"{folder}: no {FILE}, so its files are not checked for damage or edits (an "
            "edited threshold would go unnoticed); itdeid train writes one: use the whole "
            "folder as itdeid train wrote it, or retrain")


def check(folder) -> int | None:
    """Refuse (:class:`UserError`, naming the file) a model folder whose ``SHA256SUMS`` lists a
    file that is missing or differs; a folder without the list passes. Returns how many files
    matched, or None for a folder without the list. A listed file over the size cap of a model
    file is refused before it is read (:func:`itdeid.model_folder.model_files.check_size`). The list is read as
    ``sha256sum -c`` reads it (blank and ``#`` lines skipped, digests in either case, a
    byte-order mark or CRLF line ends allowed), and a JSON file whose only change is CRLF line
    ends (git's autocrlf, a Windows editor) is the same model and passes."""
    from itdeid.model_folder.model_files import check_size, model_part
    folder = Path(folder)
    listed = folder / FILE
    if not os.path.lexists(listed):
        return None
    try:
        lines = listed.read_text(encoding="utf-8-sig").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise UserError(f"{listed}: cannot read ({getattr(error, 'strerror', None) or type(error).__name__})") from None
    entries = [(number, line.strip()) for number, line in enumerate(lines, 1)
               if line.strip() and not line.lstrip().startswith("#")]
    if not entries:     # a copy cut short, not a model without digests
        raise UserError(f"{listed}: lists no file; the model folder is incomplete (copy the "
                        "whole folder again)")
    names = set()
    for number, line in entries:
        match = _LINE.fullmatch(line)
        name = PurePosixPath(match.group(2)) if match else None
        if name is None or name.is_absolute() or ".." in name.parts or str(name) in UNLISTED:
            raise UserError(f"{listed}:{number}: not a line 'DIGEST  FILE' of this model folder")
        path = model_part(folder, str(name))
        names.add(name.as_posix())
        if not path.is_file():
            raise UserError(f"{path}: listed in {FILE} but missing; the model folder is incomplete "
                            "(copy the whole folder again)")
        check_size(path)
        if not _matches(path, match.group(1).lower()):
            raise UserError(f"{path}: differs from its digest in {FILE}; the model folder is "
                            "damaged or mixed with another model's files (copy the whole folder "
                            "again, or retrain)")
    _check_all_listed(folder, names)
    return len(names)


def _check_all_listed(folder: Path, names: set[str]) -> None:
    """Refuse a model file the list leaves out: a line removed left its file unchecked."""
    for path in model_files(folder):
        if path.relative_to(folder).as_posix() not in names:
            raise UserError(f"{path}: a model file {FILE} does not list (a line removed, or a "
                            "file added); the model folder is damaged (copy the whole folder "
                            "again, or retrain)")


def _matches(path: Path, expected: str) -> bool:
    try:
        if digest(path) == expected:
            return True
        data = path.read_bytes() if path.suffix == ".json" else b""
    except OSError as error:
        raise UserError(f"{path}: cannot read ({error.strerror or type(error).__name__})") from None
    return b"\r\n" in data and hashlib.sha256(data.replace(b"\r\n", b"\n")).hexdigest() == expected
