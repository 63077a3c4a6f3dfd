"""Two versions of the code tagging the same notes with the same model, turn about: which is
faster, and do they give the same labels.

    python experiments/bench_code.py --corpus ../shared/corpora/physionet-deid --model DIR \\
        --rev OLD_COMMIT [--rev NEW_COMMIT] [--skip 400 --notes 400] [--rounds 3] \\
        [--out experiments/results/bench-code.md]

A change meant to compute the same thing faster has to show both: the speed, measured against
the code before it on the same notes and the same machine at the same time (the machines here
drift by a third within an hour, so two runs at different times say nothing), and the outputs,
equal label for label. Each ``--rev`` (a commit; without a second one, the working tree is the
new code) is checked out into a temporary git worktree; a child process imports that checkout's
``itdeid``, tags ``--warm`` other notes (so word tables are filled as in a long run), then times
tokenizing and tagging notes ``--skip`` to ``--skip + --notes`` three times and keeps the best,
and prints a digest of the label codes. Versions take turns, ``--rounds`` times; each keeps its
best. Run it under ``taskset -c 0`` with ``OMP_NUM_THREADS=1`` for one core, on a quiet machine.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd

from itdeid.formats import read_corpus
from itdeid.evaluation.report import header, markdown_table

from common import add_note_slice, checkout, git_name, publish, require_corpus, run_script, timed_notes

ROOT = Path(__file__).resolve().parents[1]

#: What the child process runs, in the checkout on its PYTHONPATH.
CHILD = r"""
import hashlib, json, sys, time
# the checkout on PYTHONPATH, not an editable install's finder, must give every itdeid module,
# its data packages too (features/ and gazetteers/ install as itdeid.features, itdeid.gazetteers)
import importlib.util, os, pathlib
sys.meta_path = [f for f in sys.meta_path if "__editable__" not in getattr(f, "__module__", "")]
import itdeid
for name in ("features", "gazetteers"):
    folder = pathlib.Path(os.environ["PYTHONPATH"]) / name
    spec = importlib.util.spec_from_file_location(f"itdeid.{name}", folder / "__init__.py",
                                                  submodule_search_locations=[str(folder)])
    sys.modules[f"itdeid.{name}"] = module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
try:                # the loader's module since the package was split by role
    from itdeid.model_folder.load import load_model
except ImportError:  # the flat package before it
    from itdeid.deidentifier import load_model
from itdeid.featurize import tokenize_document
from itdeid.formats import read_corpus
corpus, model_dir, skip, notes, warm = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:6])
model = load_model(model_dir)
documents = read_corpus(corpus)
model.predict_tokenized([tokenize_document(d, gold=False) for d in documents[skip + notes:skip + notes + warm]])
test = documents[skip:skip + notes]
best = float("inf")
for _ in range(3):
    start = time.perf_counter()
    tokenized = [tokenize_document(d, gold=False) for d in test]
    codes = model.predict_tokenized(tokenized)
    best = min(best, time.perf_counter() - start)
digest = hashlib.sha256(b"".join(c.astype("int64").tobytes() for c in codes)).hexdigest()[:16]
print(json.dumps({"seconds": best, "tokens": sum(len(t) for t in tokenized), "labels": digest}))
"""


def run_child(code_root: Path, args) -> dict:
    env = dict(os.environ, PYTHONPATH=str(code_root))
    done = subprocess.run([sys.executable, "-c", CHILD, str(Path(args.corpus).resolve()),
                           str(Path(args.model).resolve()), str(args.skip), str(args.notes), str(args.warm)],
                          env=env, cwd=tempfile.gettempdir(), capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"bench_code: the child of {code_root} failed: {done.stderr[-800:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--model", required=True, help="a model folder both versions can load")
    ap.add_argument("--rev", action="append", default=[], help="a commit (give one or two)")
    add_note_slice(ap, repeats=False)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    require_corpus(args.corpus)
    if not 1 <= len(args.rev) <= 2:
        ap.error("give --rev OLD, or --rev OLD --rev NEW")
    timed_notes(read_corpus(args.corpus), args.skip, args.notes)     # the children's slice, checked
    with tempfile.TemporaryDirectory() as tmp:
        versions = {f"{git_name(r)}": checkout(r, Path(tmp) / f"v{i}") for i, r in enumerate(args.rev)}
        if len(args.rev) == 1:
            versions["working tree"] = ROOT
        try:
            runs = {name: [] for name in versions}
            for _ in range(args.rounds):
                for name, root in versions.items():
                    runs[name].append(run_child(root, args))
        finally:
            for root in versions.values():
                if root != ROOT:
                    subprocess.run(["git", "worktree", "remove", "--force", str(root)], cwd=ROOT)
    first = min(r["seconds"] for r in next(iter(runs.values())))
    table = pd.DataFrame([{"code": name, "best seconds": min(r["seconds"] for r in rs),
                           "tokens/s": rs[0]["tokens"] / min(r["seconds"] for r in rs),
                           "speed-up over the first": first / min(r["seconds"] for r in rs),
                           "labels digest": rs[0]["labels"]} for name, rs in runs.items()])
    same = table["labels digest"].nunique() == 1
    text = header("Two versions of the code tagging the same notes, turn about")
    text += (f"- corpus: `{args.corpus}`, notes {args.skip}-{args.skip + args.notes - 1} "
             f"({next(iter(runs.values()))[0]['tokens']} tokens), after {args.warm} warm-up notes; "
             f"model `{args.model}`; {args.rounds} rounds, each the best of 3; tokenizing and tagging only\n"
             f"- labels: {'the same' if same else '**different**'} in every version\n\n")
    text += markdown_table(table.set_index("code")) + "\n"
    publish(text, args.out)
    return 0 if same else 1


if __name__ == "__main__":
    run_script(main, "bench_code.py")
