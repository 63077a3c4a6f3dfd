"""The keyed draw and the helpers every surrogate class shares.

Every choice a stand-in makes is an integer drawn from ``HMAC-SHA256(key, message)``
(:class:`_Draw`), never from a random generator, so the same key, patient, class and original
always give the same stand-in (:mod:`itdeid.render.surrogate` builds the message). The helpers
here replace digits and letters by drawn ones (:func:`_reshape`, the fallback of every class),
normalise an original before it is hashed, and write a stand-in in its original's case and
surrounding whitespace.
"""
from __future__ import annotations

import hashlib
import hmac
import string


class _Draw:
    """Integers drawn from ``HMAC-SHA256(key, message)``, extended by counter blocks when one
    message needs more than four draws (a long ID), so every draw depends on the key and the
    message only. 64 bits a draw make the modulo bias negligible."""

    def __init__(self, key: bytes, message: str):
        self._key = key
        self._message = message.encode("utf-8", "surrogatepass")   # a lone surrogate too
        self._pool = hmac.new(key, self._message, hashlib.sha256).digest()
        self._block = 0

    def below(self, n: int) -> int:
        """A number in ``range(n)``."""
        if len(self._pool) < 8:
            self._block += 1
            counter = b"\x1e" + self._block.to_bytes(4, "big")
            self._pool += hmac.new(self._key, self._message + counter, hashlib.sha256).digest()
        value, self._pool = int.from_bytes(self._pool[:8], "big"), self._pool[8:]
        return value % n

    def choice(self, items, avoid: str = "") -> str:
        """An item of ``items``; if it is ``avoid`` (case-folded), the next one, so a surrogate
        is never its original."""
        index = self.below(len(items))
        if items[index].casefold() == avoid.casefold():
            index = (index + 1) % len(items)
        return items[index]


def _normalise(text: str) -> str:
    """Case-folded with whitespace runs as one space: "SMITH" and "Smith" are one original."""
    return " ".join(text.casefold().split())


def _reshape(draw: _Draw, text: str, letters: bool = True) -> str:
    """``text`` with every digit replaced by a drawn digit and (``letters``) every letter by a
    drawn ASCII letter of the same case; anything else kept."""
    out = []
    for char in text:
        if char.isdigit():
            out.append(str(draw.below(10)))
        elif letters and char.isalpha():
            letter = string.ascii_lowercase[draw.below(26)]
            out.append(letter if char.islower() else letter.upper())
        else:
            out.append(char)
    return "".join(out)


def _reshape_new(draw: _Draw, text: str, letters: bool = True, valid=None) -> str:
    """:func:`_reshape`, drawn again while the result equals ``text`` (a one-digit ID draws its
    own digit one time in ten) or ``valid`` refuses it (an IPv4 octet over 255); text without
    digits or letters has nothing to replace."""
    new = text
    for _ in range(20 if valid is None else 1000):
        new = _reshape(draw, text, letters)
        if new.casefold() != text.casefold() and (valid is None or valid(new)):
            return new
    return new


def _split_space(text: str) -> tuple[str, str, str]:
    """(leading whitespace, the rest stripped, trailing whitespace): kept around a surrogate."""
    core = text.strip()
    if not core:
        return text, "", ""
    start = text.index(core)
    return text[:start], core, text[start + len(core):]


def _case_like(original: str, new: str) -> str:
    """``new`` in the case of ``original`` where it is all capitals or all small letters;
    otherwise as the word list writes it."""
    if original.isupper():
        return new.upper()
    if original.islower():
        return new.lower()
    return new
