"""Where a template's matches can begin in a long text, from a Hyperscan pass over it reversed.

A long note is tagged in pieces of half a million characters (:mod:`itdeid.text.pieces`), and there
the per-note skipping of :mod:`itdeid.templates.prefilter` has nothing to skip: some match of almost every
template can be somewhere in a piece, so Python's ``re`` scanned each piece once a template, about
a third of the tagging time of a 20 MB note (a profile of a large synthetic
note). Most of a piece holds no match of a given template, yet ``re`` steps through every
position of it.

Hyperscan reports where matches *end*, not where they begin (its start-of-match mode does not
combine with the prefilter mode the templates need). A pattern read backwards matches the text
read backwards, and its matches end where the forward matches begin. So each template is
written reversed (:func:`reversed_pattern`: the parsed pattern's sequences in reverse order,
its lookarounds and anchors dropped, which only widens what it accepts) and compiled in
prefilter mode, which also only widens it; one scan of the reversed text then gives every
offset where a match can begin, and some where none does. :meth:`itdeid.templates.guarded.Template.matches`
runs ``re``'s own ``match`` at those offsets only, left to right, skipping offsets inside the
last match, which is what ``finditer`` finds (``tests/test_match_starts.py`` compares the two on
every template of the package).

Where the two engines read a character differently (any character outside ASCII; the vertical
tab and the separators Python's ``\\s`` counts as space and Hyperscan's does not) the text is
scanned with that character replaced by byte 0xFF, and every literal and character class of the
reversed pattern also accepts 0xFF: a wildcard there, so offsets are the text's own and nothing
``re`` can match is missed. A template that cannot be written so (a back-reference, a pattern
that can match the empty string) or that Hyperscan cannot compile is scanned by ``re`` as before.

Each template's reversed database is compiled the first time a long text asks for it (a cost
paid once a process, and not a small one), so only texts of :data:`LONG_TEXT`
characters or more take this path; shorter notes keep the forward prefilter.
"""
from __future__ import annotations

import re
import threading
from re import _constants as sre  # noqa: the parser's op codes; stable since Python 3.11
from re import _parser as sre_parse

from itdeid.templates.pattern_parts import Unwritable, class_items

try:  # optional: a faster path to the same matches
    import hyperscan
except ImportError:  # pragma: no cover - depends on the platform
    hyperscan = None

#: Texts this long or longer are scanned from their match starts (a piece of a long note is
#: half a million characters; the one-time compile pays for itself within a few such texts).
LONG_TEXT = 200_000
#: The byte a character the engines read differently becomes, and that every item accepts.
WILDCARD = "\\xff"
_DIFFERENT = re.compile("[^\x00-\x0a\x0c-\x1b\x20-\x7f]")
_REPEATS = (sre.MAX_REPEAT, sre.MIN_REPEAT, getattr(sre, "POSSESSIVE_REPEAT", None))
_DROPPED = (sre.AT, sre.ASSERT, sre.ASSERT_NOT)


class Unsupported(Exception):
    """The pattern cannot be written reversed for Hyperscan."""


def _char(code: int) -> str:
    if code > 0x7F:
        raise Unsupported("a character outside ASCII")
    return f"\\x{code:02x}"


def _class(items) -> str:
    try:
        parts, negated = class_items(items, _char)
    except Unwritable as error:
        raise Unsupported(str(error)) from None
    # a negated class already takes the wildcard byte (it is none of its ASCII characters)
    return "[^" + "".join(parts) + "]" if negated else "[" + "".join(parts) + WILDCARD + "]"


def _reversed(items) -> str:
    out = []
    for op, av in reversed(list(items)):
        if op is sre.LITERAL:
            out.append("[" + _char(av) + WILDCARD + "]")
        elif op is sre.NOT_LITERAL:
            out.append("[^" + _char(av) + "]")
        elif op is sre.IN:
            out.append(_class(av))
        elif op is sre.ANY:
            out.append(r"[\s\S]")
        elif op in _REPEATS:
            low, high, sub = av
            bounds = f"{{{low},}}" if high == sre.MAXREPEAT else f"{{{low},{high}}}"
            out.append("(?:" + _reversed(sub) + ")" + bounds)
        elif op is sre.SUBPATTERN:
            _group, add, remove, sub = av
            opening = "(?i:" if add & re.IGNORECASE else "(?-i:" if remove & re.IGNORECASE else "(?:"
            out.append(opening + _reversed(sub) + ")")
        elif op is sre.BRANCH:
            out.append("(?:" + "|".join(_reversed(branch) for branch in av[1]) + ")")
        elif op in _DROPPED:
            continue                     # lookarounds and anchors: dropping them only widens
        elif op is getattr(sre, "ATOMIC_GROUP", None):
            out.append("(?:" + _reversed(av) + ")")
        else:                            # back-references and the like
            raise Unsupported(str(op))
    return "".join(out)


def reversed_pattern(pattern: str, flags: int = 0) -> tuple[str, bool]:
    """(``pattern`` read backwards for Hyperscan, whether it ignores case): every reversed match
    of ``pattern`` is a match of it (see the module docstring). Raises :class:`Unsupported`."""
    tree = sre_parse.parse(pattern, flags)
    if tree.getwidth()[0] == 0:
        raise Unsupported("it can match the empty string")
    return _reversed(tree), bool(tree.state.flags & re.IGNORECASE)


_patterns: list[tuple[str, int]] = []
_databases: dict[int, object] = {}     # template id -> its compiled reversed database, or None
_lock = threading.Lock()
_last: list = [None, None]             # the last text asked about, and its reversed bytes
_starts: dict[int, list[int]] = {}     # its starts, by template


def register(pattern: str, flags: int) -> int:
    """The id of a template's pattern, by which :func:`starts` answers for it."""
    _patterns.append((pattern, flags))
    return len(_patterns) - 1


def _database(template_id: int):
    if template_id not in _databases:
        database = None
        try:
            expression, caseless = reversed_pattern(*_patterns[template_id])
            database = hyperscan.Database()
            database.compile(expressions=[expression.encode("ascii")], ids=[template_id],
                             flags=[hyperscan.HS_FLAG_PREFILTER | hyperscan.HS_FLAG_ALLOWEMPTY
                                    | (hyperscan.HS_FLAG_CASELESS if caseless else 0)])
        except (Unsupported, hyperscan.error, re.error):
            database = None
        _databases[template_id] = database
    return _databases[template_id]


def _found(_id, _from, to, _flags, found) -> None:
    found.append(to)


def starts(text: str, template_id: int) -> list[int] | None:
    """Every offset of ``text`` where a match of the template can begin, in order (and some
    where none does), or None where the text is short or the template cannot be scanned so."""
    if hyperscan is None or len(text) < LONG_TEXT:
        return None
    with _lock:
        database = _database(template_id)
        if database is None:
            return None
        if _last[0] is not text:
            _last[0] = text
            _last[1] = _DIFFERENT.sub("\xff", text[::-1]).encode("latin-1")
            _starts.clear()
        if template_id not in _starts:
            ends: list[int] = []
            database.scan(_last[1], match_event_handler=_found, context=ends)
            n = len(text)
            _starts[template_id] = sorted({n - end for end in ends})
        return _starts[template_id]
