"""Rebuild, with one command, the results README.md and the shipped model's card cite.

    python experiments/reproduce.py                 # every step, hours on 2 cores; resumable
    python experiments/reproduce.py --dry-run       # the commands, one a line
    python experiments/reproduce.py --from peers    # from one step on

Run from the repository root with the PhysioNet deid split beside it
(``../shared/corpora/physionet-deid``, ``--corpus``). The steps are the commands that wrote the
committed files, in the order their inputs need (each results file names its own command, and
``tests/test_reproduce.py`` checks they agree):

1. ``levers``: 10-fold CV grouped by patient of XGB_TOKEN and of the recipe (fold caches in
   ``experiments/results/g-levers/cache``, not committed; a stopped run resumes from them, the
   slow part: hours on 2 cores);
2. ``thresholds``: the recipe as it tags (its steps after the decisions taken) at its target
   recall and at lower ones, overall, by class and over the patients
   (``g-levers/thresholds-recipe-rules.md``, quoted by the card and README);
3. ``errors``: its misses and false alarms by kind (``errors-physionet.md``);
4. ``predictions`` and ``peers``: its out-of-fold spans beside deid.pl, Philter and Presidio
   (``peers.md``; a peer not installed is skipped, see ../shared/peers/README.md);
5. ``model``: the shipped model, ``itdeid train --preset default`` (deterministic: the same
   files on the same machine kind);
6. ``bench``: its speed beside deid.pl (``bench-recipe.md``; timings vary with the machine);
7. ``card``: the card's scored part rewritten from the files above (``card_scores.py``).

The results are written where they are committed, so ``git diff`` shows what a rerun changed.
The script stops at the first step that fails.
"""
from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
from pathlib import Path

from itdeid.training.recipe import RECIPE

from common import run_script

#: The repository root. Not put on ``sys.path``: the steps run the installed itdeid (``python -m
#: itdeid``), and a test importing this file put the source tree, where ``features/`` is not
#: inside the package, before it for every worker process started later.
ROOT = Path(__file__).resolve().parent.parent

#: The recipe's rows of levers.py (itdeid/training/recipe.py): the one that trains it at its target (and
#: owns the fold caches), and the one tagging as the shipped model does (its screen).
RECIPE_ROW = "BAG5_CTX_TWO_STEP_SHALLOW_SYN_REAL_TRIAL_REFIT_TYPER50_NAMED_R91"
RECIPE_TAGGED = f"{RECIPE_ROW}_SCREEN1E2_IDS"
LEVERS = "experiments/results/g-levers"
DEFAULT_CORPUS = "../shared/corpora/physionet-deid"
PREDICTIONS = f"{LEVERS}/predictions-{RECIPE_TAGGED}.jsonl"


def steps(corpus: str, n_jobs: int) -> list[tuple[str, list[str]]]:
    """(name, argv) of each step, in order."""
    py = ["python"]
    return [
        # --only every fold: the caches alone, not a results.md of two rows over the committed one
        ("levers", py + ["experiments/levers.py", corpus, "--out", LEVERS, "--rows",
                         f"XGB_TOKEN,{RECIPE_ROW}_SCREENS_OOF", "--n-jobs", str(n_jobs),
                         "--only", ",".join(map(str, range(10)))]),
        ("thresholds", py + ["experiments/thresholds.py", corpus, "--levers", LEVERS, "--row",
                             RECIPE_TAGGED, "--targets", "0.89,0.90,0.91,0.92,0.93",
                             "--per-class", str(RECIPE["target_recall"]), "--bootstrap", "2000",
                             "--out", f"{LEVERS}/thresholds-recipe-rules.md"]),
        ("errors", py + ["experiments/errors.py", corpus, "--levers", LEVERS, "--before", "XGB_TOKEN",
                         "--after", RECIPE_TAGGED, "--out",
                         "experiments/results/errors-physionet.md"]),
        ("predictions", py + ["experiments/levers.py", corpus, "--out", LEVERS, "--rows",
                              RECIPE_TAGGED, "--write-predictions"]),
        ("peers", py + ["experiments/peers.py", "--corpus", corpus, "--peers",
                        "deid,philter:200,presidio:200", "--itdeid-predictions", PREDICTIONS,
                        "--out", "experiments/results/peers.md"]),
        ("model", ["itdeid", "train", "--preset", "default", "--out", "itdeid/models/default",
                   *([] if corpus == DEFAULT_CORPUS else ["--physionet", corpus]),
                   "--n-jobs", str(n_jobs)]),
        ("bench", py + ["experiments/bench.py", "--corpus", corpus, "--model", "itdeid/models/default",
                        "--scales", "1", "2", "4", "--repeats", "3", "--peer-repeats", "5",
                        "--out", "experiments/results/bench-recipe.md"]),
        ("card", py + ["experiments/card_scores.py", "itdeid/models/default"]),
    ]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default=DEFAULT_CORPUS)
    ap.add_argument("--n-jobs", type=int, default=2)
    ap.add_argument("--from", dest="start", default=None, metavar="STEP",
                    help="start at this step (levers, thresholds, errors, predictions, peers, "
                         "model, bench, card)")
    ap.add_argument("--dry-run", action="store_true",
                    help="print the commands, run nothing (as their results files record them; "
                         "run them in the environment itdeid is installed in, whose python this "
                         "script uses for every step)")
    args = ap.parse_args(argv)
    plan = steps(args.corpus, args.n_jobs)
    names = [name for name, _ in plan]
    if args.start is not None and args.start not in names:
        ap.error(f"--from {args.start}: expected one of {', '.join(names)}")
    plan = plan[names.index(args.start):] if args.start else plan
    if args.dry_run:
        print("\n".join(shlex.join(command) for _, command in plan))
        return 0
    if not (ROOT / "experiments" / "heldout").is_dir() or Path.cwd().resolve() != ROOT:
        ap.error(f"run from the repository root ({ROOT}): the results are written there")
    if not Path(args.corpus).exists():
        ap.error(f"--corpus {args.corpus}: not found (the PhysioNet deid split)")
    for name, command in plan:
        print(f"reproduce: {name}: {shlex.join(command)}", file=sys.stderr, flush=True)
        runnable = [sys.executable, *command[1:]] if command[0] == "python" else \
            [sys.executable, "-m", "itdeid", *command[1:]]
        done = subprocess.run(runnable, cwd=ROOT)
        if done.returncode:
            print(f"reproduce: step {name} failed (status {done.returncode}); fix it and rerun "
                  f"with --from {name}", file=sys.stderr)
            return done.returncode
    print("reproduce: done; `git diff` shows what changed", file=sys.stderr)
    return 0


if __name__ == "__main__":
    run_script(main, "reproduce.py")
