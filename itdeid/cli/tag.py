"""``itdeid tag MODEL_DIR INPUT --out PRED``: tag documents with a trained model.

Notes are tagged a bounded number of characters at a time, a long note in pieces
(:mod:`itdeid.text.pieces`), with progress in characters on stderr (:mod:`itdeid.batch.progress`).
"""
from __future__ import annotations

import sys
from pathlib import Path

from itdeid.model_folder import model_digests
from itdeid.document import Document
from itdeid.errors import UserError, printable
from itdeid.formats import read_corpus, write_corpus
from itdeid import load_model
from itdeid.model_folder.model_files import threshold_described
from itdeid.text.pieces import tag_documents
from itdeid.batch.progress import Progress
from itdeid.resources import model_folder
from itdeid.estimators.warm_start import starting, warm_up


def add_parser(subparsers):
    p = subparsers.add_parser("tag", help="tag documents with a trained model",
                              description="Predict PHI spans with a trained model and write them as "
                                          "JSON Lines spans or i2b2 XML.")
    p.add_argument("model", help="model folder written by 'itdeid train' (a token model or --system), "
                                 "or 'default' for the model installed with itdeid (when no folder of "
                                 "that name is here)")
    p.add_argument("input", help="documents to tag (any corpus format, or plain text files/folders)")
    p.add_argument("--out", required=True, help="output file (.jsonl or .xml)")
    p.add_argument("--input-format", default="auto", help="input format (default: detect)")
    p.add_argument("--format", choices=["jsonl", "i2b2-2006"], default=None,
                   help="output format (default: from the --out suffix; .xml is i2b2-2006)")
    p.add_argument("--threshold", type=float, default=None,
                   help="tag a token as PHI when P(PHI) reaches this (0-1], instead of the "
                        "model's own operating point; lower finds more PHI")
    p.set_defaults(run=run)


def _check_out(out: str, given: str) -> None:
    """``--out`` must be a new or replaceable file, neither the input nor inside an input folder:
    ``tag M corpus.xml --out corpus.xml`` replaced a gold corpus with predictions, and a file
    written into the notes' folder would be read as a note next time."""
    out_path, input_path = Path(out).resolve(), Path(given).resolve()
    if Path(out).is_dir():
        raise UserError(f"--out {out}: a folder; give the file to write the spans to")
    if out_path == input_path or (input_path.is_dir() and out_path.is_relative_to(input_path)):
        raise UserError(f"--out {out}: the input or inside the input folder; write the spans elsewhere")


def run(args):
    _check_out(args.out, args.input)
    # 'default' names the installed model, as deid's --model left out does, unless a folder of
    # that name is given (a new user had to dig the installed model's path out of site-packages)
    # loaded and warmed up with the collector held off, then frozen, and the templates compiled
    # beside it with a core to spare (itdeid.estimators.warm_start): the one process tagging
    with starting(alone=True):
        # imported here, not with the module: it brings scikit-learn and xgboost (about a
        # second), which the templates' compile then runs beside
        from itdeid.estimators.deidentifier import set_threshold
        model = load_model(args.model)
        if args.threshold is not None:
            set_threshold(model, args.threshold)
        warm_up(model)
    # load_model checked the digests; checked again for the summary, and a warning where the
    # folder has none (deleting SHA256SUMS turned the check off without a word)
    folder = model_folder(args.model)
    matched = model_digests.check(folder)
    if matched is None:
        print(printable(f"itdeid tag: warning: {model_digests.not_checked(folder)}"), file=sys.stderr)
    documents = read_corpus(args.input, args.input_format)
    shown = Progress(sum(len(d.text) for d in documents), "itdeid tag", unit="char")
    try:
        predicted = tag_documents(model, documents, advance=lambda n: shown.done(n, items=0))
    finally:
        shown.close()
    out_docs = [Document(d.id, d.text, spans, d.patient, d.source) for d, spans in zip(documents, predicted)]
    fmt = args.format or ("i2b2-2006" if args.out.endswith(".xml") else "jsonl")
    write_corpus(out_docs, args.out, fmt)
    n = sum(len(s) for s in predicted)
    print(f"tagged {len(documents)} documents: {n} PHI spans written to {args.out} ({fmt})")
    print(f"model: {folder} ({model_digests.described(matched)}); threshold "
          f"{threshold_described(folder, args.threshold)}")
