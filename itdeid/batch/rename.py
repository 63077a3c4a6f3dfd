"""``--rename``: outputs named by a keyed hash of the input's relative path, for trees whose file
and folder names hold PHI (``KOWALCZYK_MARTA_MRN004417392/note.txt``).

Without it, an input's relative path is copied into its output path, its manifest entry and
(for a one-note file, whose note id is its path) the ``doc`` fields of the outputs. With it,
each input is named ``HMAC-SHA256(k, relative path)`` (the first :data:`NAME_HEX` hex digits),
where ``k`` is derived from the run's secret key (:mod:`itdeid.batch.settings`, kept outside
``OUT``): deterministic, so reruns and resumed runs find their outputs, and without the key a
guessed path cannot be confirmed. ``ward/KOWALCZYK/note.txt`` becomes ``OUT/3f9c...e1.txt``
(flat: folders are path components too), and the note inside is named the same. Notes of a
multi-note file are numbered in file order (``OUT/3f9c...e1/1.txt``): their record ids can hold
names or MRNs too.

Without ``--rename``, :func:`looks_like_phi` picks out the paths and note ids that would carry
PHI into ``OUT`` (a number of MRN length, a date, a person's name), so the batch can warn,
counting them and naming the option, never printing them.

The map back (:func:`write_map`: CSV ``name,path``, one row an input, mode 0600) is written
outside ``OUT``, by default ``OUT.itdeid-rename-map.csv`` beside it; like the key, it is never
shipped with the outputs.
"""
from __future__ import annotations

import csv
import hashlib
import hmac
import io
import re
from contextlib import contextmanager
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

from itdeid.batch.files import write_atomic
from itdeid.batch.inputs import Unit, root_of, secret_file_outside
from itdeid.errors import UserError
from itdeid.featurize.word_lists import census_names, gazetteer_sets

#: Hex digits of a renamed input's name (96 bits: no two inputs of a tree share one).
NAME_HEX = 24
#: Suffix of the default map file, beside ``OUT``.
MAP_SUFFIX = ".itdeid-rename-map.csv"


#: A number of MRN length (six digits or more: 'MRN1234567', '20190314', an account number),
#: or one written in groups as SSNs and phone numbers are ('555-12-3456', '617.555.0142').
_LONG_NUMBER = re.compile(r"(?<!\d)(?:\d{6,}|\d{3}[-. ]\d{2,3}[-. ]\d{4})(?!\d)")
_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
          r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
#: A date: '2019-03-14', '03_14_2019', '14.3.19', '14Mar2019', 'Mar-14', 'dec_2019'.
_DATE = re.compile(r"(?<!\d)(?:\d{4}[-_.]\d{1,2}[-_.]\d{1,2}|\d{1,2}[-_.]\d{1,2}[-_.]\d{2,4})(?!\d)"
                   rf"|(?i:(?<![a-z])(?:\d{{1,2}}[-_ .]?{_MONTH}|{_MONTH}[-_ .]?\d{{1,4}})(?![a-z]))")
#: Words of a name: runs of letters, split where a lower-case letter meets a capital
#: ('JohnSmith'); ``_JOINED`` is what may stand between the two words of one name.
_WORD = re.compile(r"[^\W\d_]+")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_JOINED = re.compile(r"[ _.,-]*")


@lru_cache(maxsize=1)
def _person_names() -> frozenset[str]:
    """Census first and last names (lower case) that are no ordinary English word: 'smith',
    'ingrid', but not 'patient' or 'mercy', so 'Patient_Notes' is no name."""
    first, last = census_names()      # the lists the feature groups already hold
    return frozenset((first.keys() | last.keys()) - gazetteer_sets()["english"])


def _words(name: str) -> list[tuple[int, int, str]]:
    """(start, end, word) of each word of ``name``, camel case split."""
    found = []
    for match in _WORD.finditer(name):
        start = match.start()
        for part in _CAMEL.split(match.group()):
            found.append((start, start + len(part), part))
            start += len(part)
    return found


def looks_like_phi(name: str) -> bool:
    """Whether a relative path or note id looks like it carries PHI that ``--rename`` would
    keep out of ``OUT``: a number of six or more digits (an MRN, an SSN), a date, or two words of the
    census name lists side by side ('Halvorsen_Ingrid', 'JohnSmith'). A hint, not a finding:
    names outside the lists are missed, and 'Rose_Ward' is taken for one."""
    if _LONG_NUMBER.search(name) or _DATE.search(name):
        return True
    names = _person_names()
    words = _words(name)
    return any(len(a) > 1 and len(b) > 1 and a.lower() in names and b.lower() in names
               and _JOINED.fullmatch(name, end_a, start_b)
               for (_, end_a, a), (start_b, _, b) in zip(words, words[1:]))


#: How the readers name a note in a message: 'document id 'X'', 'document X:', 'record X has no',
#: 'note X at', 'note id 'X''; group 2 is the id (quoted, or up to a space, colon or comma).
_NOTE_ID = re.compile(r"""\b(document id|note id|document|record|note) ('[^']*'|"[^"]*"|[^\s:,;'"]+)""")


def without_note_ids(message: str) -> str:
    """``message`` with the note ids the readers name put as '(id withheld)': with --rename a
    multi-note file's record ids are numbered in the outputs (they hold names and MRNs, as
    ``RECORD ID="KOWALCZYK_MRN0044173"``), and a message about a file that failed to read has
    no numbers to give them; the line number, where the message has one, finds the record."""
    return _NOTE_ID.sub(lambda m: f"{m.group(1)} (id withheld)", message)


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
