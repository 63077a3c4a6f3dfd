"""Document structure (itdeid.text.structure): headings, sentences, lines."""
import numpy as np
import pytest

from itdeid.resources import load_json
from itdeid.text.structure import Heading, Structure, analyze, find_headings, normalize_heading
from itdeid.text.tokens import tokenize

SUMMARY = """\
311970250 | MMC | 01234567 | | 5/14/2001 12:00:00 AM | Discharge Summary | Signed | DIS | Admission Date: 5/14/2001 Report Status: Signed

Discharge Date: 5/20/2001
ATTENDING: SMITH, JOHN M.D.
PRINCIPAL DIAGNOSIS: Congestive heart failure.

HISTORY OF PRESENT ILLNESS: Mr. Jones is a 70yoM with CAD. Dr. Smith saw him. He was
sent to the ED, e.g. for evaluation.

HPI: second heading variant.
HOSPITAL COURSE
The patient was diuresed. Vitamin D: 400 units daily.
1. Aspirin 81 mg
2. Lasix 40 mg

JOHN SMITH
Dictated By: WHALEN, GQ
cc: Dr. Brown
D: 5/20/01
T: 5/21/01
"""


@pytest.fixture(scope="module")
def doc():
    tokens = tokenize(SUMMARY)
    return tokens, analyze(SUMMARY, tokens)


def index(tokens, word, occurrence=0, after=0):
    hits = [i for i, t in enumerate(tokens) if t.text == word and t.start >= after]
    return hits[occurrence]


def test_shapes_and_types(doc):
    tokens, s = doc
    assert isinstance(s, Structure)
    n = len(tokens)
    for name in ("heading", "in_heading", "sentence", "sentence_position", "line_start",
                 "token_in_sentence"):
        assert len(getattr(s, name)) == n, name
    assert all(isinstance(h, Heading) for h in s.headings)


def test_heading_names(doc):
    _, s = doc
    assert [h.name for h in s.headings] == [
        "ADMISSION DATE", "REPORT STATUS", "DISCHARGE DATE", "ATTENDING", "PRINCIPAL DIAGNOSIS",
        "HISTORY OF PRESENT ILLNESS", "HISTORY OF PRESENT ILLNESS", "HOSPITAL COURSE",
        "DICTATED BY", "CC", "D", "T"]
    for h in s.headings:
        assert normalize_heading(SUMMARY[h.start:h.end]) in (h.name, "HPI") or h.name in (
            "ATTENDING", "DICTATED BY", "CC", "ADMISSION DATE", "REPORT STATUS", "DISCHARGE DATE")


def test_heading_offsets_cover_the_colon(doc):
    _, s = doc
    hpi = s.headings[5]
    assert SUMMARY[hpi.start:hpi.end] == "HISTORY OF PRESENT ILLNESS:"
    course = s.headings[7]
    assert SUMMARY[course.start:course.end] == "HOSPITAL COURSE"


def test_not_headings(doc):
    _, s = doc
    names = {h.name for h in s.headings}
    assert "JOHN SMITH" not in names          # an upper-case name line
    assert "VITAMIN D" not in names and "D" in names  # 'Vitamin D:' inside a sentence
    assert all(not SUMMARY[h.start:h.end].startswith("Discharge Summary") for h in s.headings)


def test_nearest_heading_and_in_heading(doc):
    tokens, s = doc
    hpi = 5
    jones = index(tokens, "Jones")
    assert s.heading[jones] == hpi and not s.in_heading[jones]
    evaluation = index(tokens, "evaluation")
    assert s.heading[evaluation] == hpi
    for i, t in enumerate(tokens):
        h = s.headings[s.heading[i]] if s.heading[i] >= 0 else None
        if s.in_heading[i]:
            assert h.start <= t.start and t.end <= h.end
        if h is not None:
            assert h.start <= t.start
    history = index(tokens, "HISTORY")
    colon = history + 4
    assert tokens[colon].text == ":"
    assert s.in_heading[history] and s.in_heading[colon] and s.heading[history] == hpi
    assert s.heading[0] == -1 and not s.in_heading[0]
    diuresed = index(tokens, "diuresed")
    assert s.headings[s.heading[diuresed]].name == "HOSPITAL COURSE"


def test_line_start(doc):
    tokens, s = doc
    assert s.line_start[0]
    assert s.line_start[index(tokens, "Discharge", after=SUMMARY.index("Discharge Date"))]
    assert s.line_start[index(tokens, "sent")]
    assert not s.line_start[index(tokens, "Jones")]
    for i in range(1, len(tokens)):
        assert bool(s.line_start[i]) == ("\n" in SUMMARY[tokens[i - 1].end:tokens[i].start])


def test_sentence_split_after_sentence_not_after_title(doc):
    tokens, s = doc
    dr = index(tokens, "Dr", after=SUMMARY.index("Dr. Smith saw"))
    smith = dr + 2
    assert tokens[smith].text == "Smith"
    assert s.sentence[dr] == s.sentence[smith], "no break after 'Dr.'"
    assert s.token_in_sentence[dr] == 0, "a new sentence starts at 'Dr' after 'CAD.'"
    he = index(tokens, "He")
    assert s.sentence[he] == s.sentence[dr] + 1 and s.token_in_sentence[he] == 0
    # 'Mr.' and 'e.g.' do not end sentences; a wrapped prose line continues its sentence
    mr = index(tokens, "Mr")
    assert s.sentence[mr] == s.sentence[index(tokens, "Jones")]
    assert s.sentence[index(tokens, "sent")] == s.sentence[he]
    assert s.sentence[index(tokens, "evaluation")] == s.sentence[he]


def test_sentence_starts_at_headings_and_lines(doc):
    tokens, s = doc
    mr = index(tokens, "Mr")
    assert s.token_in_sentence[mr] == 0, "flow text after a heading starts a sentence"
    assert s.token_in_sentence[index(tokens, "HISTORY")] == 0
    the = index(tokens, "The", after=SUMMARY.index("The patient"))
    assert s.token_in_sentence[the] == 0
    one = index(tokens, "1", after=SUMMARY.index("1. Aspirin"))
    assert s.token_in_sentence[one] == 0
    assert s.sentence[one] == s.sentence[index(tokens, "Aspirin")], "no break after a list number"
    two = index(tokens, "2", after=SUMMARY.index("2. Lasix"))
    assert s.token_in_sentence[two] == 0, "a short list line is its own sentence"
    whalen = index(tokens, "WHALEN")
    assert s.token_in_sentence[whalen] == 0


def test_sentence_arrays_consistent(doc):
    tokens, s = doc
    sentence = np.asarray(s.sentence)
    assert sentence[0] == 0 and np.all(np.diff(sentence) >= 0) and np.all(np.diff(sentence) <= 1)
    pos = np.asarray(s.sentence_position, dtype=float)
    assert np.all(np.diff(pos) >= 0)
    assert pos.min() >= 0.0 and pos.max() <= 1.0
    tis = np.asarray(s.token_in_sentence)
    assert np.array_equal(tis == 0, np.r_[True, np.diff(sentence) == 1])


def test_empty_and_headingless_text():
    s = analyze("", [])
    assert len(s.heading) == 0 and s.headings == []
    text = "the patient was seen. she is well."
    s = analyze(text, tokenize(text))
    assert s.headings == [] and set(np.asarray(s.heading)) == {-1}
    assert list(np.asarray(s.sentence)) == [0] * 5 + [1] * 4  # a lower-case note
    text = "Seen today. she is well."  # mixed case: a lower-case word continues the sentence
    assert np.asarray(analyze(text, tokenize(text)).sentence).max() == 0


def test_upper_case_nursing_note():
    text = ("O: BUN NOW 50; CR 2.1. A: CONTINUED RENAL INSUFFICIENCY. P: FOR REPEAT BUN.\n \n"
            "CV PACED R. NO ECTOPY. BP STABLE.\n \nMONITOR BP C DIURESIS\nFOLLOW K\n")
    s = analyze(text, tokenize(text))
    assert [h.name for h in s.headings] == ["OBJECTIVE", "ASSESSMENT", "PLAN", "CV"]


def test_lower_case_note_splits_sentences():
    text = ("pt is a 57yo f who is followed at gh by dr halstead. she arrived via amb from koslow "
            "for further eval. today pt was at home.")
    tokens = tokenize(text)
    s = analyze(text, tokens)
    assert np.asarray(s.sentence)[-1] == 2
    assert s.sentence[index(tokens, "halstead")] == 0


def test_upper_case_line_heading_needs_inventory_word():
    text = "Some text here.\nBRIEF RESUME OF HOSPITAL COURSE\nMore text.\nMARY JONES\n"
    names = [h.name for h in find_headings(text)]
    assert names == ["HOSPITAL COURSE"]  # a known variant gets the canonical name


def test_inventory_file():
    data = load_json("features", "headings.json")
    assert "_comment" in data
    assert len(data["headings"]) >= 60
    for name in ("HISTORY OF PRESENT ILLNESS", "PAST MEDICAL HISTORY", "HOSPITAL COURSE",
                 "DISCHARGE DIAGNOSIS", "ALLERGIES", "NEURO", "CV", "RESP"):
        assert name in data["headings"]
    for label in ("ADMISSION DATE", "DICTATED BY", "CC", "D", "T", "ESCRIPTION DOCUMENT"):
        assert label in data["field_labels"]
    variants = [v for name, vs in data["headings"].items() for v in [name, *vs]]
    assert all(v == normalize_heading(v) for v in variants)
    assert "dr" in data["abbreviations"]


def test_upper_case_place_line_is_not_a_heading():
    text = "Transferred to us today.\nMERCY HOSPITAL\nHEART CENTER\nMASSACHUSETTS GENERAL\n"
    assert find_headings(text) == []


def _inline_headings_reference(line, offset, skip_to, inv):
    """The first, quadratic version of structure._inline_headings (every colon rescanned the
    line from ``skip_to``), kept to check the linear one against."""
    import itdeid.text.structure as s
    found = []
    for colon in s._INLINE_COLON.finditer(line, skip_to):
        if colon.start() < skip_to:
            continue
        words = list(s._LABEL_WORDS.finditer(line, skip_to, colon.start()))
        for k in range(min(4, len(words)), 0, -1):
            start = words[-k].start()
            phrase = line[start:colon.start()].rstrip(" \t")
            if not s._INLINE_LABEL.fullmatch(phrase) or not phrase[0].isupper():
                continue
            name = normalize_heading(phrase)
            if not inv.known(name):
                continue
            before = line[:start]
            separated = not before.strip() or s._SEPARATOR_END.search(before)
            if separated or (k >= 2 and before[-1].isspace()):
                found.append(Heading(offset + start, offset + colon.end(), inv.name(name)))
                skip_to = colon.end()
                break
    return found


@pytest.mark.parametrize("one_line", [False, True])
def test_inline_headings_of_a_long_line_are_those_of_the_quadratic_search(monkeypatch, one_line):
    """A note of one huge line (a 5 MB export) is searched for inline labels in linear time;
    the headings found are exactly those of the first, quadratic search."""
    import itdeid.text.structure as s
    from itdeid.synth import generate
    text = "\n".join(d.text for d in generate(12, seed=1))
    text = text.replace("\n", "  ; ") if one_line else text
    text += " x" * 300 + " Plan: a" + "b" * 300 + " Plan: end\tHPI: x. Allergies: none"
    fast = find_headings(text)
    monkeypatch.setattr(s, "_inline_headings", _inline_headings_reference)
    assert fast == find_headings(text)
    assert len(fast) > 20


def test_letter_counts_agree_with_str_methods():
    """The note-case shares count letters and capitals as str.isalpha/str.isupper do, also for
    accented, Greek, titlecase and other non-ASCII letters (seeded random strings)."""
    import random
    from itdeid.text.structure import _code_points, _letter_counts
    rng = random.Random(0)
    alphabet = "abcXYZ 12\n\t\u00c9\u00e9\u00df\u0130\u0131\u01c5\u03a3\u03c3\u2160\u2170_-."
    for _ in range(2000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        letters = [c for c in text if c.isalpha()]
        assert _letter_counts(_code_points(text)) == (len(letters), sum(c.isupper() for c in letters))


def test_first_characters_read_from_code_points_are_the_str_methods():
    """A token's first character as the sentence rules read it (by code for ASCII, by str
    methods beyond it): the same as str.isupper() or str.isdigit(), str.isalpha() and the
    bullet set."""
    from itdeid.text.structure import _BULLET, _code_points, _first_characters
    text = "aZ09-*•#>+.!?éÉßǅǆ٣ⅣΣσ\u00a0\U0001d400x"
    upper, letter, bullet = _first_characters(_code_points(text), np.arange(len(text)))
    assert upper.tolist() == [c.isupper() or c.isdigit() for c in text]
    assert letter.tolist() == [c.isalpha() for c in text]
    assert bullet.tolist() == [c in _BULLET for c in text]
