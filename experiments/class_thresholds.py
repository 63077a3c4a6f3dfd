"""Per-class operating points against the one threshold, by grouped CV (issue M, item 3)

    python experiments/class_thresholds.py [--physionet DIR] [--folds 5]
        [--cache experiments/results/pass-table/cache] [--out experiments/results/class-thresholds.md]

The recipe tags a token PHI where P(PHI) reaches one threshold, then gives it its most likely
class. A class whose false alarms are cheap to cut (a place the trees rate low) and one whose
tokens all sit far above the line share that one threshold. Here each class (the token's most
likely PHI class) gets its own threshold, chosen without the notes it is scored on: for outer
fold f, on the pooled out-of-fold probabilities of the other folds (each from a model that did
not see those notes), starting from fold f's own threshold for every class, each class's is
raised to the largest that keeps the recall of those notes' PHI tokens (binary, before the
passes) at least what the one threshold gives there. Fold f's notes are then tagged at their
class thresholds, the passes run, and the spans scored as :mod:`pass_table` scores them.

The PhysioNet open patients alone (the lockbox's left out), with :mod:`pass_table`'s fold models
(``--cache``); the shipped model's threshold is not touched.

Also written: the false alarms and misses of the one threshold by class (tokens, after the
passes), so the next lever can be aimed; counts only, no text.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from common import publish, run_script

#: Thresholds a class may take, as multiples of the fold's own threshold.
SCALES = np.geomspace(1.0, 20.0, 41)


def phi_and_class(proba: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return 1.0 - proba[:, 0], proba[:, 1:].argmax(axis=1) + 1


def class_thresholds(p_phi, kind, gold_phi, base: float) -> dict[int, float]:
    """Per class code, the largest threshold (``base`` times a :data:`SCALES` step) that keeps
    the binary recall of ``gold_phi`` at least the one threshold's, classes taken in turn."""
    def recall(th: dict[int, float]) -> float:
        cut = np.array([th.get(int(k), base) for k in kind])
        return float(((p_phi >= cut) & gold_phi).sum() / max(gold_phi.sum(), 1))
    chosen: dict[int, float] = {}
    floor = recall(chosen)
    for code in range(1, 9):
        if not (kind == code).any():
            continue
        for scale in SCALES[::-1]:
            if scale == 1.0 or recall({**chosen, code: base * scale}) >= floor:
                if scale > 1.0:
                    chosen[code] = float(base * scale)
                break
    return chosen


def main(argv=None) -> int:
    from itdeid.document import LABELS
    from itdeid.evaluation.report import header
    from itdeid.featurize import tokenize_documents
    from itdeid.pipeline import run_passes
    from pass_table import add_corpus_options, corpora, scores

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_corpus_options(p, synthetic=None)
    p.add_argument("--out", default="experiments/results/class-thresholds.md")
    args = p.parse_args(argv)
    started = time.perf_counter()
    columns, notes = corpora(args)
    if "PhysioNet open CV" not in columns:
        raise SystemExit("class_thresholds: needs the PhysioNet split (--physionet)")
    folds = []
    for model, documents in columns["PhysioNet open CV"]:
        tokenized = tokenize_documents(documents)          # gold labels kept for the choice
        proba = model.predict_proba_tokenized(tokenized)
        folds.append((model, documents, tokenized, proba, model.operating_threshold()))
    rows, picked = {}, []
    for name in ("one threshold", "per-class thresholds"):
        documents, tokenized, codes = [], [], []
        for f, (model, docs, tok, proba, base) in enumerate(folds):
            th: dict[int, float] = {}
            if name != "one threshold":
                others = [k for k in range(len(folds)) if k != f]
                p_phi, kind = phi_and_class(np.concatenate([pr for k in others for pr in folds[k][3]]))
                gold = np.concatenate([td.labels for k in others for td in folds[k][2]]) != 0
                th = class_thresholds(p_phi, kind, gold, base)
                picked.append(", ".join(f"{LABELS[c]} x{t / base:.2f}" for c, t in sorted(th.items())) or "none")
            labels = []
            for pr in proba:
                p_phi, kind = phi_and_class(pr)
                cut = np.array([th.get(int(k), base) for k in kind])
                labels.append(np.where(p_phi >= cut, kind, 0))
            documents += docs
            tokenized += tok
            codes += run_passes(model, tok, labels)
        rows[name] = scores(documents, tokenized, codes)
        if name == "one threshold":
            gold = np.concatenate([td.labels for td in tokenized])
            said = np.concatenate(codes)
            errors = {LABELS[c]: (int(((said == c) & (gold == 0)).sum()), int(((gold == c) & (said == 0)).sum()),
                                  int((gold == c).sum())) for c in range(1, 9)}
    text = header("Per-class operating points against the one threshold (PhysioNet open patients, grouped CV)")
    text += "".join(f"- {n}\n" for n in notes if n.startswith("PhysioNet"))
    text += f"- time: {(time.perf_counter() - started) / 60:.1f} min\n\n"
    text += "| operating point | binary P | binary R | found | typed F |\n|---|---|---|---|---|\n"
    text += "".join(f"| {n} | {100 * r['P']:.2f} | {100 * r['R']:.2f} | {100 * r['found']:.2f} | {100 * r['F']:.2f} |\n"
                    for n, r in rows.items())
    text += "\nClass thresholds chosen per outer fold (multiples of the fold's own threshold):\n\n"
    text += "".join(f"- fold {f}: {one}\n" for f, one in enumerate(picked))
    text += ("\n## The one threshold's errors by class\n\nTokens after the passes: false alarms tagged with "
             "the class where gold has no PHI, and the class's gold tokens left untagged.\n\n"
             "| class | false-alarm tokens | missed tokens | gold tokens |\n|---|---|---|---|\n")
    text += "".join(f"| {c} | {fa} | {miss} | {n} |\n" for c, (fa, miss, n) in errors.items())
    publish(text, args.out)
    return 0


if __name__ == "__main__":
    run_script(main, "class_thresholds.py")
