"""The tokenizer's decisions (see the itdeid.text.tokens docstring) and its offset invariants."""
import random
import re
import string

import pytest

from itdeid.text.tokens import Token, tokenize


def texts(text, boundaries=()):
    return [t.text for t in tokenize(text, boundaries)]


@pytest.mark.parametrize("text, expected", [
    ("70yoM", ["70", "yo", "M"]),
    ("Since6/03/04", ["Since", "6/03/04"]),
    ("GQ/NV/whalen", ["GQ", "/", "NV", "/", "whalen"]),
    ("6/03/04", ["6/03/04"]),
    ("555-3456", ["555-3456"]),
    ("2067-05-03", ["2067-05-03"]),
    ("123-45-6789", ["123-45-6789"]),
    ("10-Feb-2011", ["10-Feb-2011"]),
    ("(842) 544-2703", ["(", "842", ")", "544-2703"]),
    ("Smith,John", ["Smith", ",", "John"]),
    ("Dr. J. Smith", ["Dr", ".", "J", ".", "Smith"]),
    ("M.D.", ["M", ".", "D", ".", ]),
    ("2mg 1000MG 72yo 3pm", ["2", "mg", "1000", "MG", "72", "yo", "3", "pm"]),
    ("22nd", ["22nd"]),
    ("MRN12345 A1234567 3LNP", ["MRN12345", "A1234567", "3LNP"]),
    ("Hct25", ["Hct", "25"]),
    ("DATED10/12/05", ["DATED", "10/12/05"]),
    ("Smith's O'Dowd cont'd", ["Smith", "'s", "O'Dowd", "cont'd"]),
    ("---- ... ____", ["----", "...", "____"]),
])
def test_decisions(text, expected):
    assert texts(text) == expected


def test_boundary_inside_token_splits_it():
    assert texts("MRN12345", boundaries=[3]) == ["MRN", "12345"]


def test_boundaries_at_token_edges_or_outside_change_nothing():
    assert texts("Seen by Smith", boundaries=[0, 4, 5, 13, 99]) == ["Seen", "by", "Smith"]


def test_several_boundaries_in_one_token():
    toks = tokenize("ABC12345XY", boundaries=[3, 8])
    assert [t.text for t in toks] == ["ABC", "12345", "XY"]
    assert [(t.start, t.end) for t in toks] == [(0, 3), (3, 8), (8, 10)]


def test_offsets():
    text = "Pt  seen\n\t6/03/04 by Dr.Smith."
    for t in tokenize(text):
        assert isinstance(t, Token)
        assert text[t.start:t.end] == t.text


_ALPHABET = (string.ascii_letters + string.digits + string.punctuation
             + "     \n\n\t" + "\u00a0\u2019é")


def _random_texts(n=300, seed=20070101):
    rng = random.Random(seed)
    for _ in range(n):
        yield "".join(rng.choice(_ALPHABET) for _ in range(rng.randint(0, 80))), rng


def _check_invariants(text, tokens, boundaries=()):
    covered = set()
    previous_end = 0
    for t in tokens:
        assert t.text and text[t.start:t.end] == t.text
        assert not any(c.isspace() for c in t.text), (text, t)
        assert t.start >= previous_end, "tokens in order, not overlapping"
        previous_end = t.end
        assert not any(t.start < b < t.end for b in boundaries), (text, t, boundaries)
        covered.update(range(t.start, t.end))
    missing = [i for i, c in enumerate(text) if not c.isspace() and i not in covered]
    assert not missing, (text, missing)


def test_random_texts_keep_invariants():
    for text, _ in _random_texts():
        _check_invariants(text, tokenize(text))


def test_random_boundaries_keep_invariants():
    for text, rng in _random_texts(seed=7):
        boundaries = [rng.randint(0, len(text)) for _ in range(rng.randint(0, 4))]
        tokens = tokenize(text, boundaries)
        _check_invariants(text, tokens, boundaries)
        # boundaries only ever cut tokens: the same characters are covered
        plain = {i for t in tokenize(text) for i in range(t.start, t.end)}
        assert plain == {i for t in tokens for i in range(t.start, t.end)}


def test_the_possessive_letter_runs_tokenize_as_the_backtracking_ones_did():
    """The letter runs before a glued number are possessive (issue I, session 19). Letters given
    back would be followed by a letter, never by the digit the lookahead wants, so the tokens
    must be those of the same pattern without the possessive marks: checked on strings drawn
    from the characters the alternatives turn on, and on glued compounds."""
    from itdeid.text import tokens
    pattern = tokens._TOKEN.pattern
    assert "{3,}+" in pattern and "{2,}+" in pattern
    backtracking = re.compile(pattern.replace("{3,}+", "{3,}").replace("{2,}+", "{2,}"))
    rng = random.Random(0)
    alphabet = "aAzZ09 .,/-:'\u2019_sS\nMgyoMRN#\u00e9\u00df\u0661"
    texts = ["Since6/03/04 Hct25 DATED10/12/05 abc1 AB12 70yoM 2mg x4-5521 O'Dowd's",
             *("".join(rng.choice(alphabet) for _ in range(rng.randint(1, 40))) for _ in range(5000))]
    for text in texts:
        assert [(t.start, t.end) for t in tokens.tokenize(text)] == \
            [m.span() for m in backtracking.finditer(text)], text


def test_the_plain_word_alternative_changes_no_token():
    """Plain words are matched first (issue I, session 20); every token must be the one the
    compound alternatives alone give: on strings drawn from the characters they turn on, digits
    and letters of other scripts included, and on glued compounds."""
    from itdeid.text import tokens
    compounds = re.compile(tokens._COMPOUNDS)
    rng = random.Random(1)
    alphabet = "aAzZ09 .,/-:'\u2019_sS\nMgyoMRN#\u00e9\u00df\u0661\u00b2"
    texts = ["Since6/03/04 Hct25 DATED10/12/05 abc1 AB12 70yoM 70yo 2mg 3pm x4-5521 O'Dowd's cont'd",
             *("".join(rng.choice(alphabet) for _ in range(rng.randint(1, 40))) for _ in range(20000))]
    for text in texts:
        assert [(t.start, t.end) for t in tokens.tokenize(text)] == [m.span() for m in compounds.finditer(text)], text


def test_the_space_guard_changes_no_token():
    """The alternatives sit behind ``(?=\\S)`` (issue I, session 35): every token begins with a
    character that is not space, so the tokens must be those of the alternatives unguarded, on
    strings drawn with every kind of space Python's ``\\s`` knows beside the characters the
    alternatives turn on."""
    from itdeid.text import tokens
    assert tokens._TOKEN.pattern.startswith("(?=\\S)")
    unguarded = re.compile(tokens._PLAIN_WORD + "|" + tokens._COMPOUNDS)
    rng = random.Random(2)
    alphabet = ("aAzZ09 .,/-:'\u2019_sS\nMgyoMRN#\u00e9\u0661" + "\t\r\x0b\x0c\x1c\x1d\x1e\x1f\x85"
                + "\u00a0\u2028\u3000")
    texts = ["Since6/03/04 Hct25\u00a070yoM\t2mg\x0b3pm x4-5521 O'Dowd's --- ...",
             *("".join(rng.choice(alphabet) for _ in range(rng.randint(1, 40))) for _ in range(20000))]
    for text in texts:
        assert [(t.start, t.end) for t in tokens.tokenize(text)] == \
            [m.span() for m in unguarded.finditer(text)], text
