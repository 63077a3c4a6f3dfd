"""Conversion between character spans and per-token labels (first version).

- ``token_labels(tokens, spans)``: the class of the span each token lies in, else ``NONE``.
- ``labels_to_spans(text, tokens, labels)``: runs of tokens with the same PHI label, joined
  when only spaces/tabs (no line break) separate them, become one span (one of punctuation
  alone, with no letter or digit, is dropped: it identifies no one); a function word between
  two classes ('on <date> at <hospital>') is in neither's span (:func:`joining_words`).

Invisible characters and the combining accents of decomposed text, which split a word into
tokens for the tokenizer but not for a reader, never reach these functions: the model reads a
note without them (:mod:`itdeid.text.model_text`), and its spans are mapped back onto the note.
"""
from __future__ import annotations

import re
from bisect import bisect_right
from typing import Sequence

from itdeid.document import NON_PHI, Span
from itdeid.text.tokens import LETTER_OR_DIGIT, Token


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


def with_annotated(annotated: Sequence[Span], predicted: Sequence[Span]) -> list[Span]:
    """The predicted spans with a note's own annotated PHI added, for a text to be released: an
    i2b2 or PhysioNet input already marks some PHI, and a release that kept what the model
    missed of it (the annotations dropped) left PHI a person had marked. Overlapping spans
    become one, over all their characters (an annotation 'John' and a prediction 'John Smith'
    leave neither word), of the annotation's class where one takes part."""
    tagged = sorted([(s.start, s.end, 0, s) for s in annotated] + [(s.start, s.end, 1, s) for s in predicted],
                    key=lambda item: item[:3])
    out: list[tuple[int, int, int, Span]] = []
    for start, end, rank, span in tagged:
        if out and start < out[-1][1]:
            first_start, first_end, first_rank, first = out[-1]
            lead = first if first_rank <= rank else span
            out[-1] = (first_start, max(first_end, end), min(first_rank, rank), lead)
        else:
            out.append((start, end, rank, span))
    return [Span(start, end, span.type, span.subtype) for start, end, _, span in out]


#: What marks a word as an email or web address.
_WEB_WORD = re.compile(r"@|://|www\.", re.IGNORECASE)
#: Words of grammar that join two phrases and belong to neither ('on <date> at <hospital>', '<doctor>
#: of <hospital>', '<town> and <date>'). Within one class they may be a name's own ('Mass Eye and
#: Ear', 'Hospital of Saint Raphael', 'March 3 to March 5'), so only a word between two classes loses
#: its tag.
FUNCTION_WORDS = frozenset(
    "a an and as at by for from in into of on onto or per than the to via with".split())


def _joins(word: str) -> bool:
    """Whether ``word`` may stand between two phrases without being part of either: a function
    word, or punctuation alone (the comma of '<date>, at <hospital>')."""
    return word.lower() in FUNCTION_WORDS or not LETTER_OR_DIGIT.search(word)


def joining_words(tokens: Sequence[Token], labels: Sequence, none=NON_PHI) -> list[int]:
    """Indices of the tagged function words (:data:`FUNCTION_WORDS`, any case) that stand between
    two tagged words of different classes, only function words and punctuation between them:
    'at' in 'on March 3 at Mercy Hospital' typed DATE, HOSPITAL, HOSPITAL. Tagged with either
    side, the word went into that side's span and out of the released text ('on [**DATE**]
    [**HOSPITAL**]'), though it is no part of either phrase. ``labels`` are label names, or codes
    with ``none=0``."""
    n, found, done = len(tokens), [], -1
    for k, label in enumerate(labels):
        if label == none or k <= done or tokens[k].text.lower() not in FUNCTION_WORDS:
            continue
        first = last = k
        while first > 0 and _joins(tokens[first - 1].text):
            first -= 1
        while last + 1 < n and _joins(tokens[last + 1].text):
            last += 1
        done = last
        before = labels[first - 1] if first else none
        after = labels[last + 1] if last + 1 < n else none
        if before != none and after != none and before != after:
            found += [i for i in range(k, last + 1)
                      if labels[i] != none and tokens[i].text.lower() in FUNCTION_WORDS]
    return found


def labels_to_spans(text: str, tokens: Sequence[Token], labels: Sequence[str]) -> list[Span]:
    # a function word between two classes is neither's: whatever tagged it, no span takes it
    cleared = joining_words(tokens, labels)
    if cleared:
        labels = list(labels)
        for k in cleared:
            labels[k] = NON_PHI
    # a span of punctuation alone (the comma of 'Springfield, IL', a stray bracket) identifies
    # no one, and as a marker of its own it only garbles the released text
    spans = [_without_edge_marks(text, _without_sentence_punctuation(text, s))
             for s in _label_spans(text, tokens, labels) if LETTER_OR_DIGIT.search(text, s.start, s.end)]
    return _web_addresses_whole(text, [s for s in (_without_possessive(text, s) for s in spans) if s])


#: Punctuation of the sentence around a PHI phrase, which carries no PHI: a redaction marker
#: that swallowed it garbled the text ('Dr. [**DOCTOR**] Monday.' for 'Dr. Yamamoto, Monday.'),
#: where a surrogate kept it. Its effect on the scores: experiments/NOTEBOOK.md.
SENTENCE_PUNCTUATION = " \t.,;:!?"


def _without_sentence_punctuation(text: str, span: Span) -> Span:
    """``span`` without the sentence punctuation at its ends (it holds a letter or digit); the
    full stop of an initial ('John R.') is the initial's, as the gold has it."""
    start, end = span.start, span.end
    while text[end - 1] in SENTENCE_PUNCTUATION and not _initial_stop(text, start, end):
        end -= 1
    while text[start] in SENTENCE_PUNCTUATION:
        start += 1
    return span if (start, end) == (span.start, span.end) else Span(start, end, span.type, span.subtype)


#: Bracket pairs: a span's closing bracket without its opening one inside the span is the
#: sentence's ('per Dr Vantree)', '(NP JASMIN)'), as is an opening one without its closing one.
BRACKETS = {")": "(", "]": "[", "}": "{"}
#: Dashes at a span's edge: the line's or a range's, never a part of a name or a number ('Ashby-'
#: at a line's end, 'hale -' before a signature's rest).
EDGE_DASHES = "-\u2010\u2011\u2012\u2013\u2014"


def _without_edge_marks(text: str, span: Span) -> Span:
    """``span`` without unmatched brackets and dashes at its ends (it holds a letter or digit).
    The model's spans sometimes end in a closing bracket the gold leaves out ('(AS DISCUSSED
    WITH NP JASMIN)'), or begin or end with a dash, while the gold's own spans almost never
    begin or end with a dash or end with an unmatched bracket."""
    start, end = span.start, span.end
    while True:
        last = text[end - 1]
        if last in EDGE_DASHES or (last in BRACKETS and BRACKETS[last] not in text[start:end - 1]):
            end -= 1
        elif text[start] in EDGE_DASHES or (text[start] in "([{" and
                                            _closing(text[start]) not in text[start + 1:end]):
            start += 1
        else:
            break
        while end > start and text[end - 1] in " \t":
            end -= 1
        while start < end and text[start] in " \t":
            start += 1
        if not LETTER_OR_DIGIT.search(text, start, end):
            return span
    return span if (start, end) == (span.start, span.end) else Span(start, end, span.type, span.subtype)


def _closing(opening: str) -> str:
    return next(close for close, open_ in BRACKETS.items() if open_ == opening)


#: The possessive after a word ("Murphy's wife", "JONES'S SON"): grammar, not the name. Inside a
#: span, the released text lost it ('[**PATIENT**] wife'; a surrogate 'Smith wife'); as a span of
#: its own, of another class than the name's (the trees type the token apart), it became a second
#: marker ('[**PATIENT**][**DOCTOR**] daughter'). PhysioNet's gold has it inside a name twice
#: and after one twice.
POSSESSIVE = re.compile("['\u2019][sS]")


def _without_possessive(text: str, span: Span) -> Span | None:
    """``span`` without a possessive at its end; None for a span that is nothing but the
    possessive of the word before it."""
    start, end = span.start, span.end
    if not (end - start >= 2 and POSSESSIVE.fullmatch(text, end - 2, end)):
        return span
    if end - start == 2:
        return None if start and text[start - 1].isalnum() else span
    return Span(start, end - 2, span.type, span.subtype) if text[end - 3].isalnum() else span


def _initial_stop(text: str, start: int, end: int) -> bool:
    """Whether ``text[end - 1]`` is the full stop of a one-letter word inside ``start``-``end``."""
    return (text[end - 1] == "." and end - 2 >= start and text[end - 2].isalpha()
            and (end - 3 < start or not text[end - 3].isalnum()))


def _web_addresses_whole(text: str, spans: list[Span]) -> list[Span]:
    """Spans with no whitespace between them that make an email or web address joined into one,
    of the longer piece's class. The trees type the pieces of a word apart ('x@jqmail.' ID and
    'com' LOCATION), and a surrogate drawn piece by piece by class garbled the address
    ('x@jqmail.cedar grove'). Other pieces stay apart: in cross-validation, joining every word's
    pieces into one class lost more F than joining same-class pieces alone."""
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
