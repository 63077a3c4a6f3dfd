"""``itdeid report --deid-out DIR [--review DIR] --out report.html``: the release report
(:mod:`itdeid.review.report`)."""
from __future__ import annotations

from pathlib import Path


def add_parser(subparsers):
    p = subparsers.add_parser(
        "report", help="a release report: what ran, what was found, what review found, PHI left",
        description="Write one HTML page for a release committee from an 'itdeid deid' output folder "
                    "and, where given, an 'itdeid review' folder: the model and settings, PHI found by "
                    "class, misses and false alarms found in review, and the PHI estimated to be left "
                    "(per 1,000 notes, 95 %% intervals, two ways). It holds counts only, no note text.")
    p.add_argument("--deid-out", required=True, help="the --out folder of an 'itdeid deid' run")
    p.add_argument("--review", default=None, help="the --corrections folder of an 'itdeid review'")
    p.add_argument("--out", required=True, help="the HTML file to write")
    p.set_defaults(run=run)


def run(args):
    from itdeid.batch.files import write_atomic
    from itdeid.review.report import release_report
    page = release_report(args.deid_out, args.review)
    write_atomic(Path(args.out), page.encode("utf-8"))
    print(f"release report written to {args.out}")
