"""Inputs that once stalled or stopped ``itdeid deid``: a FIFO (under ``--rename``, in place of a
finished input, as the patient map), a tree of folders nested deeper than Python's recursion
limit (and deeper than ``--out`` can mirror), a key file that never ends or is far too long, and
a zip member whose name leads out of the archive. Each is reported on one line, naming the file
(and member), and the rest of the batch is processed."""
import os
import sys
import threading
import zipfile
from pathlib import Path

import pytest

from itdeid.batch import settings
from itdeid.cli import main

from helpers import deid_with as deid, tiny_corpus, tiny_model_folder

needs_fifos = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return tiny_model_folder(tmp_path_factory, "input-kinds-model")


def deid_beside_fifo(fifo: Path, model, *args, seconds: float = 30) -> tuple[int | None, bool]:
    """(exit status, whether it finished within ``seconds``) of :func:`deid` run in a thread.
    Should the run open ``fifo`` and wait there for a writer, the test opens it for writing once
    the time is up, so the run gets an end of file and the test fails instead of hanging."""
    status: dict[str, int] = {}
    runner = threading.Thread(target=lambda: status.update(code=deid(model, *args)), daemon=True)
    runner.start()
    runner.join(seconds)
    finished = not runner.is_alive()
    while runner.is_alive():
        try:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))   # wakes a reader in open()
        except OSError:
            pass                        # no reader waiting at this moment
        runner.join(0.5)
    return status.get("code"), finished


def note_text(seed: int = 0) -> str:
    return tiny_corpus(1, seed=seed)[0].text


# ------------------------------------------------------------------------------------------
# A FIFO is never opened

@needs_fifos
def test_rename_reports_a_fifo_without_opening_it(tmp_path, model_dir, capsys):
    """With --rename, wording the FIFO's failure opened it (to list it as a zip): the run
    waited forever for a writer."""
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "b.txt").write_text(note_text())
    fifo = tmp_path / "in" / "a.txt"
    os.mkfifo(fifo)
    code, finished = deid_beside_fifo(fifo, model_dir, tmp_path / "in", "--out", tmp_path / "out",
                                      "--rename")
    assert finished, "the run waited on the FIFO"
    captured = capsys.readouterr()
    assert code == 1
    assert "1 files done, 0 skipped (already done), 1 failed of 2" in captured.out
    assert "(renamed): a FIFO, not a regular file; not read" in captured.err


@needs_fifos
def test_a_fifo_put_in_place_of_a_finished_input_is_reported_on_the_rerun(tmp_path, model_dir,
                                                                          capsys):
    """A rerun digests each input the manifest holds to see whether it changed, when its size
    is the same: that digest opened a FIFO put in place of an empty note (both 0 bytes)."""
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "b.txt").write_text(note_text())
    note = tmp_path / "in" / "a.txt"
    note.write_bytes(b"")
    assert deid(model_dir, tmp_path / "in", "--out", tmp_path / "out") == 0
    note.unlink()
    os.mkfifo(note)
    capsys.readouterr()
    code, finished = deid_beside_fifo(note, model_dir, tmp_path / "in", "--out", tmp_path / "out")
    assert finished, "the run waited on the FIFO"
    assert code == 1
    assert f"failed: {note}: a FIFO, not a regular file; not read" in capsys.readouterr().err


@needs_fifos
def test_a_patient_map_that_is_a_fifo_is_refused(tmp_path, model_dir, capsys):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.txt").write_text(note_text())
    fifo = tmp_path / "patients.csv"
    os.mkfifo(fifo)
    code, finished = deid_beside_fifo(fifo, model_dir, tmp_path / "in", "--out", tmp_path / "out",
                                      "--patient-map", fifo)
    assert finished, "the run waited on the FIFO"
    assert code == 2
    assert f"--patient-map {fifo}: a FIFO, not a regular file" in capsys.readouterr().err


# ------------------------------------------------------------------------------------------
# A deep tree

def nested(root: Path, folders: list[str], name: str, text: str) -> Path:
    """``root/folders[0]/folders[1]/.../name`` holding ``text``; made through open folders, one
    level at a time, as a path this long may be past what one call can take."""
    handle = os.open(root, os.O_RDONLY)
    try:
        for folder in folders:
            try:
                os.mkdir(folder, dir_fd=handle)
            except FileExistsError:
                pass
            inner = os.open(folder, os.O_RDONLY, dir_fd=handle)
            os.close(handle)
            handle = inner
        note = os.open(name, os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=handle)
        os.write(note, text.encode())
        os.close(note)
    finally:
        os.close(handle)
    return Path("/".join([str(root), *folders, name]))


@pytest.fixture
def low_recursion_limit():
    """The recursion limit set some 250 frames above the test's own, so a tree of 500 folders
    is deeper than any recursive walk can go (the tester's 1,900 folders against the default
    limit of 1,000), while pytest still removes the tree afterwards with its recursive rmtree."""
    import inspect
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack()) + 250)
    try:
        yield 500
    finally:
        sys.setrecursionlimit(limit)


def test_a_tree_deeper_than_the_recursion_limit_is_processed(tmp_path, model_dir, capsys,
                                                             low_recursion_limit):
    """Nested folders deeper than the recursion limit stopped the run with a RecursionError
    from the folder walk (and, once outputs mirrored them, every later run from the clean-up
    of leftovers in --out). A note whose output path would pass the system's path limit fails
    alone, with one line."""
    root = tmp_path / "in"
    root.mkdir()
    (root / "top.txt").write_text(note_text(1))
    mirrored = nested(root, ["d"] * low_recursion_limit, "m.txt", note_text(2))
    # an input path a few characters short of the system's limit; its output's, under a
    # longer --out, passes it
    path_max = os.pathconf(root, "PC_PATH_MAX")
    length = path_max - 10 - len(str(root)) - len("/n.txt")
    folders = ["f" * 199] * (length // 200)
    if length % 200 > 1:
        folders.append("g" * (length % 200 - 1))
    too_deep = nested(root, folders, "n.txt", note_text(3))
    assert path_max - 20 < len(str(too_deep)) < path_max
    out = tmp_path / ("out" + "x" * 40)
    assert deid(model_dir, root, "--out", out) == 1
    captured = capsys.readouterr()
    assert "2 files done, 0 skipped (already done), 1 failed of 3" in captured.out
    failures = [line for line in captured.err.splitlines() if line.startswith("failed: ")]
    assert len(failures) == 1
    assert failures[0].startswith(f"failed: {too_deep}: cannot write {out}/{folders[0]}/")
    assert failures[0].endswith("File name too long")
    assert "Traceback" not in captured.err and "RecursionError" not in captured.err
    assert (out / "top.txt").is_file()
    assert Path(str(out) + str(mirrored)[len(str(root)):]).is_file()
    assert deid(model_dir, root, "--out", out) == 1      # the rerun walks the outputs too
    assert "0 files done, 2 skipped (already done), 1 failed of 3" in capsys.readouterr().out
    # a pattern is matched by a recursive search: refused in one line, naming the way out
    assert deid(model_dir, f"{root}/**/*.txt", "--out", tmp_path / "out2") == 2
    err = capsys.readouterr().err
    assert err == (f"itdeid deid: error: {root}/**/*.txt: the folders under {root} nest too "
                   "deep for a pattern; name the folder instead\n")


def test_tag_refuses_a_pattern_over_a_tree_too_deep_for_it_in_one_line(tmp_path, model_dir, capsys,
                                                                         low_recursion_limit):
    """itdeid tag's '**' pattern goes through glob, which recurses a level a folder: too deep a
    tree is one error line naming the pattern, not a RecursionError traceback."""
    root = tmp_path / "in"
    root.mkdir()
    nested(root, ["d"] * low_recursion_limit, "m.txt", note_text(2))
    assert main(["tag", str(model_dir), f"{root}/**/*.txt", "--out", str(tmp_path / "tag.jsonl")]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    err = [line for line in err.splitlines() if "warning: " not in line]   # the test model's
    assert len(err) == 1 and f"{root}/**/*.txt" in err[0] and "nest too deep" in err[0]


# ------------------------------------------------------------------------------------------
# Key files

@pytest.mark.parametrize("kind", ["device", pytest.param("fifo", marks=needs_fifos), "too long"])
def test_a_key_file_that_is_no_key_is_refused_unread(tmp_path, model_dir, capsys, kind):
    """``--key-file /dev/zero`` was read whole (a MemoryError traceback), a FIFO waited for a
    writer, and a note passed by mistake was taken for a key."""
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.txt").write_text(note_text())
    if kind == "device":
        if not os.path.exists("/dev/zero"):
            pytest.skip("no /dev/zero here")
        key, reason = Path("/dev/zero"), "a device, not a regular file"
    elif kind == "fifo":
        key, reason = tmp_path / "key", "a FIFO, not a regular file"
        os.mkfifo(key)
    else:
        key, reason = tmp_path / "key", "bytes, so not a key (a key is a file of 16 to"
        key.write_bytes(b"k" * 2**20)
        key.chmod(0o600)
    code, finished = deid_beside_fifo(key, model_dir, tmp_path / "in", "--out", tmp_path / "out",
                                      "--format", "surrogate", "--key-file", key)
    assert finished, "the run waited on the key file"
    assert code == 2
    # one error line (the test model, saved without SHA256SUMS, may add its warning)
    err = "".join(line for line in capsys.readouterr().err.splitlines(keepends=True)
                  if not line.startswith("warning: "))
    assert err.count("\n") == 1 and f"{key}: " in err and reason in err
    assert not (tmp_path / "out" / "a.txt").exists()


def test_a_key_of_the_longest_length_is_read(tmp_path, model_dir):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.txt").write_text(note_text())
    key = tmp_path / "key"
    key.write_bytes(b"k" * settings.MAX_KEY_BYTES)
    key.chmod(0o600)
    assert deid(model_dir, tmp_path / "in", "--out", tmp_path / "out", "--format", "surrogate",
                "--key-file", key) == 0


# ------------------------------------------------------------------------------------------
# Zip members

def i2b2_note(text: str) -> bytes:
    return (b'<?xml version="1.0" encoding="UTF-8" ?>\n<deIdi2b2>\n<TEXT><![CDATA['
            + text.encode() + b"]]></TEXT>\n<TAGS>\n</TAGS>\n</deIdi2b2>\n")


def test_every_zip_member_not_read_is_reported(tmp_path, model_dir, capsys):
    """A member named '../../x.xml' was dropped without a word (one of two notes processed, the
    other nowhere in the report). Such a name fails its archive, naming it; members that are
    no notes are named in a warning."""
    (tmp_path / "in").mkdir()
    crafted = tmp_path / "in" / "crafted.zip"
    with zipfile.ZipFile(crafted, "w") as archive:
        archive.writestr("100-01.xml", i2b2_note(note_text(1)))
        archive.writestr("../../100-02.xml", i2b2_note(note_text(2)))
    mixed = tmp_path / "in" / "mixed.zip"
    with zipfile.ZipFile(mixed, "w") as archive:
        archive.writestr("notes/", b"")
        archive.writestr("notes/200-01.xml", i2b2_note(note_text(3)))
        archive.writestr("notes/readme.txt", b"see the xml files")
        archive.writestr("__MACOSX/notes/._200-01.xml", b"\x00\x05\x16\x07")
    assert deid(model_dir, tmp_path / "in", "--out", tmp_path / "out") == 1
    captured = capsys.readouterr()
    assert "1 files done, 0 skipped (already done), 1 failed of 2" in captured.out
    assert (f"failed: {crafted}: member ../../100-02.xml: its name leads out of the archive's "
            "folder") in captured.err
    assert f"  {crafted}: member ../../100-02.xml" in captured.err      # the closing list
    assert (f"warning: {mixed}: 1 zip members not read (not *.xml; a zip's notes are i2b2 XML "
            "files): notes/readme.txt") in captured.err
    assert (f"warning: {mixed}: 1 zip members not read (macOS metadata under __MACOSX, not "
            "notes): __MACOSX/notes/._200-01.xml") in captured.err
    assert (tmp_path / "out" / "mixed" / "200-01.txt").is_file()
    assert not (tmp_path / "out" / "crafted").exists()
