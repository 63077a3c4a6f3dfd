"""Per-document output writers: every format on one small hand-made note."""
import json

import pytest

from itdeid.document import Document, Span
from itdeid.formats import read_i2b2_2006, read_jsonl_spans
from itdeid.formats.text import read_text_file
from itdeid.render.outputs import FORMATS, render
from itdeid.render.surrogate import Surrogates

# Spans: "Ann Lee" 3-10, "Jan 5\n2010" 16-26 (across a line end), "Ko" 34-36.
TEXT = "Pt Ann Lee seen Jan 5\n2010 by Dr. Ko.\n"
SPANS = [Span(3, 10, "PATIENT"), Span(16, 26, "DATE"), Span(34, 36, "DOCTOR")]


@pytest.fixture
def doc():
    return Document("n1", TEXT, [], patient="p1", source="notes/n1.txt")


def test_formats_listed():
    assert FORMATS == ("xml", "jsonl", "redact", "surrogate", "brat")


def test_redact_and_sidecar(doc):
    files = render(doc, SPANS, "redact")
    assert set(files) == {".txt", ".redact.jsonl"}
    text = files[".txt"].decode("utf-8")
    assert text == "Pt [**PATIENT**] seen [**DATE**] by Dr. [**DOCTOR**].\n"
    records = [json.loads(line) for line in files[".redact.jsonl"].decode("utf-8").splitlines()]
    assert records == [
        {"doc": "n1", "start": 3, "end": 16, "type": "PATIENT",
         "original_start": 3, "original_end": 10, "original_length": len(TEXT)},
        {"doc": "n1", "start": 22, "end": 32, "type": "DATE",
         "original_start": 16, "original_end": 26, "original_length": len(TEXT)},
        {"doc": "n1", "start": 40, "end": 52, "type": "DOCTOR",
         "original_start": 34, "original_end": 36, "original_length": len(TEXT)},
    ]
    for record in records:
        assert text[record["start"]:record["end"]] == f"[**{record['type']}**]"
    assert b"Ann" not in files[".redact.jsonl"] and b"Ko" not in files[".redact.jsonl"]


def test_redact_sidecar_reads_as_spans_of_the_redacted_text(doc, tmp_path):
    sidecar = tmp_path / "n1.redact.jsonl"
    sidecar.write_bytes(render(doc, SPANS, "redact")[".redact.jsonl"])
    assert read_jsonl_spans(sidecar) == {"n1": [Span(3, 16, "PATIENT"), Span(22, 32, "DATE"),
                                               Span(40, 52, "DOCTOR")]}


def test_jsonl(doc):
    files = render(doc, list(reversed(SPANS)), "jsonl")
    n = len(TEXT)
    assert files == {".jsonl": (
        f'{{"doc": "n1", "start": 3, "end": 10, "type": "PATIENT", "text_length": {n}}}\n'
        f'{{"doc": "n1", "start": 16, "end": 26, "type": "DATE", "text_length": {n}}}\n'
        f'{{"doc": "n1", "start": 34, "end": 36, "type": "DOCTOR", "text_length": {n}}}\n').encode()}


def test_brat_splits_spans_at_line_ends(doc):
    files = render(doc, SPANS, "brat")
    assert files[".txt"] == TEXT.encode("utf-8")
    assert files[".ann"].decode("utf-8") == (
        "T1\tPATIENT 3 10\tAnn Lee\n"
        "T2\tDATE 16 21;22 26\tJan 5 2010\n"
        "T3\tDOCTOR 34 36\tKo\n")


def test_brat_crlf_line_end():
    doc = Document("n2", "On Jan 5\r\n2010.\r\n")
    ann = render(doc, [Span(3, 14, "DATE")], "brat")[".ann"].decode("utf-8")
    assert ann == "T1\tDATE 3 8;10 14\tJan 5 2010\n"


def test_xml_reads_back(doc, tmp_path):
    files = render(doc, SPANS, "xml")
    path = tmp_path / "n1.xml"
    path.write_bytes(files[".xml"])
    [again] = read_i2b2_2006(path)
    assert (again.id, again.text, again.patient, again.spans) == ("n1", TEXT, "p1", SPANS)
    assert '<PHI TYPE="DOCTOR">Ko</PHI>' in files[".xml"].decode("utf-8")


def test_surrogate(doc):
    with pytest.raises(ValueError, match="Surrogates"):
        render(doc, SPANS, "surrogate")
    surrogates = Surrogates(b"outputs-test-key")
    files = render(doc, SPANS, "surrogate", surrogates)
    text, spans = surrogates.replace(doc, SPANS)
    assert files == {".txt": text.encode("utf-8")}
    assert text.startswith("Pt ") and text.endswith(".\n")
    for span, original in zip(spans, ("Ann Lee", "Jan 5\n2010", "Ko")):
        assert text[span.start:span.end] != original
    assert "Ann Lee" not in text and "Jan 5" not in text


def test_errors(doc):
    with pytest.raises(ValueError, match="unknown output format"):
        render(doc, SPANS, "csv")
    with pytest.raises(ValueError, match="overlap"):
        render(doc, SPANS + [Span(4, 12, "PATIENT")], "jsonl")
    with pytest.raises(ValueError, match="past the text"):
        render(doc, [Span(30, 60, "ID")], "redact")


def test_a_lone_surrogate_is_one_error_naming_the_note_and_offset_in_every_text_format():
    """A notebook's errors='surrogateescape' leaves one in a str: redact, surrogate and brat
    raised UnicodeEncodeError; xml advised BRAT, which cannot hold it either."""
    from itdeid.errors import FormatError
    note = Document("n", "Seen by Dr. Walker. bad byte: \udce9 end")
    spans = [Span(12, 18, "DOCTOR")]
    for fmt in ("redact", "surrogate", "brat", "xml"):
        with pytest.raises(FormatError) as error:
            render(note, spans, fmt, surrogates=Surrogates(b"k" * 32))
        assert str(error.value) == ("n: a lone surrogate (U+DCE9) at offset 30 cannot be written to a "
                                    "UTF-8 file: read the note's bytes with their own encoding, not "
                                    "errors='surrogateescape'"), fmt
    assert b"DOCTOR" in render(note, spans, "jsonl")[".jsonl"]      # offsets only: no text
    with pytest.raises(FormatError, match=r"^n: character U\+000C at offset 4 cannot be written in XML"):
        render(Document("n", "Seen\fby"), [], "xml")


@pytest.mark.parametrize("fmt", ["redact", "surrogate", "brat"])
def test_a_text_that_begins_with_a_byte_order_mark_reads_back_at_its_offsets(tmp_path, fmt):
    """A note whose text begins with U+FEFF (a UTF-8 file's mark, '&#xFEFF;' in XML) is written
    starting with that mark once, and reads back whole, as itdeid and open(encoding="utf-8")
    read it, at the offsets of the sidecar and the .ann."""
    text = "\ufeff" + TEXT
    spans = [Span(s.start + 1, s.end + 1, s.type) for s in SPANS]
    files = render(Document("n1", text, [], patient="p1"), spans, fmt, surrogates=Surrogates(b"k" * 32))
    path = tmp_path / "n1.txt"
    path.write_bytes(files[".txt"])
    back = read_text_file(path, "n1").text
    assert back == files[".txt"].decode("utf-8") and back.startswith("\ufeff")
    assert not back.startswith("\ufeff\ufeff")
    if fmt == "brat":
        assert back == text
        first = files[".ann"].decode().split("\n")[0].split("\t")
        start, end = map(int, first[1].split()[1:3])
        assert back[start:end] == first[2] == "Ann Lee"
    if fmt == "redact":
        record = json.loads(files[".redact.jsonl"].decode().split("\n")[0])
        assert back[record["start"]:record["end"]] == "[**PATIENT**]"
