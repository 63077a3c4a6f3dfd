"""Writing a model folder: a new model replaces the old one whole, or nothing changes.

Each model kind writes its own files (``model.json``, ``ensemble.json``, ``deidentifier.json``
and member folders), and :func:`itdeid.model_folder.load.load_model` picks the kind by the files it
finds. Saving a new model into a folder that held another kind once left the old files beside
the new ones, and ``itdeid deid`` went on tagging with the old model without a word. So
``itdeid train`` checks its ``--out`` before training (:func:`check_out`: a new or empty folder,
or a model folder to replace, never a folder of other files such as the corpus) and writes the
model into a fresh folder beside it, then swaps the two (:func:`replacing`): a crash or a stop
while saving leaves the old model as it was. A process killed outright cannot clean up, so the
fresh folder is named by its process id (``.MODEL.new-PID``) and the next save into the same
place removes what a dead process left there.
"""
from __future__ import annotations

import os
import re
import shutil
import stat
from contextlib import contextmanager
from pathlib import Path

from itdeid.errors import UserError
from itdeid.model_folder import model_digests
from itdeid.model_folder.layout import _MODEL_FILES, _MODEL_FOLDER, CARD, MODEL_STATE_FILES

def check_out(folder) -> Path:
    """``folder`` as a place to save a model: absent, empty, or a model folder (which the new
    model replaces); anything else is a :class:`UserError` naming it."""
    folder = _not_a_file(folder)
    if not os.path.lexists(folder):
        return folder
    try:
        entries = [entry.name for entry in os.scandir(folder)]
    except OSError as error:
        raise UserError(f"{folder}: cannot read the folder ({error.strerror})") from None
    if entries and not any(name in entries for name in MODEL_STATE_FILES):
        raise UserError(f"{folder}: holds files and is not a model folder; give a new or empty "
                        "folder (a model folder is replaced whole)")
    foreign = sorted(name for name in entries if name != CARD and not _is_model_part(folder / name))
    if foreign:
        raise UserError(f"{folder}: a model folder that also holds other files ({foreign[0]}"
                        f"{', ...' if len(foreign) > 1 else ''}), which replacing the model would "
                        "delete; move them out or give another folder")
    return folder


def check_kind(folder, state_file: str) -> Path:
    """``folder`` made ready for a model whose state is ``state_file`` (one of
    :data:`MODEL_STATE_FILES`): created, and refused (:class:`UserError`) when it holds another
    kind's state, which :func:`~itdeid.model_folder.load.load_model` would find first or instead; an
    old model of the same kind is removed (the new one replaces it whole), and so are digests
    (``SHA256SUMS``) that would no longer describe the folder. Every model's ``save`` calls it;
    ``itdeid train`` saves into a fresh folder anyway. A link is refused: a member folder
    linked elsewhere was followed, and the save overwrote another model's files."""
    if os.path.islink(folder):
        raise UserError(f"{folder}: a link; a model is saved into a folder of its own, not "
                        "through a link to another")
    folder = _not_a_file(folder)
    others = [name for name in MODEL_STATE_FILES if name != state_file and (folder / name).exists()]
    if others:
        raise UserError(f"{folder}: holds a model of another kind ({others[0]}); save into a new "
                        "or empty folder")
    folder.mkdir(parents=True, exist_ok=True)
    if (folder / state_file).is_file():
        _remove_model_parts(folder)
    (folder / model_digests.FILE).unlink(missing_ok=True)
    return folder


def _is_model_part(path: Path) -> bool:
    """Whether ``path`` is something a model's ``save`` wrote: a model file by its name, or a
    model folder by its name whose every entry is one. A broader rule (any ``learner.*``, any
    ``context/``) deleted a team's ``learner.log`` and the notes in its own ``context/``
    folder with the old model."""
    if path.is_symlink():
        return False
    if path.is_dir():
        return bool(_MODEL_FOLDER.fullmatch(path.name)) and all(map(_is_model_part, path.iterdir()))
    return path.name in _MODEL_FILES


def _remove_model_parts(folder: Path) -> None:
    """Remove the parts of the model of the same kind that ``folder`` holds, and its card,
    before a new one is saved there: a new model with fewer members, or without a context
    learner, left the old one's (a ``member-4/`` of a model trained on other notes), and the
    old card described another model. Anything else (a team's own files) stays."""
    for entry in Path(folder).iterdir():
        if entry.name == CARD or _is_model_part(entry):
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()


@contextmanager
def replacing(folder):
    """A fresh folder beside ``folder`` to write a model in; on success it gets the digests of
    its files (:mod:`itdeid.model_folder.model_digests`) and takes the place of ``folder`` (whose old contents
    are removed), on an error it is removed and ``folder`` is left as it was."""
    folder = check_out(folder)
    if Path.cwd().resolve().is_relative_to(folder):
        # the swap moves the folder away: a shell in it was left in a deleted folder
        raise UserError(f"{folder}: the working folder is inside it, and the model folder is "
                        "replaced whole; run from outside it")
    folder.parent.mkdir(parents=True, exist_ok=True)
    _remove_leftovers(folder)
    fresh = folder.parent / f".{folder.name}.new-{os.getpid()}"
    fresh.mkdir()
    _keep_mode(folder, fresh)
    try:
        yield fresh
        model_digests.write(fresh)
    except BaseException:
        shutil.rmtree(fresh, ignore_errors=True)
        raise
    old = None
    if os.path.lexists(folder):
        old = folder.parent / f".{folder.name}.old-{os.getpid()}"
        old.mkdir()
        os.replace(folder, old / "model")
    os.replace(fresh, folder)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _keep_mode(old: Path, fresh: Path) -> None:
    """Give ``fresh`` the permissions and group of the folder it replaces: a team's 2750
    (group-only, setgid) model folder came back 755 after a retraining."""
    try:
        status = os.stat(old)
    except FileNotFoundError:
        return
    try:
        os.chown(fresh, -1, status.st_gid)
    except OSError:
        pass                                # not the group's member: the mode still applies
    os.chmod(fresh, stat.S_IMODE(status.st_mode))


def _remove_leftovers(folder: Path) -> None:
    """Remove the ``.NAME.new-PID`` and ``.NAME.old-PID`` folders beside ``folder`` that a process
    no longer running left (killed while training or saving), and this process's own (a dead
    process may have had its id). An ``old`` one stays while ``folder`` is missing: a kill
    between the swap's two renames leaves the previous model there and nowhere else."""
    leftover = re.compile(rf"\.{re.escape(folder.name)}\.(new|old)-(\d+)")
    for entry in folder.parent.iterdir():
        match = leftover.fullmatch(entry.name)
        if match is None or not entry.is_dir() or entry.is_symlink():
            continue
        pid = int(match.group(2))
        if pid != os.getpid() and _running(pid):
            continue
        if match.group(1) == "old" and not os.path.lexists(folder):
            continue
        shutil.rmtree(entry, ignore_errors=True)


def _running(pid: int) -> bool:
    """Whether process ``pid`` runs (True where that cannot be told: not POSIX, where
    ``os.kill`` would end it)."""
    if os.name != "posix":
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:        # another user's process
        return True
    return True


def _not_a_file(folder) -> Path:
    """``folder`` as an absolute Path with its links followed, refused when something other
    than a folder stands there. ``--out .`` had no name to put the fresh folder beside (the
    swap failed after the whole training), and a link given as ``--out`` was replaced by a
    folder while its target kept the old model."""
    folder = Path(folder).resolve()
    if os.path.lexists(folder) and not folder.is_dir():
        raise UserError(f"{folder}: exists and is not a folder; give a folder to save the model in")
    return folder
