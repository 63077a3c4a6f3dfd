"""Does the committed command rebuild the shipped model? (issue J, item 1) And where a file is not
the same byte for byte, how close is it?

    python experiments/model_rebuild.py [--physionet DIR] [--n-jobs 2] [--keep DIR]
                                        [--out experiments/results/model-rebuild.md]
    python experiments/model_rebuild.py --rebuilt DIR      # compare a folder rebuilt before
    python experiments/model_rebuild.py --rev OLD_COMMIT   # and the preset trained at OLD_COMMIT

Runs ``itdeid train --preset default`` (the command the shipped card names) into a temporary
folder (or ``--keep DIR``, kept) and compares the digest of every file the new folder's
``SHA256SUMS`` lists (every file but the card, which holds the date) with the shipped folder's
(``itdeid/models/default``). ``--rebuilt DIR`` compares a folder that command wrote before, and
trains nothing; the report says so, and quotes that folder's card on when and from which code it
was trained.

Then, how close a rebuild that is not byte-identical is:

- every xgboost learner file that differs is loaded with xgboost (load only: the files are data,
  gzip-compressed UBJSON) on both sides: the number of trees, whether every tree has the same
  structure (``split_indices``, ``left_children``, ``right_children``, ``default_left``, and the
  class each tree is for, ``tree_info``), the largest absolute and relative difference in
  ``split_conditions`` (split thresholds; a leaf's value at a leaf) and ``base_weights`` over the
  trees, and whether ``base_score`` is the same;
- both models tag the sample notes (``samples/notes``) and the PhysioNet split (where it is
  present) as ``itdeid deid`` does (:func:`itdeid.batch.tagging.tag_notes`, the spans before any
  output format), and the predicted spans are compared note by note: counts, note ids and
  digests only, never note text.

``--rev OLD_COMMIT`` also trains the preset with the code of an older commit (checked out into a
temporary git worktree, run from it in a child process) on this machine, and compares that folder
with this code's rebuild, file by file: a change that alters no training leaves the two the same
byte for byte on any one machine, whichever machine trained the shipped files.

The trees depend on xgboost's build as well as its version (the plain wheel and ``xgboost-cpu``
grew slightly different trees from the same data, experiments/NOTEBOOK.md, session 17), and may
depend on the machine (float rounding), so the file names the distribution that trained and the
machine that ran.
"""
from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from importlib import metadata
from pathlib import Path

import numpy as np

from itdeid.model_folder.model_digests import FILE as SUMS
from itdeid.evaluation.report import header
from itdeid.training.presets import default_physionet

from common import checkout, git_name, publish, run, run_script

ROOT = Path(__file__).resolve().parents[1]

SHIPPED = ROOT / "itdeid" / "models" / "default"
SAMPLES = ROOT / "samples" / "notes"
#: What a learner file's name ends with (itdeid.estimators.learners.XGBOOST_FILES).
LEARNER_SUFFIXES = (".ubj.gz", ".ubj")
#: The arrays that make a tree's structure: which feature a node splits on, its children, and
#: where a missing value goes.
STRUCTURE = ("split_indices", "left_children", "right_children", "default_left")
#: The numbers a tree holds at its nodes.
VALUES = ("split_conditions", "base_weights")


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--physionet", default=None,
                   help="the PhysioNet split, trained on and tagged (default: the preset's)")
    p.add_argument("--n-jobs", type=int, default=2)
    given = p.add_mutually_exclusive_group()
    given.add_argument("--rebuilt", default=None, metavar="DIR",
                       help="compare this folder, written by `itdeid train --preset default`, "
                            "instead of training")
    given.add_argument("--keep", default=None, metavar="DIR",
                       help="train into DIR (new or empty) and keep it")
    p.add_argument("--rev", default=None, metavar="OLD_COMMIT",
                   help="also train the preset at this commit, here, and compare it with this code's rebuild")
    p.add_argument("--out", default="experiments/results/model-rebuild.md")
    return p.parse_args(argv)


#: The child that trains with an older commit's code: the checkout on PYTHONPATH, not the
#: editable install's finder, gives every itdeid module (as in bench_code.py).
TRAIN_CHILD = r"""
import runpy, sys
sys.meta_path = [f for f in sys.meta_path if "__editable__" not in getattr(f, "__module__", "")]
sys.argv = ["itdeid", *sys.argv[1:]]
runpy.run_module("itdeid", run_name="__main__", alter_sys=True)
"""


def train_at(rev: str, out: Path, physionet: Path, n_jobs: int, scratch: Path) -> float:
    """Train ``itdeid train --preset default`` with the code of commit ``rev`` into ``out``;
    returns the seconds it took."""
    code = checkout(rev, scratch / "checkout")
    try:
        command = [sys.executable, "-c", TRAIN_CHILD, "train", "--preset", "default", "--out", str(out.resolve()),
                   "--physionet", str(physionet.resolve()), "--n-jobs", str(n_jobs)]
        env = dict(os.environ, PYTHONPATH=str(code))
        started = time.perf_counter()
        done = subprocess.run(command, cwd=code, env=env)
        if done.returncode != 0:
            raise SystemExit(f"model_rebuild.py: training at {rev} failed ({done.returncode})")
        return time.perf_counter() - started
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(code)], cwd=ROOT)


# --------------------------------------------------------------------------------------------
# File digests

def digests(folder: Path) -> dict[str, str]:
    """Path -> SHA-256 as ``folder``'s SHA256SUMS lists them."""
    listed = {}
    for line in (folder / SUMS).read_text(encoding="utf-8").splitlines():
        digest, _, path = line.partition("  ")
        listed[path] = digest
    return listed


def compare(shipped: dict[str, str], rebuilt: dict[str, str]) -> list[tuple[str, str]]:
    """(file, 'same' / 'differs' / 'only shipped' / 'only rebuilt') for every file either
    lists, in path order."""
    verdicts = []
    for path in sorted(set(shipped) | set(rebuilt)):
        if path not in rebuilt:
            verdicts.append((path, "only shipped"))
        elif path not in shipped:
            verdicts.append((path, "only rebuilt"))
        else:
            verdicts.append((path, "same" if shipped[path] == rebuilt[path] else "differs"))
    return verdicts


def xgboost_build() -> str:
    """The installed xgboost distribution and version (``xgboost-cpu`` or ``xgboost``)."""
    for name in ("xgboost-cpu", "xgboost"):
        try:
            return f"{name} {metadata.version(name)}"
        except metadata.PackageNotFoundError:
            continue
    return "xgboost (distribution not found)"


# --------------------------------------------------------------------------------------------
# Trees

def is_learner(path: str) -> bool:
    return path.endswith(LEARNER_SUFFIXES)


def learner_json(path: Path) -> dict:
    """An xgboost learner file (gzip-compressed UBJSON, or plain UBJSON) as xgboost's JSON
    model: loaded by xgboost, nothing in it run."""
    import xgboost
    raw = path.read_bytes()
    if path.name.endswith(".gz"):
        raw = gzip.decompress(raw)
    booster = xgboost.Booster()
    booster.load_model(bytearray(raw))
    return json.loads(booster.save_raw("json"))


def _trees(model: dict) -> tuple[list[dict], list]:
    booster = model["learner"]["gradient_booster"]
    inner = booster["model"] if "model" in booster else booster["gbtree"]["model"]   # gbtree, dart
    return inner["trees"], inner.get("tree_info", [])


def _largest(a, b) -> tuple[float, float]:
    """Largest absolute difference between two equal-length arrays, and largest relative one
    (``|a - b| / max(|a|, |b|)``, 0 where both are 0)."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.size == 0:
        return 0.0, 0.0
    diff = np.abs(a - b)
    scale = np.maximum(np.abs(a), np.abs(b))
    rel = np.divide(diff, scale, out=np.zeros_like(diff), where=scale > 0)
    return float(diff.max()), float(rel.max())


def compare_trees(a: dict, b: dict) -> dict:
    """How two xgboost JSON models differ: ``trees`` (a's count, b's count), ``structure_same``
    (the same number of trees, each for the same class, with identical :data:`STRUCTURE`
    arrays), and over the trees of the same structure the largest absolute and relative
    difference (None where no tree's could be compared) of each of :data:`VALUES`, and apart of
    the split conditions at split nodes (``thresholds``) and at leaves (``leaf_values``, a
    leaf's split condition being its value); ``values_differ`` / ``values``: how many of the
    split conditions and base weights differ, of how many compared; ``base_score_same``."""
    trees_a, info_a = _trees(a)
    trees_b, info_b = _trees(b)
    same = len(trees_a) == len(trees_b) and list(info_a) == list(info_b)
    largest = {name: None for name in (*VALUES, "thresholds", "leaf_values")}
    differ = compared = 0

    def widen(name, values_a, values_b):
        abs_, rel = _largest(values_a, values_b)
        was = largest[name] or (0.0, 0.0)
        largest[name] = (max(was[0], abs_), max(was[1], rel))

    for ta, tb in zip(trees_a, trees_b):
        if (any(ta[key] != tb[key] for key in STRUCTURE)
                or any(len(ta[name]) != len(tb[name]) for name in VALUES)):
            same = False
            continue
        leaf = np.asarray(ta["left_children"]) == -1
        for name in VALUES:
            values_a, values_b = np.asarray(ta[name]), np.asarray(tb[name])
            widen(name, values_a, values_b)
            differ += int(np.sum(values_a != values_b))
            compared += values_a.size
        conditions_a, conditions_b = np.asarray(ta["split_conditions"]), np.asarray(tb["split_conditions"])
        widen("thresholds", conditions_a[~leaf], conditions_b[~leaf])
        widen("leaf_values", conditions_a[leaf], conditions_b[leaf])
    score_a = a["learner"]["learner_model_param"]["base_score"]
    score_b = b["learner"]["learner_model_param"]["base_score"]
    return {"trees": (len(trees_a), len(trees_b)), "structure_same": same, **largest,
            "values_differ": differ, "values": compared, "base_score_same": score_a == score_b}


def compare_learner_files(shipped: Path, rebuilt: Path) -> dict:
    """:func:`compare_trees` of two learner files."""
    return compare_trees(learner_json(shipped), learner_json(rebuilt))


# --------------------------------------------------------------------------------------------
# Labels

def span_keys(spans) -> Counter:
    return Counter((s.start, s.end, s.type) for s in spans)


def compare_labels(ids: list[str], shipped: list[list], rebuilt: list[list]) -> dict:
    """Note by note, the spans two models predicted: ``notes``, ``spans`` (shipped's count,
    rebuilt's), ``differ`` (spans predicted by one model and not the other, counted on both
    sides: a span whose type changed counts twice), ``notes_differ`` (the ids of the notes with
    any such span), and each model's ``digest`` (SHA-256 of every note's id and spans)."""
    differ, notes_differ = 0, []
    digest_a, digest_b = hashlib.sha256(), hashlib.sha256()
    for note_id, a, b in zip(ids, shipped, rebuilt, strict=True):
        ka, kb = span_keys(a), span_keys(b)
        changed = sum(((ka - kb) + (kb - ka)).values())
        if changed:
            differ += changed
            notes_differ.append(note_id)
        digest_a.update(repr((note_id, sorted(ka.elements()))).encode())
        digest_b.update(repr((note_id, sorted(kb.elements()))).encode())
    return {"notes": len(ids), "spans": (sum(map(len, shipped)), sum(map(len, rebuilt))),
            "differ": differ, "notes_differ": notes_differ,
            "digest": (digest_a.hexdigest(), digest_b.hexdigest())}


def corpora(physionet: Path) -> tuple[list[tuple[str, list]], list[str]]:
    """The corpora tagged, as (name, documents), read by itdeid's readers; and a line for each
    left out."""
    from itdeid.formats import read_corpus
    found, missing = [("samples/notes", read_corpus(SAMPLES))], []
    if (physionet / "id.text").is_file():
        found.append(("PhysioNet split", read_corpus(physionet)))
    else:
        missing.append(f"PhysioNet split: skipped, not found at `{physionet}`")
    return found, missing


def tag(folder: Path, documents: list) -> list[list]:
    """Each note's predicted spans from the model in ``folder``, tagged as ``itdeid deid`` tags
    (the model loaded and warmed up, then :func:`itdeid.batch.tagging.tag_notes`)."""
    from itdeid.batch.tagging import tag_notes
    from itdeid.estimators.warm_start import warm_up
    from itdeid.model_folder.load import load_model
    model = load_model(folder)
    warm_up(model)
    return tag_notes(model, documents)[0]


# --------------------------------------------------------------------------------------------
# The report

def _g(value) -> str:
    return "-" if value is None else f"{value:.2g}"


def card_lines(folder: Path) -> list[str]:
    """The card's ``- trained:`` and ``- code:`` lines (when and from which code the folder was
    trained), as written."""
    card = folder / "MODEL_CARD.md"
    if not card.is_file():
        return []
    return [line for line in card.read_text(encoding="utf-8").splitlines()
            if re.match(r"- (trained|code): ", line)]


def tree_table(trees: dict[str, dict]) -> str:
    rows = ["| file | trees | structure | thresholds abs | rel | leaf values abs | rel | "
            "base_weights abs | rel | numbers differing | base_score |",
            "|---|---|---|---|---|---|---|---|---|---|---|"]
    for path, t in trees.items():
        n = t["trees"][0] if t["trees"][0] == t["trees"][1] else f"{t['trees'][0]} / {t['trees'][1]}"
        cells = [_g(x) for name in ("thresholds", "leaf_values", "base_weights")
                 for x in (t[name] or (None, None))]
        rows.append(f"| {path} | {n} | {'same' if t['structure_same'] else 'differs'} | "
                    + " | ".join(cells) + f" | {t['values_differ']:,} of {t['values']:,} | "
                    f"{'same' if t['base_score_same'] else 'differs'} |")
    return "\n".join(rows) + "\n"


def label_table(labels: dict[str, dict]) -> str:
    rows = ["| corpus | notes | spans shipped | spans rebuilt | spans differing | notes differing | "
            "digest shipped | digest rebuilt |", "|---|---|---|---|---|---|---|---|"]
    for name, c in labels.items():
        rows.append(f"| {name} | {c['notes']:,} | {c['spans'][0]:,} | {c['spans'][1]:,} | "
                    f"{c['differ']:,} | {len(c['notes_differ']):,} | {c['digest'][0][:12]} | "
                    f"{c['digest'][1][:12]} |")
    return "\n".join(rows) + "\n"


def largest_differences(trees: dict[str, dict]) -> str:
    """', largest difference X in a split threshold, Y in a leaf value, Z in a base weight'
    over ``trees``' files ('' where none could be compared)."""
    kinds = {"thresholds": "a split threshold", "leaf_values": "a leaf value",
             "base_weights": "a base weight"}
    found = []
    for name, words in kinds.items():
        pairs = [t[name] for t in trees.values() if t[name] is not None]
        if pairs:
            found.append(f"{max(a for a, _ in pairs):.2g} in {words} (relative "
                         f"{max(r for _, r in pairs):.2g})")
    return ", largest difference " + ", ".join(found) if found else ""


def headline(verdicts, trees: dict[str, dict], labels: dict[str, dict], missing: list[str]) -> str:
    same = sum(v == "same" for _, v in verdicts)
    text = f"{same} of {len(verdicts)} files the same, byte for byte"
    others = [p for p, v in verdicts if v != "same"]
    if others:
        parts = []
        if trees:
            structure = sum(t["structure_same"] for t in trees.values())
            scores = sum(t["base_score_same"] for t in trees.values())
            parts.append(("same tree structure" if structure == len(trees) else
                          f"same tree structure in {structure} of {len(trees)} learner files")
                         + largest_differences(trees)
                         + ("" if scores == len(trees) else
                            f", base_score differs in {len(trees) - scores}"))
        rest = [p for p in others if p not in trees]
        if rest:
            parts.append(f"{len(rest)} other file{'s' if len(rest) > 1 else ''} differ"
                         f"{'s' if len(rest) == 1 else ''} ({', '.join(rest)})")
        text += "; the others: " + "; ".join(parts)
    if labels:
        total = sum(c["notes"] for c in labels.values())
        names = ", ".join(f"{name} {c['notes']:,}" for name, c in labels.items())
        changed = sum(c["differ"] for c in labels.values())
        if changed == 0:
            text += f"; labels identical on {total:,} notes ({names})"
        else:
            notes = sum(len(c["notes_differ"]) for c in labels.values())
            text += (f"; labels differ: {changed:,} spans in {notes:,} of {total:,} notes "
                     f"({names})")
    if missing:
        text += " (" + "; ".join(missing) + ")"
    return text + "."


def main(argv=None) -> int:
    args = parse_args(argv)
    physionet = Path(args.physionet) if args.physionet else default_physionet()
    with tempfile.TemporaryDirectory() as scratch:
        if args.rebuilt:
            out, seconds = Path(args.rebuilt), None
            if not (out / SUMS).is_file():
                raise SystemExit(f"model_rebuild.py: {out} holds no {SUMS}: not a model folder")
        else:
            out = Path(args.keep) if args.keep else Path(scratch) / "default"
            if out.exists() and any(out.iterdir()):
                raise SystemExit(f"model_rebuild.py: --keep {out} is not empty")
            command = [sys.executable, "-m", "itdeid", "train", "--preset", "default", "--out", str(out),
                       *(["--physionet", args.physionet] if args.physionet else []),
                       "--n-jobs", str(args.n_jobs)]
            seconds = run(command)
        verdicts = compare(digests(SHIPPED), digests(out))
        trees = {path: compare_learner_files(SHIPPED / path, out / path)
                 for path, verdict in verdicts if verdict == "differs" and is_learner(path)}
        found, missing = corpora(physionet)
        labels = {name: compare_labels([d.id for d in documents], tag(SHIPPED, documents),
                                        tag(out, documents)) for name, documents in found}
        card = card_lines(out)
        before = None
        if args.rev:
            old = Path(scratch) / "at-rev"
            rev_seconds = train_at(args.rev, old, physionet, args.n_jobs, Path(scratch))
            before = compare(digests(old), digests(out))
    text = header("The shipped model rebuilt by its command")
    if args.rebuilt:
        text += (f"- rebuilt folder: `{args.rebuilt}`, compared as found: training was not rerun "
                 f"by this command (its card: {'; '.join(l[2:] for l in card) or 'none'})\n")
    else:
        text += (f"- trained: `itdeid train --preset default --out {args.keep or 'TMP'} --n-jobs "
                 f"{args.n_jobs}{' --physionet ' + args.physionet if args.physionet else ''}`, "
                 f"{seconds:.0f} s, with {xgboost_build()}\n")
    text += (f"- installed here: {xgboost_build()}\n" if args.rebuilt else "")
    text += (f"- compared with: `itdeid/models/default` ({SUMS}: every file but MODEL_CARD.md)\n\n"
             f"**{headline(verdicts, trees, labels, missing)}**\n\n"
             "| file | rebuilt |\n|---|---|\n"
             + "".join(f"| {path} | {verdict} |\n" for path, verdict in verdicts))
    if trees:
        text += ("\n## The learner files that differ, tree by tree\n\n"
                 "Both files loaded with xgboost (its JSON model). structure: every tree's "
                 f"{', '.join(STRUCTURE)} and class (tree_info) identical; abs / rel: the largest "
                 "absolute and relative (|a - b| / max(|a|, |b|)) difference over all trees, in "
                 "split_conditions at split nodes (thresholds) and at leaves (leaf values), and "
                 "in base_weights; numbers differing: of the split_conditions and base_weights "
                 "compared.\n\n" + tree_table(trees))
    text += ("\n## Labels\n\n"
             "Both models tag each corpus as `itdeid deid` does (`itdeid.batch.tagging.tag_notes`, "
             "the spans before any output format; the PhysioNet split is the one both models were "
             f"trained on, read from `{physionet}`); spans differing: spans one model predicted "
             "and the other did not (start, end and class; a span whose class changed counts "
             "twice); digest: SHA-256 of every note's id and spans.\n\n")
    text += label_table(labels) if labels else ""
    text += "".join(f"\n{line}\n" for line in missing)
    shown = [(name, c["notes_differ"]) for name, c in labels.items() if c["notes_differ"]]
    for name, ids in shown:
        text += (f"\nNotes whose spans differ in {name}: {', '.join(ids[:30])}"
                 f"{f' and {len(ids) - 30} more' if len(ids) > 30 else ''}\n")
    if before is not None:
        same = sum(v == "same" for _, v in before)
        text += (f"\n## Before and after: the preset trained at {git_name(args.rev)} and with this code, on this machine\n\n"
                 f"- trained at {git_name(args.rev)}: the same command with that commit's code (a temporary "
                 f"worktree, run from it), {rev_seconds:.0f} s\n\n"
                 f"**{same} of {len(before)} files the same, byte for byte.**\n\n"
                 "| file | at the old commit and now |\n|---|---|\n"
                 + "".join(f"| {path} | {verdict} |\n" for path, verdict in before))
    publish(text, args.out)
    return 0


if __name__ == "__main__":
    run_script(main, "model_rebuild.py")
