"""Misses and false alarms of two rows of experiments/levers.py, by kind (counts, no note text).

    python experiments/errors.py ../shared/corpora/physionet-deid --levers experiments/results/g-levers \\
        --before XGB_TOKEN --after R97_IDS --out experiments/results/errors-physionet.md

Reads the rows' out-of-fold fold caches (run experiments/levers.py first). A *missed instance* is
a gold PHI span no predicted span overlaps; a *false alarm* a predicted span overlapping no gold
span. Each is counted by class and by the shape of its first token and its context: the case of
the token (Title, UPPER, lower, digits, mixed) and whether its line is all upper case or all
lower case, whether an announcing word (features/context_words.json) precedes it, and whether
the word is in the census name lists, how often the word occurs as ordinary text (outside
gold PHI) in the notes the fold's model was trained on (a false alarm on a word the training
notes used as ordinary text is one the model had the evidence to avoid), and whether the gold of
another note marks the same word as PHI (a false alarm on such a word, a hospital or a city the
gold marks in one note and not in the next, is one no model could avoid with certainty). Only
counts are written: never a word of a note.
"""
from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from itdeid.featurize.casing import casing_columns
from itdeid.evaluation.evaluate import overlaps_any
from itdeid.featurize import static_columns
from itdeid.featurize.word_lists import census_names
from itdeid.evaluation.report import header

from common import (add_cache_arguments, cache_provenance, cached_fold, cached_folds, require_corpus,
                    run_script, tokenized_folds)


def _case(text: str) -> str:
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return "digits/punct"
    if any(c.isdigit() for c in text):
        return "mixed"
    if all(c.isupper() for c in letters):
        return "UPPER" if len(letters) > 1 else "Initial"
    if all(c.islower() for c in letters):
        return "lower"
    return "Title"


def _kinds(td, start: int, end: int, context: dict) -> tuple[str, ...]:
    """Kinds of the span [start, end) of tokenized document ``td`` (by its first token)."""
    i = next((k for k, t in enumerate(td.tokens) if t.end > start), 0)
    token = td.tokens[i]
    first, last = context["census"]
    word = td.words[i]
    line = "line UPPER" if context["line_upper"][i] else (
        "line lower" if context["line_cap"][i] == 0 else "line mixed")
    seen = context["ordinary"][word]
    elsewhere = context["phi_notes"].get(word, set()) - {td.document.id}
    return (_case(token.text), line,
            "announced" if context["announced_by"][i] else "not announced",
            "census name" if word in first or word in last else "not a census name",
            "never" if seen == 0 else "1-4 times" if seen < 5 else "5-49 times" if seen < 50 else "50 times or more",
            "PHI in another note's gold" if elsewhere else "PHI in no other note's gold")


def phi_notes(tokenized) -> dict:
    """Lower-case word -> ids of the notes whose gold marks it PHI (any class)."""
    notes: dict = {}
    for td in tokenized:
        for w, label in zip(td.words, td.labels):
            if label:
                notes.setdefault(w, set()).add(td.document.id)
    return notes


def ordinary_counts(tokenized, assignment, f: int) -> Counter:
    """How often each word occurs outside gold PHI in the notes outside fold ``f``."""
    counts = Counter()
    for td, a in zip(tokenized, assignment):
        if a != f:
            counts.update(w for w, label in zip(td.words, td.labels) if not label)
    return counts


def count_errors(name, tokenized, assignment, cache: Path, folds):
    """Misses, false alarms and gold instances of row ``name`` over the fold indices ``folds``."""
    missed, alarms, totals = Counter(), Counter(), Counter()
    census = census_names()
    marked = phi_notes(tokenized)
    for f in folds:
        fold = cached_fold(name, tokenized, assignment, cache, f)
        ordinary = ordinary_counts(tokenized, assignment, f)
        for td in fold["test"]:
            pred = fold["spans"][td.document.id]
            gold = td.document.spans
            cols = casing_columns(td)
            context = {"census": census, "line_upper": static_columns(td, "context")["line_upper"],
                       "line_cap": cols["line_cap_share"], "announced_by": cols["announced_by"],
                       "ordinary": ordinary, "phi_notes": marked}
            for g, found in zip(gold, overlaps_any(gold, pred)):
                totals[g.type] += 1
                if not found:
                    missed[(g.type,) + _kinds(td, g.start, g.end, context)] += 1
            for p, right in zip(pred, overlaps_any(pred, gold)):
                if not right:
                    alarms[(p.type,) + _kinds(td, p.start, p.end, context)] += 1
    return missed, alarms, totals


def _table(counter: Counter, position: int, title: str) -> str:
    by = Counter()
    for key, n in counter.items():
        by[key[position]] += n
    lines = [f"| {title} | count |", "|---|---|"]
    lines += [f"| {k} | {n} |" for k, n in by.most_common()]
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_cache_arguments(ap)
    ap.add_argument("--before", default="XGB_TOKEN")
    ap.add_argument("--after", default="R97_IDS")
    ap.add_argument("--out", default="experiments/results/errors-physionet.md")
    args = ap.parse_args(argv)
    require_corpus(args.corpus)
    tokenized, assignment = tokenized_folds(args)
    cache = Path(args.levers) / "cache"
    # the folds both rows have cached (an unfinished run's view says so in the header)
    folds = cached_folds(cache, (args.before, args.after), args.folds)
    if not folds:
        print("no fold is cached for both rows", file=sys.stderr)
        return 1
    text = (header(f"Misses and false alarms by kind: {args.before} (before) and {args.after} (after)")
            + cache_provenance(cache, (args.before, args.after), folds) +
            f"- out-of-fold predictions of experiments/levers.py's fold caches ({args.folds}-fold CV grouped by "
            "patient); a miss is a gold instance no prediction overlaps, a false alarm a predicted "
            "span overlapping no gold; kinds are those of the span's first token; counts only\n"
            + (f"- **folds {folds} of {args.folds} only** (those both rows have cached)\n"
               if len(folds) < args.folds else ""))
    for row in (args.before, args.after):
        missed, alarms, totals = count_errors(row, tokenized, assignment, cache, folds)
        text += (f"\n## {row}\n\n{sum(missed.values())} of {sum(totals.values())} gold instances "
                 f"missed, {sum(alarms.values())} false alarms.\n")
        for label, counter in (("Missed instances", missed), ("False alarms", alarms)):
            text += f"\n### {label}\n\n"
            for position, title in ((0, "class"), (1, "token case"), (2, "line case"),
                                    (3, "after an announcing word"), (4, "census name"),
                                    (5, "ordinary text in the training notes"),
                                    (6, "the same word in another note's gold")):
                text += _table(counter, position, title) + "\n\n"
    Path(args.out).write_text(text, encoding="utf-8")
    print(f"written {args.out}")
    return 0


if __name__ == "__main__":
    run_script(main, "errors.py")
