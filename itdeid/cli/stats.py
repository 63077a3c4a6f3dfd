"""``itdeid stats CORPUS``: documents, tokens, PHI per class (against the paper's Table 2)."""
from __future__ import annotations

import json
from pathlib import Path

from itdeid.formats import READ_FORMATS, read_corpus
from itdeid.evaluation.stats import corpus_stats, format_stats


def add_parser(subparsers):
    p = subparsers.add_parser(
        "stats", help="corpus statistics: tokens and PHI per class, headings",
        description="Count documents, patients, tokens, PHI tokens and spans per class and "
                    "distinct section headings, and compare the class proportions with the i2b2 "
                    "2006 test set (Szarvas et al. 2007, Table 2).")
    p.add_argument("corpus", help="corpus file or folder")
    p.add_argument("--format", choices=READ_FORMATS, default="auto",
                   help="corpus format (default: detect)")
    p.add_argument("--json", metavar="FILE", default=None, help="also write the numbers as JSON")
    p.set_defaults(run=run)


def run(args):
    documents = read_corpus(args.corpus, args.format)
    stats = corpus_stats(documents)
    if args.json:       # before the table: a reader that closes stdout ('| head') ends the run
        Path(args.json).write_text(json.dumps(stats, indent=2) + "\n", encoding="utf-8")
    print(format_stats(stats))
