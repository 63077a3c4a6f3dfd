"""Issue G's ablation: each recall lever added to XGB_TOKEN, in the same patient-grouped folds.

    python experiments/levers.py ../shared/corpora/physionet-deid --out experiments/results/g-levers \\
        --rows XGB_TOKEN,CASING,CENSUS,LEXICON,R97 --n-jobs 2

Every row is a :class:`itdeid.estimators.model.TokenModel` cross-validated over 10 folds grouped by patient
(:func:`itdeid.estimators.folds.group_folds`, the folds of ``itdeid cv``). Each fold's out-of-fold label
probabilities are saved as soon as the fold ends (``OUT/cache/ROW/foldK.npz``), so a stopped run
resumes where it stopped; the report is rebuilt from the cache on every run.

Reported per row, pooled over the out-of-fold predictions, at the row's own operating point
(argmax, or the threshold its inner cross-validation chose for a target recall; the chosen
threshold of each fold is listed): binary token P/R, PHI instances found (any overlap), entity
relaxed and token 8-way P/R/F, and 8-way F's spread over folds. A second table reads the
ranking the row's probabilities give, whatever the threshold: binary token precision where the
pooled recall first reaches 0.90, 0.95 and 0.97. It is a diagnostic of what a threshold *could*
reach, not a choice: no setting here is picked from it.

The rows are cumulative (each adds one lever to the row before it), except the peer.
"""
from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from itdeid.estimators.crf import CRFModel
from itdeid.document import LABELS
from itdeid.evaluation.evaluate import evaluate
from itdeid.featurize import tokenize_document
from itdeid.estimators.folds import group_folds
from itdeid.formats import write_jsonl_spans
from itdeid.estimators.ensemble import InnerEnsemble
from itdeid.estimators.model import TokenModel
from itdeid.evaluation.report import code_version, header, markdown_table
from itdeid.synth import supplement

from common import (AFTER_TRAINING, RECALLS, ROWS, cache_name, cache_provenance, cached_fold, check_cache,
                    corpus_key, precision_at_recall, read_choice_corpus, require_corpus, run_script, screen_key)

#: Of :data:`common.AFTER_TRAINING`, the ones the trained estimator never takes (the cache
#: owner's ``context_weight`` is a parameter of its context stage, so training keeps it).
TAGGING_ONLY = tuple(k for k in AFTER_TRAINING if k != "context_weight")


def run_fold(name, tokenized, assignment, f, cache: Path, n_jobs, seed, code: str | None = None) -> Path:
    """Train row ``name`` on every fold but ``f``, save its probabilities on fold ``f``
    (the row owning the cache is the one trained, so a cached threshold is that row's).
    ``code``: :func:`~itdeid.evaluation.report.code_version` when the run started (default: now), which
    is the code the process runs: a commit made in the checkout during a long run changes
    what git says, not the modules already loaded (session 39's caches named four commits)."""
    params = {k: v for k, v in ROWS[cache_name(name)].items() if k not in TAGGING_ONLY}
    seed += params.pop("seed_offset", 0)    # the same folds, other random draws in training
    path = cache / cache_name(name) / f"fold{f}.npz"
    if path.exists():
        with np.load(path) as saved:
            check_cache(path, saved, tokenized, assignment, f)
        return path
    key = corpus_key(tokenized, assignment)
    path.parent.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    train = [td for td, a in zip(tokenized, assignment) if a != f]
    test = [td for td, a in zip(tokenized, assignment) if a == f]
    synthetic = params.pop("synthetic", None)
    real = len(train)
    if synthetic:   # patients renamed so no synthetic patient shares a real one's inner fold
        records, nursing, *named = synthetic
        train += [tokenize_document(d) for d in supplement(records, seed=seed + 1000 + f, nursing=nursing,
                                                           named=named[0] if named else 0.0)]
    # the threshold from the real training notes' out-of-fold probabilities alone
    calibrate_on = [i < real for i in range(len(train))] if params.pop("calibrate_real", False) else None
    if params.pop("peer", None) == "crf":
        return _save_fold(path, start, *_crf_fold(train, test, random_state=seed, **params), key, code)
    members = params.pop("members", None)
    stacked = params.pop("stacked", False)
    keep_oof = params.pop("keep_oof", False)
    keep_passes = params.pop("keep_passes", False)
    weight = params.pop("context_weight", 0.5) if stacked else None
    refit = params.pop("stage_refit", False)
    draws = params.pop("draws", 1)
    screens = params.pop("screens", ())
    rounds_options = params.pop("screen_rounds_options", ())
    reach_options = params.pop("screen_reach_options", ())
    model = TokenModel(**params, n_jobs=n_jobs, random_state=seed)
    if members:   # itdeid.estimators.ensemble: the inner fold models, averaged, thresholded by their oof
        model = InnerEnsemble(model, folds=members, target_recall=model.target_recall,
                              identifiers=False, context_pass=stacked, context_weight=weight or 0.5,
                              stage_refit=refit, draws=draws)
    if calibrate_on is None:
        model.fit_tokenized(train)
    else:   # an InnerEnsemble (a TokenModel's second argument is its trusted phrases)
        model.fit_tokenized(train, calibrate_on)
    threshold = model.operating_threshold()
    passes = {}
    if params.get("context_pass") or stacked:   # both passes tagged once, blended as the model does
        first, second = model.pass_probabilities(test)
        proba = [model.blend_passes(a, b) for a, b in zip(first, second)]
        passes = dict(first=np.concatenate(first).astype(np.float32),
                      second=np.concatenate(second).astype(np.float32))
    else:
        proba = model.predict_proba_tokenized(test)
    if keep_oof:
        passes["oof_phi"], passes["oof_gold"] = model.calibration_
    if keep_passes:   # the members' mean alone too: thresholds.py blends at the row's weight
        passes["oof_first_phi"] = model.calibration_first_
    for screen in screens:   # the same models tagging in a cascade (InnerEnsemble's screen)
        for rounds in (None, *rounds_options):
            for reach in (None, *reach_options):
                model.screen, model.screen_rounds, model.screen_reach = screen, rounds, reach
                first, second = model.pass_probabilities(test)
                tagging = screen_key(screen, rounds, reach)   # not `key`: the corpus's, saved below
                passes[f"{tagging}_first"] = np.concatenate(first).astype(np.float32)
                passes[f"{tagging}_second"] = np.concatenate(second).astype(np.float32)
        model.screen = model.screen_rounds = model.screen_reach = None
    return _save_fold(path, start, proba, threshold, passes, key, code)


def _crf_fold(train, test, **params):
    """The CRF's marginals on ``test`` and its best-sequence tags (kept as ``codes``)."""
    model = CRFModel(**params).fit_tokenized(train)
    tags = model.predict_tokenized(test)
    return model.predict_proba_tokenized(test), None, {"codes": np.concatenate(tags)}


def _save_fold(path: Path, start: float, proba, threshold, extra, key: str, code: str | None = None) -> Path:
    tmp = path.with_suffix(".tmp.npz")
    np.savez_compressed(tmp, **extra, corpus_key=np.array(key), proba=np.concatenate(proba).astype(np.float32),
                        lengths=np.array([len(p) for p in proba]),
                        threshold=np.array(np.nan if threshold is None else threshold),
                        seconds=np.array(time.perf_counter() - start),
                        code=np.array(code or code_version()))     # which code computed this fold
    tmp.replace(path)  # a fold is either wholly saved or not at all
    return path


def row_scores(name, tokenized, assignment, cache: Path, folds):
    """Pooled evaluation, per-fold 8-way F, thresholds, seconds and pooled (P(PHI), gold) of a
    row over the cached folds ``folds`` (their indices)."""
    predictions, per_fold_f, thresholds, seconds = {}, [], [], 0.0
    p_phi, gold = [], []
    for f in folds:
        fold = cached_fold(name, tokenized, assignment, cache, f)
        thresholds.append(fold["threshold"])
        seconds += fold["seconds"]
        predictions.update(fold["spans"])
        fold_eval = evaluate([td.document for td in fold["test"]], fold["spans"]).to_dict()["summary"]
        per_fold_f.append(fold_eval["token_8way"]["f"])
        for td, p in zip(fold["test"], fold["proba"]):
            p_phi.append(1.0 - p[:, 0])
            gold.append(td.labels != 0)
    scores = evaluate([td.document for td in tokenized if td.document.id in predictions], predictions)
    return scores, per_fold_f, thresholds, seconds, np.concatenate(p_phi), np.concatenate(gold)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus")
    ap.add_argument("--out", default="experiments/results/g-levers")
    ap.add_argument("--rows", default=",".join(list(ROWS)[:5]))
    ap.add_argument("--folds", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n-jobs", type=int, default=2)
    ap.add_argument("--only", default=None,
                    help="compute only these folds (comma-separated indices, in this order), e.g. "
                         "to share a row's folds between two processes; the report waits for all")
    ap.add_argument("--report-only", action="store_true", help="rebuild the report from the cache")
    ap.add_argument("--report", default="results.md",
                    help="the report's file name in OUT (default results.md): another keeps the "
                         "table of rows whose caches a new checkout no longer has")
    ap.add_argument("--write-predictions", action="store_true",
                    help="only write OUT/predictions-ROW.jsonl from the cache, each row's "
                         "out-of-fold spans at its operating point (for peers.py --itdeid-predictions)")
    ap.add_argument("--partial", action="store_true",
                    help="with --report-only: write partial.md over the folds every named row has "
                         "cached so far (an unfinished run's interim view; results.md is untouched)")
    args = ap.parse_args(argv)
    require_corpus(args.corpus)
    names = [r for r in args.rows.split(",") if r]
    unknown = [r for r in names if r not in ROWS]
    if unknown:
        ap.error(f"unknown rows {unknown}; choose from {list(ROWS)}")
    out = Path(args.out)
    cache = out / "cache"
    documents = read_choice_corpus(args.corpus)
    tokenized = [tokenize_document(d) for d in documents]
    assignment = group_folds(documents, args.folds, args.seed)
    order = [int(f) for f in args.only.split(",")] if args.only else list(range(args.folds))
    started = code_version()
    for name in [] if args.report_only or args.write_predictions else names:
        for f in order:
            run_fold(name, tokenized, assignment, f, cache, args.n_jobs, args.seed, started)
            print(f"{name} fold {f + 1}/{args.folds} done", file=sys.stderr, flush=True)
        if not args.only:
            write_report(out, args, names, documents, tokenized, assignment)
    if args.write_predictions:
        for name in names:
            write_predictions(out / f"predictions-{name}.jsonl", name, tokenized, assignment, cache, args.folds)
    elif args.report_only:
        write_report(out, args, names, documents, tokenized, assignment)
    return 0


def write_predictions(path: Path, name: str, tokenized, assignment, cache: Path, folds: int) -> None:
    """Row ``name``'s out-of-fold spans of every note as JSON Lines (doc, start, end, type)."""
    spans = {}
    for f in range(folds):
        spans.update(cached_fold(name, tokenized, assignment, cache, f)["spans"])
    write_jsonl_spans([replace(td.document, spans=spans[td.document.id]) for td in tokenized], path)
    print(f"wrote {path}", file=sys.stderr)


def write_report(out: Path, args, names, documents, tokenized, assignment) -> None:
    cache = out / "cache"
    cached = lambda n, f: (cache / cache_name(n) / f"fold{f}.npz").exists()  # noqa: E731
    fold_ids = list(range(args.folds))
    if getattr(args, "partial", False):
        fold_ids = [f for f in fold_ids if all(cached(n, f) for n in names)]
    done = [n for n in names if fold_ids and all(cached(n, f) for f in fold_ids)]
    if not done and args.report_only:   # an empty table over the committed one, status 0 before
        raise SystemExit(f"no row of {', '.join(names)} has its {args.folds} folds cached in "
                         f"{cache} (another --folds?); nothing to report")
    main_rows, rank_rows, class_rows, details = [], [], [], []
    for name in done:
        scores, per_fold_f, thresholds, seconds, p_phi, gold = row_scores(
            name, tokenized, assignment, cache, fold_ids)
        s = scores.to_dict()["summary"]
        main_rows.append({
            "row": name, "binary_P": s["binary_token"]["p"], "binary_R": s["binary_token"]["r"],
            "instances_R": s["phi_instances"]["r"], "instances_P": s["phi_instances"]["p"],
            "entity_relaxed_F": s["entity_relaxed"]["f"], "8way_P": s["token_8way"]["p"],
            "8way_R": s["token_8way"]["r"], "8way_F": s["token_8way"]["f"],
            "8way_F_fold_sd": float(np.std(per_fold_f)), "train_seconds": round(seconds)})
        rank = {"row": name}
        for r in RECALLS:
            rank[f"P@R{r:.2f}"], rank[f"threshold@R{r:.2f}"] = precision_at_recall(p_phi, gold, r)
        rank_rows.append(rank)
        per_class = scores.per_class()
        class_rows.append({"row": name, **{c: per_class[c]["f"] for c in LABELS[1:]},
                           **{f"{c}_found": per_class[c]["instances"]["r"] for c in LABELS[1:]}})
        chosen = ", ".join("argmax" if t is None else f"{t:.3f}" for t in thresholds)
        details.append(f"## {name}\n\n- parameters: `{ROWS[name]}`\n- operating point per fold: "
                       f"{chosen}\n\n```\n{scores.format()}\n```\n")
    pct = lambda frame: frame.set_index("row").apply(  # noqa: E731
        lambda c: c.map(lambda t: f"{t:.2g}") if c.name.startswith("threshold")
        else c if c.name.startswith("train") else (100 * c).round(2))
    # the command as run (a hand-built one dropped --folds and --seed)
    text = (header(f"Issue G levers: {args.folds}-fold CV grouped by patient on {Path(args.corpus).name}")
            + cache_provenance(Path(args.out) / 'cache', names, fold_ids) +
            f"- corpus: {len(documents)} documents, {len({d.patient or d.id for d in documents})} patients\n"
            + (f"- partial: {len(done)} of {len(names)} rows finished\n" if len(done) < len(names) else "")
            + (f"- **interim: only folds {fold_ids} ({len(fold_ids)} of {args.folds}), those every row "
               "has cached; pooled over their notes alone**\n" if len(fold_ids) < args.folds else "")
            + "\nAt each row's operating point (percent; train_seconds: all folds' training and tagging):\n\n"
            + (markdown_table(pct(pd.DataFrame(main_rows))) if main_rows else "(none yet)")
            + "\n\nRanking, whatever the threshold (binary token precision where pooled recall "
              "first reaches R; a diagnostic, nothing is chosen by it):\n\n"
            + (markdown_table(pct(pd.DataFrame(rank_rows))) if rank_rows else "(none yet)")
            + "\n\nPer class: token 8-way F, and the share of gold instances found by any overlap "
              "(`_found`):\n\n"
            + (markdown_table(pct(pd.DataFrame(class_rows))) if class_rows else "(none yet)")
            + "\n\n" + "\n".join(details))
    out.mkdir(parents=True, exist_ok=True)
    report = getattr(args, "report", "results.md")
    (out / ("partial.md" if len(fold_ids) < args.folds else report)).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    run_script(main, "levers.py")
