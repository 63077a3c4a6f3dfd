"""A template that keeps to a line (itdeid.templates.line_bound) finds in a line, scanned alone, what the
scan of the whole text finds there: every shipped template that keeps to a line, on the texts
tests/test_guarded.py checks the guards on; and apply_identifiers' plain step, which scans only
the lines that hold a tag, clears what the whole note's scan clears."""
import re

import numpy as np
import pytest

from itdeid.passes import identifiers
from itdeid.templates.guarded import Template, lowered_ascii
from itdeid.templates.line_bound import keeps_to_line
from test_guarded import TEMPLATES, TEXTS


@pytest.mark.parametrize("pattern,flags,keeps", [
    (r"(?<![\w/])\d+[ \t]*(?:mg|ml)(?!\w)", re.IGNORECASE, True),
    (r"(?<!\w)to\b[^\n]{0,5}x", 0, True), (r"a.b", 0, True), (r"(?s)a.b", 0, False),
    (r"\d+\s*mg", 0, False),                # \s holds the line end
    (r"\d+(?=\s*mg)", 0, False),            # so does a lookahead's
    (r"[^x]y", 0, False), (r"\Dy", 0, False), (r"\w+$", 0, False), (r"\w+\Z", 0, False),
    (r"(\d)-\1", 0, False),                 # a back-reference: not judged
    (r"^\d+", 0, True), (r"(?m)^\d+", 0, False), (r"a\nb", 0, False)])
def test_what_keeps_to_a_line(pattern, flags, keeps):
    assert keeps_to_line(pattern, flags) is keeps


def _lines(text):
    lines, pos = [], 0
    for line in text.split("\n"):
        lines.append((pos, pos + len(line)))
        pos += len(line) + 1
    return lines


BOUND = [(p, f) for p, f in TEMPLATES if keeps_to_line(p, f)]


def test_most_shipped_plain_templates_keep_to_a_line():
    plain = identifiers.plain_templates()
    assert sum(t.line_bound for _kind, t in plain) >= 0.8 * len(plain)


@pytest.mark.parametrize("pattern,flags", BOUND, ids=[f"template{i}" for i in range(len(BOUND))])
def test_a_line_scanned_alone_gives_the_whole_scan_s_matches_in_it(pattern, flags):
    template = Template(pattern, flags)
    for text in TEXTS:
        whole = template.matches(text, lowered_ascii(text))
        lines = _lines(text)
        assert template.matches_in_lines(text, lines, lowered_ascii(text)) == whole
        picked = lines[::2]        # every other line: the whole scan's matches that begin there
        starts = [s for s, _ in picked]
        expected = [m for m in whole if any(a <= m[0][0] <= b for a, b in picked)]
        assert template.matches_in_lines(text, picked, lowered_ascii(text)) == expected, starts


def test_lookarounds_see_across_the_scan_s_bounds_as_in_the_whole_text():
    template = Template(r"(?<![\w/])\d+(?![\d/])")
    text = "abc\n12 x/3\n4"
    lines = _lines(text)
    assert template.matches_in_lines(text, [lines[1]]) == [((4, 6), (4, 6))]   # '3' follows '/'
    assert template.matches_in_lines(text, [lines[2]]) == [((11, 12), (11, 12))]


def test_a_template_that_crosses_lines_is_refused():
    with pytest.raises(ValueError):
        Template(r"\d+\s+mg").matches_in_lines("2\nmg", [(0, 1)])


def test_the_plain_step_clears_what_the_whole_scan_clears():
    text = "HR 72 at 0800\nSpoke with wife\nBP 120/80 SAT 97\nMonday plan to wean"
    starts = np.array([m.start() for m in re.finditer(r"\S+", text)])
    ends = np.array([m.end() for m in re.finditer(r"\S+", text)])
    for tagged in ([1], [1, 8], [13], list(range(len(starts)))):
        codes = np.zeros(len(starts), dtype=np.int64)
        codes[tagged] = 1
        lines = identifiers._tagged_lines(text, identifiers._read(text), starts, codes)
        assert len(lines) == len({text.rfind("\n", 0, starts[k]) for k in tagged})
        cleared = {(a, b) for a, b, _ in identifiers.plain_matches(text, lines=lines)}
        whole = {(a, b) for a, b, _ in identifiers.plain_matches(text)}
        touch = lambda spans: {k for k in tagged for a, b in spans if a < ends[k] and starts[k] < b}  # noqa: E731
        assert touch(cleared) == touch(whole)
