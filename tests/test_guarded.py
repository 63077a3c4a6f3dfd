"""Templates compiled with a first-character guard and run behind a literal filter
(itdeid.templates.guarded) find exactly what the templates as written find: every template the package
ships (the 'plain' templates too), on synthetic records and nursing notes, the HIPAA-kinds
corpus with its distractors, the same texts in upper case and with non-ASCII letters, and
strings made to sit at the guards' edges."""
import random
import re
import string

import pytest

from itdeid.templates.guarded import (Template, compile_template, first_characters, folded_form, lowered_ascii,
                                      required_literals, skipping_form)
from itdeid.resources import load_json
from itdeid.synth import generate
from hipaa_kinds import DISTRACTORS, hipaa_corpus


def _templates():
    found = []
    for cls, templates in load_json("features", "regex.json")["templates"].items():
        found += [(t["pattern"], re.IGNORECASE if "i" in t.get("flags", "") else 0) for t in templates]
    for name in ("measures.json", "clock_times.json"):
        found += [(t["pattern"], re.IGNORECASE) for t in load_json("features", name)["templates"]]
    identifiers = load_json("features", "identifiers.json")
    found += [(t["pattern"], re.IGNORECASE if "i" in t.get("flags", "") else 0)
              for t in identifiers["templates"] + identifiers["plain"]]
    return found


TEMPLATES = _templates()


def _texts():
    rng = random.Random(0)
    texts = [d.text for d in generate(30, seed=3, nursing=0.5)]
    texts += [d.text for d in hipaa_corpus()[0]] + list(DISTRACTORS)
    texts += [t.upper() for t in texts[:40]] + [t.replace("e", "\u00e9").replace("s", "\u017f") for t in texts[:40]]
    # characters the guards and lookbehinds turn on, shuffled into short strings
    alphabet = "0123456789/.-:@'()#% \n\tAaMmPpJjDdXx,~"
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 40))) for _ in range(2000)]
    return texts


TEXTS = _texts()


@pytest.mark.parametrize("pattern,flags", TEMPLATES, ids=[f"template{i}" for i in range(len(TEMPLATES))])
def test_a_guarded_template_finds_what_the_template_finds(pattern, flags):
    plain, guarded = re.compile(pattern, flags), compile_template(pattern, flags)
    assert guarded.groupindex == plain.groupindex
    template = Template(pattern, flags)
    for text in TEXTS:
        expected = [m.span() for m in plain.finditer(text)]
        assert [m.span() for m in guarded.finditer(text)] == expected
        assert [m.span() for m in template.finditer(text)] == expected
        assert [m.span() for m in template.finditer(text, lowered_ascii(text))] == expected
        assert template.spans(text) == expected
        for group in plain.groupindex:   # what a template flags or calls PHI: its named groups
            assert template.spans(text, lowered_ascii(text), group) == [m.span(group) for m in plain.finditer(text)]


def test_every_shipped_template_gets_a_guard():
    """A template whose first characters cannot be read runs unguarded: correct, but slow."""
    assert [p for p, f in TEMPLATES if first_characters(p, f) is None] == []


def test_templates_led_by_digits_or_punctuation_skip_ahead():
    """The skipping form is what makes the digit-led templates fast: every shipped template
    whose guard holds no letter has one, save those that refer back to a numbered group."""
    for pattern, flags in TEMPLATES:
        guard = first_characters(pattern, flags)
        lettered = any(re.fullmatch(guard, c, flags) for c in string.ascii_letters)
        if not lettered and not re.search(r"\\[1-9]", pattern):   # the form compiles: no silent fallback
            assert skipping_form(pattern, flags) is not None, pattern
    assert sum(skipping_form(p, f) is not None for p, f in TEMPLATES) >= 20


@pytest.mark.parametrize("pattern,form", [
    (r"(?<![\w./])\d+/\d+", r"[\d](?<=(?=(?P<_itdeid_whole>(?<![\w./])\d+/\d+))[\s\S])"),
    (r"(?<!\w)[a-z]+\d+", None),                     # led by letters: letters are everywhere
    (r"(?<!\w)serial\s*\d+",                        # led by a word: re looks for the word
     r"serial(?<=(?=(?P<_itdeid_whole>(?<!\w)serial\s*\d+))[\s\S]{6})"),
    (r"(?<!\w)(?P<m>to)\s+\w+", r"to(?<=(?=(?P<_itdeid_whole>(?<!\w)(?P<m>to)\s+\w+))[\s\S]{2})"),
    (r"(?<!\w)(?i:to)\s+\w+", None),                 # its case turned off inside: no plain word
    (r"(\d)-\1", None), (r"(?i)\d+", None)])          # a numbered back-reference; a global flag
def test_skipping_form(pattern, form):
    found = skipping_form(pattern)
    assert (found and found.pattern) == form


def test_a_word_led_form_finds_finditer_s_matches_where_the_word_repeats():
    pattern = r"(?<![a-z])toto[a-z]*"
    template = Template(pattern)
    text = "tototo totox xtoto toto"
    assert template.skipping is not None and template.skipping.pattern.startswith("toto(")
    assert template.spans(text) == [m.span() for m in re.finditer(pattern, text)] == [(0, 6), (7, 12), (19, 23)]


def test_skipped_matches_do_not_overlap_as_finditer_s_do_not():
    template = Template(r"(?<!\d)\d+(?:/\d+)?")
    text = "12/3/45 6 78/9"
    assert template.skipping is not None
    assert template.spans(text) == [m.span() for m in re.finditer(r"(?<!\d)\d+(?:/\d+)?", text)] \
        == [(0, 4), (5, 7), (8, 9), (10, 14)]


@pytest.mark.parametrize("pattern,expected", [
    (r"(?<!\w)\d+", r"[\d]"), (r"(?:ab|c)d", "[ac]"), (r"x?y", "[xy]"), (r"(?P<m>[1-6])/", "[1-6]"),
    (r"\bfoo", "[f]")])
def test_first_characters_of_simple_patterns(pattern, expected):
    assert first_characters(pattern) == expected


@pytest.mark.parametrize("pattern", [r"a*", r".b", r"[^a]b", r"(?:a|.)b", r"(?:x|)"])
def test_no_guard_where_the_first_character_is_open(pattern):
    assert first_characters(pattern) is None
    assert compile_template(pattern).pattern == pattern


@pytest.mark.parametrize("pattern,flags,expected", [
    (r"(?<!\w)(?:serial(?: number)?|s/n)\s*\d+", re.IGNORECASE, ("/n", "erial")),   # the parser takes the common "s" out
    (r"[a-z0-9.]+@[a-z]+", 0, ("@",)), (r"MRN:?\s*\d+", 0, ("MRN",)),
    (r"(?<!\d)\d+(?:/\d+)?", 0, None), (r"(?:ab|c?)d", 0, ("d",)), (r"caf\u00e9", 0, None)])
def test_required_literals(pattern, flags, expected):
    assert required_literals(pattern, flags) == expected


def test_a_note_without_the_literals_is_not_searched():
    template = Template(r"(?<!\w)serial\s*\d+", re.IGNORECASE)
    assert not template.can_match("pt resting, 2/4 bottles")
    assert template.can_match("SERIAL 4411") and [m.group() for m in template.finditer("SERIAL 4411")] == ["SERIAL 4411"]
    assert template.can_match("s\u00e9rial")     # not ASCII: always searched


@pytest.mark.parametrize("pattern,flags", [
    (r"(?<!\w)serial\s*\d+", 0),                        # case-sensitive already
    (r"(?<!\w)[A-Z]\d+", re.IGNORECASE),                 # names capitals
    (r"(?<!\w)MRN\d+", re.IGNORECASE),
    (r"(?<!\w)(?-i:mrn)\d+", re.IGNORECASE),             # case turned back on inside
    (r"(\w)-\1", re.IGNORECASE),                         # a back-reference compares case-insensitively
    ("(?<!\\w)caf\u00e9", re.IGNORECASE)])                # not ASCII
def test_no_folded_form_where_the_lower_case_could_match_otherwise(pattern, flags):
    assert folded_form(pattern, flags) is None


def test_case_insensitive_templates_are_folded():
    """Most case-insensitive templates run without IGNORECASE over an ASCII note's lower case
    (test_a_guarded_template_finds_what_the_template_finds checks their matches); the costliest,
    a long alternation of measurement labels, among them."""
    folded = [p for p, f in TEMPLATES if f & re.IGNORECASE and folded_form(p, f) is not None]
    assert len(folded) >= 50
    assert any(p.startswith(r"(?<![\w/'])(?:pwp|pcw|") for p in folded)
    template = Template(r"(?<!\w)(?:bp|hr)[ \t]*(?P<v>\d+)", re.IGNORECASE)
    text = "BP 120 Hr 80 hR 7 xbp 5"
    assert template.folded is not None
    assert template.spans(text, lowered_ascii(text), "v") == [(3, 6), (10, 12), (16, 17)]
