"""Identifiers with a fixed shape: PHI whatever the model says.

HIPAA's Safe Harbor method lists eighteen kinds of identifier. Names, hospitals and most places
have no fixed shape and are the trees' work; many of the others do (an e-mail address, a URL,
an IP address, an SSN, a phone number with its extension, a ZIP code after a state, a street
address, a number after 'MRN:', 'policy #', 'licence', 'VIN', 'serial', a full date, an age
over 89). A model trained on nursing notes has rarely or never seen an e-mail address or a VIN,
so it cannot learn to tag one, and the regular-expression *features* (features/regex.json) only
inform trees that have seen them. So the templates of ``features/identifiers.json`` are applied
after the model (the ``identifiers`` group of :mod:`itdeid.pipeline`): a token overlapping a template's match gets the
template's class (for a name template, only one the model left as non-PHI). The templates are written for precision (the
ambiguous shapes, '5/10', '2-3', bare years, ages under 90, are left to the model), and each
kind maps onto an i2b2 2006 class as the 2014 corpus's subtypes do (e-mail, URL, IP, SSN,
licence, vehicle and device numbers are ID; ZIP codes, streets and counties LOCATION).

The same file's 'plain' templates are the other way round: shapes that are never PHI, whose
tokens lose the model's tag before the templates above are applied. Nursing notes write clock
times as four digits ('heparin at 2000', '0700-1930'), which the trees took for years ('at 2000' alone
was a frequent false alarm), and the
surrogates then moved the time as a year.

Whether a model applies them is its ``identifiers`` parameter
(:class:`~itdeid.estimators.model.TokenModel`, :class:`~itdeid.estimators.deidentifier.Deidentifier`).
"""
from __future__ import annotations

import re
from functools import lru_cache

import numpy as np

from itdeid.document import LABEL_CODE, Span
from itdeid.templates.guarded import Template, lowered_ascii, may_match_ids
from itdeid.templates.prefilter import which_may_match
from itdeid.templates.match_starts import LONG_TEXT
from itdeid.text.model_text import model_text, to_note
from itdeid.resources import load_json

#: Template classes that are a guess about whose name it is: the model's name class stands.
_NAME_CLASSES = ("PATIENT", "DOCTOR")


@lru_cache(maxsize=1)
def identifier_templates() -> tuple[tuple[str, str, Template, bool], ...]:
    """(kind, class, compiled pattern, whether its label is cleared) of every template of
    features/identifiers.json."""
    return tuple((t["kind"], t["class"], Template(t["pattern"], re.IGNORECASE if "i" in t.get("flags", "") else 0),
                  t.get("label") != "model")
                 for t in load_json("features", "identifiers.json")["templates"])


@lru_cache(maxsize=1)
def plain_templates() -> tuple[tuple[str, Template], ...]:
    """(kind, compiled pattern) of every 'plain' template of features/identifiers.json: shapes
    that are never PHI (a clock time after 'at')."""
    return tuple((t["kind"], Template(t["pattern"], re.IGNORECASE if "i" in t.get("flags", "") else 0))
                 for t in load_json("features", "identifiers.json")["plain"])


@lru_cache(maxsize=1)
def _identifier_ids() -> tuple[int, ...]:
    """The prefilter ids of :func:`identifier_templates`' patterns, in order."""
    return may_match_ids([pattern for _kind, _cls, pattern, _clears in identifier_templates()])


@lru_cache(maxsize=1)
def _plain_ids() -> tuple[int, ...]:
    """The prefilter ids of :func:`plain_templates`' patterns, in order."""
    return may_match_ids([pattern for _kind, pattern in plain_templates()])


def _read(text: str) -> tuple[str, np.ndarray | None, str | None]:
    """(the text the model reads, its offsets in ``text`` or None, its lower case where ASCII):
    what the plain and the identifier templates both scan, computed once a note."""
    read, starts = model_text(text)
    return read, starts, lowered_ascii(read)


def plain_matches(text: str, read=None, lines=None) -> list[tuple[int, int, str]]:
    """(start, end, kind) of every 'plain' template's group 'plain' in ``text``, at its own
    offsets, in text order; ``read``: :func:`_read` of ``text``, when the caller has it.
    ``lines``: (start, end) of the lines of ``text`` (read as it is, no offsets moved) whose
    matches are wanted, all that touch them; the templates that keep to a line
    (:mod:`itdeid.templates.line_bound`) scan those lines alone, the rest the whole text."""
    read, starts, lowered = read or _read(text)
    templates = plain_templates()
    if lines is not None and starts is not None:
        raise ValueError("lines need a text the model reads as it is")

    def found_by(pattern):
        if lines is not None and pattern.line_bound:
            return pattern.matches_in_lines(read, lines, lowered, group="plain")
        return pattern.matches(read, lowered, group="plain")

    found = sorted((a, b, kind) for kind, pattern in map(templates.__getitem__,
                                                         which_may_match(read, _plain_ids()))
                   for _whole, (a, b) in found_by(pattern) if b > a)
    if starts is not None:
        found = [(int(starts[a]), int(starts[b]), kind) for a, b, kind in found]
    return found


def plain_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of every 'plain' template's group 'plain' in ``text``, at its own offsets,
    in text order."""
    return [(a, b) for a, b, _kind in plain_matches(text)]


def identifier_spans(text: str) -> list[tuple[Span, str]]:
    """Every template match in ``text`` as (span of its PHI part, HIPAA kind), in text order;
    ``text`` is read as the model reads it (:mod:`itdeid.text.model_text`), the spans given at its own
    offsets."""
    return [(span, kind) for span, kind, _label in _template_matches(text)]


def _template_matches(text: str, read=None) -> list[tuple[Span, str, tuple[int, int] | None]]:
    """(PHI part, kind, label) of every template match in ``text``, in text order of the PHI
    part; the label is the (start, end) of what the match holds before its PHI part ('MRN:' of
    'MRN: 4452198'), None where nothing does or the template keeps the model's reading of it.
    ``read``: :func:`_read` of ``text``, when the caller has it."""
    read, starts, lowered = read or _read(text)
    found = []
    templates = identifier_templates()
    for k in which_may_match(read, _identifier_ids()):     # most match nothing in a note
        kind, cls, pattern, clears_label = templates[k]
        for (begin, _), (start, end) in pattern.matches(read, lowered, group="phi"):
            if end > start:
                label = (begin, start) if clears_label and start > begin else None
                found.append((Span(start, end, cls), kind, label))
    if starts is not None:
        found = [(to_note([span], starts)[0], kind,
                  label and (int(starts[label[0]]), int(starts[label[1]]))) for span, kind, label in found]
    return sorted(found, key=lambda x: (x[0].start, x[0].end))


def _tagged_lines(text: str, read, starts: np.ndarray, codes: np.ndarray) -> list[tuple[int, int]] | None:
    """(start, end) of each line of ``text`` that holds a tagged token (``codes`` non-zero at
    token ``starts``), in order: a plain template's match clears only the tags it touches, so
    :func:`plain_matches` need not scan the other lines (a note's tags sit on a few of its
    lines). None (scan it all) for a long
    text, which its own path scans (:mod:`itdeid.templates.match_starts`), or one read with offsets moved."""
    if read[1] is not None or len(text) >= LONG_TEXT:
        return None
    lines = {}
    for k in np.flatnonzero(codes).tolist():
        start = text.rfind("\n", 0, int(starts[k])) + 1
        if start not in lines:
            end = text.find("\n", start)
            lines[start] = len(text) if end < 0 else end
    return sorted(lines.items())


def _cached_read(text: str, cache: dict | None):
    """:func:`_read` of ``text``, kept in ``cache`` (a note's passes share one)."""
    if cache is None:
        return _read(text)
    if "identifier read" not in cache:
        cache["identifier read"] = _read(text)
    return cache["identifier read"]


def clear_plain_shapes(text: str, starts: np.ndarray, ends: np.ndarray, codes: np.ndarray,
                       cache: dict | None = None) -> np.ndarray:
    """``codes`` (changed in place) with the tag of every token a 'plain' template's part
    overlaps cleared (:func:`plain_matches`: 'at 2000', a clock time the trees took for a year;
    the surrogates then moved the time as a year)."""
    read = _cached_read(text, cache)
    for start, end, _kind in plain_matches(text, read, _tagged_lines(text, read, starts, codes)):
        codes[np.searchsorted(ends, start, side="right"):np.searchsorted(starts, end, side="left")] = 0
    return codes


def identifier_matches(text: str, cache: dict | None = None) -> list[tuple[Span, str, tuple[int, int] | None]]:
    """Every identifier template's matches in ``text``: (PHI span, kind, label span or None)."""
    return _template_matches(text, _cached_read(text, cache))


def untag_identifier_labels(starts: np.ndarray, ends: np.ndarray, codes: np.ndarray, matches) -> np.ndarray:
    """``codes`` (changed in place) with the tokens wholly inside a match's label ('MRN', 'SSN',
    'Tel', 'aged' before the number) untagged: the model, which has seen few such labels, took
    'MRN' for a patient's name and 'SSN' for a doctor's."""
    for _span, _kind, label in matches:
        if label is not None:
            codes[np.searchsorted(starts, label[0], side="left"):
                  np.searchsorted(ends, label[1], side="right")] = 0
    return codes


def tag_identifiers(starts: np.ndarray, ends: np.ndarray, codes: np.ndarray, matches) -> np.ndarray:
    """``codes`` (changed in place) where a token overlapping a match takes the match's class,
    for a fixed-shape kind even where the model gave it another (a house number typed DATE came
    out of the surrogates as a shifted date); a name template's class (a guess: a name in Han
    letters) is given to non-PHI tokens only, the model's PATIENT-or-DOCTOR kept. A label never
    takes a token some match's PHI part overlaps, since this runs after the labels are cleared."""
    for span, _kind, _label in matches:
        lo = np.searchsorted(ends, span.start, side="right")
        hi = np.searchsorted(starts, span.end, side="left")
        if hi > lo:
            part = codes[lo:hi]
            if span.type in _NAME_CLASSES:
                part[part == 0] = LABEL_CODE[span.type]
            else:
                part[:] = LABEL_CODE[span.type]
    return codes

