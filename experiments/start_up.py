"""How long a user waits for one short note: ``itdeid deid`` and ``itdeid tag`` on a one-line
note, for two versions of the code, turn about.

    python experiments/start_up.py --model itdeid/models/default --rev OLD_COMMIT [--rev NEW]
        [--rounds 5] [--out experiments/results/start-up.md]

Start-up is what a data team tagging notes one at a time pays on every note, and what a batch
pays once a worker: imports (scikit-learn and xgboost), the model, and what each process builds
on its first note (the templates' Hyperscan databases, word tables, the misspelling index;
:mod:`itdeid.estimators.warm_start`). Each ``--rev`` (a commit; with one, the working tree is the new code)
is checked out into a temporary git worktree as ``bench_code.py`` does, and each command runs
as its own process with that checkout first on ``PYTHONPATH``, once pinned to one core
(``taskset -c 0``) and once free to use every core the machine has; versions take turns,
``--rounds`` times. The table gives the fastest and the median wall time of each. The machines
here drift by a third within an hour, so compare only versions measured in one run.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

from itdeid.estimators import warm_start
from itdeid.evaluation.report import header, markdown_table

from common import checkout, git_name, publish, run_script

ROOT = Path(__file__).resolve().parents[1]

NOTE = "Seen by Dr. Smith on 3/4/2005 at Mercy Hospital.\n"


def command(which: str, model: Path, work: Path) -> list[str]:
    """The user's command on the one-note input in ``work`` (its outputs cleared first)."""
    out = work / ("out" if which == "deid" else "out.jsonl")
    if out.is_dir():
        shutil.rmtree(out)
    elif out.exists():
        out.unlink()
    if which == "deid":
        return [sys.executable, "-m", "itdeid.cli", "deid", str(work / "one"), "--out", str(out),
                "--model", str(model), "--workers", "1", "--format", "jsonl"]
    return [sys.executable, "-m", "itdeid.cli", "tag", str(model), str(work / "one" / "note.txt"),
            "--out", str(out)]


def timed(argv: list[str], code_root: Path, one_core: bool) -> float:
    """Wall seconds of one run of ``argv`` with ``code_root`` first on the path."""
    taskset = shutil.which("taskset")
    if one_core and taskset:
        argv = [taskset, "-c", "0", *argv]
    env = dict(os.environ, PYTHONPATH=str(code_root), OMP_NUM_THREADS="1")
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=tempfile.gettempdir(), capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"start_up: {argv[3:5]} of {code_root} failed: {done.stderr[-800:]}")
    return seconds


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True, help="a model folder both versions can load")
    ap.add_argument("--rev", action="append", default=[], help="a commit (give one or two)")
    ap.add_argument("--commands", nargs="+", choices=["deid", "tag"], default=["deid", "tag"])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    if not 1 <= len(args.rev) <= 2:
        ap.error("give --rev OLD, or --rev OLD --rev NEW")
    model = Path(args.model).resolve()
    cores = warm_start.cores()
    settings = [(which, one) for which in args.commands for one in (True, False)]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "work"
        (work / "one").mkdir(parents=True)
        (work / "one" / "note.txt").write_text(NOTE, encoding="utf-8")
        versions = {}
        for i, rev in enumerate(args.rev):
            name = git_name(rev)
            versions[name if name not in versions else f"{name} (again)"] = checkout(rev, Path(tmp) / f"v{i}")
        if len(args.rev) == 1:
            versions["working tree"] = ROOT
        runs = {(name, which, one): [] for name in versions for which, one in settings}
        try:
            for _ in range(args.rounds):
                for which, one in settings:
                    for name, root in versions.items():
                        runs[name, which, one].append(timed(command(which, model, work), root, one))
        finally:
            for root in versions.values():
                if root != ROOT:
                    subprocess.run(["git", "worktree", "remove", "--force", str(root)], cwd=ROOT)
    table = pd.DataFrame([{"command": f"itdeid {which}", "cores": 1 if one else cores, "code": name,
                           "fastest s": min(seconds), "median s": statistics.median(seconds)}
                          for (name, which, one), seconds in runs.items()])
    table = table.sort_values(["command", "cores"], kind="stable")
    text = header("Start-up: one short note, two versions of the code, turn about")
    text += (f"- model `{args.model}`; one one-line note; {args.rounds} rounds; each command its own "
             f"process, pinned to one core (`taskset -c 0`) or free on all {cores}\n\n")
    text += markdown_table(table.set_index("command"), floatfmt=".2f") + "\n"
    publish(text, args.out)


if __name__ == "__main__":
    run_script(main, "start_up.py")
