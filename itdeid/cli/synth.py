"""``itdeid synth --records N --seed S --out FILE [--nursing-share F]``: write a synthetic
discharge-summary corpus, a share of it ICU nursing progress notes if asked."""
from __future__ import annotations

import sys

from itdeid.errors import UserError
from itdeid.formats import WRITE_FORMATS, write_corpus
from itdeid.synth import generate, latin1_folded


def add_parser(subparsers):
    p = subparsers.add_parser(
        "synth", help="write synthetic discharge summaries with gold PHI",
        description="Generate synthetic discharge summaries in the manner of the i2b2 2006 "
                    "de-identification corpus (several records per patient, six writing styles, "
                    "all eight PHI classes), deterministic by seed; with --nursing-share, a share "
                    "of them short ICU nursing progress notes instead.")
    p.add_argument("--records", type=int, default=200, help="number of records (default: 200)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    p.add_argument("--out", required=True, help="output: one .xml file (i2b2-2006), a folder of "
                   "one .xml a record (i2b2-2014), or OUT and OUT's -phi.phrase file beside it "
                   "(physionet)")
    p.add_argument("--nursing-share", type=float, default=0.0, metavar="F",
                   help="share of records written as ICU nursing progress notes, 0 to 1 "
                        "(default: 0, discharge summaries only)")
    # JSON Lines holds spans without their text: no corpus (a synthetic one is all text)
    p.add_argument("--format", choices=[f for f in WRITE_FORMATS if f != "jsonl"], default="i2b2-2006",
                   help="output format (default: i2b2-2006)")
    p.set_defaults(run=run)


def run(args):
    if args.records < 1:
        raise UserError("--records must be at least 1")
    if not 0.0 <= args.nursing_share <= 1.0:
        raise UserError("--nursing-share must be between 0 and 1")
    documents = generate(args.records, args.seed, nursing=args.nursing_share)
    if args.format == "physionet":
        documents, folded = latin1_folded(documents)
        if folded:
            print(f"{folded} characters outside latin-1 (the PhysioNet format's encoding) written "
                  "as their base letters", file=sys.stderr)
    write_corpus(documents, args.out, args.format)
    patients = len({d.patient for d in documents})
    spans = sum(len(d.spans) for d in documents)
    print(f"wrote {len(documents)} records of {patients} patients ({spans} PHI spans) to "
          f"{args.out} ({args.format})")
