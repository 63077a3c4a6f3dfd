"""Conversion between character spans and per-token labels (first version).

- ``token_labels(tokens, spans)``: the class of the span each token lies in, else ``NONE``.
- ``labels_to_spans(text, tokens, labels)``: runs of tokens with the same PHI label, joined
  when only spaces/tabs (no line break) separate them, become one span.
"""
from __future__ import annotations

from bisect import bisect_right
from typing import Sequence

from itdeid.document import NON_PHI, Span
from itdeid.tokens import Token


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


def labels_to_spans(text: str, tokens: Sequence[Token], labels: Sequence[str]) -> list[Span]:
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
