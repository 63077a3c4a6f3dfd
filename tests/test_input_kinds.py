"""Inputs that once stalled ``itdeid deid``: a FIFO (under ``--rename``, in place of a finished
input, as the patient map) is reported on one line, naming the file, never opened, and the rest
of the batch is processed."""
import os
import threading
from pathlib import Path

import pytest

from itdeid.cli import main
from itdeid.model import TokenModel

from helpers import tiny_corpus

needs_fifos = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("input-kinds-model") / "model"
    TokenModel(n_estimators=5, n_jobs=1).fit(tiny_corpus(30)).save(folder)
    return folder


def deid(model, *args) -> int:
    return main(["deid", *map(str, args), "--workers", "1", "--model", str(model)])


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
