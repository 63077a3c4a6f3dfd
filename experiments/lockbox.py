"""The lockbox (issue M): 20 of the PhysioNet dev patients whose notes and errors no one reads,
scored once per recipe that would ship.

    python experiments/lockbox.py --choose [--physionet DIR]    # once: writes lockbox.json
    python experiments/lockbox.py --score  [--physionet DIR] [--n-jobs 2]

Every choice (features, passes, word lists, thresholds, the recipe) is made by cross-validation
grouped by patient on the other patients (:func:`open_documents`); a rule written from errors is
evidence only on notes it was not written from, and the dev folds' errors wrote many. The lockbox
then says how a recipe does on patients nothing was chosen on.

``--choose`` draws the patients with a fixed seed from the split's patient numbers, read from the
``START_OF_RECORD`` lines alone (no note is read), and writes ``experiments/lockbox.json``. It
refuses to draw again once that file exists: the draw is made once, before anything is looked
at.

``--score`` trains the shipped recipe (``itdeid train --preset default``'s documents and model,
:mod:`itdeid.training.presets`) on every training document but the lockbox patients' notes, tags
the lockbox notes, and appends one row of aggregate scores (binary token P and R, PHI
instances found, typed 8-way token F) to ``experiments/results/lockbox.md``. Nothing of the
lockbox is printed or written but those numbers: no note id, no error, no span. It is scored once
per recipe: the row is keyed by the code's commit and the recipe's settings, and a second score
of the same key is refused. It needs a clean working tree, so that the commit names the code
that was scored.
"""
from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import re
import subprocess
from pathlib import Path

import numpy as np

from common import ROOT, publish, run_script

LOCKBOX = ROOT / "experiments" / "lockbox.json"
RESULTS = ROOT / "experiments" / "results" / "lockbox.md"
#: How many patients, and the seed of the draw (the date the lockbox was made).
SIZE = 20
SEED = 20261208


def physionet_patients(folder: Path) -> list[str]:
    """The patient numbers of the split, sorted numerically, from the ``START_OF_RECORD`` lines
    of ``id.text`` only."""
    patients = set()
    with open(Path(folder) / "id.text", encoding="latin-1") as handle:
        for line in handle:
            match = re.match(r"START_OF_RECORD=(\d+)\|\|\|\|\d+\|\|\|\|", line)
            if match:
                patients.add(match.group(1))
    return sorted(patients, key=int)


def draw(patients: list[str], size: int = SIZE, seed: int = SEED) -> list[str]:
    """``size`` of ``patients`` drawn without replacement by a seeded generator, sorted."""
    if len(patients) <= size:
        raise SystemExit(f"lockbox: {len(patients)} patients, and the lockbox takes {size}")
    rng = np.random.default_rng(seed)
    return sorted(rng.choice(np.array(patients), size, replace=False).tolist(), key=int)


def lockbox_patients() -> frozenset[str]:
    """The lockbox's patient numbers, from ``experiments/lockbox.json``."""
    if not LOCKBOX.is_file():
        raise SystemExit(f"{LOCKBOX} not found: python experiments/lockbox.py --choose")
    return frozenset(json.loads(LOCKBOX.read_text(encoding="utf-8"))["patients"])


def open_documents(documents) -> list:
    """The PhysioNet documents of every patient but the lockbox's: what every choice is made on."""
    closed = lockbox_patients()
    return [d for d in documents if d.patient not in closed]


def _git(*args) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()


def choose(physionet: Path) -> int:
    if LOCKBOX.exists():
        raise SystemExit(f"{LOCKBOX} exists: the lockbox is drawn once (delete it only to start the "
                         "whole project's measurement again)")
    patients = physionet_patients(physionet)
    chosen = draw(patients)
    LOCKBOX.write_text(json.dumps({
        "about": "PhysioNet dev patients set aside by experiments/lockbox.py --choose: never read their "
                 "notes or errors; score them only with experiments/lockbox.py --score",
        "seed": SEED, "size": SIZE, "drawn_from": len(patients),
        "date": datetime.date.today().isoformat(), "patients": chosen}, indent=1) + "\n", encoding="utf-8")
    print(f"lockbox: {len(chosen)} of {len(patients)} patients, seed {SEED}, written to {LOCKBOX}")
    return 0


def recipe_key() -> tuple[str, str]:
    """The code's commit and a digest of the recipe's settings: what a score is keyed by."""
    from itdeid.training.presets import PRESETS
    from itdeid.training.recipe import MEMBER, RECIPE
    settings = json.dumps({"member": MEMBER, "ensemble": RECIPE, "preset": PRESETS["default"]},
                          sort_keys=True, default=str)
    return _git("rev-parse", "--short", "HEAD"), hashlib.sha256(settings.encode()).hexdigest()[:12]


def score(physionet: Path, n_jobs: int) -> int:
    from itdeid.evaluation.evaluate import evaluate
    from itdeid.evaluation.report import machine
    from itdeid.training.presets import preset_corpus, preset_model
    if _git("status", "--porcelain", "--untracked-files=no"):
        raise SystemExit("lockbox: the working tree has changes; commit them first, so that the "
                         "score names the code it scored")
    commit, settings = recipe_key()
    done = RESULTS.read_text(encoding="utf-8") if RESULTS.is_file() else ""
    if f"| {commit} | {settings} |" in done:
        raise SystemExit(f"lockbox: this recipe ({settings}) at {commit} is scored already: see {RESULTS}")
    closed = lockbox_patients()
    documents, calibrate, _ = preset_corpus("default", physionet)
    # the lockbox's notes are the PhysioNet ones of its patients; the synthetic supplement
    # (calibrate False) has patients of its own
    held = [cal and d.patient in closed for d, cal in zip(documents, calibrate)]
    train = [d for d, h in zip(documents, held) if not h]
    train_calibrate = [c for c, h in zip(calibrate, held) if not h]
    test = [d for d, h in zip(documents, held) if h]
    if len({d.patient for d in test}) != len(closed):
        raise SystemExit(f"lockbox: {physionet} does not hold every lockbox patient")
    model = preset_model("default", n_jobs=n_jobs)
    model.fit(train, calibrate_on=train_calibrate)
    s = evaluate(test, dict(zip((d.id for d in test), model.predict(test)))).summary()
    row = (f"| {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} | {commit} | {settings} "
           f"| {len(closed)} patients, {len(test)} notes | {len(train)} documents "
           f"({sum(train_calibrate)} PhysioNet notes) | {s['binary_token']['p']:.4f} | "
           f"{s['binary_token']['r']:.4f} | {s['phi_instances']['r']:.4f} | {s['token_8way']['f']:.4f} "
           f"| {machine()} |\n")
    if not done:
        done = ("# The lockbox: the shipped recipe scored on 20 PhysioNet dev patients nothing was chosen on\n\n"
                "- command: `python experiments/lockbox.py --score --physionet ../shared/corpora/physionet-deid`\n"
                "- what: the recipe (`itdeid train --preset default`'s documents and model) trained on "
                "every document but the lockbox patients' notes (`experiments/lockbox.json`), then its "
                "tagging (`model.predict`: spans after the passes) of the lockbox notes scored against "
                "their gold with `itdeid.evaluation.evaluate`; one row per recipe and commit, "
                "appended, never rewritten\n"
                "- the lockbox was drawn on 2026-12-08. Recipes of before then had their passes and word "
                "lists written by reading the errors of all 98 dev patients, these 20 among them: their "
                "rows here are optimistic as the cross-validation is. Rows of recipes whose every choice "
                "was made on the other 78 patients are the lockbox's evidence\n"
                "- binary P / R: binary token precision and recall (PHI or not); found: PHI "
                "instances any predicted span overlaps; typed F: 8-way token F (micro)\n\n"
                "| scored (UTC) | commit | recipe settings | lockbox | trained on | binary P | binary R "
                "| found | typed F | machine |\n|---|---|---|---|---|---|---|---|---|---|\n")
    publish(done + row, RESULTS)
    return 0


def main(argv=None) -> int:
    from itdeid.training.presets import default_physionet
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--choose", action="store_true", help="draw the lockbox (once)")
    what.add_argument("--score", action="store_true", help="score the shipped recipe on it (once a recipe)")
    p.add_argument("--physionet", default=None, help="the PhysioNet split (default: the preset's)")
    p.add_argument("--n-jobs", type=int, default=2)
    args = p.parse_args(argv)
    physionet = Path(args.physionet) if args.physionet else default_physionet()
    if not (physionet / "id.text").is_file():
        raise SystemExit(f"lockbox: {physionet}: no PhysioNet split here (id.text)")
    return choose(physionet) if args.choose else score(physionet, args.n_jobs)


if __name__ == "__main__":
    run_script(main, "lockbox.py")
