"""Reproduce Szarvas et al. (2007) Figure 2: feature groups added greedily, most useful first.

    python experiments/figure2.py --corpus CORPUS [--folds 3] [--n-estimators 60]
                                  [--out experiments/results/figure2-NAME]

Starting from no features, each step adds the one feature group (of the ten of
:mod:`itdeid.featurize`) that gives the highest cross-validated token 8-way F together with the
groups already chosen, until all ten are in. The token-trigger model is used, with gold
previous-class labels at training time and left-to-right decoding at test time, as ``itdeid cv``.

Cost: 55 cross-validations. To make that affordable, the full feature matrix of each fold is
computed once and every group subset is a selection of its columns (a group's columns do not
depend on the other groups), and the learner is smaller than the default (``--n-estimators``,
``--learning-rate``): the curve ranks groups, it does not set the best score (``itdeid cv`` does).

Writes ``figure2.md`` (the order, F after each step and every candidate's F), ``figure2.csv``
and ``figure2.png`` (needs matplotlib: ``pip install '.[plots]'``).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from tqdm import tqdm

from itdeid.training.crossval import group_folds
from itdeid.document import LABELS
from itdeid.evaluation.evaluate import evaluate
from itdeid.featurize import GROUPS, FeatureExtractor, set_previous, tokenize_document
from itdeid.formats import read_corpus
from itdeid.estimators.learners import Learner
from itdeid.estimators.decoding import decode
from itdeid.evaluation.report import header, markdown_table
from itdeid.text.spans import labels_to_spans

from common import run_script


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--corpus", required=True)
    p.add_argument("--folds", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--n-estimators", type=int, default=60)
    p.add_argument("--learning-rate", type=float, default=0.3)
    p.add_argument("--n-jobs", type=int, default=None)
    p.add_argument("--device", default="cpu")
    p.add_argument("--out", default=None)
    p.add_argument("--redraw", action="store_true",
                   help="only draw figure2.png again from the figure2.csv in --out (no training)")
    return p.parse_args(argv)


class FoldMatrices:
    """One fold's full feature matrices, from which group subsets are cut."""

    def __init__(self, train, test):
        self.extractor = FeatureExtractor(groups=GROUPS, trigger="token").fit(train)
        self.names = self.extractor.feature_names_
        self.X_train = self.extractor.transform(train)
        self.X_test = self.extractor.transform(test)
        self.y = np.concatenate([td.labels for td in train]).astype(np.int64)
        self.train_lengths = np.array([len(td) for td in train])
        self.test_lengths = np.array([len(td) for td in test])

    def columns(self, groups) -> tuple[list[int], list[int]]:
        names = FeatureExtractor(groups=groups, window=self.extractor.window)._names()
        cols = [self.names.index(n) for n in names]
        previous = [i for i, n in enumerate(names) if n in ("prev1_class", "prev2_class")]
        return cols, previous


def main(argv=None):
    args = parse_args(argv)
    name = Path(args.corpus).stem if Path(args.corpus).is_file() else Path(args.corpus).name
    out = Path(args.out or f"experiments/results/figure2-{name}")
    if args.redraw:
        table = pd.read_csv(out / "figure2.csv", index_col="step")
        return 0 if draw(table, name, args.folds, out / "figure2.png") else 1
    documents = read_corpus(args.corpus)
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    tokenized = [tokenize_document(d) for d in documents]
    folds = group_folds(documents, args.folds, args.seed)
    fold_data, fold_tests = [], []
    for f in range(args.folds):
        train = [tokenized[i] for i in range(len(documents)) if folds[i] != f]
        test_idx = [i for i in range(len(documents)) if folds[i] == f]
        fold_data.append(FoldMatrices(train, [tokenized[i] for i in test_idx]))
        fold_tests.append(test_idx)

    def cv_f(groups) -> float:
        predicted = {}
        for data, test_idx in zip(fold_data, fold_tests):
            cols, previous = data.columns(groups)
            X = data.X_train[:, cols].copy()
            if previous:
                set_previous(X, previous, data.y, data.train_lengths)
            learner = Learner("xgboost", n_estimators=args.n_estimators, learning_rate=args.learning_rate,
                              n_jobs=args.n_jobs, device=args.device, random_state=args.seed).fit(X, data.y)
            proba = decode(learner, data.X_test[:, cols].copy(), data.test_lengths, previous)
            for i, p in zip(test_idx, proba):
                td = tokenized[i]
                predicted[td.document.id] = labels_to_spans(td.document.text, td.tokens,
                                                            [LABELS[c] for c in p.argmax(axis=1)])
        return evaluate(documents, predicted).to_dict()["summary"]["token_8way"]["f"] * 100

    chosen: list[str] = []
    steps, candidates = [], []
    with tqdm(total=len(GROUPS) * (len(GROUPS) + 1) // 2, desc="figure2", unit="cv", file=sys.stderr) as bar:
        while len(chosen) < len(GROUPS):
            scores = {}
            for g in [g for g in GROUPS if g not in chosen]:
                scores[g] = cv_f(chosen + [g])
                candidates.append({"step": len(chosen) + 1, "group": g, "8way_F": scores[g]})
                bar.update(1)
            best = max(scores, key=scores.get)
            chosen.append(best)
            steps.append({"step": len(chosen), "added": best, "8way_F": scores[best]})
    seconds = time.perf_counter() - start
    table = pd.DataFrame(steps).set_index("step")
    table.to_csv(out / "figure2.csv")
    text = header(f"Figure 2 layout: feature groups added greedily, {args.folds}-fold CV on {name}")
    text += (f"- corpus: {len(documents)} documents\n- learner: xgboost, {args.n_estimators} rounds, "
             f"learning rate {args.learning_rate} (smaller than the default: this ranks groups)\n"
             f"- wall time: {seconds:.0f} s\n\nToken 8-way F (percent) after each step:\n\n")
    text += markdown_table(table)
    text += "\nEvery candidate at every step:\n\n" + markdown_table(
        pd.DataFrame(candidates).pivot(index="group", columns="step", values="8way_F"))
    (out / "figure2.md").write_text(text, encoding="utf-8")
    drawn = draw(table, name, args.folds, out / "figure2.png")
    print(markdown_table(table))
    print(f"written to {out}/figure2.md, figure2.csv" + (", figure2.png" if drawn else ""))


def draw(table: pd.DataFrame, name: str, folds: int, path: Path) -> bool:
    """The curve as a PNG; False (said on stderr) when matplotlib is not installed."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed (pip install '.[plots]'): figure2.png not drawn", file=sys.stderr)
        return False
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(table.index, table["8way_F"], marker="o")
    ax.set_xticks(table.index, [f"+{g}" for g in table["added"]], rotation=40, ha="right")
    ax.set_ylabel("token 8-way F (%)")
    ax.set_title(f"Feature groups added greedily ({name}, {folds}-fold CV)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    return True


if __name__ == "__main__":
    run_script(main, "figure2.py")
