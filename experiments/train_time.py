"""Time ``itdeid train`` on a corpus the way a user runs it: one process a configuration.

    python experiments/train_time.py ../shared/corpora/physionet-deid
        [--config default=] [--config two-step=--two-step] [--keep DIR]
        [--out experiments/results/train-time.md]

Issues G and I ask that the default recipe train on the PhysioNet dev split in at most 10 (I) or
20 (G) minutes on the 2-core machine. Each ``--config NAME=ARGS`` runs ``itdeid train CORPUS
--out DIR ARGS`` as a separate process (a configuration whose ARGS name ``--preset`` runs
``itdeid train --preset NAME --physionet CORPUS --out DIR``: issue I asks that the default
model's preset train in at most 30 minutes), timed from start to exit with its peak resident memory
(``wait4``), and the saved model's size on disk. ``--keep DIR`` keeps the model folders
(``DIR/NAME``) for the tagging benchmark (experiments/bench.py ``--model``). Run it on a quiet
machine: other work on the cores shows up in every number. A configuration with ``--device cuda``
trains xgboost on the GPU (issue I asks for the ratio when a GPU machine is lent); the report then
names the GPU and the xgboost build beside the machine.
"""
from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

from itdeid.evaluation.report import header, markdown_table

from common import publish, run_script


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("corpus", help="annotated corpus to train on")
    p.add_argument("--config", action="append", default=None, metavar="NAME=ARGS",
                   help="a configuration: its name and its extra itdeid train arguments "
                        "(default: default= and two-step=--two-step)")
    p.add_argument("--keep", default=None, help="keep each model in this folder (NAME/)")
    p.add_argument("--out", default="experiments/results/train-time.md")
    return p.parse_args(argv)


def train(corpus: str, model: Path, extra: list[str]) -> dict:
    """Wall seconds, peak RSS (MiB) and the last line of one ``itdeid train`` run."""
    source = (["--physionet", str(Path(corpus).resolve())] if "--preset" in extra
              else [str(Path(corpus).resolve())])
    command = [sys.executable, "-m", "itdeid.cli", "train", *source, "--out", str(model.resolve()), *extra]
    start = time.perf_counter()
    # outside the checkout: `python -m` would put the source tree (without its data) first
    process = subprocess.Popen(command, cwd=tempfile.gettempdir(), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    stdout, stderr = process.stdout.read(), process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"train_time: itdeid train failed: {stderr.decode(errors='replace')[-500:]}")
    size = sum(f.stat().st_size for f in model.rglob("*") if f.is_file())
    return {"seconds": seconds, "minutes": seconds / 60, "peak RSS MiB": usage.ru_maxrss / 1024,
            "model MiB": size / 2**20, "itdeid says": stdout.decode().strip().splitlines()[-1]}


def gpu_line(configs) -> str:
    """The report's GPU line when a configuration trains on one: the card(s) nvidia-smi names and
    whether the xgboost that trains was built with CUDA (empty when none asks for a GPU)."""
    if not any("--device" in extra and "cuda" in extra for _, extra in configs):
        return ""
    import xgboost
    try:
        cards = subprocess.run(["nvidia-smi", "--query-gpu=name,memory.total,driver_version",
                                "--format=csv,noheader"], capture_output=True, text=True,
                               timeout=30).stdout.strip().replace("\n", "; ") or "none found"
    except (OSError, subprocess.SubprocessError):
        cards = "nvidia-smi not found"
    cuda = "with CUDA" if xgboost.build_info().get("USE_CUDA") else "without CUDA"
    return f"- GPU: {cards}; xgboost {xgboost.__version__} built {cuda}\n"


def main(argv=None) -> int:
    args = parse_args(argv)
    configs = [c.split("=", 1) for c in (args.config or ["default=", "two-step=--two-step"])]
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(args.keep) if args.keep else Path(scratch)
        for name, extra in configs:
            print(f"training {name} ...", flush=True)
            row = {"config": name, "extra arguments": extra or "(none)"}
            row.update(train(args.corpus, root / name, shlex.split(extra)))
            rows.append(row)
            print(f"  {row['seconds']:.0f} s", flush=True)
    text = (header("itdeid train: wall time, memory and model size")
            + gpu_line(configs)
            + f"- corpus: `{args.corpus}`\n- cores: {len(os.sched_getaffinity(0))} (xgboost uses all of "
              "them unless a configuration's `--n-jobs` says otherwise)\n\n"
            + "Each configuration is `itdeid train CORPUS --out DIR` plus its extra arguments, one "
              "process, timed from start to exit (reading, training, saving).\n\n"
            + markdown_table(pd.DataFrame(rows), floatfmt=".1f") + "\n")
    publish(text, args.out)
    return 0


if __name__ == "__main__":
    run_script(main, "train_time.py")
