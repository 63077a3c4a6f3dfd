"""The PHI detector's tree parameters, compared by the ranking they give in patient-grouped CV.

    python experiments/detector_params.py ../shared/corpora/physionet-deid \\
        --out experiments/results/g-levers/detector-params.md --n-jobs 1 --only 0,1,2,3,4

The recipe's members are two-step learners whose detector (PHI or not) alone sets the ranking
a threshold cuts. Its xgboost parameters (200 trees of depth 6, learning rate 0.2, 80 % of the
columns a tree) came with the paper's nine-class models and were never chosen for the
detector. Averaging five inner-fold members raised the precision at recall 0.95 from about 36
to 46 % (levers.py: RESUB1 against BAG5), a sign of variance in the tail of the ranking that
slower learning, row subsampling or larger leaves might remove at a fraction of the cost of
five models.

For each outer fold of levers.py (10 folds grouped by patient), the recipe member's feature
rows are built once (its groups, one re-substituted copy of each training note) and one
detector per parameter set is trained on them; its P(PHI) of the held-out notes is cached
(``LEVERS/cache/detector-params/foldK.npz``, ``--levers``), so a stopped run resumes. Reported, pooled over
the cached folds: binary token precision where recall first reaches 0.90, 0.95 and 0.97, the
per-fold difference from the current parameters (mean and sd over folds, and in how many folds
the set is ahead), the trees a token passes through, and the seconds to train. A single
detector, no ensemble and no context stage: it ranks parameter sets, the recipe's own CV
(levers.py) measures the chosen one.
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd

from itdeid.featurize import tokenize_document
from itdeid.estimators.model import TokenModel
from itdeid.training.recipe import MEMBER
from itdeid.evaluation.report import header, markdown_table
from itdeid.estimators.resubstitute import resubstituted

from common import (RECALLS, add_cache_arguments, corpus_key, precision_at_recall, publish, require_corpus,
                    run_script, tokenized_folds)

#: xgboost parameters of each set, over the current ones (``CURRENT``).
CURRENT = dict(n_estimators=200, max_depth=6, learning_rate=0.2, colsample_bytree=0.8)
SETS: dict[str, dict] = {
    "current": {},
    "slow": dict(n_estimators=400, learning_rate=0.1),
    "subsample": dict(subsample=0.7),
    "leaves": dict(min_child_weight=5),
    "slow_sub_leaves": dict(n_estimators=400, learning_rate=0.1, subsample=0.7, min_child_weight=5),
    "shallow": dict(n_estimators=400, max_depth=4, learning_rate=0.1),
    "lambda": dict(reg_lambda=10.0),
    "slow_lambda": dict(n_estimators=400, learning_rate=0.1, reg_lambda=10.0),
    "slower": dict(n_estimators=800, learning_rate=0.05),
    "shallow_slower": dict(n_estimators=800, max_depth=4, learning_rate=0.05),
    "shallow_weighted": dict(n_estimators=400, max_depth=4, learning_rate=0.1, scale_pos_weight=5.0),
    "shallower": dict(n_estimators=400, max_depth=3, learning_rate=0.1),
}


def precision_at(p: np.ndarray, gold: np.ndarray, recall: float) -> float:
    """Binary token precision where the ranking by ``p`` first reaches ``recall`` of ``gold``."""
    return precision_at_recall(p, gold, recall)[0]


def fold_rows(tokenized, assignment, f: int, seed: int):
    """The recipe member's training rows (with one re-substituted copy) and test rows of fold f."""
    train = [td for td, a in zip(tokenized, assignment) if a != f]
    test = [td for td, a in zip(tokenized, assignment) if a == f]
    # the member's feature rows only: its learner (and tree parameters) are not used here
    model = TokenModel(groups=MEMBER["groups"], previous=MEMBER["previous"],
                       resubstitutions=MEMBER["resubstitutions"], random_state=seed)
    copies = [tokenize_document(d) for d in resubstituted(
        [td.document for td in train], model.resubstitutions, seed)]
    extractor = model._new_extractor()
    X = extractor.fit_transform(train, None, copies=copies)
    y = np.concatenate([td.labels for td in list(train) + copies]) != 0
    return X, y, extractor.transform(test), np.concatenate([td.labels for td in test]) != 0


def checked_fold(path: Path, tokenized, assignment, f: int) -> dict:
    """The cached fold ``path`` (empty where there is none), refused (``SystemExit`` naming it)
    unless computed from these notes in these folds (its ``corpus_key``; for an older cache, its
    held-out gold): another corpus's cache was reported as this one's."""
    if not path.exists():
        return {}
    saved = dict(np.load(path))
    gold = np.concatenate([td.labels for td, a in zip(tokenized, assignment) if a == f]) != 0
    same = (str(saved["corpus_key"]) == corpus_key(tokenized, assignment) if "corpus_key" in saved
            else np.array_equal(saved.get("gold"), gold))
    if not same:
        raise SystemExit(f"{path}: computed from other notes or folds (another corpus, an edited "
                         "one, or another --folds or --seed); remove it or give another --levers")
    return saved


def run_fold(tokenized, assignment, f, cache: Path, names, n_jobs, seed) -> None:
    import xgboost
    path = cache / f"fold{f}.npz"
    saved = checked_fold(path, tokenized, assignment, f)
    todo = [n for n in names if f"p_{n}" not in saved]
    if not todo:
        return
    X, y, X_test, gold = fold_rows(tokenized, assignment, f, seed)
    saved["gold"], saved["corpus_key"] = gold, np.array(corpus_key(tokenized, assignment))
    for name in todo:
        params = dict(CURRENT, **SETS[name])
        start = time.perf_counter()
        model = xgboost.XGBClassifier(**params, objective="binary:logistic", tree_method="hist",
                                      max_bin=256, n_jobs=n_jobs, random_state=seed).fit(X, y)
        saved[f"p_{name}"] = model.predict_proba(X_test)[:, 1].astype(np.float32)
        saved[f"s_{name}"] = np.float64(time.perf_counter() - start)
        np.savez(path, **saved)
        print(f"fold {f} {name}: {saved[f's_{name}']:.0f} s", flush=True)


def report(cache: Path, names, folds: int, tokenized, assignment) -> str:
    loaded = {f: checked_fold(cache / f"fold{f}.npz", tokenized, assignment, f) for f in range(folds)
              if (cache / f"fold{f}.npz").exists()}
    folds_done = [f for f, s in loaded.items() if all(f"p_{n}" in s for n in names)]
    if not folds_done:
        return "no fold has every parameter set yet\n"
    gold = np.concatenate([loaded[f]["gold"] for f in folds_done])
    rows = []
    for name in names:
        p = np.concatenate([loaded[f][f"p_{name}"] for f in folds_done])
        row = {"set": name, "params": json.dumps(SETS[name]) if SETS[name] else "(current)"}
        for r in RECALLS:
            row[f"P@R{r:.2f}"] = 100 * precision_at(p, gold, r)
        for r in (0.90, 0.95):
            diffs = [100 * (precision_at(loaded[f][f"p_{name}"], loaded[f]["gold"], r)
                            - precision_at(loaded[f]["p_current"], loaded[f]["gold"], r)) for f in folds_done]
            row[f"dP@R{r:.2f} per fold"] = (f"{np.mean(diffs):+.1f} +- {np.std(diffs, ddof=1) if len(diffs) > 1 else 0:.1f}"
                                            f" ({sum(d > 0 for d in diffs)}/{len(diffs)})")
        params = dict(CURRENT, **SETS[name])
        row["trees"] = params["n_estimators"]
        row["train_s"] = float(sum(loaded[f][f"s_{name}"] for f in folds_done))
        rows.append(row)
    return (f"folds: {', '.join(map(str, folds_done))} ({len(gold)} held-out tokens, {int(gold.sum())} PHI)\n\n"
            + markdown_table(pd.DataFrame(rows)))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_cache_arguments(ap)
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--only", default=None, help="comma-separated folds to run (default: all)")
    ap.add_argument("--n-jobs", type=int, default=1)
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    require_corpus(args.corpus)
    names = args.sets.split(",")
    unknown = [n for n in names if n not in SETS]
    if unknown or "current" not in names:
        ap.error(f"--sets must include 'current' and name only {', '.join(SETS)}")
    cache = Path(args.levers) / "cache" / "detector-params"
    cache.mkdir(parents=True, exist_ok=True)
    tokenized, assignment = tokenized_folds(args)
    if not args.report_only:
        folds = [int(f) for f in args.only.split(",")] if args.only else range(args.folds)
        for f in folds:
            run_fold(tokenized, assignment, f, cache, names, args.n_jobs, args.seed)
    text = header("The PHI detector's tree parameters: ranking in patient-grouped CV")
    text += ("\nOne detector per set (binary logistic xgboost) on the recipe member's feature rows "
             "(one re-substituted copy per training note), levers.py's folds; precision in percent "
             f"where pooled recall first reaches R; current parameters: {json.dumps(CURRENT)}.\n\n")
    publish(text + report(cache, names, args.folds, tokenized, assignment), args.out)
    return 0


if __name__ == "__main__":
    run_script(main, "detector_params.py")
