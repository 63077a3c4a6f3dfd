"""Where a token's tagging time goes: the stages of a model, timed by wrappers around them.

    OMP_NUM_THREADS=1 taskset -c 0 python experiments/stage_times.py \\
        --corpus ../shared/corpora/physionet-deid --model DIR [--skip 400 --notes 400] \\
        [--freeze] [--out experiments/results/stage-times.md]

A profiler slows Python code and not the trees, so its shares mislead; this script times the
stages themselves with ``time.perf_counter`` around the functions that do them, on notes
``--skip`` to ``--skip + --notes`` after ``--warm`` other notes (word tables filled as in a long
run), best of ``--repeats``: tokenizing (with the note's structure), the note-only feature
groups (one row each), the learned columns of all members, the feature rows of the first member
(all tokens) and of the others (the tokens the screen passes), the trees (xgboost's predict
calls), the stage's columns, the identifier templates and the garbage collector's passes
(``--freeze``: with the model's objects frozen first, as the batch tool freezes them). The rows
of the first member include the note-only groups and its share of the learned columns, so the
parts do not add up to the total. For a speed comparison use bench_code.py or bench_models.py; this says what is worth
making faster.

A second table times what of that is the regular-expression engine alone, with no Python
around it: the token pattern's scan and each template set's scans (the regex and measure groups,
the identifier templates), the same notes, the same required-literal checks. Those scans and the
trees run in compiled code already, so a compiled feature core could not make them cheaper.

``--peer-tokens-per-second R --times K`` adds the budget a token has if the whole command is to
tag K times as fast as a peer that tags R tokens a second, counted as bench.py counts them for
every system: itdeid's own tokens (``itdeid.text.tokens.tokenize``; an earlier version of this script
took bench.py's rates for whitespace-separated tokens and gave a budget 1.38 times too small).
"""
from __future__ import annotations

import argparse
import time
from collections import defaultdict

import pandas as pd

from itdeid.evaluation.report import header, markdown_table

from common import add_note_slice, publish, require_corpus, run_script, timed_notes

TIMES: dict[str, float] = defaultdict(float)
#: The collector's seconds over every timed run, not the fastest run's only: its full passes
#: come once in many batches, and the fastest run is the one that had none.
COLLECTED: dict[str, float] = defaultdict(float)


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
    from itdeid import featurize
    from itdeid.estimators import ensemble
    from itdeid.featurize import groups, tokenized
    _timed(tokenized, "tokenize_document", "tokenizing and structure")
    _timed(featurize.FeatureExtractor, "transform",
           lambda a, k: "rows of the other members" if k.get("rows") is not None else "rows of member 0 (all tokens)")
    _timed(featurize.FeatureExtractor, "_learned_columns", "learned columns (all members)")
    for group, columns in list(groups._STATIC_GROUPS.items()):
        groups._STATIC_GROUPS[group] = _wrapped_group(columns, f"note-only group {group}")
    _timed(xgboost.Booster, "inplace_predict", "trees (xgboost predict)")
    _timed(ensemble, "batch_stacked_columns", "stage columns")
    _timed(ensemble, "run_passes", "the passes")


def time_collections() -> None:
    """Add the seconds of the garbage collector's passes to ``TIMES`` (its own stage: a pass
    runs inside whichever stage allocated last, and is no part of that stage's work)."""
    import gc
    started = []

    def callback(phase, _info):
        if phase == "start":
            started.append(time.perf_counter())
        elif started:
            seconds = time.perf_counter() - started.pop()
            TIMES["garbage collection"] += seconds
            COLLECTED["seconds"] += seconds
    gc.callbacks.append(callback)


def _wrapped_group(columns, key: str):
    def wrapper(td):
        start = time.perf_counter()
        try:
            return columns(td)
        finally:
            TIMES[key] += time.perf_counter() - start
    return wrapper


def engine_times(texts: list[str], repeats: int) -> dict[str, float]:
    """Seconds (best of ``repeats``) of the regular-expression engine's own scans over ``texts``:
    the token pattern, and each template set's templates where their required literals occur."""
    from itdeid.featurize import regex_templates
    from itdeid.templates.guarded import lowered_ascii
    from itdeid.passes.identifiers import identifier_templates
    from itdeid.featurize.measures import measure_templates
    from itdeid.text.tokens import _TOKEN

    sets = {"regex group templates": [t for ts in regex_templates().values() for t in ts],
            "measure group templates": measure_templates(),
            "identifier templates": [t for _kind, _cls, t, _label in identifier_templates()]}
    lowered = [lowered_ascii(text) for text in texts]

    def token_scan():
        for text in texts:
            for _ in _TOKEN.finditer(text):
                pass

    def template_scan(templates):
        for text, low in zip(texts, lowered):
            for t in templates:
                if t.can_match(text, low):
                    for _ in (t.skipping or t.regex).finditer(text):
                        pass

    runs = {"token pattern": token_scan, **{name: (lambda ts=ts: template_scan(ts)) for name, ts in sets.items()}}
    best = {}
    for name, run in runs.items():
        for _ in range(repeats):
            start = time.perf_counter()
            run()
            best[name] = min(best.get(name, float("inf")), time.perf_counter() - start)
    return best


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--model", required=True)
    add_note_slice(ap)
    ap.add_argument("--out", default=None)
    ap.add_argument("--peer-tokens-per-second", type=float, default=None,
                    help="a peer's tokens a second (bench.py's table, itdeid's tokens), for the budget line")
    ap.add_argument("--times", type=float, default=20.0, help="how many times the peer's speed (default 20)")
    ap.add_argument("--freeze", action="store_true",
                    help="gc.freeze() after loading the model, as the batch tool does (load_tagger)")
    args = ap.parse_args(argv)
    require_corpus(args.corpus)
    instrument()
    from itdeid import load_model
    from itdeid.featurize import tokenized as tokenizing   # its tokenize_document is the timed one
    from itdeid.formats import read_corpus
    model = load_model(args.model)
    documents = read_corpus(args.corpus)
    model.predict_tokenized([tokenizing.tokenize_document(d, gold=False)
                             for d in documents[args.skip + args.notes:args.skip + args.notes + args.warm]])
    if args.freeze:
        import gc
        gc.freeze()
    time_collections()
    test = timed_notes(documents, args.skip, args.notes)
    best: dict[str, float] = {}
    total = float("inf")
    COLLECTED.clear()
    all_runs = 0.0
    for _ in range(args.repeats):
        TIMES.clear()
        start = time.perf_counter()
        tokenized = [tokenizing.tokenize_document(d, gold=False) for d in test]
        model.predict_tokenized(tokenized)
        seconds = time.perf_counter() - start
        all_runs += seconds
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
             "the parts overlap; garbage collection runs inside the others\n"
             f"- objects of the model frozen (`gc.freeze()`, as the batch tool does): {'yes' if args.freeze else 'no'}; "
             f"garbage collection over all {args.repeats} runs: {COLLECTED['seconds']:.3f} s of {all_runs:.3f} s "
             f"({100 * COLLECTED['seconds'] / all_runs:.1f} %)\n")
    spaced = sum(len(d.text.split()) for d in test)
    text += f"- whitespace-separated tokens of the same notes: {spaced}, {tokens / spaced:.3f} itdeid tokens each\n"
    if args.peer_tokens_per_second:
        budget = 1e6 / (args.times * args.peer_tokens_per_second)
        text += (f"- budget: {args.times:g} times a peer tagging {args.peer_tokens_per_second:g} itdeid tokens a second "
                 f"leaves {budget:.2f} microseconds an itdeid token for everything, against {1e6 * total / tokens:.2f} here\n")
    text += "\n"
    text += markdown_table(pd.DataFrame(rows).set_index("stage"), floatfmt=".3f") + "\n"
    engine = engine_times([d.text for d in test], args.repeats)
    engine_rows = [{"scan": k, "seconds": v, "microseconds a token": 1e6 * v / tokens} for k, v in engine.items()]
    engine_rows.append({"scan": "all of these", "seconds": sum(engine.values()),
                        "microseconds a token": 1e6 * sum(engine.values()) / tokens})
    text += ("\nThe regular-expression engine alone (its own scans, no Python around them; best of "
             f"{args.repeats}):\n\n")
    text += markdown_table(pd.DataFrame(engine_rows).set_index("scan"), floatfmt=".3f") + "\n"
    publish(text, args.out)
    return 0


if __name__ == "__main__":
    run_script(main, "stage_times.py")
