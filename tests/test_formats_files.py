"""itdeid.formats.files (issue F, defect 6): the folder walk that ``tag`` and ``deid`` share follows
symbolic links once, and returns what it cannot read so that reading reports it."""
import os
import threading

import pytest

from itdeid.errors import FormatError
from itdeid.formats import read_text
from itdeid.formats.files import read_bytes, walk_folder


def _names(root, paths):
    return [path.relative_to(root).as_posix() for path in paths]


def test_a_linked_folder_is_walked_under_the_links_own_name(tmp_path):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.txt").write_text("a")
    (tmp_path / "elsewhere" / "deep").mkdir(parents=True)
    (tmp_path / "elsewhere" / "deep" / "b.txt").write_text("b")
    (tmp_path / "in" / "linked").symlink_to(tmp_path / "elsewhere")
    (tmp_path / "in" / "c.txt").symlink_to(tmp_path / "elsewhere" / "deep" / "b.txt")
    assert _names(tmp_path / "in", walk_folder(tmp_path / "in")) == [
        "a.txt", "c.txt", "linked/deep/b.txt"]
    assert [doc.id for doc in read_text(tmp_path / "in")] == ["a", "c", "linked/deep/b"]


def test_a_dangling_link_is_returned_and_refused_with_its_reason(tmp_path):
    (tmp_path / "a.txt").write_text("a")
    (tmp_path / "gone.txt").symlink_to(tmp_path / "nowhere.txt")
    found = walk_folder(tmp_path)
    assert _names(tmp_path, found) == ["a.txt", "gone.txt"]
    with pytest.raises(FormatError, match=r"gone\.txt: broken symbolic link"):
        read_bytes(found[1])
    with pytest.raises(FormatError, match="broken symbolic link"):
        read_text(tmp_path)


def test_a_loop_of_links_is_refused(tmp_path):
    (tmp_path / "x").symlink_to(tmp_path / "y")
    (tmp_path / "y").symlink_to(tmp_path / "x")
    assert _names(tmp_path, walk_folder(tmp_path)) == ["x", "y"]
    with pytest.raises(FormatError, match="symbolic link that cannot be followed"):
        read_bytes(tmp_path / "x")


def test_a_cycle_of_folder_links_ends_and_is_reported(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.txt").write_text("a")
    (tmp_path / "sub" / "up").symlink_to(tmp_path)            # sub/up/sub/up/... forever
    (tmp_path / "shortcut").symlink_to(tmp_path / "sub")      # a second way to sub/
    found = walk_folder(tmp_path)
    assert _names(tmp_path, found) == ["shortcut", "sub/a.txt", "sub/up"]
    for link in ("shortcut", "sub/up"):
        with pytest.raises(FormatError, match="a link to a folder that was already read"):
            read_bytes(tmp_path / link)


def test_hidden_entries_are_left_out(tmp_path):
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "a.txt").write_text("a")
    (tmp_path / ".b.txt").write_text("b")
    (tmp_path / "c.txt").write_text("c")
    assert _names(tmp_path, walk_folder(tmp_path)) == ["c.txt"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_without_opening_it(tmp_path):
    os.mkfifo(tmp_path / "pipe")
    result = {}

    def read():
        try:
            read_bytes(tmp_path / "pipe")
        except FormatError as error:
            result["error"] = str(error)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(5)
    assert "a FIFO, not a regular file" in result.get("error", "blocked: opened the FIFO")
