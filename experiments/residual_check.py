"""Do the release report's estimates of the PHI left hold the truth? (issue N, item 3)

    python experiments/residual_check.py [--draws 100] [--sample 40] [--synthetic 400]
        [--physionet DIR --physionet-folds 2] [--out experiments/results/residual-check.md]
        [--example experiments/results/release-report-example.html]

On corpora with gold the review can be simulated: the model tags every note (predicted spans,
each token's P(PHI)), the sample is chosen as ``itdeid review`` chooses it (a new seed a draw),
and the reviewer's corrections are the gold spans of the sampled notes. Each draw's two
estimates of the missed PHI instances per 1,000 notes (:mod:`itdeid.review.estimate`) are
compared with the truth, the misses of the model over every note of the corpus. Reported per
corpus: the truth, the mean estimate, and how often the 95 % interval holds the truth.

Corpora: synthetic discharge summaries (``itdeid.synth.generate``) tagged by the shipped model;
the 12 hand-written letters (``experiments/heldout``, a sample of 6); and, with ``--physionet``,
the PhysioNet split out of fold: the recipe trained on the other folds' patients
(``itdeid train --synthetic 0``, cached under ``experiments/results/residual-check/cache``)
tags each fold.

``--example`` also writes an example release report over the synthetic notes (invented notes, and
one input that is an image, which the report counts as failed):
``itdeid deid`` and ``itdeid review --no-serve`` on them, the review's corrections set to the
gold, then ``itdeid report``.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from itdeid import load_model
from itdeid.estimators.folds import group_folds
from itdeid.evaluation.report import header
from itdeid.formats import read_annotated_corpus
from itdeid.formats.i2b2_2006 import read_i2b2_2006, write_i2b2_2006
from itdeid.review.estimate import design_estimate, model_estimate, review_note
from itdeid.review.sample import Untagged, choose_sample, note_probabilities, note_risk, risk_threshold
from itdeid.review.store import ReviewStore
from itdeid.synth import generate
from itdeid.text.pieces import tag_documents

from common import publish, run_script

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / "experiments" / "results" / "residual-check" / "cache"


def tagged(model, documents):
    """Per note: predicted spans, tokens ``[start, end, P(PHI)]``, risk; and the untagged bins."""
    threshold = risk_threshold(model)
    predicted = tag_documents(model, documents)
    untagged = Untagged.empty(threshold)
    rows = []
    for doc, spans, (offsets, p_phi) in zip(documents, predicted, note_probabilities(model, documents)):
        untagged.add(p_phi)
        rows.append({"spans": [[s.start, s.end, s.type] for s in doc.spans],
                     "predicted": [[s.start, s.end, s.type] for s in spans],
                     "tokens": [[int(a), int(b), float(p)] for (a, b), p in zip(offsets, p_phi)],
                     "risk": note_risk(p_phi, threshold)})
    return rows, untagged


def check(name, rows, untagged, draws, sample, share):
    """One corpus's line: truth, mean estimates, coverage over ``draws``."""
    truth_total = sum(review_note(dict(r, stratum="all")).misses for r in rows)
    n = len(rows)
    truth = truth_total * 1000 / n
    found = {"design": [], "model": []}
    for seed in range(draws):
        picks = choose_sample([r["risk"] for r in rows], sample, share, seed)
        notes = [dict(rows[p.index], stratum=p.stratum, probability=p.probability) for p in picks]
        reviews = [review_note(x) for x in notes]
        strata = {"risk": sum(p.stratum == "risk" for p in picks)}
        strata["random"] = n - strata["risk"]
        found["design"].append(design_estimate(reviews, strata, n).per_1000)
        m = model_estimate(notes, {"counts": untagged.counts, "sums": untagged.sums}, reviews, n, seed=seed)
        found["model"].append(m.per_1000 if m is not None else (np.nan,) * 3)
    line = [name, n, truth_total, f"{truth:.1f}"]
    for kind in ("design", "model"):
        values = np.array(found[kind], dtype=np.float64)
        ok = values[~np.isnan(values[:, 0])]
        inside = ((ok[:, 1] <= truth + 1e-9) & (truth <= ok[:, 2] + 1e-9)).mean() if len(ok) else np.nan
        line += [f"{np.mean(ok[:, 0]):.1f}" if len(ok) else "n/a",
                 f"{np.mean(ok[:, 2] - ok[:, 1]):.1f}" if len(ok) else "n/a",
                 f"{inside:.0%} of {len(ok)}" if len(ok) else "n/a"]
    return line


def physionet_rows(path, folds):
    """The PhysioNet split tagged out of fold by the recipe trained on the other folds."""
    documents = read_annotated_corpus(path)
    assignment = group_folds(documents, folds)
    rows, untagged = [None] * len(documents), None
    for f in range(folds):
        model_dir = CACHE / f"physionet-fold{f}-of{folds}"
        if not (model_dir / "SHA256SUMS").is_file():
            train = [d for d, a in zip(documents, assignment) if a != f]
            with tempfile.TemporaryDirectory() as tmp:
                write_i2b2_2006(train, Path(tmp) / "train.xml")
                subprocess.run([sys.executable, "-m", "itdeid", "train", str(Path(tmp) / "train.xml"),
                                "--synthetic", "0", "--n-jobs", "2", "--out", str(model_dir)], check=True)
        test = [i for i, a in enumerate(assignment) if a == f]
        part, bins = tagged(load_model(str(model_dir)), [documents[i] for i in test])
        for i, r in zip(test, part):
            rows[i] = r
        if untagged is None:
            untagged = bins
        else:
            untagged.counts = [a + b for a, b in zip(untagged.counts, bins.counts)]
            untagged.sums = [a + b for a, b in zip(untagged.sums, bins.sums)]
    return rows, untagged


def example_report(documents, out: Path, sample: int) -> None:
    """deid, review (corrections = gold) and report over ``documents`` written as text files,
    with one input that is an image, not text, to show how the report counts a failed input."""
    def itdeid(*args, ok=(0,)):
        done = subprocess.run([sys.executable, "-m", "itdeid", *args], stdout=subprocess.DEVNULL)
        if done.returncode not in ok:
            raise SystemExit(f"itdeid {args[0]} failed ({done.returncode})")
    with tempfile.TemporaryDirectory() as tmp:
        notes = Path(tmp) / "notes"
        notes.mkdir()
        for d in documents:
            (notes / f"{d.id}.txt").write_text(d.text, encoding="utf-8", newline="")
        (notes / "scanned-form.txt").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
        itdeid("deid", str(notes), "--out", str(Path(tmp) / "deid"), ok=(1,))     # 1: an input failed
        (notes / "scanned-form.txt").unlink()           # not a note: the review samples the notes
        itdeid("review", str(notes), "--corrections", str(Path(tmp) / "review"), "--sample", str(sample), "--no-serve")
        store = ReviewStore.open(Path(tmp) / "review")
        gold = {d.id: d for d in documents}
        for i, note in enumerate(store.summary()["notes"]):
            store.save_note(i, [[s.start, s.end, s.type] for s in gold[note["id"]].spans], True)
        itdeid("report", "--deid-out", str(Path(tmp) / "deid"), "--review", str(Path(tmp) / "review"),
               "--out", str(out))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--draws", type=int, default=100)
    p.add_argument("--sample", type=int, default=40)
    p.add_argument("--random-share", type=float, default=0.5)
    p.add_argument("--synthetic", type=int, default=400)
    p.add_argument("--physionet", default=None)
    p.add_argument("--physionet-folds", type=int, default=2)
    p.add_argument("--out", default="experiments/results/residual-check.md")
    p.add_argument("--example", default=None)
    args = p.parse_args(argv)
    model = load_model()
    lines = []
    synthetic = generate(args.synthetic, seed=2027)
    rows, untagged = tagged(model, synthetic)
    lines.append(check(f"synthetic summaries ({args.synthetic}, seed 2027), shipped model", rows, untagged,
                       args.draws, args.sample, args.random_share))
    letters = read_i2b2_2006(ROOT / "experiments" / "heldout" / "handwritten-discharge.xml")
    rows, untagged = tagged(model, letters)
    lines.append(check("hand-written letters (12), shipped model, sample 6", rows, untagged, args.draws, 6,
                       args.random_share))
    if args.physionet:
        rows, untagged = physionet_rows(args.physionet, args.physionet_folds)
        lines.append(check(f"PhysioNet split, out of fold ({args.physionet_folds} folds by patient)", rows,
                           untagged, args.draws, args.sample, args.random_share))
    head = ("| corpus | notes | true misses | true per 1,000 | design: mean estimate | design: mean "
            "interval width | design: interval holds truth | model: mean estimate | model: mean interval "
            "width | model: interval holds truth |\n|" + "---|" * 10 + "\n")
    text = header("The release report's estimates of the PHI left, checked against the truth")
    text += (f"- draws: {args.draws} a corpus; sample {args.sample} notes ({1 - args.random_share:.0%} by "
             "risk, the rest at random), the reviewer's corrections being the gold\n"
             "- truth: gold instances no predicted span overlaps, over every note; estimates and "
             "truth in missed instances per 1,000 notes\n\n" + head
             + "".join("| " + " | ".join(str(c) for c in line) + " |\n" for line in lines))
    publish(text, args.out)
    if args.example:
        example_report(synthetic[:120], Path(args.example), 30)
        print(f"example report: {args.example}")
    return 0


if __name__ == "__main__":
    run_script(main, "residual_check.py")
