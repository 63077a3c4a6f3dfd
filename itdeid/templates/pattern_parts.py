"""A parsed regular expression's character class written back as pattern text.

Two modules read the templates' parsed patterns and write parts of them again:
:mod:`itdeid.templates.guarded` writes the characters a match can begin with as a lookahead class for
Python's ``re``, and :mod:`itdeid.templates.match_starts` writes each template reversed for Hyperscan. Both
turn the parser's classes back into text, each with its own escaping (``re.escape`` for Python;
``\\xHH`` for Hyperscan, which reads bytes), so the walk over a class is here once and the
character writer is theirs.
"""
from __future__ import annotations

from typing import Callable

from re import _constants as sre  # noqa: the parser's op codes; stable since Python 3.11

#: The class escapes of sre's category codes, for writing a parsed class back as a pattern.
CATEGORIES = {
    sre.CATEGORY_DIGIT: r"\d", sre.CATEGORY_NOT_DIGIT: r"\D",
    sre.CATEGORY_WORD: r"\w", sre.CATEGORY_NOT_WORD: r"\W",
    sre.CATEGORY_SPACE: r"\s", sre.CATEGORY_NOT_SPACE: r"\S",
}


class Unwritable(Exception):
    """A class item with no text form here (``RANGE_UNI_IGNORE``, a category of another kind)."""


def class_items(items, char: Callable[[int], str]) -> tuple[list[str], bool]:
    """(the items of a parsed class ``[...]`` as pattern text, each character written by
    ``char``; whether the class is negated). Raises :class:`Unwritable`."""
    parts, negated = [], False
    for op, av in items:
        if op is sre.NEGATE:
            negated = True
        elif op is sre.LITERAL:
            parts.append(char(av))
        elif op is sre.RANGE:
            parts.append(f"{char(av[0])}-{char(av[1])}")
        elif op is sre.CATEGORY and av in CATEGORIES:
            parts.append(CATEGORIES[av])
        else:
            raise Unwritable(str(op))
    return parts, negated
