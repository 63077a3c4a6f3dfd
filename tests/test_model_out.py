"""model_out.replacing: a new model takes the old one's place whole, and a killed save's
leftovers are removed by the next save (never a running process's, never the only old model)."""
import os
import subprocess
import sys

import pytest

from itdeid.model_out import replacing


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_a_save_replaces_the_folder_and_removes_what_dead_processes_left(tmp_path):
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "model.json").write_text("old")
    dead = _dead_pid()
    running = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        for name in (f".model.new-{dead}", f".model.old-{dead}", f".model.new-{running.pid}",
                     ".other.new-1", f".model.new-{os.getpid()}"):
            (tmp_path / name).mkdir()
        with replacing(folder) as fresh:
            (fresh / "model.json").write_text("new")
        assert (folder / "model.json").read_text() == "new"
        assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
            [".model.new-%d" % running.pid, ".other.new-1", "model"])
    finally:
        running.kill()
        running.wait()
    assert oct(folder.stat().st_mode & 0o777) == oct(0o777 & ~_umask())


def test_a_failed_save_leaves_the_old_model_and_no_fresh_folder(tmp_path):
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "model.json").write_text("old")
    with pytest.raises(RuntimeError):
        with replacing(folder) as fresh:
            (fresh / "model.json").write_text("half")
            raise RuntimeError("stopped")
    assert (folder / "model.json").read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model"]


def test_an_old_model_cut_off_by_a_kill_mid_swap_is_kept(tmp_path):
    """Killed between the swap's two renames: the folder is gone and the previous model sits in
    .NAME.old-PID alone; a new save must not delete it before its own swap succeeds."""
    dead = _dead_pid()
    (tmp_path / f".model.old-{dead}" / "model").mkdir(parents=True)
    with pytest.raises(RuntimeError):
        with replacing(tmp_path / "model"):
            raise RuntimeError("stopped")
    assert (tmp_path / f".model.old-{dead}" / "model").is_dir()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
