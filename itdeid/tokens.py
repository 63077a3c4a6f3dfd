"""Tokenization with character offsets (first version; refined by the tokenizer work).

Interface every stage relies on:
- ``Token(start, end, text)`` with ``text == document_text[start:end]``;
- ``tokenize(text, boundaries=())`` gives the non-whitespace tokens of ``text`` in order; every
  offset in ``boundaries`` that falls inside a token splits it there, so a PHI span whose edge
  falls inside a token is still representable token by token.
"""
from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from typing import Iterable


@dataclass(frozen=True)
class Token:
    start: int
    end: int
    text: str


_TOKEN = re.compile(r"\d+(?:[/.\-]\d+)+|\w+|[^\w\s]")


def tokenize(text: str, boundaries: Iterable[int] = ()) -> list[Token]:
    cuts = sorted(set(boundaries))
    tokens: list[Token] = []
    for match in _TOKEN.finditer(text):
        start, end = match.span()
        i = bisect_right(cuts, start)
        while i < len(cuts) and cuts[i] < end:
            tokens.append(Token(start, cuts[i], text[start:cuts[i]]))
            start = cuts[i]
            i += 1
        tokens.append(Token(start, end, text[start:end]))
    return tokens
