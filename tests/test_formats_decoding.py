"""itdeid.formats.decoding (issue F, defect 6): byte-order marks decoded, binary refused over the
whole file, text that is not UTF-8 refused with its offset, never guessed."""
import pytest

from itdeid.errors import FormatError
from itdeid.formats import read_corpus, read_physionet, read_text

TEXT = "Patient : WALKER , JOHN\r\nSeen at Northgate Hospital on 3/4/2003 , café .\n"


@pytest.mark.parametrize("codec, mark, python", [
    ("utf-8", b"", "utf-8"), ("utf-8", b"\xef\xbb\xbf", "utf-8"),
    ("utf-16-le", b"\xff\xfe", "utf-16"), ("utf-16-be", b"\xfe\xff", "utf-16"),
    ("utf-32-le", b"\xff\xfe\x00\x00", "utf-32"), ("utf-32-be", b"\x00\x00\xfe\xff", "utf-32"),
])
def test_byte_order_marks_are_decoded_as_python_reads_them(tmp_path, codec, mark, python):
    """The text is what open(path, encoding=..., newline="") reads, so a user's offsets agree with
    itdeid's: Python's utf-8 codec keeps a UTF-8 mark as U+FEFF, utf-16 and utf-32 drop theirs."""
    path = tmp_path / "note.txt"
    path.write_bytes(mark + TEXT.encode(codec))
    (doc,) = read_corpus(path)
    assert doc.text == open(path, encoding=python, newline="").read()
    assert doc.text == ("\ufeff" if mark == b"\xef\xbb\xbf" else "") + TEXT


BINARY = {
    "png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)),
    "elf": b"\x7fELF\x02\x01\x01" + bytes(9) + bytes(range(256)),
    "pdf": b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n",
    "gzip": b"\x1f\x8b\x08\x00\x00\x00\x00\x00",
}


@pytest.mark.parametrize("kind", sorted(BINARY))
def test_binary_signatures_are_refused_naming_the_file(tmp_path, kind):
    path = tmp_path / f"{kind}.txt"
    path.write_bytes(BINARY[kind])
    with pytest.raises(FormatError, match=r"binary file \(.+\), not text") as caught:
        read_text(path)
    assert caught.value.path == str(path)


def test_a_nul_byte_anywhere_is_binary_not_only_in_the_first_8_kb(tmp_path):
    path = tmp_path / "late-nul.txt"
    data = TEXT.encode() + b" " * 20_000 + b"\x00" + b"tail\n"
    path.write_bytes(data)
    with pytest.raises(FormatError, match=f"NUL byte at offset {data.index(0)}"):
        read_text(path)


@pytest.mark.parametrize("codec, name", [("utf-16-le", "UTF-16LE"), ("utf-16-be", "UTF-16BE"),
                                         ("utf-32-le", "UTF-32LE"), ("utf-32-be", "UTF-32BE")])
def test_utf16_or_utf32_without_a_mark_is_named_with_how_to_convert_it(tmp_path, codec, name):
    path = tmp_path / "note.txt"
    path.write_bytes(TEXT.encode(codec))
    with pytest.raises(FormatError) as caught:
        read_text(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: looks like {name} without a byte-order mark (NUL byte at "
                              "offset ")
    assert message.endswith(f"not UTF-8; convert it to UTF-8 (e.g. iconv -f {name} -t utf-8)")
    assert "WALKER" not in message and "binary" not in message


def test_a_nul_character_in_utf16_text_is_refused(tmp_path):
    path = tmp_path / "nul16.txt"
    path.write_bytes(b"\xff\xfe" + ("note" + "\0" + "more").encode("utf-16-le"))
    with pytest.raises(FormatError, match="NUL character at offset 4"):
        read_text(path)


def test_not_utf8_without_a_mark_is_an_error_with_its_offset_not_latin1(tmp_path):
    path = tmp_path / "old.txt"
    path.write_bytes("Caf\xe9 note for WALKER\n".encode("latin-1"))
    with pytest.raises(FormatError, match=r"not UTF-8 \(byte offset 3\)") as caught:
        read_text(path)
    message = str(caught.value)
    assert message.startswith(f"{path}:") and "WALKER" not in message and "Caf" not in message


def test_broken_utf16_after_its_mark_is_an_error(tmp_path):
    path = tmp_path / "broken16.txt"
    path.write_bytes(b"\xff\xfe" + "ok".encode("utf-16-le") + b"\x00\xd8")   # a lone surrogate
    with pytest.raises(FormatError, match=r"not UTF-16 after its UTF-16 byte-order mark"):
        read_text(path)


def test_decode_text_names_the_path_it_is_given():
    from itdeid.formats.decoding import decode_text
    with pytest.raises(FormatError, match=r"^somewhere/x\.txt: binary file"):
        decode_text(b"abc\x00", "somewhere/x.txt")


def test_physionet_files_with_binary_content_are_refused(tmp_path):
    path = tmp_path / "id.text"
    path.write_bytes(b"START_OF_RECORD=1||||1||||\n" + b"x" * 10_000 + b"\x00\n||||END_OF_RECORD\n")
    with pytest.raises(FormatError, match="NUL byte at offset"):
        read_physionet(path)



def test_xml_with_a_utf16_mark_is_detected_and_read(tmp_path):
    from itdeid.document import Document, Span
    from itdeid.formats import detect_format, write_i2b2_2014
    write_i2b2_2014([Document("100-01", "Seen 3/4/2003 .\n", [Span(5, 13, "DATE", "DATE")])],
                    tmp_path)
    xml = (tmp_path / "100-01.xml").read_text(encoding="utf-8")
    path = tmp_path / "100-02.xml"
    path.write_bytes(xml.replace('encoding="UTF-8"', 'encoding="UTF-16"').encode("utf-16"))
    assert detect_format(path) == "i2b2-2014"
    (doc,) = read_corpus(path)
    assert doc.text == "Seen 3/4/2003 .\n" and doc.spans == [Span(5, 13, "DATE", "DATE")]


def test_html_text_keeps_the_words_of_two_blocks_apart_and_leaves_code_out():
    from itdeid.formats.markup import html_to_text, is_html
    html = ("<html><head><script>var n = '<b>x</b>';</script></head><body><table><tr><td>Name"
            "</td><td>Ann&nbsp;Lee</td></tr></table><div>Dr. Ib&aacute;&ntilde;ez</div>seen<br>"
            "today<!-- Ann --></body></html>")
    assert is_html(html)
    assert html_to_text(html) == "Name\tAnn\xa0Lee\nDr. Ib\xe1\xf1ez\nseen\ntoday\n"


@pytest.mark.parametrize("text", ["<pH 7.2> on arrival\n", "Seen <html> pasted\n", "< 5 mg\n"])
def test_a_note_that_merely_holds_brackets_is_read_as_it_is(tmp_path, text):
    path = tmp_path / "note.txt"
    path.write_text(text)
    assert read_text(path)[0].text == text
