"""What ``itdeid deid`` keeps for every input file: Python's own allocations, line by line, as
the number of files grows (issue I: folders of millions of notes).

    python experiments/file_memory.py --model DIR [--files 2000 6000] [--top 20]
                                      [--out experiments/results/file-memory.md]

:mod:`many_files` measures a run's peak resident memory; this says where the growth is. Two
folders of one-line made-up notes (``many_files.make_notes``: a date and a number of their
own) are de-identified in this process, one after the other (``--workers 1 --format jsonl``),
under :mod:`tracemalloc`; just before the manifest is compacted at the end of each run the
live allocations are taken, and the table gives the difference between the two runs in bytes
a file, by the innermost line of itdeid that made them (``word_table.py:63``). Word caches
(:mod:`itdeid.featurize.word_table`, the ``lru_cache`` of per-word functions) grow here with the new
number of every note up to their caps (``results/many-files-caps.md``); the rest grows with
the files and nothing bounds it. The process is slower under tracemalloc; its times mean
nothing.
"""
from __future__ import annotations

import argparse
import gc
import tempfile
import tracemalloc
from collections import Counter
from pathlib import Path

import pandas as pd

from itdeid.evaluation.report import header, markdown_table

from common import make_notes, publish, run_script


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", required=True)
    p.add_argument("--files", type=int, nargs=2, default=[2000, 6000])
    p.add_argument("--top", type=int, default=20, help="lines shown (the rest summed)")
    p.add_argument("--out", default="experiments/results/file-memory.md")
    return p.parse_args(argv)


def snapshot_at_the_end(model: str, n: int) -> tracemalloc.Snapshot:
    """The live allocations of a run over ``n`` files, taken before its manifest is compacted."""
    import itdeid.batch as batch
    from itdeid.batch import manifest
    taken = []
    compact = manifest.Manifest.compact

    def take_then_compact(self):
        gc.collect()
        taken.append(tracemalloc.take_snapshot())
        return compact(self)

    with tempfile.TemporaryDirectory(prefix="itdeid-memory-") as tmp:
        make_notes(Path(tmp) / "notes", n)
        manifest.Manifest.compact = take_then_compact
        try:
            batch.deidentify([str(Path(tmp) / "notes")], Path(tmp) / "out", model=model,
                             fmt="jsonl", workers=1, progress=False, report=lambda message: None)
        finally:
            manifest.Manifest.compact = compact
    return taken[0]


def where(trace) -> str:
    """The innermost line of itdeid in a traceback (else its innermost line)."""
    ours = [frame for frame in trace if "/itdeid/" in frame.filename]
    frame = ours[-1] if ours else trace[-1]
    name = frame.filename.split("/itdeid/")[-1] if ours else Path(frame.filename).name
    return f"{name}:{frame.lineno}"


def main(argv=None) -> int:
    args = parse_args(argv)
    model = str(Path(args.model).resolve())
    small, large = sorted(args.files)
    tracemalloc.start(25)
    first = snapshot_at_the_end(model, small)
    second = snapshot_at_the_end(model, large)
    tracemalloc.stop()
    grown = Counter()
    for stat in second.compare_to(first, "traceback"):
        grown[where(stat.traceback)] += stat.size_diff
    more = large - small
    rows = [{"line": line, "bytes a file": round(size / more, 1)}
            for line, size in grown.most_common(args.top)]
    rest = sum(grown.values()) - sum(size for _, size in grown.most_common(args.top))
    rows += [{"line": "(the other lines)", "bytes a file": round(rest / more, 1)},
             {"line": "all", "bytes a file": round(sum(grown.values()) / more, 1)}]
    text = header("What itdeid deid keeps for every input file (tracemalloc)")
    text += (f"- model `{args.model}`; {small:,} against {large:,} one-line made-up notes "
             "(experiments/many_files.py's), one process, `--format jsonl`; allocations live "
             "before the manifest is compacted, the second run's less the first's, by the "
             "innermost line of itdeid that made them\n")
    text += ("- a line can show a block that moved between two places (a dict's table grown "
             "in one run where the other grew it elsewhere): such pairs cancel in 'all'\n\n")
    text += markdown_table(pd.DataFrame(rows))
    publish(text, args.out)
    return 0


if __name__ == "__main__":
    run_script(main, "file_memory.py")
