"""The punctuation a corpus's gold leaves between two words of one PHI phrase, learned and kept.

Annotation guides disagree on the marks inside a phrase. The i2b2 2006 gold, and the synthetic
records of :mod:`itdeid.synth`, mark 'J. Cortez' and 'Apr 21, 2021' whole, full stop and comma
included; the PhysioNet gold marks 'J' and 'Cortez' and leaves the full stop out nearly
every time, and leaves the comma of '21 Apr, 21' out. The trees and the joining rules of :mod:`itdeid.passes.name_gaps` ('T. BRAMBLE RRT': a leading
initial takes its full stop) tag the mark with the words around it, so against the PhysioNet
gold such marks are a fair share of the false-alarm tokens. Neither way leaks anything: the mark is no PHI, and both words
are tagged either way. It is a convention, and a team that trains on its own notes expects its
spans to follow its own gold.

So training counts, over the corpus's own notes (not the synthetic records added to them), each
mark standing alone as a token between two tokens of one PHI class, by class: how often the
gold leaves it out and how often it takes it in. A (mark, class) pair the gold leaves out at
least :data:`MIN_LEFT_OUT` times and more often than not is kept in the model (the mark, a
punctuation string, and a class name: nothing of a PHI word, as the privacy rule asks), and after
the decisions such a mark between two tokens of that class loses its tag, so the phrase becomes
two spans, as the gold writes it. A corpus whose gold takes the marks in (i2b2) keeps no pair,
and its spans are as before. The shipped model, which every site starts from, is saved with this
pass off (:mod:`itdeid.training.presets`), and ``itdeid adapt`` learns a site's pairs from its
corrected notes (:mod:`itdeid.training.adapt`).
"""
from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Iterable, Sequence

import numpy as np

from itdeid.document import LABELS
from itdeid.text.tokens import LETTER_OR_DIGIT

if TYPE_CHECKING:
    from itdeid.featurize import TokenizedDocument

#: Fewest times the gold must leave a mark out between two words of a class for the pair to be
#: kept (one or two may be an annotator's slip).
MIN_LEFT_OUT = 3
#: Longest mark counted (a token of punctuation alone: '.', ',', '-', '/').
MAX_MARK = 3


def _is_mark(text: str) -> bool:
    return len(text) <= MAX_MARK and not LETTER_OR_DIGIT.search(text) and not text.isspace()


def _between(td: TokenizedDocument, codes: np.ndarray) -> Iterable[tuple[int, int]]:
    """(index, class code) of each mark token whose neighbours carry one PHI class."""
    for i in range(1, len(td.tokens) - 1):
        code = int(codes[i - 1])
        if code and code == int(codes[i + 1]) and _is_mark(td.tokens[i].text):
            yield i, code


def left_out(docs: Sequence[TokenizedDocument]) -> list[tuple[str, str]]:
    """The (mark, class) pairs the gold of ``docs`` leaves out between two words of the class at
    least :data:`MIN_LEFT_OUT` times and more often than it takes them in, sorted."""
    out, taken = Counter(), Counter()
    for td in docs:
        for i, code in _between(td, td.labels):
            key = (td.tokens[i].text, LABELS[code])
            if td.labels[i] == code:
                taken[key] += 1
            elif td.labels[i] == 0:
                out[key] += 1
    return sorted(k for k, n in out.items() if n >= MIN_LEFT_OUT and n > taken[k])


def check_pairs(pairs) -> list[tuple[str, str]]:
    """``pairs`` read from a model file, checked: a list of [mark, PHI class] (ValueError)."""
    if not isinstance(pairs, list):
        raise ValueError("punctuation_left_out must be a list of [mark, class] pairs")
    checked = []
    for pair in pairs:
        if (not isinstance(pair, list) or len(pair) != 2 or not all(isinstance(x, str) for x in pair)
                or not _is_mark(pair[0]) or pair[1] not in LABELS[1:]):
            raise ValueError("punctuation_left_out must hold [mark, class] pairs: a mark of at most "
                             f"{MAX_MARK} punctuation characters and a PHI class")
        checked.append((pair[0], pair[1]))
    return checked


def split_at_marks(td: TokenizedDocument, codes: np.ndarray,
                   pairs: Sequence[tuple[str, str]]) -> np.ndarray:
    """``codes`` with every mark of ``pairs`` that stands between two tokens of its class
    untagged (a copy; ``codes`` itself when there is nothing to change)."""
    if not pairs or not np.any(codes):
        return codes
    wanted = {(mark, LABELS.index(kind)) for mark, kind in pairs}
    drop = [i for i, code in _between(td, codes) if codes[i] == code and (td.tokens[i].text, code) in wanted]
    if not drop:
        return codes
    codes = codes.copy()
    codes[drop] = 0
    return codes
