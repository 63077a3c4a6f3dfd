"""What a batch's outputs depend on besides the input: the model, the surrogate key and the
options, as :class:`Settings`, which workers receive and the manifest compares.

The model is a folder written by ``itdeid train`` (else the default model shipped with itdeid);
the manifest records the sha256 of its files, so a retrained or edited model redoes the inputs.

Surrogates (``fmt="surrogate"``) are keyed (:class:`itdeid.surrogate.Surrogates`): the key is
the bytes of ``surrogate_key_file``, else a random 32-byte key created once in
``OUT/.itdeid-surrogate-key`` (mode 0600) and reused by reruns. Keep it secret and do not ship
it with the outputs: it undoes the date shifts. Deleting it makes the next run draw other
surrogates (and redo every input).
"""
from __future__ import annotations

import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from itdeid import __version__
from itdeid.errors import UserError
from itdeid.batch.files import fingerprint, folder_sha256, write_atomic

KEY_NAME = ".itdeid-surrogate-key"


def resolve_model_dir(model: str | os.PathLike | None) -> Path:
    """``model`` as a model folder, or the default model shipped with itdeid; a clear one-line
    error where neither exists."""
    if model is None:
        from itdeid.resources import default_model_dir
        folder = default_model_dir()
        if not _is_model_dir(folder):
            raise UserError("no default model is installed with this itdeid; pass --model DIR "
                            "(train one with itdeid train)")
        return folder
    folder = Path(model)
    if not folder.is_dir():
        raise UserError(f"--model {folder}: no such folder")
    if not _is_model_dir(folder):
        raise UserError(f"--model {folder}: not a model folder (no model.json or "
                        "deidentifier.json; train one with itdeid train)")
    return folder.resolve()


def _is_model_dir(folder: Path) -> bool:
    return (folder / "model.json").is_file() or (folder / "deidentifier.json").is_file()


def model_fingerprint(folder: Path) -> str:
    """sha256 of every file of a model folder (names and contents), so a retrained or edited
    model redoes the inputs, while a moved one does not."""
    return folder_sha256(folder)


def load_surrogate_key(out: Path, key_file, report: Callable[[str], None]) -> bytes:
    """The surrogate key: the bytes of ``key_file``, else the key kept in ``OUT`` (created
    once, mode 0600, so reruns draw the same surrogates)."""
    if key_file is not None:
        try:
            key = Path(key_file).read_bytes()
        except OSError as error:
            raise UserError(f"--surrogate-key-file {key_file}: cannot read: "
                            f"{error.strerror}") from None
        if not key:
            raise UserError(f"--surrogate-key-file {key_file}: the file is empty")
        return key
    path = out / KEY_NAME
    if path.is_file():
        key = path.read_bytes()
        if not key:
            raise UserError(f"{path}: the surrogate key file is empty; delete it to draw a new "
                            "key (other surrogates than before)")
        report(f"note: using the surrogate key {path}; keep it secret (it undoes the date "
               "shifts) and do not ship it with the outputs")
        return key
    key = secrets.token_bytes(32)
    write_atomic(path, key)
    report(f"note: wrote a new secret surrogate key to {path} (mode 0600). Keep it secret and "
           "do not ship it with the outputs (it undoes the date shifts); keep it to rerun with "
           "the same surrogates: deleting it makes reruns draw different surrogates. Next time "
           "you can pass it with --surrogate-key-file.")
    return key


def key_fingerprint(key: bytes) -> str:
    """A short public fingerprint of the key for the manifest (a changed key redoes the
    inputs); domain-separated so it is never a value the surrogates use."""
    return fingerprint(key, "surrogate key")


@dataclass(frozen=True)
class Settings:
    """What a worker needs to process a unit (picklable), and what the manifest compares."""

    model_dir: str
    model_sha256: str
    fmt: str
    input_format: str
    vote: str | None
    key: bytes | None = field(default=None, repr=False)

    def fingerprint(self) -> dict:
        """The settings an output depends on (no secret): equal settings and input content
        give byte-identical outputs."""
        return {"format": self.fmt, "input_format": self.input_format,
                "model": self.model_sha256, "vote": self.vote,
                "surrogate_key": key_fingerprint(self.key) if self.key else None,
                "itdeid": __version__}


def load_tagger(settings: Settings):
    """The model and (for surrogates) the Surrogates of ``settings``, as each worker loads
    them once."""
    from itdeid.deidentifier import Deidentifier, load_model
    from itdeid.surrogate import Surrogates
    model = load_model(settings.model_dir)
    if settings.vote is not None and isinstance(model, Deidentifier):
        model.set_params(vote=settings.vote)
    surrogates = Surrogates(settings.key) if settings.key else None
    return model, surrogates
