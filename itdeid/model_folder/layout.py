"""What a model folder holds, by name: the state files that make a folder a model folder, the
files and subfolders a model's ``save`` writes, and the digest list. Read by the writer
(:mod:`itdeid.model_folder.model_out`), the digests (:mod:`itdeid.model_folder.model_digests`) and
the loader alike."""
from __future__ import annotations

import re
from pathlib import Path

from itdeid.estimators.learners import KNOWN_FILES

#: The digest list of a model folder's files (:mod:`itdeid.model_folder.model_digests`).
DIGESTS = "SHA256SUMS"
#: Files whose presence makes a folder a model folder that a new model may replace (``crf.json``:
#: the CRF peer's, which :func:`~itdeid.model_folder.load.load_model` reads too).
MODEL_STATE_FILES = ("model.json", "ensemble.json", "deidentifier.json", "crf.json")
#: The model card a training writes beside the model (documentation, replaced with it).
CARD = "MODEL_CARD.md"


#: The files a model's ``save`` writes, by name (state, learners, the CRF's model, the digests).
_MODEL_FILES = frozenset(MODEL_STATE_FILES) | KNOWN_FILES | {"model.crfsuite", DIGESTS}
#: The folders it writes: an ensemble's members and stage models, a system's models, a token
#: model's context stage, a two-step learner's steps.
_MODEL_FOLDER = re.compile(r"member-\d+|context-\d+|itr\d+-(token|phrase|ngram)|context|detector|typer")


def model_files(folder) -> list[Path]:
    """The files of the model in ``folder``: those named as a model's ``save`` names them, in
    the folder or in its model folders (``member-K/``, ``detector/``...), however many other
    files lie beside them; its digests and card left out. What tags the notes, so a run's
    resume can tell a retrained model from one whose card was rewritten, whose digests were
    added or beside which a ``.DS_Store`` appeared, even inside a member folder (each refused a
    resume before, or let a changed member's model resume when it held a stray file)."""
    files = []
    for entry in sorted(Path(folder).iterdir()):
        if entry.is_dir() and _MODEL_FOLDER.fullmatch(entry.name):
            files += model_files(entry)
        elif entry.is_file() and entry.name in _MODEL_FILES and entry.name != DIGESTS:
            files.append(entry)
    return files
