"""Clinical measurements, which a model of real notes mistakes for dates and phone numbers.

A nursing note writes its readings the way dates and numbers are written elsewhere: 'PS
10/5/50%' (ventilator settings), 'CP 6/10' (a pain score), '2/4 bottles' (blood cultures),
'5/2.5/800' (cardiac output, index, resistance), '500-1000 cc'. The regex group knows the
shapes of dates and phones and so flags these too; on PhysioNet notes such tokens are a large share
of the false alarms at a high-recall operating point (an error analysis). The templates
of features/measures.json say what the number measures, from the word before it or the unit
or percent sign after it, so the trees can tell '6/10' after 'pain' from '6/10' after 'seen on'.

Clock times are the same trap: nurses log events by the 24-hour clock ('extubated at 2015',
'shift 1900-0730'), and the regex group's year template flags every four digits from 1930 to
2049. features/clock_times.json (the ``clock`` group) flags times by the word before them
('at', 'till', 'approx'), an am/pm, a colon or a shift range.

A template with a group named ``m`` (:data:`FLAGGED`) flags only what that group covers (the
number, not the word announcing it). The ``measure`` and ``clock`` groups' columns
(itdeid.featurize) mark the tokens a template covers, as the regex group does for its
templates; they depend on the document alone.
"""
from __future__ import annotations

import re
from functools import lru_cache

from itdeid.templates.guarded import Template
from itdeid.resources import load_json

#: The group of a template that holds what it flags, where it has one (else the whole match).
FLAGGED = "m"


@lru_cache(maxsize=None)
def _templates(name: str) -> list[Template]:
    return [Template(t["pattern"], re.IGNORECASE) for t in load_json("features", name)["templates"]]


def measure_templates() -> list[Template]:
    """The compiled templates of features/measures.json, in file order."""
    return _templates("measures.json")


def clock_templates() -> list[Template]:
    """The compiled templates of features/clock_times.json, in file order."""
    return _templates("clock_times.json")
