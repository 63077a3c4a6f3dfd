"""Where a token's tagging time goes: the stages of a model, timed by wrappers around them.

    OMP_NUM_THREADS=1 taskset -c 0 python experiments/stage_times.py \\
        --corpus ../shared/corpora/physionet-deid --model DIR [--skip 400 --notes 400] \\
        [--out experiments/results/stage-times.md]

A profiler slows Python code and not the trees, so its shares mislead; this script times the
stages themselves with ``time.perf_counter`` around the functions that do them, on notes
``--skip`` to ``--skip + --notes`` after ``--warm`` other notes (word tables filled as in a long
run), best of ``--repeats``: tokenizing (with the note's structure), the note-only feature
groups (one row each), the learned columns of all members, the feature rows of the first member
(all tokens) and of the others (the tokens the screen passes), the trees (xgboost's predict
calls), the stage's columns and the identifier templates. The rows of the first member include
the note-only groups and its share of the learned columns, so the parts do not add up to the
total. For a speed comparison use bench_code.py or bench_models.py; this says what is worth
making faster.
"""
from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from itdeid.report import header, markdown_table, publish  # noqa: E402
from note_slice import add_note_slice, corpus_missing  # noqa: E402

TIMES: dict[str, float] = defaultdict(float)


def _timed(owner, name: str, label) -> None:
    """Replace ``owner.name`` by a wrapper adding its seconds to ``TIMES[label(args, kwargs)]``
    (``label`` may be a plain string); nested calls of the same label are counted once."""
    inner = getattr(owner, name)
    active = set()

    def wrapper(*args, **kwargs):
        key = label(args, kwargs) if callable(label) else label
        if key in active:
            return inner(*args, **kwargs)
        active.add(key)
        start = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            TIMES[key] += time.perf_counter() - start
            active.discard(key)
    setattr(owner, name, wrapper)


def instrument() -> None:
    import xgboost
    from itdeid import ensemble, featurize
    _timed(featurize, "tokenize_document", "tokenizing and structure")
    _timed(featurize.FeatureExtractor, "transform",
           lambda a, k: "rows of the other members" if k.get("rows") is not None else "rows of member 0 (all tokens)")
    _timed(featurize.FeatureExtractor, "_learned_columns", "learned columns (all members)")
    for group, columns in list(featurize._STATIC_GROUPS.items()):
        featurize._STATIC_GROUPS[group] = _wrapped_group(columns, f"note-only group {group}")
    _timed(xgboost.Booster, "inplace_predict", "trees (xgboost predict)")
    _timed(ensemble, "batch_stacked_columns", "stage columns")
    _timed(ensemble, "with_identifiers", "identifier templates")


def _wrapped_group(columns, key: str):
    def wrapper(td):
        start = time.perf_counter()
        try:
            return columns(td)
        finally:
            TIMES[key] += time.perf_counter() - start
    return wrapper


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--model", required=True)
    add_note_slice(ap)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    if corpus_missing(args.corpus):
        return 0
    instrument()
    from itdeid import featurize
    from itdeid.deidentifier import load_model
    from itdeid.formats import read_corpus
    model = load_model(args.model)
    documents = read_corpus(args.corpus)
    model.predict_tokenized([featurize.tokenize_document(d, gold=False)
                             for d in documents[args.skip + args.notes:args.skip + args.notes + args.warm]])
    test = documents[args.skip:args.skip + args.notes]
    best: dict[str, float] = {}
    total = float("inf")
    for _ in range(args.repeats):
        TIMES.clear()
        start = time.perf_counter()
        tokenized = [featurize.tokenize_document(d, gold=False) for d in test]
        model.predict_tokenized(tokenized)
        seconds = time.perf_counter() - start
        if seconds < total:
            total, best = seconds, dict(TIMES)
    tokens = sum(len(td) for td in tokenized)
    rows = [{"stage": k, "seconds": v, "microseconds a token": 1e6 * v / tokens, "share of the total": v / total}
            for k, v in sorted(best.items(), key=lambda kv: -kv[1])]
    rows.append({"stage": "total (tokenizing and tagging)", "seconds": total,
                 "microseconds a token": 1e6 * total / tokens, "share of the total": 1.0})
    text = header("Where a token's tagging time goes")
    text += (f"- corpus: `{args.corpus}`, notes {args.skip}-{args.skip + len(test) - 1} ({tokens} tokens), "
             f"after {args.warm} warm-up notes; model `{args.model}`; the fastest of {args.repeats} runs\n"
             "- the rows of member 0 hold the note-only groups and part of the learned columns: "
             "the parts overlap\n\n")
    text += markdown_table(pd.DataFrame(rows).set_index("stage"), floatfmt=".3f") + "\n"
    publish(text, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
