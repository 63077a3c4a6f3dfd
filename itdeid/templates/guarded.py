"""Templates compiled with a first-character guard and a literal filter: the same matches, faster.

Every regular-expression template of features/ (regex.json, measures.json, clock_times.json,
identifiers.json) is matched over the whole text of every note, about eighty passes a note, and
together they were a quarter of the tagging time. Most templates begin with a
lookbehind, ``(?<![\\w./])\\d+...``, so that a number is not matched inside another. Python's
``re`` engine cannot skip ahead over such a pattern: it has no literal or character set to look
for, so at every position of the note it runs the lookbehind, which succeeds almost everywhere,
and then tries the pattern's first alternatives one by one.

:func:`compile_template` puts a lookahead of the characters a match can begin with in front,
``(?=[\\d])(?<![\\w./])\\d+...``: at a position where no match can begin (most of them) the
engine fails at once. The set is read off the parsed pattern (:func:`first_characters`); where it
cannot be read (a pattern that can match the empty string, one that begins with any character or
a negated set), the template is compiled as written. A lookahead consumes nothing and the set
holds every character a match can begin with, so the matches are the same: tests/test_guarded.py
checks it on every template of the package.

Many templates also name the words that announce what they match ('serial', 'health plan',
'account'); most notes hold none of them, yet the pattern was run over each. A :class:`Template`
reads off the pattern the literal strings one of which every match must contain
(:func:`required_literals`) and runs the pattern only over a note that holds one of them, a
substring search in C. A case-insensitive template looks in the lower-cased note, and only in
an ASCII note (there ``str.lower`` and the regular expression fold case alike); any other note
is matched as it is.

A lookahead guard still leaves the engine to step through every position of the note in
Python's matching loop, and a note is scanned once a template. ``re`` skips ahead in a fast C
loop only when a pattern *begins* with a character set it consumes. So a template whose guard
holds no letter (digits, punctuation: characters most positions of a note lack) is also written
in a *skipping form* (:func:`skipping_form`): the guard consumed, then a one-character
lookbehind that runs the whole template from that character, its match captured in a group.
The engine then tries the template only where the guard's characters are, and
:meth:`Template.spans` keeps those matches as ``finditer`` would have found them (each begins at
or after the end of the last one kept), the same spans in much less time on the
digit-led templates. A template guarded by letters keeps the lookahead form: letters are
everywhere, and there the lookbehind costs more than it saves; unless every match begins with
the same word of two or more letters ('to', 'serial'), which its skipping form then consumes,
since ``re`` looks for a word it must begin with by a fast search of its own .

A case-insensitive template (most of them) pays for it at every branch: ``re`` rejects an
alternative at a glance only when it begins with a plain literal, and under IGNORECASE its
literals are not plain, so at every word start it enters each of a long alternation's branches
('a value after a measurement's label' names fifty-odd labels). In an ASCII note whose lower
case the caller has, :meth:`Template.matches` runs a *folded form* instead (:func:`folded_form`):
the template compiled without IGNORECASE, over the lower-cased note. Lowering an ASCII text
keeps every offset, and a pattern that names no capital letter and never turns IGNORECASE off
inside matches there exactly what it matches case-insensitively in the text: the same offsets,
and the case-insensitive templates that qualify run faster so. ``finditer`` keeps the pattern as compiled: its matches hand out the note's own text.

In a long text (a piece of a long note) :meth:`Template.matches` runs the pattern only at the
offsets where :mod:`itdeid.templates.match_starts` says a match can begin, the same matches again. A
template that keeps to a line (:mod:`itdeid.templates.line_bound`) can be run over chosen lines alone
(:meth:`Template.matches_in_lines`), with the matches the whole text's scan finds in them.
"""
from __future__ import annotations

import re
import string
from functools import cached_property, lru_cache
from typing import Sequence
from re import _constants as sre  # noqa: the parser's op codes; stable since Python 3.11
from re import _parser as sre_parse

from itdeid.templates import match_starts

from itdeid.templates import prefilter
from itdeid.templates.line_bound import keeps_to_line
from itdeid.templates.pattern_parts import Unwritable, class_items

#: Zero-width items, skipped when looking for the first character (skipping one only widens the set).
_ZERO_WIDTH = (sre.AT, sre.ASSERT, sre.ASSERT_NOT)


class _Unknown(Exception):
    """The first characters cannot be written as one character class."""


def _char(code: int) -> str:
    return re.escape(chr(code)) if chr(code) not in "-]\\^" else "\\" + chr(code)


def _class_items(items) -> list[str]:
    try:
        parts, negated = class_items(items, _char)
    except Unwritable:                          # RANGE_UNI_IGNORE, ...: give up
        raise _Unknown from None
    if negated:                                 # a negated class has no first characters to list
        raise _Unknown
    return parts


def _first(items, i: int = 0) -> tuple[list[str], bool]:
    """(class items, nullable): the characters a match of ``items[i:]`` can begin with, and
    whether it can match the empty string."""
    chars: list[str] = []
    for op, av in list(items)[i:]:
        if op in _ZERO_WIDTH:
            continue
        if op is sre.LITERAL:
            return chars + [_char(av)], False
        if op is sre.IN:
            return chars + _class_items(av), False
        if op is sre.SUBPATTERN:
            sub, nullable = _first(av[3])
        elif op is sre.BRANCH:
            sub, nullable = [], False
            for branch in av[1]:
                part, empty = _first(branch)
                sub += part
                nullable = nullable or empty
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT, getattr(sre, "POSSESSIVE_REPEAT", None)):
            sub, nullable = _first(av[2])
            nullable = nullable or av[0] == 0
        elif op is getattr(sre, "ATOMIC_GROUP", None):
            sub, nullable = _first(av)
        else:                                   # ANY, GROUPREF, NOT_LITERAL, ...: give up
            raise _Unknown
        chars += sub
        if not nullable:
            return chars, False
    return chars, True


@lru_cache(maxsize=None)
def first_characters(pattern: str, flags: int = 0) -> str | None:
    """A character class (``[...]``) holding every character a match of ``pattern`` can begin
    with, or None when there is none to write (see the module docstring). Kept per pattern: a
    :class:`Template` asks twice, for its guard and for its skipping form."""
    try:
        chars, nullable = _first(sre_parse.parse(pattern, flags))
    except _Unknown:
        return None
    if nullable or not chars:
        return None
    return "[" + "".join(dict.fromkeys(chars)) + "]"


def compile_template(pattern: str, flags: int = 0) -> re.Pattern:
    """``pattern`` compiled with its first-character guard in front (the same matches)."""
    guard = first_characters(pattern, flags)
    return re.compile(pattern if guard is None else f"(?={guard}){pattern}", flags)


#: The group of a skipping form that holds the template's match.
WHOLE = "_itdeid_whole"


def skipping_form(pattern: str, flags: int = 0) -> re.Pattern | None:
    """``pattern`` written to begin with its first characters consumed (see the module), or
    None where that does not pay or cannot be written: no guard, a guard with a letter, a
    reference to a numbered group (the form's own group comes first), or a global inline flag.
    A pattern whose every match begins with the same word of two or more characters ('to',
    'age') consumes that word instead, whatever its letters: ``re`` then looks for the word
    in C, where a letter guard left it to try every position."""
    if re.search(r"\\[1-9]|\(\?\(", pattern):
        return None
    lead = "" if flags & re.IGNORECASE else _literal_lead(sre_parse.parse(pattern, flags))
    if len(lead) >= 2:      # a word every match begins with: re looks for it in C
        return _compiled_or_none(f"{re.escape(lead)}(?<=(?=(?P<{WHOLE}>{pattern}))[\\s\\S]{{{len(lead)}}})", flags)
    guard = first_characters(pattern, flags)
    if guard is None or any(re.fullmatch(guard, c, flags) for c in string.ascii_letters):
        return None
    return _compiled_or_none(f"{guard}(?<=(?=(?P<{WHOLE}>{pattern}))[\\s\\S])", flags)


def _compiled_or_none(pattern: str, flags: int) -> re.Pattern | None:
    try:
        return re.compile(pattern, flags)
    except re.error:
        return None


def _literal_lead(items) -> str:
    """The characters every match of a parsed pattern begins with, as far as they are plain
    literals in a row (zero-width items before them skipped, a leading group entered): 'to' of
    ``(?<![\\w'-])to(?:...)``."""
    lead = ""
    for op, av in items:
        if op in _ZERO_WIDTH and not lead:
            continue
        if op is sre.LITERAL:
            lead += chr(av)
            continue
        if op is sre.SUBPATTERN and not lead and not av[1] & re.IGNORECASE:
            return _literal_lead(av[3])
        break
    return lead


#: Items whose parts are walked by :func:`_names_no_capital`: op code -> its parts.
_NESTED = {sre.BRANCH: lambda av: av[1], sre.MAX_REPEAT: lambda av: [av[2]], sre.MIN_REPEAT: lambda av: [av[2]],
           sre.ASSERT: lambda av: [av[1]], sre.ASSERT_NOT: lambda av: [av[1]]}
if hasattr(sre, "POSSESSIVE_REPEAT"):
    _NESTED[sre.POSSESSIVE_REPEAT] = lambda av: [av[2]]
if hasattr(sre, "ATOMIC_GROUP"):
    _NESTED[sre.ATOMIC_GROUP] = lambda av: [av]


def _capital(code: int) -> bool:
    return 65 <= code <= 90


def _names_no_capital(items) -> bool:
    """Whether a parsed pattern names no capital letter (a literal, a class's letter or range)
    and holds nothing whose case a lower-cased text would change: no back-reference, no group
    that turns IGNORECASE off. Anything not known here answers False."""
    for op, av in items:
        if op in (sre.LITERAL, sre.NOT_LITERAL):
            if _capital(av):
                return False
        elif op is sre.IN:
            for item, arg in av:
                if (item is sre.LITERAL and _capital(arg)) or (item is sre.RANGE and arg[0] <= 90 and arg[1] >= 65):
                    return False
                if item not in (sre.LITERAL, sre.RANGE, sre.CATEGORY, sre.NEGATE):
                    return False
        elif op is sre.SUBPATTERN:
            if av[2] & sre.SRE_FLAG_IGNORECASE or not _names_no_capital(av[3]):
                return False
        elif op in _NESTED:
            if not all(_names_no_capital(part) for part in _NESTED[op](av)):
                return False
        elif op not in (sre.AT, sre.ANY):
            return False
    return True


def folded_form(pattern: str, flags: int = 0) -> tuple[re.Pattern, re.Pattern | None] | None:
    """A case-insensitive ``pattern`` compiled without IGNORECASE, guarded and in its skipping
    form where it has one, for the lower case of an ASCII text (see the module docstring); None
    where that would not match the same: a pattern that is case-sensitive, holds other than
    ASCII or names a capital letter."""
    if not flags & re.IGNORECASE or not pattern.isascii():
        return None
    if not _names_no_capital(sre_parse.parse(pattern, flags)):
        return None
    plain = flags & ~re.IGNORECASE
    return compile_template(pattern, plain), skipping_form(pattern, plain)


#: The most strings an exactly known run (:func:`_exact`) is spelled out into.
_MAX_EXACT = 64


def _exact(op, av, icase: bool) -> frozenset[str] | None:
    """The strings one item matches when they are few and known exactly ('com', 'org' of
    ``(?:com|org)``), else None."""
    if op is sre.LITERAL:
        return frozenset([chr(av).lower() if icase else chr(av)])
    if op is sre.IN and len(av) == 1 and av[0][0] is sre.LITERAL:
        return frozenset([chr(av[0][1]).lower() if icase else chr(av[0][1])])
    if op is sre.SUBPATTERN:
        return _exact_sequence(av[3], icase)
    if op is sre.BRANCH:
        branches = [_exact_sequence(b, icase) for b in av[1]]
        if all(b is not None for b in branches):
            union = frozenset().union(*branches)
            return union if len(union) <= _MAX_EXACT else None
    return None


def _exact_sequence(items, icase: bool) -> frozenset[str] | None:
    out = frozenset([""])
    for op, av in items:
        each = _exact(op, av, icase)
        if each is None or len(out) * len(each) > _MAX_EXACT:
            return None
        out = frozenset(a + b for a in out for b in each)
    return out


def _required(items, icase: bool) -> frozenset[str] | None:
    """Strings one of which every match of ``items`` contains, or None: the most selective of
    the sequence's literal runs and of its groups' own requirements. A run of items whose
    strings are few and known exactly is spelled out whole ('com/' and 'org/' of
    ``(?:com|org)/``, not 'com' and 'org', which most notes hold inside other words)."""
    found: list[frozenset[str]] = []
    run = frozenset([""])

    def close_run():
        nonlocal run
        if run != frozenset([""]):
            found.append(run)
            run = frozenset([""])

    for op, av in items:
        each = _exact(op, av, icase)
        if each is not None and "" not in each and len(run) * len(each) <= _MAX_EXACT:
            run = frozenset(a + b for a in run for b in each)
            continue
        close_run()
        if each is not None and "" not in each:    # too many to spell out with the run before
            run = each
            continue
        need = None
        if op is sre.SUBPATTERN:
            need = _required(av[3], icase)
        elif op is sre.BRANCH:
            branches = [_required(b, icase) for b in av[1]]
            if all(b is not None for b in branches):
                need = frozenset().union(*branches)
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT, getattr(sre, "POSSESSIVE_REPEAT", None)) and av[0] >= 1:
            need = _required(av[2], icase)
        if need is not None:
            found.append(need)
    close_run()
    if not found:
        return None
    return max(found, key=lambda need: (min(map(len, need)), -len(need)))


def required_literals(pattern: str, flags: int = 0) -> tuple[str, ...] | None:
    """Strings one of which every match of ``pattern`` contains (lower case when ``flags`` has
    IGNORECASE), or None when there are none to name or one is not ASCII."""
    need = _required(sre_parse.parse(pattern, flags), bool(flags & re.IGNORECASE))
    if not need or not all(x and x.isascii() for x in need):
        return None
    return tuple(sorted(need))


class Template:
    """A template compiled with its guard (:func:`compile_template`), in its skipping form
    where it has one (:func:`skipping_form`) and in its folded form for a lower-cased ASCII
    text where it has one (:func:`folded_form`), run only over a text that holds one of its
    :func:`required_literals`; ``finditer`` and ``groupindex`` as a compiled pattern's, and
    :meth:`spans`, the fast way to the same matches' offsets."""

    def __init__(self, pattern: str, flags: int = 0):
        self.pattern, self.flags = pattern, flags
        self.folded = folded_form(pattern, flags)
        self.groupindex = (self.folded[0] if self.folded else self.regex).groupindex
        self.needs = required_literals(pattern, flags)
        self.ignorecase = bool(flags & re.IGNORECASE)
        self.prefilter_id = prefilter.register(pattern, self.ignorecase)
        self.starts_id = match_starts.register(pattern, flags)

    @cached_property
    def regex(self) -> re.Pattern:
        """The template guarded, compiled on first use: where it has a folded form, an ASCII
        note never asks for it (two compiles of each template were a tenth of a second more
        start-up)."""
        return compile_template(self.pattern, self.flags)

    @cached_property
    def skipping(self) -> re.Pattern | None:
        """The skipping form, compiled on first use (as :attr:`regex`)."""
        return skipping_form(self.pattern, self.flags)

    def can_match(self, text: str, lowered: str | None = None) -> bool:
        """False only where no match can be: Hyperscan's pass over the text found none
        (:mod:`itdeid.templates.prefilter`), or the text lacks every required literal.
        ``lowered``: ``text.lower()``, when the caller has it."""
        if not prefilter.may_match(text, self.prefilter_id):
            return False
        if self.needs is None or not text.isascii():
            return True
        if self.ignorecase:
            text = text.lower() if lowered is None else lowered
        return any(need in text for need in self.needs)

    def finditer(self, text: str, lowered: str | None = None):
        """The matches of the template in ``text``, as ``re.Pattern.finditer`` gives them."""
        return self.regex.finditer(text) if self.can_match(text, lowered) else iter(())

    def spans(self, text: str, lowered: str | None = None, group: str | None = None) -> list[tuple[int, int]]:
        """The (start, end) of each match :meth:`finditer` finds, or of its group ``group``
        where the template has that group."""
        return [part for _whole, part in self.matches(text, lowered, group)]

    def matches(self, text: str, lowered: str | None = None,
                group: str | None = None) -> list[tuple[tuple[int, int], tuple[int, int]]]:
        """(whole match, group ``group``) offsets of each match :meth:`finditer` finds; the
        group is the whole match where the template lacks it."""
        if not self.can_match(text, lowered):
            return []
        name = group if group in self.groupindex else 0
        starts = match_starts.starts(text, self.starts_id)
        if starts is not None:                    # a long text: re only where a match can begin
            found, end = [], -1
            for start in starts:
                if start >= end and (m := self.regex.match(text, start)):
                    found.append((m.span(), m.span(name)))
                    end = m.end()
            return found
        return self._found(text, lowered, name, 0, len(text))

    @cached_property
    def line_bound(self) -> bool:
        """Whether no part of the template can match a line end (:mod:`itdeid.templates.line_bound`):
        then :meth:`matches_in_lines` finds in a line what the whole text's scan finds there."""
        return keeps_to_line(self.pattern, self.flags)

    def matches_in_lines(self, text: str, lines, lowered: str | None = None,
                         group: str | None = None) -> list[tuple[tuple[int, int], tuple[int, int]]]:
        """:meth:`matches` that begin in ``lines`` ((start, end) of lines of ``text``, in
        order, ``end`` at its line end or the text's end), scanning those lines alone; only
        for a :attr:`line_bound` template."""
        if not self.line_bound:
            raise ValueError("matches_in_lines needs a template that keeps to a line")
        if not self.can_match(text, lowered):
            return []
        name = group if group in self.groupindex else 0
        found = []
        for start, end in lines:    # up to just after the line end: lookaheads see it there
            found += [m for m in self._found(text, lowered, name, start, min(end + 1, len(text)))
                      if m[0][0] <= end]
        return found

    def _found(self, text: str, lowered: str | None, name, pos: int, endpos: int):
        """(whole match, group ``name``) of the matches ``finditer`` finds from ``pos`` to
        ``endpos`` (the skipping form's, kept as finditer keeps them)."""
        if self.folded is not None and lowered is not None and text.isascii():
            (regex, skipping), text = self.folded, lowered   # the same offsets in the lower case
        else:
            regex, skipping = self.regex, self.skipping
        if skipping is None:
            return [(m.span(), m.span(name)) for m in regex.finditer(text, pos, endpos)]
        found, end = [], -1
        for m in skipping.finditer(text, pos, endpos):   # a match at each guard character it begins at
            whole = m.span(WHOLE)
            if whole[0] >= end:                   # finditer goes on from the end of the last one
                found.append((whole, m.span(name) if name else whole))
                end = whole[1]
        return found


def may_match(templates: Sequence[Template], text: str) -> list[int]:
    """The positions in ``templates`` of those that may match in ``text`` by the prefilter's
    scan of it (:func:`itdeid.templates.prefilter.which_may_match`); the others would find nothing. A
    note asked some 130 templates one by one, most of them to hear no, a few Python calls each
   ."""
    return prefilter.which_may_match(text, may_match_ids(templates))


def may_match_ids(templates: Sequence[Template]) -> tuple[int, ...]:
    """The prefilter ids of ``templates``, for a caller that keeps them with its list and asks
    :func:`itdeid.templates.prefilter.which_may_match` itself."""
    return tuple(t.prefilter_id for t in templates)


def lowered_ascii(text: str) -> str | None:
    """``text.lower()`` for an ASCII text (what :meth:`Template.finditer` looks in), else None;
    computed once by a caller that runs many templates over one text."""
    return text.lower() if text.isascii() else None
