"""Threshold rules compared on a levers.py row that kept its out-of-fold calibration data.

    python experiments/thresholds.py ../shared/corpora/physionet-deid --levers experiments/results/g-levers \\
        --row BAG5_CTX_TWO_STEP_OOF --targets 0.80,0.85,0.90,0.93,0.95,0.97 \\
        --out experiments/results/g-levers/thresholds.md

The recipe's threshold is the P(PHI) at which the members' out-of-fold probabilities of the
training notes (blended with the context stage's) find ``target_recall`` of the training PHI
tokens. But notes are tagged by the *mean* of the members, whose P(PHI) of rare PHI is higher
than a single member's, so the held-out recall lands above the target and precision is lost
(issue G: target 0.95, held-out recall about 0.97, thresholds at the 0.001 floor).

A row with ``keep_oof`` (levers.py) saves, per outer fold, the out-of-fold P(PHI) and gold flags
the threshold was chosen from. For each target recall this script applies the same rule
(:func:`itdeid.estimators.operating_point.threshold_for_recall`, floor 0.001; and with no floor) to each
fold's own calibration data, tags the fold's held-out notes at that threshold and pools: binary
token precision and recall, PHI instance recall, the lowest per-fold recall and the thresholds.
A row that also kept the members' out-of-fold mean (``keep_passes``) is calibrated at its own
``context_weight``, so rows that differ only by the weight get their own operating points. A row with steps after the decisions (the recipe's ``_IDS`` rows: joined name gaps, surnames after
'pt', the identifier templates and clearing rules, the gold's conventions) takes them after each
threshold, as levers.py does (:func:`common.after_decisions`), so the table is the recipe as it
tags. A target is chosen by these outer folds only (never by held-out acceptance notes): the rule a
user would want is the lowest target whose held-out recall still reaches the goal in the pooled
folds.
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from itdeid.document import LABELS
from itdeid.evaluation.evaluate import _ratio, evaluate  # noqa: E402  (the 0/0 rule of the scores)
from itdeid.estimators.folds import group_key
from itdeid.estimators.operating_point import MIN_THRESHOLD, decide
from itdeid.evaluation.report import header, markdown_table
from itdeid.text.spans import labels_to_spans

from common import (AFTER_DECISIONS, ROWS, add_cache_arguments, after_decisions, cache_name, cache_provenance,
                    cached_fold, cached_folds, calibration_phi, publish, require_corpus, run_script,
                    threshold_at, tokenized_folds)


def patient_bootstrap(report, documents, resamples: int, seed: int, goals: tuple[float, float, float]) -> dict:
    """How the pooled scores of ``report`` (an :class:`itdeid.evaluation.evaluate.Evaluation` of
    ``documents``) vary over the patients: ``resamples`` draws of the patients with replacement
    (seeded), each summing its notes' counts. Gives the 5th percentile of binary token recall,
    precision and PHI instance recall, and the share of draws meeting all three ``goals``
    (recall, precision, instance recall). The held-out patients of an acceptance test are such
    a draw, so a pooled score that meets a goal by a hair meets it about half the time."""
    confusion = report.doc_confusion
    tp = confusion[:, 1:, 1:].sum(axis=(1, 2))
    predicted = confusion[:, :, 1:].sum(axis=(1, 2))
    gold = confusion[:, 1:, :].sum(axis=(1, 2))
    instances = report.instances.sum(axis=1)       # documents x (found, gold, hits, predicted)
    keys = [group_key(d) for d in documents]
    patients = sorted(set(keys))
    index = np.array([patients.index(k) for k in keys])
    per_patient = np.zeros((len(patients), 5))
    np.add.at(per_patient, index, np.stack([tp, predicted, gold, instances[:, 0], instances[:, 1]], axis=1))
    rng = np.random.default_rng(seed)
    draws = per_patient[rng.integers(0, len(patients), size=(resamples, len(patients)))].sum(axis=1)
    recall, precision, found = _ratio(draws[:, 0], draws[:, 2], draws[:, 1]), \
        _ratio(draws[:, 0], draws[:, 1], draws[:, 2]), _ratio(draws[:, 3], draws[:, 4], 0)
    met = (recall >= goals[0]) & (precision >= goals[1]) & (found >= goals[2])
    return {"R 5th pct": 100 * np.percentile(recall, 5), "P 5th pct": 100 * np.percentile(precision, 5),
            "instances R 5th pct": 100 * np.percentile(found, 5), "draws meeting the goals": 100 * met.mean()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_cache_arguments(ap)
    ap.add_argument("--row", default="BAG5_CTX_TWO_STEP_OOF")
    ap.add_argument("--targets", default="0.80,0.85,0.90,0.93,0.95,0.97")
    ap.add_argument("--per-class", type=float, default=None, metavar="TARGET",
                    help="also a table of token P/R/F by PHI class and entity relaxed at this target "
                         "(floor 0.001, as the recipe)")
    ap.add_argument("--bootstrap", type=int, default=0, metavar="N",
                    help="also N draws of the patients with replacement (floor 0.001): the 5th "
                         "percentiles of the scores and the share of draws meeting --goals")
    ap.add_argument("--goals", default="0.95,0.85,0.95", metavar="R,P,I",
                    help="binary token recall, precision and PHI instance recall to meet (issue G's)")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    if args.row not in ROWS:
        ap.error(f"unknown row {args.row!r}; see ROWS in experiments/common.py (levers.py's rows)")
    require_corpus(args.corpus)
    cache = Path(args.levers) / "cache" / cache_name(args.row)
    folds = cached_folds(Path(args.levers) / "cache", [args.row], args.folds)
    if not folds or "oof_phi" not in np.load(cache / f"fold{folds[0]}.npz"):
        print(f"no fold of {args.row} with out-of-fold calibration data in {cache}", file=sys.stderr)
        return 1
    tokenized, assignment = tokenized_folds(args)
    rules = any(ROWS[args.row].get(step) for step in AFTER_DECISIONS)
    data = []
    for f in folds:
        saved = np.load(cache / f"fold{f}.npz")
        fold = cached_fold(args.row, tokenized, assignment, Path(args.levers) / "cache", f)
        oof_phi = calibration_phi(args.row, saved)   # the blend at the row's own weight
        train = [td for td, a in zip(tokenized, assignment) if a != f]
        data.append((oof_phi, saved["oof_gold"].astype(bool), fold["test"], fold["proba"], train))
    rows, by_class, spread = [], None, []
    for floor in (MIN_THRESHOLD, 0.0):
        for target in map(float, args.targets.split(",")):
            thresholds, per_fold_recall, predicted = [], [], {}
            for oof_phi, oof_gold, test, proba, train in data:
                t = threshold_at(oof_phi, oof_gold, target, floor)
                thresholds.append(t)
                codes = [decide(p, t) for p in proba]
                if rules:   # the row's steps after the decisions, as levers.py takes them
                    codes = after_decisions(args.row, test, codes, train)
                fold_spans = {td.document.id: labels_to_spans(td.document.text, td.tokens, [LABELS[k] for k in c])
                              for td, c in zip(test, codes)}
                predicted.update(fold_spans)
                fold_report = evaluate([td.document for td in test], fold_spans).to_dict()["summary"]
                per_fold_recall.append(fold_report["binary_token"]["r"])
            tested = [td.document for _, _, test, _, _ in data for td in test]
            evaluation = evaluate(tested, predicted)
            report = evaluation.to_dict()
            instances = report["summary"]
            binary = instances["binary_token"]
            if floor == MIN_THRESHOLD and args.per_class is not None and math.isclose(target, args.per_class):
                by_class = report
            if floor == MIN_THRESHOLD and args.bootstrap:
                goals = tuple(map(float, args.goals.split(",")))
                spread.append({"target (training oof)": f"{target:.2f}",
                               **patient_bootstrap(evaluation, tested, args.bootstrap, args.seed, goals)})
            rows.append({"floor": f"{floor:g}", "target (training oof)": f"{target:.2f}",
                         "thresholds (min-median-max)": f"{min(thresholds):.4f}-{np.median(thresholds):.4f}-{max(thresholds):.4f}",
                         "binary P": 100 * binary["p"], "binary R": 100 * binary["r"],
                         "binary F": 100 * binary["f"],
                         "lowest fold R": 100 * min(per_fold_recall),
                         "instances R": 100 * instances["phi_instances"]["r"],
                         "8-way F": 100 * instances["token_8way"]["f"]})
    table = pd.DataFrame(rows)
    text = (header(f"Threshold rules on {args.row}'s out-of-fold calibration data")
            + f"- folds: {folds} of {args.folds} ({args.folds}-fold CV grouped by patient, levers.py's folds)\n"
            + cache_provenance(Path(args.levers) / 'cache', [args.row], folds) + "\n"
            + "Per outer fold, the threshold is read off that fold's own training out-of-fold P(PHI) "
              "for the target recall (floor 0.001 as the recipe, or none); the held-out notes are "
              "tagged at it, their spans scored as `itdeid evaluate` and peers.py score them "
              "(binary token P/R/F from the spans, since session 34; before, from the tokens' labels)"
            + (" and the row's steps after the decisions are taken (levers.py's `after_decisions`)"
               if rules else "")
            + ", and the scores pooled (percent).\n\n"
            + markdown_table(table.set_index("floor"), floatfmt=".2f") + "\n"
            + (_per_class_text(by_class, args.per_class) if by_class is not None else "")
            + (_spread_text(spread, args) if spread else ""))
    publish(text, args.out)
    return 0


def _spread_text(spread: list[dict], args) -> str:
    return (f"\n## Over the patients: {args.bootstrap} draws with replacement (seed {args.seed}, floor 0.001)\n\n"
            f"Each draw sums the out-of-fold counts of its patients' notes; goals (binary R, binary P, "
            f"instances R): {args.goals}. Percent.\n\n"
            + markdown_table(pd.DataFrame(spread).set_index("target (training oof)"), floatfmt=".2f") + "\n")


def _per_class_text(report: dict, target: float) -> str:
    """The per-class token scores and entity-relaxed summary of one target's pooled evaluation."""
    def pct(value, defined: bool) -> str:
        # a class with no gold (or no prediction) has no recall (or precision): 0/0 read as
        # 100 or 0 before
        return f"{100 * value:.2f}" if defined else "n/a"
    rows = [{"class": c, "token P": pct(v["p"], v["n_pred"] > 0), "token R": pct(v["r"], v["n_gold"] > 0),
             "token F": pct(v["f"], v["n_gold"] > 0 and v["n_pred"] > 0), "gold tokens": v["n_gold"],
             "instances found": pct(v["instances"]["r"], v["instances"]["n_gold"] > 0),
             "gold instances": v["instances"]["n_gold"]}
            for c, v in report["per_class"].items() if c != "NONE"]
    relaxed = report["summary"]["entity_relaxed"]
    return (f"\n## By class at target {target:.2f} (floor 0.001)\n\nToken level, typed (a PHI token of "
            "the right class), pooled over the folds, percent:\n\n"
            + markdown_table(pd.DataFrame(rows).set_index("class"), floatfmt=".2f")
            + f"\n\nEntity relaxed (a predicted span of the right class overlapping a gold span): "
              f"P {100 * relaxed['p']:.2f}, R {100 * relaxed['r']:.2f}, F {100 * relaxed['f']:.2f}.\n")


if __name__ == "__main__":
    run_script(main, "thresholds.py")
