"""Hyperscan's prefilter (itdeid.templates.prefilter, issue I) may skip a template in a note only where the
template cannot match there: every template of the package, on every note of the test corpora,
finds the same matches with it as without it."""
import re
from pathlib import Path

import pytest

from itdeid.templates import prefilter
from itdeid.featurize import regex_templates
from itdeid.featurize.measures import clock_templates
from itdeid.formats import read_corpus
from itdeid.templates.guarded import Template
from itdeid.passes.identifiers import identifier_templates, plain_templates
from itdeid.featurize.measures import measure_templates
from itdeid.synth import generate

from helpers import tiny_corpus
from hipaa_kinds import hipaa_corpus

REPO = Path(__file__).resolve().parent.parent
hyperscan = pytest.importorskip("hyperscan", reason="the prefilter is optional (Linux x86-64 wheels)")


def _templates() -> list[Template]:
    return ([t for _kind, _cls, t, _label in identifier_templates()] + [t for _kind, t in plain_templates()]
            + [t for ts in regex_templates().values() for t in ts] + list(measure_templates())
            + list(clock_templates()))


def _texts() -> list[str]:
    docs = hipaa_corpus()[0] + tiny_corpus(40, seed=4) + generate(40, seed=5, nursing=0.5)
    docs += read_corpus(REPO / "experiments" / "heldout" / "handwritten-discharge.xml")
    texts = [d.text for d in docs]
    # the shapes near the templates' edges: words in capitals, lower case, numbers glued on
    texts += [t.upper() for t in texts[:40]] + [t.lower() for t in texts[:40]]
    return texts


def test_every_template_finds_the_same_matches_with_the_prefilter():
    templates, texts = _templates(), _texts()
    assert len(templates) > 90
    skipped = 0
    for text in texts:
        for t in templates:
            if not prefilter.may_match(text, t.prefilter_id):
                skipped += 1
                assert not list(t.regex.finditer(text)), (t.regex.pattern[:80], text[:40])
    assert skipped > len(texts) * len(templates) // 2       # it does skip most


def test_texts_the_engines_read_differently_are_not_prefiltered():
    """Python's \\s takes the record separator and the vertical tab as space; only ASCII is scanned."""
    t = Template(r"(?<!\d)\d{3}\s\d{4}(?!\d)")
    for text in ("call 555\x1e1234", "call 555\x0b1234", "call ５５５ 1234 or 555\u00a01234"):
        assert prefilter.may_match(text, t.prefilter_id)
        assert [m.span() for m in t.regex.finditer(text)] == [m.span() for m in t.finditer(text)] != []


def test_a_template_made_after_a_scan_is_not_skipped():
    text = "MRN 5551234 seen today"
    prefilter.may_match(text, 0)                     # the databases are compiled and the text scanned
    late = Template(r"seen\s+today")
    assert late.spans(text) == [(12, 22)]


def test_a_pattern_hyperscan_cannot_compile_always_runs():
    t = Template(r"x\Ay|xy")                            # an embedded start anchor: Python's re only
    assert t.spans("xy") == [(0, 2)]
    assert prefilter.hyperscan is None or t.prefilter_id in prefilter._failed


def test_a_pattern_hyperscan_cannot_compile_leaves_the_others_of_its_chunk_prefiltered():
    """Patterns compile in chunks; one that fails sends its chunk one by one, and only it runs
    always."""
    if prefilter.hyperscan is None:
        pytest.skip("hyperscan is not installed here")
    bad = Template(r"x\Ay|xy")                    # an embedded start anchor: Python's re only
    good = Template(r"zebra\d+")
    text = "no stripes here"
    assert not prefilter.may_match(text, good.prefilter_id)
    assert prefilter.may_match(text, bad.prefilter_id) and bad.prefilter_id in prefilter._failed
    assert good.prefilter_id not in prefilter._failed
    assert good.spans("zebra12") == [(0, 7)] and bad.spans("xy") == [(0, 2)]


def test_a_pattern_naming_a_code_point_always_runs_without_failing_its_chunk(monkeypatch):
    """Hyperscan cannot compile \\u, \\U or \\N{...}: such a pattern is left out before any
    compile, so its chunk compiles once, not again pattern by pattern (issue I, session 43)."""
    if prefilter.hyperscan is None:
        pytest.skip("hyperscan is not installed here")
    prefilter.may_match("warm", 0)                       # the package's templates compiled first
    compiled = []
    database = prefilter._database
    monkeypatch.setattr(prefilter, "_database", lambda ids: compiled.append(list(ids)) or database(ids))
    named = [Template(r"x[\u0079]"), Template(r"q\U0001F600"), Template(r"w\N{BULLET}")]
    good = Template(r"zebra\d+")
    text = "no stripes here"
    assert not prefilter.may_match(text, good.prefilter_id)
    assert compiled == [[good.prefilter_id]]
    for t in named:
        assert prefilter.may_match(text, t.prefilter_id) and t.prefilter_id in prefilter._failed
    assert named[0].spans("xy") == [(0, 2)] and named[2].spans("w\u2022") == [(0, 2)]


def test_remembered_scans_are_bounded_in_characters(monkeypatch):
    """A long note is tagged in pieces of half a million characters: the scans remembered for
    the templates' sake must not keep them all alive."""
    monkeypatch.setattr(prefilter, "REMEMBERED_CHARS", 1000)
    t = Template(r"(?<!\d)\d{3}-\d{4}(?!\d)")
    for k in range(20):
        text = f"piece {k} call 555-{1000 + k} " + "x" * 300
        assert t.spans(text) == [(text.index("555"), text.index("555") + 8)]
    assert sum(len(text) for text, _upto in prefilter._remembered) <= 1000


def test_remembered_scans_are_bounded_in_texts(monkeypatch):
    """Short notes piled up under the bound in characters (4 million characters of one-line
    notes held some 57,000 scans): the texts are bounded too."""
    monkeypatch.setattr(prefilter, "REMEMBERED_TEXTS", 5)
    t = Template(r"(?<!\d)\d{3}-\d{4}(?!\d)")
    for k in range(20):
        text = f"note {k} call 555-{1000 + k}"
        assert t.spans(text) == [(text.index("555"), text.index("555") + 8)]
    assert 1 <= len(prefilter._remembered) <= 5
    assert ("note 19 call 555-1019", prefilter._compiled_upto) in prefilter._remembered


def test_which_may_match_answers_as_may_match_does_for_each():
    """A caller with a list of templates asks once which may match; the answer must be
    may_match's for every one of them, in order (else a template would be skipped wrongly)."""
    from itdeid.passes.identifiers import identifier_templates, plain_templates
    templates = ([p for _k, _c, p, _l in identifier_templates()] + [p for _k, p in plain_templates()]
                 + [Template(r"(?<=x)\d{3}"), Template("caf\u00e9 \\d+")])
    ids = [t.prefilter_id for t in templates]
    for text in ("MRN: 4452198, seen 3/4/2090 at 2000 by Dr. Lee", "call 555-1234 ext 12",
                 "nothing to see here", "x123 and caf\u00e9 12", "tab\x0bhere 555-1234", ""):
        expected = [k for k, i in enumerate(ids) if prefilter.may_match(text, i)]
        assert prefilter.which_may_match(text, ids) == expected
        assert prefilter.which_may_match(text, list(reversed(ids))) == [
            len(ids) - 1 - k for k in reversed(expected)]


def test_templates_compiled_on_a_thread_answer_as_when_compiled_at_a_scan():
    """compile_in_background compiles what is registered; a scan meanwhile waits for it, and
    the answers are those of a compile at the scan (issue I, session 43)."""
    if prefilter.hyperscan is None:
        assert prefilter.compile_in_background() is None
        return
    made = [Template(r"okapi\d{3}"), Template(r"(?<!\w)tapir(?!\w)", re.IGNORECASE)]
    thread = prefilter.compile_in_background()
    answers = [prefilter.may_match(text, t.prefilter_id) for text in ("an okapi123", "TAPIR here", "none")
               for t in made]
    thread.join()
    assert prefilter._compiled_upto == len(prefilter._patterns)
    assert answers == [True, False, False, True, False, False]
