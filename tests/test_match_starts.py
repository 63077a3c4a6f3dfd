"""In a long text a template runs only where itdeid.templates.match_starts says a match can begin (issue I):
every template of the package finds there the same matches as ``finditer`` over the whole text."""
import re

import pytest

from itdeid.templates import match_starts
from itdeid.templates.guarded import Template

from test_prefilter import _templates, _texts

hyperscan = pytest.importorskip("hyperscan", reason="the reversed scan is optional (Linux x86-64 wheels)")


def _long_texts() -> list[str]:
    """The test corpora joined into texts past LONG_TEXT: as written, in capitals, and with
    characters the two engines read differently spread through them."""
    joined = "\n\n".join(_texts())
    while len(joined) < match_starts.LONG_TEXT:
        joined += "\n\n" + joined
    odd = joined.replace("e", "\u00e9", 50).replace(" ", "\x1e", 30).replace("a", "\u212a", 20)
    return [joined, joined.upper(), odd]


def _whole(t: Template, text: str, group="phi"):
    name = group if group in t.groupindex else 0
    return [(m.span(), m.span(name)) for m in t.regex.finditer(text)]


def test_every_template_finds_in_a_long_text_what_finditer_finds():
    templates = _templates()
    scanned = 0
    for text in _long_texts():
        for t in templates:
            if match_starts.starts(text, t.starts_id) is not None:
                scanned += 1
            assert t.matches(text, group="phi") == _whole(t, text), t.regex.pattern[:80]
    assert scanned > 0.9 * 3 * len(templates)        # nearly all go by their starts


@pytest.mark.parametrize("pattern, flags", [
    (r"(?<![\w/])(\d{1,2})/\1", 0),          # a back-reference: not reversible
    (r"(?:x)?\d*", 0),                       # can match the empty string
])
def test_a_template_that_cannot_be_reversed_is_scanned_as_before(pattern, flags):
    t = Template(pattern, flags)
    text = ("seen 3/3 and 4/5, x12 " * 20_000)
    assert match_starts.starts(text, t.starts_id) is None
    assert t.matches(text) == _whole(t, text)


def test_a_short_text_keeps_the_forward_path():
    t = Template(r"(?<!\d)\d{3}-\d{4}(?!\d)")
    assert match_starts.starts("call 555-1234", t.starts_id) is None


def test_the_reversed_pattern_reads_backwards():
    expression, caseless = match_starts.reversed_pattern(r"(?i)(?<!\w)ab[0-9]+(?=\s)")
    assert caseless and re.fullmatch(expression.replace("\\xff", ""), "12ba")


def test_matches_that_touch_are_all_found():
    """finditer goes on from the end of the last match: one may begin right there."""
    t = Template(r"(?<![A-Z])[A-Z]{2}|[A-Z]{2}")
    text = "ABCDEF gh " * 30_000
    assert match_starts.starts(text, t.starts_id) is not None
    assert t.matches(text) == _whole(t, text) and len(t.matches(text)) == 90_000
