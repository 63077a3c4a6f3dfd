"""What a batch leaves in ``OUT``: outputs written atomically, and the manifest that lets a rerun
skip the inputs already done.

Writing. Workers read, tag and render; the parent process alone writes, each file atomically
(:func:`itdeid.batch.files.write_atomic`: a temporary ``.NAME.*.itdeid.tmp``, then renamed), so
a crash leaves the old file or the new one; the next run deletes such leftovers. Output files
and the manifest are readable by their owner only, like the notes. The manifest is locked while
a run writes ``OUT``: a second run into the same ``OUT`` is refused.

Manifest (``OUT/.itdeid-manifest.jsonl``): one JSON object a finished input, written only once
that input's outputs are durable, so an entry never speaks for an output a crash could still
lose. On Linux the entries wait in memory and are committed in groups, at most
:data:`SYNC_EVERY_SECONDS` or :data:`SYNC_EVERY_ENTRIES` apart and when the run ends: one
``syncfs`` makes the group's outputs durable, then their entries are appended, flushed and
fsynced (a fsync an output cost a fifth of a one-core run of short notes on this project's
machine). Elsewhere each output is fsynced as it is written and its entry appended and flushed
at once, the manifest fsynced at the same intervals. Either way a killed process or a power cut
loses at most the last group's entries, whose inputs the next run redoes. Each entry holds: ``input`` (relative path; its hashed name
with ``--rename``), ``content_hmac`` (its content's HMAC-SHA256 under the folder's key,
:func:`itdeid.batch.files.content_digest`: a plain hash here confirmed guesses of a note's
text) and ``bytes`` of its content, ``read_as`` (the format it was read as), ``outputs`` (paths relative to
``OUT``), ``patient`` (for surrogates of a grouped input, a keyed fingerprint of its patient,
:mod:`itdeid.batch.patients`; else null), ``root`` (a fingerprint of its input folder, keyed
where the run has a key: a run from another folder whose inputs have the same names is refused
rather than let overwrite them, :func:`other_root`), ``documents``, ``tokens``, ``phi`` (spans a class), ``empty``, ``model_dir``,
``finished`` (UTC time, the only clock reading; outputs hold none) and ``settings``: ``format``,
``input_format``, ``model`` (sha256 of the model folder's files), ``vote``, ``key``
(a fingerprint of the key, never the key) and ``itdeid`` (version). On a rerun an input is
skipped when the last entry for it has the same settings and content digest and its outputs all
exist; anything else is redone. Entries of other settings make the run refuse the folder
(:mod:`itdeid.batch.settings`); ``force`` deletes every output the entries record (only those),
empties the manifest and redoes everything (:meth:`Manifest.start_afresh`). A run killed at any point and rerun
therefore finishes the rest, redoing at most the inputs that were in flight, and since outputs
depend only on the input, the model and the key, they are byte-identical to an uninterrupted
run's. Entries of a killed run's half-written last line are ignored; at the end of a run the
manifest is rewritten with one entry an input if it held more, before the lock is released. Failed inputs get no entry (so
the next run retries them). Outputs that a redone input no longer has (those of notes since
removed from a multi-note file) are left where they are until ``force``.
"""
from __future__ import annotations

import datetime as _dt
import json
import os
import time
from pathlib import Path
from typing import Iterator

from itdeid.batch.files import (GROUP_SYNC, TEMP_SUFFIX, file_digest, fingerprint, sync_filesystem,
                                write_atomic)
from itdeid.batch.inputs import InputFailed, Unit, is_inside, root_of
from itdeid.batch.patients import patient_fingerprint
from itdeid.batch.settings import Settings
from itdeid.batch.unit import UnitResult
from itdeid.errors import UserError
from itdeid.formats.files import is_real_folder

MANIFEST_NAME = ".itdeid-manifest.jsonl"
#: Longest time an entry waits to be committed (see the module docstring).
SYNC_EVERY_SECONDS = 1.0
#: Most entries that wait to be committed together (a chunk of one-note files, so a kill
#: loses little work however fast the notes go).
SYNC_EVERY_ENTRIES = 64


class Manifest:
    """The JSON Lines record of finished inputs in ``OUT`` (see the module docstring).

    What it keeps in memory is where each input's last entry starts in the file (a byte offset
    an input), not the entries: parsed entries, each with its own copy of the settings, cost
    about a kilobyte and a half an input, so a run over a million files held gigabytes of them
    (``experiments/results/many-files.md``). An entry is read back from the file when
    it is asked for (:meth:`entry`), and all of them are streamed (:meth:`latest`, :meth:`compact`).
    Entries waiting for their group's commit are kept as their lines until they are written.
    """

    def __init__(self, out: Path):
        self.path = out / MANIFEST_NAME
        self._offsets: dict[str, int] = {}
        self.lines = 0
        self.unreadable = 0
        self._handle = None
        self._reader = None
        self._end = 0           # the file's length: where the next line written will start
        self._synced = time.monotonic()
        self._unsynced = False
        #: Commit entries in groups after one syncfs of OUT (see the module docstring); when
        #: False, outputs are fsynced as they are written (``write_result(sync=True)``).
        self.group_sync = GROUP_SYNC
        self._waiting: dict[str, bytes] = {}

    def __len__(self) -> int:
        """How many inputs have an entry (written or waiting)."""
        return len(self._offsets) + sum(1 for name in self._waiting if name not in self._offsets)

    def _read_lines(self) -> Iterator[tuple[int, bytes]]:
        """(byte offset, line) of each line of the file, streamed; none when there is no file."""
        try:
            handle = open(self.path, "rb")
        except FileNotFoundError:
            return
        except OSError as error:
            raise UserError(f"{self.path}: cannot read the manifest: {error.strerror}") from None
        with handle:
            offset = 0
            for line in handle:
                yield offset, line
                offset += len(line)

    @staticmethod
    def _parse(line: bytes) -> dict | None:
        """The entry a line holds, or None for a torn or foreign line."""
        try:
            entry = json.loads(line)
        except ValueError:
            return None
        if not isinstance(entry, dict) or not isinstance(entry.get("input"), str):
            return None
        return entry

    def load(self) -> "Manifest":
        """Read where the entries are (the last one an input wins); a torn or foreign line is
        counted and ignored, so a run killed while appending does not block the next."""
        for offset, line in self._read_lines():
            if not line.strip():
                continue
            self.lines += 1
            entry = self._parse(line)
            if entry is None:
                self.unreadable += 1
            else:
                self._offsets[entry["input"]] = offset
        return self

    def entry(self, name: str) -> dict | None:
        """The last entry of the input ``name``, or None."""
        line = self._waiting.get(name)
        if line is None:
            offset = self._offsets.get(name)
            if offset is None:
                return None
            try:
                if self._reader is None:
                    self._reader = open(self.path, "rb")
                self._reader.seek(offset)
                line = self._reader.readline()
            except OSError as error:
                raise UserError(f"{self.path}: cannot read the manifest: "
                                f"{error.strerror}") from None
        return self._parse(line)

    def latest(self) -> Iterator[dict]:
        """The last entry of each input: those written, in the file's order, then those
        waiting for their group's commit."""
        for offset, line in self._read_lines():
            entry = self._parse(line)
            if (entry is not None and self._offsets.get(entry["input"]) == offset
                    and entry["input"] not in self._waiting):
                yield entry
        for line in list(self._waiting.values()):
            yield self._parse(line)

    def open(self) -> None:
        """Open for appending, locked so that two runs cannot write one ``OUT`` at once, and
        start a new line if a killed run left half of one."""
        try:
            # owner-only, like the outputs: it lists the notes' file names
            self._handle = os.fdopen(os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT,
                                             0o600), "ab")
        except OSError as error:
            raise UserError(f"cannot write to --out {self.path.parent}: {error.strerror}") from None
        try:
            import fcntl
            fcntl.flock(self._handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except ImportError:     # no fcntl (Windows): no lock
            pass
        except OSError:
            self.close()
            raise UserError(f"another itdeid deid is writing to {self.path.parent}; wait for it "
                            "to finish (or use another --out)") from None
        if self._handle.tell() and self._last_byte() != b"\n":
            self._handle.write(b"\n")
            self._handle.flush()
        self._end = os.fstat(self._handle.fileno()).st_size

    def _last_byte(self) -> bytes:
        with open(self.path, "rb") as handle:
            handle.seek(-1, os.SEEK_END)
            return handle.read(1)

    def append(self, entry: dict) -> None:
        """Record a finished input whose outputs are written: with ``group_sync``, kept until
        the group is committed (:meth:`sync`); else written and flushed at once (its outputs
        were fsynced). Either way committed within :data:`SYNC_EVERY_SECONDS` or
        :data:`SYNC_EVERY_ENTRIES`. A manifest that cannot be written stops the batch: progress
        could not be kept."""
        line = json.dumps(entry, sort_keys=True).encode("utf-8") + b"\n"
        try:
            if self.group_sync:
                self._waiting.pop(entry["input"], None)     # a second entry goes last, as written
                self._waiting[entry["input"]] = line
            else:
                self._write({entry["input"]: line})
            if (time.monotonic() - self._synced >= SYNC_EVERY_SECONDS
                    or len(self._waiting) >= SYNC_EVERY_ENTRIES):
                self.sync()
        except OSError as error:
            raise UserError(f"{self.path}: cannot write the manifest ({error.strerror}); "
                            "stopped, rerun to continue") from None

    def _write(self, lines: dict[str, bytes]) -> None:
        """Append the entries' ``lines`` (input name -> line) and flush them."""
        self._handle.write(b"".join(lines.values()))
        self._handle.flush()
        for name, line in lines.items():
            self._offsets[name] = self._end
            self._end += len(line)
        self.lines += len(lines)
        self._unsynced = True

    def other_settings(self, settings: dict) -> list[dict]:
        """The settings, other than ``settings``, that entries were written with (each once)."""
        found: list[dict] = []
        for entry in self.latest():
            used = entry.get("settings")
            if used != settings and used not in found:
                found.append(used if isinstance(used, dict) else {})
        return found

    def start_afresh(self, out: Path) -> int:
        """Delete the outputs the entries record (only those: never a file itdeid did not
        write) and the folders they leave empty, then empty the manifest; returns how many
        files were deleted. Only called while holding the lock."""
        removed = 0
        for entry in self.latest():
            for name in entry.get("outputs", []):
                path = out / name
                if (".." in Path(name).parts or not is_inside(path.resolve(), out)
                        or path.is_dir()):
                    continue    # not a file itdeid writes: left alone
                try:
                    path.unlink()
                    removed += 1
                except FileNotFoundError:
                    pass
                except OSError as error:
                    raise UserError(f"cannot remove the old output {path}: "
                                    f"{error.strerror}") from None
                folder = path.parent
                while folder != out and is_inside(folder, out):
                    try:
                        folder.rmdir()      # only when empty
                    except OSError:
                        break
                    folder = folder.parent
        self._handle.truncate(0)
        self._handle.flush()
        os.fsync(self._handle.fileno())
        self._close_reader()
        self._offsets, self._waiting, self.lines, self.unreadable, self._end = {}, {}, 0, 0, 0
        return removed

    def sync(self) -> None:
        """Commit: make the waiting entries' outputs durable (one syncfs of ``OUT``), then write
        the entries, and fsync the manifest (an OSError is the caller's to report)."""
        if self._handle is not None and self._waiting:
            sync_filesystem(self.path.parent)
            self._write(self._waiting)
            self._waiting = {}
        if self._handle is not None and self._unsynced:
            os.fsync(self._handle.fileno())
            self._unsynced = False
        self._synced = time.monotonic()

    def _close_reader(self) -> None:
        if self._reader is not None:
            self._reader.close()
            self._reader = None

    def close(self) -> None:
        self._close_reader()
        if self._handle is not None:
            try:
                self.sync()
            except OSError as error:
                raise UserError(f"{self.path}: cannot write the manifest ({error.strerror}); "
                                "rerun to continue") from None
            finally:
                self._handle.close()
                self._handle = None

    def finish(self) -> OSError | None:
        """End a run that went to its end: commit what waits, compact (:meth:`compact`) while
        the folder is still locked, then close; returns the error that stopped the compaction,
        if one did (the manifest still works). Compacted after the lock was released, the file
        could be replaced under a run that had just opened it, its entries going to the old one.
        """
        try:
            self.sync()
        except OSError:
            self.close()        # commits once more, or raises close's UserError
            return None         # committed at the second try: left as it is
        try:
            self.compact()
            failed = None
        except OSError as error:
            failed = error
        self.close()
        return failed

    def compact(self) -> None:
        """Rewrite with one entry an input (sorted by name) when reruns or a kill left more
        lines, streamed from the old file to the new one."""
        if self.lines == len(self._offsets) and not self.unreadable:
            return
        offsets: dict[str, int] = {}

        def lines(reader) -> Iterator[bytes]:
            end = 0
            for name in sorted(self._offsets):
                reader.seek(self._offsets[name])
                line = reader.readline().rstrip(b"\n") + b"\n"
                offsets[name] = end
                end += len(line)
                yield line

        with open(self.path, "rb") as reader:
            write_atomic(self.path, lines(reader))
        self._close_reader()        # it reads the file just replaced
        self._offsets, self.lines, self.unreadable = offsets, len(offsets), 0


def entry_for(result: UnitResult, settings: Settings) -> dict:
    """The manifest entry of a finished input (its fields are listed in the module docstring)."""
    return {"input": result.unit.name, "content_hmac": result.digest, "bytes": result.size,
            "read_as": result.read_as, "outputs": sorted(result.outputs),
            "documents": result.documents, "tokens": result.tokens,
            "phi": dict(sorted(result.phi.items())), "empty": result.empty,
            "model_dir": settings.model_dir, "settings": settings.fingerprint(),
            "patient": patient_tag(result.unit, settings), "root": root_tag(result.unit, settings),
            "finished": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")}


def remove_orphans(out: Path) -> int:
    """Delete the temporary files a killed run left in ``OUT`` (they may hold note text);
    returns how many. Only called while holding the manifest lock. Walked with a stack, not
    ``os.walk``, which recursed a level a folder: the outputs of a tree of some 1,000 nested
    folders stopped every later run with a RecursionError."""
    removed = 0
    folders = [str(out)]
    while folders:
        folder = folders.pop()
        try:
            with os.scandir(folder) as entries:
                found = [(entry.path, entry.name, is_real_folder(entry)) for entry in entries]
        except OSError:
            continue            # a folder that cannot be listed holds nothing this run wrote
        for path, name, is_folder in found:
            if is_folder:
                folders.append(path)
            elif name.startswith(".") and name.endswith(TEMP_SUFFIX):
                try:
                    os.unlink(path)
                    removed += 1
                except OSError:
                    pass        # left for a later run; it is hidden and never read
    return removed


def patient_tag(unit: Unit, settings: Settings) -> str | None:
    """What the entry records of the input's patient grouping: a keyed fingerprint where the
    outputs depend on it (surrogates), else None."""
    return patient_fingerprint(unit, settings.key) if settings.fmt == "surrogate" else None


def root_tag(unit: Unit, settings: Settings) -> str:
    """What the entry records of the input's root folder: a fingerprint keyed by the folder's
    key (the folder's name may be a patient's), never the path."""
    folder = str(root_of(unit)).encode("utf-8", "surrogateescape")
    return fingerprint(settings.digest_key + b"\0" + folder, "input folder")


def other_root(unit: Unit, entry: dict | None, settings: Settings) -> bool:
    """Whether ``entry`` records an input of the same name from another input folder (asked of
    an input whose content differs from the entry's: the same content moved elsewhere is done):
    a second run from another folder into the same ``OUT`` once replaced the first one's outputs
    of the same names (another patient's notes), silently, as if the input had changed."""
    return bool(entry) and entry.get("root") not in (None, root_tag(unit, settings))


def up_to_date(unit: Unit, entry: dict | None, settings: Settings, out: Path) -> bool:
    """Whether ``entry`` says this input, as it is now, was finished with these settings (and,
    for surrogates, under the same patient) and its outputs are all still there (then the
    input is skipped)."""
    if not entry or entry.get("settings") != settings.fingerprint():
        return False
    if entry.get("patient") != patient_tag(unit, settings):
        return False
    try:
        if os.stat(unit.path).st_size != entry.get("bytes"):
            return False
    except OSError:
        return False
    if not all((out / name).is_file() for name in entry.get("outputs", [])):
        return False
    return file_digest(settings.digest_key, unit.path) == entry.get("content_hmac")


def _safe_output(out: Path, name: str, inputs: set[str]) -> Path:
    """``OUT/name``, after checking it stays in ``OUT`` and is not an input file."""
    path = out / name
    resolved = path.resolve()
    if not is_inside(resolved, out) or ".." in Path(name).parts:
        raise InputFailed(f"output name {name!r} leaves --out")
    if str(resolved) in inputs:
        raise InputFailed(f"output {path} would overwrite an input file; refused")
    return path


def write_result(out: Path, result: UnitResult, inputs: set[str], owners: dict[str, str],
                 sync: bool = True) -> None:
    """Write a unit's outputs (see :func:`write_atomic`; ``sync``: fsync each, else the
    manifest's group commit makes them durable); a clash with another input's output in this
    run, or a write error, fails the unit with the path named. A failed unit keeps none of the
    outputs this call wrote: a full disk once left a note's offsets sidecar without its text."""
    written: list[Path] = []
    try:
        for name, content in sorted(result.outputs.items()):
            path = _safe_output(out, name, inputs)
            owner = owners.setdefault(name, result.unit.rel)
            if owner != result.unit.rel:
                raise InputFailed(f"output {path} is also an output of {owner}; refused")
            try:
                write_atomic(path, content, sync=sync)
            except OSError as error:
                raise InputFailed(f"cannot write {path}: {error.strerror}") from None
            written.append(path)
    except InputFailed:
        for path in written:
            path.unlink(missing_ok=True)
        raise
