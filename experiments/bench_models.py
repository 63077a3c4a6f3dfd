"""Two or more models tagging the same notes in one process, turn about: which is faster.

    python experiments/bench_models.py --corpus ../shared/corpora/physionet-deid \\
        --model OLD_DIR --model NEW_DIR [--set NEW_DIR:screen=0] [--skip 400 --notes 400] \\
        [--repeats 3] [--out experiments/results/bench-models.md]

The machines here are shared and their speed drifts by a third within an hour (bench.py's
deid.pl row moved from 1,984 to 1,650 tokens/s between two runs of one session), so two
benchmark runs at different times cannot say whether a change made tagging faster. This script
runs the models in one process on one core (call it under ``taskset -c 0`` with
``OMP_NUM_THREADS=1``, as bench.py pins its one-worker runs), turn about, ``--repeats`` times,
and keeps each model's best time: tagging only (tokenized notes in, label codes out; no reading,
writing or start-up). ``--set DIR:param=value`` adds the model of DIR again with one tagging
parameter changed (an ensemble's ``screen``, ``threshold``), to time a tagging option on the same
trees. Every model first tags ``--warm`` other notes, so word tables are filled as in a long run.
"""
from __future__ import annotations

import argparse
import time

import pandas as pd

from itdeid import load_model
from itdeid.featurize import tokenize_document
from itdeid.formats import read_corpus
from itdeid.evaluation.report import header, markdown_table

from common import add_note_slice, publish, require_corpus, run_script, timed_notes


def parse_value(text: str):
    """A tagging parameter's value from the command line: none, a number, or the text."""
    if text.lower() in ("none", "null"):
        return None
    try:
        return float(text)
    except ValueError:
        return text


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--model", action="append", default=[], help="a model folder (repeat for each)")
    ap.add_argument("--set", action="append", default=[], metavar="DIR:PARAM=VALUE",
                    help="the model of DIR with one tagging parameter changed (repeatable)")
    add_note_slice(ap)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    require_corpus(args.corpus)
    models = {str(m): load_model(m) for m in args.model}
    for spec in args.set:
        folder, _, assignment = spec.partition(":")
        name, _, value = assignment.partition("=")
        model = load_model(folder)
        if not name or name not in model.get_params(deep=False):
            ap.error(f"--set {spec}: the model of {folder} has no parameter {name!r}")
        model.set_params(**{name: parse_value(value)})
        models[spec] = model
    if not models:
        ap.error("name at least one --model")
    documents = read_corpus(args.corpus)
    warm = documents[args.skip + args.notes:args.skip + args.notes + args.warm]
    test = timed_notes(documents, args.skip, args.notes)
    for model in models.values():
        model.predict_tokenized([tokenize_document(d, gold=False) for d in warm])
    seconds = {name: [] for name in models}
    tokens = 0
    for _ in range(args.repeats):
        for name, model in models.items():
            docs = [tokenize_document(d, gold=False) for d in test]   # no cached columns carried over
            tokens = sum(len(td) for td in docs)
            start = time.perf_counter()
            model.predict_tokenized(docs)
            seconds[name].append(time.perf_counter() - start)
    first = min(next(iter(seconds.values())))
    table = pd.DataFrame([{"model": name, "best seconds": min(s), "tokens/s": tokens / min(s),
                           "speed-up over the first": first / min(s)} for name, s in seconds.items()])
    text = header("Models tagging the same notes in one process, turn about")
    text += (f"- corpus: `{args.corpus}`, notes {args.skip}-{args.skip + len(test) - 1} ({tokens} tokens), "
             f"after {len(warm)} warm-up notes; best of {args.repeats}, tagging only\n\n")
    text += markdown_table(table.set_index("model")) + "\n"
    publish(text, args.out)
    return 0


if __name__ == "__main__":
    run_script(main, "bench_models.py")
