"""Issue F, defects 6 and 7 end to end: every input of ``itdeid deid`` is processed or reported
with its reason; ``itdeid tag`` and ``itdeid deid`` read a file alike (one reader: same notes, same
refusals); a zip that unpacks past its cap is a failed input naming the zip and member."""
import json
import zipfile
from pathlib import Path

import pytest

from itdeid.cli import main
from itdeid.formats import zips

from helpers import deid_with as deid, tiny_corpus, tiny_model_folder


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return tiny_model_folder(tmp_path_factory, "bad-inputs-model")


def spans(path: Path) -> list[tuple[int, int, str]]:
    records = [json.loads(line) for line in path.read_text().splitlines() if line]
    return [(r["start"], r["end"], r["type"]) for r in records]


def test_deid_follows_a_linked_folder_and_reports_a_dangling_link(tmp_path, model_dir, capsys):
    a, b = tiny_corpus(2, seed=3)
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.txt").write_text(a.text)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "b.txt").write_text(b.text)
    (tmp_path / "in" / "linked").symlink_to(tmp_path / "elsewhere")
    (tmp_path / "in" / "gone.txt").symlink_to(tmp_path / "nowhere.txt")
    out = tmp_path / "out"
    assert deid(model_dir, tmp_path / "in", "--out", out) == 1
    captured = capsys.readouterr()
    assert "2 files done, 0 skipped (already done), 1 failed of 3" in captured.out
    assert (f"failed: {tmp_path / 'in' / 'gone.txt'}: broken symbolic link (its target does not "
            "exist)") in captured.err
    assert (out / "linked" / "b.txt").is_file() and (out / "a.txt").is_file()


def test_deid_reports_a_dangling_link_a_pattern_matches(tmp_path, model_dir, capsys):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.txt").write_text(tiny_corpus(1)[0].text)
    (tmp_path / "in" / "gone.txt").symlink_to(tmp_path / "nowhere.txt")
    assert deid(model_dir, f"{tmp_path / 'in'}/*.txt", "--out", tmp_path / "out") == 1
    captured = capsys.readouterr()
    assert "1 files done, 0 skipped (already done), 1 failed of 2" in captured.out
    assert f"failed: {tmp_path / 'in' / 'gone.txt'}: broken symbolic link" in captured.err


def test_deid_names_why_an_input_given_by_name_cannot_be_read(tmp_path, model_dir, capsys):
    (tmp_path / "gone.txt").symlink_to(tmp_path / "nowhere.txt")
    assert deid(model_dir, tmp_path / "gone.txt", "--out", tmp_path / "out") == 2
    assert (f"{tmp_path / 'gone.txt'}: broken symbolic link (its target does not exist)"
            in capsys.readouterr().err)


def test_deid_reports_a_cycle_of_folder_links_and_finishes(tmp_path, model_dir, capsys):
    (tmp_path / "in" / "sub").mkdir(parents=True)
    (tmp_path / "in" / "sub" / "a.txt").write_text(tiny_corpus(1)[0].text)
    (tmp_path / "in" / "sub" / "up").symlink_to(tmp_path / "in")
    assert deid(model_dir, tmp_path / "in", "--out", tmp_path / "out") == 1
    captured = capsys.readouterr()
    assert "1 files done, 0 skipped (already done), 1 failed of 2" in captured.out
    assert f"failed: {tmp_path / 'in' / 'sub' / 'up'}: a link to a folder that was already read" \
        in captured.err


TEXT = tiny_corpus(1, seed=11)[0].text
READABLE = {
    "utf-8": TEXT.encode(),
    "utf-8 with a mark": b"\xef\xbb\xbf" + TEXT.encode(),
    "utf-16 with a mark": TEXT.encode("utf-16"),
    "utf-16-be with a mark": b"\xfe\xff" + TEXT.encode("utf-16-be"),
    "utf-32 with a mark": TEXT.encode("utf-32"),
}
REFUSED = {
    "png": (b"\x89PNG\r\n\x1a\n" + bytes(range(256)), "binary file (a PNG image), not text"),
    "elf": (b"\x7fELF\x02\x01\x01" + bytes(9) + TEXT.encode(), "binary file (an ELF executable)"),
    "utf-16 without a mark": (TEXT.encode("utf-16-le"), (
        "looks like UTF-16LE without a byte-order mark (NUL byte at offset 1), not UTF-8; convert "
        "it to UTF-8 (e.g. iconv -f UTF-16LE -t utf-8)")),
    "utf-16-be without a mark": (TEXT.encode("utf-16-be"), (
        "looks like UTF-16BE without a byte-order mark (NUL byte at offset 0), not UTF-8; convert "
        "it to UTF-8 (e.g. iconv -f UTF-16BE -t utf-8)")),
    "latin-1": ((TEXT + "caf\xe9\n").encode("latin-1"),
                f"not UTF-8 (byte offset {len(TEXT.encode()) + 3}) and no byte-order mark"),
    "NUL after 8 KB": (TEXT.encode() + b" " * 9000 + b"\x00\n",
                       f"binary file (NUL byte at offset {len(TEXT.encode()) + 9000})"),
    "rtf": (b"{\\rtf1\\ansi{\\fonttbl\\f0 Arial;}\\f0 Seen by Dr. Jos\\'e9 Ib\\'e1\\'f1ez at "
            b"Elm Clinic\\par}\n",
            "an RTF document, not plain text; convert it to UTF-8 text first (e.g. soffice "
            "--headless --convert-to 'txt:Text (encoded):UTF8' FILE)"),
}


@pytest.mark.parametrize("kind", sorted(READABLE))
def test_tag_and_deid_decode_each_encoding_to_the_same_note(tmp_path, model_dir, kind):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "note.txt").write_bytes(READABLE[kind])
    assert main(["tag", str(model_dir), str(tmp_path / "in" / "note.txt"),
                 "--out", str(tmp_path / "tag.jsonl")]) == 0
    assert deid(model_dir, tmp_path / "in", "--out", tmp_path / "out", "--format", "jsonl") == 0
    (tmp_path / "plain.txt").write_text(TEXT)
    assert main(["tag", str(model_dir), str(tmp_path / "plain.txt"),
                 "--out", str(tmp_path / "plain.jsonl")]) == 0
    expected = spans(tmp_path / "plain.jsonl")
    assert expected, "the tiny model finds PHI in the plain UTF-8 note"
    if kind == "utf-8 with a mark":     # kept as U+FEFF, as open(path, encoding="utf-8") reads it
        expected = [(start + 1, end + 1, phi) for start, end, phi in expected]
    assert spans(tmp_path / "tag.jsonl") == expected          # offsets into the decoded text
    assert spans(tmp_path / "out" / "note.jsonl") == expected


@pytest.mark.parametrize("fmt", ["jsonl", "redact", "surrogate", "brat", "xml", "tag"])
def test_offsets_of_a_utf8_file_with_a_mark_index_the_text_as_python_reads_it(tmp_path, model_dir,
                                                                              fmt):
    """A UTF-8 file that starts with a byte-order mark: every offset written indexes the text as
    open(path, encoding="utf-8") reads it, the mark kept as U+FEFF, and a text output starts
    with that one mark, as the input did."""
    (tmp_path / "in").mkdir()
    path = tmp_path / "in" / "note.txt"
    path.write_bytes(b"\xef\xbb\xbf" + TEXT.encode())
    original = open(path, encoding="utf-8", newline="").read()
    (tmp_path / "plain.txt").write_text(TEXT)
    assert main(["tag", str(model_dir), str(tmp_path / "plain.txt"),
                 "--out", str(tmp_path / "plain.jsonl")]) == 0
    found = [(start + 1, end + 1, kind) for start, end, kind in spans(tmp_path / "plain.jsonl")]
    assert found, "the tiny model finds PHI in the note"
    out = tmp_path / "out"
    if fmt == "tag":
        assert main(["tag", str(model_dir), str(path), "--out", str(tmp_path / "tag.jsonl")]) == 0
        assert spans(tmp_path / "tag.jsonl") == found
        return
    assert deid(model_dir, tmp_path / "in", "--out", out, "--format", fmt) == 0
    if fmt == "jsonl":
        assert spans(out / "note.jsonl") == found
        lengths = {json.loads(line).get("text_length") for line in open(out / "note.jsonl")}
        assert lengths <= {len(original), None} and len(original) in lengths
    elif fmt == "xml":
        from itdeid.formats import read_i2b2_2006
        (doc,) = read_i2b2_2006(out / "note.xml")
        assert doc.text == original
        assert [(s.start, s.end, s.type) for s in doc.spans] == found
    else:
        written = (out / "note.txt").read_bytes()
        assert written.startswith(b"\xef\xbb\xbf") and not written.startswith(b"\xef\xbb\xbf" * 2)
        text = open(out / "note.txt", encoding="utf-8", newline="").read()
    if fmt == "redact":
        records = [json.loads(line) for line in open(out / "note.redact.jsonl")]
        assert [(r["original_start"], r["original_end"], r["type"]) for r in records] == found
        assert {r["original_length"] for r in records} == {len(original)}
        assert all(text[r["start"]:r["end"]] == f"[**{r['type']}**]" for r in records)
    if fmt == "brat":
        assert text == original
        lines = [line.split("\t") for line in (out / "note.ann").read_text().splitlines()]
        for _, where, quoted in lines:
            pieces = [piece.split() for piece in where.split(" ", 1)[1].split(";")]
            assert " ".join(text[int(a):int(b)] for a, b in pieces) == quoted
        assert [int(where.split()[1]) for _, where, _ in lines] == [s for s, _, _ in found]


def test_an_html_note_is_converted_to_its_text_and_every_output_describes_that_text(
        tmp_path, model_dir, capsys):
    """Markup is never tagged nor copied out, character references are decoded (a name written
    with them is whole), and every offset indexes the converted text that brat's .txt holds."""
    body = "".join(f"<p>{line.replace('a', '&#97;')}</p>\n" for line in TEXT.splitlines())
    (tmp_path / "in").mkdir()
    path = tmp_path / "in" / "note.html"
    path.write_text("<!DOCTYPE html>\n<html><head><style>p { margin: 0 }</style></head><body>\n"
                    + body + "</body></html>\n")
    out = {fmt: tmp_path / fmt for fmt in ("brat", "jsonl", "redact")}
    summaries = []
    for fmt, folder in out.items():
        assert deid(model_dir, tmp_path / "in", "--out", folder, "--format", fmt) == 0
        summaries.append(capsys.readouterr().out)
    text = open(out["brat"] / "note.html.txt", encoding="utf-8", newline="").read()
    assert all(line in text.splitlines() for line in TEXT.splitlines())
    assert "<" not in text and "&" not in text and "margin" not in text
    quoted = [line.split("\t")[2] for line in (out["brat"] / "note.html.ann").read_text().splitlines()]
    found = spans(out["jsonl"] / "note.html.jsonl")
    assert quoted == [text[start:end] for start, end, _ in found] and found
    assert any(word in TEXT.split() for word in quoted)     # names whole, references decoded
    assert main(["tag", str(model_dir), str(path), "--out", str(tmp_path / "tag.jsonl")]) == 0
    assert spans(tmp_path / "tag.jsonl") == found           # itdeid tag reads it alike
    records = [json.loads(line) for line in open(out["redact"] / "note.html.redact.jsonl")]
    assert [(r["original_start"], r["original_end"], r["type"]) for r in records] == found
    assert {r["original_length"] for r in records} == {len(text)}
    redacted = (out["redact"] / "note.html.txt").read_text()
    assert "<p>" not in redacted and redacted.count("[**") == len(found)
    assert all("note: 1 HTML files were converted to text" in summary for summary in summaries)
    for folder in out.values():
        (entry,) = [json.loads(line) for line in open(folder / ".itdeid-manifest.jsonl")]
        assert entry["read_as"] == "html"


@pytest.mark.parametrize("kind", sorted(REFUSED))
def test_tag_and_deid_refuse_the_same_files_for_the_same_reason(tmp_path, model_dir, capsys,
                                                                 kind):
    data, reason = REFUSED[kind]
    (tmp_path / "in").mkdir()
    path = tmp_path / "in" / "note.txt"
    path.write_bytes(data)
    assert main(["tag", str(model_dir), str(path), "--out", str(tmp_path / "tag.jsonl")]) == 2
    assert f"itdeid tag: error: {path}: {reason}" in capsys.readouterr().err
    assert not (tmp_path / "tag.jsonl").exists()
    assert deid(model_dir, tmp_path / "in", "--out", tmp_path / "out") == 1
    captured = capsys.readouterr()
    assert f"failed: {path}: {reason}" in captured.err
    assert "0 files done, 0 skipped (already done), 1 failed of 1" in captured.out
    assert not (tmp_path / "out" / "note.txt").exists()         # nothing of it is copied out


def test_deid_reports_a_zip_bomb_naming_the_zip_and_member(tmp_path, model_dir, capsys,
                                                           monkeypatch):
    monkeypatch.setattr(zips, "MAX_MEMBER_BYTES", 2**20)
    (tmp_path / "in").mkdir()
    note = (b'<?xml version="1.0" encoding="UTF-8" ?>\n<deIdi2b2>\n<TEXT><![CDATA[note'
            + b" " * 2**21 + b"]]></TEXT>\n<TAGS>\n</TAGS>\n</deIdi2b2>\n")
    with zipfile.ZipFile(tmp_path / "in" / "bomb.zip", "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("100-01.xml", note)
    assert deid(model_dir, tmp_path / "in", "--out", tmp_path / "out") == 1
    err = capsys.readouterr().err
    assert (f"failed: {tmp_path / 'in' / 'bomb.zip'}: member 100-01.xml unpacks to more than "
            f"{2**20} bytes") in err


def test_a_link_in_an_input_tree_that_leads_into_out_is_refused(tmp_path):
    """A symbolic link below an input folder that points into --out would have the run read
    (and overwrite) its own outputs: the layout check follows links (issue F, defect 9)."""
    from itdeid.batch import deidentify
    from itdeid.errors import UserError

    (tmp_path / "inp").mkdir()
    (tmp_path / "inp" / "a.txt").write_text("Seen on 3/4/2003 .\n")
    (tmp_path / "out" / "sub").mkdir(parents=True)
    (tmp_path / "out" / "sub" / "b.txt").write_text("Seen on 3/5/2003 .\n")
    (tmp_path / "inp" / "lnk").symlink_to(tmp_path / "out" / "sub")
    with pytest.raises(UserError, match="inside --out"):
        deidentify([str(tmp_path / "inp")], tmp_path / "out", progress=False, report=lambda m: None)


@pytest.mark.parametrize("name, data", [
    ("enc.xml", b'<?xml version="1.0" encoding="Quuxington-Zorblax"?><ROOT><RECORD ID="1"><TEXT>hi'
                b'</TEXT></RECORD></ROOT>'),
    ("idna.xml", b'<?xml version="1.0" encoding="idna"?><ROOT><RECORD ID="1"><TEXT>hi</TEXT></RECORD></ROOT>'),
    ("root.xml", b"<Quuxington_Zorblax>frobnicillin</Quuxington_Zorblax>"),
    ("ids.xml", b'<deIdi2b2><TEXT><![CDATA[Quuxington Zorblax seen]]></TEXT><TAGS><NAME id="Zorblax Q" '
                b'start="0" end="7" text="Quux" TYPE="PATIENT"/></TAGS></deIdi2b2>'),
])
def test_a_bad_xml_file_is_one_error_without_its_text(tmp_path, capsys, name, data):
    """Black-box tests: a declared encoding Python cannot read gave a traceback quoting it; the
    message for a file of neither i2b2 format named its root element, and an i2b2 2014 tag was
    named by its id attribute: each is the file's text, and may be a note's."""
    (tmp_path / name).write_bytes(data)
    assert main(["stats", str(tmp_path / name)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and name in err and "Zorblax" not in err and "Quuxington" not in err


def test_an_encrypted_zip_is_one_error_naming_it(tmp_path, capsys):
    path = tmp_path / "enc.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("n.xml", "<ROOT></ROOT>")
    data = bytearray(path.read_bytes())
    # set the 'encrypted' flag of the member in its local and central headers
    for sig, flag_at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = data.index(sig) + flag_at
        data[at] |= 1
    path.write_bytes(bytes(data))
    assert main(["stats", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "enc.zip" in err and "encrypted" in err


def test_xml_that_is_not_utf8_and_declares_nothing_says_so(tmp_path, capsys):
    """A latin-1 export got expat's 'not well-formed (invalid token)' alone (a black-box test)."""
    (tmp_path / "l1.xml").write_bytes(b'<ROOT><RECORD ID="1"><TEXT>caf\xe9 seen</TEXT></RECORD></ROOT>')
    assert main(["stats", str(tmp_path / "l1.xml")]) == 2
    assert "not UTF-8 (byte offset 30) and declares no encoding" in capsys.readouterr().err
