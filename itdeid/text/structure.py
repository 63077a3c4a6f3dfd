"""Document structure of a tokenized note: section headings, sentences and lines.

``analyze(text, tokens)`` returns a :class:`Structure` with one entry per token, the input of the
``heading`` and ``sentence`` feature groups of :mod:`itdeid.featurize`. Szarvas et al. (2007) use
the section a token appears in as evidence (a capitalized word under 'Attending:' or
'Dictated By:' is a doctor, under 'PHYSICAL EXAMINATION' rarely a name), and the position of a
token in its sentence so that a capital letter at a sentence start is not read as a proper name.
The rules are deliberately conservative: a false heading hands the words of a line (often PHI:
a name line, an address line) a section of their own, which is worse than a missed heading.

Headings (the inventory is ``features/headings.json``; every name is normalized: upper case,
whitespace collapsed, trailing ':' removed, and a known variant replaced by its canonical name,
'HPI' -> 'HISTORY OF PRESENT ILLNESS', so that the model sees one section however it is written):

- **Line-initial label ending in ':'** ('HISTORY OF PRESENT ILLNESS: The patient ...',
  'DISCHARGE DIAGNOSIS:'). Written in upper case it is a heading whatever its words: i2b2 2006
  summaries and nursing notes invent many section names. Written in Title or lower case it must
  be in the inventory ('Attending:', 'Dictated By:', 'Admission Date:', 'cc:', 'D:'), since
  free text also has 'Patient states:' or 'Called Dr Smith:'. The label is at most 8 words and
  60 characters, has no digits and no period ('DR. SMITH:' is not a heading).
- **Upper-case line on its own** ('DISCHARGE DIAGNOSIS', 'HOSPITAL COURSE'), at most 8 words,
  letters and a few joiners ('/', '&', '-', ',', parentheses) only, no final '.', '!' or '?'.
  Because an upper-case line may also be a name or an address ('JOHN SMITH'), it must be in the
  inventory or share a word with it ('BRIEF RESUME OF HOSPITAL COURSE'), a word that is not
  also part of place names ('MERCY HOSPITAL', 'HEART CENTER' are no headings); and in a note written
  mostly in upper case (many nursing notes) every short line is upper case, so there only
  inventory names count.
- **Nursing system labels without a colon** at the start of a line, followed by text
  ('CV PACED R. NO ECTOPY', 'RESP RALES IN BASES'): only the short list ``line_labels``, written
  in upper case (Title case for labels of 3+ letters), because these words rarely begin a
  sentence otherwise.
- **Inventory labels ending in ':' inside a line**: 'PMH:', 'HPI:', 'A:', 'P:' in run-on nursing
  notes ('...DOPAMINE; PMH: CAD, ...') and 'Report Status:' in the i2b2 header line. Only
  inventory names starting with a capital, and only after a separator ('.', ';', ':', '|', two
  spaces or a tab) unless the label has 2+ words, so 'Vitamin D: 400' is no heading.

A heading's offsets cover its text and the colon, so the heading tokens (colon included) have
``in_heading`` set; each token's ``heading`` is the index of the nearest heading starting at or
before it (the heading itself for heading tokens), -1 before the first heading.

Sentences (the tokenizer always separates periods, so an abbreviation is a word token followed
by a '.' token):

- '.', '!' or '?' followed by whitespace and a token starting with an upper-case letter or a
  digit ends a sentence, unless the word before the period is an abbreviation of the inventory
  (Dr, Mr, Mrs, St, vs, etc, e.g, i.e, No, approx, months, ...) or a single capital letter
  (an initial, 'J. Smith'), or a number of at most 2 digits that starts its line (a list item,
  '1. Aspirin'). Requiring a capital after the period keeps 'mg. q.d.' together;
  in notes written mostly in lower case (many nursing notes: 'by dr pellman. she arrived') a
  lower-case letter after the period also starts a sentence, or the whole note would be one.
- A blank line, a heading and the first token after a heading start a sentence, so the flow
  text after 'HISTORY OF PRESENT ILLNESS:' starts at position 0 ('The' is sentence-initial).
- A line break starts a sentence when the next line starts with a capital letter, a digit or a
  list bullet and the previous line is short (< 60 characters), ends in ':' or has no letters:
  lines of header blocks and lists ('Admission Date: ...', 'Dictated By: ...', '1. Aspirin')
  carry no final punctuation, while a wrapped line of prose is long and continues its sentence.

``sentence_position`` is the sentence index divided by the number of sentences, in [0, 1).
"""
from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Sequence

import numpy as np

from itdeid.resources import load_json
from itdeid.text.tokens import Token, token_bounds

__all__ = ["Heading", "Structure", "analyze", "normalize_heading"]

MAX_HEADING_WORDS = 8
MAX_HEADING_CHARS = 60
SHORT_LINE = 60


@dataclass
class Heading:
    """A section heading: ``text[start:end]`` (colon included) and its normalized ``name``."""

    start: int
    end: int
    name: str


@dataclass
class Structure:
    """Per-token structure of a document; every array has one entry per token."""

    heading: np.ndarray            # int: index into ``headings`` of the nearest heading, -1 if none
    in_heading: np.ndarray         # bool: the token is part of a heading
    sentence: np.ndarray           # int: sentence index
    sentence_position: np.ndarray  # float: sentence / number of sentences, in [0, 1)
    line_start: np.ndarray         # bool: first token on its line
    token_in_sentence: np.ndarray  # int: position in the sentence, 0 for the first token
    headings: list[Heading] = field(default_factory=list)


# ------------------------------------------------------------------------------------------
# The inventory.
# ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Inventory:
    canonical: dict[str, str]       # normalized variant (or canonical name) -> canonical name
    field_labels: frozenset[str]
    line_labels: frozenset[str]
    words: frozenset[str]           # heading words (4+ letters, not name words), for caps lines
    abbreviations: frozenset[str]

    def known(self, name: str) -> bool:
        return name in self.canonical or name in self.field_labels

    def name(self, name: str) -> str:
        return self.canonical.get(name, name)


# Words of inventory names that also make up names of hospitals, wards and people's titles
# ('MERCY HOSPITAL', 'HEART CENTER', 'GENERAL MEDICAL'): an upper-case line with only these
# is more likely PHI than a heading, so they do not make an unknown line a heading.
_NAME_WORDS = frozenset({
    "HOSPITAL", "MEDICAL", "GENERAL", "HEART", "CARE", "PRIMARY", "PHYSICIAN", "DOCTOR",
    "PROVIDER", "PROVIDERS", "REFERRING", "ADMITTING", "ATTENDING", "SERVICE", "SIGNED",
    "ENTERED", "NOTE", "NURSING", "RESPIRATORY", "CARDIAC", "PULMONARY", "FAMILY", "SOCIAL",
    "CHEST", "NECK", "SKIN", "PAIN", "CODE", "DATA", "THERAPY", "FROM", "WITH",
})


@lru_cache(maxsize=1)
def _inventory() -> _Inventory:
    data = load_json("features", "headings.json")
    canonical: dict[str, str] = {}
    for name, variants in data["headings"].items():
        for variant in [name, *variants]:
            canonical.setdefault(normalize_heading(variant), name)
    fields = frozenset(normalize_heading(x) for x in data["field_labels"])
    words = frozenset(w for name in canonical for w in re.findall(r"[A-Z]+", name)
                      if len(w) >= 4 and w not in _NAME_WORDS)
    return _Inventory(canonical, fields, frozenset(data.get("line_labels", ())), words,
                      frozenset(x.lower() for x in data["abbreviations"]))


def normalize_heading(label: str) -> str:
    """Upper case, whitespace collapsed, trailing ':' (and spaces) removed."""
    return " ".join(label.upper().split()).rstrip(": ").strip()


# ------------------------------------------------------------------------------------------
# Headings.
# ------------------------------------------------------------------------------------------
# a line-initial label ending in ':' (no digits, no period)
_COLON_LABEL = re.compile(r"[ \t]*([A-Za-z][A-Za-z /&'(),\-]*?)[ \t]*:(?!//)")
# a line consisting of an upper-case phrase, optionally ending in ':'
_CAPS_LINE = re.compile(r"[ \t]*([A-Z][A-Z /&(),\-]*[A-Z)])[ \t]*(:?)[ \t]*")
_LINE_LABEL = re.compile(r"[ \t]*([A-Za-z][A-Za-z/]*)(?=[ \t]+[^\s:])")
_INLINE_COLON = re.compile(r":(?!//)")
_LABEL_WORDS = re.compile(r"[A-Za-z][A-Za-z/&\-]*")
_INLINE_LABEL = re.compile(r"[A-Za-z][A-Za-z /&\-]*")
_SEPARATOR_END = re.compile(r"(?:[.;|:]\s+|\s{2,}|\t)$")


def _letter_counts(codes: np.ndarray) -> tuple[int, int]:
    """(letters, upper-case letters) among the code points ``codes`` of a text, as str.isalpha
    and str.isupper count them: ASCII by array comparisons, the rest (rare in notes) one by one."""
    upper = int(np.count_nonzero((codes >= 65) & (codes <= 90)))
    letters = upper + int(np.count_nonzero((codes >= 97) & (codes <= 122)))
    for code in codes[codes > 127].tolist():
        c = chr(code)
        if c.isalpha():
            letters += 1
            upper += c.isupper()
    return letters, upper


def _code_points(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)


def _mostly_upper(counts: tuple[int, int]) -> bool:
    letters, upper = counts
    return letters >= 20 and upper / letters > 0.7


def _mostly_lower(counts: tuple[int, int]) -> bool:
    letters, upper = counts
    return letters >= 20 and upper / letters < 0.05


def _label_ok(label: str) -> bool:
    return (0 < len(label) <= MAX_HEADING_CHARS and len(label.split()) <= MAX_HEADING_WORDS
            and (label[0].isalpha() or any(c.isalpha() for c in label)))   # most begin with one


def _is_upper(label: str) -> bool:
    """Whether the label has letters, all upper case (``str.isupper`` where every letter is an
    ASCII one, so cased: the labels the heading patterns find)."""
    if label.isascii():
        return label.isupper()
    letters = [c for c in label if c.isalpha()]
    return bool(letters) and all(c.isupper() for c in letters)


def _line_heading(line: str, offset: int, inv: _Inventory, upper_doc: bool) -> Heading | None:
    """The heading at the start of one line, if any."""
    if not line.strip():
        return None
    m = _CAPS_LINE.fullmatch(line)
    if m:
        label = m.group(1)
        name = normalize_heading(label)
        if _label_ok(label) and (
                inv.known(name) or m.group(2)
                or (not upper_doc and any(w in inv.words for w in name.split()))):
            return Heading(offset + m.start(1), offset + m.end(2 if m.group(2) else 1), inv.name(name))
    m = _COLON_LABEL.match(line)
    if m:
        label = m.group(1)
        name = normalize_heading(label)
        if _label_ok(label) and (_is_upper(label) or inv.known(name)):
            return Heading(offset + m.start(1), offset + m.end(), inv.name(name))
    m = _LINE_LABEL.match(line)
    if m:
        label = m.group(1)
        if label.upper() in inv.line_labels and (
                label.isupper() or (len(label) >= 3 and label.istitle())):
            return Heading(offset + m.start(1), offset + m.end(1), inv.name(label.upper()))
    return None


#: Characters before a colon searched for the words of an inline label: enough for the four
#: words a label may have, so a line of megabytes costs linear time, not quadratic.
_INLINE_REACH = 200


def _words_before(line: str, skip_to: int, colon: int) -> list[re.Match]:
    """The label words between ``skip_to`` and ``colon``: the last ones found within
    :data:`_INLINE_REACH` characters (the first of those may be cut, so it is dropped) where
    that leaves the four a label may use, else all of them."""
    low = colon - _INLINE_REACH
    if low > skip_to:
        words = list(_LABEL_WORDS.finditer(line, low, colon))[1:]
        if len(words) >= 4:
            return words
    return list(_LABEL_WORDS.finditer(line, skip_to, colon))


def _separated(line: str, start: int) -> bool:
    """Whether ``line[:start]`` is blank or ends in a separator (:data:`_SEPARATOR_END`),
    looking only at its trailing whitespace and the character before it."""
    i = start
    while i > 0 and line[i - 1].isspace():
        i -= 1
    if i == 0:
        return True
    return bool(_SEPARATOR_END.search(line[i - 1:start]))


def _inline_headings(line: str, offset: int, skip_to: int, inv: _Inventory) -> list[Heading]:
    """Inventory labels ending in ':' inside a line, after position ``skip_to``."""
    found = []
    for colon in _INLINE_COLON.finditer(line, skip_to):
        if colon.start() < skip_to:
            continue
        words = _words_before(line, skip_to, colon.start())
        for k in range(min(4, len(words)), 0, -1):
            start = words[-k].start()
            phrase = line[start:colon.start()].rstrip(" \t")
            if not _INLINE_LABEL.fullmatch(phrase) or not phrase[0].isupper():
                continue
            name = normalize_heading(phrase)
            if not inv.known(name):
                continue
            if _separated(line, start) or (k >= 2 and line[start - 1].isspace()):
                found.append(Heading(offset + start, offset + colon.end(), inv.name(name)))
                skip_to = colon.end()
                break
    return found


def find_headings(text: str, counts: tuple[int, int] | None = None) -> list[Heading]:
    """The headings of ``text`` in order (see the module docstring for the rules); ``counts``:
    its :func:`_letter_counts`, when the caller has them."""
    inv = _inventory()
    upper_doc = _mostly_upper(counts or _letter_counts(_code_points(text)))
    headings: list[Heading] = []
    offset = 0
    for line in text.split("\n"):      # no match objects, no empty match at each line end
        if line:
            h = _line_heading(line, offset, inv, upper_doc)
            skip_to = 0
            if h is not None:
                headings.append(h)
                skip_to = h.end - offset
            if ":" in line:               # an inline label ends in one
                headings.extend(_inline_headings(line, offset, skip_to, inv))
        offset += len(line) + 1
    return headings


# ------------------------------------------------------------------------------------------
# Sentences.
# ------------------------------------------------------------------------------------------
_BULLET = frozenset("-*•#>+")


def _code_marks(chars) -> np.ndarray:
    """A boolean per code point up to the largest of ``chars``, True for theirs: with
    :func:`_marked`, ``np.isin`` over a note's code points without its set-up, which cost five
    times the lookup, twice a note."""
    table = np.zeros(max(map(ord, chars)) + 1, dtype=bool)
    table[[ord(c) for c in chars]] = True
    return table


def _marked(codes: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Which of ``codes`` (code points) ``table`` (:func:`_code_marks`) marks."""
    top = len(table) - 1
    return (codes <= top) & table[np.minimum(codes, top)]


_BULLET_MARKS = _code_marks(_BULLET)
#: '!', '?' and '.': a token of one of them may end a sentence.
_SENTENCE_MARKS = _code_marks("!?.")


def _dotted_word(tokens: Sequence[Token], period: int) -> str:
    """The word glued to the period token at ``period`` ('Dr', 'e.g', 's/p'), lower case."""
    parts = []
    i = period - 1
    while i >= 0 and tokens[i].end == tokens[i + 1].start:
        t = tokens[i].text
        if not (t.isalnum() or t in (".", "/")):
            break
        parts.append(t)
        i -= 1
    return "".join(reversed(parts)).lower()


def _ends_sentence(tokens: Sequence[Token], i: int, inv: _Inventory, line_start) -> bool:
    """Whether the punctuation token ``i`` ends a sentence (the next token's case aside)."""
    t = tokens[i].text
    if t in ("!", "?"):
        return True
    if t != ".":
        return False
    word = _dotted_word(tokens, i)
    if not word:
        return True
    if word in inv.abbreviations:
        return False
    if word.isdigit() and len(word) <= 2 and line_start[i - 1]:
        return False  # a list number at the start of a line: '1. Aspirin'
    prev = tokens[i - 1].text
    if len(prev) == 1 and prev.isupper() and len(word) == 1:
        return False  # an initial: 'J. Smith'
    return True


def _line_info(text: str) -> tuple[list[int], list[str]]:
    starts = [0] + [m.end() for m in re.finditer(r"\n", text)]
    lines = text.split("\n")
    return starts, lines


def _first_characters(codes: np.ndarray, starts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Of the tokens beginning at ``starts`` (offsets into a text of code points ``codes``),
    whether the first character is upper case or a digit, is a letter, and is a bullet, as
    ``str.isupper() or str.isdigit()``, ``str.isalpha()`` and membership of :data:`_BULLET`
    say: by code for ASCII, by those methods for the rest (instead of three passes over every
    token's text)."""
    first = codes[starts]
    capital = (first >= 65) & (first <= 90)
    upper = capital | ((first >= 48) & (first <= 57))
    letter = capital | ((first >= 97) & (first <= 122))
    for i in np.flatnonzero(first > 127).tolist():
        c = chr(first[i])
        upper[i], letter[i] = c.isupper() or c.isdigit(), c.isalpha()
    return upper, letter, _marked(first, _BULLET_MARKS)


def _sentence_starts(text, tokens, t_starts, t_ends, heading, in_heading, newlines, line_start,
                     lower_doc, inv, codes) -> np.ndarray:
    """Which tokens start a sentence: the first; one entering, leaving or changing a heading;
    one after a blank line; one after a sentence-ending mark that begins upper case (or any
    letter in a lower-case note); one at the start of a line after a short line, a line ending
    in ':' or one with no letter, that begins upper case or with a bullet. Each rule is an array
    over all tokens; the two that must look at words (:func:`_ends_sentence`, the line before)
    run only on the few tokens the arrays leave as candidates (a loop over every token would
    cost too much)."""
    n = len(tokens)
    new_sentence = np.zeros(n, dtype=bool)
    if not n:
        return new_sentence
    new_sentence[0] = True
    if n == 1:
        return new_sentence
    upper, letter, bullet = _first_characters(codes, t_starts[1:])
    breaks = newlines[t_starts[1:]] - newlines[t_ends[:-1]]
    here, before = in_heading[1:], in_heading[:-1]
    decided = ((here & ~before) | (here & (heading[1:] != heading[:-1])) | (before & ~here) | (breaks >= 2))
    # after '.', '!' or '?' with a gap, beginning upper case (or a letter in a lower-case note)
    marks = (t_ends[:-1] - t_starts[:-1] == 1) & _marked(codes[t_starts[:-1]], _SENTENCE_MARKS)
    if not lower_doc:
        letter = np.zeros(n - 1, dtype=bool)
    gap = t_starts[1:] > t_ends[:-1]
    for j in np.flatnonzero(~decided & marks & gap & (upper | letter)).tolist():
        decided[j] = _ends_sentence(tokens, j, inv, line_start)
    # at a line's start after a short line, a line ending in ':' or a line with no letter
    candidates = np.flatnonzero(~decided & (breaks == 1) & (upper | bullet))
    if len(candidates):
        line_starts, lines = _line_info(text)
        for j in candidates.tolist():
            line = lines[bisect_right(line_starts, tokens[j].start) - 1].strip()
            decided[j] = (len(line) < SHORT_LINE or line.endswith(":")
                          or not any(c.isalpha() for c in line))
    new_sentence[1:] = decided
    return new_sentence


def analyze(text: str, tokens: list[Token],
            offsets: tuple[np.ndarray, np.ndarray] | None = None) -> Structure:
    """Headings, sentences and lines of ``text`` for each of its ``tokens``; ``offsets``: their
    start and end offsets as arrays, when the caller has them."""
    inv = _inventory()
    n = len(tokens)
    codes = _code_points(text)
    counts = _letter_counts(codes)
    headings = find_headings(text, counts)
    h_starts = [h.start for h in headings]

    # per token as whole arrays rather than a Python loop writing one numpy element at a time
    t_starts, t_ends = token_bounds(tokens) if offsets is None else offsets
    heading = np.searchsorted(np.asarray(h_starts, dtype=np.int64), t_starts, side="right") - 1
    h_ends = np.asarray([h.end for h in headings] + [0], dtype=np.int64)   # [-1]: no heading
    in_heading = (heading >= 0) & (t_starts < h_ends[heading])

    lower_doc = _mostly_lower(counts)
    # newlines before each character offset, so "a newline between two tokens" is a difference
    newlines = np.concatenate([[0], np.cumsum(codes == ord("\n"))])
    line_start = np.ones(n, dtype=bool)
    if n > 1:
        line_start[1:] = newlines[t_starts[1:]] > newlines[t_ends[:-1]]
    new_sentence = _sentence_starts(text, tokens, t_starts, t_ends, heading, in_heading, newlines,
                                    line_start, lower_doc, inv, codes)

    sentence = np.cumsum(new_sentence, dtype=np.int64) - 1 if n else np.zeros(0, dtype=np.int64)
    n_sentences = int(sentence[-1]) + 1 if n else 0
    sentence_position = (sentence / n_sentences).astype(np.float64) if n else np.zeros(0)
    # tokens since the last sentence start (new_sentence[0] is always set)
    index = np.arange(n, dtype=np.int64)
    token_in_sentence = index - np.maximum.accumulate(np.where(new_sentence, index, 0)) if n \
        else np.zeros(0, dtype=np.int64)
    return Structure(heading, in_heading, sentence, sentence_position, line_start,
                     token_in_sentence, headings)
