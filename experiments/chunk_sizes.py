"""How many files a chunk of ``itdeid deid`` should hold: the notes tagged a chunk at a time with
each chunk size, each run a fresh process on one core, sizes turn about.

    OMP_NUM_THREADS=1 taskset -c 0 python experiments/chunk_sizes.py \\
        --corpus ../shared/corpora/physionet-deid --model DIR [--sizes 64 178] [--rounds 5] \\
        [--out experiments/results/chunk-sizes.md]

A batch run tags its files a chunk at a time (:data:`itdeid.batch.engines.CHUNK_FILES` files at
most, fewer where a worker would get under :data:`~itdeid.batch.engines.CHUNKS_A_WORKER`
chunks): the notes of a chunk share their tagging calls, so a bigger chunk pays the work done
once a call (the later members' and the stage's tree calls on the few tokens the screen passes,
where xgboost's time a row is highest for small calls; each distinct word of the call looked
up) fewer times, and holds more notes in memory.

Each run is a child process that loads the model and warms it as a batch worker does
(:func:`itdeid.batch.settings.load_tagger`: :mod:`itdeid.estimators.warm_start`'s warm-up note with
the collector held off, then a freeze), then tags
the corpus's notes in order, ``size`` notes a call, through
:func:`itdeid.batch.tagging.tag_notes` (what a chunk of one-note files costs the worker), and
reports the tagging's seconds, its peak resident memory (``VmHWM``) and a digest of the spans.
The word tables start empty in every run, as in a fresh ``itdeid deid``. Reading and writing
files is left out: it does not depend on the chunk size, and on this project's machines the
file system's time varies by more than the difference measured here (a whole ``itdeid deid``
run is bench.py's). Sizes take turns ``--rounds`` times; the table gives each size's fastest
and median run.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

import pandas as pd

from itdeid.evaluation.report import header, markdown_table

from common import publish, run_script

#: What the child runs: ``corpus model size``.
CHILD = r"""
import hashlib, json, sys, time
from itdeid.estimators.warm_start import starting, warm_up
from itdeid.batch.tagging import tag_notes
from itdeid.model_folder.load import load_model
from itdeid.formats import read_corpus
corpus, model_dir, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
with starting(False):
    model = load_model(model_dir)
    warm_up(model)
documents = read_corpus(corpus)
digest, tokens = hashlib.sha256(), 0
start = time.perf_counter()
for i in range(0, len(documents), size):
    spans, counts = tag_notes(model, documents[i:i + size])
    tokens += sum(counts)
    for found in spans:
        digest.update(repr([(s.start, s.end, s.type) for s in found]).encode())
seconds = time.perf_counter() - start
peak = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM"))
print(json.dumps({"seconds": seconds, "tokens": tokens, "peak_mib": peak / 1024,
                  "spans": digest.hexdigest()[:16]}))
"""


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--corpus", required=True)
    p.add_argument("--model", required=True)
    p.add_argument("--sizes", type=int, nargs="+", default=[64, 178])
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--out", default="experiments/results/chunk-sizes.md")
    return p.parse_args(argv)


def run(corpus: str, model: str, size: int) -> dict:
    """One child process tagging the corpus ``size`` notes a call."""
    done = subprocess.run([sys.executable, "-c", CHILD, corpus, model, str(size)],
                          capture_output=True, text=True, env={**os.environ, "OMP_NUM_THREADS": "1"})
    if done.returncode != 0:
        sys.exit(f"chunk_sizes.py: the child failed: {done.stderr[-500:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    args = parse_args(argv)
    runs: dict[int, list[dict]] = {size: [] for size in args.sizes}
    for _ in range(args.rounds):
        for size in args.sizes:
            got = run(args.corpus, str(Path(args.model).resolve()), size)
            print(f"{size} notes a call: {got['seconds']:.2f} s, {got['peak_mib']:.0f} MiB",
                  file=sys.stderr)
            runs[size].append(got)
    tokens = runs[args.sizes[0]][0]["tokens"]
    rows = []
    for size in args.sizes:
        seconds = [r["seconds"] for r in runs[size]]
        rows.append({"notes a call": size, "fastest s": round(min(seconds), 2),
                     "median s": round(statistics.median(seconds), 2),
                     "tokens/s (fastest)": round(tokens / min(seconds)),
                     "peak RSS MiB": round(max(r["peak_mib"] for r in runs[size]), 1),
                     "spans": ", ".join(sorted({r["spans"] for r in runs[size]}))})
    same = len({r["spans"] for each in runs.values() for r in each}) == 1
    text = header("Chunk sizes: the notes tagged a chunk at a time, one core")
    text += (f"- corpus: `{args.corpus}`, {tokens} tokens; model `{args.model}`\n"
             f"- {args.rounds} rounds, sizes in turn, each run a fresh process (word tables "
             f"empty, the model warmed and frozen as a batch worker does); tagging only\n"
             f"- the same spans from every size: {'yes' if same else 'NO'}\n\n")
    text += markdown_table(pd.DataFrame(rows))
    publish(text, args.out)
    return 0


if __name__ == "__main__":
    run_script(main, "chunk_sizes.py")
