"""Which code made each results file, and whether that code's features are still this code's.

    python experiments/provenance.py [--out experiments/results/provenance.md]

A number in a results file describes the code that produced it (issue J, item 6). Every results
file of ``experiments/results`` names that code in its ``- code:`` line (``git <commit>``, with a
mark when the tree had uncommitted changes), and levers.py's files also name the commits that
computed their fold caches; a few early files name none, and then the commit that added the file
stands in, said so.

A commit's code may have computed other feature values than today's (the shipped model of issue
J was trained before the case ratios changed). Since session 17 a model records
:data:`itdeid.featurize.feature_format.FEATURE_FORMAT`; for what came before, this script checks out each
named commit into a temporary worktree and computes there the feature matrix of the recipe's
feature groups that exist at that commit (the paper's, and issue G's when present) on
``tests/data/feature-fingerprint-notes.xml``, the notes of the feature-format test, and compares it
with this code's matrix of the same groups, rounded to 4 decimals. A file is then marked:

- ``same``: that code computes the same feature values as today's, for those groups;
- ``differ``: it computed other values: its numbers describe code that no longer exists, and a
  rerun is needed before quoting them for today's code;
- ``not comparable``: the check could not run there (an API of that time, an error).

Only the features are compared, not the learners, the recipe or the evaluation: ``same`` says
the trees of that run read today's numbers, not that a rerun would give the same scores. A report
rebuilt from levers.py's fold caches names the report's code, and the caches' commits only where
the caches recorded them (those of session 15 and later): for older caches the models were
trained by earlier commits than the one named.
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from itdeid.evaluation.report import header, markdown_table

from common import run_script

ROOT = Path(__file__).resolve().parent.parent

NOTES = ROOT / "tests" / "data" / "feature-fingerprint-notes.xml"
#: Computes, with the itdeid on sys.path, the rounded feature matrix's hash of the recipe's groups
#: that exist there; prints "<groups> <sha256>".
PROBE = r"""
import hashlib, sys
import numpy as np
from itdeid import featurize
from itdeid.formats import read_corpus
groups = tuple(featurize.GROUPS) + tuple(getattr(featurize, "RECALL_GROUPS", ()))
groups = tuple(sys.argv[2].split(",")) if len(sys.argv) > 2 else tuple(g for g in groups if g != "trusted")
docs = [featurize.tokenize_document(d) for d in sorted(read_corpus(sys.argv[1]), key=lambda d: d.id)]
X = featurize.FeatureExtractor(groups=groups).fit(docs).transform(docs)
digest = hashlib.sha256((np.round(np.asarray(X, dtype=np.float64), 4) + 0.0).tobytes()).hexdigest()
print(",".join(groups), digest)
"""


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()


def recorded_commits(path: Path) -> tuple[list[str], str]:
    """The commits a results file names (its code line, then its fold caches'), and where they
    come from; the commit that added the file when it names none."""
    text = path.read_text(encoding="utf-8", errors="replace")
    code = re.search(r"^- code:.*?git ([0-9a-f]{7,40})", text, re.M)
    caches = re.findall(r"git ([0-9a-f]{7,40})", text.split("fold caches computed by:", 1)[1].split("\n", 1)[0]) \
        if "fold caches computed by:" in text else []
    commits = ([code.group(1)] if code else []) + [c for c in dict.fromkeys(caches) if not code or c != code.group(1)]
    if commits:
        dirty = " (with uncommitted changes)" if code and "uncommitted" in text[code.start():code.end() + 40] else ""
        return commits, "code line" + dirty + (" and fold caches" if caches else "")
    added = _git("log", "--diff-filter=A", "--format=%h", "-1", "--", str(path.relative_to(ROOT)))
    return [added], "not recorded: the commit that added the file"


def probe(commit: str | None, workdir: Path, groups: str | None = None) -> str:
    """``<groups> <hash>`` of the feature matrix at ``commit`` (None: this checkout) of the
    recipe's groups there (or ``groups``, comma-separated), or an error."""
    if commit is None:
        where = ROOT
    else:
        where = workdir / commit
        if not where.exists():
            added = subprocess.run(["git", "worktree", "add", "-q", "--detach", str(where), commit], cwd=ROOT,
                                   capture_output=True)
            if added.returncode:
                return "error: the commit is not in this repository (amended or never pushed)"
            for name in ("features", "gazetteers"):      # the package reads them from itdeid/ when installed
                if (where / name).is_dir() and not (where / "itdeid" / name).exists():
                    (where / "itdeid" / name).symlink_to(Path("..") / name)
    run = subprocess.run([sys.executable, "-c", PROBE, str(NOTES)] + ([groups] if groups else []), cwd=where,
                         capture_output=True, text=True, timeout=600,
                         env={"PYTHONPATH": str(where), "PATH": "/usr/bin:/bin", "PYTHONHASHSEED": "0"})
    if run.returncode:
        last = (run.stderr.strip().splitlines() or ["no output"])[-1]
        return f"error: {last[:120]}"
    return run.stdout.strip().splitlines()[-1]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="experiments/results/provenance.md")
    args = ap.parse_args(argv)
    files = sorted(p for p in (ROOT / "experiments" / "results").rglob("*.md")
                   if _git("ls-files", str(p.relative_to(ROOT))) and p.name != Path(args.out).name)
    now = probe(None, Path())
    today = {now.split(" ")[0]: now.split(" ")[1]}      # groups -> this code's hash
    rows, verdicts = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        try:
            for path in files:
                commits, source = recorded_commits(path)
                marks = []
                for commit in commits:
                    if commit not in verdicts:
                        found = probe(commit, Path(tmp))
                        if found.startswith("error"):
                            verdicts[commit] = f"not comparable ({found})"
                        else:
                            groups, digest = found.split(" ")
                            if groups not in today:
                                today[groups] = probe(None, Path(), groups).split(" ")[-1]
                            same = digest == today[groups]
                            verdicts[commit] = ("same" if same else "differ") + (
                                "" if groups == now.split(" ")[0] else f" (groups {groups})")
                    marks.append(f"{commit}: {verdicts[commit]}")
                rows.append({"results file": str(path.relative_to(ROOT / "experiments" / "results")),
                             "commits named": source, "features at that commit against today's": "; ".join(marks)})
        finally:
            for commit in verdicts:
                subprocess.run(["git", "worktree", "remove", "--force", str(Path(tmp) / commit)], cwd=ROOT,
                               capture_output=True)
    import pandas as pd
    text = (header("Provenance of the results files")
            + f"- today's feature groups checked: {now.split(' ')[0]}\n"
            + f"- notes: `{NOTES.relative_to(ROOT)}`\n\n"
            + "`same`: the named commit computes today's feature values for those groups; `differ`: other "
              "values (rerun before quoting the file for today's code). A report over levers.py's fold "
              "caches names the caches' commits only where they were recorded; see the script's "
              "docstring.\n\n"
            + markdown_table(pd.DataFrame(rows).set_index("results file")) + "\n")
    Path(args.out).write_text(text, encoding="utf-8")
    column = "features at that commit against today's"
    print(f"written {args.out}: {sum('differ' in r[column] for r in rows)} of {len(rows)} files name "
          "code with other feature values")
    return 0


if __name__ == "__main__":
    run_script(main, "provenance.py")
