"""``itdeid review NOTES --corrections DIR``: review the model's tags of a sample of notes in a
browser on this machine, and keep the corrections as gold annotations.

The first run tags the notes, chooses the sample (:mod:`itdeid.review.sample`) and writes the
review folder (:mod:`itdeid.review.store`); a later ``itdeid review --corrections DIR`` resumes
it. The page is served on 127.0.0.1 with a secret in its URL (:mod:`itdeid.review.server`).
"""
from __future__ import annotations

import dataclasses
import datetime
import sys
from pathlib import Path

from itdeid import __version__
from itdeid.errors import UserError


def add_parser(subparsers):
    p = subparsers.add_parser(
        "review", help="review and correct the model's tags of a sample of notes in a browser",
        description="Tag NOTES, choose a sample for review (most by risk, the rest at random; the "
                    "design is recorded), and serve a page on 127.0.0.1 where a reviewer adds "
                    "missed PHI, removes false alarms and changes classes. Corrections are saved "
                    "at once in the --corrections folder (owner-only: it holds the notes' text) "
                    "as corrections.xml (i2b2 2006 XML, for itdeid train and itdeid evaluate). "
                    "Run again with --corrections alone to resume.")
    p.add_argument("input", nargs="?", help="notes to sample from (any corpus format, or plain text "
                                            "files/folders); not needed to resume")
    p.add_argument("--corrections", required=True,
                   help="the review folder (created owner-only; keep it out of any folder you release)")
    p.add_argument("--model", default="default", help="model folder, or 'default' (the installed model)")
    p.add_argument("--input-format", default="auto", help="input format (default: detect)")
    p.add_argument("--sample", type=int, default=50, help="notes to review (default 50)")
    p.add_argument("--random-share", type=float, default=0.5,
                   help="share of the sample drawn uniformly at random, the rest by risk (default 0.5)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random draw (default 0)")
    p.add_argument("--threshold", type=float, default=None,
                   help="tag at this P(PHI) instead of the model's own operating point")
    p.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one)")
    p.add_argument("--no-serve", action="store_true", help="prepare the review folder and stop")
    p.set_defaults(run=run)


def _check_folder(corrections: str, given: str | None) -> None:
    out, source = Path(corrections).resolve(), Path(given).resolve() if given else None
    if source is not None and (out == source or (source.is_dir() and out.is_relative_to(source))):
        raise UserError(f"--corrections {corrections}: the input or inside the input folder; "
                        "keep the review folder elsewhere")
    if out.exists() and not out.is_dir():
        raise UserError(f"--corrections {corrections}: not a folder")


def prepare(args):
    """A new review folder: score every note's risk, choose the sample, tag it, write the store."""
    from itdeid import load_model
    from itdeid.estimators.deidentifier import set_threshold
    from itdeid.formats import read_corpus
    from itdeid.batch.settings import model_fingerprint
    from itdeid.model_folder import model_digests
    from itdeid.resources import model_folder
    from itdeid.review.sample import NEAR_SHARE, UNSURE_BELOW, batch_risks, choose_sample, token_probabilities
    from itdeid.review.store import ReviewStore
    from itdeid.text.pieces import tag_documents

    model = load_model(args.model)
    if not hasattr(model, "predict_proba_tokenized"):
        raise UserError(f"{args.model}: review needs a model that gives probabilities "
                        "(an ensemble or a token model)")
    if args.threshold is not None:
        set_threshold(model, args.threshold)
    folder = model_folder(args.model)
    documents = read_corpus(args.input, args.input_format)
    if not documents:
        raise UserError(f"{args.input}: no notes to review")
    risks, untagged = batch_risks(model, documents)         # the one pass over the whole batch
    picks = choose_sample(risks, args.sample, args.random_share, args.seed)
    chosen = [documents[p.index] for p in picks]
    predicted = dict(zip((p.index for p in picks), tag_documents(model, chosen)))
    tokens = token_probabilities(model, chosen)
    design = {"input": str(Path(args.input).resolve()), "population": len(documents),
              "sample": len(picks), "risk_notes": sum(p.stratum == "risk" for p in picks),
              "random_notes": sum(p.stratum == "random" for p in picks),
              "random_share": args.random_share, "seed": args.seed,
              "risk": {"near_miss_share_of_threshold": NEAR_SHARE, "unsure_below": UNSURE_BELOW},
              "model": str(folder), "model_files": model_digests.described(model_digests.check(folder)),
              "model_sha256": model_fingerprint(folder),
              "threshold": model.operating_threshold(), "itdeid_version": __version__,
              "untagged": dataclasses.asdict(untagged),
              "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}
    store = ReviewStore.create(args.corrections, documents, predicted, picks, risks, design, tokens)
    print(f"chose {design['sample']} of {len(documents)} notes for review ({design['risk_notes']} by "
          f"risk, {design['random_notes']} at random, seed {args.seed}); review folder: {args.corrections}")
    return store


def run(args):
    from itdeid.review.server import ReviewServer
    from itdeid.review.store import STATE, ReviewStore
    _check_folder(args.corrections, args.input)
    if (Path(args.corrections) / STATE).exists():
        if args.input:
            print(f"itdeid review: resuming the review in {args.corrections} (its sample was chosen "
                  "when it began; NOTES and the sampling options are not read again)", file=sys.stderr)
        store = ReviewStore.open(args.corrections)
    elif not args.input:
        raise UserError(f"--corrections {args.corrections}: no review there yet; give the NOTES to review")
    else:
        store = prepare(args)
    if args.no_serve:
        return
    try:
        server = ReviewServer(store, args.port)
    except OSError as e:
        raise UserError(f"cannot serve on 127.0.0.1 port {args.port}: {e.strerror}") from None
    print(f"review page (this machine only; the address is the key, do not share it):\n  {server.url}\n"
          "Ctrl-C stops; every change is already saved.", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    summary = store.summary()
    print(f"stopped: {summary['reviewed']} of {len(summary['notes'])} notes reviewed; corrections in "
          f"{Path(args.corrections) / 'corrections.xml'}")
