"""Rescorings of a levers.py row's out-of-fold P(PHI) that need no training: do they rank better?

    python experiments/rescoring.py ../shared/corpora/physionet-deid --levers experiments/results/g-levers \\
        --row BAG5_CTX_TWO_STEP_SHALLOW_SYN_REAL_TRIAL_REFIT_SCREEN1E3_OOF \\
        --out experiments/results/g-levers/rescoring.md

Two ideas for the precision issue G lacks at recall 0.95, each cheap enough to try on the cached
probabilities before building it into a model:

- **Propagation** (``propagate:SCOPE:L``): a word the model is sure of in one note is the same
  word in another note of the same patient (``patient``), or of the same batch (``fold``: all
  the fold's held-out notes, what one ``itdeid deid`` run over a hospital's folder would see).
  A token's P(PHI) becomes the larger of its own and L times the highest P(PHI) of the same
  word (lower-cased, with a letter, two characters or more) in the scope's *other* notes. Yang
  and Garibaldi (2015) propagated PHI over a patient's records.
- **Calibration by group** (``isotonic:GROUP``): one threshold on P(PHI) is the best rule only if
  the probabilities are calibrated alike in every kind of token. Here an isotonic regression of
  gold PHI on P(PHI), fitted per group on the other nine folds' tokens and applied to this
  fold's (nested: no fold is scored by a fit that saw it), maps each token to the share of PHI
  among training tokens like it; groups are ``all``, ``class`` (the most likely PHI class),
  ``shape`` (punctuation, number, word) and ``class-shape``. Ties are broken by the row's own
  P(PHI).
- **Punctuation between** (``punctuation``): a punctuation token is PHI only between two PHI
  tokens; its P(PHI) becomes the least of its own and its two neighbours'. The gold of a name or
  phone number rarely holds the comma after it or the bracket before it, and the context stage
  lifts those tokens with their neighbour.

The tables are rankings.py's: precision where pooled recall first reaches 0.90 / 0.95 / 0.97, and
per fold the difference from the row itself (mean ± standard error, folds won). Nothing is
chosen here: a rescoring that wins per fold beyond its spread is a lever to build and measure
as a model.
"""
from __future__ import annotations

import argparse
import re
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

from common import (add_cache_arguments, cache_report_head, cached_fold, cached_folds, publish,
                    ranking_tables, require_corpus, run_script, tables_text, tokenized_folds)

DEFAULT_RESCORINGS = ("propagate:patient:0.3,propagate:patient:0.5,propagate:patient:0.9,"
                      "propagate:fold:0.3,propagate:fold:0.5,propagate:fold:0.9,"
                      "isotonic:all,isotonic:class,isotonic:shape,isotonic:class-shape,punctuation")
_WORD = re.compile(r"[^\W\d_]")


def _shape(word: str) -> int:
    """0 punctuation, 1 a number (digits and / - . : %), 2 a word."""
    if not re.search(r"[^\W_]", word):
        return 0
    return 1 if re.fullmatch(r"[\d/\-.:%]+", word) else 2


def propagated(notes: list[dict], scope: str, weight: float) -> list[np.ndarray]:
    """Each note's P(PHI), raised to ``weight`` times the highest P(PHI) of the same word in the
    scope's other notes (``notes``: dicts with ``p``, ``words``, ``patient``)."""
    groups = defaultdict(list)
    for k, note in enumerate(notes):
        groups[note["patient"] if scope == "patient" else 0].append(k)
    out = [note["p"].copy() for note in notes]
    for members in groups.values():
        best: dict[str, list[tuple[float, int]]] = defaultdict(list)   # word -> top two (P, note)
        for k in members:
            own: dict[str, float] = {}
            for w, p in zip(notes[k]["words"], notes[k]["p"]):
                if len(w) > 1 and _WORD.search(w):
                    own[w] = max(own.get(w, 0.0), float(p))
            for w, p in own.items():
                best[w] = sorted(best[w] + [(p, k)], reverse=True)[:2]
        for k in members:
            q = out[k]
            for i, w in enumerate(notes[k]["words"]):
                others = [p for p, j in best.get(w, ()) if j != k]
                if others:
                    q[i] = max(q[i], weight * others[0])
    return out


def punctuation_between(note: dict) -> np.ndarray:
    """A note's P(PHI) with each punctuation token's lowered to its neighbours' (zero beyond
    the note)."""
    p = note["p"]
    left, right = np.r_[0.0, p[:-1]], np.r_[p[1:], 0.0]
    punct = np.array([_shape(w) == 0 for w in note["words"]], dtype=bool)
    return np.where(punct, np.minimum(p, np.minimum(left, right)), p)


def isotonic(folds: list[list[dict]], keys: list[list[np.ndarray]]) -> list[np.ndarray]:
    """Per fold, P(PHI) mapped through isotonic fits per group key on the other folds."""
    from sklearn.isotonic import IsotonicRegression
    p = [np.concatenate([n["p"] for n in fold]) for fold in folds]
    g = [np.concatenate([n["gold"] for n in fold]) for fold in folds]
    k = [np.concatenate(fk) for fk in keys]
    out = []
    for f in range(len(folds)):
        rest = [j for j in range(len(folds)) if j != f]
        p_tr, g_tr, k_tr = (np.concatenate([a[j] for j in rest]) for a in (p, g, k))
        mapped = p[f] * 1e-3                       # a group too small to fit ranks at the bottom
        for key in np.unique(k[f]):
            train = k_tr == key
            if train.sum() >= 50 and g_tr[train].sum() >= 5:
                fit = IsotonicRegression(out_of_bounds="clip", y_min=0, y_max=1).fit(p_tr[train], g_tr[train])
                mapped[k[f] == key] = fit.predict(p[f][k[f] == key])
        out.append(mapped + 1e-6 * p[f])           # ties broken by the row's own ranking
    return out


def _group_keys(fold: list[dict], group: str) -> list[np.ndarray]:
    keys = []
    for n in fold:
        shape = np.array([_shape(w) for w in n["words"]])
        cls = n["cls"]
        keys.append({"all": np.zeros(len(shape), int), "class": cls, "shape": shape,
                     "class-shape": cls * 3 + shape}[group])
    return keys


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_cache_arguments(ap)
    ap.add_argument("--row", default="BAG5_CTX_TWO_STEP_SHALLOW_SYN_REAL_TRIAL_REFIT_SCREEN1E3_OOF")
    ap.add_argument("--rescorings", default=DEFAULT_RESCORINGS)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    require_corpus(args.corpus)
    cache = Path(args.levers) / "cache"
    folds = cached_folds(cache, [args.row], args.folds)
    if not folds:
        print(f"no fold of {args.row} is cached", file=sys.stderr)
        return 1
    tokenized, assignment = tokenized_folds(args)
    notes = []
    for f in folds:
        fold = cached_fold(args.row, tokenized, assignment, cache, f)
        notes.append([dict(p=1.0 - proba[:, 0], cls=proba[:, 1:].argmax(axis=1), gold=td.labels != 0,
                           words=[w.lower() for w in td.words], patient=td.document.patient)
                      for td, proba in zip(fold["test"], fold["proba"])])
    gold = [np.concatenate([n["gold"] for n in fold]) for fold in notes]
    entries = {args.row: [np.concatenate([n["p"] for n in fold]) for fold in notes]}
    for spec in (s for s in args.rescorings.split(",") if s):
        kind, *rest = spec.split(":")
        if kind == "propagate":
            scope, weight = rest[0], float(rest[1])
            entries[spec] = [np.concatenate(propagated(fold, scope, weight)) for fold in notes]
        elif kind == "punctuation":
            entries[spec] = [np.concatenate([punctuation_between(n) for n in fold]) for fold in notes]
        elif kind == "isotonic":
            entries[spec] = isotonic(notes, [_group_keys(fold, rest[0]) for fold in notes])
        else:
            ap.error(f"unknown rescoring {spec!r}")
    pooled, paired = ranking_tables(entries, gold, args.row)
    text = (cache_report_head("Rescorings of a row's out-of-fold P(PHI), without training", cache, [args.row],
                              folds, args.folds)
            + tables_text(pooled, paired, "Binary token precision (percent) where pooled out-of-fold recall "
                          "first reaches R",
                          "Per fold, precision at recall R minus the row's own (percentage points, mean ± "
                          "standard error over folds), and the folds where the rescoring is higher"))
    publish(text, args.out)
    return 0


if __name__ == "__main__":
    run_script(main, "rescoring.py")
