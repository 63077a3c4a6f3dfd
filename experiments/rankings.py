"""How well rows of experiments/levers.py rank PHI, alone and averaged, with the fold spread.

    python experiments/rankings.py ../shared/corpora/physionet-deid --levers experiments/results/g-levers \\
        --rows LEXICON,SPELLING,MEASURE,RESUB1 --means LEXICON+RESUB1,LEXICON+MEASURE+RESUB1 \\
        --against LEXICON --out experiments/results/g-levers/rankings.md

Reads the rows' cached out-of-fold probabilities (run levers.py first; nothing is trained). For
each row, and for the mean of the P(PHI) of several rows (``--means``: would an ensemble of
them rank better than each?), it gives the binary token precision where pooled recall first
reaches 0.90 / 0.95 / 0.97. A term of a mean may carry a weight (``A*0.8+B*0.2``: weighted
arithmetic mean), and a mean written ``geo:A*0.8+B*0.2`` is the weighted geometric mean of the
P(PHI) (each floored at 1e-6), which lets a model that is sure a token is ordinary text pull it
down more than an arithmetic mean does. A pooled number hides how much it moves from fold to fold, so a
second table gives, per row, the mean over folds of the per-fold precision at recall 0.90 and
0.95 minus that of ``--against``, its standard error and the folds it wins: a gain smaller
than two standard errors is not told apart from noise. A diagnostic of the ranking, like
levers.py's own table: no threshold or setting is chosen from it.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from itdeid.evaluation.report import header

from common import (add_cache_arguments, cache_provenance, cached_fold, cached_folds, publish, ranking_tables,
                    require_corpus, run_script, tables_text, tokenized_folds)


def fold_scores(name, tokenized, assignment, cache, f):
    """Row ``name``'s P(PHI) and gold PHI flags over fold ``f``'s tokens."""
    fold = cached_fold(name, tokenized, assignment, cache, f)
    return (np.concatenate([1.0 - p[:, 0] for p in fold["proba"]]),
            np.concatenate([td.labels != 0 for td in fold["test"]]))


def mean_terms(spec: str) -> tuple[bool, list[tuple[str, float]]]:
    """``geo:A*0.8+B*0.2`` -> (True, [("A", 0.8), ("B", 0.2)]); unweighted terms share equally."""
    geometric = spec.startswith("geo:")
    parts = spec.removeprefix("geo:").split("+")
    terms = [(p.split("*")[0], float(p.split("*")[1]) if "*" in p else None) for p in parts]
    if any(w is None for _, w in terms):
        terms = [(r, 1.0 / len(terms)) for r, _ in terms]
    return geometric, terms


def blend(p_phi: list[np.ndarray], weights: list[float], geometric: bool) -> np.ndarray:
    """The weighted arithmetic (or geometric) mean of the rows' P(PHI)."""
    w = np.asarray(weights) / np.sum(weights)
    if geometric:
        return np.exp(sum(wi * np.log(np.maximum(p, 1e-6)) for wi, p in zip(w, p_phi)))
    return sum(wi * p for wi, p in zip(w, p_phi))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_cache_arguments(ap)
    ap.add_argument("--rows", required=True)
    ap.add_argument("--means", default="", help="comma-separated means, each rows joined by '+', "
                    "a row optionally weighted (ROW*0.2), the mean geometric with the prefix geo:")
    ap.add_argument("--against", default=None, help="row the paired differences are taken against")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    require_corpus(args.corpus)
    rows = [r for r in args.rows.split(",") if r]
    means = [m for m in args.means.split(",") if m]
    against = args.against or rows[0]
    cache = Path(args.levers) / "cache"
    needed = sorted(set(rows) | {r for m in means for r, _ in mean_terms(m)[1]} | {against})
    folds = cached_folds(cache, needed, args.folds)
    if not folds:
        print("no fold is cached for every row named", file=sys.stderr)
        return 1
    tokenized, assignment = tokenized_folds(args)
    per_fold = {r: [fold_scores(r, tokenized, assignment, cache, f) for f in folds] for r in needed}
    gold = [g for _, g in per_fold[needed[0]]]
    entries = {r: [p for p, _ in per_fold[r]] for r in rows}
    for m in means:
        geometric, terms = mean_terms(m)
        entries[("gmean(" if geometric else "mean(") + m.removeprefix("geo:") + ")"] = [
            blend([per_fold[r][k][0] for r, _ in terms], [w for _, w in terms], geometric)
            for k in range(len(folds))]
    entries.setdefault(against, [p for p, _ in per_fold[against]])
    pooled, paired = ranking_tables(entries, gold, against)
    text = (header("Ranking of PHI by rows of levers.py, alone and averaged")
            + cache_provenance(Path(args.levers) / 'cache', rows, folds) +
            f"- folds: {folds} of {args.folds} (those every named row has cached)\n\n"
            + tables_text(pooled, paired, "Binary token precision (percent) where pooled out-of-fold recall "
                          "first reaches R; `mean(...)` averages the rows' P(PHI)",
                          f"Per fold, precision at recall R minus `{against}`'s: mean ± standard error "
                          "over folds (percentage points), and the folds where the row is higher"))
    publish(text, args.out)
    return 0


if __name__ == "__main__":
    run_script(main, "rankings.py")
