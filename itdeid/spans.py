"""Conversion between character spans and per-token labels (first version).

- ``token_labels(tokens, spans)``: the class of the span each token lies in, else ``NONE``.
- ``labels_to_spans(text, tokens, labels)``: runs of tokens with the same PHI label, joined
  when only spaces/tabs (no line break) separate them, become one span (one of punctuation
  alone, with no letter or digit, is dropped: it identifies no one); a span that ends (or
  starts) at an invisible character inside a word takes in the rest of the word.

Invisible characters (:data:`JOINERS`: soft hyphen, zero-width space and joiners, word joiner,
a byte-order mark inside the text) and combining marks (the accent of a decomposed, NFD,
'García') split a word into tokens for the tokenizer but not for a reader: "Sm\u200bith" reads as Smith. The trees judge the pieces apart and may tag one of them
only, and a released note would keep the other ("[**PATIENT**]ith"). So a PHI span's word is
taken whole across them, whatever tagged it.
"""
from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from typing import Sequence

from itdeid.document import NON_PHI, Span
from itdeid.tokens import LETTER_OR_DIGIT, Token


def label_runs(codes: Sequence[int]) -> list[tuple[int, int, int]]:
    """Runs of equal non-zero label codes as (first, last, code) token indices: the phrases of
    a labelled token sequence (triggers, suffixes, trusted phrases and standardization read them)."""
    runs, i, n = [], 0, len(codes)
    while i < n:
        if codes[i]:
            j = i
            while j + 1 < n and codes[j + 1] == codes[i]:
                j += 1
            runs.append((i, j, int(codes[i])))
            i = j + 1
        else:
            i += 1
    return runs


def token_labels(tokens: Sequence[Token], spans: Sequence[Span]) -> list[str]:
    ordered = sorted(spans)
    starts = [span.start for span in ordered]
    labels = []
    for token in tokens:
        i = bisect_right(starts, token.start) - 1
        if i >= 0 and ordered[i].end > token.start:
            labels.append(ordered[i].type)
        else:
            labels.append(NON_PHI)
    return labels


#: What marks a word as an email or web address.
_WEB_WORD = re.compile(r"@|://|www\.", re.IGNORECASE)
#: Characters that are invisible inside a word (see the module docstring).
JOINERS = frozenset("\u00ad\u200b\u200c\u200d\u2060\ufeff")
#: Any of them, or a combining mark (the accent of a decomposed 'i\u0301', which the tokenizer
#: splits off): a note without one (nearly all) is passed by one scan of the engine.
_ANY_JOINER = re.compile("[" + "".join(sorted(JOINERS)) + "\u0300-\u036f\u0483-\u0489\u0591-\u05c7"
                         "\u0610-\u061a\u064b-\u065f\u0900-\u0903\u093a-\u094f\u1ab0-\u1aff"
                         "\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")


def _joins(char: str) -> bool:
    """Whether ``char`` sits inside a word without ending it: a joiner or a combining mark."""
    return char in JOINERS or unicodedata.category(char) in ("Mn", "Mc", "Me")


def _across_joiners(text: str, start: int, end: int, lower: int, upper: int) -> tuple[int, int]:
    """``start``-``end`` grown over invisible characters and the letters or digits beyond
    them, within ``lower``-``upper``."""
    while True:
        k = end
        while k < upper and _joins(text[k]):
            k += 1
        if k == end and not (end > start and _joins(text[end - 1])):
            break
        m = k
        while m < upper and text[m].isalnum():
            m += 1
        if m == k:
            break
        end = m
    while True:
        k = start
        while k > lower and _joins(text[k - 1]):
            k -= 1
        if k == start and not (start < end and _joins(text[start])):
            break
        m = k
        while m > lower and text[m - 1].isalnum():
            m -= 1
        if m == k:
            break
        start = m
    return start, end


def labels_to_spans(text: str, tokens: Sequence[Token], labels: Sequence[str]) -> list[Span]:
    # a span of punctuation alone (the comma of 'Springfield, IL', a stray bracket) identifies
    # no one, and as a marker of its own it only garbles the released text
    spans = _web_addresses_whole(text, [s for s in _label_spans(text, tokens, labels)
                                        if LETTER_OR_DIGIT.search(text, s.start, s.end)])
    if not spans or not _ANY_JOINER.search(text):
        return spans
    grown = []
    for i, span in enumerate(spans):
        lower = grown[-1].end if grown else 0
        upper = spans[i + 1].start if i + 1 < len(spans) else len(text)
        start, end = _across_joiners(text, span.start, span.end, lower, upper)
        grown.append(Span(start, end, span.type))
    return grown


def _web_addresses_whole(text: str, spans: list[Span]) -> list[Span]:
    """Spans with no whitespace between them that make an email or web address joined into one,
    of the longer piece's class. The trees type the pieces of a word apart ('x@ukliy.' ID and
    'com' LOCATION), and a surrogate drawn piece by piece by class garbled the address
    ('x@ukliy.takoma park'). Other pieces stay apart: rescoring the recipe's PhysioNet fold
    caches with thresholds.py (session 23, local readings), joining every word's pieces cost 0.7
    points of 8-way F with one class for the word, 0.1 joining same-class pieces alone."""
    out: list[Span] = []
    for span in spans:
        if (out and not any(c.isspace() for c in text[out[-1].end:span.start])
                and _WEB_WORD.search(text, out[-1].start, span.end)):
            last = out[-1]
            kind = last.type if last.end - last.start >= span.end - span.start else span.type
            out[-1] = Span(last.start, span.end, kind)
        else:
            out.append(span)
    return out


def _label_spans(text: str, tokens: Sequence[Token], labels: Sequence[str]) -> list[Span]:
    spans: list[Span] = []
    current = None
    for token, label in zip(tokens, labels):
        if label == NON_PHI:
            current = None
            continue
        gap = text[current.end:token.start] if current is not None else None
        if current is not None and current.type == label and gap.strip(" \t") == "":
            current = Span(current.start, token.end, label)
            spans[-1] = current
        else:
            current = Span(token.start, token.end, label)
            spans.append(current)
    return spans
