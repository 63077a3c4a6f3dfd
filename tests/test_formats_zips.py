"""itdeid.formats.zips (issue F, defect 7): what a zip may unpack is capped per member and in
total, counting the bytes actually decompressed, never the sizes its headers declare. The caps
are patched low so the crafted zips stay a few KB."""
import struct
import zipfile

import pytest

from itdeid.errors import FormatError
from itdeid.formats import read_corpus, read_i2b2_2014, write_i2b2_2014, zips
from itdeid.document import Document

MIB = 2**20


def _note(n_spaces: int) -> bytes:
    """An i2b2 2014 note whose text is mostly spaces: it compresses about a thousandfold."""
    return (b'<?xml version="1.0" encoding="UTF-8" ?>\n<deIdi2b2>\n<TEXT><![CDATA[note'
            + b" " * n_spaces + b"]]></TEXT>\n<TAGS>\n</TAGS>\n</deIdi2b2>\n")


def _zip(path, members: dict[str, bytes]):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def test_the_defaults_leave_room_for_real_corpora():
    assert zips.MAX_MEMBER_BYTES >= 64 * MIB          # a note file of tens of MB is plausible
    assert zips.MAX_TOTAL_BYTES >= zips.MAX_MEMBER_BYTES


def test_a_member_that_unpacks_past_its_cap_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(zips, "MAX_MEMBER_BYTES", MIB)
    path = _zip(tmp_path / "bomb.zip", {"100-01.xml": _note(100), "100-02.xml": _note(3 * MIB)})
    assert path.stat().st_size < 20_000
    with pytest.raises(FormatError, match=f"member 100-02.xml unpacks to more than {MIB} bytes"
                       ) as caught:
        read_corpus(path)
    assert caught.value.path == str(path)


def test_members_that_unpack_past_the_total_cap_are_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(zips, "MAX_TOTAL_BYTES", MIB)
    members = {f"100-0{k}.xml": _note(400_000) for k in range(1, 4)}
    path = _zip(tmp_path / "many.zip", members)
    with pytest.raises(FormatError,
                       match=f"the members up to 100-03.xml unpack to more than {MIB}"):
        read_i2b2_2014(path)


def test_within_the_caps_a_zip_reads_as_before(tmp_path, monkeypatch):
    monkeypatch.setattr(zips, "MAX_MEMBER_BYTES", MIB)
    write_i2b2_2014([Document("100-01", "Seen 3/4/2003 .\n")], tmp_path / "notes")
    note = (tmp_path / "notes" / "100-01.xml").read_bytes()
    path = _zip(tmp_path / "ok.zip", {"100-01.xml": note})
    assert [doc.text for doc in read_corpus(path)] == ["Seen 3/4/2003 .\n"]


def _declare_size(path, size: int) -> None:
    """Rewrite the uncompressed size that the local and the central header of the zip's one
    member declare."""
    data = bytearray(path.read_bytes())
    local = data.index(b"PK\x03\x04")
    central = data.index(b"PK\x01\x02")
    struct.pack_into("<I", data, local + 22, size)
    struct.pack_into("<I", data, central + 24, size)
    path.write_bytes(bytes(data))


def test_a_header_declaring_a_small_size_does_not_let_a_bomb_through(tmp_path, monkeypatch):
    monkeypatch.setattr(zips, "MAX_MEMBER_BYTES", MIB)
    path = _zip(tmp_path / "liar.zip", {"100-01.xml": _note(3 * MIB)})
    _declare_size(path, 200)
    with pytest.raises(FormatError, match="liar.zip"):
        read_corpus(path, "i2b2-2014")


def test_a_header_declaring_a_huge_size_is_not_what_is_counted(tmp_path, monkeypatch):
    monkeypatch.setattr(zips, "MAX_MEMBER_BYTES", MIB)
    path = _zip(tmp_path / "big-claim.zip", {"100-01.xml": _note(10)})
    _declare_size(path, 2**32 - 1)
    (doc,) = read_corpus(path, "i2b2-2014")
    assert doc.text == "note" + " " * 10
