"""The text the model reads: typographic look-alikes as ASCII, invisible characters left out,
accents composed onto their letters, with a map back to the note's own offsets.

Notes pasted from web pages, word processors and PDFs carry characters a typist's keyboard
would not have produced, and each cut a date, an ID or a name into pieces that the model tagged
one by one, so part of the PHI stayed in the output:

- typographic look-alikes of ASCII punctuation: a hyphen (U+2010), a non-breaking hyphen, an
  en dash or a minus sign (U+2212) for '-', a fraction or division slash for '/', a no-break or
  thin space for ' '; and the full-width forms East Asian input methods type ('０３／１４／２０１９',
  '：', '。'), which spans took in as the letters of a name beside them. The tokenizer keeps digit groups joined by ASCII '/ - .' whole and the
  templates are written for ASCII, so '2019‐03‐14' came out as '[**DATE**]‐14' and an SSN with
  en dashes as '[**ID**]–45–[**ID**]';
- invisible characters (zero-width space and joiners, word joiner, soft hyphen, byte-order mark,
  direction marks, variation selectors, tag characters): '03/<ZWSP>14/2019' came out as
  '[**DATE**]/14/2019';
- combining accents of decomposed (NFD) text, which macOS and PDF copies produce: each accent
  was a punctuation token inside its word, and 'Hélène' three tokens of two classes.

So the model reads every note through :func:`model_text`. Look-alikes are replaced one
character for one. A note with invisible characters or combining marks is read without them,
each letter with its accents as one character (the NFC composition where there is one, else the
bare letter), and comes with ``starts``: where each character read begins in the note. Spans
found on the text read are mapped back through it (:func:`to_note`), so what is redacted or
replaced is the note's own text, invisible characters and accents included; gold spans of a
training note are mapped onto the text read (:func:`to_model`). Most notes are ASCII and are
read as they are, at the cost of one ``str.isascii``.
"""
from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left, bisect_right

import numpy as np

from itdeid.document import Span

_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"
_SLASHES = "\u2044\u2215\u29f8\uff0f"
_SPACES = "\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000"

#: The full-width forms of ASCII (U+FF01-FF5E: '０３／１４', '（６１７）') and the ideographic
#: full stop and comma, which East Asian input methods type: one for one to ASCII.
_FULL_WIDTH = {**{chr(0xFF01 + k): chr(0x21 + k) for k in range(0x5E)}, "\u3002": ".", "\u3001": ","}

#: ``str.translate`` table: each look-alike to its ASCII character.
LOOKALIKES = str.maketrans({**_FULL_WIDTH, **dict.fromkeys(_DASHES, "-"),
                            **dict.fromkeys(_SLASHES, "/"), **dict.fromkeys(_SPACES, " ")})
#: Characters that show nothing: Unicode's default-ignorable ones (soft hyphen, zero-width
#: space and joiners, direction marks, the Mongolian vowel separator, Hangul fillers, variation
#: selectors, byte-order mark, tag characters). One left out cut a name for the model, and the
#: part after it stayed in the output ('Kowal<U+180E>czyk' came out '[**PATIENT**]czyk').
INVISIBLE = ("\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
             "\u2060-\u2064\u2066-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\U0001bca0-\U0001bca3"
             "\U000e0000-\U000e0fff")
#: Where combining marks are (a superset: a character here is only composed or left out when
#: Unicode calls it a mark): Latin, Cyrillic, Hebrew, Arabic and Syriac accents and points, the
#: scripts of India and South-East Asia, the general combining blocks, the CJK tone and kana
#: sound marks, and the combining half marks.
_MARKS = ("\u0300-\u036f\u0483-\u0489\u0591-\u05c7\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06ed"
          "\u0711\u0730-\u074a\u0900-\u0dff\u0e31-\u0e4e\u0eb1-\u0ecd\u0f18-\u0fbc\u102b-\u103e"
          "\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\u302a-\u302f\u3099\u309a\ufe20-\ufe2f")
#: A character the text read leaves out or composes: an invisible one or a combining mark (a
#: note without one, nearly all, is passed by one scan of the engine).
_NOT_ONE_FOR_ONE = re.compile(f"[{INVISIBLE}{_MARKS}]")
_INVISIBLE = re.compile(f"[{INVISIBLE}]")


def model_text(text: str) -> tuple[str, np.ndarray | None]:
    """(the text the model reads, ``starts``): ``starts[k]`` is the offset in ``text`` where
    character ``k`` of the text read begins (one more entry, ``len(text)``, closes the last);
    None when the text read is ``text`` one character for one (look-alikes replaced only), so
    offsets are the same in both."""
    if text.isascii():
        return text, None
    plain = text.translate(LOOKALIKES)
    if not _NOT_ONE_FOR_ONE.search(plain):
        return plain, None
    chars, starts = [], []
    for k, char in enumerate(plain):
        if _INVISIBLE.match(char):
            continue                          # it belongs to the character before it
        if chars and unicodedata.category(char) in ("Mn", "Mc", "Me"):
            composed = unicodedata.normalize("NFC", chars[-1] + char)
            if len(composed) == 1:            # 'e' + U+0301 -> 'é'; else the mark is left out
                chars[-1] = composed
            continue
        chars.append(char)
        starts.append(k)
    starts.append(len(text))
    return "".join(chars), np.array(starts, dtype=np.int64)


def to_note(spans: list[Span], starts: np.ndarray | None) -> list[Span]:
    """Spans over the text read as spans over the note: each takes in the whole of its first
    and last characters (their accents, and the invisible characters after them)."""
    if starts is None:
        return spans
    return [Span(int(starts[s.start]), int(starts[s.end]), s.type, s.subtype) for s in spans]


def to_model(spans: list[Span], starts: np.ndarray | None, text: str = "") -> list[Span]:
    """Spans over the note ``text`` as spans over the text read, in whole characters read: an
    edge between a letter and its accent takes the letter; an edge at invisible characters
    (which belong to the character read before them) keeps them out, so 'John<ZWSP>|Smith'
    stays two spans and a note that starts with one still starts at 0. Spans left empty, or
    overlapping the one before, are dropped."""
    if starts is None:
        return spans
    edges = starts.tolist()

    def first(offset: int) -> int:
        """The first character read of a span starting at ``offset``."""
        k = bisect_right(edges, offset) - 1             # the character read ``offset`` lies in
        if k < 0 or offset == edges[k]:
            return max(k, 0)                            # (before the first: leading invisibles)
        inside = text[offset:edges[k + 1]]              # an accent of k, or invisibles after it
        return k + 1 if inside and all(_INVISIBLE.match(c) for c in inside) else k

    out = []
    for s in spans:
        start, end = first(s.start), bisect_left(edges, s.end)
        if start < end and (not out or start >= out[-1].end):
            out.append(Span(start, end, s.type, s.subtype))
    return out
