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


def test_a_save_over_a_model_of_the_same_kind_replaces_it_whole(tmp_path):
    """A 2-member ensemble saved over a 3-member one left member-2/ (learners of a model trained
    on other notes), and a train-written folder's digests no longer described it."""
    from helpers import tiny_corpus

    from itdeid.deidentifier import load_model
    from itdeid.ensemble import InnerEnsemble
    from itdeid.model import TokenModel
    corpus = tiny_corpus(12, seed=4)

    def ensemble(folds):
        return InnerEnsemble(TokenModel(n_estimators=3, n_jobs=1, previous="none"), folds=folds,
                             target_recall=0.9).fit(corpus)
    folder = tmp_path / "m"
    with replacing(folder) as fresh:
        ensemble(3).save(fresh)
        (fresh / "MODEL_CARD.md").write_text("# card\n")
    (folder / "notes.txt").write_text("the team's own file\n")
    assert (folder / "member-2").is_dir() and (folder / "SHA256SUMS").is_file()
    ensemble(2).save(folder)
    assert sorted(p.name for p in folder.iterdir()) == [   # the old card described the old model
        "ensemble.json", "member-0", "member-1", "notes.txt"]
    assert len(load_model(folder).members_) == 2


def test_retraining_into_a_model_folder_holding_other_files_is_refused(tmp_path):
    """A team's NOTES.txt in the model folder was deleted with the old model, without a word."""
    from itdeid.errors import UserError
    from itdeid.model_out import check_out
    folder = tmp_path / "model"
    folder.mkdir()
    for name in ("ensemble.json", "MODEL_CARD.md", "SHA256SUMS", "member-0/model.json",
                 "member-0/detector/learner.ubj.gz", "context-0/learner.ubj.gz"):
        (folder / name).parent.mkdir(exist_ok=True)
        (folder / name).write_text("x")
    assert check_out(folder) == folder
    (folder / "NOTES.txt").write_text("ours")
    with pytest.raises(UserError, match=r"also holds other files \(NOTES.txt\), which replacing"):
        with replacing(folder):
            pass
    assert (folder / "NOTES.txt").read_text() == "ours"


def test_a_team_file_named_like_a_model_part_is_neither_deleted_nor_replaced(tmp_path):
    """learner.log, member-roster.csv and a context/ folder of notes were deleted with the old
    model by train and by save."""
    from helpers import tiny_corpus

    from itdeid.errors import UserError
    from itdeid.model import TokenModel
    corpus = tiny_corpus(8, seed=4)
    folder = tmp_path / "m"
    model = TokenModel(n_estimators=3, n_jobs=1).fit(corpus)
    model.save(folder)
    for name in ("learner.log", "member-roster.csv"):
        (folder / name).write_text("ours")
    (folder / "context").mkdir()
    (folder / "context" / "mine.txt").write_text("ours")
    model.save(folder)                                  # the API: the model replaced, ours kept
    assert (folder / "learner.log").read_text() == "ours" and (folder / "context" / "mine.txt").exists()
    with pytest.raises(UserError, match="also holds other files"):
        with replacing(folder):
            pass
    assert (folder / "member-roster.csv").read_text() == "ours"


def test_out_dot_and_a_link_are_the_folders_they_name(tmp_path, monkeypatch):
    """--out . trained in full then failed ('Device or resource busy') leaving ..new-PID
    behind; a link given as --out was replaced by a folder."""
    (tmp_path / "here").mkdir()
    monkeypatch.chdir(tmp_path / "here")
    with replacing(".") as fresh:
        (fresh / "model.json").write_text("new")
    assert (tmp_path / "here" / "model.json").read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["here"]
    (tmp_path / "link").symlink_to(tmp_path / "here")
    with replacing(tmp_path / "link") as fresh:
        (fresh / "model.json").write_text("newer")
    assert (tmp_path / "link").is_symlink() and (tmp_path / "here" / "model.json").read_text() == "newer"
