"""How many corrected notes does adapting need? (issue N, item 2: the learning curve of
``itdeid adapt``)

    python experiments/adapt_curve.py [--physionet DIR] [--cache DIR] [--records 320] [--seed 7]
        [--sizes 10,25,50,100] [--draws 3] [--letter-sizes 4,8] [--letter-draws D] [--scratch-max N]
        [--n-jobs 2] [--cell-jobs 1] [--cut TEXT]
        [--out experiments/results/adapt-curve.md] [--plot experiments/results/adapt-curve.png]

A base model is the recipe trained on the PhysioNet split with no synthetic records
(``itdeid train PN --synthetic 0``), so that neither new site below is one it has seen. Then, on
each new site, for a growing number of corrected notes (gold spans, as ``itdeid review`` gives a
site), three arms are scored on notes of that site none of them learned from:

- **no adaptation**: the base model at its own threshold;
- **adapted**: :func:`itdeid.training.adapt.adapt` of the base model on the chosen notes with its
  defaults (100 rounds, learning rate 0.1, 5 folds, the largest threshold at which its
  out-of-fold tagging finds :data:`itdeid.training.adapt.RECALL` of their PHI tokens), at the
  threshold it chose;
- **from scratch**: ``itdeid train NOTES.xml --synthetic 0`` on the chosen notes alone (the
  recipe's ``InnerEnsemble``, as ``itdeid train`` builds it), at its own threshold; where
  ``itdeid train`` refuses the notes (a UserError, exit status 2) the cell is recorded as not
  trainable, with its message.

Site A: ``itdeid.synth.generate(--records, seed=--seed)``, synthetic discharge summaries (the
PhysioNet split holds nursing notes), split by patient into a fixed test set of about
``--test-notes`` notes and an adaptation pool; each draw takes whole patients of the pool in a
seeded random order until ``n`` notes, the last patient's notes cut to make exactly ``n``.
Site B: the 12 hand-written letters of experiments/heldout (each its own patient), ``n`` letters
drawn, scored on the others.

Every prediction is the full pipeline's (``model.predict``: spans after the passes), scored with
:func:`itdeid.evaluation.evaluate.evaluate` against the test notes' gold: binary token recall and
precision, and PHI instances found (gold spans any predicted span overlaps). The level to reach
is the recipe's 10-fold out-of-fold binary recall on PhysioNet, read from
``experiments/results/g-levers/thresholds-recipe-rules.md`` (floor 0.001, the recipe's target).

Resumable: the base model and every finished cell (its scores, threshold and seconds, with
digests of the notes it learned from and was scored on) are cached under ``--cache`` (git-ignored;
it holds note text and models, never commit it). Skips, saying so, when the PhysioNet split is
absent.
"""
from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import pandas as pd

from itdeid import load_model
from itdeid.evaluation.evaluate import evaluate
from itdeid.estimators.operating_point import MAX_THRESHOLD
from itdeid.evaluation.report import header, markdown_table
from itdeid.formats import read_annotated_corpus
from itdeid.formats.i2b2_2006 import write_i2b2_2006
from itdeid.synth import generate
from itdeid.training.adapt import RECALL as ADAPT_RECALL, adapt
from itdeid.training.recipe import RECIPE

from common import ROOT, corpus_digest, publish, run, run_script

LETTERS = ROOT / "experiments" / "heldout" / "handwritten-discharge.xml"
LEVELS = ROOT / "experiments" / "results" / "g-levers" / "thresholds-recipe-rules.md"
ARMS = ("no adaptation", "adapted", "from scratch")


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--physionet", default="../shared/corpora/physionet-deid",
                   help="the PhysioNet split the base model is trained on (skipped, saying so, when absent)")
    p.add_argument("--cache", default="experiments/results/adapt-curve/cache",
                   help="base model and finished cells (git-ignored)")
    p.add_argument("--records", type=int, default=320, help="site A's synthetic records (default 320)")
    p.add_argument("--seed", type=int, default=7, help="site A's generator seed and the draws' (default 7)")
    p.add_argument("--test-notes", type=int, default=100, help="site A's test notes, whole patients (default 100)")
    p.add_argument("--sizes", default="10,25,50,100", help="site A's numbers of corrected notes")
    p.add_argument("--draws", type=int, default=3, help="draws of each size (default 3)")
    p.add_argument("--letter-sizes", default="4,8", help="site B's numbers of corrected letters")
    p.add_argument("--letter-draws", type=int, default=None, help="draws of each site B size (default: --draws)")
    p.add_argument("--scratch-max", type=int, default=None,
                   help="train from scratch only up to this many notes (default: every size)")
    p.add_argument("--n-jobs", type=int, default=2, help="xgboost threads training the base model (default 2)")
    p.add_argument("--cell-jobs", type=int, default=1,
                   help="xgboost threads adapting and training from scratch (default 1: on a shared "
                        "2-core machine, 2 threads made adapting on 4 letters about 15 times slower)")
    p.add_argument("--out", default="experiments/results/adapt-curve.md")
    p.add_argument("--plot", default="experiments/results/adapt-curve.png")
    p.add_argument("--cut", default="", help="a sentence for the report on what was cut from the grid and why")
    return p.parse_args(argv)


# --------------------------------------------------------------------------------------------
# Notes and draws

def split_by_patient(documents, test_notes: int, seed: int):
    """(adaptation pool, test set): whole patients in a seeded order go to the test set until it
    holds ``test_notes`` notes or more."""
    by_patient = defaultdict(list)
    for d in documents:
        by_patient[d.patient or d.id].append(d)
    patients = sorted(by_patient)
    random.Random(seed).shuffle(patients)
    test, pool = [], []
    for p in patients:
        (test if len(test) < test_notes else pool).extend(by_patient[p])
    return pool, test


def draw_notes(pool, n: int, seed: int):
    """``n`` notes of ``pool``: whole patients in a seeded random order, the last one's notes cut
    to make exactly ``n``."""
    by_patient = defaultdict(list)
    for d in pool:
        by_patient[d.patient or d.id].append(d)
    patients = sorted(by_patient)
    random.Random(seed).shuffle(patients)
    chosen = []
    for p in patients:
        chosen.extend(by_patient[p][:n - len(chosen)])
        if len(chosen) >= n:
            break
    if len(chosen) < n:
        raise SystemExit(f"the adaptation pool holds {len(chosen)} notes, fewer than {n}")
    return chosen


# --------------------------------------------------------------------------------------------
# Scoring and cells

def score(model, test) -> dict:
    """The full pipeline's spans on ``test`` scored against its gold."""
    predicted = dict(zip((d.id for d in test), model.predict(test)))
    s = evaluate(test, predicted).summary()
    return {"R": s["binary_token"]["r"], "P": s["binary_token"]["p"],
            "found": s["phi_instances"]["r"], "found_tp": s["phi_instances"]["tp"],
            "gold_instances": s["phi_instances"]["n_gold"], "gold_tokens": s["binary_token"]["n_gold"]}


def cached_cell(cache: Path, key: str, digest: str, compute) -> dict:
    """The cell ``key`` from ``cache``, if computed from the same notes, else ``compute()``
    written there first."""
    path = cache / "cells" / f"{key}.json"
    if path.is_file():
        cell = json.loads(path.read_text(encoding="utf-8"))
        if cell.get("digest") == digest:
            return cell
    started = time.perf_counter()
    cell = compute()
    cell.update(key=key, digest=digest, seconds=round(time.perf_counter() - started, 1))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(cell, indent=1), encoding="utf-8")
    print(f"{key}: {cell.get('status')} R={cell.get('R')} P={cell.get('P')} "
          f"t={cell.get('threshold')} ({cell['seconds']} s)", flush=True)
    return cell


def digest(chosen, test) -> str:
    return corpus_digest(chosen) + ":" + corpus_digest(test)


def base_cell(base, test):
    return {"status": "ok", "threshold": base.operating_threshold(), **score(base, test)}


def adapted_cell(base, chosen, test, n_jobs: int):
    for member in base.members_:        # the threads adapt() continues each member's trees with
        member.set_params(n_jobs=n_jobs)
    model, report = adapt(base, chosen)
    return {"status": "ok", "threshold": report.threshold, "oof_R": report.recall_out_of_fold,
            "oof_P": report.precision_out_of_fold, "reached": report.reached,
            "passes_off": list(report.passes_off), "stage": report.context_stage, "patients": report.patients,
            "adapt_folds": report.folds, **score(model, test)}


def scratch_cell(where: Path, chosen, test, n_jobs: int):
    """``itdeid train`` on ``chosen`` alone; a refusal (exit status 2) is a cell 'not trainable'."""
    if where.exists():
        shutil.rmtree(where)
    where.mkdir(parents=True)
    notes = where / "notes.xml"
    write_i2b2_2006(chosen, notes)
    # run from the cache folder: `python -m` puts the working folder first on sys.path, and the
    # source tree's itdeid/ lacks the features/ and gazetteers/ the installed package maps in
    command = [sys.executable, "-m", "itdeid", "train", str(notes.resolve()), "--synthetic", "0",
               "--n-jobs", str(n_jobs), "--out", str((where / "model").resolve())]
    done = subprocess.run(command, cwd=where, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode == 2:
        message = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "(no message)"
        return {"status": "not trainable", "why": message}
    if done.returncode != 0:
        raise SystemExit(f"`{' '.join(command)}` failed ({done.returncode}):\n" + done.stderr[-2000:])
    model = load_model(where / "model")
    cell = {"status": "ok", "threshold": model.operating_threshold(), **score(model, test)}
    shutil.rmtree(where / "model")          # scored: the cell keeps the numbers, not the model
    return cell


# --------------------------------------------------------------------------------------------
# The report

def physionet_level(path: Path = LEVELS, target: float = RECIPE["target_recall"]) -> float | None:
    """The recipe's out-of-fold binary recall on PhysioNet (percent) at its target, floor 0.001,
    from the thresholds file's first table; None where it cannot be read."""
    if not path.is_file():
        return None
    columns = None
    for line in path.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if "binary R" in cells and "floor" in cells:
            columns = cells
            continue
        if columns and len(cells) == len(columns) and cells[columns.index("floor")] == "0.001":
            try:
                if abs(float(cells[1]) - target) < 1e-9:
                    return float(cells[columns.index("binary R")])
            except ValueError:
                continue
    return None


def pct_range(values) -> str:
    values = [100 * v for v in values]
    mean = sum(values) / len(values)
    if len(values) == 1:
        return f"{mean:.2f}"
    return f"{mean:.2f} ({min(values):.2f}–{max(values):.2f})"


def summary_table(cells: list[dict]) -> pd.DataFrame:
    rows = []
    groups = defaultdict(list)
    for c in cells:
        groups[(c["site"], c["n"], ARMS.index(c["arm"]))].append(c)
    for (site, n, arm), group in sorted(groups.items()):
        ok = [c for c in group if c["status"] == "ok"]
        row = {"site": site, "corrected notes": n, "arm": ARMS[arm], "draws": f"{len(ok)} of {len(group)}"}
        if ok:
            thresholds = [c["threshold"] for c in ok]
            row.update({"binary R": pct_range([c["R"] for c in ok]), "binary P": pct_range([c["P"] for c in ok]),
                        "PHI found": pct_range([c["found"] for c in ok]),
                        "threshold": (f"{sum(thresholds) / len(thresholds):.3f} "
                                      f"({min(thresholds):.3f}–{max(thresholds):.3f})")})
        else:
            row.update({"binary R": "not trainable", "binary P": "", "PHI found": "", "threshold": ""})
        rows.append(row)
    return pd.DataFrame(rows)


def draws_table(cells: list[dict]) -> pd.DataFrame:
    rows = []
    for c in sorted(cells, key=lambda c: (c["site"], c["n"], ARMS.index(c["arm"]), c["draw"])):
        ok = c["status"] == "ok"
        rows.append({"site": c["site"], "n": c["n"], "arm": c["arm"], "draw": c["draw"],
                     "test notes": c["test_notes"],
                     "binary R": f"{100 * c['R']:.2f}" if ok else c["status"],
                     "binary P": f"{100 * c['P']:.2f}" if ok else "",
                     "PHI found": f"{c['found_tp']} / {c['gold_instances']}" if ok else "",
                     "threshold": f"{c['threshold']:.4f}" if ok else "",
                     "adapt's oof R / P": (f"{100 * c['oof_R']:.2f} / {100 * c['oof_P']:.2f}"
                                            if ok and "oof_R" in c else ""),
                     "seconds": f"{c['seconds']:.0f}"})
    return pd.DataFrame(rows)


def reach_sentence(cells, site: str, name: str, level: float | None, level_source: str) -> str:
    if level is None:
        return f"The PhysioNet level could not be read from {level_source}, so no size is compared with it."
    means = {}
    for n in sorted({c["n"] for c in cells if c["site"] == site}):
        ok = [c for c in cells if c["site"] == site and c["n"] == n and c["arm"] == "adapted" and c["status"] == "ok"]
        if ok:
            means[n] = (100 * sum(c["R"] for c in ok) / len(ok), 100 * min(c["R"] for c in ok))
    reached = [n for n, (mean, _) in means.items() if mean >= level]
    if reached:
        n = reached[0]
        mean, low = means[n]
        return (f"On {name}, the adapted model's binary recall (mean over draws) first reaches the "
                f"PhysioNet out-of-fold level of {level:.2f} % at {n} corrected notes "
                f"({mean:.2f} %; lowest draw {low:.2f} %).")
    best = max(means, key=lambda n: means[n][0])
    return (f"On {name}, none of the sizes tried ({', '.join(map(str, means))} corrected notes) brings the "
            f"adapted model's binary recall (mean over draws) to the PhysioNet out-of-fold level of "
            f"{level:.2f} %; the highest mean is {means[best][0]:.2f} % at {best}.")


def capped_sentence(cells) -> str:
    """How adapting chose, over the draws: thresholds at the highest allowed, draws where no
    threshold reached its recall, the passes it switched off and the context stage dropped."""
    parts = []
    for site in sorted({c["site"] for c in cells}):
        adapted = [c for c in cells if c["site"] == site and c["arm"] == "adapted" and c["status"] == "ok"]
        capped = [c for c in adapted if c["threshold"] >= MAX_THRESHOLD]
        parts.append(f"{len(capped)} of {len(adapted)} on site {site[0]}")
    adapted = [c for c in cells if c["arm"] == "adapted" and c["status"] == "ok"]
    short = sum(1 for c in adapted if c.get("reached") is False)
    off = Counter(name for c in adapted for name in c.get("passes_off") or ())
    dropped = sum(1 for c in adapted if c.get("stage") is False)
    return (f" Adapting chooses the largest threshold (at most {MAX_THRESHOLD:g}) at which its out-of-fold "
            f"tagging of the corrected notes, passes included, finds {ADAPT_RECALL} of their PHI tokens, "
            f"else the one of highest F2; it stood at {MAX_THRESHOLD:g} in " + ", ".join(parts)
            + f" draws, and no threshold reached {ADAPT_RECALL} in {short} of {len(adapted)}. Passes it "
            "switched off for the site (draws): " + (", ".join(f"{n} ({k})" for n, k in off.most_common()) or "none")
            + f"; the context stage dropped in {dropped} of {len(adapted)} draws.")


def plot(cells, level, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    sites = sorted({c["site"] for c in cells})
    fig, axes = plt.subplots(len(sites), 2, figsize=(10, 3.8 * len(sites)), squeeze=False)
    colors = {"no adaptation": "tab:gray", "adapted": "tab:blue", "from scratch": "tab:orange"}
    offsets = {"no adaptation": -0.02, "adapted": 0.0, "from scratch": 0.02}
    for row, site in zip(axes, sites):
        sizes = sorted({c["n"] for c in cells if c["site"] == site})
        for ax, measure, label in zip(row, ("R", "P"), ("binary token recall (%)", "binary token precision (%)")):
            for arm in ARMS:
                xs, ys, lo, hi = [], [], [], []
                for n in sizes:
                    ok = [100 * c[measure] for c in cells
                          if c["site"] == site and c["n"] == n and c["arm"] == arm and c["status"] == "ok"]
                    if ok:
                        mean = sum(ok) / len(ok)
                        xs.append(n * (1 + offsets[arm]))
                        ys.append(mean)
                        lo.append(mean - min(ok))
                        hi.append(max(ok) - mean)
                if xs:
                    ax.errorbar(xs, ys, yerr=[lo, hi], marker="o", capsize=3, label=arm, color=colors[arm])
            if measure == "R" and level is not None:
                ax.axhline(level, color="black", linestyle="--", linewidth=0.8,
                           label=f"PhysioNet out-of-fold ({level:.2f})")
            ax.set_xscale("log")
            ax.minorticks_off()
            ax.set_xticks(sizes)
            ax.set_xticklabels([str(n) for n in sizes])
            ax.set_xlabel("corrected notes")
            ax.set_ylabel(label)
            ax.set_title(site, fontsize=10)
            ax.grid(alpha=0.3)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize=9)
    fig.suptitle("itdeid adapt: the learning curve (mean over draws, bars min–max)", fontsize=11)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)


# --------------------------------------------------------------------------------------------

def main(argv=None) -> int:
    args = parse_args(argv)
    physionet = Path(args.physionet)
    if not physionet.exists():
        print(f"adapt_curve.py: {physionet} not found: the base model cannot be trained; nothing done",
              file=sys.stderr)
        return 0
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()

    # the base model: the recipe on PhysioNet alone, no synthetic records
    base_dir, base_info = cache / "base", cache / "base.json"
    if not base_dir.is_dir():
        partial = cache / "base.partial"
        shutil.rmtree(partial, ignore_errors=True)
        seconds = run([sys.executable, "-m", "itdeid", "train", str(physionet.resolve()), "--synthetic", "0",
                       "--n-jobs", str(args.n_jobs), "--out", str(partial.resolve())], cwd=cache)
        partial.rename(base_dir)
        base_info.write_text(json.dumps({"seconds": round(seconds)}), encoding="utf-8")
    base_seconds = json.loads(base_info.read_text())["seconds"] if base_info.is_file() else None
    base = load_model(base_dir)

    sizes = [int(s) for s in args.sizes.split(",") if s]
    letter_sizes = [int(s) for s in args.letter_sizes.split(",") if s]
    pool_all = generate(args.records, seed=args.seed)
    pool, test = split_by_patient(pool_all, args.test_notes, args.seed)
    letters = read_annotated_corpus(str(LETTERS))
    site_a = "A: synthetic discharge summaries"
    site_b = "B: hand-written letters"
    cells = []

    def add(site, n, arm, draw, test_docs, cell):
        cells.append(dict(cell, site=site, n=n, arm=arm, draw=draw, test_notes=len(test_docs)))

    # site B: n letters drawn, scored on the others
    letter_draws = args.draws if args.letter_draws is None else args.letter_draws
    for draw in range(letter_draws):
        for n in letter_sizes:
            chosen_ids = set(random.Random(f"letters-{args.seed}-{n}-{draw}").sample([d.id for d in letters], n))
            chosen = [d for d in letters if d.id in chosen_ids]
            rest = [d for d in letters if d.id not in chosen_ids]
            dg = digest(chosen, rest)
            add(site_b, n, "no adaptation", draw, rest,
                cached_cell(cache, f"B-n{n}-d{draw}-base", corpus_digest(rest), lambda: base_cell(base, rest)))
            add(site_b, n, "adapted", draw, rest,
                cached_cell(cache, f"B-n{n}-d{draw}-adapted", dg, lambda: adapted_cell(base, chosen, rest, args.cell_jobs)))
            add(site_b, n, "from scratch", draw, rest,
                cached_cell(cache, f"B-n{n}-d{draw}-scratch", dg,
                            lambda: scratch_cell(cache / "scratch" / f"B-n{n}-d{draw}", chosen, rest, args.cell_jobs)))

    # site A: a fixed test set; the base model scored once on it
    base_a = cached_cell(cache, "A-base", corpus_digest(test), lambda: base_cell(base, test))
    for draw in range(args.draws):
        for n in sizes:
            chosen = draw_notes(pool, n, seed=args.seed * 1000 + n * 10 + draw)
            dg = digest(chosen, test)
            add(site_a, n, "no adaptation", draw, test, base_a)
            add(site_a, n, "adapted", draw, test,
                cached_cell(cache, f"A-n{n}-d{draw}-adapted", dg, lambda: adapted_cell(base, chosen, test, args.cell_jobs)))
            if args.scratch_max is None or n <= args.scratch_max:
                add(site_a, n, "from scratch", draw, test,
                    cached_cell(cache, f"A-n{n}-d{draw}-scratch", dg,
                                lambda: scratch_cell(cache / "scratch" / f"A-n{n}-d{draw}", chosen, test, args.cell_jobs)))
    seconds = time.perf_counter() - started

    level = physionet_level()
    level_source = LEVELS.relative_to(ROOT).as_posix()
    patients = lambda docs: len({d.patient or d.id for d in docs})
    refusals = sorted({c["why"] for c in cells if c["status"] != "ok"})
    cell_seconds = sum({c["key"]: c["seconds"] for c in cells}.values())
    text = (header("itdeid adapt: the learning curve on two new sites (issue N, item 2)")
            + f"- base model: `itdeid train {args.physionet} --synthetic 0 --n-jobs {args.n_jobs}` "
              f"(the recipe on the PhysioNet split alone; threshold {base.operating_threshold():.4f}"
            + (f"; trained in {base_seconds} s" if base_seconds is not None else "") + ")\n"
            + f"- site A: `itdeid.synth.generate({args.records}, seed={args.seed})`, synthetic discharge "
              f"summaries, split by patient: test set {len(test)} notes of {patients(test)} patients, "
              f"adaptation pool {len(pool)} notes of {patients(pool)} patients; each draw takes whole "
              f"patients of the pool in a seeded order, the last one cut to make exactly n notes\n"
            + f"- site B: the {len(letters)} hand-written letters of `experiments/heldout/handwritten-discharge.xml` "
              f"(each its own patient); n drawn, scored on the other {len(letters)} − n\n"
            + f"- arms: no adaptation (the base model at its threshold); adapted (`adapt(base, notes)`: "
              f"100 rounds, learning rate 0.1, 5 folds, target recall {ADAPT_RECALL} of the whole tagging out of fold, "
              f"at the threshold it chose); from scratch "
              f"(`itdeid train NOTES.xml --synthetic 0 --n-jobs {args.cell_jobs}` on the n notes alone, at its threshold); "
              f"adapting and training from scratch with {args.cell_jobs} xgboost thread(s) (`--cell-jobs`)\n"
            + f"- draws: {args.draws} a size on site A (sizes {', '.join(map(str, sizes))}), "
              f"{letter_draws} on site B (sizes {', '.join(map(str, letter_sizes))})"
            + (f"; from scratch only up to {args.scratch_max} notes" if args.scratch_max is not None else "") + "\n"
            + (f"- cut from the grid: {args.cut}\n" if args.cut else "")
            + f"- time: {cell_seconds / 60:.1f} min for the cells (adapting, training, tagging, scoring), "
              f"{seconds / 60:.1f} min this run (cells cached by an earlier run are read back), on a shared machine\n\n"
            + "Scores of the full pipeline's spans (`model.predict`) against the test notes' gold, percent: "
              "binary token recall and precision (PHI or not, `itdeid evaluate`'s binary_token) and PHI "
              "instances found (share of gold spans any predicted span overlaps). Mean over draws, "
              "min–max in brackets. On site A the test set is the same for every draw, so the base "
              "model's row is one scoring repeated.\n\n"
            + "## Summary\n\n" + markdown_table(summary_table(cells))
            + "\n" + reach_sentence(cells, site_a, "site A", level, level_source)
            + " " + reach_sentence(cells, site_b, "site B", level, level_source)
            + f" (Level: the recipe's 10-fold out-of-fold binary recall on PhysioNet at its target "
              f"{RECIPE['target_recall']}, floor 0.001, read from `{level_source}`.)" + capped_sentence(cells) + "\n"
            + ("\nNot trainable from scratch: " + "; ".join(f"`{r}`" for r in refusals) + "\n" if refusals else "")
            + f"\n![recall and precision against corrected notes]({Path(args.plot).name})\n"
            + "\n## Every draw\n\n`adapt's oof R / P`: the out-of-fold recall and precision on the "
              "corrected notes that `adapt` chose its threshold by.\n\n" + markdown_table(draws_table(cells)))
    publish(text, args.out)
    plot(cells, level, Path(args.plot))
    return 0


if __name__ == "__main__":
    run_script(main, "adapt_curve.py")
