"""``--rename``: outputs named by a keyed hash of the input's relative path, for trees whose file
and folder names hold PHI (``KOWALCZYK_MARTA_MRN004417392/note.txt``).

Without it, an input's relative path is copied into its output path, its manifest entry and
(for a one-note file, whose note id is its path) the ``doc`` fields of the outputs. With it,
each input is named ``HMAC-SHA256(k, relative path)`` (the first :data:`NAME_HEX` hex digits),
where ``k`` is derived from the run's secret key (:mod:`itdeid.batch.settings`, kept outside
``OUT``): deterministic, so reruns and resumed runs find their outputs, and without the key a
guessed path cannot be confirmed. ``ward/KOWALCZYK/note.txt`` becomes ``OUT/3f9c...e1.txt``
(flat: folders are path components too), and the note inside is named the same. Notes of a
multi-note file keep the ids written in the file (``OUT/3f9c...e1/1-1.txt``).

The map back (:func:`write_map`: CSV ``name,path``, one row an input, mode 0600) is written
outside ``OUT``, by default ``OUT.itdeid-rename-map.csv`` beside it; like the key, it is never
shipped with the outputs.
"""
from __future__ import annotations

import csv
import hashlib
import hmac
import io
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from itdeid.batch.files import write_atomic
from itdeid.batch.inputs import Unit, root_of, secret_file_outside
from itdeid.errors import UserError

#: Hex digits of a renamed input's name (96 bits: no two inputs of a tree share one).
NAME_HEX = 24
#: Suffix of the default map file, beside ``OUT``.
MAP_SUFFIX = ".itdeid-rename-map.csv"


def map_path(out: Path, map_file) -> Path:
    """Where the map is written: ``map_file``, else beside ``OUT``; refused inside ``OUT``."""
    path = Path(map_file).resolve() if map_file is not None else out.with_name(out.name + MAP_SUFFIX)
    return secret_file_outside(path, out, "--rename-map", "the map back to the original names")


def hashed_name(key: bytes, rel: str) -> str:
    """The output name of the input at relative path ``rel``."""
    subkey = hmac.new(key, b"itdeid rename key", hashlib.sha256).digest()
    # surrogateescape: a file name that is not UTF-8 (an old latin-1 'Müller.txt') is kept as
    # Python keeps it, its own bytes; encoding it strictly stopped the whole run
    return hmac.new(subkey, rel.encode("utf-8", "surrogateescape"), hashlib.sha256).hexdigest()[:NAME_HEX]


def renamed(units: list[Unit], key: bytes) -> list[Unit]:
    """``units`` with their hashed names."""
    return [replace(unit, renamed=hashed_name(key, unit.rel)) for unit in units]


def write_map(path: Path, units: list[Unit]) -> None:
    """Add this run's inputs to the map at ``path`` (rows already there are kept, so the map of
    a folder filled by several runs is whole), written atomically, mode 0600. Runs that share
    one map take turns (:func:`_map_lock`): two at once each wrote back its own rows over the
    other's, and outputs were left with no way back to their inputs."""
    with _map_lock(path):
        _add_rows(path, units)


@contextmanager
def _map_lock(path: Path):
    """An exclusive lock on ``.NAME.lock`` beside the map (POSIX ``flock``; none elsewhere),
    held while the map is read and written."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    try:
        handle = open(path.with_name(f".{path.name}.lock"), "a")
    except OSError as error:
        raise UserError(f"--rename-map {path}: cannot lock: {error.strerror}") from None
    with handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        yield


def _add_rows(path: Path, units: list[Unit]) -> None:
    """The map's rows ``name,path,root``: the hashed name, the path relative to its input root
    (as the output tree names inputs) and that root, absolute (several roots in one run gave
    bare relative paths that led back to no folder). A map of an earlier itdeid has no root
    column; its rows keep an empty one."""
    rows: dict[str, tuple[str, str]] = {}
    try:
        with open(path, newline="", encoding="utf-8", errors="surrogateescape") as handle:
            for row in csv.DictReader(handle):
                rows[row["name"]] = (row["path"], row.get("root") or "")
    except FileNotFoundError:
        pass
    except (OSError, KeyError, csv.Error, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or "not a name,path CSV file"
        raise UserError(f"--rename-map {path}: cannot read: {reason}") from None
    rows.update((unit.renamed, (unit.rel, str(root_of(unit)))) for unit in units)
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(["name", "path", "root"])
    writer.writerows((name, rel, root) for name, (rel, root) in sorted(rows.items()))
    try:
        write_atomic(path, text.getvalue().encode("utf-8", "surrogateescape"))   # names as on disk
    except OSError as error:
        raise UserError(f"--rename-map {path}: cannot write: {error.strerror}") from None
