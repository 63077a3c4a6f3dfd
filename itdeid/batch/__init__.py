"""Batch de-identification: a tree of notes in, a tree of de-identified notes out, resumably.

:func:`deidentify` is what ``itdeid deid`` runs; it can be called from Python the same way. This
module runs the batch; each part is described in the module that implements it:

* :mod:`itdeid.batch.inputs`: which files are inputs (files, folders, glob patterns), their names in
  the output tree, the layouts refused, and how each file is read (formats, encodings, binary
  and empty files).
* :mod:`itdeid.batch.settings`: the model, the secret key (surrogates, ``--rename``) and the
  settings that outputs depend on (one set a folder).
* :mod:`itdeid.batch.patients`: which files belong to one patient (``--patient-regex``,
  ``--patient-map``); :mod:`itdeid.batch.rename`: outputs named by a keyed hash.
* :mod:`itdeid.batch.unit`: one input read, tagged and rendered, in a worker;
  :mod:`itdeid.batch.tagging`: long notes tagged in pieces, so memory stays bounded
  (:mod:`itdeid.text.pieces`).
* :mod:`itdeid.batch.progress`: progress on stderr in bytes of input, moving within a long file: a
  bar on a terminal, a line every 30 seconds otherwise (never note text nor file names).
* :mod:`itdeid.batch.engines`: where inputs are processed (this process, a process pool, Dask).
* :mod:`itdeid.batch.manifest`: the manifest that makes a rerun skip the inputs already done;
  :mod:`itdeid.batch.run_record`: a line a run, with its failures, for ``itdeid report``;
  :mod:`itdeid.batch.files`: atomic writing, hashes and fingerprints, below all the others.

Output layout (``OUT`` is ``--out``; ``STEM`` the relative path without its ``.txt``, ``.xml``,
``.text`` or ``.zip``; suffixes as :func:`itdeid.render.outputs.render` gives them)::

    one note a file     OUT/STEM<suffix>                e.g. OUT/ward/note1.txt + .redact.jsonl
    several notes       --format jsonl: OUT/STEM.jsonl  (the spans of all its notes, in order)
                        other formats:  OUT/STEM/<note id><suffix>   e.g. OUT/id/1-1.txt
    bookkeeping         OUT/.itdeid-manifest.jsonl, OUT/.itdeid-runs.jsonl (a line a run)
    secret key          beside OUT, never in it: OUT.itdeid-key (or --key-file)
    --rename            OUT/<keyed hash><suffix> instead of OUT/STEM<suffix>; the map back beside
                        OUT: OUT.itdeid-rename-map.csv (or --rename-map)

The run is refused (:class:`~itdeid.errors.UserError`) before anything is processed when ``OUT``
is an input folder or lies inside one (or inside the folder of an input file), when an input
file lies inside ``OUT``, when two inputs would get the same ``STEM``, or when ``OUT`` holds
outputs of other settings (format, model, vote, key...; ``force`` deletes the outputs its
manifest recorded and starts it afresh); every output path is checked again before it is
written. A folder below an input folder that holds an itdeid manifest is an output folder,
never read as notes, nor are the default key and rename map files (a note names them).

Only ``redact`` and ``surrogate`` are de-identified text: ``xml``, ``jsonl`` and ``brat``
describe the original notes (xml and brat hold their text), for review, never for release. A
run whose model finds no PHI at all in :data:`NO_PHI_WARNING_NOTES` or more notes warns.

Bad input never stops the batch (unless ``strict``): an unreadable, binary or malformed file, an
output that cannot be written, is reported on stderr with its path and the reason, and counted as
failed; the others are processed. Messages, warnings and the summary name files (with
``rename`` by their hashed names, :func:`shown_name`), note ids and offsets, never note text;
an unexpected error is reported by its type and where it happened, without its message (which
could quote text).
"""
from __future__ import annotations

import os
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator

from itdeid.model_folder import model_digests
from itdeid.batch.files import make_private_folders
from itdeid.batch.engines import (ENGINES, chunk_files, import_distributed, run_dask, run_inline,
                                  run_pool)
from itdeid.errors import UserError, printable
from itdeid.batch import run_record
from itdeid.batch.inputs import (INPUT_FORMATS, InputFailed, Unit, check_layout, expand_inputs,
                                 unique_units, without_itdeid_files, without_span_files)
from itdeid.batch.manifest import (MANIFEST_NAME, Manifest, entry_for, other_root, remove_orphans,
                                   up_to_date, write_result)
from itdeid.model_folder.model_files import threshold_described
from itdeid.pipeline import check_skip
from itdeid.render.outputs import FORMATS
from itdeid.batch.progress import Progress
from itdeid.batch.unit import UnitResult, process_unit
from itdeid.batch.patients import Grouping, group
from itdeid.batch.rename import (MAP_SUFFIX, looks_like_phi, map_path, renamed, without_note_ids,
                                 write_map)
from itdeid.batch.settings import (KEY_SUFFIX, REVIEW_FORMATS, Settings, differences,
                                   key_path, load_or_create_key, load_tagger, model_fingerprint,
                                   resolve_model_dir)

# The batch API, kept importable from here for the command line and for callers from Python.
__all__ = ["BatchSummary", "DEFAULT_FORMAT", "ENGINES", "INPUT_FORMATS", "KEY_SUFFIX",
           "MANIFEST_NAME", "Settings", "Unit", "UnitResult", "UserError", "deidentify",
           "expand_inputs", "process_unit"]

#: Default output format: de-identified text that needs no secret key.
DEFAULT_FORMAT = "redact"
#: A run that finds no PHI at all in this many notes (with text) warns: real notes nearly
#: always hold some, so the model is probably wrong (or not the one meant).
NO_PHI_WARNING_NOTES = 20
#: A run that tags for fewer seconds than this after start-up (loading the model) gives no
#: speed: over a few notes the rate says more about the clock than about the tagger.
MIN_RATE_SECONDS = 5.0


def _stderr(message: str) -> None:
    """Print a message on stderr without breaking the progress bar."""
    from tqdm import tqdm
    tqdm.write(printable(message), file=sys.stderr)


@dataclass
class BatchSummary:
    """What a batch did; ``failed`` lists (input path, reason), an input named by its hashed
    name under ``rename`` (:func:`shown_name`)."""

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
    #: the whole run's seconds, and those after start-up: from when the first chunk of notes
    #: began to be tagged, its model loaded, to the end
    seconds: float = 0.0
    tagging_seconds: float = 0.0
    stopped: bool = False
    left_out: int = 0
    key_file: Path | None = None
    rename_map: Path | None = None
    grouping: Grouping | None = None
    #: notes of multi-note files whose ids look like PHI, written under them (no ``--rename``)
    named_notes: int = 0
    #: text files that were HTML documents, converted to their text
    html: int = 0
    #: the model folder, what its digests check found and the threshold it tagged at, for the
    #: summary (a model whose digests were deleted and threshold edited ran without a word)
    model: Path | None = None
    digests: str = ""
    threshold: str = ""

    @property
    def no_phi_warning(self) -> str | None:
        """A warning when the notes processed found no PHI at all though there were enough of
        them (:data:`NO_PHI_WARNING_NOTES`) to expect some; else None."""
        notes = self.documents - self.empty
        if notes < NO_PHI_WARNING_NOTES or sum(self.phi.values()):
            return None
        return (f"the model found no PHI at all in {notes} notes: it may be wrong or the wrong "
                "model (--model); check the outputs before using them")

    @property
    def review_only(self) -> str | None:
        """What of the original notes the outputs hold, for a format that is not
        de-identified text (then they are for review, never for release); else None."""
        return REVIEW_FORMATS.get(self.fmt)

    @property
    def notes_per_second(self) -> float:
        return self.documents / self.seconds if self.seconds > 0 else 0.0

    @property
    def speed(self) -> str | None:
        """Tokens and notes a second after start-up, for a run that tagged for
        :data:`MIN_RATE_SECONDS` or more after it; else None (a short run's rate, with the
        model's loading in it, was a small fraction of the tagger's speed)."""
        if self.tagging_seconds <= 0 or self.tagging_seconds < MIN_RATE_SECONDS:
            return None
        return (f"{self.tokens / self.tagging_seconds:,.0f} tokens/s, "
                f"{self.documents / self.tagging_seconds:,.3g} notes/s")

    @property
    def ok(self) -> bool:
        return not self.failed and not self.stopped


def _check_options(fmt, input_format, vote, workers, engine, scheduler) -> None:
    from itdeid.estimators.vote import RULES
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


def _prepare_out(out: Path, force: bool) -> None:
    """``out`` made ready: a folder, new, empty or written by itdeid (it holds the manifest),
    or any folder with ``force``. Outputs replace files of the same names, so a folder of
    other files (the notes of another run, someone's work) is refused rather than overwritten."""
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {out} is a file, not a folder")
    if out.is_dir() and not force and not (out / MANIFEST_NAME).exists():
        try:
            others = sum(1 for entry in os.scandir(out) if not entry.name.startswith("."))
        except OSError as error:
            raise UserError(f"cannot read --out {out}: {error.strerror}") from None
        if others:
            raise UserError(f"--out {out} holds {others} "
                            + ("entry" if others == 1 else "entries") + " that no itdeid run wrote (no "
                            f"{MANIFEST_NAME}): give a new or empty folder, or --force to write "
                            "into it (outputs replace files of the same names)")
    try:
        make_private_folders(out)
    except OSError as error:
        raise UserError(f"cannot create --out {out}: {error.strerror}") from None


def deidentify(inputs: Iterable[str], out, model=None, fmt: str = DEFAULT_FORMAT,
               input_format: str = "auto", vote: str | None = None, workers: int | None = None,
               engine: str = "local", scheduler: str | None = None, force: bool = False,
               strict: bool = False, key_file=None, rename: bool = False, rename_map=None,
               patient_regex: str | None = None, patient_map=None, threshold: float | None = None,
               skip_passes: Iterable[str] = (), progress: bool = True,
               report: Callable[[str], None] = _stderr) -> BatchSummary:
    """De-identify every input file into ``out`` (see the module docstring for the layout,
    the manifest, bad input and parallelism, and the modules it points to); returns what was
    done.

    ``key_file`` is the folder's secret key (default: ``OUT.itdeid-key`` beside ``out``; see
    :mod:`itdeid.batch.settings`): the surrogates and ``rename`` are keyed by it, and in every
    format the manifest's digests of the inputs. ``force`` redoes every input, and starts a
    folder written under other settings afresh (else it is refused).

    ``skip_passes`` turns passes or pass groups of :mod:`itdeid.pipeline` off by name.

    ``progress`` shows progress on stderr (:mod:`itdeid.batch.progress`). ``report`` receives every
    message for the user (warnings, failures, notes; stderr by default): they name files, note
    ids and offsets, never note text. Usage problems (bad options, a missing input or model, a
    refused layout or folder) raise :class:`UserError` before any input is processed.
    """
    began = time.perf_counter()
    inputs = list(inputs)
    _check_options(fmt, input_format, vote, workers, engine, scheduler)
    if threshold is not None and not (isinstance(threshold, (int, float)) and 0 < threshold <= 1):
        raise UserError(f"--threshold must be in (0, 1], got {threshold}")
    try:
        skip_passes = tuple(sorted(check_skip(skip_passes)))
    except ValueError as error:
        raise UserError(f"--skip-pass: {error}") from None
    out = Path(out).resolve()
    model_dir = resolve_model_dir(model)
    units, roots = expand_inputs(inputs)
    units, left_out = without_itdeid_files(units, MANIFEST_NAME, (KEY_SUFFIX, MAP_SUFFIX),
                                           [f for f in (key_file, rename_map, patient_map) if f is not None])
    for path in left_out:
        what = (f"an itdeid output folder (it holds {MANIFEST_NAME})" if path.is_dir()
                else "an itdeid key, rename map or patient map")
        report(f"note: skipped {path}: {what}, not notes")
    units, span_files = without_span_files(units)
    if span_files:
        shown = "" if rename else ": " + ", ".join(u.path for u in span_files[:3]) + (
            ", ..." if len(span_files) > 3 else "")
        report(f"note: skipped {len(span_files)} span files (.ann, .jsonl), not notes{shown}")
    if not units:
        raise UserError("no input files found outside itdeid output folders in "
                        + ", ".join(map(str, inputs)))
    check_layout(units, roots, out, renaming=rename)
    units, grouping = group(unique_units(units), patient_regex, patient_map)
    if not rename:
        _warn_of_named_paths(units, report)
    if grouping is not None and fmt != "surrogate":
        report(f"note: {grouping.by} only changes --format surrogate outputs")
    if grouping is not None and grouping.unmatched and grouping.alone:
        # rows of another tree are allowed, but with files left ungrouped a path may be mistyped
        lines = ", ".join(map(str, grouping.unmatched[:5])) + (", ..." if len(grouping.unmatched) > 5 else "")
        report(f"warning: --patient-map {patient_map}: {len(grouping.unmatched)} rows name no input of "
               f"this run (lines {lines}) while {grouping.alone} files matched no row; paths are "
               "relative to the input folder, as the output tree names them")
    keyed = fmt == "surrogate" or rename     # outputs that depend on the key
    if rename_map is not None and not rename:
        report("warning: --rename-map is ignored without --rename")
    where_key = key_path(out, key_file)
    where_map = map_path(out, rename_map) if rename else None
    _prepare_out(out, force)

    is_system = (model_dir / "deidentifier.json").is_file()
    if vote is not None and not is_system:
        report(f"warning: --vote {vote} is ignored: {model_dir} is not an iterative-system model "
               "(itdeid train --system), the only kind that votes")
        vote = None
    matched = model_digests.check(model_dir)       # a damaged copy is refused before any worker starts
    if matched is None:
        report(f"warning: {model_digests.not_checked(model_dir)}")
    model_sha256 = model_fingerprint(model_dir)
    workers = min(workers or os.cpu_count() or 1, len(units))
    if engine == "dask":
        import_distributed()

    manifest = Manifest(out)
    manifest.open()         # the folder's lock, held until the run ends
    created = False
    try:
        manifest.load()
        if manifest.unreadable:
            report(f"warning: {manifest.path}: {manifest.unreadable} unreadable lines ignored "
                   "(a run killed while writing?)")
        _check_key_present(manifest, where_key, force, out)
        key, created = load_or_create_key(where_key)
        settings = Settings(str(model_dir), model_sha256, fmt, input_format, vote,
                            key if keyed else None, rename, threshold, skip_passes, digest_key=key)
        _check_same_settings(manifest, settings, force, out, report)
        if rename:
            units = renamed(units, key)
            write_map(where_map, units)
        # a pool's workers load the model themselves, and a bad one ends the run with its
        # one message from the first chunk (engines._init_worker)
        tagger = load_tagger(settings, alone=True) if engine == "local" and workers == 1 else None
        removed = remove_orphans(out)
    except BaseException:
        manifest.close()
        if created:
            where_key.unlink()      # nothing was written with it
        raise
    if created and keyed:
        report(f"note: wrote a new secret key to {where_key} (mode 0600), outside --out. Keep "
               "it secret and never ship it with the outputs (it undoes the date shifts and "
               "confirms guessed file names); reruns read it to give the same outputs.")
    elif created:
        report(f"note: wrote a new secret key to {where_key} (mode 0600), outside --out: "
               "reruns read it to recognise the inputs already done, and without it the "
               "manifest could confirm a guess of a note's text. Keep it secret and never ship "
               "it with the outputs.")
    else:
        if keyed:
            report(f"note: using the secret key {where_key}; never ship it with the outputs")
        mode = where_key.stat().st_mode & 0o777
        if os.name == "posix" and mode & 0o077:
            report(f"warning: {where_key}: the secret key is readable by others (mode "
                   f"{mode:o}); chmod 600 it")
    if removed:
        report(f"note: removed {removed} temporary files left in {out} by an interrupted run")
    described = (model_dir, model_digests.described(matched), threshold_described(model_dir, threshold))
    summary = _run(units, out, settings, manifest, force, strict, workers, engine, scheduler,
                   tagger, progress, report, described)
    summary.key_file, summary.rename_map, summary.grouping = where_key, where_map, grouping
    summary.seconds = time.perf_counter() - began        # the model's loading included
    summary.model, summary.digests, summary.threshold = described
    return summary


def _warn_of_named_paths(units: list[Unit], report) -> None:
    """Warn when input paths look like they hold PHI (:func:`~itdeid.batch.rename.looks_like_phi`)
    while they are copied into ``OUT``: 'Halvorsen_Ingrid_MRN1234567/2019-03-14.txt' went into
    the output names, the manifest and the ``doc`` fields without a word. Counted, never
    printed: the names are the PHI."""
    named = sum(1 for unit in units if looks_like_phi(unit.rel))
    if named:
        report(f"warning: {named} of {len(units)} input paths look like they hold PHI (a "
               "number of MRN length, a date or a person's name); without --rename they are "
               "copied into the output paths, the manifest and the outputs' doc fields: rerun "
               "with --rename (into a new --out, or with --force) if they do")


def _named_notes_warning(count: int) -> str:
    """The warning for ``count`` notes of multi-note files whose ids look like PHI (i2b2
    ``RECORD ID="MRN1234567"``, PhysioNet patient numbers of MRN length, zip members' names):
    without ``--rename`` each id names an output file and fills its ``doc`` fields."""
    return (f"{count} notes of files of several notes have ids that look like they hold PHI (a "
            "number of MRN length, a date or a person's name); without --rename they name the "
            "notes' output files and fill the outputs' doc fields: rerun with --rename (into a "
            "new --out, or with --force) if they do")


def _check_key_present(manifest: Manifest, where_key: Path, force: bool, out: Path) -> None:
    """Refuse to draw a new key for a folder whose outputs were keyed by one that is gone: its
    notes would mix two sets of surrogates, and the manifest's digests and input folders could
    not be checked."""
    keyed = any((entry.get("settings") or {}).get("key") for entry in manifest.latest())
    if keyed and not force and not where_key.exists():
        raise UserError(f"--out {out} holds outputs written with a secret key that is not at "
                        f"{where_key}: pass it with --key-file, or --force to delete those "
                        "outputs and start afresh with a new key")


def _check_same_settings(manifest: Manifest, settings: Settings, force: bool, out: Path,
                         report) -> None:
    """One folder holds the outputs of one set of settings: refuse a folder written under
    others (naming what differs); ``force`` starts it afresh instead, deleting the outputs its
    manifest recorded (and nothing else)."""
    others = manifest.other_settings(settings.fingerprint())
    if others and not force:
        differ = sorted({d for old in others for d in differences(old, settings.fingerprint())})
        raise UserError(f"--out {out} holds outputs written with other settings ("
                        + "; ".join(differ) + "); one folder must not mix them (it could mix "
                        "de-identified notes with original text): use another --out, or "
                        "--force to delete its recorded outputs and start it afresh")
    if force and len(manifest):
        removed = manifest.start_afresh(out)
        report(f"note: --force: deleted the {removed} outputs recorded in {manifest.path} "
               "(nothing else) and started the folder afresh")


def _run(units, out, settings, manifest, force, strict, workers, engine, scheduler, tagger,
         progress, report, described) -> BatchSummary:
    """The batch loop: skip finished inputs, process the rest on the engine, write, record;
    at the end, the run's record (:mod:`itdeid.batch.run_record`; ``described``: the model
    folder, its digests check and threshold, as words) while the folder is still locked.
    Progress is counted in bytes of input, moving within a file as its notes are tagged
    (:mod:`itdeid.batch.progress`: a bar on a terminal, a line now and then in a log)."""
    summary = BatchSummary(out, settings.fmt, files=len(units))
    inputs = {unit.path for unit in units}
    owners: dict[str, str] = {}
    sizes = {unit.path: _size(unit) for unit in units}
    shown = Progress(sum(sizes.values()), "itdeid deid", unit="B", items=len(units),
                     item_name="files", enabled=progress)
    first_tagged = None

    def todo() -> Iterator[Unit]:
        for unit in units:
            entry = manifest.entry(unit.name)
            if not force and up_to_date(unit, entry, settings, out):
                summary.skipped += 1      # the same content, wherever it now lies (a moved folder)
                shown.done(sizes[unit.path])
            elif not force and other_root(unit, entry, settings):
                _finish(UnitResult(unit, error=f"--out {out} holds the outputs of another input of "
                                   "this name, from another input folder; give another --out (or "
                                   "--force to start it afresh)"), out, settings, manifest, inputs,
                        owners, summary, report)
                shown.done(sizes[unit.path])
            else:
                yield unit

    max_files = chunk_files(len(units), workers)
    if engine == "dask":
        results = run_dask(todo(), settings, workers, scheduler, max_files)
    elif workers > 1:
        results = run_pool(todo(), settings, workers, shown, max_files)
    else:
        results = run_inline(todo(), settings, tagger, shown, max_files)
    ended, not_compacted = False, None
    try:
        for result in results:
            if result.started is not None:
                first_tagged = min(first_tagged or result.started, result.started)
            _finish(result, out, settings, manifest, inputs, owners, summary, report)
            shown.done(sizes[result.unit.path])
            if strict and summary.failed:
                summary.stopped = True
                break
        ended = True
    finally:
        results.close()
        shown.close()
        try:
            run_record.append(out, run_record.record(summary, settings, *described, ended=ended))
        except OSError as error:
            report(f"warning: {out / run_record.RECORD_NAME}: the run's record was not written "
                   f"({error.strerror}); itdeid report will not know this run's failures")
        if ended:
            not_compacted = manifest.finish()
        else:
            manifest.close()
    summary.left_out = summary.files - summary.done - summary.skipped - len(summary.failed)
    if first_tagged is not None:
        summary.tagging_seconds = max(0.0, time.time() - first_tagged)
    if summary.no_phi_warning:
        report(f"warning: {summary.no_phi_warning}")
    if summary.named_notes:
        report(f"warning: {_named_notes_warning(summary.named_notes)}")
    if not_compacted is not None:
        report(f"warning: {manifest.path}: not compacted ({not_compacted.strerror}); it still works")
    return summary


def _size(unit: Unit) -> int:
    """The bytes of an input file, for progress (0 when it cannot be sized: it fails later)."""
    try:
        return os.stat(unit.path).st_size
    except OSError:
        return 0


def shown_name(unit: Unit) -> str:
    """How messages name an input: its path, or with ``--rename`` its hashed name, which the
    rename map leads back from. Renaming says the paths hold PHI, and a run's log travels
    further than its outputs' names (a scheduler's job log, a ticket): 'failed:
    notes/Halvorsen_Ingrid_MRN0091823.txt' printed the name that --rename kept out of OUT."""
    return f"{unit.renamed} (renamed)" if unit.renamed else unit.path


def _without_path(message: str, unit: Unit) -> str:
    """``message`` with the input's path and relative path put as :func:`shown_name` puts
    them, and the names of a zip's members as their places in the archive ('#2'), since
    --rename numbers them too (a warning or a reason names the file it is about, and a zip's
    reasons the member: 'member Lindqvist_Greta.xml unpacks to more than ...'), and without the
    note ids the readers name (:func:`~itdeid.batch.rename.without_note_ids`)."""
    if not unit.renamed:
        return message
    for number, member in sorted(_zip_members(unit.path), key=lambda m: -len(m[1])):
        message = message.replace(member, f"#{number}")
    message = message.replace(unit.path, unit.renamed)
    return without_note_ids(message.replace(unit.rel, unit.renamed))


def _zip_members(path: str) -> list[tuple[int, str]]:
    """(place, name) of each member of the zip at ``path``, none if it is no readable zip.
    Opened as the readers open it (:func:`~itdeid.formats.zips.open_zip`): a FIFO, say, is
    refused unopened, where opening it here to word its failure waited forever."""
    import zipfile

    from itdeid.formats.zips import open_zip
    try:
        with open_zip(path) as archive:
            return list(enumerate(archive.namelist(), 1))
    except (OSError, zipfile.BadZipFile, ValueError, UserError):
        return []


def _finish(result: UnitResult, out: Path, settings: Settings, manifest: Manifest,
            inputs: set[str], owners: dict, summary: BatchSummary, report) -> None:
    """Report a unit's warnings, write its outputs and record it, or report its failure."""
    for message in result.warnings:
        report(f"warning: {_without_path(message, result.unit)}")
    summary.warnings += len(result.warnings)
    if result.error is None:
        try:
            write_result(out, result, inputs, owners, sync=not manifest.group_sync)
        except InputFailed as error:
            result.error = str(error)
    if result.error is not None:
        reason = _without_path(result.error, result.unit)
        summary.failed.append((shown_name(result.unit), reason))
        report(f"failed: {shown_name(result.unit)}: {reason}")
        return
    manifest.append(entry_for(result, settings))
    summary.done += 1
    summary.empty += result.empty
    summary.documents += result.documents
    summary.named_notes += result.named_notes
    summary.html += result.read_as == "html"
    summary.tokens += result.tokens
    summary.phi.update(result.phi)
