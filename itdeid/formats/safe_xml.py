"""XML shared by both i2b2 formats: parsing with defusedxml (DTDs and entity declarations refused,
so an entity-expansion bomb cannot be fed in) through a SAX handler that knows its file and line,
and the escaping that lets every note text and id be written to XML and read back unchanged.
"""
from __future__ import annotations

import re
from xml.sax import SAXParseException
from xml.sax.handler import ContentHandler
from xml.sax.saxutils import escape

import defusedxml
import defusedxml.sax

from itdeid.document import Document
from itdeid.errors import FormatError


# Characters XML 1.0 cannot hold, not even as character references (form feed is one).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


#: A lone surrogate: what a str holds for undecodable bytes (``errors="surrogateescape"``), and
#: what no UTF-8 file can hold.
LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def check_xml_text(doc: Document, path) -> None:
    for value in (doc.id, doc.text):
        bad = _NOT_XML.search(value)
        if bad and LONE_SURROGATE.fullmatch(bad.group()):
            raise FormatError(path, unwritable(doc, bad.start(), bad.group(), path))
        if bad:
            raise FormatError(path, f"{_document(doc, path)}character U+{ord(bad.group()):04X} at "
                                    f"offset {bad.start()} cannot be written in XML 1.0 (JSON Lines or "
                                    "BRAT output can hold it)")


def unwritable(doc: Document, offset: int, character: str, path=None) -> str:
    """The message for a lone surrogate at ``offset`` of ``doc``'s text, which no output file
    can hold."""
    return (f"{_document(doc, path)}a lone surrogate (U+{ord(character):04X}) at offset {offset} "
            "cannot be written to a UTF-8 file: read the note's bytes with their own encoding, "
            "not errors='surrogateescape'")


def _document(doc: Document, path) -> str:
    """``document ID: `` where the file named does not already say which note it is."""
    return "" if path is not None and str(path) == doc.id else f"document {doc.id}: "


def escape_text(text: str) -> str:
    # A literal carriage return would be read back as a line feed (XML end-of-line handling).
    return escape(text, {"\r": "&#13;"})


def attribute(value: str) -> str:
    # Line ends and tabs would be read back as spaces (attribute-value normalisation).
    return '"' + escape(value, {'"': "&quot;", "\n": "&#10;", "\r": "&#13;", "\t": "&#9;"}) + '"'


def cdata(text: str) -> str:
    """``text`` as CDATA sections: a ``]]>`` is split across two, a carriage return goes between
    them as a character reference."""
    return ("<![CDATA[" + text.replace("]]>", "]]]]><![CDATA[>").replace("\r", "]]>&#13;<![CDATA[")
            + "]]>")


class XmlHandler(ContentHandler):
    """A SAX handler that knows its file and, through the parser's locator, the current line,
    so errors found while parsing can name both."""

    def __init__(self, path: str):
        super().__init__()
        self.path = path
        self.locator = None
        self.stack: list[str] = []

    def setDocumentLocator(self, locator):
        self.locator = locator

    def error(self, message: str) -> FormatError:
        return FormatError(self.path, message,
                           line=self.locator.getLineNumber() if self.locator else None)

    #: The format a handler reads, and the root element its files start with.
    FORMAT, ROOT = "XML", None

    def unexpected(self, name: str, parent: str | None, known) -> FormatError:
        """The error for element ``name`` where it does not belong, named only when it is one
        of the format's ``known`` elements: another name may be note text (an unescaped ``<``
        in a note), and messages never show note text. A file of another format (an i2b2 2006
        file in a folder read as 2014) is told by its first element."""
        if parent is None and self.ROOT:
            return self.error(f"not an {self.FORMAT} file: its first element is not <{self.ROOT}> "
                              "(a folder is read in one format; give files of one format, or "
                              "--format)")
        shown = f"<{name}>" if name in known else "element"
        return self.error(f"unexpected {shown}" + (f" in <{parent}>" if parent else "")
                          + (" (an unescaped '<' in the note text?)" if parent == "TEXT" else ""))

    def endElement(self, name):
        self.stack.pop()


def _encoding_hint(data: bytes) -> str:
    """A hint for a parse error in a file that is not UTF-8 and declares no other encoding (a
    latin-1 export): expat says only 'not well-formed (invalid token)'."""
    if b"encoding=" in data[:200]:
        return ""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        return (f"; the file is not UTF-8 (byte offset {error.start}) and declares no encoding: "
                "convert it (iconv -f latin1 -t utf-8) or declare it, <?xml version=\"1.0\" "
                "encoding=\"ISO-8859-1\"?>")
    return ""


def parse_xml(data: bytes, handler: XmlHandler) -> None:
    """Run ``handler`` over ``data`` with defusedxml (DTDs, entity declarations and external
    references refused); every parser failure becomes a :class:`FormatError` with the line."""
    try:
        defusedxml.sax.parseString(data, handler, forbid_dtd=True)
    except SAXParseException as error:
        raise FormatError(handler.path, f"not well-formed XML: {error.getMessage()} "
                                        f"(column {error.getColumnNumber() + 1}){_encoding_hint(data)}",
                          line=error.getLineNumber()) from None
    except defusedxml.DefusedXmlException:
        raise handler.error("XML with a DTD or entity declarations is refused "
                            "(entities can expand without bound)") from None
    except (LookupError, UnicodeError, ValueError):
        # the parser's message quotes the declared name, which is the file's text
        raise handler.error("its XML declaration names an encoding that cannot be read as text "
                            "(write the file in UTF-8 and declare encoding=\"UTF-8\")") from None
