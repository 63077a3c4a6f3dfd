r"""Tokenization with character offsets.

Interface every stage relies on:

- ``Token(start, end, text)`` with ``text == document_text[start:end]``;
- ``tokenize(text, boundaries=())`` gives the non-whitespace tokens of ``text`` in order; every
  offset in ``boundaries`` that falls strictly inside a token splits it there, so a PHI span whose
  edge falls inside a token is still representable token by token and no PHI character is lost.

Clinical notes glue words, numbers and units together ('70yoM', 'Since6/03/04', 'GQ/NV/whalen').
The i2b2 2014 systems (He et al. 2015) found that PHI hides inside such compounds, so the
tokenizer separates them, while keeping whole the number patterns whose shape *is* the evidence
(the model must see '6/03/04' or '555-3456' as one token to learn what it is). The decisions:

- Punctuation is its own token ('Smith,John' -> Smith , John; 'GQ/NV' -> GQ / NV), except runs of
  one repeated separator ('---', '...', '____'), one token each so rule lines do not flood the
  token stream.
- Periods are always separate: 'Dr.' -> Dr . ; 'J.' -> J . ; 'M.D.' -> M . D . ; 'e.g.' -> e . g .
  One rule for honorifics, initials and abbreviations keeps the word itself comparable with
  gazetteers and trigger lists; sentence splitting (itdeid.text.structure) knows the abbreviations.
- Digit groups joined by / - . : are one token: dates '6/03/04', '2067-05-03', phones '555-3456',
  SSN-like '123-45-6789', decimals '3.5', times '12:30', ranges '2-3' (the model learns that
  ranges are not dates). 'd-Mon-yy(yy)' dates ('10-Feb-2011') are one token too. '(842) 544-2703'
  is ( 842 ) 544-2703.
- Digits followed by letters split only before a unit or a short lower-case word: a known unit
  or age marker, any case ('2mg', '1000MG', '72yo', and '70yoM' -> 70 yo M with the sex letter),
  or 1-3 lower-case letters after at most 3 digits ('3pm', '2x'), but not ordinals ('22nd').
  Anything else with digits and letters stays whole, so IDs ('MRN12345', 'A1234567', 'BC12',
  '3LNP') are one token.
- Letters followed by digits split only where a word was glued to a number: a run of >= 3 letters
  with a lower-case one ('Since6', 'Hct25'), or a run of >= 2 letters before a date-like digit group
  ('DATED10/12/05').
- Possessive "'s" is its own token ("Smith's" -> Smith 's); other inner apostrophes stay
  ("O'Dwyer", "cont'd").

Speed: one compiled regular expression (``finditer``); the lookaheads do the compound splitting,
so there is no per-token post-processing beyond the optional boundary cuts. The letter runs
before a glued number are possessive (``{3,}+``): a shorter run of letters is followed by a
letter, never by the digit the lookahead wants, so giving letters back can never make those
alternatives match, and a plain word no longer costs a backtrack a letter. A plain word, most
of a note's tokens, is matched by a first alternative of its own, before the engine tries the
compounds' eight ways of starting with a digit or a glued word on it. Every token begins with a
character that is not space, so the alternatives sit behind a lookahead ``(?=\S)``: at a space
or line break (a fifth of a note's characters) the engine fails once instead of trying each
alternative, whose leading lookbehinds it cannot reject at a glance (the same tokens, a third
less time in ``finditer``).
"""
from __future__ import annotations

import re
from bisect import bisect_right
from operator import itemgetter
from typing import Iterable, NamedTuple, Sequence

import numpy as np


class Token(NamedTuple):
    """A token: ``text == document_text[start:end]``. A named tuple rather than a frozen
    dataclass: a frozen dataclass's constructor sets each field through ``object.__setattr__``,
    and building the tokens that way took as long as finding them."""
    start: int
    end: int
    text: str


_new_token = tuple.__new__

#: A token's text, as a function: mapped over a note's tokens it runs in C, where a generator
#: expression takes a Python step a token.
TOKEN_TEXT = itemgetter(2)
_START, _END = itemgetter(0), itemgetter(1)


# Units and age markers that split from a preceding number whatever their length or case.
_UNITS = ("mg|mcg|ug|g|kg|lb|lbs|ml|cc|l|dl|meq|mmol|mm|cm|m|km|in|ft|hr|hrs|h|min|mins|sec|"
          "d|wk|wks|mo|mos|am|pm|u|iu|units|bpm|mmhg|x")
_AGE = "yo|y|yr|yrs|yof|yom"
_MONTHS = "jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec"
_ALNUM = r"[^\W_]"  # a letter or digit (\w without the underscore)
#: A letter or digit, compiled: ``LETTER_OR_DIGIT.search(word)`` is ``any(c.isalnum() for c in
#: word)``, the test for a word (not punctuation) that several feature groups share.
LETTER_OR_DIGIT = re.compile(_ALNUM)

#: A plain word: letters neither after a digit nor before a digit or an apostrophe. The
#: alternatives below (:data:`_COMPOUNDS`) give such a word whole only through their word
#: alternative, after the eight before it have failed on it; tried first, this spares a word
#: those attempts.
_PLAIN_WORD = r"(?<!\d)[^\W\d_]++(?![\d'\u2019])"
_COMPOUNDS = (
    # 10-Feb-2011
    rf"\d{{1,2}}-(?i:{_MONTHS})[a-z]*-(?:\d{{4}}|\d{{2}})(?!{_ALNUM})"
    # 6/03/04, 555-3456, 3.5, 12:30, 2-3
    r"|\d+(?:[/.:\-]\d+)+"
    # the number of '70yoM', '2mg', '3pm' (the unit follows as its own token)
    rf"|\d+(?=(?i:(?:{_AGE})[mf]?|{_UNITS})(?!{_ALNUM}))"
    r"|\d{1,3}(?=(?!st|nd|rd|th)[a-z]{1,3}(?![^\W_]))"
    # the age marker of '70yoM' when the sex letter follows it
    rf"|(?<=\d)(?i:{_AGE})(?=(?i:[mf])(?!{_ALNUM}))"
    # the word of 'Since6/03/04', 'Hct25'
    r"|(?=[^\W\d_]*[a-z])[^\W\d_]{3,}+(?=\d)"
    r"|[^\W\d_]{2,}+(?=\d+[/.:\-]\d)"
    # possessive 's
    rf"|['\u2019][sS](?!{_ALNUM})"
    # words, numbers, IDs, with inner apostrophes (O'Dwyer, cont'd) but not a final 's
    rf"|{_ALNUM}+(?:['\u2019](?![sS](?!{_ALNUM})){_ALNUM}+)*"
    # a run of one repeated separator, then any other single punctuation character
    r"|([-_=*~.#+])\1+"
    r"|[^\w\s]|_"
)
_TOKEN = re.compile(rf"(?=\S)(?:{_PLAIN_WORD}|{_COMPOUNDS})")


def tokenize(text: str, boundaries: Iterable[int] = ()) -> list[Token]:
    """The tokens of ``text``, each split at the ``boundaries`` offsets strictly inside it."""
    cuts = sorted(set(boundaries))
    if not cuts:   # tuple.__new__ skips the named tuple's own __new__, a Python frame a token
        return [_new_token(Token, (m.start(), m.end(), m.group())) for m in _TOKEN.finditer(text)]
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


def token_bounds(tokens: Sequence[Token]) -> tuple[np.ndarray, np.ndarray]:
    """The start and end offsets of ``tokens`` as two int64 arrays."""
    return (np.fromiter(map(_START, tokens), np.int64, len(tokens)),
            np.fromiter(map(_END, tokens), np.int64, len(tokens)))


def count_tokens(text: str) -> int:
    """How many tokens :func:`tokenize` gives ``text``, without building them (a 20 MB note
    holds some 4 million)."""
    return sum(1 for _ in _TOKEN.finditer(text))
