"""Which section headings are unambiguous, and how much PHI lies under them.

    python experiments/headings.py --corpus CORPUS [--out experiments/results/headings-NAME.md]

The iterative method of Szarvas et al. (2007) harvests trusted phrases only under headings whose
PHI tokens are (nearly) all of one class: cross-class entropy below ``--threshold`` (0.1) with at
least ``--min-tokens`` PHI tokens (5). Where a corpus has no such heading, ITR1/ITR2 have nothing
to harvest and cannot differ from ITR0 but by noise; this script shows that before any model is
trained. Gold labels of the whole corpus are used (the system itself uses its training folds).
"""
from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from itdeid.featurize import tokenize_document
from itdeid.estimators.iterate import heading_entropy
from itdeid.evaluation.report import header, markdown_table
from itdeid.evaluation.stats import MIN_HEADING_PATIENTS, nameable_headings

from common import read_choice_corpus, run_script


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--corpus", required=True)
    p.add_argument("--threshold", type=float, default=0.1)
    p.add_argument("--min-tokens", type=int, default=5)
    p.add_argument("--out", default=None)
    args = p.parse_args(argv)
    documents = read_choice_corpus(args.corpus)
    name = Path(args.corpus).stem if Path(args.corpus).is_file() else Path(args.corpus).name
    docs = [tokenize_document(d) for d in documents]
    entropy = heading_entropy(docs)
    table = pd.DataFrame([{"heading": h, "entropy": e, "phi_tokens": n} for h, (e, n) in entropy.items()])
    total_phi = int(sum(int((td.labels > 0).sum()) for td in docs))
    if table.empty:
        table = pd.DataFrame(columns=["heading", "entropy", "phi_tokens"])
    table = table.sort_values(["entropy", "phi_tokens"], ascending=[True, False]).set_index("heading")
    hidden = [h for h in table.index if h not in nameable_headings(docs)]
    table = table.rename(index={h: f"(heading {k})" for k, h in enumerate(hidden, 1)})
    unambiguous = table[(table.entropy < args.threshold) & (table.phi_tokens >= args.min_tokens)]
    text = header(f"Section headings and their PHI: {name}")
    text += (f"- corpus: {len(documents)} documents, {total_phi} PHI tokens\n"
             f"- headings with PHI under them: {len(table)}; unambiguous (entropy < {args.threshold}, "
             f">= {args.min_tokens} PHI tokens): {len(unambiguous)}, holding "
             f"{int(unambiguous.phi_tokens.sum())} PHI tokens ({100 * unambiguous.phi_tokens.sum() / max(total_phi, 1):.1f} %)\n"
             f"- headings are named only when the notes of {MIN_HEADING_PATIENTS} or more patients "
             "have them and no gold PHI lies in them (a heading line can be a patient's name): "
             f"{len(hidden)} are numbered instead\n\n")
    text += "Unambiguous headings:\n\n" + (markdown_table(unambiguous, ".3f") if len(unambiguous) else "(none)\n")
    text += "\nThe 25 headings with the most PHI tokens:\n\n"
    text += markdown_table(table.sort_values("phi_tokens", ascending=False).head(25), ".3f")
    out = Path(args.out or f"experiments/results/headings-{name}.md")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    print(f"wrote {out}")


if __name__ == "__main__":
    run_script(main, "headings.py")
