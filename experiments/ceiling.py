"""How far could more knowledge lift a row's ranking? Stacked corrections with public and oracle evidence.

    python experiments/ceiling.py ../shared/corpora/physionet-deid --levers experiments/results/g-levers \\
        --row BAG5_CTX_TWO_STEP_SHALLOW_SYN_REAL_TRIAL_REFIT_TYPER50_SCREEN1E3_OOF \\
        --out experiments/results/g-levers/ceiling.md

Issue G asks for binary token precision 0.85 where recall reaches 0.95. The recipe's out-of-fold
ranking gives about 0.60 there, and since session 14 no lever has moved it beyond what a reseed
moves it. Before another lever, this asks how far *knowledge* could move it, the knowledge the
levers were meant to add, up to knowledge no model may have.

A *correction* of the row's log-odds is learned from evidence added to a base: boosted trees
(100 of depth 3 at rate 0.05) started from the row's own log-odds (xgboost's ``base_margin``),
fitted on nine folds' tokens and applied to the tenth, so no fold is scored by a fit that saw it.
The base is the row's log-odds, those of the two tokens each side, and the word's English Zipf
frequency. Evidence sets:

- ``base``: nothing more: the correction alone, which should rank about as the row does;
- ``languages``: how frequent the word is in 26 other languages written in Latin letters
  (wordfreq's small lists: the highest Zipf frequency and in how many): public, a candidate
  feature group for the foreign names the census lists miss;
- ``oracle-lexicon``: how often the other folds' gold marks the word PHI, and how often the word
  occurs there: this corpus's own names and places, the knowledge deid.pl's word lists hold and
  a model file may not keep (issue F);
- ``oracle-neighbours``: whether the gold marks the token before and the token after as PHI;
- ``oracle-both``: the two oracles together;
- ``own-label``: the token's own gold, a check of the instrument (it must rank perfectly).

The oracle sets are diagnostics, never features: they say how much of the gap *any* lexical or
boundary knowledge could close. The first table also gives the row's own precision in two other
token units: the 2006 challenge's whitespace tokens (a token's score the highest of its itdeid
tokens', its gold the label of most of its characters) and the tokens with a letter or a digit
(punctuation left out of gold and ranking alike). Only counts and precisions are written.
"""
from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd

from itdeid.evaluation.evaluate import whitespace_labels
from itdeid.featurize import token_offsets
from itdeid.featurize.languages import language_values
from itdeid.evaluation.report import markdown_table
from itdeid.featurize.zipf import zipf

from common import (RECALLS, add_cache_arguments, cache_report_head, cached_fold, cached_folds,
                    precision_at_recall, publish, ranking_tables, require_corpus, run_script, tables_text,
                    tokenized_folds)

SETS = ("base", "languages", "oracle-lexicon", "oracle-neighbours", "oracle-both", "own-label")
#: Tokens each side whose log-odds the base reads.
REACH = 2


def language_columns(words: list[str]) -> np.ndarray:
    """Per word: its English Zipf frequency (:func:`itdeid.featurize.zipf.zipf`, the frequency group's), its
    highest in :data:`itdeid.featurize.languages.LANGUAGES` and in how many of them it occurs (the
    ``languages`` group's values)."""
    table = {w: (zipf(w), *language_values(w)) for w in set(words)}
    return np.array([table[w] for w in words], dtype=np.float32).reshape(len(words), 3)


def neighbour_values(values: np.ndarray, note: np.ndarray, offsets, fill: float) -> np.ndarray:
    """Columns of ``values`` shifted by each of ``offsets`` within a note (``note``: each token's
    note number, the tokens of a note consecutive), ``fill`` past a note's edge."""
    n, out = len(values), []
    for o in offsets:
        source = np.arange(n) + o
        inside = (source >= 0) & (source < n)
        inside[inside] &= note[source[inside]] == note[inside]
        out.append(np.where(inside, values[np.clip(source, 0, n - 1)], fill))
    return np.column_stack(out)


def oracle_lexicon(words: list[str], gold: np.ndarray, fold: np.ndarray) -> np.ndarray:
    """Per token: how often the *other* folds' gold marks its word PHI, how often the word occurs
    there, and the share."""
    k = int(fold.max()) + 1
    seen = [Counter() for _ in range(k)]
    phi = [Counter() for _ in range(k)]
    for w, g, f in zip(words, gold, fold):
        seen[f][w] += 1
        phi[f][w] += int(g)
    all_seen, all_phi = sum(seen, Counter()), sum(phi, Counter())
    rows = np.array([(all_phi[w] - phi[f][w], all_seen[w] - seen[f][w]) for w, f in zip(words, fold)],
                    dtype=np.float32).reshape(len(words), 2)
    return np.column_stack([rows, rows[:, 0] / np.maximum(rows[:, 1], 1)])


def corrected(X: np.ndarray, logit: np.ndarray, gold: np.ndarray, fold: np.ndarray, seed: int = 0) -> np.ndarray:
    """Out-of-fold P(PHI) of a correction of ``logit`` learned from ``X``, fold by fold."""
    import xgboost
    out = np.zeros(len(gold))
    for f in np.unique(fold):
        train, test = fold != f, fold == f
        model = xgboost.XGBClassifier(n_estimators=100, max_depth=3, learning_rate=0.05, n_jobs=2,
                                      random_state=seed, tree_method="hist")
        model.fit(X[train], gold[train], base_margin=logit[train])
        out[test] = model.predict_proba(X[test], base_margin=logit[test])[:, 1]
    return out


def whitespace_scores(td, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per whitespace token of note ``td``: the highest P(PHI) of its itdeid tokens, and whether
    its gold label (:func:`itdeid.evaluation.evaluate.whitespace_labels`: that of most of its characters) is PHI."""
    starts, ends, labels = whitespace_labels(td.document.text, td.document.spans)
    token_starts, _ends = token_offsets(td)
    lo, hi = np.searchsorted(token_starts, starts), np.searchsorted(token_starts, ends)
    scores = np.array([p[a:b].max() for a, b in zip(lo, hi)], dtype=np.float64)
    return scores, labels != 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_cache_arguments(ap)
    ap.add_argument("--row", default="BAG5_CTX_TWO_STEP_SHALLOW_SYN_REAL_TRIAL_REFIT_TYPER50_SCREEN1E3_OOF")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    require_corpus(args.corpus)
    cache = Path(args.levers) / "cache"
    folds = cached_folds(cache, [args.row], args.folds)
    if len(folds) < 2:
        print(f"{args.row} needs two cached folds or more", file=sys.stderr)
        return 1
    tokenized, assignment = tokenized_folds(args)
    p, gold, fold, note, words, alnum, ws = [], [], [], [], [], [], {"p": [], "gold": []}
    for f in folds:
        cached = cached_fold(args.row, tokenized, assignment, cache, f)
        for td, proba in zip(cached["test"], cached["proba"]):
            phi = 1.0 - proba[:, 0]
            p.append(phi)
            gold.append(np.asarray(td.labels) != 0)
            fold.append(np.full(len(td), f))
            note.append(np.full(len(td), len(note)))
            words.extend(w.lower() for w in td.words)
            alnum.append(np.array([any(c.isalnum() for c in t.text) for t in td.tokens], dtype=bool))
            s, g = whitespace_scores(td, phi)
            ws["p"].append(s)
            ws["gold"].append(g)
    p, gold, fold, note, alnum = map(np.concatenate, (p, gold, fold, note, alnum))
    ws = {k: np.concatenate(v) for k, v in ws.items()}

    units = []
    for name, (score, flags) in {"itdeid tokens (the acceptance's unit)": (p, gold),
                                 "whitespace tokens (the 2006 challenge's)": (ws["p"], ws["gold"]),
                                 "tokens with a letter or digit": (p[alnum], gold[alnum])}.items():
        units.append({"unit": name, "tokens": len(flags), "PHI tokens": int(flags.sum()),
                      **{f"P@R{R:.2f}": 100 * precision_at_recall(score, flags, R)[0] for R in RECALLS}})

    clipped = np.clip(p, 1e-6, 1 - 1e-6)
    logit = np.log(clipped / (1 - clipped)).astype(np.float32)
    language = language_columns(words)
    base = np.column_stack([logit, neighbour_values(logit, note, [o for o in range(-REACH, REACH + 1) if o], fill=-14.0), language[:, :1]])
    lexicon = oracle_lexicon(words, gold, fold)
    neighbours = neighbour_values(gold.astype(np.float32), note, (-1, 1), fill=-1.0)
    evidence = {"base": base, "languages": np.column_stack([base, language[:, 1:]]),
                "oracle-lexicon": np.column_stack([base, lexicon]),
                "oracle-neighbours": np.column_stack([base, neighbours]),
                "oracle-both": np.column_stack([base, lexicon, neighbours]),
                "own-label": np.column_stack([base, gold.astype(np.float32)])}
    per_fold = [fold == f for f in folds]
    entries = {args.row: [p[m] for m in per_fold]}
    for name in SETS:
        scores = corrected(evidence[name], logit, gold.astype(np.int64), fold)
        entries[name] = [scores[m] for m in per_fold]
    pooled, paired = ranking_tables(entries, [gold[m] for m in per_fold], "base")

    text = (cache_report_head("How far knowledge could lift the ranking: stacked corrections with public and "
                              "oracle evidence", cache, [args.row], folds, args.folds) +
            "The row's own binary precision (percent) where pooled recall first reaches R, in three token "
            f"units:\n\n{markdown_table(pd.DataFrame(units))}\n\n"
            f"Of the {int(gold.sum())} gold PHI tokens, {int((gold & (neighbours == 1).any(axis=1)).sum())} "
            "have a gold PHI token beside them in their note.\n\n"
            + tables_text(pooled, paired,
                          "Corrections of the row's log-odds, learned on nine folds and applied to the tenth "
                          "(the oracle sets use gold no model may have): binary token precision (percent) "
                          "where pooled recall first reaches R",
                          "Per fold, precision at recall R minus the base correction's (percentage points, "
                          "mean ± standard error over folds), and the folds where the set is higher"))
    publish(text, args.out)
    return 0


if __name__ == "__main__":
    run_script(main, "ceiling.py")
