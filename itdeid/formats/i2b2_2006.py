"""i2b2 2006 XML: one file (or a .zip holding it) with every record,
``<ROOT><RECORD ID=".."><TEXT>..<PHI TYPE="..">..</PHI>..</TEXT></RECORD></ROOT>``; the PHI
elements are the spans, in the 2006 classes (:data:`itdeid.document.PHI_CLASSES`). The one broken
tag of the 2006 training file is repaired with a warning, so the release reads as distributed.
"""
from __future__ import annotations

import logging
from pathlib import Path

from itdeid.document import PHI_CLASSES, Document, Span
from itdeid.errors import FormatError
from itdeid.formats.common import atomic_write, check_spans, line_of, not_one_of, unique
from itdeid.formats.detect import xml_files
from itdeid.formats.files import read_bytes
from itdeid.formats.safe_xml import XmlHandler, attribute, check_xml_text, escape_text, parse_xml
from itdeid.formats.zips import is_zip, zip_xml

logger = logging.getLogger("itdeid.formats")


# The one broken tag of the 2006 training file: an opening DOCTOR tag where </PHI> belongs.
_BROKEN_2006 = b'<PHI TYPE="DATE">25th of July<PHI TYPE="DOCTOR">'
_REPAIRED_2006 = b'<PHI TYPE="DATE">25th of July</PHI>'
_PARENT_2006 = {"ROOT": None, "RECORD": "ROOT", "TEXT": "RECORD", "PHI": "TEXT"}


class _Handler2006(XmlHandler):
    FORMAT, ROOT = "i2b2 2006 XML", "ROOT"

    def __init__(self, path):
        super().__init__(path)
        self.documents: list[Document] = []
        self.record = None   # (id, text or None, spans) of the open RECORD
        self.parts = None    # the text pieces while inside TEXT
        self.length = 0      # characters in ``parts``
        self.phi = None      # (start, type) of the open PHI

    def startElement(self, name, attrs):
        parent = self.stack[-1] if self.stack else None
        if name not in _PARENT_2006 or _PARENT_2006[name] != parent:
            raise self.unexpected(name, parent, _PARENT_2006)
        if name == "RECORD":
            if not attrs.get("ID", "").strip():
                raise self.error("<RECORD> has no ID attribute, or an empty one")
            self.record = (attrs["ID"], None, [])
            self.patient = attrs.get("PATIENT")
        elif name == "TEXT":
            if self.record[1] is not None:
                raise self.error(f"record {self.record[0]} has a second <TEXT>")
            self.parts, self.length = [], 0
        elif name == "PHI":
            if attrs.get("TYPE") not in PHI_CLASSES:
                raise self.error(not_one_of("the PHI TYPE", PHI_CLASSES))
            self.phi = (self.length, attrs["TYPE"])
        self.stack.append(name)

    def characters(self, content):
        if self.parts is not None:
            self.parts.append(content)
            self.length += len(content)
        elif content.strip():
            raise self.error("text outside <TEXT>")

    def endElement(self, name):
        super().endElement(name)
        if name == "PHI":
            start, phi_type = self.phi
            if self.length == start:
                raise self.error("empty <PHI> element")
            self.record[2].append(Span(start, self.length, phi_type))
        elif name == "TEXT":
            self.record = (self.record[0], "".join(self.parts), self.record[2])
            self.parts = None
        elif name == "RECORD":
            record_id, text, spans = self.record
            if text is None:
                raise self.error(f"record {record_id} has no <TEXT>")
            self.documents.append(Document(record_id, text, spans, patient=self.patient,
                                           source=self.path))


def _repair_2006(data: bytes, path: str) -> bytes:
    """``data`` with the known broken tag of the 2006 training file mended, with a warning."""
    position = data.find(_BROKEN_2006)
    while position >= 0:
        logger.warning("%s:%d: repaired a broken PHI tag (an opening DOCTOR tag where the DATE "
                       "element's </PHI> belongs)", path, line_of(data, position))
        position = data.find(_BROKEN_2006, position + 1)
    return data.replace(_BROKEN_2006, _REPAIRED_2006)


def read_i2b2_2006(path) -> list[Document]:
    """The records of an i2b2 2006 XML file, of the one XML file in a .zip, or of the XML files of
    a folder (at any depth).

    ``Document.id`` is the RECORD ID; ``Document.patient`` the optional PATIENT attribute, an
    itdeid extension that the i2b2 files do not have (their records are read with no patient,
    so each is its own cross-validation group) and that :func:`write_i2b2_2006` writes for
    documents that have one (the synthetic corpus keeps its patient timelines this way); the text is the TEXT content with the PHI tags taken out,
    unescaped, every character kept (including the line ends around it and ``[ report_end ]``).
    """
    if Path(path).is_dir():       # a folder of such files: what itdeid deid --format xml writes
        return unique([doc for file in xml_files(path) for doc in read_i2b2_2006(file)], path)
    if is_zip(path):
        members = zip_xml(path)
        if len(members) != 1:
            raise FormatError(path, f"expected one XML file in the zip archive, found {len(members)}")
        source, data = members[0]
    else:
        source, data = str(path), read_bytes(path)
    handler = _Handler2006(source)
    parse_xml(_repair_2006(data, source), handler)
    return unique(handler.documents, source)


def write_i2b2_2006(documents: list[Document], path) -> None:
    """Write ``documents`` as one i2b2 2006 XML file that :func:`read_i2b2_2006` reads back to the
    same ids, texts and spans (spans must not overlap: XML elements cannot)."""
    atomic_write(path, render_i2b2_2006(documents, path))


def render_i2b2_2006(documents: list[Document], path="<i2b2-2006>") -> bytes:
    """The UTF-8 bytes :func:`write_i2b2_2006` writes, for callers that write the file themselves
    (one file a note in ``itdeid.render.outputs``); ``path`` only names the output in errors."""
    unique(documents, path)
    out = ['<?xml version="1.0" encoding="UTF-8"?>\n<ROOT>\n']
    for doc in documents:
        check_spans(doc, path)
        check_xml_text(doc, path)
        patient = f" PATIENT={attribute(doc.patient)}" if doc.patient is not None else ""
        out.append(f"<RECORD ID={attribute(doc.id)}{patient}>\n<TEXT>")
        position = 0
        for span in sorted(doc.spans):
            out += [escape_text(doc.text[position:span.start]), f'<PHI TYPE="{span.type}">',
                    escape_text(doc.text[span.start:span.end]), "</PHI>"]
            position = span.end
        out += [escape_text(doc.text[position:]), "</TEXT>\n</RECORD>\n"]
    out.append("</ROOT>\n")
    return "".join(out).encode("utf-8")
