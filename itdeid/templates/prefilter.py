"""Which templates can match in a note, from one pass of Hyperscan over it.

Every regular-expression template of features/ (the regex and measure feature groups, the
identifier and 'plain' templates: about a hundred) is a pass of Python's ``re`` over every note,
and together they were over a quarter of a note's tagging time, almost all of it inside the
engine (the same templates over the notes joined into one text take as
long). :mod:`itdeid.templates.guarded` already skips a template in a note that lacks all of its required
literals, but most templates need no literal a note lacks ('-', '19', 'pt').

Hyperscan (Intel's multi-pattern engine, the ``hyperscan`` package) compiles many patterns into
one database and scans a text once for all of them. It cannot run every construct the templates
use (lookbehinds, back-references), but in *prefilter* mode it runs a looser pattern in their
place, so it reports every template that can match in a text, and some that cannot: never
fewer. A template it does not report is skipped; the others run in ``re`` as before. So the
matches are always ``re``'s own, the same with Hyperscan or without (``tests/test_prefilter.py``
compares them on every template of the package); only the time differs.

Where the two engines read a text differently, no text is prefiltered: only ASCII texts, and
none holding the control characters Python's ``\\s`` counts as space and Hyperscan's does not
(vertical tab, the file/group/record/unit separators); a pattern Hyperscan cannot compile, or
one written with other than ASCII or naming a character by its code point, always runs. Without
the package (it has wheels for Linux on x86-64 only), everything runs as before.

The databases are compiled in each process the first time a note is scanned (about a second
for the package's templates on this project's machines, in chunks: one database of all of them
took twice as long to compile), or earlier on a thread of their own
(:func:`compile_in_background`), and a template made after that gets a database of its own at
the next scan.
"""
from __future__ import annotations

import re
import threading
from collections import OrderedDict

try:  # optional: a faster path to the same matches
    import hyperscan
except ImportError:  # pragma: no cover - depends on the platform
    hyperscan = None

#: Patterns a database holds at most (compiling all in one database is slower).
CHUNK = 32
#: An escape naming a character by its code point or name (``\u00b7``, ``\U0002000``,
#: ``\N{...}``): Hyperscan cannot compile it, and a pattern written with one would fail its
#: whole chunk, which is then compiled again pattern by pattern (the one template with them, a
#: range of CJK letters, slowed every process's start). A
#: pattern holding one always runs, as one written with other than ASCII does; a ``\\u`` (a
#: backslash, then u) is taken for one too, which only costs that pattern its prefilter.
_CODE_POINT_ESCAPE = re.compile(r"\\[uUN]")
#: ASCII characters Python's ``\s`` matches and Hyperscan's (PCRE's) may not.
_UNSHARED_SPACE = re.compile("[\x0b\x1c-\x1f]")

_patterns: list[tuple[str, bool]] = []
_databases: list = []        # (database, first id it covers, one past its last)
_failed: set[int] = set()    # ids Hyperscan could not compile: they always run
_compiled_upto = 0
#: One scan at a time: a database's scratch space is its own, and shared by its scans.
_lock = threading.Lock()


def register(pattern: str, ignorecase: bool) -> int:
    """The id of a template's pattern, by which :func:`may_match` answers for it."""
    _patterns.append((pattern, ignorecase))
    return len(_patterns) - 1


def _scanned(text: str) -> tuple[int, frozenset[int]] | None:
    """:func:`_scan` of ``text``, from :data:`_last` when it is the text last scanned and no
    template has been made since."""
    last_text, scanned = _last
    if text is not last_text or _compiled_upto < len(_patterns):
        scanned = _scan(text)
    return scanned


def may_match(text: str, template_id: int) -> bool:
    """False only where the template cannot match in ``text``."""
    scanned = _scanned(text)
    if scanned is None:
        return True
    upto, found = scanned
    return template_id >= upto or template_id in found or template_id in _failed


def which_may_match(text: str, template_ids) -> list[int]:
    """The positions in ``template_ids`` of the templates that may match in ``text``
    (:func:`may_match` of each, from the one scan): a caller with a list of templates calls
    only those, not every template to hear most say no."""
    scanned = _scanned(text)
    if scanned is None:
        return list(range(len(template_ids)))
    upto, found = scanned
    return [k for k, i in enumerate(template_ids) if i in found or i >= upto or i in _failed]


def _flags(ignorecase: bool) -> int:
    return (hyperscan.HS_FLAG_PREFILTER | hyperscan.HS_FLAG_SINGLEMATCH | hyperscan.HS_FLAG_ALLOWEMPTY
            | (hyperscan.HS_FLAG_CASELESS if ignorecase else 0))


def _compile(ids: list[int]) -> None:
    """Databases of the patterns ``ids`` (ASCII patterns that compile; the others fail), in
    chunks of :data:`CHUNK`. A chunk holding a pattern Hyperscan cannot compile fails whole,
    and only then are its patterns compiled one by one to find which (compiling every pattern
    alone first, as a check, was a second compile of every one)."""
    ascii_ids = []
    for i in ids:
        pattern = _patterns[i][0]
        if pattern.isascii() and not _CODE_POINT_ESCAPE.search(pattern):
            ascii_ids.append(i)
        else:
            _failed.add(i)
    for k in range(0, len(ascii_ids), CHUNK):
        chunk = ascii_ids[k:k + CHUNK]
        try:
            _databases.append(_database(chunk))
        except hyperscan.error:
            good = []
            for i in chunk:
                try:
                    _database([i])
                    good.append(i)
                except hyperscan.error:
                    _failed.add(i)
            if good:
                _databases.append(_database(good))


def _database(ids: list[int]):
    """One Hyperscan database of the patterns ``ids`` (``hyperscan.error`` if one fails)."""
    database = hyperscan.Database()
    database.compile(expressions=[_patterns[i][0].encode() for i in ids], ids=ids,
                     flags=[_flags(_patterns[i][1]) for i in ids])
    return database


def _found(id_, _from, _to, _flags, found) -> None:
    found.add(id_)


#: Characters of text whose scans are remembered at most (the oldest are forgotten first): every
#: template of a note asks about it, and a batch's notes are asked about group by group, so a
#: batch's worth is kept; a bound in characters keeps memory flat when a long note is tagged in
#: pieces of half a million characters (:mod:`itdeid.text.pieces`).
REMEMBERED_CHARS = 4_000_000
#: Texts whose scans are remembered at most: a bound in characters alone let short notes pile
#: up, some half a kilobyte each (4 million characters of one-line notes are 57,000 of them;
#). A batch call tags at most 128 files (:mod:`itdeid.batch.engines`).
REMEMBERED_TEXTS = 2048
_remembered: OrderedDict[tuple[str, int], tuple[int, frozenset[int]] | None] = OrderedDict()
_remembered_chars = 0
#: The text last scanned and its scan: a feature group asks about one note's templates one
#: after another, and is answered without a key built and looked up each time (about 135
#: questions a note). A template made since is compiled first, as before.
_last: tuple = (None, None)


def _scan_at(text: str, upto: int) -> tuple[int, frozenset[int]] | None:
    """:func:`_scan` of a text once the databases cover ``upto`` templates, remembered (the key
    is the text, whose hash Python keeps)."""
    global _remembered_chars
    key = (text, upto)
    if key in _remembered:
        return _remembered[key]
    if not text.isascii() or _UNSHARED_SPACE.search(text):
        result = None
    else:
        found: set[int] = set()
        data = text.encode("ascii")
        with _lock:
            for database in _databases:
                database.scan(data, match_event_handler=_found, context=found)
        result = upto, frozenset(found)
    with _lock:
        _remembered[key] = result
        _remembered_chars += len(text)
        while ((_remembered_chars > REMEMBERED_CHARS or len(_remembered) > REMEMBERED_TEXTS)
               and len(_remembered) > 1):
            (old, _upto), _ = _remembered.popitem(last=False)
            _remembered_chars -= len(old)
    return result


def _compile_registered() -> None:
    """Databases of the templates registered since the last compile, if any."""
    global _compiled_upto
    if _compiled_upto < len(_patterns):
        with _lock:
            if _compiled_upto < len(_patterns):
                upto = len(_patterns)
                _compile(list(range(_compiled_upto, upto)))
                _compiled_upto = upto


def compile_in_background() -> threading.Thread | None:
    """Start compiling the templates registered so far on a thread of its own, and return it
    (None without Hyperscan). Hyperscan releases the interpreter's lock while it compiles, so a
    process that registers its templates early compiles them while it goes on loading
    (:mod:`itdeid.estimators.warm_start`: about a second of compiling beside about a second of importing
    scikit-learn and xgboost). A scan meanwhile waits for the compile."""
    if hyperscan is None:
        return None
    thread = threading.Thread(target=_compile_registered, name="itdeid-prefilter-compile", daemon=True)
    thread.start()
    return thread


def _scan(text: str) -> tuple[int, frozenset[int]] | None:
    """(how many templates the databases cover, the ids of those that may match in ``text``),
    or None where the text is not prefiltered."""
    if hyperscan is None:
        return None
    _compile_registered()
    # a template registered after this scan has an id past ``upto``: may_match runs it
    global _last
    scanned = _scan_at(text, _compiled_upto)
    _last = (text, scanned)
    return scanned
