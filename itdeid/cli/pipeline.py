"""``itdeid pipeline [--model M]``: the stages and passes a note goes through, in order."""
from __future__ import annotations

from itdeid.errors import UserError
from itdeid.pipeline import check_skip, describe


def add_parser(subparsers):
    p = subparsers.add_parser(
        "pipeline", help="list what itdeid does to a note, in order, and which passes a model runs",
        description="Print the stages a note goes through and every post-model pass in the order it "
                    "runs, each with its purpose; with a model, whether the model runs each pass "
                    "(on) or not (off). Any pass or group can be turned off by name with "
                    "'itdeid deid --skip-pass NAME'.")
    p.add_argument("--model", metavar="DIR", default=None,
                   help="model folder (or 'default', the model installed with itdeid): show which "
                        "passes it runs")
    p.add_argument("--skip-pass", metavar="NAME", action="append", default=[],
                   help="show the list as it runs with this pass or group off (repeatable)")
    p.set_defaults(run=run)


def run(args):
    model = None
    if args.model is not None:
        from itdeid.model_folder.load import load_model
        from itdeid.resources import default_model_dir
        model = load_model(default_model_dir() if args.model == "default" else args.model)
    try:
        check_skip(args.skip_pass)
    except ValueError as error:
        raise UserError(f"--skip-pass: {error}") from None
    print(describe(model, args.skip_pass), end="")
