"""What the iterations fixed and what they broke, token by token, in a Table 1 run's folds.

    python experiments/iteration_effect.py --results experiments/results/table1-synthetic-200-v2 \\
        [--out experiments/results/table1-synthetic-200-v2/iteration-effect.md]

Issue H asks, where the iterative method does not help, to show why. A pooled F or a per-fold
difference says *whether* ITR1/ITR2 beat ITR0; this says *where*: among the tokens ITR0's
standardized vote tags wrong and ITRk's right (fixed), and the reverse (broken), how many are of
each gold class, and how many lie under a heading whose PHI is all of one class (the
unambiguous headings trusted phrases are harvested under, entropy < 0.1 over at least 5 PHI
tokens; computed on the whole corpus's gold labels, as experiments/headings.py does) rather than
in the flow text, where the paper says the harvested phrases earn their keep.

It reads the fold checkpoints ``table1.py`` wrote (``RESULTS/folds/fold-K.npz``, one label code
array per row) and the corpus and folds named in ``RESULTS/folds/settings.json``; nothing is
trained.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd

from itdeid.training.crossval import group_folds
from itdeid.document import LABELS
from itdeid.featurize import tokenize_document
from itdeid.formats import read_corpus
from itdeid.estimators.iterate import unambiguous_headings
from itdeid.evaluation.stats import MIN_HEADING_PATIENTS, nameable_headings
from itdeid.evaluation.report import header, markdown_table

from common import corpus_digest, load_fold, publish, run_script

BASE = "ITR0_VOTE_STD"


def token_places(td, trusted_headings: frozenset) -> np.ndarray:
    """Per token: True where it lies under (not in) an unambiguous heading."""
    s = td.structure
    names = np.array([h.name in trusted_headings for h in s.headings] + [False])
    return names[np.asarray(s.heading, dtype=np.int64)] & ~np.asarray(s.in_heading, dtype=bool)


def effect_table(gold: np.ndarray, under: np.ndarray, base: np.ndarray, step: np.ndarray) -> pd.DataFrame:
    """Fixed and broken tokens by gold class and place."""
    fixed = (base != gold) & (step == gold)
    broken = (base == gold) & (step != gold)
    rows = []
    for code, label in enumerate(LABELS):
        mine = gold == code
        if not mine.any():
            continue
        rows.append({"gold class": label, "tokens": int(mine.sum()),
                     "fixed under unambiguous heading": int((fixed & mine & under).sum()),
                     "fixed in other text": int((fixed & mine & ~under).sum()),
                     "broken under unambiguous heading": int((broken & mine & under).sum()),
                     "broken in other text": int((broken & mine & ~under).sum())})
    table = pd.DataFrame(rows).set_index("gold class")
    table.loc["all"] = table.sum()
    return table


def harvest_table(docs, under: list[np.ndarray], base: list[np.ndarray]) -> pd.DataFrame:
    """By gold class: the PHI tokens under unambiguous headings (what a gold harvest takes), the
    PHI tokens elsewhere in the same note whose word is one of those (what the note's trusted
    phrases can reach in the flow text), and how many of the latter the base already tags right."""
    counts = {label: Counter() for label in LABELS[1:]}
    for td, here, codes in zip(docs, under, base):
        gold = np.asarray(td.labels)
        harvested = {td.words[i] for i in np.flatnonzero(here & (gold > 0))}
        for i in np.flatnonzero(gold > 0):
            c = counts[LABELS[gold[i]]]
            if here[i]:
                c["harvested"] += 1
            elif td.words[i] in harvested:
                c["reachable in other text"] += 1
                c["of which the base tags right"] += int(codes[i] == gold[i])
    table = pd.DataFrame(counts).T.reindex(columns=["harvested", "reachable in other text",
                                                     "of which the base tags right"]).fillna(0).astype(int)
    table.index.name = "gold class"
    table.loc["all"] = table.sum()
    return table


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--results", required=True, help="a table1.py output folder (with folds/)")
    ap.add_argument("--corpus", default=None, help="default: the corpus its settings.json names")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    folder = Path(args.results)
    settings_path = folder / "folds" / "settings.json"
    if not settings_path.exists():
        print(f"{settings_path} not found: not a table1.py results folder", file=sys.stderr)
        return 1
    settings = json.loads(settings_path.read_text(encoding="utf-8"))
    corpus = args.corpus or settings["corpus"]
    if not Path(corpus).exists():
        print(f"corpus {corpus} not found (table1.py records it as given, relative to where it "
              "ran); pass --corpus", file=sys.stderr)
        return 0
    documents = read_corpus(corpus)
    if len(documents) != settings["documents"]:
        print(f"{corpus} holds {len(documents)} documents, the run had {settings['documents']}", file=sys.stderr)
        return 1
    if settings.get("corpus_digest", corpus_digest(documents)) != corpus_digest(documents):
        print(f"{corpus} is not the corpus the run's folds were computed on (its digest differs)",
              file=sys.stderr)
        return 1
    docs = [tokenize_document(d) for d in documents]
    folds = group_folds(documents, settings["folds"], settings["seed"])
    codes: dict[str, dict[int, np.ndarray]] = {}
    for f in range(settings["folds"]):
        test = [i for i in range(len(documents)) if folds[i] == f]
        for stage, per_doc in load_fold(folder / "folds" / f"fold-{f}.npz").items():
            for i, c in zip(test, per_doc):
                codes.setdefault(stage, {})[i] = c
    trusted = unambiguous_headings(docs)
    order = range(len(docs))
    gold = np.concatenate([docs[i].labels for i in order])
    under = np.concatenate([token_places(docs[i], trusted) for i in order])
    base = np.concatenate([codes[BASE][i] for i in order])
    text = header("What the iterations fixed and broke, token by token")
    text += (f"- corpus: `{corpus}`, {len(documents)} documents, {settings['folds']}-fold CV of "
             f"table1.py (`{folder}`)\n- unambiguous headings (whole corpus's gold): "
             f"{len(trusted)}; {int(under.sum())} tokens under them, {int((under & (gold > 0)).sum())} "
             f"of them PHI\n")
    named = sorted(trusted & nameable_headings(docs))   # a heading line can be a patient's name
    text += ("\n" + ", ".join([f"`{h}`" for h in named] + (
        [f"and {len(trusted) - len(named)} not named (in fewer than {MIN_HEADING_PATIENTS} "
         "patients' notes, or holding gold PHI)"] if len(named) < len(trusted) else [])) + "\n"
             if trusted else "\n(none)\n")
    text += ("\nWhat a gold harvest takes and what it could reach: PHI tokens under those headings, PHI "
             "tokens elsewhere in the same note with one of their words, and how many of those "
             f"{BASE} already tags with the right class:\n\n")
    text += markdown_table(harvest_table([docs[i] for i in order],
                                         [token_places(docs[i], trusted) for i in order],
                                         [codes[BASE][i] for i in order]))
    for k in range(1, settings["iterations"] + 1):
        step = f"ITR{k}_VOTE_STD"
        if step not in codes:
            continue
        other = np.concatenate([codes[step][i] for i in order])
        moved = Counter(zip(base[base != other].tolist(), other[base != other].tolist()))
        text += (f"\n## {step} against {BASE}\n\nTokens whose label differs: {int((base != other).sum())}. "
                 "A fixed token is wrong in the base and right here; a broken one the reverse.\n\n")
        text += markdown_table(effect_table(gold, under, base, other))
        top = ", ".join(f"{LABELS[a]} -> {LABELS[b]}: {n}" for (a, b), n in moved.most_common(8))
        text += f"\nMost common changes of label (base -> {step}): {top or 'none'}\n"
    out = Path(args.out or folder / "iteration-effect.md")
    publish(text, out)
    return 0


if __name__ == "__main__":
    run_script(main, "iteration_effect.py")
