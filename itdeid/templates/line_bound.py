"""Which templates keep to one line: a match, and all it looks at, never crosses a line end.

The 'plain' templates (:func:`itdeid.passes.identifiers.plain_templates`) clear the model's tags from
shapes that are never PHI, and a note's tags sit on a few of its lines. Scanning only those lines finds every match
that can touch a tag, and the same matches the whole note's scan finds there, when nothing in
the template can match a line end (``\\n``): not its characters, its classes, its lookarounds,
nor an end anchor. Then

- no match spans a line end, so ``finditer`` over the note reaches each line's start with no
  match open, as a scan that starts there does: the two find the same matches in the line;
- whatever a match looks at ahead stops at the line end, so a scan that ends just after it
  (``endpos``) sees what the whole note shows it; a lookbehind looks before the scan's start as
  it does in the whole note (``pos`` does not hide the text before it; ``^`` and ``\\A`` still
  mean the note's start).

:func:`keeps_to_line` reads that off the parsed pattern, and says no where it is unsure (a
back-reference, a class it does not know). Most plain templates keep to a line, and they take
most of the plain templates' scanning time; the rest scan the whole note.
"""
from __future__ import annotations

import re
from re import _constants as sre  # noqa: the parser's op codes; stable since Python 3.11
from re import _parser as sre_parse

_NEWLINE = ord("\n")
#: Class categories that hold the line end.
_CATEGORIES_WITH_NEWLINE = frozenset({
    sre.CATEGORY_SPACE, sre.CATEGORY_NOT_DIGIT, sre.CATEGORY_NOT_WORD, sre.CATEGORY_LINEBREAK,
    sre.CATEGORY_UNI_SPACE, sre.CATEGORY_UNI_NOT_DIGIT, sre.CATEGORY_UNI_NOT_WORD,
    sre.CATEGORY_UNI_LINEBREAK, sre.CATEGORY_LOC_NOT_WORD})
#: Class categories without it.
_CATEGORIES_WITHOUT = frozenset({
    sre.CATEGORY_DIGIT, sre.CATEGORY_WORD, sre.CATEGORY_NOT_SPACE, sre.CATEGORY_NOT_LINEBREAK,
    sre.CATEGORY_UNI_DIGIT, sre.CATEGORY_UNI_WORD, sre.CATEGORY_UNI_NOT_SPACE,
    sre.CATEGORY_UNI_NOT_LINEBREAK, sre.CATEGORY_LOC_WORD})
#: Anchors that mean the same at a scan's bounds as in the whole note (an end anchor does not:
#: at ``endpos`` it matches).
_LINE_SAFE_ANCHORS = frozenset({
    sre.AT_BOUNDARY, sre.AT_NON_BOUNDARY, sre.AT_UNI_BOUNDARY, sre.AT_UNI_NON_BOUNDARY,
    sre.AT_LOC_BOUNDARY, sre.AT_LOC_NON_BOUNDARY, sre.AT_BEGINNING_STRING})
_REPEATS = (sre.MAX_REPEAT, sre.MIN_REPEAT, getattr(sre, "POSSESSIVE_REPEAT", None))


class _Crosses(Exception):
    """Part of the pattern may match a line end, or cannot be judged."""


def keeps_to_line(pattern: str, flags: int = 0) -> bool:
    """Whether no part of ``pattern`` can match a line end (see the module docstring)."""
    try:
        parsed = sre_parse.parse(pattern, flags)
        _check(parsed, parsed.state.flags)
    except (_Crosses, re.error):
        return False
    return True


def _class_holds_newline(items) -> bool:
    negated = held = False
    for op, av in items:
        if op is sre.NEGATE:
            negated = True
        elif op is sre.LITERAL:
            held = held or av == _NEWLINE
        elif op is sre.RANGE:
            held = held or av[0] <= _NEWLINE <= av[1]
        elif op is sre.CATEGORY and av in _CATEGORIES_WITH_NEWLINE:
            held = True
        elif not (op is sre.CATEGORY and av in _CATEGORIES_WITHOUT):
            raise _Crosses(op)
    return held != negated


def _check(items, flags: int) -> None:
    for op, av in items:
        if op is sre.LITERAL:
            if av == _NEWLINE:
                raise _Crosses(op)
        elif op is sre.NOT_LITERAL:
            if av != _NEWLINE:
                raise _Crosses(op)
        elif op is sre.ANY:
            if flags & re.DOTALL:
                raise _Crosses(op)
        elif op is sre.IN:
            if _class_holds_newline(av):
                raise _Crosses(op)
        elif op is sre.AT:
            if av not in _LINE_SAFE_ANCHORS and not (av is sre.AT_BEGINNING and not flags & re.MULTILINE):
                raise _Crosses(op)
        elif op is sre.SUBPATTERN:
            _check(av[3], (flags | av[1]) & ~av[2])
        elif op is sre.BRANCH:
            for branch in av[1]:
                _check(branch, flags)
        elif op in _REPEATS:
            _check(av[2], flags)
        elif op in (sre.ASSERT, sre.ASSERT_NOT):
            _check(av[1], flags)
        elif op is getattr(sre, "ATOMIC_GROUP", None):
            _check(av, flags)
        else:                                   # a back-reference, a conditional, ...
            raise _Crosses(op)
