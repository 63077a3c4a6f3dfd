"""``itdeid evaluate GOLD PRED``: score predicted PHI spans against a gold corpus."""
from __future__ import annotations

import sys

from itdeid.errors import UserError
from itdeid.evaluation.evaluate import UNITS, evaluate
from itdeid.formats import READ_FORMATS, detect_format, read_corpus, read_spans

#: Formats predictions may come in: any corpus format with spans, or JSON Lines spans.
PRED_FORMATS = tuple(f for f in READ_FORMATS if f != "text") + ("jsonl",)


def add_parser(subparsers):
    p = subparsers.add_parser(
        "evaluate", help="score predicted spans against gold",
        description="Score predicted PHI spans against a gold corpus: token 9-way and 8-way "
                    "P/R/F (Szarvas et al. 2007), per class, binary, entity strict/relaxed "
                    "(i2b2 2014), macro averages, the HIPAA subset and the confusion matrix. "
                    "A gold document with no predictions counts as predicting nothing.")
    p.add_argument("gold", help="gold corpus (i2b2 2006 XML, i2b2 2014 folder/zip, PhysioNet)")
    p.add_argument("pred", help="predictions: a .jsonl span file or a corpus in any format")
    p.add_argument("--gold-format", default="auto", choices=[f for f in READ_FORMATS if f != "text"],
                   help="gold format (default: detect)")
    p.add_argument("--pred-format", default="auto", choices=PRED_FORMATS,
                   help="predictions format (default: detect; .jsonl is JSON Lines spans)")
    p.add_argument("--unit", default="token", choices=UNITS,
                   help="token unit: itdeid tokens split at span edges (default) or "
                        "whitespace-separated tokens (the 2006 challenge)")
    p.add_argument("--json", metavar="FILE", help="also write all scores as JSON")
    p.add_argument("--csv", metavar="FILE", help="also write the score table as CSV")
    p.set_defaults(run=run)


def run(args):
    gold = read_corpus(args.gold, args.gold_format)     # first: its errors name what a file is
    # a brat folder or plain notes read as text were scored as gold without PHI, exit 0
    if args.gold_format == "auto" and detect_format(args.gold) == "text":
        raise UserError(f"{args.gold}: read as plain text, which holds no gold annotations; give "
                        "the annotated corpus (i2b2 2006 or 2014 XML, PhysioNet deid) or its "
                        "--gold-format (BRAT .ann files are not read)")
    if not any(doc.spans for doc in gold):
        print(f"itdeid evaluate: warning: the {len(gold)} gold documents hold no PHI span: every "
              "predicted span counts as a false alarm", file=sys.stderr)
    predicted = read_spans(args.pred, args.pred_format, gold)
    scores = evaluate(gold, predicted, unit=args.unit)
    if args.json:       # before the table: a reader that closes stdout ('| head') ends the run
        scores.write_json(args.json)
    if args.csv:
        scores.write_csv(args.csv)
    print(scores.format())
    return 0
