"""The run record: one line a run in ``OUT/.itdeid-runs.jsonl``, so that what a run left undone
is known after its terminal is gone.

The manifest (:mod:`itdeid.batch.manifest`) holds the inputs done and nothing of those that
failed (a failed input has no entry, so the next run retries it). A release committee needs
both: ``itdeid report`` reads the last run's record to say how many inputs failed and why, how
many were left out by a stop, and whether the model's files matched their digests.

Each line is a JSON object written when a run ends, while the folder's lock is still held:
``finished`` (UTC), ``itdeid`` (version), ``ended`` (false for a run interrupted, by Ctrl-C
say), ``stopped`` (``--strict`` stopped at a failure), ``model_dir``, ``model`` (sha256 of the
model folder's files), ``digests`` (what checking them found), ``threshold``, ``format``,
``files``, ``done``, ``skipped`` (done by an earlier run), ``failed`` (a list of ``[input,
reason]``: the input by its path, or its hashed name under ``--rename``, as the run's messages
name it; the reason names lines and offsets, never note text), ``left_out``, ``documents``, ``empty``, ``tokens``,
``phi`` (spans a class, this run's) and ``warnings``.

The file is appended to, flushed and fsynced; owner-only like the manifest. A line a crash cut
short is ignored when read. The record is bookkeeping: it names no output, and reruns that
skip everything still add a line.
"""
from __future__ import annotations

import datetime as _dt
import json
import os
from pathlib import Path

RECORD_NAME = ".itdeid-runs.jsonl"


def record(summary, settings, model_dir, digests: str, threshold: str, ended: bool) -> dict:
    """The record of a run, from its :class:`~itdeid.batch.BatchSummary` (filled as far as the
    run got) and :class:`~itdeid.batch.settings.Settings`."""
    from itdeid import __version__
    return {
        "finished": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "itdeid": __version__,
        "ended": bool(ended),
        "stopped": bool(summary.stopped),
        "model_dir": str(model_dir),
        "model": settings.model_sha256,
        "digests": digests,
        "threshold": threshold,
        "format": summary.fmt,
        "files": summary.files,
        "done": summary.done,
        "skipped": summary.skipped,
        "failed": [[name, reason] for name, reason in summary.failed],
        "left_out": summary.files - summary.done - summary.skipped - len(summary.failed),
        "documents": summary.documents,
        "empty": summary.empty,
        "tokens": summary.tokens,
        "phi": dict(sorted(summary.phi.items())),
        "warnings": summary.warnings,
    }


def append(out: Path, entry: dict) -> None:
    """Append ``entry`` to ``out``'s run record, durably (owner-only file, fsynced)."""
    path = Path(out) / RECORD_NAME
    line = (json.dumps(entry, ensure_ascii=True, sort_keys=True) + "\n").encode("ascii")
    descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(descriptor, line)
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def read(out: Path) -> list[dict]:
    """Every complete record in ``out``, oldest first; [] where there is none (a folder written
    before runs were recorded). Lines that are not JSON objects (a cut last line) are skipped."""
    path = Path(out) / RECORD_NAME
    if not path.is_file():
        return []
    records = []
    with open(path, "rb") as handle:
        for raw in handle:
            try:
                entry = json.loads(raw)
            except ValueError:
                continue
            if isinstance(entry, dict) and "finished" in entry:
                records.append(entry)
    return records
