"""Does the committed command rebuild the shipped model? (issue J, item 1)

    python experiments/model_rebuild.py [--physionet DIR] [--n-jobs 2]
                                        [--out experiments/results/model-rebuild.md]

Runs ``itdeid train --preset default`` (the command the shipped card names) into a temporary
folder and compares the digest of every file the new folder's ``SHA256SUMS`` lists (every file
but the card, which holds the date) with the shipped folder's (``itdeid/models/default``). A
user who retrains gets the model the project ships, or this file says which parts differ.

The trees depend on xgboost's build as well as its version (the plain wheel and ``xgboost-cpu``
grew slightly different trees from the same data, experiments/NOTEBOOK.md, session 17), so the
file names the distribution that trained.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from importlib import metadata
from pathlib import Path

from itdeid.model_folder.model_digests import FILE as SUMS
from itdeid.evaluation.report import header

from common import publish, run, run_script

ROOT = Path(__file__).resolve().parents[1]

SHIPPED = ROOT / "itdeid" / "models" / "default"


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--physionet", default=None, help="the PhysioNet split (default: the preset's)")
    p.add_argument("--n-jobs", type=int, default=2)
    p.add_argument("--out", default="experiments/results/model-rebuild.md")
    return p.parse_args(argv)


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


def main(argv=None) -> int:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "default"
        command = [sys.executable, "-m", "itdeid", "train", "--preset", "default", "--out", str(out),
                   *(["--physionet", args.physionet] if args.physionet else []),
                   "--n-jobs", str(args.n_jobs)]
        seconds = run(command)
        verdicts = compare(digests(SHIPPED), digests(out))
    same = sum(v == "same" for _, v in verdicts)
    text = header("The shipped model rebuilt by its command")
    text += (f"- trained: `itdeid train --preset default --out TMP --n-jobs {args.n_jobs}`"
             f"{' --physionet ' + args.physionet if args.physionet else ''}, {seconds:.0f} s, "
             f"with {xgboost_build()}\n- compared with: `itdeid/models/default` "
             f"({SUMS}: every file but MODEL_CARD.md)\n\n"
             f"**{same} of {len(verdicts)} files the same, byte for byte.**\n\n"
             "| file | rebuilt |\n|---|---|\n"
             + "".join(f"| {path} | {verdict} |\n" for path, verdict in verdicts))
    publish(text, args.out)
    return 0


if __name__ == "__main__":
    run_script(main, "model_rebuild.py")
