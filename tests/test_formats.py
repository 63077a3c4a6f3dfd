"""Corpus readers and writers: i2b2 2006 and 2014 XML, PhysioNet deid, plain text, JSON Lines."""
import json
import logging
import re
import zipfile

import pytest

from itdeid import formats
from itdeid.formats import i2b2_2014
from itdeid.document import PHI_CLASSES, Document, Span
from itdeid.errors import FormatError, UserError
from itdeid.formats import (
                            I2B2_2014_TO_2006, detect_format, read_corpus, read_i2b2_2006, read_i2b2_2014,
                            read_jsonl_spans, read_physionet, read_spans, read_text, write_corpus, write_i2b2_2006,
                            write_i2b2_2014, write_jsonl_spans, write_physionet,
                            )

from helpers import tiny_corpus

# --------------------------------------------------------------------------------------------
# i2b2 2006

XML_2006 = """<?xml version="1.0" encoding="UTF-8"?>
<ROOT>
<RECORD ID="101">
<TEXT>
<PHI TYPE="ID">123456789</PHI>
<PHI TYPE="HOSPITAL">FIH</PHI>
Discharge date: <PHI TYPE="DATE">01/02/2003</PHI>
Patient <PHI TYPE="PATIENT">Yosef Lopez</PHI> seen by Dr. <PHI TYPE="DOCTOR">Kay Z. Nosh</PHI>.
Lives in <PHI TYPE="LOCATION">Clinton</PHI> &amp; works; INR &lt; 2 &gt; 1, &quot;ok&quot; &apos;x&apos;.
Call <PHI TYPE="PHONE">(555) 123-4567</PHI>; aged <PHI TYPE="AGE">92</PHI>.
[ report_end ]
</TEXT>
</RECORD>
<RECORD ID="102">
<TEXT>
Seen at <PHI TYPE="HOSPITAL">Ingree &amp; Oldaxon Hospital</PHI> on <PHI TYPE="DATE">3/4</PHI>.
[ report_end ]
</TEXT>
</RECORD>
<RECORD ID="103">
<TEXT>
No PHI here.
[ report_end ]
</TEXT>
</RECORD>
</ROOT>
"""

EXPECTED_2006 = {
    "101": [("ID", "123456789"), ("HOSPITAL", "FIH"), ("DATE", "01/02/2003"),
            ("PATIENT", "Yosef Lopez"), ("DOCTOR", "Kay Z. Nosh"), ("LOCATION", "Clinton"),
            ("PHONE", "(555) 123-4567"), ("AGE", "92")],
    "102": [("HOSPITAL", "Ingree & Oldaxon Hospital"), ("DATE", "3/4")],
    "103": [],
}


def _span_texts(doc):
    return [(span.type, doc.text[span.start:span.end]) for span in doc.spans]


def _as_tuples(documents):
    return [(doc.id, doc.text, [(s.start, s.end, s.type, s.subtype) for s in doc.spans])
            for doc in documents]


@pytest.fixture
def xml_2006(tmp_path):
    path = tmp_path / "train.xml"
    path.write_text(XML_2006, encoding="utf-8")
    return path


def test_i2b2_2006_read(xml_2006):
    documents = read_i2b2_2006(xml_2006)
    assert [doc.id for doc in documents] == ["101", "102", "103"]
    for doc in documents:
        assert _span_texts(doc) == EXPECTED_2006[doc.id]
        assert doc.text.rstrip("\n").endswith("[ report_end ]")
        assert "<PHI" not in doc.text and "&amp;" not in doc.text
        assert doc.source == str(xml_2006)
        doc.check_spans()
    assert {span.type for span in documents[0].spans} == set(PHI_CLASSES)
    assert "Clinton & works; INR < 2 > 1, \"ok\" 'x'." in documents[0].text
    assert documents[0].text.startswith("\n123456789\nFIH\n")


def test_i2b2_2006_round_trip(xml_2006, tmp_path):
    documents = read_i2b2_2006(xml_2006)
    out = tmp_path / "out" / "again.xml"
    write_i2b2_2006(documents, out)
    again = read_i2b2_2006(out)
    assert _as_tuples(again) == _as_tuples(documents)
    # and once more, through the generic entry points
    write_corpus(again, tmp_path / "third.xml", "i2b2-2006")
    assert detect_format(tmp_path / "third.xml") == "i2b2-2006"
    assert _as_tuples(read_corpus(tmp_path / "third.xml")) == _as_tuples(documents)


def test_i2b2_2006_write_escapes_awkward_text(tmp_path):
    text = 'a < b && c > "d" \'e\' ]]> \r\n\ttab <PHI TYPE="AGE">x</PHI> é'
    doc = Document("r&1 \"q\"", text, [Span(0, 1, "PATIENT"), Span(len(text) - 1, len(text), "AGE")])
    write_i2b2_2006([doc], tmp_path / "a.xml")
    assert _as_tuples(read_i2b2_2006(tmp_path / "a.xml")) == _as_tuples([doc])


def test_i2b2_2006_write_refuses_non_xml_character(tmp_path):
    with pytest.raises(FormatError, match="U\\+000C at offset 4 .*JSON Lines or BRAT output can hold it"):
        write_i2b2_2006([Document("1", "form\x0cfeed")], tmp_path / "a.xml")


def test_i2b2_2006_zip(xml_2006, tmp_path):
    archive = tmp_path / "deid_surrogate_train_all_version2.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.write(xml_2006, "deid_surrogate_train_all_version2.xml")
        zf.writestr("__MACOSX/._deid_surrogate_train_all_version2.xml", b"\x00junk")
    assert detect_format(archive) == "i2b2-2006"
    from_zip = read_corpus(archive)
    assert _as_tuples(from_zip) == _as_tuples(read_i2b2_2006(xml_2006))
    assert from_zip[0].source.endswith("deid_surrogate_train_all_version2.xml")


def test_i2b2_2006_zip_with_two_xml_files_is_refused(xml_2006, tmp_path):
    archive = tmp_path / "two.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.write(xml_2006, "a.xml")
        zf.write(xml_2006, "b.xml")
    with pytest.raises(FormatError, match="two.zip"):
        read_i2b2_2006(archive)


BROKEN_2006 = """<ROOT>
<RECORD ID="7">
<TEXT>
Admitted on the <PHI TYPE="DATE">25th of July<PHI TYPE="DOCTOR"> by Dr. <PHI TYPE="DOCTOR">Ann Bo</PHI>.
[ report_end ]
</TEXT>
</RECORD>
</ROOT>
"""


def test_i2b2_2006_broken_tag_is_repaired(tmp_path, caplog):
    path = tmp_path / "deid_train.xml"
    path.write_text(BROKEN_2006, encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="itdeid.formats"):
        (doc,) = read_i2b2_2006(path)
    assert _span_texts(doc) == [("DATE", "25th of July"), ("DOCTOR", "Ann Bo")]
    assert "by Dr. Ann Bo." in doc.text
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert f"{path}:4:" in warnings[0]
    for phi in ("25th", "July", "Ann Bo"):
        assert phi not in warnings[0]


def test_i2b2_2006_broken_tag_in_zip_is_repaired(tmp_path, caplog):
    archive = tmp_path / "train.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("train.xml", BROKEN_2006)
    with caplog.at_level(logging.WARNING, logger="itdeid.formats"):
        (doc,) = read_corpus(archive)
    assert _span_texts(doc)[0] == ("DATE", "25th of July")
    assert any("train.xml:4:" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("body, line", [
    # unclosed PHI tag: the parser finds the mismatch at </TEXT>
    ('<RECORD ID="1">\n<TEXT>\nDr. <PHI TYPE="DOCTOR">Bo\n</TEXT>\n</RECORD>\n', 6),
    # mismatched end tag
    ('<RECORD ID="1">\n<TEXT>\nDr. <PHI TYPE="DOCTOR">Bo</TEXT>\n</RECORD>\n', 5),
    # undefined entity
    ('<RECORD ID="1">\n<TEXT>\nA &bogus; B\n</TEXT>\n</RECORD>\n', 5),
    # bare ampersand
    ('<RECORD ID="1">\n<TEXT>\n\nA & B\n</TEXT>\n</RECORD>\n', 6),
    # unknown PHI type
    ('<RECORD ID="1">\n<TEXT>\n<PHI TYPE="NAME">Bo</PHI>\n</TEXT>\n</RECORD>\n', 5),
    # unexpected element
    ('<RECORD ID="1">\n<TEXT>\n<B>Bo</B>\n</TEXT>\n</RECORD>\n', 5),
    # record without ID
    ('<RECORD>\n<TEXT>\nBo\n</TEXT>\n</RECORD>\n', 3),
    # a broken tag other than the known one is not repaired
    ('<RECORD ID="1">\n<TEXT>\n<PHI TYPE="DATE">3rd of May<PHI TYPE="DOCTOR">\n</TEXT>\n</RECORD>\n', 5),
    # empty PHI element
    ('<RECORD ID="1">\n<TEXT>\nBo <PHI TYPE="DATE"></PHI>\n</TEXT>\n</RECORD>\n', 5),
])
def test_i2b2_2006_malformed_xml(tmp_path, body, line):
    path = tmp_path / "bad.xml"
    path.write_text(f'<?xml version="1.0"?>\n<ROOT>\n{body}</ROOT>\n', encoding="utf-8")
    with pytest.raises(FormatError) as info:
        read_i2b2_2006(path)
    assert info.value.path == str(path)
    assert info.value.line == line
    assert f"{path}:{line}:" in str(info.value)
    assert "Bo" not in str(info.value).replace(str(path), "")


def test_i2b2_2006_not_utf8(tmp_path):
    path = tmp_path / "bad.xml"
    path.write_bytes(b'<ROOT>\n<RECORD ID="1">\n<TEXT>\nCaf\xe9\n</TEXT>\n</RECORD>\n</ROOT>\n')
    with pytest.raises(FormatError, match=re.escape(f"{path}:4:")):
        read_corpus(path)


def test_i2b2_2006_unclosed_root(tmp_path):
    path = tmp_path / "bad.xml"
    path.write_text('<ROOT>\n<RECORD ID="1">\n<TEXT>\nx\n</TEXT>\n</RECORD>\n', encoding="utf-8")
    with pytest.raises(FormatError, match=re.escape(str(path)) + r":\d+:"):
        read_corpus(path)


def test_i2b2_2006_duplicate_record_id(tmp_path):
    record = '<RECORD ID="1">\n<TEXT>\nx\n</TEXT>\n</RECORD>\n'
    path = tmp_path / "dup.xml"
    path.write_text(f"<ROOT>\n{record}{record}</ROOT>\n", encoding="utf-8")
    with pytest.raises(FormatError, match="more than once"):
        read_i2b2_2006(path)


BOMB = """<?xml version="1.0"?>
<!DOCTYPE ROOT [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<ROOT><RECORD ID="1"><TEXT>&lol9;</TEXT></RECORD></ROOT>
"""


def test_i2b2_2006_entity_bomb_is_refused(tmp_path):
    path = tmp_path / "bomb.xml"
    path.write_text(BOMB, encoding="utf-8")
    with pytest.raises(FormatError, match="bomb.xml") as info:
        read_corpus(path)
    assert "DTD" in str(info.value)


def test_i2b2_2014_entity_bomb_is_refused(tmp_path):
    path = tmp_path / "100-01.xml"
    path.write_text(BOMB.replace("ROOT", "deIdi2b2"), encoding="utf-8")
    with pytest.raises(FormatError, match="100-01.xml"):
        read_i2b2_2014(path)


def test_external_entity_is_refused(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("SECRET")
    path = tmp_path / "ext.xml"
    path.write_text(f'<?xml version="1.0"?>\n<!DOCTYPE ROOT [<!ENTITY x SYSTEM "file://{secret}">]>\n'
                    '<ROOT><RECORD ID="1"><TEXT>&x;</TEXT></RECORD></ROOT>\n', encoding="utf-8")
    with pytest.raises(FormatError):
        read_i2b2_2006(path)


# --------------------------------------------------------------------------------------------
# i2b2 2014

TEXT_100_01 = "Record date: 2067-05-03\nDr. Ann Bo & <Tim> saw Mr Lopez, 72, a teacher,\n" \
              "at Mercy General, 12 Elm St, Boston MA 02115, USA. MRN 1234567.\nfax 555-1234"
TEXT_100_02 = "Seen 2068-01-02 ]]> by DrBo (bo@x.org) http://x.org"

SUBTYPES_100_01 = [
    ("NAME", "DOCTOR", "Ann Bo"), ("NAME", "PATIENT", "Lopez"), ("AGE", "AGE", "72"),
    ("PROFESSION", "PROFESSION", "teacher"), ("LOCATION", "HOSPITAL", "Mercy General"),
    ("LOCATION", "STREET", "12 Elm St"), ("LOCATION", "CITY", "Boston"),
    ("LOCATION", "STATE", "MA"), ("LOCATION", "ZIP", "02115"), ("LOCATION", "COUNTRY", "USA"),
    ("ID", "MEDICALRECORD", "1234567"), ("CONTACT", "FAX", "555-1234"),
    ("DATE", "DATE", "2067-05-03"),
]
SUBTYPES_100_02 = [
    ("DATE", "DATE", "2068-01-02"), ("NAME", "USERNAME", "DrBo"), ("CONTACT", "EMAIL", "bo@x.org"),
    ("CONTACT", "URL", "http://x.org"),
]


def _xml_escape_attr(value):
    return (value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))


def _xml_2014(text, tags, override_text=None):
    lines = []
    for number, (category, subtype, piece) in enumerate(tags):
        start = text.index(piece)
        shown = piece if override_text is None or number != override_text[0] else override_text[1]
        lines.append(f'<{category} id="P{number}" start="{start}" end="{start + len(piece)}" '
                     f'text="{_xml_escape_attr(shown)}" TYPE="{subtype}" comment="" />')
    cdata = "<![CDATA[" + text.replace("]]>", "]]]]><![CDATA[>") + "]]>"
    return ('<?xml version="1.0" encoding="UTF-8" ?>\n<deIdi2b2>\n<TEXT>' + cdata
            + "</TEXT>\n<TAGS>\n" + "\n".join(lines) + "\n</TAGS>\n</deIdi2b2>\n")


@pytest.fixture
def folder_2014(tmp_path):
    folder = tmp_path / "i2b2-2014"
    folder.mkdir()
    (folder / "100-01.xml").write_text(_xml_2014(TEXT_100_01, SUBTYPES_100_01), encoding="utf-8")
    (folder / "100-02.xml").write_text(_xml_2014(TEXT_100_02, SUBTYPES_100_02), encoding="utf-8")
    return folder


def test_i2b2_2014_read_folder(folder_2014, caplog):
    assert detect_format(folder_2014) == "i2b2-2014"
    with caplog.at_level(logging.INFO, logger="itdeid.formats"):
        documents = read_corpus(folder_2014)
    assert [doc.id for doc in documents] == ["100-01", "100-02"]
    assert [doc.patient for doc in documents] == ["100", "100"]
    assert documents[0].text == TEXT_100_01 and documents[1].text == TEXT_100_02
    for doc, tags in zip(documents, (SUBTYPES_100_01, SUBTYPES_100_02)):
        expected = sorted((doc.text.index(piece), I2B2_2014_TO_2006[subtype], subtype, piece)
                          for _, subtype, piece in tags if subtype != "PROFESSION")
        assert [(s.start, s.type, s.subtype, doc.text[s.start:s.end]) for s in doc.spans] == expected
    # PROFESSION is dropped (no 2006 class), and the count logged
    assert not any(s.subtype == "PROFESSION" for doc in documents for s in doc.spans)
    assert any("dropped 1 PROFESSION" in r.getMessage() and r.levelname == "WARNING" for r in caplog.records)


def test_i2b2_2014_map_and_docstring():
    subtypes = ("DOCTOR PATIENT USERNAME HOSPITAL CITY STATE ZIP STREET COUNTRY ORGANIZATION "
                "LOCATION-OTHER MEDICALRECORD IDNUM DEVICE HEALTHPLAN BIOID PHONE FAX EMAIL URL "
                "AGE DATE PROFESSION").split()
    for subtype in subtypes:
        assert subtype in I2B2_2014_TO_2006
        assert subtype in i2b2_2014.__doc__, subtype
    assert I2B2_2014_TO_2006["PROFESSION"] is None
    assert set(I2B2_2014_TO_2006.values()) - {None} == set(PHI_CLASSES)
    assert re.search(r"PROFESSION\s+\(dropped\)", i2b2_2014.__doc__)
    assert "PROFESSION has no 2006 class" in i2b2_2014.__doc__
    # the docstring table agrees with the dict, row by row
    section = i2b2_2014.__doc__.split("Mapping of the i2b2 2014", 1)[1]
    rules = [i for i, line in enumerate(section.splitlines()) if line.startswith("====")]
    rows = section.splitlines()[rules[1] + 1:rules[2]]
    documented = {}
    phi_class = None
    for row in rows:   # a row without a class column continues the row above
        columns = re.split(r"\s{2,}", row.strip())
        if len(columns) == 2:
            phi_class = None if columns[1] == "(dropped)" else columns[1]
        for name in filter(None, (name.strip(" *") for name in columns[0].split(","))):
            documented[name] = phi_class
    assert documented == I2B2_2014_TO_2006


def test_i2b2_2014_round_trip(folder_2014, tmp_path):
    documents = read_i2b2_2014(folder_2014)
    out = tmp_path / "written"
    write_i2b2_2014(documents, out)
    assert sorted(p.name for p in out.iterdir()) == ["100-01.xml", "100-02.xml"]
    again = read_corpus(out)
    assert _as_tuples(again) == _as_tuples(documents)
    assert [doc.patient for doc in again] == ["100", "100"]


def test_i2b2_2014_write_spans_without_subtype(tmp_path):
    """Spans from the 2006 corpus (no subtype) are written with their class as TYPE."""
    text = "Dr. Bo at FIH on 3/4, id 55, age 80, call 555-1212, Boston, Mr Lopez"
    spans = sorted(Span(text.index(p), text.index(p) + len(p), t) for p, t in [
        ("Bo", "DOCTOR"), ("FIH", "HOSPITAL"), ("3/4", "DATE"), ("55", "ID"), ("80", "AGE"),
        ("555-1212", "PHONE"), ("Boston", "LOCATION"), ("Lopez", "PATIENT")])
    write_i2b2_2014([Document("5-1", text, spans)], tmp_path / "out")
    (again,) = read_i2b2_2014(tmp_path / "out")
    assert [(s.start, s.end, s.type) for s in again.spans] == [(s.start, s.end, s.type) for s in spans]


def test_i2b2_2014_text_attribute_mismatch(folder_2014):
    bad = folder_2014 / "100-02.xml"
    bad.write_text(_xml_2014(TEXT_100_02, SUBTYPES_100_02, override_text=(2, "bo@y.org")),
                   encoding="utf-8")
    with pytest.raises(FormatError) as info:
        read_corpus(folder_2014)
    message = str(info.value)
    assert str(bad) in message and "P2" in message and "text attribute" in message
    assert info.value.line is not None
    assert "bo@" not in message.replace(str(bad), "")


@pytest.mark.parametrize("tag, expected", [
    ('<DATE id="P0" start="5" end="999" text="x" TYPE="DATE" comment=""/>', "outside"),
    ('<DATE id="P0" start="a" end="3" text="x" TYPE="DATE" comment=""/>', "integers"),
    ('<DATE id="P0" start="0" end="3" text="Rec" TYPE="WEEKDAY" comment=""/>', "the TYPE is none of"),
    ('<FOO id="P0" start="0" end="3" text="Rec" TYPE="DATE" comment=""/>', "the tag name is none of"),
])
def test_i2b2_2014_bad_tags(tmp_path, tag, expected):
    path = tmp_path / "100-01.xml"
    path.write_text(f"<deIdi2b2>\n<TEXT><![CDATA[Record]]></TEXT>\n<TAGS>\n{tag}\n</TAGS>\n"
                    "</deIdi2b2>\n", encoding="utf-8")
    with pytest.raises(FormatError, match=expected) as info:
        read_i2b2_2014(path)
    assert f"{path}:4:" in str(info.value) and "P0" in str(info.value)


def test_i2b2_2014_tag_name_contradicting_its_type_is_warned_about(tmp_path, caplog):
    tags = ('<DATE id="P0" start="0" end="3" text="Ann" TYPE="PATIENT" comment=""/>\n'
            '<ID id="P1" start="4" end="11" text="a@b.org" TYPE="EMAIL" comment=""/>\n'
            '<CONTACT id="P2" start="13" end="16" text="555" TYPE="PHONE" comment=""/>\n')
    path = tmp_path / "1-1.xml"
    path.write_text("<deIdi2b2><TEXT><![CDATA[Ann a@b.org. 555]]></TEXT><TAGS>\n"
                    f"{tags}</TAGS></deIdi2b2>", encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="itdeid.formats"):
        (doc,) = read_i2b2_2014(path)
    assert [s.type for s in doc.spans] == ["PATIENT", "ID", "PHONE"]
    messages = [r.getMessage() for r in caplog.records]
    assert len(messages) == 1 and str(path) in messages[0] and "1 tags" in messages[0]
    assert "P0 (line 2)" in messages[0] and "Ann" not in messages[0].replace(str(path), "")


def test_i2b2_2014_malformed_xml(tmp_path):
    path = tmp_path / "100-01.xml"
    path.write_text("<deIdi2b2>\n<TEXT><![CDATA[Record]]></TEXT>\n<TAGS>\n</deIdi2b2>\n",
                    encoding="utf-8")
    with pytest.raises(FormatError, match=re.escape(f"{path}:4:")):
        read_corpus(path)


def _one_2014_note(tmp_path, caplog, text: str, tags: str):
    """The document of an i2b2 2014 file of ``text`` and ``tags``, read with warnings logged."""
    path = tmp_path / "1-1.xml"
    path.write_text(f"<deIdi2b2><TEXT><![CDATA[{text}]]></TEXT><TAGS>\n{tags}</TAGS></deIdi2b2>",
                    encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="itdeid.formats"):
        (doc,) = read_i2b2_2014(path)
    return doc


def test_i2b2_2014_duplicate_and_overlapping_tags(tmp_path, caplog):
    doc = _one_2014_note(tmp_path, caplog, "Dr Ann Bo",
                         '<NAME id="P0" start="3" end="9" text="Ann Bo" TYPE="DOCTOR" comment=""/>\n'
                         '<NAME id="P1" start="3" end="9" text="Ann Bo" TYPE="DOCTOR" comment=""/>\n'
                         '<NAME id="P2" start="7" end="9" text="Bo" TYPE="PATIENT" comment=""/>\n')
    assert [(s.start, s.end, s.type) for s in doc.spans] == [(3, 9, "DOCTOR")]
    messages = " ".join(r.getMessage() for r in caplog.records)
    assert "merged 1" in messages and "overlaps" in messages
    assert "Ann" not in messages


def test_overlapping_tags_are_joined_so_every_annotated_word_stays_phi(tmp_path, caplog):
    """The dropped span's words outside the kept one became ordinary text, and a model trained
    on the notes stored them (a city only ever annotated: issue F's rule)."""
    doc = _one_2014_note(
        tmp_path, caplog, "Patient Zorvath Pennyfeather Quorbischville seen.",
        '<NAME id="P0" start="8" end="28" text="Zorvath Pennyfeather" TYPE="PATIENT" comment=""/>\n'
        '<LOCATION id="P1" start="16" end="43" text="Pennyfeather Quorbischville" TYPE="CITY" comment=""/>\n')
    assert [(s.start, s.end, s.type) for s in doc.spans] == [(8, 43, "PATIENT")]
    assert "span 16-43 overlaps span 8-28; both are PHI, joined as 8-43 PATIENT" in caplog.text
    assert "Quorbischville" not in caplog.text


def test_i2b2_2014_zip(folder_2014, tmp_path):
    archive = tmp_path / "notes.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for path in sorted(folder_2014.iterdir()):
            zf.write(path, f"testing-PHI-Gold-fixed/{path.name}")
    assert detect_format(archive) == "i2b2-2014"
    assert _as_tuples(read_corpus(archive)) == _as_tuples(read_i2b2_2014(folder_2014))


# --------------------------------------------------------------------------------------------
# PhysioNet deid

def _read_phrase_file(path):
    """(patient, note, start, end, category, text) per line, read independently of itdeid."""
    rows = []
    with open(path, encoding="latin-1") as handle:
        for line in handle:
            if not line.strip():
                continue
            patient, note, start, end, category, text = line.rstrip("\r\n").split(None, 5)
            rows.append((patient, note, int(start), int(end), category, text))
    return rows


def test_physionet_shared_split(physionet_dir):
    documents = read_physionet(physionet_dir / "id.text")
    assert len(documents) == 1422
    assert sum(len(doc.spans) for doc in documents) == 1096
    by_id = {doc.id: doc for doc in documents}
    assert len(by_id) == 1422
    for doc in documents:
        assert doc.id == f"{doc.patient}-{doc.id.split('-', 1)[1]}"
        assert re.fullmatch(r"\d+-\d+", doc.id)
        assert "START_OF_RECORD" not in doc.text and "END_OF_RECORD" not in doc.text
        doc.check_spans()
    rows = _read_phrase_file(physionet_dir / "id-phi.phrase")
    assert len(rows) == 1096
    for patient, note, start, end, category, text in rows:
        doc = by_id[f"{patient}-{note}"]
        assert doc.text[start:end] == text
        assert Span(start, end, formats.PHYSIONET_TO_2006[category]) in doc.spans
    # every span comes from a phrase line, with its category as subtype
    assert sorted((d.id, s.start, s.end, s.subtype) for d in documents for s in d.spans) == \
        sorted((f"{p}-{n}", s, e, c) for p, n, s, e, c, _ in rows)
    # the patients are those of the text file's START lines
    raw = (physionet_dir / "id.text").read_text(encoding="latin-1")
    starts = re.findall(r"START_OF_RECORD=(\d+)\|\|\|\|(\d+)\|\|\|\|", raw)
    assert [doc.id for doc in documents] == [f"{p}-{n}" for p, n in starts]
    assert {doc.patient for doc in documents} == {p for p, _ in starts}
    assert len({doc.patient for doc in documents}) == 98


def test_physionet_shared_split_auto_detection(physionet_dir):
    assert detect_format(physionet_dir) == "physionet"
    assert detect_format(physionet_dir / "id.text") == "physionet"
    from_folder = read_corpus(physionet_dir)
    assert len(from_folder) == 1422 and sum(len(d.spans) for d in from_folder) == 1096
    spans = read_spans(physionet_dir)
    assert sum(len(v) for v in spans.values()) == 1096


PHYSIONET_TEXT = (
    "START_OF_RECORD=1||||1||||\nPt seen by Dr. Bo on 3/4.\nLives in COOKSLEY.\n||||END_OF_RECORD\n"
    "START_OF_RECORD=1||||2||||\nCall wife Ann at 555-1212, age 91.\n||||END_OF_RECORD\n"
    "START_OF_RECORD=12||||3||||\nNothing.\n||||END_OF_RECORD\n"
)


def _physionet_phrases(text):
    rows = []
    for match in re.finditer(r"START_OF_RECORD=(\d+)\|\|\|\|(\d+)\|\|\|\|\n(.*?)\|\|\|\|END", text, re.S):
        patient, note, body = match.groups()
        for piece, category in [("Bo", "HCPName"), ("3/4", "Date"), ("COOKSLEY", "Location"),
                                ("Ann", "RelativeProxyName"), ("555-1212", "Phone"), ("91", "Age")]:
            if piece in body:
                start = body.index(piece)
                rows.append(f"{patient} {note} {start} {start + len(piece)} {category} {piece}\n")
    return "".join(rows)


@pytest.fixture
def physionet_small(tmp_path):
    folder = tmp_path / "deid"
    folder.mkdir()
    (folder / "id.text").write_text(PHYSIONET_TEXT, encoding="latin-1", newline="")
    (folder / "id-phi.phrase").write_text(_physionet_phrases(PHYSIONET_TEXT), encoding="latin-1")
    return folder


def test_physionet_small_read(physionet_small):
    documents = read_corpus(physionet_small)
    assert [(d.id, d.patient) for d in documents] == [("1-1", "1"), ("1-2", "1"), ("12-3", "12")]
    assert documents[0].text == "Pt seen by Dr. Bo on 3/4.\nLives in COOKSLEY.\n"
    assert _span_texts(documents[0]) == [("DOCTOR", "Bo"), ("DATE", "3/4"), ("LOCATION", "COOKSLEY")]
    assert _span_texts(documents[1]) == [("PATIENT", "Ann"), ("PHONE", "555-1212"), ("AGE", "91")]
    assert [s.subtype for s in documents[1].spans] == ["RelativeProxyName", "Phone", "Age"]


def test_physionet_round_trip(physionet_small, tmp_path):
    documents = read_physionet(physionet_small / "id.text")
    out = tmp_path / "out" / "id.text"
    write_physionet(documents, out)
    assert (tmp_path / "out" / "id-phi.phrase").is_file()
    assert out.read_text(encoding="latin-1") == PHYSIONET_TEXT
    assert _as_tuples(read_physionet(out)) == _as_tuples(documents)
    assert [d.patient for d in read_corpus(out)] == ["1", "1", "12"]


def test_physionet_write_from_other_corpus(tmp_path):
    doc = Document("7-2", "At FIH on 3/4 with Dr Bo, id X1", patient="7")
    text = doc.text
    doc.spans = [Span(text.index("FIH"), text.index("FIH") + 3, "HOSPITAL"),
                 Span(text.index("3/4"), text.index("3/4") + 3, "DATE", "DATE"),
                 Span(text.index("Bo"), text.index("Bo") + 2, "DOCTOR", "USERNAME"),
                 Span(text.index("X1"), text.index("X1") + 2, "ID")]
    write_corpus([doc], tmp_path / "id.text", "physionet")
    (again,) = read_corpus(tmp_path / "id.text")
    # HOSPITAL reads back as LOCATION: the corpus does not separate them
    assert [(s.start, s.end, s.type, s.subtype) for s in again.spans] == [
        (3, 6, "LOCATION", "Location"), (10, 13, "DATE", "Date"), (22, 24, "DOCTOR", "HCPName"),
        (29, 31, "ID", "Other")]


@pytest.mark.parametrize("phrase, expected", [
    ("1 1 11 13 HCPName Xx\n", "does not match"),
    ("1 1 11 999 HCPName Bo\n", "outside"),
    ("1 9 11 13 HCPName Bo\n", "no note 1-9"),
    ("1 1 11 13 Doctor Bo\n", "the category is none of"),
    ("1 1 11 x HCPName Bo\n", "integers"),
    ("1 1 11 13\n", "expected"),
])
def test_physionet_bad_phrase_line(physionet_small, phrase, expected):
    phrase_path = physionet_small / "id-phi.phrase"
    phrase_path.write_text("1 1 15 17 HCPName Bo\n" + phrase, encoding="latin-1")
    with pytest.raises(FormatError, match=expected) as info:
        read_corpus(physionet_small)
    assert str(info.value).startswith(f"{phrase_path}:2:")


def test_physionet_bad_text_file(tmp_path):
    path = tmp_path / "id.text"
    path.write_text("START_OF_RECORD=1||||1||||\nno end\n", encoding="latin-1")
    with pytest.raises(FormatError, match=re.escape(f"{path}:1:") + ".*END_OF_RECORD"):
        read_corpus(path)
    path.write_text("garbage\n", encoding="latin-1")
    with pytest.raises(FormatError, match=re.escape(f"{path}:1:")):
        read_physionet(path)


def test_physionet_write_refuses_bad_ids(tmp_path):
    with pytest.raises(FormatError, match="patient"):
        write_physionet([Document("note one", "x")], tmp_path / "id.text")


# --------------------------------------------------------------------------------------------
# Plain text

def test_text_folder(tmp_path):
    folder = tmp_path / "notes"
    (folder / "ward" / "deep").mkdir(parents=True)
    (folder / "a.txt").write_text("First note.\n", encoding="utf-8")
    (folder / "ward" / "b.txt").write_text("Second\r\nnote é\n", encoding="utf-8", newline="")
    (folder / "ward" / "deep" / "c.note").write_text("Third", encoding="utf-8")
    (folder / ".hidden.txt").write_text("skip", encoding="utf-8")
    assert detect_format(folder) == "text"
    documents = read_corpus(folder)
    assert [doc.id for doc in documents] == ["a", "ward/b", "ward/deep/c.note"]
    assert [doc.text for doc in documents] == ["First note.\n", "Second\r\nnote é\n", "Third"]
    assert all(doc.spans == [] for doc in documents)
    assert read_text(folder / "a.txt")[0].id == "a"
    assert [d.id for d in read_text(str(folder / "ward" / "*.txt"))] == ["b"]
    # the span files of a deid --format brat or jsonl folder are no notes (each was read as one)
    (folder / "ward" / "b.ann").write_text("T1\tDATE 0 3\tabc\n", encoding="utf-8")
    (folder / "ward" / "b.redact.jsonl").write_text("{}\n", encoding="utf-8")
    assert [doc.id for doc in read_corpus(folder)] == ["a", "ward/b", "ward/deep/c.note"]
    # a pattern's matches are named from its folder part, as deid names them (stems collided)
    (folder / "ward" / "deep" / "b.txt").write_text("Fourth", encoding="utf-8")
    assert [d.id for d in read_text(str(folder / "ward" / "**" / "b.txt"))] == ["b", "deep/b"]


def test_text_not_utf8_is_an_error_not_latin1(tmp_path):
    # decoding is tested in test_formats_decoding.py; here: read_corpus no longer guesses latin-1
    path = tmp_path / "old.txt"
    path.write_bytes(b"Caf\xe9 note\n")
    with pytest.raises(FormatError, match=r"old\.txt: not UTF-8 \(byte offset 3\)"):
        read_corpus(path)


def test_text_missing(tmp_path):
    with pytest.raises(FormatError, match="no such file"):
        read_corpus(tmp_path / "nothing.txt")
    with pytest.raises(FormatError, match="no file matches"):
        read_text(str(tmp_path / "*.txt"))


def test_text_duplicate_ids(tmp_path):
    (tmp_path / "x").mkdir()
    (tmp_path / "y").mkdir()
    (tmp_path / "x" / "n.txt").write_text("1")
    (tmp_path / "y" / "n.txt").write_text("2")
    with pytest.raises(FormatError, match="more than once"):
        read_text([tmp_path / "x" / "n.txt", tmp_path / "y" / "n.txt"])


# --------------------------------------------------------------------------------------------
# JSON Lines spans

def test_jsonl_round_trip(tmp_path):
    documents = [Document("1-5", "Dr Bo on 3/4", [Span(3, 5, "DOCTOR", "HCPName"), Span(9, 12, "DATE")]),
                 Document("empty", "nothing"),
                 Document("2", "Ann", [Span(0, 3, "PATIENT")])]
    path = tmp_path / "pred.jsonl"
    write_jsonl_spans(documents, path)
    first = json.loads(path.read_text().splitlines()[0])
    assert first == {"doc": "1-5", "start": 3, "end": 5, "type": "DOCTOR", "subtype": "HCPName",
                     "text_length": 12}
    spans = read_jsonl_spans(path)
    assert list(spans) == ["1-5", "2"]
    assert [(s.start, s.end, s.type, s.subtype) for s in spans["1-5"]] == [
        (3, 5, "DOCTOR", "HCPName"), (9, 12, "DATE", None)]
    assert spans["2"] == [Span(0, 3, "PATIENT")]
    assert read_spans(path) == spans
    write_corpus(documents, tmp_path / "again.jsonl", "jsonl")
    assert (tmp_path / "again.jsonl").read_bytes() == path.read_bytes()
    # spans made on another text of the note (CRLF line ends where the gold has LF) are refused
    crlf = [Document("1-5", "Dr Bo\r\non 3/4", documents[0].spans)]
    with pytest.raises(FormatError, match="made on a text of 12 characters, and the gold note has 13"):
        read_spans(path, gold=crlf)
    assert read_spans(path, gold=documents) == spans


@pytest.mark.parametrize("line, expected", [
    ("not json", "not JSON"),
    ('{"doc": "1", "start": 0, "end": 2}', "expected an object"),
    ('[1, 2]', "expected an object"),
    ('{"doc": "1", "start": 0, "end": 2, "type": "NAME"}', '"type" is none of'),
    ('{"doc": "1", "start": 2, "end": 2, "type": "DATE"}', "start and end"),
    ('{"doc": "1", "start": 3, "end": 2, "type": "DATE"}', "start and end"),
    ('{"doc": "1", "start": -1, "end": 2, "type": "DATE"}', "start and end"),
    ('{"doc": "1", "start": 1.0, "end": 2, "type": "DATE"}', "start and end"),
    ('{"doc": 1, "start": 0, "end": 2, "type": "DATE"}', "must be strings"),
])
def test_jsonl_bad_line(tmp_path, line, expected):
    path = tmp_path / "pred.jsonl"
    path.write_text('{"doc": "1", "start": 0, "end": 2, "type": "DATE"}\n\n' + line + "\n")
    with pytest.raises(FormatError, match=expected) as info:
        read_jsonl_spans(path)
    assert info.value.line == 3
    assert str(info.value).startswith(f"{path}:3:")


def test_jsonl_not_utf8(tmp_path):
    path = tmp_path / "pred.jsonl"
    path.write_bytes(b'{"doc": "1", "start": 0, "end": 2, "type": "DATE"}\n{"doc": "\xff"}\n')
    with pytest.raises(FormatError, match=re.escape(f"{path}:2:")):
        read_spans(path)


# --------------------------------------------------------------------------------------------
# Dispatch and errors

def test_format_error_is_user_error():
    assert issubclass(FormatError, UserError)
    error = FormatError("/x/notes.xml", "bad", line=3)
    assert isinstance(error, UserError)
    assert str(error) == "/x/notes.xml:3: bad" and error.path == "/x/notes.xml" and error.line == 3
    assert str(FormatError("/x", "bad")) == "/x: bad"


def test_cli_prints_format_error_as_one_line(tmp_path, capsys, monkeypatch):
    """The CLI's main catches every UserError, so a FormatError is one line, exit status 2."""
    import argparse

    from itdeid import cli

    bad = tmp_path / "bad.xml"
    bad.write_text("<ROOT>\n<RECORD>\n", encoding="utf-8")

    def run(args):
        read_corpus(bad)

    parser = argparse.ArgumentParser()
    parser.set_defaults(command="stats", run=run)
    monkeypatch.setattr(cli, "build_parser", lambda command=None: parser)
    assert cli.main([]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"itdeid stats: error: {bad}:")


def test_detect_format_errors(tmp_path):
    other = tmp_path / "other.xml"
    other.write_text("<html></html>")
    with pytest.raises(FormatError, match="neither"):
        detect_format(other)
    with pytest.raises(FormatError, match="no such file"):
        detect_format(tmp_path / "missing.xml")
    empty_zip = tmp_path / "empty.zip"
    with zipfile.ZipFile(empty_zip, "w") as zf:
        zf.writestr("readme.txt", "x")
    with pytest.raises(FormatError, match="no XML"):
        detect_format(empty_zip)
    with pytest.raises(FormatError, match="unknown format"):
        read_corpus(other, format="csv")
    with pytest.raises(FormatError, match="cannot write"):
        write_corpus([], tmp_path / "x", "text")


def test_writers_are_atomic_and_private(tmp_path):
    path = tmp_path / "a.xml"
    write_i2b2_2006([Document("1", "x", [Span(0, 1, "AGE")])], path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.xml"]
    assert path.stat().st_mode & 0o077 == 0


@pytest.mark.parametrize("name, content", [
    ("a.xml", '<?xml version="1.0"?>\n<ROOT>\n<RECORD ID="1">\n<TEXT>\nseen by <Zorblatt.Quimby> today\n'
              '</TEXT>\n</RECORD>\n</ROOT>\n'),
    ("b.xml", '<?xml version="1.0"?>\n<ROOT>\n<RECORD ID="1">\n<TEXT>\n<PHI TYPE="Zorblatt">x</PHI>\n'
              '</TEXT>\n</RECORD>\n</ROOT>\n'),
    ("c.xml", '<?xml version="1.0"?>\n<deIdi2b2><TEXT><![CDATA[Zorblatt]]></TEXT><TAGS>'
              '<NAME id="P0" start="0" end="8" text="Zorblatt" TYPE="Zorblatt"/></TAGS></deIdi2b2>\n'),
    ("d.xml", '<?xml version="1.0"?>\n<deIdi2b2><TEXT><![CDATA[Zorblatt]]></TEXT><TAGS>'
              '<Zorblatt id="P0" start="0" end="8" text="Zorblatt" TYPE="PATIENT"/></TAGS></deIdi2b2>\n'),
    ("e.xml", '<?xml version="1.0"?>\n<deIdi2b2><TEXT>a <Zorblatt/> b</TEXT><TAGS/></deIdi2b2>\n'),
])
def test_reader_errors_never_repeat_an_unknown_value(tmp_path, name, content):
    """An unknown type, tag or element name may be note text (a name where the type belongs, an
    unescaped '<'): the message names the file and line and what was expected, not the value."""
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with pytest.raises(FormatError) as info:
        read_corpus(path)
    assert "Zorblatt" not in str(info.value) and str(path) in str(info.value)


def test_span_and_phrase_errors_never_repeat_an_unknown_value(tmp_path, physionet_small):
    (tmp_path / "p.jsonl").write_text('{"doc": "1", "start": 0, "end": 2, "type": "Zorblatt Quimby"}\n')
    with pytest.raises(FormatError) as info:
        read_spans(tmp_path / "p.jsonl")
    assert "Zorblatt" not in str(info.value)
    for line in ("1 1 3 18 Zorblatt Quimby\n", "Zorblatt Quimby 3 18 HCPName Bo\n"):
        (physionet_small / "id-phi.phrase").write_text(line, encoding="latin-1")
        with pytest.raises(FormatError) as info:
            read_corpus(physionet_small)
        assert "Zorblatt" not in str(info.value) and "Quimby" not in str(info.value)


def test_i2b2_2014_folder_of_sets_in_subfolders(tmp_path, caplog):
    """The 2014 release keeps its sets in subfolders: a folder of them is i2b2 2014, read at any
    depth (and .XML too); other files are skipped with a warning, not read as notes."""
    docs = tiny_corpus(4, seed=3)
    write_i2b2_2014(docs[:2], tmp_path / "release" / "set1")
    write_i2b2_2014(docs[2:], tmp_path / "release" / "set2")
    moved = tmp_path / "release" / "set2" / f"{docs[3].id}.xml"
    moved.rename(moved.with_suffix(".XML"))
    (tmp_path / "release" / "README").write_text("about the release\n")
    assert detect_format(tmp_path / "release") == "i2b2-2014"
    with caplog.at_level("WARNING"):
        again = read_corpus(tmp_path / "release")
    assert sorted(d.id for d in again) == sorted(d.id for d in docs)
    assert sum(len(d.spans) for d in again) == sum(len(d.spans) for d in docs)
    assert "skipped 1 files that are not *.xml" in caplog.text


@pytest.mark.parametrize("with_text", [True, False])
def test_i2b2_2014_offsets_counted_with_crlf_line_ends(tmp_path, caplog, with_text):
    """XML reads CRLF as LF; offsets a tool counted on the file's own characters are mapped back
    when the text attributes say so, and a file that cannot tell is read as is, with a warning."""
    note = "Line one\r\nSeen by Zorblatt\r\non 3/4\r\n"
    start = note.index("Zorblatt")
    date = note.index("3/4")
    text_attr = (lambda t: f' text="{t}"') if with_text else (lambda t: "")
    body = (f'<?xml version="1.0"?>\r\n<deIdi2b2><TEXT><![CDATA[{note}]]></TEXT><TAGS>'
            f'<NAME id="P0" start="{start}" end="{start + 8}"{text_attr("Zorblatt")} TYPE="PATIENT"/>'
            f'<DATE id="P1" start="{date}" end="{date + 3}"{text_attr("3/4")} TYPE="DATE"/></TAGS></deIdi2b2>\r\n')
    (tmp_path / "1-01.xml").write_bytes(body.encode())
    if not with_text:   # the last offsets fall past the end: an error that names the likely cause
        with pytest.raises(FormatError, match="CRLF line ends"):
            read_corpus(tmp_path / "1-01.xml")
        return
    with caplog.at_level("WARNING"):
        (doc,) = read_corpus(tmp_path / "1-01.xml")
    assert "\r" not in doc.text
    assert [doc.text[s.start:s.end] for s in doc.spans] == ["Zorblatt", "3/4"]
    assert "count CRLF line ends as two" in caplog.text and "Zorblatt" not in caplog.text


def test_jsonl_spans_merge_duplicates_and_join_overlaps_as_corpora_do(tmp_path, caplog):
    lines = ['{"doc": "a", "start": 0, "end": 4, "type": "DATE"}'] * 2 + [
        '{"doc": "a", "start": 0, "end": 4, "type": "AGE"}', '{"doc": "a", "start": 6, "end": 8, "type": "ID"}']
    (tmp_path / "p.jsonl").write_text("\n".join(lines) + "\n")
    with caplog.at_level("WARNING"):
        spans = read_jsonl_spans(tmp_path / "p.jsonl")
    assert [(s.start, s.end, s.type) for s in spans["a"]] == [(0, 4, "DATE"), (6, 8, "ID")]
    assert "merged 1 duplicate spans" in caplog.text and "overlaps" in caplog.text


def test_offsets_and_ids_that_no_annotation_tool_writes_are_refused(tmp_path):
    """' 8' and Arabic-Indic digits are not offsets; an empty record id names nothing; a
    PhysioNet patient field with '-' would make two records one id."""
    for offset in (" 8", "\u0668"):
        (tmp_path / "a.xml").write_text(
            '<?xml version="1.0"?>\n<deIdi2b2><TEXT><![CDATA[Zorblatt Quimby]]></TEXT><TAGS>'
            f'<NAME id="P0" start="0" end="{offset}" TYPE="PATIENT"/></TAGS></deIdi2b2>\n', encoding="utf-8")
        with pytest.raises(FormatError, match="integers"):
            read_corpus(tmp_path / "a.xml")
    (tmp_path / "b.xml").write_text('<?xml version="1.0"?>\n<ROOT>\n<RECORD ID="">\n<TEXT>\nx\n</TEXT>\n'
                                    '</RECORD>\n</ROOT>\n')
    with pytest.raises(FormatError, match="empty"):
        read_corpus(tmp_path / "b.xml")
    (tmp_path / "id.text").write_text("START_OF_RECORD=1-2||||3||||\nx\n||||END_OF_RECORD\n", encoding="latin-1")
    with pytest.raises(FormatError, match="START_OF_RECORD"):
        read_corpus(tmp_path / "id.text")


def test_a_physionet_folder_says_it_skipped_other_files(physionet_small, caplog):
    (physionet_small / "100-01.xml").write_text("<deIdi2b2/>")
    (physionet_small / "README.md").write_text("about")
    with caplog.at_level("WARNING"):
        read_corpus(physionet_small)
    assert "1 other corpus files skipped" in caplog.text


def test_physionet_file_in_utf8_is_warned_about(tmp_path, caplog):
    """A hospital's own export in this layout, UTF-8: read as latin-1 (the format's encoding)
    'café' came out as 'cafÃ©' without a word."""
    path = tmp_path / "id.text"
    path.write_bytes("START_OF_RECORD=1||||1||||\nPt had café au lait spots.\n||||END_OF_RECORD\n".encode("utf-8"))
    with caplog.at_level(logging.WARNING, logger="itdeid.formats"):
        read_physionet(path)
    messages = [r.getMessage() for r in caplog.records]
    assert any("bytes are UTF-8" in m and str(path) in m for m in messages)
    assert not any("café" in m or "caf" in m.replace(str(path), "") for m in messages)
    caplog.clear()
    path.write_bytes("START_OF_RECORD=1||||1||||\nPt had café au lait spots.\n||||END_OF_RECORD\n".encode("latin-1"))
    with caplog.at_level(logging.WARNING, logger="itdeid.formats"):
        read_physionet(path)
    assert not caplog.records


def test_i2b2_2014_offsets_that_mark_no_text_say_so(tmp_path):
    """start=5 end=5 (or reversed) was called 'outside the text' of a 31-character note."""
    for start, end in ((5, 5), (7, 0)):
        path = tmp_path / "1-1.xml"
        path.write_text('<deIdi2b2><TEXT><![CDATA[Seen by Dr. Zorblatt today.]]></TEXT><TAGS>\n'
                        f'<NAME id="P0" start="{start}" end="{end}" TYPE="DOCTOR"/>\n</TAGS></deIdi2b2>',
                        encoding="utf-8")
        with pytest.raises(FormatError, match=f"tag P0: offsets {start}-{end} mark no text"):
            read_i2b2_2014(path)


def test_a_file_of_the_other_i2b2_format_says_which_it_is_not(tmp_path):
    """An i2b2 2006 file in a folder read as 2014 gave a bare 'unexpected element'."""
    write_i2b2_2006([Document("r1", "Seen by Dr. Zorblatt.", [Span(12, 20, "DOCTOR")])], tmp_path / "more2006.xml")
    with pytest.raises(FormatError, match=r"more2006.xml:\d+: not an i2b2 2014 XML file: its first "
                                          r"element is not <deIdi2b2>"):
        read_i2b2_2014(tmp_path / "more2006.xml")


def test_a_files_format_from_its_bytes_in_hand_is_detect_formats(xml_2006, tmp_path):
    """The batch tool detects a file's format from the bytes it read (detect_file_format, issue
    I): the same answer, or the same refusal, as detect_format reading the file."""
    from itdeid.formats.detect import detect_file_format
    files = {"2006.xml": xml_2006.read_bytes(),
             "2014.xml": b'<?xml version="1.0"?>\n<deIdi2b2><TEXT><![CDATA[Seen]]></TEXT><TAGS/></deIdi2b2>',
             "bom.xml": "\ufeff<ROOT><TEXT>x</TEXT></ROOT>".encode("utf-16"),
             "id.text": b"START_OF_RECORD=1||||1||||\nSeen.\n||||END_OF_RECORD\n",
             "notes.txt": b"START_OF_RECORD=2||||1||||\nSeen.\n||||END_OF_RECORD\n",
             "plain.txt": b"Seen by Dr. Smith <ROOT>\n", "empty.txt": b"",
             "note.xml": b"<html>not i2b2</html>", "binary.txt": bytes(range(256))}
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    archive = tmp_path / "notes.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.write(xml_2006, "a.xml")
    answers = []
    for path in sorted(tmp_path.iterdir()):
        if not path.is_file():
            continue
        expected = got = None
        try:
            expected = detect_format(path)
        except FormatError as error:
            expected = str(error)
        try:
            got = detect_file_format(path, path.read_bytes())
        except FormatError as error:
            got = str(error)
        assert got == expected, path.name
        answers.append(expected)
    assert {"i2b2-2006", "i2b2-2014", "physionet", "text"} <= set(answers)
    assert any("neither i2b2 2006" in a for a in answers)
