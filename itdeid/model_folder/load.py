"""Load any model folder ``itdeid train`` writes: the kind is told by its state file, and the
files are checked against the folder's digests first."""
from __future__ import annotations

from pathlib import Path

from itdeid.errors import UserError
from itdeid.model_folder import model_digests
from itdeid.model_folder.layout import MODEL_STATE_FILES


def load_model(folder):
    """A model folder written by ``itdeid train``: a :class:`~itdeid.estimators.deidentifier.Deidentifier`, an
    :class:`~itdeid.estimators.ensemble.InnerEnsemble` or a :class:`~itdeid.estimators.model.TokenModel` (or the CRF peer's folder,
    a :class:`~itdeid.estimators.crf.CRFModel`), checked against the digests of its files where it has
    them (:mod:`itdeid.model_folder.model_digests`). A folder holding the state files of two kinds (saved
    over by an older itdeid) is refused: which one its card describes cannot be told."""
    from itdeid.estimators.deidentifier import Deidentifier
    from itdeid.estimators.ensemble import STATE_FILE, InnerEnsemble
    from itdeid.estimators.model import TokenModel
    folder = Path(folder)
    model_digests.check(folder)
    kinds = [name for name in MODEL_STATE_FILES if (folder / name).is_file()]
    if len(kinds) > 1:
        raise UserError(f"{folder}: holds models of two kinds ({kinds[0]} and {kinds[1]}); "
                        "keep one model a folder")
    if (folder / "deidentifier.json").is_file():
        return Deidentifier.load(folder)
    if (folder / STATE_FILE).is_file():
        return InnerEnsemble.load(folder)
    if (folder / "crf.json").is_file():
        from itdeid.estimators.crf import CRFModel
        return CRFModel.load(folder)
    return TokenModel.load(folder)
