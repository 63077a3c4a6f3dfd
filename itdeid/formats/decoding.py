"""From a file's bytes to note text: the one decoder that ``itdeid tag`` (plain-text input) and
``itdeid deid`` share, so a file is read the same way whichever command reads it.

A note that is misread is a note whose PHI is missed: a UTF-16 file read byte by byte is text
with a NUL between letters, which no model tags; a PNG read as latin-1 is "a note" with no PHI.
So nothing is guessed:

- A byte-order mark says the encoding: UTF-8, UTF-16 (LE/BE) or UTF-32 (LE/BE). The text is
  what Python's ``open(path, encoding=...)`` reads with that encoding (``utf-8``, ``utf-16``,
  ``utf-32``), so that every offset itdeid writes indexes the text a user's own script reads:
  a UTF-8 mark is kept, as the text's first character U+FEFF (the ``utf-8`` codec keeps it,
  and the outputs, UTF-8 too, then start with the same mark); a UTF-16 or UTF-32 mark is not
  part of the text (those codecs drop it), and offsets count characters after it.
- Without a mark the text must be UTF-8. Anything else (latin-1, cp1252) is an error naming the
  file and the offset of the first byte that is not UTF-8: convert the file (``iconv -f latin1
  -t utf-8``) rather than have itdeid guess; a wrong guess changes names.
- Binary files are refused, looking at the whole file, not its first bytes: a known signature at
  the start (:data:`BINARY_SIGNATURES`: PNG, JPEG, GIF, PDF, ELF, gzip, zip, ...), or a NUL
  anywhere (a NUL byte in a file without a mark; a NUL character in the decoded text of any
  file), since no clinical note holds one and an output must not copy it. A file without a
  mark whose NUL bytes are those of UTF-16 or UTF-32 text (it reads as text in one of them)
  is refused as that, with the command that converts it, rather than called binary.
- An RTF document (``{\\rtf`` at the start) is refused, with how to convert it: read as text,
  its control words were tagged as PHI and its escaped letters (``\\'f1``) split names.
  (HTML, which is text, is converted by :mod:`itdeid.formats.markup`.)

Every refusal is a :class:`~itdeid.errors.FormatError` naming the file and an offset, never the
text. PhysioNet deid files are latin-1 by that format's definition (its phrase offsets count
bytes): they are checked with :func:`refuse_binary` and decoded as latin-1 by their reader.
"""
from __future__ import annotations

import re
import unicodedata

from itdeid.errors import FormatError

#: Byte-order marks and their codecs; the UTF-32 marks come first because the UTF-32-LE mark
#: begins with the UTF-16-LE one. The UTF-8 mark is decoded with the text (see the module
#: docstring); the others are not.
BYTE_ORDER_MARKS: tuple[tuple[bytes, str, str], ...] = (
    (b"\x00\x00\xfe\xff", "utf-32-be", "UTF-32"),
    (b"\xff\xfe\x00\x00", "utf-32-le", "UTF-32"),
    (b"\xef\xbb\xbf", "utf-8", "UTF-8"),
    (b"\xfe\xff", "utf-16-be", "UTF-16"),
    (b"\xff\xfe", "utf-16-le", "UTF-16"),
)

#: Signatures that start common binary files, with what they say the file is. Only signatures
#: that no text can start with (they hold control bytes or bytes that are not UTF-8).
BINARY_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"II*\x00", "a TIFF image"),
    (b"MM\x00*", "a TIFF image"),
    (b"%PDF-", "a PDF document"),
    (b"\x7fELF", "an ELF executable"),
    (b"\x1f\x8b", "gzip-compressed data"),
    (b"PK\x03\x04", "a zip archive, or a .docx/.xlsx document"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an old Microsoft Office document"),
    (b"\xfd7zXZ\x00", "xz-compressed data"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"\x28\xb5\x2f\xfd", "zstd-compressed data"),
    (b"SQLite format 3\x00", "an SQLite database"),
)


def refuse_binary(data: bytes, path) -> None:
    """Raise :class:`FormatError` when ``data`` starts with a binary signature or holds a NUL
    byte anywhere (for files without a byte-order mark; see :func:`decode_text`)."""
    for signature, what in BINARY_SIGNATURES:
        if data.startswith(signature):
            raise FormatError(path, f"binary file ({what}), not text")
    nul = data.find(b"\0")
    if nul >= 0:
        unmarked = _unmarked_unicode(data)
        if unmarked:
            raise FormatError(path, f"looks like {unmarked} without a byte-order mark (NUL byte at "
                                    f"offset {nul}), not UTF-8; convert it to UTF-8 (e.g. iconv "
                                    f"-f {unmarked} -t utf-8)")
        raise FormatError(path, f"binary file (NUL byte at offset {nul}), not text")


#: Encodings a file without a byte-order mark may be in when it holds NUL bytes: (codec, name
#: iconv knows it by, bytes a character).
_UNMARKED = (("utf-16-le", "UTF-16LE", 2), ("utf-16-be", "UTF-16BE", 2),
             ("utf-32-le", "UTF-32LE", 4), ("utf-32-be", "UTF-32BE", 4))
# Characters no note holds: controls other than line ends and tabs, private use, unassigned.
_NOT_IN_NOTES = ("Cc", "Co", "Cn")


def _unmarked_unicode(data: bytes) -> str | None:
    """The name of the encoding (UTF-16LE/BE, UTF-32LE/BE) that ``data``, holding NUL bytes and
    no byte-order mark, reads as text in, or None: the whole file decodes in it without a
    NUL, its first characters hold a space or line end, and none that no note holds. Text
    mostly in the ASCII range is such a file's common case, its every other byte (or three of
    four) a NUL; binary data rarely decodes so."""
    for codec, name, width in _UNMARKED:
        if len(data) % width:
            continue
        try:
            text = data.decode(codec)
        except UnicodeDecodeError:
            continue
        sample = text[:10_000]
        if "\0" in text or not any(c in sample for c in " \t\r\n"):
            continue
        if all(c in "\t\n\r\f\v" or unicodedata.category(c) not in _NOT_IN_NOTES
               for c in sample):
            return name
    return None


#: How an RTF document starts (after a UTF-8 byte-order mark and spaces, if any).
_RTF_START = re.compile(rb"\A(?:\xef\xbb\xbf)?[ \t\r\n]*\{\\rtf")


def decode_text(data: bytes, path) -> str:
    """The text of a file's bytes, decoded as the module docstring says (byte-order mark, else
    UTF-8; binary and RTF refused); ``path`` names the file in errors."""
    if _RTF_START.match(data):
        raise FormatError(path, "an RTF document, not plain text; convert it to UTF-8 text first "
                                "(e.g. soffice --headless --convert-to 'txt:Text (encoded):UTF8' "
                                "FILE)")
    for mark, codec, name in BYTE_ORDER_MARKS:
        if data.startswith(mark):
            # the UTF-8 mark stays in the text as U+FEFF, as open(path, encoding="utf-8") reads it
            kept = 0 if codec == "utf-8" else len(mark)
            try:
                text = data[kept:].decode(codec)
            except UnicodeDecodeError as error:
                raise FormatError(path, f"not {name} after its {name} byte-order mark (byte "
                                        f"offset {kept + error.start})") from None
            break
    else:
        refuse_binary(data, path)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise FormatError(path, f"not UTF-8 (byte offset {error.start}) and no byte-order "
                                    "mark; convert it to UTF-8 (e.g. iconv -f latin1 -t utf-8)"
                              ) from None
    nul = text.find("\0")
    if nul >= 0:
        raise FormatError(path, f"binary file (NUL character at offset {nul} of the text), "
                                "not text")
    return text
