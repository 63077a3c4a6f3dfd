"""model_out.replacing: a new model takes the old one's place whole, and a killed save's
leftovers are removed by the next save (never a running process's, never the only old model)."""
import os
import subprocess
import sys

import pytest

from itdeid.model_folder.model_out import replacing


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

    from itdeid.model_folder.load import load_model
    from itdeid.estimators.ensemble import InnerEnsemble
    from itdeid.estimators.model import TokenModel
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
    from itdeid.model_folder.model_out import check_out
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
    from itdeid.estimators.model import TokenModel
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


def test_out_dot_is_refused_before_training_and_a_link_is_the_folder_it_names(tmp_path, monkeypatch):
    """--out . trained in full then failed ('Device or resource busy') leaving ..new-PID
    behind, and a swap would leave the shell in a deleted folder; a link given as --out was
    replaced by a folder."""
    from itdeid.errors import UserError
    (tmp_path / "here").mkdir()
    monkeypatch.chdir(tmp_path / "here")
    with pytest.raises(UserError, match="the working folder is inside it"):
        with replacing("."):
            pytest.fail("began training")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "link").symlink_to(tmp_path / "here")
    with replacing(tmp_path / "link") as fresh:
        (fresh / "model.json").write_text("newer")
    assert (tmp_path / "link").is_symlink() and (tmp_path / "here" / "model.json").read_text() == "newer"


def test_a_retrained_folder_keeps_its_permissions(tmp_path):
    """A team's 2750 model folder came back 755."""
    import stat
    folder = tmp_path / "m"
    folder.mkdir()
    (folder / "model.json").write_text("old")
    folder.chmod(0o2750)
    with replacing(folder) as fresh:
        (fresh / "model.json").write_text("new")
    assert stat.S_IMODE(folder.stat().st_mode) == 0o2750


def test_a_save_through_a_linked_member_folder_is_refused(tmp_path):
    """The save followed member-0 -> another model's member and overwrote it."""
    from helpers import tiny_corpus

    from itdeid.estimators.ensemble import InnerEnsemble
    from itdeid.errors import UserError
    from itdeid.estimators.model import TokenModel
    ensemble = InnerEnsemble(TokenModel(n_estimators=3, n_jobs=1, previous="none"), folds=2,
                             target_recall=0.9).fit(tiny_corpus(10, seed=4))
    ensemble.save(tmp_path / "other")
    before = (tmp_path / "other" / "member-0" / "model.json").read_bytes()
    (tmp_path / "new").mkdir()
    (tmp_path / "new" / "member-0").symlink_to(tmp_path / "other" / "member-0")
    with pytest.raises(UserError, match="member-0: a link"):
        ensemble.save(tmp_path / "new")
    assert (tmp_path / "other" / "member-0" / "model.json").read_bytes() == before


def test_model_files_are_the_models_own_wherever_other_files_lie(tmp_path):
    """A .DS_Store inside member-0 took the member's files out of a run's model fingerprint:
    a changed member then resumed the run, and a Finder visit refused it."""
    from itdeid.model_folder.layout import model_files
    for name in ("ensemble.json", "SHA256SUMS", "MODEL_CARD.md", ".DS_Store", "member-0/model.json",
                 "member-0/.DS_Store", "member-0/detector/learner.ubj.gz", "member-0/detector/notes.txt",
                 "context-0/learner.ubj.gz", "mine/model.json"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x")
    assert [p.relative_to(tmp_path).as_posix() for p in model_files(tmp_path)] == [
        "context-0/learner.ubj.gz", "ensemble.json", "member-0/detector/learner.ubj.gz",
        "member-0/model.json"]
