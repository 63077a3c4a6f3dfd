"""Results files that say how they were made: command, date, machine, then the tables."""
from __future__ import annotations

import datetime as _dt
import os
import platform
import shlex
import subprocess
import sys
from pathlib import Path

import pandas as pd

from itdeid.estimators.warm_start import cores


def machine() -> str:
    """A one-line description of this machine (CPU model, cores, memory, Python)."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
        memory = f", {mem:.0f} GiB RAM"
    except (ValueError, OSError, AttributeError):
        memory = ""
    return f"{cpu}, {cores()} cores{memory}, Python {platform.python_version()}, {platform.system()}"


def command_line() -> str:
    """The command that is running, as a user would type it."""
    prog = Path(sys.argv[0]).name
    if prog in ("__main__.py", "-c", ""):
        prog = "itdeid"
    elif prog.endswith(".py"):      # a script such as experiments/table1.py
        path = Path(sys.argv[0])
        try:
            path = path.resolve().relative_to(Path.cwd())
        except ValueError:
            pass
        prog = f"python {path}"
    return " ".join([prog] + [shlex.quote(a) for a in sys.argv[1:]])


#: The checkout itdeid runs from, when it runs from one: the folder above the package (this
#: module sits in ``itdeid/evaluation/``).
_CHECKOUT = Path(__file__).resolve().parents[2]


def code_version() -> str:
    """itdeid's version, and the git commit of the checkout itdeid runs from (with a mark when it
    has uncommitted changes), so a result can be traced to the code that made it. git is asked
    in the package's own checkout, not the working folder: run from elsewhere, the working
    folder's repository (or none) was named instead. An installed copy has no commit."""
    from itdeid import __version__

    def git(*args) -> str:
        return subprocess.run(["git", *args], cwd=_CHECKOUT, capture_output=True, text=True,
                              timeout=10, check=True).stdout.strip()
    try:
        if Path(git("rev-parse", "--show-toplevel")).resolve() != _CHECKOUT:
            return f"itdeid {__version__}"          # an installed copy inside another repository
        commit = git("rev-parse", "--short", "HEAD")
        # results files and the shipped model being rewritten by the run itself are not code
        # changes
        dirty = git("status", "--porcelain", "--untracked-files=no", "--", ".",
                    ":(exclude)experiments/results", ":(exclude)itdeid/models")
    except (OSError, subprocess.SubprocessError):
        return f"itdeid {__version__}"
    return f"itdeid {__version__}, git {commit}{' with uncommitted changes' if dirty else ''}"


def header(title: str, command: str | None = None) -> str:
    now = _dt.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    return (f"# {title}\n\n- command: `{command or command_line()}`\n- date: {now}\n"
            f"- machine: {machine()}\n- code: {code_version()}\n")


def markdown_table(frame: pd.DataFrame, floatfmt: str = ".2f") -> str:
    """A pipe table (no extra dependency: pandas' to_markdown needs tabulate)."""
    frame = frame.reset_index() if frame.index.name or not isinstance(frame.index, pd.RangeIndex) else frame
    cols = [str(c) for c in frame.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for _, row in frame.iterrows():
        cells = []
        for v in row:
            cells.append(format(v, floatfmt) if isinstance(v, float) else str(v))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
