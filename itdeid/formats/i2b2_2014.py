"""i2b2 2014 XML: one file a note (a file, a folder of ``*.xml`` or a .zip of them), ``<deIdi2b2>
<TEXT><![CDATA[..]]></TEXT><TAGS><DATE id="P0" start=".." end=".." text=".." TYPE="DATE"
comment=""/>..</TAGS></deIdi2b2>``; ``100-01.xml`` is note 01 of patient 100.

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
type, so its files read back. A tag whose name does not hold its TYPE (``<DATE .. TYPE="PATIENT">``)
is read by its TYPE, with a warning naming the tags.

Duplicate and overlapping tags are handled as :mod:`itdeid.formats` says.
"""
from __future__ import annotations

import logging
import re
from pathlib import Path

from itdeid.document import PHI_CLASSES, Document, Span
from itdeid.errors import FormatError
from itdeid.formats.common import (atomic_write, check_spans, clean_spans, corpus_label, not_one_of,
                                   unique, whole_number)
from itdeid.formats.detect import is_xml
from itdeid.formats.files import read_bytes, walk_folder
from itdeid.formats.safe_xml import XmlHandler, attribute, cdata, check_xml_text, parse_xml
from itdeid.formats.zips import is_zip, zip_xml

logger = logging.getLogger("itdeid.formats")

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
#: The TYPEs each tag name holds in the release; ID also holds EMAIL, URL and IPADDR, which the
#: 2006 classes count as ID and :func:`write_i2b2_2014` so writes (the release has them under
#: CONTACT). ``PHI`` holds any TYPE.
_TYPES_OF_CATEGORY = {
    "NAME": {"PATIENT", "DOCTOR", "USERNAME"}, "PROFESSION": {"PROFESSION"},
    "LOCATION": {t for t, c in I2B2_2014_TO_2006.items() if c in ("LOCATION", "HOSPITAL")},
    "AGE": {"AGE"}, "DATE": {"DATE"}, "CONTACT": {"PHONE", "FAX", "EMAIL", "URL", "IPADDR"},
    "ID": {t for t, c in I2B2_2014_TO_2006.items() if c == "ID"}, "PHI": set(I2B2_2014_TO_2006)}
_CATEGORY_2014 = {"PATIENT": "NAME", "DOCTOR": "NAME", "HOSPITAL": "LOCATION",
                  "LOCATION": "LOCATION", "ID": "ID", "PHONE": "CONTACT", "AGE": "AGE",
                  "DATE": "DATE"}


_SAFE_FILE_STEM = re.compile(r"[^/\\\x00.][^/\\\x00]*")
_PATIENT_NOTE = re.compile(r"(\d+)-\d+")


class _Handler2014(XmlHandler):
    FORMAT, ROOT = "i2b2 2014 XML", "deIdi2b2"

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
            raise self.unexpected(name, parent, ("deIdi2b2", "TEXT", "TAGS"))
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


#: A tag id as the corpus writes them ('P0', 'T12'), safe to show in a message.
_PLAIN_ID = re.compile(r"[A-Za-z]{0,3}\d{1,7}")


def _shown_id(tag_id: str | None, k: int) -> str:
    """How a message names a tag: its id where it is of the corpus's shape, else its place
    among the file's tags ('#3'): an id is the file's text, and one may hold a name."""
    return tag_id if tag_id is not None and _PLAIN_ID.fullmatch(tag_id) else f"#{k}"


def _offsets_counting_cr(text: str, tags) -> bool | None:
    """Whether the tags' offsets count each line end of a CRLF file as two characters (None:
    no tag has a ``text`` attribute to tell).

    XML reads a CRLF line end (in CDATA too) as one LF, so the note text has one character a
    line end; a tool that counted the file's own characters put every offset after the k-th
    line end k characters late. The tags' ``text`` attributes decide: their offsets are read
    as counting CRs when they all match the note that way and not all match it as they are."""
    with_text = [attrs for _, _, attrs in tags if "text" in attrs]

    def all_match(counting_cr: bool) -> bool:
        for attrs in with_text:
            try:
                start, end = (int(attrs[k]) for k in ("start", "end"))
            except (KeyError, ValueError):
                return False
            if counting_cr:
                start, end = _lf_offset(text, start), _lf_offset(text, end)
            if not 0 <= start < end <= len(text) or not _same_attribute_text(attrs["text"], text[start:end]):
                return False
        return True
    if not with_text:
        return None
    return not all_match(False) and all_match(True)


def _lf_offset(text: str, offset: int) -> int:
    """The offset in ``text`` (one LF a line end) of ``offset`` counted with CRLF line ends."""
    position = seen = 0
    while True:
        newline = text.find("\n", position)
        if newline < 0 or newline + seen >= offset:
            return offset - seen
        seen += 1                       # the CR before this LF
        position = newline + 1


def _document_2014(source: str, data: bytes, counts: dict) -> Document:
    handler = _Handler2014(source)
    parse_xml(data, handler)
    if handler.text is None:
        raise FormatError(source, "no <TEXT> element")
    text = handler.text
    counting_cr = b"\r\n" in data and handler.tags and _offsets_counting_cr(text, handler.tags)
    if counting_cr:
        logger.warning("%s: the tags' offsets count CRLF line ends as two characters; read as "
                       "offsets into the note with one character a line end", source)
    elif counting_cr is None:
        logger.warning("%s: CRLF line ends, which XML reads as one character, and no text "
                       "attributes to check the offsets against: read as counting one", source)
    crlf = ("; the file has CRLF line ends, which XML reads as one character: were the offsets "
            "counted with two?") if b"\r\n" in data and not counting_cr else ""
    spans, contradicting = [], []
    for k, (line, category, attrs) in enumerate(handler.tags, 1):
        tag_id = _shown_id(attrs.get("id"), k)
        if category not in I2B2_2014_CATEGORIES:
            raise FormatError(source, f"tag {tag_id}: " + not_one_of("the tag name", I2B2_2014_CATEGORIES), line)
        subtype = attrs.get("TYPE")
        if subtype not in I2B2_2014_TO_2006:
            raise FormatError(source, f"tag {tag_id}: " + not_one_of("the TYPE", I2B2_2014_TO_2006), line)
        if subtype not in _TYPES_OF_CATEGORY[category]:
            contradicting.append(f"{tag_id} (line {line})")
        try:
            start, end = whole_number(attrs["start"]), whole_number(attrs["end"])
            if counting_cr:
                start, end = _lf_offset(text, start), _lf_offset(text, end)
        except (KeyError, ValueError):
            raise FormatError(source, f"tag {tag_id}: start and end must be integers", line) from None
        if start >= end:
            raise FormatError(source, f"tag {tag_id}: offsets {start}-{end} mark no text (the end "
                                      "must come after the start)", line)
        if end > len(text):
            raise FormatError(source, f"tag {tag_id}: offsets {start}-{end} are outside the text "
                                      f"({len(text)} characters){crlf}", line)
        if "text" in attrs and not _same_attribute_text(attrs["text"], text[start:end]):
            raise FormatError(source, f"tag {tag_id}: the text attribute does not match the note "
                                      f"text at {start}-{end}{crlf}", line)
        if I2B2_2014_TO_2006[subtype] is None:
            counts["dropped"] += 1
        else:
            spans.append(Span(start, end, I2B2_2014_TO_2006[subtype], subtype))
    if contradicting:
        # the TYPE is the finer label, and the one the 2006 class comes from; a tag name that
        # contradicts it is a hand edit or a converter's slip that a person should look at
        logger.warning("%s: %d tags whose tag name does not hold their TYPE, read by their TYPE: %s",
                       source, len(contradicting), ", ".join(contradicting[:5])
                       + (", ..." if len(contradicting) > 5 else ""))
    stem = Path(source).stem
    spans, merged = clean_spans(spans, source, stem)
    counts["merged"] += merged
    patient = stem.split("-")[0] if _PATIENT_NOTE.fullmatch(stem) else None
    return Document(stem, text, spans, patient=patient, source=source)


def read_i2b2_2014(path) -> list[Document]:
    """The notes of i2b2 2014 XML files: one file, a folder of ``*.xml`` (at any depth, as the
    release keeps its sets in subfolders; sorted; other files skipped with a warning), or a .zip.

    ``Document.id`` is the file name without ``.xml``; ``patient`` is the part before the ``-``
    in names like ``100-01``. Spans carry the 2014 TYPE as subtype and the 2006 class as type
    (:data:`I2B2_2014_TO_2006`); PROFESSION tags are dropped and counted in an info message.
    """
    path = Path(path)
    if path.is_dir():
        # not only is_file(): a dangling link or a FIFO is refused by read_bytes, not skipped
        entries = walk_folder(path)
        files = [p for p in entries if is_xml(p)]
        skipped = len(entries) - len(files)
        if skipped:
            logger.warning("%s: skipped %d files that are not *.xml", path, skipped)
        sources = [(str(p), read_bytes(p)) for p in files]
    elif is_zip(path):
        sources = zip_xml(path)
    else:
        sources = [(str(path), read_bytes(path))]
    if not sources:
        raise FormatError(path, "no *.xml files")
    counts = {"dropped": 0, "merged": 0}
    documents = unique([_document_2014(source, data, counts) for source, data in sources], path)
    if counts["dropped"]:
        # a warning, not an info line: a team should see which of its annotations go unread
        logger.warning("%s: dropped %d PROFESSION tags (no i2b2 2006 class: read as ordinary "
                       "text)", path, counts["dropped"])
    if counts["merged"]:
        logger.warning("%s: merged %d duplicate tags", path, counts["merged"])
    return documents


def write_i2b2_2014(documents: list[Document], folder) -> None:
    """Write each document as ``folder/<id>.xml`` in the i2b2 2014 format.

    TYPE is the span's subtype where it is an i2b2 2014 type of the span's class, else the 2006
    class; the tag name is the 2014 category of that class.
    """
    folder = Path(folder)
    unique(documents, folder)
    default = {phi_class: phi_class for phi_class in PHI_CLASSES}
    for doc in documents:
        if not _SAFE_FILE_STEM.fullmatch(doc.id):
            raise FormatError(folder, f"document id {doc.id!r} cannot be used as a file name")
        check_spans(doc, folder)
        check_xml_text(doc, folder)
        tags = "".join(
            f'<{_CATEGORY_2014[span.type]} id="P{number}" start="{span.start}" end="{span.end}" '
            f'text={attribute(doc.text[span.start:span.end])} '
            f'TYPE="{corpus_label(span, I2B2_2014_TO_2006, default)}" comment=""/>\n'
            for number, span in enumerate(sorted(doc.spans)))
        xml = (f'<?xml version="1.0" encoding="UTF-8" ?>\n<deIdi2b2>\n<TEXT>{cdata(doc.text)}'
               f"</TEXT>\n<TAGS>\n{tags}</TAGS>\n</deIdi2b2>\n")
        atomic_write(folder / f"{doc.id}.xml", xml.encode("utf-8"))
