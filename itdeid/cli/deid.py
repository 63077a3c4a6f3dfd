"""``itdeid deid INPUT... --out DIR``: de-identify files and folders of notes (batch, resumable).

A thin layer over :func:`itdeid.batch.deidentify`, whose module documents the output layout and
what happens to bad input, and points to the modules that document the rest (inputs, the
manifest, parallelism). Exit status 0 when every input succeeded (or was already
done), 1 when any failed, 2 for a usage error.
"""
from __future__ import annotations

import sys

from itdeid.batch import DEFAULT_FORMAT, ENGINES, INPUT_FORMATS, MANIFEST_NAME, deidentify
from itdeid.document import PHI_CLASSES
from itdeid.errors import UserError, printable
from itdeid.render.outputs import FORMATS
from itdeid.estimators.vote import RULES


def add_parser(subparsers):
    p = subparsers.add_parser(
        "deid", help="de-identify files and folders of notes (batch, parallel, resumable)",
        description="De-identify every note under the inputs into --out, mirroring the input "
                    "tree. Reruns skip the inputs already done (a manifest in --out records "
                    "them), so a killed run can simply be started again. Bad files are "
                    "reported and skipped; the exit status is 1 when any failed.")
    p.add_argument("inputs", nargs="+", metavar="INPUT",
                   help="a file, a folder (read recursively, hidden files skipped) or a glob "
                        "pattern such as 'notes/**/*.txt'")
    p.add_argument("--out", required=True, metavar="DIR",
                   help="output folder (not inside an input folder, nor the folder of an input "
                        "file; one folder holds the outputs of one set of settings)")
    p.add_argument("--model", metavar="DIR", default=None,
                   help="model folder written by 'itdeid train' (default, or the word 'default': "
                        "the model installed with itdeid)")
    p.add_argument("--format", choices=FORMATS, default=DEFAULT_FORMAT,
                   help="redact: text with [**CLASS**] markers (+ offsets sidecar); surrogate: "
                        "text with realistic stand-ins (keyed); xml, jsonl, brat: NOT "
                        "de-identified, for review, never for release: xml and brat hold the "
                        "original text, jsonl the offsets of its PHI "
                        f"(default: {DEFAULT_FORMAT})")
    p.add_argument("--input-format", choices=INPUT_FORMATS, default="auto",
                   help="how to read the inputs (default: detect each file's format); a text "
                        "file that is an HTML document is converted to its text, which its "
                        "outputs hold and their offsets index (not the HTML's); RTF is refused: "
                        "convert it to text first")
    p.add_argument("--vote", choices=RULES, default=None,
                   help="vote rule of an iterative-system model (default: the model's own)")
    p.add_argument("--threshold", type=float, default=None, metavar="P",
                   help="tag a token as PHI when P(PHI) reaches P (0-1] instead of at the "
                        "model's own operating point: lower finds more PHI and redacts more "
                        "ordinary words")
    p.add_argument("--skip-pass", metavar="NAME", action="append", default=[],
                   help="turn off a pass or group of passes after the model by name, to see what "
                        "it does (repeatable; 'itdeid pipeline' lists them)")
    p.add_argument("--workers", type=int, default=None, metavar="N",
                   help="parallel worker processes (default: all cores; 1: in this process)")
    p.add_argument("--engine", choices=ENGINES, default="local",
                   help="local processes, or a Dask cluster (pip install 'itdeid[dask]')")
    p.add_argument("--scheduler", default=None, metavar="ADDR",
                   help="Dask scheduler address (default with --engine dask: a local cluster)")
    p.add_argument("--force", action="store_true",
                   help="start --out afresh: delete the outputs its manifest recorded (nothing "
                        "else) and redo every input; needed to reuse a folder written with "
                        "other settings, or to write into a folder of other files")
    p.add_argument("--strict", action="store_true", help="stop at the first failed input")
    p.add_argument("--key-file", "--surrogate-key-file", dest="key_file", default=None,
                   metavar="F",
                   help="the folder's secret key, outside --out; created (mode 0600, 32 random "
                        "bytes) if missing. It draws the --format surrogate stand-ins and the "
                        "--rename names, and in every format lets reruns recognise the inputs "
                        "already done; keep it secret (default: DIR.itdeid-key beside --out DIR)")
    p.add_argument("--rename", action="store_true",
                   help="name outputs by a keyed hash of the input's relative path, for trees "
                        "whose file or folder names hold PHI (names, MRNs, dates): no original "
                        "path appears under --out")
    p.add_argument("--rename-map", default=None, metavar="F",
                   help="with --rename: the CSV map name,path,root back to the input paths, outside "
                        "--out (default: DIR.itdeid-rename-map.csv beside --out DIR)")
    p.add_argument("--patient-regex", default=None, metavar="REGEX",
                   help="which notes belong to one patient, so surrogates agree across them: a "
                        "regex searched in each input's relative path whose group 'patient' "
                        "(else its one group) captures the patient id, e.g. '^([^/]+)/'")
    p.add_argument("--patient-map", default=None, metavar="CSV",
                   help="the same from a CSV file with columns path,patient (path relative to "
                        "the input folder); a file matching neither is its own patient")
    p.set_defaults(run=run)


def run(args) -> int:
    if args.rename_map is not None and not args.rename:
        raise UserError("--rename-map would be ignored: it names the map of --rename")
    summary = deidentify(args.inputs, args.out, model=args.model, fmt=args.format,
                         input_format=args.input_format, vote=args.vote, workers=args.workers,
                         engine=args.engine, scheduler=args.scheduler, force=args.force,
                         strict=args.strict, key_file=args.key_file, rename=args.rename,
                         rename_map=args.rename_map, patient_regex=args.patient_regex,
                         patient_map=args.patient_map, threshold=args.threshold,
                         skip_passes=args.skip_pass)
    print_summary(summary)
    return 0 if summary.ok else 1


def print_summary(summary) -> None:
    """The closing summary on stdout (counts, never note text); failures again on stderr, where
    a long progress log may have buried them."""
    print(f"{summary.done} files done, {summary.skipped} skipped (already done), "
          f"{len(summary.failed)} failed"
          + (f", {summary.empty} empty" if summary.empty else "")
          + (f", {summary.left_out} not started (--strict)" if summary.left_out else "")
          + f" of {summary.files}; outputs ({summary.fmt}) in {summary.out}")
    # a speed only after start-up (loading the model takes seconds), and only for a run long
    # enough to give one: the time alone for a few notes
    speed = summary.speed
    print(f"{summary.documents} notes, {summary.tokens} tokens in {summary.seconds:.1f} s"
          + (f"; after start-up {summary.tagging_seconds:.1f} s, {speed}" if speed else
             " (start-up included; too short a run to measure a speed)"))
    counts = ", ".join(f"{c} {summary.phi[c]}" for c in PHI_CLASSES if summary.phi[c])
    print(f"PHI spans: {sum(summary.phi.values())}" + (f" ({counts})" if counts else ""))
    if summary.model is not None:
        print(f"model: {summary.model} ({summary.digests}); threshold {summary.threshold}")
    print(f"manifest: {summary.out / MANIFEST_NAME}")
    if summary.no_phi_warning:
        print(f"warning: {summary.no_phi_warning}")
    if summary.html:
        print(f"note: {summary.html} HTML files were converted to text: their outputs hold that "
              "text and their offsets index it, not the HTML")
    if summary.key_file is not None:
        print(f"secret key: {summary.key_file} (outside --out; never ship it)")
    if summary.grouping is not None:
        grouping = summary.grouping
        print(f"patients: {grouping.patients + grouping.alone} ({grouping.patients} found by "
              f"{grouping.by} in {grouping.grouped} files, {grouping.alone} files matched none "
              "and are each their own patient)")
    if summary.rename_map is not None:
        print(f"rename map: {summary.rename_map} (the original paths; never ship it)")
    if summary.review_only:
        print(f"not de-identified: --format {summary.fmt} holds {summary.review_only}; for "
              "review, never for release")
    if summary.failed:
        renamed = " (renamed: their paths are in the rename map)" if summary.rename_map else ""
        print(f"itdeid deid: {len(summary.failed)} input(s) failed{renamed}:", file=sys.stderr)
        for path, reason in summary.failed:
            print(printable(f"  {path}: {reason}"), file=sys.stderr)
