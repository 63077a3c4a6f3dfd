"""The slice of a corpus the timing scripts tag (bench_models.py, bench_code.py,
stage_times.py), and what they do without the corpus: one set of arguments and one message, so
their figures describe the same notes."""
from __future__ import annotations

import argparse
from pathlib import Path


def add_note_slice(ap: argparse.ArgumentParser, repeats: bool = True) -> None:
    """``--skip``, ``--notes`` and ``--warm`` (and ``--repeats``): the timed notes, after the
    notes tagged first untimed so word tables are filled as in a long run."""
    ap.add_argument("--skip", type=int, default=400, help="notes before the timed ones (default 400)")
    ap.add_argument("--notes", type=int, default=400)
    ap.add_argument("--warm", type=int, default=200, help="notes tagged first, untimed (default 200)")
    if repeats:
        ap.add_argument("--repeats", type=int, default=3)


def require_corpus(corpus) -> None:
    """A ``SystemExit`` (status 1, one line) where ``corpus`` is not there: a script reading it
    has failed, not succeeded with nothing to do (as it said before, with status 0)."""
    if not Path(corpus).exists():
        raise SystemExit(f"corpus {corpus} not found")


def timed_notes(documents, skip: int, notes: int) -> list:
    """``documents[skip:skip + notes]``, the timed notes, or a ``SystemExit`` where the slice is
    empty (a corpus of fewer than ``--skip`` notes): the scripts divided by zero, or reported
    0 tokens/s with status 0."""
    test = list(documents[skip:skip + notes])
    if not test:
        raise SystemExit(f"no notes to time: the corpus has {len(documents)}, --skip is {skip}; "
                         "give a smaller --skip")
    return test
