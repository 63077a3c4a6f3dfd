"""What the fixed-shape identifier templates match in an annotated corpus, by HIPAA kind.

    python experiments/identifier_templates.py --corpus CORPUS [--out experiments/results/identifiers-NAME.md]

The templates of ``features/identifiers.json`` are applied after the model and tag whatever
they match (:mod:`itdeid.identifiers`), so each must be precise on real notes. This counts, per
kind, the matches that overlap a gold PHI span (and of those, how many have the template's
class) and the matches that overlap none (false alarms). No training is involved, so the counts
are the same in every cross-validation fold. No note text is printed.
"""
from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

import pandas as pd

from itdeid.formats import read_corpus
from itdeid.identifiers import identifier_spans
from itdeid.report import header, markdown_table, publish
from itdeid.errors import run_script


def count_matches(documents) -> pd.DataFrame:
    """Per kind: matches overlapping gold PHI, of those with the same class, and the others."""
    phi, same, alarms = Counter(), Counter(), Counter()
    for d in documents:
        for span, kind in identifier_spans(d.text):
            overlapping = [g for g in d.spans if g.start < span.end and span.start < g.end]
            if overlapping:
                phi[kind] += 1
                same[kind] += any(g.type == span.type for g in overlapping)
            else:
                alarms[kind] += 1
    kinds = sorted(set(phi) | set(alarms))
    return pd.DataFrame([{"kind": k, "overlap_phi": phi[k], "same_class": same[k],
                          "false_alarms": alarms[k]} for k in kinds],
                        columns=["kind", "overlap_phi", "same_class", "false_alarms"]).set_index("kind")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--corpus", required=True)
    p.add_argument("--out", default=None)
    args = p.parse_args(argv)
    documents = read_corpus(args.corpus)
    table = count_matches(documents)
    name = Path(args.corpus).stem if Path(args.corpus).is_file() else Path(args.corpus).name
    text = header(f"Identifier templates on {name}")
    text += (f"- corpus: {len(documents)} documents, {sum(len(d.spans) for d in documents)} gold "
             "PHI spans\n\nMatches of features/identifiers.json by HIPAA kind (kinds with no match "
             "are not listed):\n\n")
    text += markdown_table(table, floatfmt=".0f")
    publish(text, args.out)


if __name__ == "__main__":
    run_script(main, "identifier_templates.py")
