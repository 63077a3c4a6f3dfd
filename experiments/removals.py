"""What the word-list entries removed since a commit did, on each corpus (issue M, item 2)

    python experiments/removals.py --before REV [--physionet DIR] [--folds 5]
        [--cache experiments/results/pass-table/cache] [--out experiments/results/removals.md]

The passes' word lists (``features/identifiers.json``'s never-PHI shapes, ``features/
clinical_terms.json``'s care terms) held entries written from one corpus's errors: its
misspellings, its local abbreviations, its annotators' habits. Such an entry helps that corpus
alone, and belongs in a site's adaptation (``itdeid adapt``), not in the shipped model.

This script finds the entries of those lists at ``--before`` that the working tree no longer
has, and scores the tagging with the lists as they are now, with every removed entry put back,
and with each put back alone: what each entry added to binary token recall and precision, in
points, on each corpus of :mod:`pass_table` (PhysioNet's open patients by grouped CV, the
synthetic summaries and nursing notes, the hand-written letters). An entry is named by its list
and its place there at ``--before`` and a digest of its text, not by its words: several are
words of the corpus they were written from. ``git show REV:features/...`` shows them.

Fold models are :func:`pass_table.fold_model`'s, shared through ``--cache``; the lists change
only the passes, so no model is trained again.
"""
from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import subprocess
import time

from common import ROOT, publish, run_script

#: (package, file, key) of each list compared, and the pass-module caches built from it.
LISTS = (
    ("features", "identifiers.json", "plain",
     ("itdeid.passes.identifiers", ("plain_templates", "_plain_ids"))),
    ("features", "clinical_terms.json", "terms",
     ("itdeid.passes.clinical_terms", ("clinical_terms", "medicine_words"))),
)


#: Why each removed entry went, by its digest (:func:`entry_digest`): the kind of habit it was
#: written from, in words of our own.
REASONS = {
    "a33ca5313b": "a relation word as one corpus misspells it",
    "8e83d073d7": "a ward's number: one corpus's annotation convention",
    "f324397288": "a catheter's name as one corpus misspells it (the shape stays, spelt right)",
    "707e2d1265": "a device's name written as two words, one corpus's spelling",
    "7dcb587d73": "misspellings of a section heading",
    "59ea804aea": "a misspelt language name (the shape stays, spelt right)",
    "39c17731a4": "a care unit's abbreviation as one corpus misspells it",
    "60cc219682": "a care unit's abbreviation as one corpus misspells it",
    "b7eea46f7f": "the name of one hospital's form",
}


def entry_digest(entry) -> str:
    return hashlib.sha256(json.dumps(entry, sort_keys=True).encode()).hexdigest()[:10]


def removed_entries(before: str) -> list[tuple[tuple, int, object]]:
    """(list, index at ``before``, entry) of every entry of :data:`LISTS` at ``before`` that the
    working tree's list does not hold."""
    from itdeid.resources import load_json
    found = []
    for package, name, key, _caches in LISTS:
        old = json.loads(subprocess.run(["git", "show", f"{before}:{package}/{name}"], cwd=ROOT, check=True,
                                        capture_output=True, text=True).stdout)[key]
        now = {json.dumps(e, sort_keys=True) for e in load_json(package, name)[key]}
        found += [((package, name, key), i, e) for i, e in enumerate(old) if json.dumps(e, sort_keys=True) not in now]
    return found


@contextlib.contextmanager
def put_back(entries):
    """The lists of :data:`LISTS` with ``entries`` ((list, index, entry) triples) added again,
    the pass modules' caches cleared on entry and on exit."""
    import importlib
    from itdeid.resources import load_json

    def clear():
        for *_, (module, caches) in LISTS:
            loaded = importlib.import_module(module)
            for cache in caches:
                getattr(loaded, cache).cache_clear()
    kept = {}
    for (package, name, key), _i, entry in entries:
        data = load_json(package, name)            # the cached object the passes read
        kept.setdefault((package, name, key), list(data[key]))
        data[key] = data[key] + [entry]
    clear()
    try:
        yield
    finally:
        for (package, name, key), original in kept.items():
            load_json(package, name)[key] = original
        clear()


def rows_with(prepared, entries) -> dict:
    """Scores of the passes over ``prepared`` (:func:`pass_table.prepare`'s) with ``entries`` put back."""
    from pass_table import pooled_scores
    with put_back(entries):
        return pooled_scores(prepared)


def main(argv=None) -> int:
    from itdeid.evaluation.report import header
    from pass_table import add_corpus_options, corpora, prepare

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--before", required=True, help="the commit whose lists held the removed entries")
    add_corpus_options(p)
    p.add_argument("--out", default="experiments/results/removals.md")
    args = p.parse_args(argv)
    started = time.perf_counter()
    removed = removed_entries(args.before)
    if not removed:
        raise SystemExit(f"removals: no entry of the lists at {args.before} is missing now")
    columns, notes = corpora(args)
    configs = [("as now", []), ("all put back", removed)] + [
        (f"{name}:{key} #{i} ({entry_digest(e)})", [((package, name, key), i, e)])
        for (package, name, key), i, e in removed]
    results = {}
    for c, parts in columns.items():
        prepared = prepare(parts)          # the probabilities once a corpus, for every configuration
        results[c] = {label: rows_with(prepared, entries) for label, entries in configs}
    text = header("What the removed word-list entries did, corpus by corpus")
    text += f"- removed: the entries of the lists at {args.before} missing from the working tree\n"
    text += "".join(f"- {n}\n" for n in notes)
    text += (f"- time: {(time.perf_counter() - started) / 60:.1f} min\n\n"
             "+R, +P: what putting the entry back adds to binary token recall and precision, in points "
             "(put back less as now). The first row gives the scores as now.\n\n")
    text += "| entry | why removed | " + " | ".join(f"{c}: +R | {c}: +P" for c in results) + " |\n"
    text += "|---|---|" + "---|---|" * len(results) + "\n"
    for label, entries in configs:
        cells = []
        for rows in results.values():
            now, row = rows["as now"], rows[label]
            cells += ([f"R {100 * row['R']:.2f}", f"P {100 * row['P']:.2f}"] if label == "as now" else
                      [f"{100 * (row['R'] - now['R']):+.2f}", f"{100 * (row['P'] - now['P']):+.2f}"])
        why = REASONS.get(entry_digest(entries[0][2]), "(not given)") if len(entries) == 1 else ""
        text += f"| {label} | {why} | " + " | ".join(cells) + " |\n"
    publish(text, args.out)
    return 0


if __name__ == "__main__":
    run_script(main, "removals.py")
