"""The text the model reads: Unicode look-alikes of ASCII punctuation and spaces read as ASCII.

Notes pasted from web pages, word processors and PDFs carry typographic characters where a
typist would have pressed a plain key: a hyphen (U+2010), a non-breaking hyphen, an en dash or a
minus sign (U+2212) for '-', a fraction or division slash for '/', a no-break or thin space for
' '. The tokenizer keeps digit groups joined by ASCII '/ - .' whole ('03-14-2019', '123-45-6789')
and the templates and regex features are written for ASCII separators; with a look-alike the
date fell apart into pieces that the model tagged one by one, and the day and year of a date, or
the middle of a social security number, were left in the output ('[**DATE**]-14', 'SSN
[**ID**]–45–[**ID**]').

So the model reads every note through :func:`plain_punctuation`, which replaces each look-alike
by its ASCII character. It is one character for one, so every offset into the text read is the
same offset into the original note: spans found on the text read are cut from the original
unchanged, and what is written out (redacted, surrogate, review formats) keeps the original's
own characters. Characters with no one-for-one ASCII reading are left alone: zero-width spaces
and joiners, soft hyphens and combining accents (decomposed, NFD, text) inside a word still cut
it into tokens; :mod:`itdeid.spans` lets a PHI span grow across them, but the model sees the
pieces.
"""
from __future__ import annotations

_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"
_SLASHES = "\u2044\u2215\u29f8\uff0f"
_SPACES = "\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000"

#: ``str.translate`` table: each look-alike to its ASCII character.
LOOKALIKES = str.maketrans({**dict.fromkeys(_DASHES, "-"), **dict.fromkeys(_SLASHES, "/"),
                            **dict.fromkeys(_SPACES, " ")})


def plain_punctuation(text: str) -> str:
    """``text`` with every look-alike of :data:`LOOKALIKES` replaced by its ASCII character; the
    same length, so offsets carry over. ASCII text (most notes) is returned as it is."""
    if text.isascii():
        return text
    return text.translate(LOOKALIKES)
