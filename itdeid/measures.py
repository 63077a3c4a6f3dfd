"""Clinical measurements, which a model of real notes mistakes for dates and phone numbers.

A nursing note writes its readings the way dates and numbers are written elsewhere: 'PS
10/5/50%' (ventilator settings), 'CP 6/10' (a pain score), '2/4 bottles' (blood cultures),
'5/2.5/800' (cardiac output, index, resistance), '500-1000 cc'. The regex group knows the
shapes of dates and phones and so flags these too; on PhysioNet such tokens are about a fifth
of the false alarms at a high-recall operating point (issue G's error analysis). The templates
of features/measures.json say what the number measures, from the word before it or the unit
or percent sign after it, so the trees can tell '6/10' after 'pain' from '6/10' after 'seen on'.

A template with a group named ``m`` flags only what that group covers (the number, not the
word announcing it). The columns depend on the document alone.
"""
from __future__ import annotations

import re
from functools import lru_cache

import numpy as np

from itdeid.resources import load_json

MEASURE_COLUMNS = ("measure", "measure_template")


@lru_cache(maxsize=1)
def measure_templates() -> list[re.Pattern]:
    """The compiled templates of features/measures.json, in file order."""
    return [re.compile(t["pattern"], re.IGNORECASE)
            for t in load_json("features", "measures.json")["templates"]]


def _span(match: re.Match) -> tuple[int, int]:
    return match.span("m") if "m" in match.re.groupindex else match.span()


def measure_columns(td) -> dict[str, np.ndarray]:
    """The columns of the ``measure`` feature group for one tokenized document: whether a
    template covers the token, and the first such template's 1-based index."""
    n, text = len(td.tokens), td.document.text
    starts = np.array([t.start for t in td.tokens], dtype=np.int64)
    ends = np.array([t.end for t in td.tokens], dtype=np.int64)
    which = np.zeros(n, dtype=np.float32)
    for k, pattern in enumerate(measure_templates(), start=1):
        for match in pattern.finditer(text):
            a, b = _span(match)
            if a == b:
                continue
            lo, hi = np.searchsorted(ends, a, side="right"), np.searchsorted(starts, b, side="left")
            block = which[lo:hi]
            block[block == 0] = k
    return {"measure": (which > 0).astype(np.float32), "measure_template": which}
