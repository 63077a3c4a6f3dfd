"""Issue I, item 1: do compiled trees predict faster than xgboost itself? Measured, not assumed.

    python experiments/compiled_trees.py --model itdeid/models/default/itr0-token \\
        --corpus ../shared/corpora/physionet-deid --notes 300 --out experiments/results/compiled-trees.md

Takes the xgboost learners of a token model or of an ensemble's members (and its context
stage), builds their feature rows for the first ``--notes`` notes of the corpus, and times each
way of predicting them, one thread each, best of ``--repeats``:

- ``xgboost inplace_predict``: what :class:`itdeid.estimators.learners.Learner` calls today;
- ``tl2cgen``: the same trees converted by treelite and compiled to a shared library by gcc
  (``-O3``, the default of tl2cgen), predicted through tl2cgen's own predictor.

It says how far apart the two outputs are (largest absolute difference of a probability, and the
share of rows whose most likely label agrees). It writes nothing to any model. It needs
``pip install treelite tl2cgen`` and a C compiler, and says so and stops if either is missing.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from itdeid.estimators.context_pass import stacked_columns
from itdeid import load_model
from itdeid.estimators.ensemble import InnerEnsemble
from itdeid.featurize import tokenize_document
from itdeid.formats import read_corpus
from itdeid.evaluation.report import header, markdown_table

from common import publish, run_script




def boosters(learner) -> list[tuple[str, object]]:
    """(part, xgboost Booster) of a learner: its one booster, or a two-step learner's PHI
    detector and class model (``learners.Learner``, ``two_step``)."""
    if getattr(learner, "detector_", None) is not None:
        parts = [("detector", learner.detector_)] + ([("typer", learner.typer_)] if learner.typer_ is not None else [])
        return [(f" {name}", part.estimator_.get_booster()) for name, part in parts]
    return [("", learner.estimator_.get_booster())]


def learners_and_rows(model, docs):
    """(name, xgboost Booster, float32 rows) for each xgboost learner of ``model`` (a two-step
    learner's class model is timed on all the rows, as its detector: the time a row is what
    is compared)."""
    out = []
    members = model.members_ if isinstance(model, InnerEnsemble) else [model]
    probabilities = []
    for k, member in enumerate(members):
        X = member.extractor_.transform(docs, None).astype(np.float32)
        for part, booster in boosters(member.learner_):
            out.append(((f"member {k}" if len(members) > 1 else "token model") + part, booster, X))
        probabilities.append(member.learner_.predict_proba(X))
    if isinstance(model, InnerEnsemble) and getattr(model, "stage_", None):
        mean = np.mean(probabilities, axis=0)
        cuts = np.cumsum([len(td.tokens) for td in docs])[:-1]
        rows = np.vstack([stacked_columns(td, p) for td, p in zip(docs, np.split(mean, cuts))])
        for k, learner in enumerate(model.stage_):
            for part, booster in boosters(learner):
                out.append((f"context stage {k}{part}", booster, rows))
    return out


def best_of(repeats: int, call) -> tuple[float, np.ndarray]:
    best, result = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        result = call()
        best = min(best, time.perf_counter() - start)
    return best, result


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--notes", type=int, default=300)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    try:
        import tl2cgen
        import treelite
    except ImportError:
        print("treelite and tl2cgen are not installed (pip install treelite tl2cgen); nothing measured",
              file=sys.stderr)
        return 0
    if not Path(args.corpus).exists():
        raise SystemExit(f"corpus {args.corpus} not found")
    model = load_model(args.model)
    docs = [tokenize_document(d, gold=False) for d in read_corpus(args.corpus)[:args.notes]]
    table = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, booster, X in learners_and_rows(model, docs):
            booster.set_param({"nthread": 1})
            xgb_s, xgb_p = best_of(args.repeats, lambda: booster.inplace_predict(X))
            library = str(Path(tmp) / f"{len(table)}.so")
            start = time.perf_counter()
            tl2cgen.export_lib(treelite.frontend.from_xgboost(booster), toolchain="gcc", libpath=library,
                               params={"parallel_comp": 8}, verbose=False)
            compile_s = time.perf_counter() - start
            predictor = tl2cgen.Predictor(library, nthread=1)
            matrix = tl2cgen.DMatrix(X, dtype="float32")
            tl_s, tl_p = best_of(args.repeats, lambda: predictor.predict(matrix))
            tl_p = np.asarray(tl_p).reshape(xgb_p.shape)
            if xgb_p.ndim == 1:    # a logistic model's P(the second class)
                xgb_p, tl_p = (np.column_stack([1.0 - p, p]) for p in (xgb_p, tl_p))
            table.append({"learner": name, "rows": len(X), "trees": len(booster.get_dump()),
                          "xgboost_s": round(xgb_s, 3), "tl2cgen_s": round(tl_s, 3),
                          "tl2cgen_over_xgboost": round(tl_s / xgb_s, 2),
                          "compile_s": round(compile_s, 1),
                          "max_abs_diff": f"{float(np.abs(tl_p - xgb_p).max()):.1e}",
                          "argmax_agree": float((tl_p.argmax(1) == xgb_p.argmax(1)).mean())})
    import pandas as pd
    text = (header("Compiled trees (tl2cgen) against xgboost's own prediction")
            + f"- treelite {treelite.__version__}, tl2cgen {tl2cgen.__version__}\n\n"
            "Seconds to predict the rows once, one thread, best of the repeats; the ratio is tl2cgen's "
            "time over xgboost's (below 1: compiled trees are faster):\n\n"
            + markdown_table(pd.DataFrame(table).set_index("learner")) + "\n")
    publish(text, args.out)
    return 0


if __name__ == "__main__":
    run_script(main, "compiled_trees.py")
