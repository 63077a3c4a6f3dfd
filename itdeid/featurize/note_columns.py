"""Columns that depend on the note alone: its tokens' spelling, its layout, and the templates
and place lists that match in it.

Each group's function takes a :class:`~itdeid.featurize.tokenized.TokenizedDocument` and gives
its columns, one value a token; :func:`itdeid.featurize.groups.static_columns` caches them on the
note, so the models of a system compute them once. None depends on what a model learned or on
the other notes tagged beside it (a note gets the same tags however it is fed). Orthography is
also computed once per distinct token text of a batch (:func:`_orthography_batch`): a batch's
tokens repeat a small vocabulary.
"""
from __future__ import annotations

import operator
import re
import string
from functools import lru_cache
from typing import Iterable, Sequence

import numpy as np

from itdeid.featurize.tokenized import LABEL_CODE, TokenizedDocument, token_offsets
from itdeid.templates.guarded import Template, lowered_ascii, may_match
from itdeid.featurize.measures import FLAGGED, clock_templates, measure_templates
from itdeid.resources import load_json
from itdeid.featurize.token_batch import TokenBatch
from itdeid.text.tokens import TOKEN_TEXT
from itdeid.featurize.word_lists import gazetteer_sets, positions_in
from itdeid.featurize.word_table import MAX_WORDS, WordTable


@lru_cache(maxsize=1)
def regex_templates() -> dict[str, list[Template]]:
    """Compiled templates of features/regex.json, per class."""
    data = load_json("features", "regex.json")["templates"]
    return {cls: [Template(t["pattern"], re.IGNORECASE if "i" in t.get("flags", "") else 0)
                  for t in templates]
            for cls, templates in data.items()}


@lru_cache(maxsize=1)
def phrase_suffixes() -> tuple[tuple[str, int], ...]:
    """(word, class code) of the words that end PHI phrases, from features/suffixes.json."""
    data = load_json("features", "suffixes.json")
    return tuple((w, LABEL_CODE[cls]) for cls, words in data.items() if cls in LABEL_CODE
                 for w in words)


_ROMAN = re.compile(r"^(?=[MDCLXVI])M{0,3}(CM|CD|D?C{0,3})(XC|XL|L?X{0,3})(IX|IV|V?I{0,3})$")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")


#: ASCII capitals to 'X', small letters to 'x', digits to 'd', in one ``str.translate``.
_SHAPE_CHARS = str.maketrans(string.ascii_uppercase + string.ascii_lowercase + string.digits,
                             "X" * 26 + "x" * 26 + "d" * 10)
_OTHER_DIGIT = re.compile(r"\d")
_LONG_RUN = re.compile(r"(.)\1{2,}")


@lru_cache(maxsize=MAX_WORDS)
def _shape(text: str) -> str:
    """The token's shape: ASCII capitals 'X', small letters 'x', any script's decimal digits
    'd', runs of three or more of one character cut to two ('Smith' 'Xxx', '12/03/2004'
    'dd/dd/dd'). One ``str.translate``, and ``\\d`` only for the few texts beyond ASCII: the
    shapes of three ``re.sub`` passes at less cost a new token text
    (``tests/test_featurize.py`` compares the two)."""
    shape = text.translate(_SHAPE_CHARS)
    if not shape.isascii():
        shape = _OTHER_DIGIT.sub("d", shape)
    return _LONG_RUN.sub(r"\1\1", shape)


def _orthography(text: str) -> tuple:
    """Orthographic attributes of one token text. Computed once a distinct text by
    :data:`_ORTHOGRAPHY_TABLE`, which keeps them; a cache of its own here kept them twice, some
    600 bytes a word up to 200,000 words."""
    first = text[0]
    if first.isupper():
        initial = 0
    elif first.islower():
        initial = 1
    elif first.isdigit():
        initial = 2
    elif first.isalnum():
        initial = 4
    else:
        initial = 3
    # the character tests as str methods mapped in C, not generator expressions: the same
    # values at a third less cost a new token text
    letters = list(filter(str.isalpha, text))
    n_digits = sum(map(str.isdigit, text))
    all_upper = bool(letters) and all(map(str.isupper, letters))
    all_lower = bool(letters) and all(map(str.islower, letters))
    title = text[0].isupper() and len(letters) > 1 and all(map(str.islower, letters[1:]))
    inner_upper = any(map(str.isupper, text[1:])) and not all_upper
    inner_punct = not all(map(str.isalnum, text[1:-1])) if len(text) > 2 else False
    mixed = bool(letters) and n_digits > 0
    roman = bool(_ROMAN.match(text)) and len(text) <= 6
    number = bool(_NUMBER.fullmatch(text))
    return (initial, float(all_upper), float(all_lower), float(title), float(inner_upper),
            float(len(text)), float(n_digits > 0), float(n_digits == len(text)), float(n_digits),
            float(inner_punct), float(mixed), float(roman), float(number),
            float(text.endswith(".")))


ORTHOGRAPHY_COLUMNS = ("all_upper", "all_lower", "title", "inner_upper", "length", "has_digit",
                       "all_digit", "n_digits", "inner_punct", "letters_and_digits", "roman",
                       "arabic_number", "ends_with_period", "shape")


@lru_cache(maxsize=16)
def _phrase_lengths(phrases: frozenset) -> dict[str, tuple[int, ...]]:
    """First word of the phrases -> their lengths, longest first (so most tokens are ruled out
    by one dictionary lookup)."""
    lengths: dict[str, set] = {}
    for phrase in phrases:
        if phrase:
            lengths.setdefault(phrase[0], set()).add(len(phrase))
    return {w: tuple(sorted(ks, reverse=True)) for w, ks in lengths.items()}


def _phrase_marks(words: Sequence[str], phrases: frozenset, max_len: int = 3) -> np.ndarray:
    """1.0 for every token inside an occurrence of a phrase (a tuple of lower-case words),
    longest phrase first at each position."""
    marks = np.zeros(len(words), dtype=np.float32)
    first = _phrase_lengths(phrases)
    if first.keys().isdisjoint(words):   # no word begins a phrase: a test in C, not a loop (most
        return marks                     # notes for the state, country and world lists)
    # the words that begin one, found in C; the loop visits those alone
    for i in positions_in(words, first):
        w = words[i]
        for k in first[w]:
            if k <= max_len and i + k <= len(words) and tuple(words[i:i + k]) in phrases:
                marks[i:i + k] = 1.0
                break
    return marks


def _covered(starts: np.ndarray, ends: np.ndarray, spans: Iterable[tuple[int, int]]) -> np.ndarray:
    """Boolean mask of the tokens (``starts``, ``ends`` offsets) overlapping any (start, end)
    character span."""
    pairs = np.array(list(spans), dtype=np.int64).reshape(-1, 2)
    mask = np.zeros(len(starts), dtype=bool)
    if len(pairs):
        lo, hi = _token_ranges(starts, ends, pairs)
        # mark [lo, hi) of every span at once: +1 at lo, -1 at hi, running sum > 0
        edges = np.zeros(len(starts) + 1, dtype=np.int64)
        np.add.at(edges, lo, 1)
        np.add.at(edges, hi, -1)
        mask = np.cumsum(edges[:-1]) > 0
    return mask


def _token_ranges(starts: np.ndarray, ends: np.ndarray, pairs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per (start, end) row of ``pairs``, the tokens it overlaps, ``lo`` to ``hi`` (one past)."""
    return (np.searchsorted(ends, pairs[:, 0], side="right"),
            np.searchsorted(starts, pairs[:, 1], side="left"))


def _shape_id(text: str) -> float:
    shape = _shape(text)
    # a stable numeric code of the shape: its hash would differ between runs, so map shapes to
    # small integers by a content-based checksum: sum of (position + 1) * code point
    return float(sum(map(operator.mul, _POSITIONS, map(ord, shape[:12]))) % 997)


#: The positions 1 to 12 the shape checksum weighs a shape's first characters by.
_POSITIONS = range(1, 13)


_ORTHOGRAPHY_TABLE = WordTable(lambda text: _orthography(text) + (_shape_id(text),), 15)


def _orthography_texts(texts: Sequence[str]) -> dict[str, np.ndarray]:
    ortho = _ORTHOGRAPHY_TABLE.rows(texts)
    cols = {name: ortho[:, j + 1] for j, name in enumerate(ORTHOGRAPHY_COLUMNS[:-1])}
    cols["initial_type"] = ortho[:, 0]
    cols["shape"] = ortho[:, 14]
    return cols


def _orthography_columns(td: TokenizedDocument) -> dict[str, np.ndarray]:
    return _orthography_texts([t.text for t in td.tokens])


def _orthography_batch(batch: TokenBatch) -> dict[str, np.ndarray]:
    """:func:`_orthography_columns` of a whole batch, once per distinct token text (the token
    as written: case matters here), remembered on the batch."""
    key = ("words", "orthography")
    if key not in batch.memo:
        texts, ids = batch.texts()
        batch.memo[key] = {name: values[ids] for name, values in _orthography_texts(texts).items()}
    return batch.memo[key]


def _heading_columns(td: TokenizedDocument) -> dict[str, np.ndarray]:
    in_heading = np.asarray(td.structure.in_heading, dtype=bool)
    since = np.zeros(len(td.tokens), dtype=np.float32)
    count = 0
    for i, inside in enumerate(in_heading):
        count = 0 if inside else count + 1
        since[i] = min(count, 50)
    return {"in_heading": in_heading.astype(np.float32), "since_heading": since}


def _first_template(td: TokenizedDocument, templates: list[Template], lowered: str | None) -> np.ndarray:
    """Per token, the 1-based index of the first of ``templates`` whose match (its group
    :data:`~itdeid.featurize.measures.FLAGGED` where it has one) covers it; 0: none. ``lowered``:
    the note's :func:`~itdeid.templates.guarded.lowered_ascii`."""
    text = td.document.text
    which = np.zeros(len(td.tokens), dtype=np.float32)
    found = [(k, a, b) for k in may_match(templates, text)   # most match nothing in a note
             for a, b in templates[k].spans(text, lowered, group=FLAGGED)]
    if found:
        # the tokens each match covers, all at once; then each match's tokens get its
        # template's number, the last template first, so the first one's stands (a mask
        # and its updates a template cost ten numpy calls)
        starts, ends = token_offsets(td)
        found.sort(key=operator.itemgetter(0), reverse=True)
        lo, hi = _token_ranges(starts, ends, np.array([(a, b) for _k, a, b in found], dtype=np.int64))
        for (k, _a, _b), i, j in zip(found, lo.tolist(), hi.tolist()):
            which[i:j] = k + 1
    return which


def _regex_columns(td: TokenizedDocument) -> dict[str, np.ndarray]:
    lowered = lowered_ascii(td.document.text)
    cols = {}
    for cls, patterns in regex_templates().items():
        which = _first_template(td, patterns, lowered)
        cols[f"regex_{cls}"], cols[f"regex_{cls}_template"] = (which > 0).astype(np.float32), which
    return cols


def _template_columns(td: TokenizedDocument, templates: list[Template], name: str) -> dict[str, np.ndarray]:
    """Covered by one of ``templates`` (:mod:`itdeid.featurize.measures`), and which one first (1-based;
    0: none), as columns ``name`` and ``name_template``."""
    which = _first_template(td, templates, lowered_ascii(td.document.text))
    return {name: (which > 0).astype(np.float32), f"{name}_template": which}


def _measure_columns(td: TokenizedDocument) -> dict[str, np.ndarray]:
    """The measurement templates of features/measures.json."""
    return _template_columns(td, measure_templates(), "measure")


def _clock_columns(td: TokenizedDocument) -> dict[str, np.ndarray]:
    """The clock-time templates of features/clock_times.json."""
    return _template_columns(td, clock_templates(), "clock")


def _location_columns(td: TokenizedDocument) -> dict[str, np.ndarray]:
    gaz = gazetteer_sets()
    state = _phrase_marks(td.words, gaz["states"])
    state[np.fromiter(map(gaz["state_abbr"].__contains__, map(TOKEN_TEXT, td.tokens)), bool, len(td.tokens))] = 1.0
    return {"us_city": _phrase_marks(td.words, gaz["cities"]), "us_state": state,
            "country": _phrase_marks(td.words, gaz["countries"]),
            "world_city": _phrase_marks(td.words, gaz["world"])}


def _sentence_columns(td: TokenizedDocument) -> dict[str, np.ndarray]:
    s = td.structure
    return {"sentence_position": np.asarray(s.sentence_position, dtype=np.float32),
            "token_in_sentence": np.minimum(np.asarray(s.token_in_sentence, dtype=np.float32), 50),
            "line_start": np.asarray(s.line_start, dtype=np.float32),
            "sentence_start": (np.asarray(s.token_in_sentence) == 0).astype(np.float32)}


def _context_columns(td: TokenizedDocument) -> dict[str, np.ndarray]:
    n, text = len(td.tokens), td.document.text
    quotes = np.zeros(n, dtype=np.float32)
    brackets = np.zeros(n, dtype=np.float32)
    line_upper = np.zeros(n, dtype=np.float32)
    in_quote, depth = False, 0
    line_starts = np.asarray(td.structure.line_start)
    for i, t in enumerate(td.tokens):
        if line_starts[i]:
            in_quote, depth = False, 0
        if t.text == '"':
            in_quote = not in_quote
        elif t.text in "([{":
            depth += 1
        elif t.text in ")]}":
            depth = max(0, depth - 1)
        else:
            quotes[i], brackets[i] = float(in_quote), float(depth > 0)
    # whole line in upper case: letters of the line all upper
    bounds = list(np.flatnonzero(line_starts)) + [n]
    for a, b in zip(bounds[:-1], bounds[1:]):
        line = text[td.tokens[a].start:td.tokens[b - 1].end]
        letters = [c for c in line if c.isalpha()]
        line_upper[a:b] = float(len(letters) > 3 and all(c.isupper() for c in letters))
    return {"in_quotes": quotes, "in_brackets": brackets, "line_upper": line_upper}
