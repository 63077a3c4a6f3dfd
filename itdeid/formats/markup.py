"""Notes saved as HTML: read as the text they show, not as markup.

Read as plain text, an HTML note's markup was tagged as PHI and its character references split
names (``Jos&eacute;`` left ``Jos``). A text file that starts as an HTML document (a doctype,
or an ``html``, ``head``, ``body`` or common block element first, after an XML declaration or
comments) is converted to its text with the standard library's :mod:`html.parser`: character
references decoded, elements removed (their attributes, comments and the content of ``script``
and ``style`` left out), a line end where a block element (a paragraph, a table row, ``br``)
begins or ends and a tab between table cells, so that words of two blocks never run together;
the text's own spaces and line ends are kept as they are.

That text is the note: every output holds it (``redact``, ``surrogate``, brat's ``.txt``, the
xml) and every offset indexes it, not the HTML file. RTF is not converted but refused
(:mod:`itdeid.formats.decoding`).
"""
from __future__ import annotations

import re
from html.parser import HTMLParser

from itdeid.formats.decoding import decode_text

# How an HTML document starts: a byte-order mark, spaces, an XML declaration and comments
# may come before the doctype or the first element.
_HTML_START = re.compile(
    r"\A\ufeff?\s*(?:<\?xml[^>]*>\s*)?(?:<!--.*?-->\s*)*"
    r"<(?:!doctype\s+html|html|head|body|div|p|table|h[1-6]|pre|ul|ol|span|font)[\s/>]",
    re.IGNORECASE | re.DOTALL)
# Elements that begin and end on a line of their own.
_BLOCKS = frozenset({
    "address", "article", "aside", "blockquote", "body", "br", "caption", "dd", "div", "dl",
    "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5",
    "h6", "head", "header", "hr", "html", "li", "main", "nav", "ol", "p", "pre", "section",
    "table", "tbody", "tfoot", "thead", "title", "tr", "ul"})
_CELLS = frozenset({"td", "th"})
# Elements whose content is code, not text.
_CODE = frozenset({"script", "style"})


def is_html(text: str) -> bool:
    """Whether a note's text starts as an HTML document (see the module docstring)."""
    return _HTML_START.match(text) is not None


class _Text(HTMLParser):
    """Collects the text of an HTML document, as the module docstring says."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.pieces: list[str] = []
        self.in_code = 0

    def _separate(self, separator: str) -> None:
        """Add ``separator`` unless the text is empty or already ends with a line end or it."""
        last = next((piece[-1] for piece in reversed(self.pieces) if piece), "\n")
        if last != "\n" and last != separator:
            self.pieces.append(separator)

    def handle_starttag(self, tag, attrs):
        if tag in _CODE:
            self.in_code += 1
        elif tag in _BLOCKS:
            self._separate("\n")
        elif tag in _CELLS:
            self._separate("\t")

    def handle_startendtag(self, tag, attrs):
        if tag in _BLOCKS:
            self._separate("\n")

    def handle_endtag(self, tag):
        if tag in _CODE:
            self.in_code = max(0, self.in_code - 1)
        elif tag in _BLOCKS:
            self._separate("\n")

    def handle_data(self, data):
        if not self.in_code:
            self.pieces.append(data)


def html_to_text(html: str) -> str:
    """The text of the HTML document ``html`` (see the module docstring)."""
    parser = _Text()
    parser.feed(html)
    parser.close()
    return "".join(parser.pieces)


def note_text(data: bytes, path) -> tuple[str, bool]:
    """(the note of a text file's bytes, whether it was HTML converted to text): decoded by
    :func:`~itdeid.formats.decoding.decode_text` (``path`` names the file in its errors), then
    converted when it is an HTML document."""
    text = decode_text(data, path)
    if is_html(text):
        return html_to_text(text), True
    return text, False
