"""What README's install costs on a fresh machine: the seconds ``pip install .`` takes, the size
of the environment it leaves, and README's main command run in it (issue J).

    python experiments/install_size.py [--out experiments/results/install.md]

A clean copy of the committed tree (``git archive HEAD``: what a fresh clone holds, none of the
checkout's build outputs or uncommitted files) goes into a temporary folder beside a new
virtual environment, whose pip is upgraded first as ``.ci/run`` does. Then, timed:

1. ``pip install .`` in the copy, with pip's cache off, so every package is fetched as on a
   machine that never installed it (from whatever index pip is set to use here);
2. README's main command, ``itdeid deid samples/notes/ --out out/``, in the copy.

The size is every file of the environment, in MB (10^6 bytes; apparent sizes, as ``du -sb``
counts), with the largest installed packages, so README can say where it goes. The time depends
on the network and the index as much as on the machine; the file says which index pip used.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from itdeid.evaluation.report import header

from common import publish, run, run_script

ROOT = Path(__file__).resolve().parents[1]

#: README's main command, run from the copy's root.
MAIN_COMMAND = ["itdeid", "deid", "samples/notes/", "--out", "out/"]


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default="experiments/results/install.md")
    p.add_argument("--top", type=int, default=8, help="how many of the largest packages to list")
    return p.parse_args(argv)


def folder_bytes(folder: Path) -> int:
    """The apparent size of every regular file under ``folder`` (links not followed)."""
    return sum(path.lstat().st_size for path in folder.rglob("*") if path.is_file() and not path.is_symlink())


def package_bytes(site_packages: Path) -> Counter:
    """Bytes under each top-level entry of ``site_packages``, an entry's ``.dist-info`` and its
    ``.libs`` folder counted with the entry they belong to (by name, before the first '-' or
    '.')."""
    sizes: Counter = Counter()
    for entry in site_packages.iterdir():
        name = entry.name.split("-")[0].split(".")[0].lower().removesuffix("_libs")
        sizes[name or entry.name] += folder_bytes(entry) if entry.is_dir() else entry.lstat().st_size
    return sizes


def pip_index(python: Path, env: dict) -> str:
    """The index pip is set to use (its configuration's index-url; PyPI when none is set)."""
    shown = subprocess.run([python, "-m", "pip", "config", "list"], env=env, capture_output=True, text=True)
    for line in shown.stdout.splitlines():
        key, _, value = line.partition("=")
        if key.endswith("index-url"):
            return value.strip().strip("'\"")
    return os.environ.get("PIP_INDEX_URL", "https://pypi.org/simple (pip's default)")


def main(argv=None) -> int:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        source, venv = work / "itdeid", work / "venv"
        source.mkdir()
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", "HEAD"],
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(source)], input=archive, check=True)
        env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
        env.update(PIP_NO_CACHE_DIR="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        python = venv / "bin" / "python"
        run([python, "-m", "pip", "install", "-q", "--upgrade", "pip"], work, env)
        before = folder_bytes(venv)
        env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
        install = run([python, "-m", "pip", "install", "-q", "."], source, env)
        total = folder_bytes(venv)
        site = next((venv / "lib").glob("python*/site-packages"))
        packages = package_bytes(site)
        deid = run(MAIN_COMMAND, source, env)
        written = sum(1 for _ in (source / "out").iterdir())
        pip_version = subprocess.run([python, "-m", "pip", "--version"], capture_output=True,
                                     text=True).stdout.split()[1]
        index = pip_index(python, env)
    mb = 1e6
    text = header("README's install on a fresh virtual environment")
    text += (f"- pip {pip_version}, its cache off, index: {index}\n\n"
             f"| step | seconds |\n|---|---|\n"
             f"| `pip install .` (a clean copy of the commit, git archive HEAD) | {install:.1f} |\n"
             f"| `{' '.join(MAIN_COMMAND)}` | {deid:.1f} |\n\n"
             f"The environment holds **{total / mb:.0f} MB** after the install ({before / mb:.0f} MB "
             f"before it: Python's venv with pip). The largest installed packages:\n\n"
             "| package | MB |\n|---|---|\n"
             + "".join(f"| {name} | {size / mb:.0f} |\n" for name, size in packages.most_common(args.top))
             + f"\nREADME's main command wrote {written} files into out/.\n")
    publish(text, args.out)
    return 0


if __name__ == "__main__":
    run_script(main, "install_size.py")
