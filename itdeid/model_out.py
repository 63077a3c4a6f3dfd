"""Writing a model folder: a new model replaces the old one whole, or nothing changes.

Each model kind writes its own files (``model.json``, ``ensemble.json``, ``deidentifier.json``
and member folders), and :func:`itdeid.deidentifier.load_model` picks the kind by the files it
finds. Saving a new model into a folder that held another kind once left the old files beside
the new ones, and ``itdeid deid`` went on tagging with the old model without a word. So
``itdeid train`` checks its ``--out`` before training (:func:`check_out`: a new or empty folder,
or a model folder to replace, never a folder of other files such as the corpus) and writes the
model into a fresh folder beside it, then swaps the two (:func:`replacing`): a crash or a stop
while saving leaves the old model as it was.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path

from itdeid.errors import UserError

#: Files whose presence makes a folder a model folder that a new model may replace.
MODEL_STATE_FILES = ("model.json", "ensemble.json", "deidentifier.json")


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
    return folder


def check_kind(folder, state_file: str) -> Path:
    """``folder`` made ready for a model whose state is ``state_file`` (one of
    :data:`MODEL_STATE_FILES`): created, and refused (:class:`UserError`) when it holds another
    kind's state, which :func:`~itdeid.deidentifier.load_model` would find first or instead.
    Every model's ``save`` calls it; ``itdeid train`` saves into a fresh folder anyway."""
    folder = _not_a_file(folder)
    others = [name for name in MODEL_STATE_FILES if name != state_file and (folder / name).exists()]
    if others:
        raise UserError(f"{folder}: holds a model of another kind ({others[0]}); save into a new "
                        "or empty folder")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@contextmanager
def replacing(folder):
    """A fresh folder beside ``folder`` to write a model in; on success it takes the place of
    ``folder`` (whose old contents are removed), on an error it is removed and ``folder`` is
    left as it was."""
    folder = check_out(folder)
    folder.parent.mkdir(parents=True, exist_ok=True)
    fresh = Path(tempfile.mkdtemp(dir=folder.parent, prefix=f".{folder.name}.new-"))
    try:
        yield fresh
    except BaseException:
        shutil.rmtree(fresh, ignore_errors=True)
        raise
    old = None
    if os.path.lexists(folder):
        old = Path(tempfile.mkdtemp(dir=folder.parent, prefix=f".{folder.name}.old-"))
        os.replace(folder, old / "model")
    os.replace(fresh, folder)
    os.chmod(folder, 0o777 & ~_umask())   # as mkdir would make it (mkdtemp: 0o700)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _not_a_file(folder) -> Path:
    """``folder`` as a Path, refused when something other than a folder stands there."""
    folder = Path(folder)
    if os.path.lexists(folder) and not folder.is_dir():
        raise UserError(f"{folder}: exists and is not a folder; give a folder to save the model in")
    return folder


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
