"""Digests of what ``itdeid deid`` writes, so a change that must not change the labels can be
shown not to:

    python experiments/output_digests.py [--physionet DIR] [--model DIR]
                                         [--out experiments/results/output-digests.md]
    python experiments/output_digests.py --check experiments/results/output-digests.md

Runs ``itdeid deid`` with the installed package on the sample notes (``samples/notes``) and on
the PhysioNet split (where it is present) in every output format, and writes one SHA-256 a
corpus and format: the digest of every output file's path and bytes, the run's manifest and
other hidden bookkeeping files left out (they hold times). The surrogate format is keyed by a
fixed key made here, so its stand-ins repeat from run to run; the key keys nothing else.

``--check FILE`` runs the same and compares with the digests ``FILE`` lists: exit status 0 when
every digest it lists is reproduced, 1 with the rows that differ.
"""
from __future__ import annotations

import argparse
import hashlib
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from itdeid.evaluation.report import header

from common import publish, run_script

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples" / "notes"
SHARED_SPLIT = ROOT.parent / "shared" / "corpora" / "physionet-deid"
FORMATS = ("redact", "surrogate", "jsonl", "xml", "brat")
#: The surrogate format's key: fixed, so a rerun draws the same stand-ins.
FIXED_KEY = hashlib.sha256(b"itdeid output digests: a key for repeatable stand-ins").digest()
ROW = re.compile(r"^\| (\S+) \| (\S+) \| (\d+) \| ([0-9a-f]{64}) \|$", re.M)


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--physionet", default=str(SHARED_SPLIT), help="the PhysioNet split (skipped when absent)")
    p.add_argument("--model", default="default")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--out", default="experiments/results/output-digests.md")
    p.add_argument("--check", default=None, help="compare with the digests this results file lists")
    return p.parse_args(argv)


def folder_digest(folder: Path) -> tuple[int, str]:
    """The number of output files under ``folder`` and the SHA-256 of their relative paths and
    bytes, in path order; hidden files and folders (the manifest) are left out."""
    digest = hashlib.sha256()
    files = sorted(p for p in folder.rglob("*")
                   if p.is_file() and not any(part.startswith(".") for part in p.relative_to(folder).parts))
    for path in files:
        digest.update(path.relative_to(folder).as_posix().encode("utf-8") + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return len(files), digest.hexdigest()


def deid(corpus: Path, fmt: str, out: Path, key: Path, model: str, workers: int) -> None:
    command = ["itdeid", "deid", str(corpus), "--out", str(out), "--format", fmt, "--model", model,
               "--workers", str(workers), "--key-file", str(key)]
    run = subprocess.run(command, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"output_digests: itdeid deid --format {fmt} on {corpus.name} failed "
                 f"({run.returncode}): {run.stderr.strip().splitlines()[-1:]}")


def digests(args) -> list[tuple[str, str, int, str]]:
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        # a note's surrogate patient is keyed by its file's full path when nothing else says whose
        # it is: the samples are copied to one fixed path, so checkouts in other folders agree
        samples = Path(tempfile.gettempdir()) / "itdeid-output-digests" / "samples"
        shutil.rmtree(samples.parent, ignore_errors=True)
        shutil.copytree(SAMPLES, samples)
        corpora = [("samples", samples)]
        if (Path(args.physionet) / "id.text").is_file():
            corpora.append(("physionet-split", Path(args.physionet)))
        key = Path(scratch) / "fixed.itdeid-key"
        key.write_bytes(FIXED_KEY)
        key.chmod(0o600)
        for name, corpus in corpora:
            for fmt in FORMATS:
                out = Path(scratch) / f"{name}-{fmt}"
                deid(corpus, fmt, out, key, args.model, args.workers)
                rows.append((name, fmt, *folder_digest(out)))
    return rows


def table(rows) -> str:
    lines = ["| corpus | format | files | sha256 |", "|---|---|---|---|"]
    lines += [f"| {name} | {fmt} | {n} | {digest} |" for name, fmt, n, digest in rows]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    args = parse_args(argv)
    rows = digests(args)
    if args.check:
        listed = {(m[1], m[2]): (int(m[3]), m[4]) for m in ROW.finditer(Path(args.check).read_text("utf-8"))}
        differ = [r for r in rows if (r[0], r[1]) in listed and listed[(r[0], r[1])] != (r[2], r[3])]
        unchecked = [r for r in rows if (r[0], r[1]) not in listed]
        for name, fmt, n, digest in differ:
            print(f"differs: {name} {fmt} ({n} files, {digest[:12]}; listed "
                  f"{listed[(name, fmt)][0]} files, {listed[(name, fmt)][1][:12]})")
        print(f"{len(rows) - len(differ) - len(unchecked)} of {len(rows)} digests as listed in {args.check}"
              + (f"; {len(unchecked)} not listed there" if unchecked else ""))
        return 1 if differ else 0
    text = (header("What itdeid deid writes, as digests") + "\n"
            "Each row: the SHA-256 of every output file's relative path and bytes (the manifest "
            "and other hidden files left out), surrogates keyed by the script's fixed key. A "
            "change meant to keep the labels reproduces every row (`--check` this file).\n\n"
            + table(rows))
    publish(text, args.out)
    return 0


if __name__ == "__main__":
    run_script(main, "output_digests")
