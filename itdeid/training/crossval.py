"""k-fold cross-validation cut on document boundaries and grouped by patient.

A patient's notes never straddle training and test folds (they share names, dates and phrasing,
so splitting them would flatter the model). Every row of a results table is trained and tested
on the same folds; each fold's model is a fresh clone of the row's estimator; out-of-fold
predictions of every document are kept, so the pooled scores are computed over the whole corpus
exactly once.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from itdeid.document import Document, Span
from itdeid.evaluation.evaluate import evaluate
from itdeid.featurize import TokenizedDocument, note_spans, tokenize_document
from itdeid.estimators.folds import group_folds  # noqa: F401 (the outer folds; re-exported)


@dataclass
class CVResult:
    """Scores of one row (one estimator) over the folds, and its out-of-fold predictions."""

    name: str
    pooled: dict
    per_fold: list[dict]
    predictions: dict[str, list[Span]]
    seconds: float
    scores: object = field(default=None, repr=False)


def summary_row(name: str, scores) -> dict:
    d = scores.to_dict()
    s = d["summary"]
    return {"row": name, "9way_F": s["token_9way"]["f"], "8way_P": s["token_8way"]["p"],
            "8way_R": s["token_8way"]["r"], "8way_F": s["token_8way"]["f"]}


def crossval(documents: Sequence[Document], make_model: Callable[[], object], folds: int = 10,
             seed: int = 0, name: str = "model", tokenized: Sequence[TokenizedDocument] | None = None,
             progress=None) -> CVResult:
    """Cross-validate one estimator: ``make_model()`` gives a fresh unfitted model per fold (or
    pass the estimator itself: each fold fits a clone of it).

    The model must offer ``fit_tokenized(docs)`` and ``predict_tokenized(docs)`` (label codes per
    document), as :class:`itdeid.estimators.model.TokenModel` does. ``tokenized``: the documents already
    tokenized with gold labels (pass it to share the work between rows).
    """
    if not callable(make_model) and hasattr(make_model, "fit_tokenized"):
        from sklearn.base import clone
        estimator = make_model
        make_model = lambda: clone(estimator)   # noqa: E731
    start = time.perf_counter()
    if tokenized is None:
        tokenized = [tokenize_document(d) for d in documents]
    assignment = group_folds(documents, folds, seed)
    predictions: dict[str, list[Span]] = {}
    per_fold = []
    for f in range(folds):
        train = [tokenized[i] for i in np.flatnonzero(assignment != f)]
        test_idx = np.flatnonzero(assignment == f)
        test = [tokenized[i] for i in test_idx]
        model = make_model().fit_tokenized(train)
        fold_predictions = {}
        for td, codes in zip(test, model.predict_tokenized(test)):
            spans = note_spans(td, codes)
            fold_predictions[td.document.id] = spans
        predictions.update(fold_predictions)
        fold_scores = evaluate([documents[i] for i in test_idx], fold_predictions)
        per_fold.append(summary_row(f"fold {f + 1}", fold_scores))
        if progress is not None:
            progress.update(1)
    scores = evaluate(documents, predictions)
    return CVResult(name, summary_row(name, scores), per_fold, predictions,
                    time.perf_counter() - start, scores)


def results_table(results: Sequence[CVResult]) -> pd.DataFrame:
    """One row per estimator: pooled 9-way F, 8-way P/R/F (percent), fold spread, wall time."""
    rows = []
    for r in results:
        row = {k: (100 * v if k != "row" else v) for k, v in r.pooled.items()}
        f8 = [100 * x["8way_F"] for x in r.per_fold]
        row["8way_F_fold_sd"] = float(np.std(f8)) if f8 else float("nan")
        row["seconds"] = round(r.seconds, 1)
        rows.append(row)
    return pd.DataFrame(rows).set_index("row")


#: The rows of ``itdeid cv``: the paper's baselines and one boosted model per trigger variant.
STANDARD_ROWS: dict[str, dict] = {
    "BASELINE": dict(learner="majority"),
    "C4.5": dict(learner="tree", trigger="token"),
    "XGB_TOKEN": dict(learner="xgboost", trigger="token"),
    "XGB_PHRASE": dict(learner="xgboost", trigger="phrase"),
    "XGB_NGRAM": dict(learner="xgboost", trigger="ngram"),
}

#: Rows of the recall levers (recall on real notes), one added at a time to XGB_TOKEN: the
#: operating point learned for a target recall, and the fixed-shape identifier templates.
LEVER_ROWS: dict[str, dict] = {
    "XGB_TOKEN_R95": dict(learner="xgboost", trigger="token", target_recall=0.95),
    "XGB_TOKEN_R97": dict(learner="xgboost", trigger="token", target_recall=0.97),
    "XGB_TOKEN_IDS": dict(learner="xgboost", trigger="token", identifiers=True),
    "XGB_TOKEN_R97_IDS": dict(learner="xgboost", trigger="token", target_recall=0.97, identifiers=True),
}

#: Further rows ``itdeid cv --rows`` can name: peers of other designs, each a model
#: class with ``fit_tokenized``/``predict_tokenized`` and its parameters.
PEER_ROWS: dict[str, tuple[str, dict]] = {
    "CRF": ("itdeid.estimators.crf.CRFModel", {}),
    "RULES": ("itdeid.estimators.rules.RuleModel", {}),
}


def row_model(name: str, params: dict, shared: dict):
    """A fresh unfitted model for row ``name``: a :class:`TokenModel` with the row's parameters
    and the ``shared`` ones (seed, threads, previous-class source), or a peer model."""
    if name in PEER_ROWS:
        import importlib
        path, peer_params = PEER_ROWS[name]
        module, cls = path.rsplit(".", 1)
        model_class = getattr(importlib.import_module(module), cls)
        return model_class(random_state=shared.get("random_state", 0), **peer_params)
    from itdeid.estimators.model import TokenModel
    return TokenModel(**{**shared, **params})
