"""Reading and writing corpora: every format becomes a list of :class:`~itdeid.document.Document`.

=========  =====================================================================================
format     layout
=========  =====================================================================================
i2b2-2006  one XML file, or a .zip holding it: ``<ROOT><RECORD ID=".."><TEXT>..<PHI TYPE="..">..
           </PHI>..</TEXT></RECORD></ROOT>``; the PHI elements are the spans.
i2b2-2014  one XML file a note (a file, a folder of ``*.xml`` or a .zip of them): ``<deIdi2b2>
           <TEXT><![CDATA[..]]></TEXT><TAGS><DATE id="P0" start=".." end=".." text=".."
           TYPE="DATE" comment=""/>..</TAGS></deIdi2b2>``; ``100-01.xml`` is note 01 of patient 100.
physionet  PhysioNet deid ``id.text`` (``START_OF_RECORD=<patient>||||<note>||||`` .. ``||||END_OF_
           RECORD``) and ``id-phi.phrase`` (``<patient> <note> <start> <end> <category> <text>``).
text       plain text files, no spans.
jsonl      spans only, one ``{"doc": .., "start": .., "end": .., "type": ..}`` a line.
=========  =====================================================================================

Every reader keeps the note text exactly as stored (line ends included), returns spans sorted by
offset, refuses duplicate document ids, and reports bad input as :class:`FormatError` naming the
file and line (never the note's text). XML is parsed with defusedxml, DTDs refused, so an
entity-expansion bomb cannot be fed in. Writers write to a temporary file and ``os.replace`` it,
so a crash never leaves half a file; the files they write are readable by the owner only, like the
PHI they may hold.

Mapping of the i2b2 2014 ``TYPE`` onto the 2006 classes (:data:`I2B2_2014_TO_2006`):

===========================================================================  ===============
2014 TYPE                                                                    2006 class
===========================================================================  ===============
PATIENT                                                                      PATIENT
DOCTOR, USERNAME                                                             DOCTOR
HOSPITAL                                                                     HOSPITAL
CITY, STATE, ZIP, STREET, COUNTRY, ORGANIZATION, LOCATION-OTHER, LOCATION*   LOCATION
MEDICALRECORD, IDNUM, DEVICE, HEALTHPLAN, BIOID, ACCOUNT, LICENSE, SSN,      ID
VEHICLE, EMAIL, URL, IPADDR, ID*
PHONE, FAX                                                                   PHONE
AGE                                                                          AGE
DATE                                                                         DATE
PROFESSION                                                                   (dropped)
===========================================================================  ===============

PROFESSION has no 2006 class: those tags are dropped and their number logged. The types marked *
are not in the 2014 release; :func:`write_i2b2_2014` writes them for spans that have no finer
type, so its files read back.

PhysioNet categories (:data:`PHYSIONET_TO_2006`, as the corpus README gives them): HCPName →
DOCTOR; PTName, PTNameInitial, RelativeProxyName → PATIENT; Date, DateYear → DATE; Location →
LOCATION; Phone → PHONE; Age → AGE; Other → ID. Both readers keep the corpus's own label in
``Span.subtype``.

Duplicate and overlapping spans (i2b2 2014, PhysioNet): a span identical to another (same offsets
and class) is merged into it, and the number merged is logged; a span overlapping one already kept
(the longer, then the first listed, wins) is dropped with a warning naming document and offsets,
because the token labels every later stage builds cannot hold two classes at once. The PhysioNet
developer split has neither.
"""
from __future__ import annotations

import glob
import json
import logging
import os
import re
import tempfile
import zipfile
import zlib
from pathlib import Path
from xml.sax import SAXParseException
from xml.sax.handler import ContentHandler
from xml.sax.saxutils import escape

import defusedxml
import defusedxml.sax

from itdeid.document import PHI_CLASSES, Document, Span
from itdeid.errors import FormatError

logger = logging.getLogger("itdeid.formats")

#: Formats :func:`read_corpus` reads; ``auto`` detects one of the others.
READ_FORMATS = ("auto", "i2b2-2006", "i2b2-2014", "physionet", "text")
#: Formats :func:`write_corpus` writes.
WRITE_FORMATS = ("i2b2-2006", "i2b2-2014", "physionet", "jsonl")

#: i2b2 2014 ``TYPE`` → 2006 class (None: no 2006 class, the tag is dropped). See the table above.
I2B2_2014_TO_2006: dict[str, str | None] = {
    "PATIENT": "PATIENT",
    "DOCTOR": "DOCTOR", "USERNAME": "DOCTOR",
    "HOSPITAL": "HOSPITAL",
    "CITY": "LOCATION", "STATE": "LOCATION", "ZIP": "LOCATION", "STREET": "LOCATION",
    "COUNTRY": "LOCATION", "ORGANIZATION": "LOCATION", "LOCATION-OTHER": "LOCATION",
    "LOCATION": "LOCATION",
    "MEDICALRECORD": "ID", "IDNUM": "ID", "DEVICE": "ID", "HEALTHPLAN": "ID", "BIOID": "ID",
    "ACCOUNT": "ID", "LICENSE": "ID", "SSN": "ID", "VEHICLE": "ID", "EMAIL": "ID", "URL": "ID",
    "IPADDR": "ID", "ID": "ID",
    "PHONE": "PHONE", "FAX": "PHONE",
    "AGE": "AGE",
    "DATE": "DATE",
    "PROFESSION": None,
}
#: The i2b2 2014 tag names (categories); ``PHI`` is used by some releases for every category.
I2B2_2014_CATEGORIES = frozenset(
    {"NAME", "PROFESSION", "LOCATION", "AGE", "DATE", "CONTACT", "ID", "PHI"})
_CATEGORY_2014 = {"PATIENT": "NAME", "DOCTOR": "NAME", "HOSPITAL": "LOCATION",
                  "LOCATION": "LOCATION", "ID": "ID", "PHONE": "CONTACT", "AGE": "AGE",
                  "DATE": "DATE"}

#: PhysioNet deid ``id-phi.phrase`` category → 2006 class.
PHYSIONET_TO_2006: dict[str, str] = {
    "HCPName": "DOCTOR",
    "PTName": "PATIENT", "PTNameInitial": "PATIENT", "RelativeProxyName": "PATIENT",
    "Date": "DATE", "DateYear": "DATE",
    "Location": "LOCATION",
    "Phone": "PHONE",
    "Age": "AGE",
    "Other": "ID",
}
#: The category written for a span with no PhysioNet subtype (HOSPITAL reads back as LOCATION:
#: the corpus does not separate them).
_PHYSIONET_CATEGORY = {"DOCTOR": "HCPName", "PATIENT": "PTName", "DATE": "Date",
                       "LOCATION": "Location", "HOSPITAL": "Location", "PHONE": "Phone",
                       "AGE": "Age", "ID": "Other"}


# --------------------------------------------------------------------------------------------
# Shared helpers

def _read_bytes(path) -> bytes:
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        raise FormatError(path, "no such file or folder") from None
    except OSError as error:
        raise FormatError(path, f"cannot read: {error.strerror}") from None


def _atomic_write(path, data: bytes) -> None:
    """Write ``data`` through a temporary file in the same folder, then ``os.replace`` it, so
    readers (and a crash) see the old file or the new one, never half of one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.",
                                             suffix=".tmp")
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def _line_of(data, offset: int) -> int:
    """The 1-based line of ``offset`` in ``data`` (str or bytes)."""
    return data.count(b"\n" if isinstance(data, bytes) else "\n", 0, offset) + 1


def _unique(documents: list[Document], path=None) -> list[Document]:
    """``documents``, after checking no id occurs twice (naming ``path``, else the file the
    second one came from)."""
    seen = set()
    for doc in documents:
        if doc.id in seen:
            raise FormatError(path if path is not None else doc.source,
                              f"document id {doc.id!r} occurs more than once")
        seen.add(doc.id)
    return documents


def _clean_spans(spans: list[Span], path, doc_id: str) -> tuple[list[Span], int]:
    """Sorted spans with identical ones merged and overlapping ones dropped (see the module
    docstring); also the number merged, for the caller to report once per file."""
    kept: list[Span] = []
    merged = 0
    for span in sorted(spans, key=lambda s: (s.start, -s.end)):  # stable: first listed wins
        if kept and span.start < kept[-1].end:
            if span == kept[-1]:
                merged += 1
            else:
                logger.warning("%s: document %s: span %d-%d overlaps span %d-%d and is dropped",
                               path, doc_id, span.start, span.end, kept[-1].start, kept[-1].end)
            continue
        kept.append(span)
    return kept, merged


def _check_spans(doc: Document, path) -> None:
    try:
        doc.check_spans()
    except ValueError as error:
        raise FormatError(path, str(error)) from None


def _label(span: Span, table: dict, default: dict) -> str:
    """The corpus label to write: the span's subtype where ``table`` maps it to the span's class
    (so a subtype from another corpus never gives an unreadable file), else ``default``."""
    return span.subtype if table.get(span.subtype) == span.type else default[span.type]


# --------------------------------------------------------------------------------------------
# XML (both i2b2 formats)

# Characters XML 1.0 cannot hold, not even as character references (form feed is one).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _check_xml_text(doc: Document, path) -> None:
    for value in (doc.id, doc.text):
        bad = _NOT_XML.search(value)
        if bad:
            raise FormatError(path, f"document {doc.id}: character U+{ord(bad.group()):04X} at "
                                    f"offset {bad.start()} cannot be written in XML 1.0")


def _escape(text: str) -> str:
    # A literal carriage return would be read back as a line feed (XML end-of-line handling).
    return escape(text, {"\r": "&#13;"})


def _attribute(value: str) -> str:
    # Line ends and tabs would be read back as spaces (attribute-value normalisation).
    return '"' + escape(value, {'"': "&quot;", "\n": "&#10;", "\r": "&#13;", "\t": "&#9;"}) + '"'


def _cdata(text: str) -> str:
    """``text`` as CDATA sections: a ``]]>`` is split across two, a carriage return goes between
    them as a character reference."""
    return ("<![CDATA[" + text.replace("]]>", "]]]]><![CDATA[>").replace("\r", "]]>&#13;<![CDATA[")
            + "]]>")


class _XmlHandler(ContentHandler):
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

    def endElement(self, name):
        self.stack.pop()


def _parse_xml(data: bytes, handler: _XmlHandler) -> None:
    """Run ``handler`` over ``data`` with defusedxml (DTDs, entity declarations and external
    references refused); every parser failure becomes a :class:`FormatError` with the line."""
    try:
        defusedxml.sax.parseString(data, handler, forbid_dtd=True)
    except SAXParseException as error:
        raise FormatError(handler.path, f"not well-formed XML: {error.getMessage()} "
                                        f"(column {error.getColumnNumber() + 1})",
                          line=error.getLineNumber()) from None
    except defusedxml.DefusedXmlException:
        raise handler.error("XML with a DTD or entity declarations is refused "
                            "(entities can expand without bound)") from None


def _zip_xml_names(archive: zipfile.ZipFile) -> list[str]:
    """The ``*.xml`` members, sorted, without folders, hidden files and macOS resource forks."""
    return sorted(name for name in archive.namelist()
                  if name.lower().endswith(".xml")
                  and not any(part.startswith((".", "__MACOSX")) for part in name.split("/")))


def _open_zip(path) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(path)
    except FileNotFoundError:
        raise FormatError(path, "no such file or folder") from None
    except (zipfile.BadZipFile, OSError) as error:
        raise FormatError(path, f"cannot read the zip archive ({error})") from None


def _zip_xml(path) -> list[tuple[str, bytes]]:
    """(``archive.zip/member.xml``, bytes) for each XML member of the archive."""
    with _open_zip(path) as archive:
        try:
            return [(f"{path}/{name}", archive.read(name)) for name in _zip_xml_names(archive)]
        except (zipfile.BadZipFile, zlib.error, NotImplementedError, OSError) as error:
            raise FormatError(path, f"cannot read the zip archive ({error})") from None


# --------------------------------------------------------------------------------------------
# i2b2 2006

# The one broken tag of the 2006 training file: an opening DOCTOR tag where </PHI> belongs.
_BROKEN_2006 = b'<PHI TYPE="DATE">25th of July<PHI TYPE="DOCTOR">'
_REPAIRED_2006 = b'<PHI TYPE="DATE">25th of July</PHI>'
_PARENT_2006 = {"ROOT": None, "RECORD": "ROOT", "TEXT": "RECORD", "PHI": "TEXT"}


class _Handler2006(_XmlHandler):
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
            raise self.error(f"unexpected element <{name}>" + (f" in <{parent}>" if parent else ""))
        if name == "RECORD":
            if "ID" not in attrs:
                raise self.error("<RECORD> has no ID attribute")
            self.record = (attrs["ID"], None, [])
            self.patient = attrs.get("PATIENT")
        elif name == "TEXT":
            if self.record[1] is not None:
                raise self.error(f"record {self.record[0]} has a second <TEXT>")
            self.parts, self.length = [], 0
        elif name == "PHI":
            if attrs.get("TYPE") not in PHI_CLASSES:
                raise self.error(f"unknown PHI TYPE {attrs.get('TYPE')!r}")
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
                       "element's </PHI> belongs)", path, _line_of(data, position))
        position = data.find(_BROKEN_2006, position + 1)
    return data.replace(_BROKEN_2006, _REPAIRED_2006)


def read_i2b2_2006(path) -> list[Document]:
    """The records of an i2b2 2006 XML file, or of the one XML file in a .zip.

    ``Document.id`` is the RECORD ID; ``Document.patient`` the optional PATIENT attribute, an
    itdeid extension that the i2b2 files do not have (their records are read with no patient,
    so each is its own cross-validation group) and that :func:`write_i2b2_2006` writes for
    documents that have one (the synthetic corpus keeps its patient timelines this way); the text is the TEXT content with the PHI tags taken out,
    unescaped, every character kept (including the line ends around it and ``[ report_end ]``).
    """
    if zipfile.is_zipfile(path):
        members = _zip_xml(path)
        if len(members) != 1:
            raise FormatError(path, f"expected one XML file in the zip archive, found {len(members)}")
        source, data = members[0]
    else:
        source, data = str(path), _read_bytes(path)
    handler = _Handler2006(source)
    _parse_xml(_repair_2006(data, source), handler)
    return _unique(handler.documents, source)


def write_i2b2_2006(documents: list[Document], path) -> None:
    """Write ``documents`` as one i2b2 2006 XML file that :func:`read_i2b2_2006` reads back to the
    same ids, texts and spans (spans must not overlap: XML elements cannot)."""
    _atomic_write(path, render_i2b2_2006(documents, path))


def render_i2b2_2006(documents: list[Document], path="<i2b2-2006>") -> bytes:
    """The UTF-8 bytes :func:`write_i2b2_2006` writes, for callers that write the file themselves
    (one file a note in ``itdeid.outputs``); ``path`` only names the output in errors."""
    _unique(documents, path)
    out = ['<?xml version="1.0" encoding="UTF-8"?>\n<ROOT>\n']
    for doc in documents:
        _check_spans(doc, path)
        _check_xml_text(doc, path)
        patient = f" PATIENT={_attribute(doc.patient)}" if doc.patient is not None else ""
        out.append(f"<RECORD ID={_attribute(doc.id)}{patient}>\n<TEXT>")
        position = 0
        for span in sorted(doc.spans):
            out += [_escape(doc.text[position:span.start]), f'<PHI TYPE="{span.type}">',
                    _escape(doc.text[span.start:span.end]), "</PHI>"]
            position = span.end
        out += [_escape(doc.text[position:]), "</TEXT>\n</RECORD>\n"]
    out.append("</ROOT>\n")
    return "".join(out).encode("utf-8")


# --------------------------------------------------------------------------------------------
# i2b2 2014

_SAFE_FILE_STEM = re.compile(r"[^/\\\x00.][^/\\\x00]*")
_PATIENT_NOTE = re.compile(r"(\d+)-\d+")


class _Handler2014(_XmlHandler):
    def __init__(self, path):
        super().__init__(path)
        self.parts = None
        self.text = None
        self.tags: list[tuple[int, str, dict]] = []   # (line, tag name, attributes)

    def startElement(self, name, attrs):
        parent = self.stack[-1] if self.stack else None
        if parent == "TAGS":
            self.tags.append((self.locator.getLineNumber(), name, dict(attrs)))
        elif name == "TEXT" and parent == "deIdi2b2" and self.text is None:
            self.parts = []
        elif not ((name, parent) == ("deIdi2b2", None) or (name, parent) == ("TAGS", "deIdi2b2")):
            raise self.error(f"unexpected element <{name}>" + (f" in <{parent}>" if parent else ""))
        self.stack.append(name)

    def characters(self, content):
        if self.parts is not None:
            self.parts.append(content)
        elif content.strip():
            raise self.error("text outside <TEXT>")

    def endElement(self, name):
        super().endElement(name)
        if name == "TEXT" and self.parts is not None:
            self.text, self.parts = "".join(self.parts), None


def _same_attribute_text(attribute: str, piece: str) -> bool:
    """Whether a ``text`` attribute holds ``piece``: verbatim, or as XML attribute-value
    normalisation leaves a literal line end or tab (as a space)."""
    return attribute == piece or attribute == re.sub(r"\r\n|[\r\n\t]", " ", piece)


def _document_2014(source: str, data: bytes, counts: dict) -> Document:
    handler = _Handler2014(source)
    _parse_xml(data, handler)
    if handler.text is None:
        raise FormatError(source, "no <TEXT> element")
    text = handler.text
    spans = []
    for line, category, attrs in handler.tags:
        tag_id = attrs.get("id", "?")
        if category not in I2B2_2014_CATEGORIES:
            raise FormatError(source, f"tag {tag_id}: unknown tag <{category}>", line)
        subtype = attrs.get("TYPE")
        if subtype not in I2B2_2014_TO_2006:
            raise FormatError(source, f"tag {tag_id}: unknown TYPE {subtype!r}", line)
        try:
            start, end = int(attrs["start"]), int(attrs["end"])
        except (KeyError, ValueError):
            raise FormatError(source, f"tag {tag_id}: start and end must be integers", line) from None
        if not 0 <= start < end <= len(text):
            raise FormatError(source, f"tag {tag_id}: offsets {start}-{end} are outside the text "
                                      f"({len(text)} characters)", line)
        if "text" in attrs and not _same_attribute_text(attrs["text"], text[start:end]):
            raise FormatError(source, f"tag {tag_id}: the text attribute does not match the note "
                                      f"text at {start}-{end}", line)
        if I2B2_2014_TO_2006[subtype] is None:
            counts["dropped"] += 1
        else:
            spans.append(Span(start, end, I2B2_2014_TO_2006[subtype], subtype))
    stem = Path(source).stem
    spans, merged = _clean_spans(spans, source, stem)
    counts["merged"] += merged
    patient = stem.split("-")[0] if _PATIENT_NOTE.fullmatch(stem) else None
    return Document(stem, text, spans, patient=patient, source=source)


def read_i2b2_2014(path) -> list[Document]:
    """The notes of i2b2 2014 XML files: one file, a folder of ``*.xml`` (sorted), or a .zip.

    ``Document.id`` is the file name without ``.xml``; ``patient`` is the part before the ``-``
    in names like ``100-01``. Spans carry the 2014 TYPE as subtype and the 2006 class as type
    (:data:`I2B2_2014_TO_2006`); PROFESSION tags are dropped and counted in an info message.
    """
    path = Path(path)
    if path.is_dir():
        files = sorted(p for p in path.glob("*.xml") if p.is_file() and not p.name.startswith("."))
        sources = [(str(p), _read_bytes(p)) for p in files]
    elif zipfile.is_zipfile(path):
        sources = _zip_xml(path)
    else:
        sources = [(str(path), _read_bytes(path))]
    if not sources:
        raise FormatError(path, "no *.xml files")
    counts = {"dropped": 0, "merged": 0}
    documents = _unique([_document_2014(source, data, counts) for source, data in sources], path)
    if counts["dropped"]:
        logger.info("%s: dropped %d PROFESSION tags (no i2b2 2006 class)", path, counts["dropped"])
    if counts["merged"]:
        logger.warning("%s: merged %d duplicate tags", path, counts["merged"])
    return documents


def write_i2b2_2014(documents: list[Document], folder) -> None:
    """Write each document as ``folder/<id>.xml`` in the i2b2 2014 format.

    TYPE is the span's subtype where it is an i2b2 2014 type of the span's class, else the 2006
    class; the tag name is the 2014 category of that class.
    """
    folder = Path(folder)
    _unique(documents, folder)
    default = {phi_class: phi_class for phi_class in PHI_CLASSES}
    for doc in documents:
        if not _SAFE_FILE_STEM.fullmatch(doc.id):
            raise FormatError(folder, f"document id {doc.id!r} cannot be used as a file name")
        _check_spans(doc, folder)
        _check_xml_text(doc, folder)
        tags = "".join(
            f'<{_CATEGORY_2014[span.type]} id="P{number}" start="{span.start}" end="{span.end}" '
            f'text={_attribute(doc.text[span.start:span.end])} '
            f'TYPE="{_label(span, I2B2_2014_TO_2006, default)}" comment=""/>\n'
            for number, span in enumerate(sorted(doc.spans)))
        xml = (f'<?xml version="1.0" encoding="UTF-8" ?>\n<deIdi2b2>\n<TEXT>{_cdata(doc.text)}'
               f"</TEXT>\n<TAGS>\n{tags}</TAGS>\n</deIdi2b2>\n")
        _atomic_write(folder / f"{doc.id}.xml", xml.encode("utf-8"))


# --------------------------------------------------------------------------------------------
# PhysioNet deid

_RECORD_START = re.compile(r"START_OF_RECORD=([^|\s]+)\|\|\|\|([^|\s]+)\|\|\|\|\r?\n")
_RECORD_END = "||||END_OF_RECORD"
_WHITESPACE = re.compile(r"\s*")
_PHYSIONET_FIELD = re.compile(r"[^|\s]+")


def _phrase_path(text_path: Path) -> Path:
    """``id-phi.phrase`` beside ``id.text`` (generally ``<stem>-phi.phrase``)."""
    return text_path.with_name(f"{text_path.stem}-phi.phrase")


def _same_phrase(piece: str, phrase: str) -> bool:
    """Whether a phrase-file text names ``piece``. The developer split matches exactly (the
    phrase being the rest of the line after the category); runs of whitespace compare equal so a
    span across a line break, which a one-line phrase cannot hold, still checks."""
    return piece == phrase or piece.split() == phrase.split()


def read_physionet(text_path, phrase_path=None) -> list[Document]:
    """The notes of a PhysioNet deid ``id.text`` file with the spans of its ``id-phi.phrase``.

    ``Document.id`` is ``<patient>-<note>``, ``patient`` the patient number; the text lies between
    the newline ending the START line and ``||||END_OF_RECORD``. Files are latin-1. The phrase
    file defaults to ``id-phi.phrase`` beside ``id.text`` when it exists (else no spans).
    ``text_path`` may also be the folder holding ``id.text`` (and ``id-phi.phrase``). Every
    phrase must match the note text at its offsets; duplicates and overlaps are handled as the
    module docstring says.
    """
    text_path = Path(text_path)
    if text_path.is_dir():
        text_path = text_path / "id.text"
    raw = _read_bytes(text_path).decode("latin-1")
    documents: dict[str, Document] = {}
    position = _WHITESPACE.match(raw).end()
    while position < len(raw):
        start = _RECORD_START.match(raw, position)
        if start is None:
            raise FormatError(text_path, "expected START_OF_RECORD=<patient>||||<note>||||",
                              _line_of(raw, position))
        end = raw.find(_RECORD_END, start.end())
        if end < 0:
            raise FormatError(text_path, "record has no ||||END_OF_RECORD", _line_of(raw, position))
        patient, note = start.groups()
        doc_id = f"{patient}-{note}"
        if doc_id in documents:
            raise FormatError(text_path, f"document id {doc_id!r} occurs more than once",
                              _line_of(raw, position))
        documents[doc_id] = Document(doc_id, raw[start.end():end], patient=patient,
                                     source=str(text_path))
        position = _WHITESPACE.match(raw, end + len(_RECORD_END)).end()
    if phrase_path is None and _phrase_path(text_path).is_file():
        phrase_path = _phrase_path(text_path)
    if phrase_path is not None:
        _read_phrases(Path(phrase_path), documents)
    return list(documents.values())


def _read_phrases(path: Path, documents: dict[str, Document]) -> None:
    spans: dict[str, list[Span]] = {doc_id: [] for doc_id in documents}
    lines = _read_bytes(path).decode("latin-1").split("\n")
    for number, line in enumerate(lines, 1):
        fields = line.rstrip("\r").split(None, 5)
        if not fields:
            continue
        if len(fields) < 6:
            raise FormatError(path, "expected <patient> <note> <start> <end> <category> <text>",
                              number)
        patient, note, start, end, category, phrase = fields
        doc = documents.get(f"{patient}-{note}")
        if doc is None:
            raise FormatError(path, f"no note {patient}-{note} in the text file", number)
        if category not in PHYSIONET_TO_2006:
            raise FormatError(path, f"unknown category {category!r}", number)
        try:
            start, end = int(start), int(end)
        except ValueError:
            raise FormatError(path, "start and end must be integers", number) from None
        if not 0 <= start < end <= len(doc.text):
            raise FormatError(path, f"offsets {start}-{end} are outside note {doc.id} "
                                    f"({len(doc.text)} characters)", number)
        if not _same_phrase(doc.text[start:end], phrase):
            raise FormatError(path, f"the phrase does not match note {doc.id} at {start}-{end}",
                              number)
        spans[doc.id].append(Span(start, end, PHYSIONET_TO_2006[category], category))
    merged = 0
    for doc in documents.values():
        doc.spans, count = _clean_spans(spans[doc.id], path, doc.id)
        merged += count
    if merged:
        logger.warning("%s: merged %d duplicate phrase lines", path, merged)


def _physionet_key(doc: Document, path) -> tuple[str, str]:
    """(patient, note) of a document: ``patient`` when the id starts with it, else the id split
    at its first ``-``."""
    if doc.patient and doc.id.startswith(f"{doc.patient}-"):
        patient = doc.patient
    else:
        patient = doc.id.partition("-")[0]
    note = doc.id[len(patient) + 1:]
    if not (doc.id == f"{patient}-{note}" and _PHYSIONET_FIELD.fullmatch(patient)
            and _PHYSIONET_FIELD.fullmatch(note)):
        raise FormatError(path, f"document id {doc.id!r} is not <patient>-<note>, which "
                                "PhysioNet records need")
    return patient, note


def write_physionet(documents: list[Document], text_path, phrase_path=None) -> None:
    """Write ``documents`` as a PhysioNet deid ``id.text`` and its phrase file (by default
    ``<stem>-phi.phrase`` beside it, so :func:`read_physionet` finds it).

    The category is the span's subtype where it is a PhysioNet category of the span's class,
    else the default one of the class (HOSPITAL is written as Location). Phrases are the span
    text with whitespace runs as single spaces, so each stays on its line.
    """
    text_path = Path(text_path)
    phrase_path = Path(phrase_path) if phrase_path is not None else _phrase_path(text_path)
    _unique(documents, text_path)
    records, phrases = [], []
    for doc in documents:
        patient, note = _physionet_key(doc, text_path)
        _check_spans(doc, text_path)
        if _RECORD_END in doc.text:
            raise FormatError(text_path, f"document {doc.id}: the text holds {_RECORD_END}")
        beyond = re.search(r"[^\x00-\xff]", doc.text)
        if beyond:
            raise FormatError(text_path, f"document {doc.id}: character U+{ord(beyond.group()):04X} "
                                         f"at offset {beyond.start()} cannot be written in latin-1")
        records.append(f"START_OF_RECORD={patient}||||{note}||||\n{doc.text}{_RECORD_END}\n")
        phrases += [f"{patient} {note} {span.start} {span.end} "
                    f"{_label(span, PHYSIONET_TO_2006, _PHYSIONET_CATEGORY)} "
                    f"{' '.join(doc.text[span.start:span.end].split())}\n"
                    for span in sorted(doc.spans)]
    _atomic_write(text_path, "".join(records).encode("latin-1"))
    _atomic_write(phrase_path, "".join(phrases).encode("latin-1"))


# --------------------------------------------------------------------------------------------
# Plain text

def _has_magic(path) -> bool:
    return re.search(r"[*?[]", str(path)) is not None


def _hidden(relative: Path) -> bool:
    return any(part.startswith(".") for part in relative.parts)


def _read_text_file(path: Path, doc_id: str) -> Document:
    data = _read_bytes(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        # latin-1 maps every byte to a character, so nothing is lost and offsets stay per byte.
        logger.warning("%s: not UTF-8 (byte %d); read as latin-1", path, error.start)
        text = data.decode("latin-1")
    return Document(doc_id, text, source=str(path))


def read_text(paths) -> list[Document]:
    """Plain-text notes (no spans) from files, folders or glob patterns (one, or a list).

    A folder gives every regular file under it, recursively, sorted, hidden files and folders
    skipped; its documents are named by their path relative to the folder, without ``.txt``
    (``sub/note1``). A file, or a file a pattern matches, is named by its stem. Text is UTF-8,
    else latin-1 with a warning naming the file.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    documents = []
    for given in map(Path, paths):
        if given.is_dir():
            for path in sorted(p for p in given.rglob("*") if p.is_file()):
                relative = path.relative_to(given)
                if not _hidden(relative):
                    name = relative.as_posix()
                    documents.append(_read_text_file(path, name.removesuffix(".txt")))
        elif given.is_file():
            documents.append(_read_text_file(given, given.stem))
        elif _has_magic(given):
            matches = sorted(Path(p) for p in glob.glob(str(given), recursive=True))
            files = [p for p in matches if p.is_file()]
            if not files:
                raise FormatError(given, "no file matches this pattern")
            documents += [_read_text_file(path, path.stem) for path in files]
        else:
            raise FormatError(given, "no such file or folder")
    return _unique(documents)


# --------------------------------------------------------------------------------------------
# JSON Lines spans

_JSONL_KEYS = ("doc", "start", "end", "type")


def read_jsonl_spans(path) -> dict[str, list[Span]]:
    """Spans from JSON Lines ``{"doc": .., "start": .., "end": .., "type": ..}`` (other keys
    allowed; ``subtype`` is kept), keyed by document id in first-seen order, each list sorted.
    Blank lines are skipped."""
    data = _read_bytes(path)
    try:
        lines = data.decode("utf-8").split("\n")
    except UnicodeDecodeError as error:
        raise FormatError(path, "not UTF-8", _line_of(data, error.start)) from None
    spans: dict[str, list[Span]] = {}
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise FormatError(path, f"not JSON ({error.msg}, column {error.colno})", number) from None
        if not isinstance(record, dict) or any(key not in record for key in _JSONL_KEYS):
            raise FormatError(path, 'expected an object with "doc", "start", "end" and "type"',
                              number)
        doc, start, end, span_type = (record[key] for key in _JSONL_KEYS)
        subtype = record.get("subtype")
        if not isinstance(doc, str) or not (subtype is None or isinstance(subtype, str)):
            raise FormatError(path, '"doc" and "subtype" must be strings', number)
        if span_type not in PHI_CLASSES:
            raise FormatError(path, f"unknown type {span_type!r}; expected one of "
                                    f"{', '.join(PHI_CLASSES)}", number)
        if not all(type(value) is int for value in (start, end)) or not 0 <= start < end:
            raise FormatError(path, "start and end must be integers with 0 <= start < end", number)
        spans.setdefault(doc, []).append(Span(start, end, span_type, subtype))
    return {doc: sorted(doc_spans) for doc, doc_spans in spans.items()}


def write_jsonl_spans(items: list[Document], path) -> None:
    """Write the spans of ``items`` as JSON Lines, documents in order, spans by offset."""
    _atomic_write(path, render_jsonl_spans(items))


def render_jsonl_spans(items: list[Document]) -> bytes:
    """The UTF-8 bytes :func:`write_jsonl_spans` writes, for callers that write the file
    themselves."""
    lines = [json.dumps(span_record(doc.id, span)) + "\n"
             for doc in items for span in sorted(doc.spans)]
    return "".join(lines).encode("utf-8")


def span_record(doc_id: str, span: Span) -> dict:
    """The JSON Lines record of one span, ``{"doc", "start", "end", "type"}`` and ``subtype``
    where the span has one, so every span file itdeid writes has the keys
    :func:`read_jsonl_spans` reads."""
    record = {"doc": doc_id, "start": span.start, "end": span.end, "type": span.type}
    if span.subtype is not None:
        record["subtype"] = span.subtype
    return record


# --------------------------------------------------------------------------------------------
# Dispatch

_XML_ROOT = re.compile(rb"\s*(?:<\?.*?\?>\s*|<!--.*?-->\s*|<!DOCTYPE[^\[>]*(?:\[.*?\]\s*)?>\s*)*"
                       rb"<([\w:.-]+)", re.S)
# A document type declaration names the root element; used when the root itself lies beyond the
# sniffed bytes (a long internal subset), so such a file still reaches the parser, which refuses it.
_XML_DOCTYPE = re.compile(rb"\s*(?:<\?.*?\?>\s*|<!--.*?-->\s*)*<!DOCTYPE\s+([\w:.-]+)", re.S)
_SNIFF_BYTES = 4096


def _xml_root(head: bytes) -> str | None:
    head = head.removeprefix(b"\xef\xbb\xbf")
    match = _XML_ROOT.match(head) or _XML_DOCTYPE.match(head)
    return match.group(1).decode("ascii", "replace") if match else None


def detect_format(path) -> str:
    """The format of ``path``, by content: ``i2b2-2006``, ``i2b2-2014``, ``physionet`` or
    ``text``.

    A .zip or an XML file by its root element (``ROOT`` or ``deIdi2b2``); a folder holding
    ``id.text`` is PhysioNet, one holding ``*.xml`` files i2b2 2014, any other folder text; a file
    named ``id.text`` or starting with ``START_OF_RECORD=`` is PhysioNet; any other file, or a
    glob pattern, is text.
    """
    path = Path(path)
    if path.is_dir():
        if (path / "id.text").is_file():
            return "physionet"
        if any(p.is_file() and not p.name.startswith(".") for p in path.glob("*.xml")):
            return "i2b2-2014"
        return "text"
    if not path.is_file():
        if _has_magic(path):
            return "text"
        raise FormatError(path, "no such file or folder")
    is_zip = zipfile.is_zipfile(path)
    if is_zip:
        with _open_zip(path) as archive:
            names = _zip_xml_names(archive)
            if not names:
                raise FormatError(path, "no XML file in the zip archive")
            with archive.open(names[0]) as member:
                head = member.read(_SNIFF_BYTES)
    else:
        with open(path, "rb") as handle:
            head = handle.read(_SNIFF_BYTES)
    root = _xml_root(head)
    if root == "ROOT":
        return "i2b2-2006"
    if root == "deIdi2b2":
        return "i2b2-2014"
    if is_zip or path.suffix.lower() == ".xml":
        found = f"XML with root <{root}>" if root else "no XML root element at the start"
        raise FormatError(path, f"{found}: neither i2b2 2006 (<ROOT>) nor i2b2 2014 (<deIdi2b2>)")
    if path.name == "id.text" or head.startswith(b"START_OF_RECORD="):
        return "physionet"
    return "text"


_READERS = {"i2b2-2006": read_i2b2_2006, "i2b2-2014": read_i2b2_2014,
            "physionet": read_physionet, "text": read_text}
_WRITERS = {"i2b2-2006": write_i2b2_2006, "i2b2-2014": write_i2b2_2014,
            "physionet": write_physionet, "jsonl": write_jsonl_spans}


def read_corpus(path, format: str = "auto") -> list[Document]:
    """The documents at ``path`` in ``format`` (one of :data:`READ_FORMATS`; ``auto``:
    :func:`detect_format`)."""
    if format == "auto":
        format = detect_format(path)
    if format not in _READERS:
        raise FormatError(path, f"unknown format {format!r}; expected one of {', '.join(READ_FORMATS)}")
    return _READERS[format](path)


def read_spans(path, format: str = "auto") -> dict[str, list[Span]]:
    """Spans keyed by document id, from a ``.jsonl`` span file (or ``format="jsonl"``) or from a
    corpus in any readable format, so predictions can be given in any of them."""
    if format == "jsonl" or (format == "auto" and Path(path).suffix.lower() == ".jsonl"):
        return read_jsonl_spans(path)
    return {doc.id: doc.spans for doc in read_corpus(path, format)}


def write_corpus(documents: list[Document], path, format: str) -> None:
    """Write ``documents`` to ``path`` in ``format`` (one of :data:`WRITE_FORMATS`; i2b2-2014
    writes a folder, physionet ``path`` and the phrase file beside it, jsonl only the spans)."""
    if format not in _WRITERS:
        raise FormatError(path, f"cannot write format {format!r}; expected one of "
                                f"{', '.join(WRITE_FORMATS)}")
    _WRITERS[format](documents, path)
