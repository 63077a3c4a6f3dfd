"""Reproduce the layout of Szarvas et al. (2007) Table 1 (and Table 2) by cross-validation.

    python experiments/table1.py --corpus CORPUS [--folds 10] [--out experiments/results/table1-NAME]
    python experiments/table1.py --corpus TRAIN --test TEST [--out ...]

For every fold (document boundaries, a patient's notes in one fold) a :class:`Deidentifier` is
trained on the other folds and all its stages are applied to the held-out notes; the baselines
(majority class, one entropy tree with token triggers) are trained on the same folds. Scores are
pooled over the out-of-fold predictions of the whole corpus. Rows:

- BASELINE, C4.5
- with ``--peers CRF,RULES``: the peer rows of issue E (:data:`itdeid.training.crossval.PEER_ROWS`), trained
  in the same folds. A resumed run adds peers missing from a finished fold's checkpoint without
  redoing the rest.
- ITRi_BEST: the best of the three trigger models of iteration i (by pooled 8-way F; which one is
  named in the ``model`` column), ITRi_VOTE: their vote; each raw and standardized (``_STD``).
- ITRi_RECALL: the same three models' labels under the recall-first vote (not in the paper; the
  trusted phrases still come from ``--vote``); ITRi_VOTE_STD_PATIENT: the vote standardized over
  each patient's notes at once.

With ``--test``, no cross-validation: the system and baselines are trained once on all of
``--corpus`` and every stage is scored on ``TEST`` (e.g. trained on the synthetic corpus, tested on
the hand-written held-out notes, which shows what generalizes beyond the generator).

Writes ``table1.md`` (with the command, date and machine), ``table1.csv``, ``table2.md`` (the
confusion matrix of the final stage) and ``scores.json``.

A run takes hours on two cores, so every finished fold's out-of-fold label codes (no text) are
kept in ``OUT/folds/fold-K.npz``, with the settings in ``OUT/folds/settings.json``: running the
same command again resumes after the last finished fold. Other settings refuse to mix with them
(delete ``OUT/folds`` to start over). Wall time is the sum of the folds' times.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from tqdm import tqdm

from itdeid.training.crossval import PEER_ROWS, group_folds, row_model
from itdeid.estimators.deidentifier import Deidentifier
from itdeid.document import LABELS
from itdeid.evaluation.evaluate import evaluate
from itdeid.featurize import tokenize_document
from itdeid.formats import read_corpus
from itdeid.estimators.model import TokenModel
from itdeid.evaluation.report import header, markdown_table
from itdeid.text.spans import labels_to_spans
from itdeid.estimators.vote import vote

from common import corpus_digest, load_fold, run_script


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--corpus", required=True, help="annotated corpus (any format itdeid reads)")
    p.add_argument("--folds", type=int, default=10)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--iterations", type=int, default=2)
    p.add_argument("--harvest", choices=["gold", "oof"], default="gold")
    p.add_argument("--spread", choices=["document", "patient"], default="document")
    p.add_argument("--vote", choices=["two_of_three", "recall_first"], default="two_of_three")
    p.add_argument("--trust-triggers", action="store_true", help="the paper's negative result")
    p.add_argument("--n-estimators", type=int, default=None, help="xgboost rounds (default: learner's)")
    p.add_argument("--learning-rate", type=float, default=None, help="xgboost learning rate (default: learner's)")
    p.add_argument("--n-jobs", type=int, default=None)
    p.add_argument("--negative-rate", type=float, default=1.0,
                   help="fraction of distant non-PHI tokens the boosted trees train on (TokenModel)")
    p.add_argument("--device", default="cpu", help="xgboost device: cpu or cuda")
    p.add_argument("--previous", choices=["gold", "oof", "none"], default="gold",
                   help="previous-class feature source of the token models (default: gold, 3x "
                        "cheaper than oof)")
    p.add_argument("--test", default=None, help="train on all of --corpus and score on this corpus instead of "
                                                   "cross-validating")
    p.add_argument("--peers", default="", help="comma-separated peer rows to add, among " + ", ".join(PEER_ROWS))
    p.add_argument("--out", default=None, help="results folder (default: experiments/results/table1-<corpus>)")
    return p.parse_args(argv)


def scores_row(name: str, model: str, scores) -> dict:
    s = scores.to_dict()["summary"]
    return {"row": name, "model": model, "9way_F": 100 * s["token_9way"]["f"],
            "8way_P": 100 * s["token_8way"]["p"], "8way_R": 100 * s["token_8way"]["r"],
            "8way_F": 100 * s["token_8way"]["f"]}



def checkpoint_settings(args, documents) -> dict:
    """What a fold's results depend on; a resumed run must match it (the corpus by its digest:
    its path and size alone let an edited corpus resume on the old one's folds)."""
    keys = ("corpus", "folds", "seed", "iterations", "harvest", "spread", "vote", "trust_triggers",
            "n_estimators", "learning_rate", "device", "previous")
    settings = {**{k: getattr(args, k) for k in keys}, "documents": len(documents),
                "corpus_digest": corpus_digest(documents)}
    if args.negative_rate != 1.0:       # absent from checkpoints written before the option
        settings["negative_rate"] = args.negative_rate
    return settings


def fit_and_tag(args, train, test, model_params) -> dict[str, list[np.ndarray]]:
    """Train the system and the baselines on ``train``; label codes of every stage on ``test``."""
    system = Deidentifier(iterations=args.iterations, harvest=args.harvest, spread=args.spread,
                          vote=args.vote, trust_triggers=args.trust_triggers,
                          model_params=model_params, random_state=args.seed).fit_tokenized(train)
    stages = system.predict_stages(test)
    for baseline, learner in (("BASELINE", "majority"), ("C4.5", "tree")):
        model = TokenModel(learner=learner, trigger="token", previous=args.previous,
                           random_state=args.seed).fit_tokenized(train)
        stages[baseline] = model.predict_tokenized(test)
    return stages



def add_peers(args, train, test, names, stages, peer_seconds, fold) -> None:
    """Each peer row of ``names``, trained on ``train``, into ``stages`` as its label codes on
    ``test``, timed on its own into ``peer_seconds[name][fold]``."""
    for name in names:
        start = time.perf_counter()
        model = row_model(name, {}, {"random_state": args.seed}).fit_tokenized(train)
        stages[name] = model.predict_tokenized(test)
        peer_seconds.setdefault(name, {})[str(fold)] = round(time.perf_counter() - start, 1)


def add_recall_first(stage_codes: dict, tokenized, args) -> None:
    """Stages ``ITRi_RECALL`` (and ``_STD``): the recall-first vote of iteration i's three models,
    computed from their saved labels. The trusted phrases of each iteration still come from the
    configured vote, so this shows what the rule changes at tagging time, not a chain retrained
    with it. And ``ITRi_VOTE_STD_PATIENT``: the vote standardized over all of a patient's notes
    (Yang & Garibaldi's timeline) rather than each note alone."""
    system = Deidentifier(spread=args.spread)
    triggers = ("TOKEN", "PHRASE", "NGRAM")
    for i in range(args.iterations + 1):
        names = [f"ITR{i}_{t}" for t in triggers]
        if not all(n in stage_codes for n in names):
            continue
        docs = sorted(stage_codes[names[0]])
        voted = [vote([stage_codes[n][d] for n in names], "recall_first") for d in docs]
        std = system._standardized([tokenized[d] for d in docs], voted)
        stage_codes[f"ITR{i}_RECALL"] = dict(zip(docs, voted))
        stage_codes[f"ITR{i}_RECALL_STD"] = dict(zip(docs, std))
        if args.spread == "document":     # standardized over each patient's notes instead
            final = [stage_codes[f"ITR{i}_VOTE"][d] for d in docs]
            pooled = Deidentifier(spread="patient")._standardized([tokenized[d] for d in docs], final)
            stage_codes[f"ITR{i}_VOTE_STD_PATIENT"] = dict(zip(docs, pooled))


def save_fold(path: Path, stages: dict[str, list[np.ndarray]]) -> None:
    """One fold's label codes (no text), written atomically so a killed run leaves no half file."""
    lengths = np.array([len(c) for c in next(iter(stages.values()))], dtype=np.int64)
    arrays = {stage: np.concatenate(codes).astype(np.int8) if len(codes) else np.zeros(0, np.int8)
              for stage, codes in stages.items()}
    tmp = path.with_name(path.stem + ".tmp.npz")
    np.savez_compressed(tmp, __lengths__=lengths, **arrays)
    tmp.replace(path)


def parse_peers(text: str) -> list[str]:
    names = [p.strip() for p in text.split(",") if p.strip()]
    unknown = [p for p in names if p not in PEER_ROWS]
    if unknown:
        sys.exit(f"table1: unknown peers {', '.join(unknown)}; choose from {', '.join(PEER_ROWS)}")
    return names


def cross_validated(args, documents, tokenized, out: Path, model_params) -> tuple[dict, float, dict]:
    """Stage -> {document index: label codes} over all folds, the summed fold seconds of the
    system and baselines, and each peer row's summed seconds."""
    folds = group_folds(documents, args.folds, args.seed)
    stage_codes: dict[str, dict[int, object]] = {}
    checkpoints = out / "folds"
    checkpoints.mkdir(exist_ok=True)
    settings = checkpoint_settings(args, documents)
    settings_path = checkpoints / "settings.json"
    saved = json.loads(settings_path.read_text(encoding="utf-8")) if settings_path.exists() else settings
    saved.setdefault("previous", "gold")        # checkpoints written before the option existed
    saved.setdefault("corpus_digest", settings["corpus_digest"])     # and before the digest
    if saved != settings:
        changed = ", ".join(sorted(k for k in set(saved) | set(settings) if saved.get(k) != settings.get(k)))
        sys.exit(f"table1: {checkpoints} holds folds of other settings ({changed} differ); delete "
                 "it to start over")
    settings_path.write_text(json.dumps(settings, indent=1), encoding="utf-8")
    seconds_path = checkpoints / "seconds.json"
    fold_seconds = json.loads(seconds_path.read_text()) if seconds_path.exists() else {}
    peer_path = checkpoints / "peer-seconds.json"
    peer_seconds = json.loads(peer_path.read_text()) if peer_path.exists() else {}
    peers = parse_peers(args.peers)
    for f in tqdm(range(args.folds), desc="table1", unit="fold", file=sys.stderr):
        test_idx = [i for i in range(len(documents)) if folds[i] == f]
        fold_path = checkpoints / f"fold-{f}.npz"
        train = [tokenized[i] for i in range(len(documents)) if folds[i] != f]
        test = [tokenized[i] for i in test_idx]
        if fold_path.exists():
            stages = load_fold(fold_path)
            missing = [p for p in peers if p not in stages]
            if missing:
                add_peers(args, train, test, missing, stages, peer_seconds, f)
                save_fold(fold_path, stages)
        else:
            start = time.perf_counter()
            stages = fit_and_tag(args, train, test, model_params)
            fold_seconds[str(f)] = round(time.perf_counter() - start, 1)
            add_peers(args, train, test, peers, stages, peer_seconds, f)
            save_fold(fold_path, stages)
        seconds_path.write_text(json.dumps(fold_seconds), encoding="utf-8")
        peer_path.write_text(json.dumps(peer_seconds), encoding="utf-8")
        for stage, codes in stages.items():
            bucket = stage_codes.setdefault(stage, {})
            for i, c in zip(test_idx, codes):
                bucket[i] = c
    return stage_codes, sum(fold_seconds.values()), {p: sum(v.values()) for p, v in peer_seconds.items()}


def paired_differences(stage_codes, documents, tokenized, folds, iterations: int) -> str:
    """Per-fold 8-way F differences of the method's steps (vote over the best single trigger
    model, standardization, each iteration over ITR0): mean and standard error over folds, and
    the folds a step wins. A pooled table hides how much a step moves from fold to fold; a gain
    smaller than two standard errors is not told apart from noise."""
    def fold_f(stage, f):
        members = [i for i in stage_codes[stage] if folds[i] == f]
        predicted = {documents[i].id: labels_to_spans(tokenized[i].document.text, tokenized[i].tokens,
                                                      [LABELS[c] for c in stage_codes[stage][i]])
                     for i in members}
        return evaluate([documents[i] for i in members], predicted).to_dict()["summary"]["token_8way"]["f"]

    pairs = [("ITR0_TOKEN", "ITR0_VOTE"), ("ITR0_VOTE", "ITR0_VOTE_STD")]
    pairs += [("ITR0_VOTE_STD", f"ITR{i}_VOTE_STD") for i in range(1, iterations + 1)]
    pairs += [("ITR0_VOTE_STD", f"ITR{i}_VOTE_STD_PATIENT") for i in range(iterations + 1)]
    fold_ids = sorted(set(folds))
    rows = []
    for base, step in pairs:
        if base not in stage_codes or step not in stage_codes:
            continue
        d = 100 * np.array([fold_f(step, f) - fold_f(base, f) for f in fold_ids])
        rows.append({"step": f"{step} - {base}", "mean": f"{d.mean():+.2f}",
                     "standard error": f"{d.std(ddof=1) / np.sqrt(len(d)):.2f}",
                     "folds better / worse": f"{int((d > 0).sum())} / {int((d < 0).sum())}"})
    return ("\nPer fold, the 8-way F difference of each step (percentage points; mean and standard "
            "error over the folds):\n\n" + markdown_table(pd.DataFrame(rows).set_index("step")) + "\n")


def main(argv=None):
    args = parse_args(argv)
    train_documents = read_corpus(args.corpus)
    name = Path(args.corpus).stem if Path(args.corpus).is_file() else Path(args.corpus).name
    model_params = {"previous": args.previous, "n_estimators": args.n_estimators, "learning_rate": args.learning_rate,
                    "n_jobs": args.n_jobs, "device": args.device, "negative_rate": args.negative_rate}
    if args.test:
        documents = read_corpus(args.test)
        test_name = Path(args.test).stem if Path(args.test).is_file() else Path(args.test).name
        out = Path(args.out or f"experiments/results/table1-{name}-on-{test_name}")
        out.mkdir(parents=True, exist_ok=True)
        tokenized = [tokenize_document(d) for d in documents]
        start = time.perf_counter()
        train = [tokenize_document(d) for d in train_documents]
        stages = fit_and_tag(args, train, tokenized, model_params)
        seconds = time.perf_counter() - start
        by_peer: dict[str, dict] = {}
        add_peers(args, train, tokenized, parse_peers(args.peers), stages, by_peer, "test")
        peer_seconds = {p: sum(v.values()) for p, v in by_peer.items()}
        stage_codes = {stage: dict(enumerate(codes)) for stage, codes in stages.items()}
        title = f"trained on {name}, tested on {test_name}"
    else:
        documents = train_documents
        out = Path(args.out or f"experiments/results/table1-{name}")
        out.mkdir(parents=True, exist_ok=True)
        tokenized = [tokenize_document(d) for d in documents]
        stage_codes, seconds, peer_seconds = cross_validated(args, documents, tokenized, out, model_params)
        title = f"{args.folds}-fold CV on {name}"
    add_recall_first(stage_codes, tokenized, args)

    def score(stage):
        predicted = {documents[i].id: labels_to_spans(tokenized[i].document.text, tokenized[i].tokens,
                                                      [LABELS[c] for c in codes])
                     for i, codes in stage_codes[stage].items()}
        return evaluate(documents, predicted)

    all_scores = {stage: score(stage) for stage in stage_codes}
    rows = [scores_row("BASELINE", "majority", all_scores["BASELINE"]),
            scores_row("C4.5", "tree", all_scores["C4.5"])]
    rows += [scores_row(p, "peer", all_scores[p]) for p in PEER_ROWS if p in all_scores]
    triggers = ("TOKEN", "PHRASE", "NGRAM")
    for i in range(args.iterations + 1):
        for std in ("", "_STD"):
            best = max(triggers, key=lambda t: all_scores[f"ITR{i}_{t}{std}"].to_dict()["summary"]["token_8way"]["f"])
            rows.append(scores_row(f"ITR{i}_BEST{std}", best.lower(), all_scores[f"ITR{i}_{best}{std}"]))
            rows.append(scores_row(f"ITR{i}_VOTE{std}", "vote", all_scores[f"ITR{i}_VOTE{std}"]))
            rows.append(scores_row(f"ITR{i}_RECALL{std}", "recall_first", all_scores[f"ITR{i}_RECALL{std}"]))
        if f"ITR{i}_VOTE_STD_PATIENT" in all_scores:
            rows.append(scores_row(f"ITR{i}_VOTE_STD_PATIENT", "vote", all_scores[f"ITR{i}_VOTE_STD_PATIENT"]))
    table = pd.DataFrame(rows).set_index("row")
    table.to_csv(out / "table1.csv")
    final = f"ITR{args.iterations}_VOTE_STD"
    text = header(f"Table 1 layout: {title}")
    corpus = f"{len(documents)} documents, {len({d.patient or d.id for d in documents})} patients"
    if args.test:
        corpus = f"trained on {len(train_documents)} documents, tested on {corpus}"
    text += (f"- corpus: {corpus}\n"
             f"- settings: iterations={args.iterations}, harvest={args.harvest}, spread={args.spread}, "
             f"vote={args.vote}, trust_triggers={args.trust_triggers}, previous={args.previous}, "
             f"n_estimators={args.n_estimators}, learning_rate={args.learning_rate}, "
             f"negative_rate={args.negative_rate}\n"
             f"- wall time: {seconds:.0f} s (system and baselines)"
             + "".join(f"; {p} {t:.0f} s" for p, t in peer_seconds.items()) + "\n\nToken-level scores in percent, pooled over "
             f"{'the test corpus' if args.test else 'out-of-fold predictions'} (9-way F counts non-PHI tokens too; 8-way P/R/F over the PHI classes).\n\n")
    text += markdown_table(table)
    text += "\nEvery single model and stage:\n\n"
    text += markdown_table(pd.DataFrame([scores_row(s, s, all_scores[s]) for s in sorted(all_scores)])
                           .drop(columns="model").set_index("row"))
    if not args.test:
        text += paired_differences(stage_codes, documents, tokenized, group_folds(documents, args.folds, args.seed),
                                   args.iterations)
    (out / "table1.md").write_text(text, encoding="utf-8")
    t2 = header(f"Table 2 layout: confusion matrix of {final}, {title}")
    t2 += "\nToken counts; rows gold, columns predicted.\n\n" + markdown_table(all_scores[final].confusion)
    t2 += "\nPer class:\n\n```\n" + all_scores[final].format() + "\n```\n"
    (out / "table2.md").write_text(t2, encoding="utf-8")
    (out / "scores.json").write_text(json.dumps({s: v.to_dict()["summary"] for s, v in all_scores.items()},
                                                indent=1), encoding="utf-8")
    print(markdown_table(table))
    print(f"written to {out}/table1.md, table1.csv, table2.md, scores.json")


if __name__ == "__main__":
    run_script(main, "table1.py")
