"""Memory and time of ``itdeid deid`` as the number of input files grows (issue I: folders of
millions of notes).

    python experiments/many_files.py --model DIR [--files 2000 8000 32000] [--workers 1]
                                     [--numbers-a-note 0] [--out experiments/results/many-files.md]

A folder of N one-line notes (made up here, no PHI of anyone: a clinic date and a number, in
subfolders of 1,000 files) is tagged by ``itdeid deid DIR --format jsonl`` in a child process
(pinned to one core with one worker); the table gives its wall time, files a second and peak
resident memory (the largest process of the run, from the kernel's accounting of the child and
its workers). bench.py's 1x/2x/4x copies of the PhysioNet split reach 5,688 files; a data team's
folders hold millions, and what a run keeps for every file (the list of inputs, the manifest's
entries, the outputs' owners) grows with their number while the tagging does not: the last
column is that growth, in KiB a file, against the smallest run.

Part of that growth is bounded: the tables of per-word values (:mod:`itdeid.featurize.word_table`, the
``lru_cache`` of per-word functions) keep every new word, up to 200,000 each, and each made-up
note brings one new number. ``--numbers-a-note K`` gives every note K numbers of its own, so
the caches reach their caps within a few thousand files and the peak shows what they hold
when full (``results/many-files-caps.md``).
"""
from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

import pandas as pd

from itdeid.evaluation.report import header, markdown_table

from common import make_notes, publish, run_deid, run_script


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", required=True)
    p.add_argument("--files", type=int, nargs="+", default=[2000, 8000, 32000])
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--numbers-a-note", type=int, default=0,
                   help="add this many numbers no other note holds to every note, so the word "
                        "caches reach their caps (200,000 words) within a few thousand files")
    p.add_argument("--out", default="experiments/results/many-files.md")
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    model = str(Path(args.model).resolve())
    rows = []
    for n in sorted(args.files):
        with tempfile.TemporaryDirectory(prefix="itdeid-many-") as tmp:
            folder = Path(tmp) / "notes"
            make_notes(folder, n, args.numbers_a_note)
            seconds, rss = run_deid(model, folder, Path(tmp) / "out", args.workers)
            shutil.rmtree(folder)
        print(f"{n} files: {seconds:.1f} s, {rss:.0f} MiB", file=sys.stderr)
        rows.append({"files": n, "seconds": round(seconds, 1), "files/s": round(n / seconds),
                     "peak RSS MiB": round(rss, 1)})
    first = rows[0]
    for row in rows:
        more = row["files"] - first["files"]
        row["KiB a file more than the first"] = (
            round((row["peak RSS MiB"] - first["peak RSS MiB"]) * 1024 / more, 2) if more else "")
    text = header("Many small files: itdeid deid's time and memory as their number grows")
    text += (f"- model `{args.model}`; `--workers {args.workers} --format jsonl`"
             f"{', pinned to one core' if args.workers == 1 else ''}; one-line made-up notes, "
             "1,000 a subfolder"
             + (f", each with {args.numbers_a_note} numbers no other note holds"
                if args.numbers_a_note else "") + "\n\n")
    text += markdown_table(pd.DataFrame(rows))
    publish(text, args.out)
    return 0


if __name__ == "__main__":
    run_script(main, "many_files.py")
