"""Issue I: how much tagging time a screen would save, and what it would change. Measured first.

    python experiments/cascade.py --corpus ../shared/corpora/physionet-deid --skip 400 --notes 400 \\
        --screens 1e-6,1e-5,1e-4,1e-3 --out experiments/results/cascade.md

The model is a recipe model (an :class:`itdeid.estimators.ensemble.InnerEnsemble` with its context stage):
``--model MODEL`` loads one, else the recipe (:func:`itdeid.training.recipe.recipe_model`, seed 0, one
thread) is trained on the first ``--skip`` notes of the corpus.
The recipe tags every token with five members of about 1,800 trees each and five stage models
(bench: the trees are about half of the tagging time, and nearly every token is plainly
ordinary text). A *screen* lets member 0 judge every token first; only tokens where its P(PHI)
reaches ``screen``, and the three tokens each side of them (the stage reads its neighbours),
go on to the other members and the stage. The other tokens keep member 0's probabilities.

For each screen it reports the share of tokens that go on, the tokens whose decision at the
model's threshold differs from the full ensemble's, how many of those are gold PHI (if the
corpus has gold spans), and the seconds of the full and the screened tagging, one thread, best
of two, split into feature rows and trees. Notes ``--skip`` to ``--skip + --notes`` of the
corpus are used, so a model trained on the first ``--skip`` notes is scored on notes it did not
see. Nothing here changes a model. Since session 14 the screen is in the library
(``InnerEnsemble(screen=S)``, the recipe's default 0.001), chosen by levers.py's 10-fold rows
``..._REFIT_SCREEN1E5/1E4/1E3_OOF`` (experiments/NOTEBOOK.md, issue I, session 14) rather than
by this one split.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from itdeid import load_model
from itdeid.estimators.context_pass import stacked_columns, stage_labels
from itdeid.estimators.ensemble import InnerEnsemble
from itdeid.featurize import tokenize_document
from itdeid.formats import read_corpus
from itdeid.estimators.operating_point import decide
from itdeid.evaluation.report import header, markdown_table

from common import publish, run_script, timed_notes

#: Tokens each side of a screened-in token that go on with it.
REACH = 3




def tag(model: InnerEnsemble, docs, screen: float | None):
    """Blended label probabilities of all tokens (one array), the share of tokens the members
    after the first and the stage judged, and seconds spent on feature rows and on trees."""
    rows_s = trees_s = 0.0
    lengths = [len(td.tokens) for td in docs]
    each = []
    keep = None
    for k, member in enumerate(model.members_):
        start = time.perf_counter()
        X = member.extractor_.transform(docs, None)
        rows_s += time.perf_counter() - start
        start = time.perf_counter()
        if k == 0 or keep is None:
            p = member.learner_.predict_proba(X)
        else:
            p = each[0].copy()
            p[keep] = member.learner_.predict_proba(X[keep])
        trees_s += time.perf_counter() - start
        each.append(p)
        if k == 0 and screen is not None:
            hit = (1.0 - p[:, 0]) >= screen
            keep = np.convolve(hit, np.ones(2 * REACH + 1), mode="same") > 0
    mean = np.mean(each, axis=0)
    cuts = np.cumsum(lengths)[:-1]
    start = time.perf_counter()
    S = np.vstack([stacked_columns(td, p) for td, p in zip(docs, np.split(mean, cuts))])
    rows_s += time.perf_counter() - start
    start = time.perf_counter()
    judged = slice(None) if keep is None else keep
    p_phi = 1.0 - mean[:, 0]
    p_phi[judged] = 1.0 - np.mean([s.predict_proba(S[judged])[:, 0] for s in model.stage_], axis=0)
    trees_s += time.perf_counter() - start
    stage = stage_labels(p_phi, mean)
    blend = model.blend_passes(mean, stage)
    return blend, 1.0 if keep is None else float(keep.mean()), rows_s, trees_s


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default=None, help="a recipe model folder (default: train one)")
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--skip", type=int, default=0)
    ap.add_argument("--notes", type=int, default=300)
    ap.add_argument("--screens", default="1e-5,1e-4,1e-3")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    if not Path(args.corpus).exists():
        raise SystemExit(f"corpus {args.corpus} not found")
    documents = read_corpus(args.corpus)
    if args.model:
        model = load_model(args.model)
    else:
        from itdeid.training.recipe import recipe_model
        if not args.skip:
            print("--skip must name the notes to train on when no --model is given", file=sys.stderr)
            return 1
        model = recipe_model(n_jobs=1, random_state=0).fit(documents[:args.skip])
    if not isinstance(model, InnerEnsemble) or not getattr(model, "stage_", None):
        print(f"{args.model} is not a recipe model (an ensemble with its context stage)", file=sys.stderr)
        return 1
    for member in model.members_:
        member.learner_.n_jobs = 1
    docs = [tokenize_document(d) for d in timed_notes(documents, args.skip, args.notes)]
    gold = np.concatenate([td.labels for td in docs]) != 0 if all(td.labels is not None for td in docs) \
        else None
    threshold = model.operating_threshold()
    runs = {}
    for screen in [None] + [float(s) for s in args.screens.split(",") if s]:
        best = None
        for _ in range(2):
            for td in docs:        # each run computes the document-only columns afresh
                td.cache.clear()
            start = time.perf_counter()
            blend, share, rows_s, trees_s = tag(model, docs, screen)
            total = time.perf_counter() - start
            if best is None or total < best[0]:
                best = (total, blend, share, rows_s, trees_s)
        runs[screen] = best
    full = decide(runs[None][1], threshold) != 0
    table = []
    for screen, (total, blend, share, rows_s, trees_s) in runs.items():
        phi = decide(blend, threshold) != 0
        changed = phi != full
        table.append({"screen": "none (full ensemble)" if screen is None else f"{screen:g}",
                      "tokens_judged_by_all": f"{100 * share:.1f} %",
                      "decisions_changed": int(changed.sum()),
                      "gold_phi_lost": "" if gold is None else int((full & ~phi & gold).sum()),
                      "gold_phi_gained": "" if gold is None else int((phi & ~full & gold).sum()),
                      "feature_rows_s": round(rows_s, 2), "trees_s": round(trees_s, 2),
                      "total_s": round(total, 2)})
    import pandas as pd
    n_tokens = sum(len(td.tokens) for td in docs)
    text = (header("A screen before the ensemble: time saved and decisions changed")
            + ("" if args.model else f"- model: the recipe trained here on notes 0-{args.skip - 1}\n")
            + f"- notes {args.skip}-{args.skip + len(docs) - 1}: {len(docs)} ({n_tokens} tokens); threshold "
            f"{threshold}\n\n" + markdown_table(pd.DataFrame(table).set_index("screen")) + "\n")
    publish(text, args.out)
    return 0


if __name__ == "__main__":
    run_script(main, "cascade.py")
