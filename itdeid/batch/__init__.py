"""Batch de-identification: a tree of notes in, a tree of de-identified notes out, resumably.

:func:`deidentify` is what ``itdeid deid`` runs; it can be called from Python the same way. This
module runs the batch; each part is described in the module that implements it:

* :mod:`itdeid.batch.inputs`: which files are inputs (files, folders, glob patterns), their names in
  the output tree, the layouts refused, and how each file is read (formats, encodings, binary
  and empty files).
* :mod:`itdeid.batch.settings`: the model, the surrogate key (``fmt="surrogate"``) and the settings
  that outputs depend on.
* :mod:`itdeid.batch.unit`: one input read, tagged and rendered, in a worker;
  :mod:`itdeid.batch.tagging`: long notes tagged in pieces, so memory stays bounded.
* :mod:`itdeid.batch.engines`: where inputs are processed (this process, a process pool, Dask).
* :mod:`itdeid.batch.manifest`: the manifest that makes a rerun skip the inputs already done;
  :mod:`itdeid.batch.files`: atomic writing, hashes and fingerprints, below all the others.

Output layout (``OUT`` is ``--out``; ``STEM`` the relative path without its ``.txt``, ``.xml``,
``.text`` or ``.zip``; suffixes as :func:`itdeid.outputs.render` gives them)::

    one note a file     OUT/STEM<suffix>                e.g. OUT/ward/note1.txt + .redact.jsonl
    several notes       --format jsonl: OUT/STEM.jsonl  (the spans of all its notes, in order)
                        other formats:  OUT/STEM/<note id><suffix>   e.g. OUT/id/1-1.txt
    bookkeeping         OUT/.itdeid-manifest.jsonl, OUT/.itdeid-surrogate-key

The run is refused (:class:`~itdeid.errors.UserError`) before anything is processed when ``OUT``
is an input folder or lies inside one, when an input file lies inside ``OUT``, or when two inputs
would get the same ``STEM``; every output path is checked again before it is written.

Bad input never stops the batch (unless ``strict``): an unreadable, binary or malformed file, an
output that cannot be written, is reported on stderr with its path and the reason, and counted as
failed; the others are processed. Messages, warnings and the summary name files, note ids and
offsets, never note text; an unexpected error is reported by its type and where it happened,
without its message (which could quote text).
"""
from __future__ import annotations

import os
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator

from itdeid.batch.engines import ENGINES, import_distributed, run_dask, run_inline, run_pool
from itdeid.errors import UserError
from itdeid.batch.inputs import (INPUT_FORMATS, InputFailed, Unit, check_layout, expand_inputs,
                           unique_units)
from itdeid.batch.manifest import (MANIFEST_NAME, Manifest, entry_for, remove_orphans, up_to_date,
                             write_result)
from itdeid.outputs import FORMATS
from itdeid.batch.unit import UnitResult, process_unit
from itdeid.batch.settings import (KEY_NAME, Settings, load_surrogate_key, load_tagger,
                             model_fingerprint, resolve_model_dir)

# The batch API, kept importable from here for the command line and for callers from Python.
__all__ = ["BatchSummary", "DEFAULT_FORMAT", "ENGINES", "INPUT_FORMATS", "KEY_NAME",
           "MANIFEST_NAME", "Settings", "Unit", "UnitResult", "UserError", "deidentify",
           "expand_inputs", "process_unit"]

#: Default output format: de-identified text that needs no secret key.
DEFAULT_FORMAT = "redact"


def _stderr(message: str) -> None:
    """Print a message on stderr without breaking the progress bar."""
    from tqdm import tqdm
    tqdm.write(message, file=sys.stderr)


@dataclass
class BatchSummary:
    """What a batch did; ``failed`` lists (input path, reason)."""

    out: Path
    fmt: str
    files: int = 0
    done: int = 0
    skipped: int = 0
    empty: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)
    warnings: int = 0
    documents: int = 0
    tokens: int = 0
    phi: Counter = field(default_factory=Counter)
    seconds: float = 0.0
    stopped: bool = False
    left_out: int = 0

    @property
    def notes_per_second(self) -> float:
        return self.documents / self.seconds if self.seconds > 0 else 0.0

    @property
    def ok(self) -> bool:
        return not self.failed and not self.stopped


def _check_options(fmt, input_format, vote, workers, engine, scheduler) -> None:
    from itdeid.vote import RULES
    if fmt not in FORMATS:
        raise UserError(f"unknown output format {fmt!r}; expected one of {', '.join(FORMATS)}")
    if input_format not in INPUT_FORMATS:
        raise UserError(f"unknown input format {input_format!r}; expected one of "
                        f"{', '.join(INPUT_FORMATS)}")
    if vote is not None and vote not in RULES:
        raise UserError(f"unknown vote rule {vote!r}; expected one of {', '.join(RULES)}")
    if workers is not None and workers < 1:
        raise UserError("--workers must be at least 1")
    if engine not in ENGINES:
        raise UserError(f"unknown engine {engine!r}; expected one of {', '.join(ENGINES)}")
    if scheduler and engine != "dask":
        raise UserError("--scheduler needs --engine dask")


def _prepare_out(out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {out} is a file, not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UserError(f"cannot create --out {out}: {error.strerror}") from None


def deidentify(inputs: Iterable[str], out, model=None, fmt: str = DEFAULT_FORMAT,
               input_format: str = "auto", vote: str | None = None, workers: int | None = None,
               engine: str = "local", scheduler: str | None = None, force: bool = False,
               strict: bool = False, surrogate_key_file=None, progress: bool = True,
               report: Callable[[str], None] = _stderr) -> BatchSummary:
    """De-identify every input file into ``out`` (see the module docstring for the layout,
    the manifest, bad input and parallelism, and the modules it points to); returns what was
    done.

    ``report`` receives every message for the user (warnings, failures, notes; stderr by
    default): they name files, note ids and offsets, never note text. Usage problems (bad
    options, a missing input or model, a refused layout) raise :class:`UserError` before any
    input is processed.
    """
    inputs = list(inputs)
    _check_options(fmt, input_format, vote, workers, engine, scheduler)
    out = Path(out).resolve()
    model_dir = resolve_model_dir(model)
    units, roots = expand_inputs(inputs)
    check_layout(units, roots, out)
    units = unique_units(units)
    _prepare_out(out)

    is_system = (model_dir / "deidentifier.json").is_file()
    if vote is not None and not is_system:
        report(f"warning: --vote {vote} is ignored: {model_dir} is a single token model, "
               "which does not vote")
        vote = None
    if surrogate_key_file is not None and fmt != "surrogate":
        report("warning: --surrogate-key-file is ignored: only --format surrogate uses a key")
    key = load_surrogate_key(out, surrogate_key_file, report) if fmt == "surrogate" else None
    settings = Settings(str(model_dir), model_fingerprint(model_dir), fmt, input_format, vote, key)
    workers = min(workers or os.cpu_count() or 1, len(units))
    tagger = load_tagger(settings) if engine == "local" and workers == 1 else None
    if engine == "local" and workers > 1:
        load_tagger(settings)       # a bad model is one clear error here, not N in the workers
    if engine == "dask":
        import_distributed()

    manifest = Manifest(out)
    manifest.open()
    manifest.load()
    if manifest.unreadable:
        report(f"warning: {manifest.path}: {manifest.unreadable} unreadable lines ignored "
               "(a run killed while writing?)")
    removed = remove_orphans(out)
    if removed:
        report(f"note: removed {removed} temporary files left in {out} by an interrupted run")
    return _run(units, out, settings, manifest, force, strict, workers, engine, scheduler,
                tagger, progress, report)


def _run(units, out, settings, manifest, force, strict, workers, engine, scheduler, tagger,
         progress, report) -> BatchSummary:
    """The batch loop: skip finished inputs, process the rest on the engine, write, record."""
    from tqdm import tqdm
    summary = BatchSummary(out, settings.fmt, files=len(units))
    fingerprint = settings.fingerprint()
    inputs = {unit.path for unit in units}
    owners: dict[str, str] = {}
    bar = tqdm(total=len(units), unit="file", file=sys.stderr, disable=None if progress else True,
               desc="itdeid deid")
    started = time.perf_counter()

    def todo() -> Iterator[Unit]:
        for unit in units:
            if not force and up_to_date(unit, manifest.entries.get(unit.rel), fingerprint, out):
                summary.skipped += 1
                bar.update(1)
            else:
                yield unit

    if engine == "dask":
        results = run_dask(todo(), settings, workers, scheduler)
    elif workers > 1:
        results = run_pool(todo(), settings, workers)
    else:
        results = run_inline(todo(), settings, tagger)
    try:
        for result in results:
            _finish(result, out, settings, manifest, inputs, owners, summary, report)
            bar.update(1)
            if strict and summary.failed:
                summary.stopped = True
                break
    finally:
        results.close()
        bar.close()
        manifest.close()
    summary.left_out = summary.files - summary.done - summary.skipped - len(summary.failed)
    summary.seconds = time.perf_counter() - started
    try:
        manifest.compact()
    except OSError as error:
        report(f"warning: {manifest.path}: not compacted ({error.strerror}); it still works")
    return summary


def _finish(result: UnitResult, out: Path, settings: Settings, manifest: Manifest,
            inputs: set[str], owners: dict, summary: BatchSummary, report) -> None:
    """Report a unit's warnings, write its outputs and record it, or report its failure."""
    for message in result.warnings:
        report(f"warning: {message}")
    summary.warnings += len(result.warnings)
    if result.error is None:
        try:
            write_result(out, result, inputs, owners)
        except InputFailed as error:
            result.error = str(error)
    if result.error is not None:
        summary.failed.append((result.unit.path, result.error))
        report(f"failed: {result.unit.path}: {result.error}")
        return
    manifest.append(entry_for(result, settings))
    summary.done += 1
    summary.empty += result.empty
    summary.documents += result.documents
    summary.tokens += result.tokens
    summary.phi.update(result.phi)
