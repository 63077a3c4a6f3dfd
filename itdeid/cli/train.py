"""``itdeid train CORPUS --out MODEL_DIR``: train one trigger variant's token model."""
from __future__ import annotations

import time

from itdeid.formats import read_corpus
from itdeid.learners import LEARNERS
from itdeid.model import PREVIOUS, TokenModel
from itdeid.triggers import VARIANTS


def add_parser(subparsers):
    p = subparsers.add_parser("train", help="train a token model on an annotated corpus",
                              description="Train a boosted-tree PHI token model on gold-annotated "
                                          "documents and save it to a folder (JSON + learner file).")
    p.add_argument("corpus", help="annotated corpus (i2b2 2006/2014 XML, PhysioNet id.text, ...)")
    p.add_argument("--out", required=True, help="model folder to write")
    p.add_argument("--format", default="auto", help="corpus format (default: detect)")
    p.add_argument("--trigger", choices=VARIANTS, default="token", help="trigger variant (default: token)")
    p.add_argument("--learner", choices=LEARNERS, default="xgboost", help="classifier (default: xgboost)")
    p.add_argument("--previous", choices=PREVIOUS, default="gold",
                   help="source of the previous-class feature at training time (default: gold)")
    p.add_argument("--device", default="cpu", help="xgboost device: cpu or cuda (default: cpu)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    p.set_defaults(run=run)


def run(args):
    documents = read_corpus(args.corpus, args.format)
    start = time.perf_counter()
    model = TokenModel(trigger=args.trigger, learner=args.learner, previous=args.previous,
                       device=args.device, random_state=args.seed).fit(documents)
    model.save(args.out)
    print(f"trained {model!r} on {len(documents)} documents in {time.perf_counter() - start:.1f} s; "
          f"{len(model.feature_names_)} features; saved to {args.out}")
