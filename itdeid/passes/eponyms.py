"""Eponyms: people's names that medicine gave to signs, devices and diseases, never PHI.

'Babinski sign', 'Passy-Muir valve', 'Quinton cath', 'Riker scale', "Wilson's disease": the
first word of each is a surname, and to the trees, which read a word's shape, its frequency and
its neighbours, it looks like one. Where they tag it, the note loses a clinical fact twice: the
word is redacted, and the surrogates write a stranger's name into the text ('Okafor valve').
A research team reading the output cannot tell a sign from a person any more.

The knowledge is declarative, in ``features/eponyms.json`` (its ``_comment`` says what each list
holds and why). This module applies it after the model's decisions, like the 'plain' templates
of :mod:`itdeid.passes.identifiers`, but only where the model tagged something: a tagged token loses
its tag when it begins words that are wholly an eponym and the words right after them name
what the eponym names ('sign', 'catheter', 'disease'). Scanning every note with a regular
expression of a hundred and more eponyms would cost a few percent of the tagging time;
looking only at the tagged tokens, a few in a hundred, costs a tenth of that.

What it never does: clear a word after a title ('Dr. Allen', 'Mrs. Bell test results': a
person), clear a place before an ordinary word ('from Salem tube feeds'; places take only
their own heads), or tag anything.
"""
from __future__ import annotations

import re
from functools import lru_cache

import numpy as np

from itdeid.resources import load_json

#: Tokens an eponym spans at most ('Guillain', '-', 'Barre'; 'semi', '-', 'Fowler').
MAX_TOKENS = 5
#: Characters an eponym spans at most.
MAX_CHARS = 32
_TITLE_BEFORE = re.compile(r"(?<![\w.])(?:mr|mrs|ms|mx|dr|miss|prof)\.?\s*$", re.IGNORECASE)
_POSSESSIVE = r"(?:['\u2019]s|s['\u2019]|['\u2019])?"


def after_title(text: str, start: int) -> bool:
    """Whether a title ('Dr.', 'Mrs', 'prof') ends right before offset ``start`` of ``text``:
    the word there is a person's name ('Dr. Allen', 'Mrs. Bell')."""
    return _TITLE_BEFORE.search(text, max(0, start - 8), start) is not None


def _fragment(entry: str) -> str:
    """A list entry as a pattern: a space stands for spaces or a hyphen."""
    return entry.replace(" ", r"[\s-]+")


def _alternatives(entries) -> str:
    return "(?:" + "|".join(_fragment(e) for e in entries) + ")"


@lru_cache(maxsize=1)
def eponym_rules() -> tuple[tuple[re.Pattern, re.Pattern], ...]:
    """(the eponym's words, what must follow them) pairs from features/eponyms.json: the
    general eponyms with every head, the exam signs with a finding ('Babinski present'), then
    each place with its own heads."""
    data = load_json("features", "eponyms.json")
    middle = _alternatives(data["middles"])
    heads = _alternatives(data["heads"])

    def after(head_pattern: str, middles: bool) -> re.Pattern:
        between = rf"(?:{middle}[\s-]+)?" if middles else ""
        return re.compile(rf"{_POSSESSIVE}(?:[ \t]*-[ \t]*|[ \t]+){between}{head_pattern}(?![\w-])",
                          re.IGNORECASE)

    rules = [(re.compile(_alternatives(data["eponyms"]), re.IGNORECASE), after(heads, True)),
             (re.compile(_alternatives(data["signs"]), re.IGNORECASE), after(_alternatives(data["findings"]), False))]
    for place, place_heads in data["places"].items():
        rules.append((re.compile(_fragment(place), re.IGNORECASE), after(f"(?:{_fragment(place_heads)})", False)))
    return tuple(rules)


@lru_cache(maxsize=1)
def _any_eponym() -> re.Pattern:
    """Every rule's eponyms in one pattern: most tagged words are none, and one failed match
    rules them out (a match of each rule's own costs ten)."""
    return re.compile("|".join(f"(?:{eponym.pattern})" for eponym, _after in eponym_rules()), re.IGNORECASE)


def eponym_tokens(text: str, starts: np.ndarray, ends: np.ndarray, codes: np.ndarray) -> list[tuple[int, int]]:
    """[lo, hi) token ranges to clear: each begins at a tagged token (``codes`` non-zero) whose
    words are an eponym followed by its head, and ends before the head's last token's end."""
    found: list[tuple[int, int]] = []
    n = len(starts)
    reach = 0                                       # tokens before this are already cleared
    any_eponym = _any_eponym()
    for k in np.flatnonzero(np.asarray(codes) != 0).tolist():
        a = int(starts[k])
        if k < reach or not text[a].isalpha() or after_title(text, a):
            continue
        for m in range(k + 1, min(k + MAX_TOKENS, n) + 1):
            b = int(ends[m - 1])
            if b - a > MAX_CHARS or "\n" in text[a:b]:
                break
            if not any_eponym.fullmatch(text, a, b):
                continue
            hi = _cleared_until(text, a, b, starts)
            if hi is not None:
                found.append((k, hi))
                reach = hi
                break
    return found


def _cleared_until(text: str, a: int, b: int, starts: np.ndarray) -> int | None:
    """The token index one past the head when ``text[a:b]`` is an eponym with its head after."""
    for eponym, after in eponym_rules():
        if eponym.fullmatch(text, a, b):
            head = after.match(text, b)
            if head:
                return int(np.searchsorted(starts, head.end(), side="left"))
    return None
