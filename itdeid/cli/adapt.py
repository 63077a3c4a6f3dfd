"""``itdeid adapt CORRECTIONS --out MODEL_DIR``: adapt a trained model to a site's corrected notes
(:mod:`itdeid.training.adapt`)."""
from __future__ import annotations

import datetime
import sys
import time
from pathlib import Path

from itdeid import __version__


def add_parser(subparsers):
    p = subparsers.add_parser(
        "adapt", help="adapt a model to a site's corrected notes (from itdeid review)",
        description="Continue the base model's boosted trees on corrected notes (gold annotations, "
                    "such as the corrections.xml of an 'itdeid review' folder) and choose its "
                    "threshold again by cross-validation grouped by patient on them. The adapted "
                    "model keeps no word of those notes.")
    p.add_argument("corrections", help="corrected notes: a corpus with gold PHI (i2b2 2006 XML, ...), "
                                       "or an 'itdeid review' folder (its corrections.xml)")
    p.add_argument("--out", required=True, help="model folder to write")
    p.add_argument("--base", default="default", help="the model to adapt (default: the installed model)")
    p.add_argument("--format", default="auto", help="format of CORRECTIONS (default: detect)")
    p.add_argument("--rounds", type=int, default=None, help="trees added to each boosted model (default 100)")
    p.add_argument("--learning-rate", type=float, default=None, help="their learning rate (default 0.1)")
    p.add_argument("--folds", type=int, default=None,
                   help="parts the notes are split into, by patient, to choose the threshold (default 5)")
    p.add_argument("--target-recall", type=float, default=None,
                   help="share of the notes' PHI tokens the adapted tagging (passes included) must find "
                        "out of fold; the threshold is the largest that does, else the one of highest "
                        "F2 (default 0.96)")
    p.add_argument("--n-jobs", type=int, default=1, help="xgboost threads (default 1)")
    p.set_defaults(run=run)


def _card(args, report, base_check: str, seconds: float) -> str:
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return (f"# An adapted itdeid model\n\n"
            f"- adapted: {now}, in {seconds:.0f} s, by itdeid {__version__}\n"
            f"- base model: `{args.base}` ({base_check}); base threshold {report.base_threshold}\n"
            f"- corrected notes: {report.notes} notes of {report.patients} patients, "
            f"{report.phi_tokens} PHI tokens\n"
            f"- trees added to each boosted model: {report.rounds}, learning rate {report.learning_rate}\n"
            f"- threshold: {report.threshold:.4f}, chosen for recall {report.target_recall} of the notes' PHI "
            f"tokens by the whole tagging (passes included), by {report.folds}-part cross-validation "
            f"grouped by patient; out of fold at that threshold: recall {report.recall_out_of_fold:.4f}, "
            f"precision {report.precision_out_of_fold:.4f} (token level)\n"
            + ("" if report.reached else
               f"- **no threshold reached recall {report.target_recall}**: the one of highest F2 out of fold "
               "was used\n")
            + f"- passes switched off for these notes (they lowered F2 out of fold): "
              f"{', '.join(report.passes_off) or 'none'}\n"
            + ("" if report.context_stage is None else
               "- context stage: " + ("kept" if report.context_stage else
                                      "dropped (the members' mean alone gave a higher F2 out of fold)") + "\n")
            + "\n"
            "These scores come from the same few notes that chose the threshold; score the model on "
            "notes it never saw (`itdeid evaluate`) before trusting it.\n")


def run(args):
    from itdeid import load_model
    from itdeid.formats import read_annotated_corpus
    from itdeid.model_folder import model_digests
    from itdeid.model_folder.model_out import replacing
    from itdeid.resources import model_folder
    from itdeid.review.store import CORRECTIONS
    from itdeid.training import adapt as adapting

    source = Path(args.corrections)
    if source.is_dir() and (source / CORRECTIONS).is_file():
        source = source / CORRECTIONS
    documents = read_annotated_corpus(source, args.format)
    base = load_model(args.base)
    base_check = model_digests.described(model_digests.check(model_folder(args.base)))
    start = time.perf_counter()
    model, report = adapting.adapt(
        base, documents,
        rounds=adapting.ROUNDS if args.rounds is None else args.rounds,
        learning_rate=adapting.LEARNING_RATE if args.learning_rate is None else args.learning_rate,
        folds=adapting.FOLDS if args.folds is None else args.folds, target_recall=args.target_recall,
        n_jobs=args.n_jobs)
    seconds = time.perf_counter() - start
    with replacing(args.out) as fresh:
        model.save(fresh)
        (fresh / "MODEL_CARD.md").write_text(_card(args, report, base_check, seconds), encoding="utf-8")
    print(f"adapted {args.base} on {report.notes} corrected notes in {seconds:.0f} s; threshold "
          f"{report.threshold:.4f} (out of fold: recall {report.recall_out_of_fold:.3f}, precision "
          f"{report.precision_out_of_fold:.3f}); saved to {args.out}")
    if not report.reached:
        print(f"warning: no threshold reached recall {report.target_recall} out of fold; the one of "
              "highest F2 was used: review more notes, or score the model (itdeid evaluate) before using it",
              file=sys.stderr)
