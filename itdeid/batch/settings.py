"""What a batch's outputs depend on besides the input: the model, the secret key and the
options, as :class:`Settings`, which workers receive and the manifest compares.

The model is a folder written by ``itdeid train`` (else the default model shipped with itdeid);
the manifest records the sha256 of its files, so a retrained or edited model is noticed.

One output folder holds the outputs of one set of settings (:meth:`Settings.fingerprint`): a
rerun under other settings is refused, naming what differs (:func:`differences`), because a
folder mixing, say, redacted notes with brat's original text cannot be shipped safely.

The key. Surrogates (``fmt="surrogate"``, :class:`itdeid.render.surrogate.Surrogates`) and renamed
outputs (``rename``) are keyed by a secret: it undoes the date shifts and confirms guessed file
names, so it must never travel with the outputs. Every run has one, whatever its format: the
manifest's digests of the inputs are keyed by it (:attr:`Settings.digest_key`), since a plain
hash of a note inside ``OUT`` confirms guesses of its text. It is the bytes of ``key_file``, else of
``OUT.itdeid-key`` beside the output folder (:func:`default_key_path`); either is created once
(32 random bytes, mode 0600) when missing, atomically, while the run holds the folder's lock, and
is reused by reruns, so they draw the same surrogates. A key file inside ``OUT`` is refused; the
manifest holds only a fingerprint of the key. Deleting the key makes the folder's outputs
impossible to continue with the same surrogates, or to check the digests and input folders
the manifest recorded: a rerun is refused until ``--force``. A key shorter than :data:`MIN_KEY_BYTES` is refused:
every one-byte key was tried against a surrogate output in under a second. So is a key file
longer than :data:`MAX_KEY_BYTES`, or anything that is not a regular file (a FIFO, /dev/zero),
unread: a note or an archive passed as the key by mistake was read whole, and a device that
never ends ran the process out of memory.
"""
from __future__ import annotations

import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path

from itdeid import __version__
from itdeid.batch.files import fingerprint, folder_sha256, make_private_folders
from itdeid.batch.inputs import secret_file_outside
from itdeid.errors import FormatError, UserError
from itdeid.formats.files import open_regular
from itdeid.render.surrogate import SURROGATE_SCHEME

#: The key file an older itdeid kept inside ``OUT``; a folder that still holds one is refused.
OLD_KEY_NAME = ".itdeid-surrogate-key"
#: The shortest key accepted (128 bits).
MIN_KEY_BYTES = 16
#: The longest key file accepted: itdeid writes 32 bytes, and a key written out as hex or
#: base64 text is still far below this; a longer file is no key.
MAX_KEY_BYTES = 1024
#: Suffix of the default key file, beside ``OUT``: ``deid/`` -> ``deid.itdeid-key``.
KEY_SUFFIX = ".itdeid-key"
#: Output formats that are not de-identified text, and what of the original each holds.
REVIEW_FORMATS = {
    "xml": "the original note text, with PHI tags",
    "jsonl": "the offsets of every PHI in the original notes",
    "brat": "the original note text beside .ann files that quote each PHI",
}


def resolve_model_dir(model: str | os.PathLike | None) -> Path:
    """``model`` as a model folder, or (None, or ``default``) the model shipped with itdeid; a
    clear one-line error where neither exists."""
    from itdeid.resources import default_model_dir, model_folder
    folder = model_folder(model)
    if folder == default_model_dir():
        if not _is_model_dir(folder):
            raise UserError("no default model is installed with this itdeid; pass --model DIR "
                            "(train one with itdeid train)")
        return folder
    if not folder.is_dir():
        raise UserError(f"--model {folder}: " + ("not a folder; give the model's folder"
                                                 if folder.exists() else "no such folder"))
    if (folder / "crf.json").is_file():
        raise UserError(f"--model {folder}: the CRF peer's model (crf.json), for comparison "
                        "in cross-validation; itdeid deid tags with a model itdeid train writes")
    if not _is_model_dir(folder):
        raise UserError(f"--model {folder}: not a model folder (no model.json, ensemble.json or "
                        "deidentifier.json; train one with itdeid train)")
    return folder.resolve()


def _is_model_dir(folder: Path) -> bool:
    """A folder ``itdeid train`` wrote: a token model, the recipe's ensemble or the system."""
    return any((folder / name).is_file() for name in ("model.json", "ensemble.json", "deidentifier.json"))


def model_fingerprint(folder: Path) -> str:
    """sha256 of the model's own files (names and contents, :func:`itdeid.model_folder.layout.model_files`),
    so a retrained or edited model redoes the inputs, while a moved one does not, nor one whose
    card was rescored or beside which another file appeared."""
    from itdeid.model_folder.model_files import check_size
    from itdeid.model_folder.layout import model_files
    files = model_files(folder)
    for path in files:      # an oversized file is refused before any of it is read
        check_size(path)
    return folder_sha256(folder, files)


def default_key_path(out: Path) -> Path:
    """The key kept beside ``OUT`` (``deid/`` -> ``deid.itdeid-key``), outside the folder that
    is shipped."""
    return out.with_name(out.name + KEY_SUFFIX)


def key_path(out: Path, key_file) -> Path:
    """Where the key is read (or created): ``key_file``, else :func:`default_key_path`;
    refused inside ``OUT``, and where an older itdeid left a key inside ``OUT``."""
    old = out / OLD_KEY_NAME
    if old.exists():
        raise UserError(f"{old}: a secret key inside --out (written by an older itdeid) would be "
                        f"shipped with the outputs; move it out (mv {old} "
                        f"{default_key_path(out)}) and run again")
    path = Path(key_file).resolve() if key_file is not None else default_key_path(out)
    return secret_file_outside(path, out, "--key-file", "the key")


def load_or_create_key(path: Path) -> tuple[bytes, bool]:
    """(the key in ``path``, whether it was created now). A missing key is created with 32
    random bytes, mode 0600, published with a hard link so that it appears whole and two
    runs creating it at once agree on one key (the second reads the first's)."""
    import tempfile
    if not path.exists():
        try:
            make_private_folders(path.parent)
            descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.",
                                                     suffix=".itdeid.tmp")
        except OSError as error:
            raise UserError(f"{path}: cannot create the key: {error.strerror}") from None
        try:
            with os.fdopen(descriptor, "wb") as handle:
                handle.write(secrets.token_bytes(32))
                handle.flush()
                os.fsync(handle.fileno())
            os.link(temporary, path)
            created = True
        except FileExistsError:
            created = False
        except OSError as error:
            raise UserError(f"{path}: cannot create the key: {error.strerror}") from None
        finally:
            os.unlink(temporary)
        if created:
            return _read_key(path), True
    key = _read_key(path)
    if not key:
        raise UserError(f"{path}: the key file is empty")
    if len(key) < MIN_KEY_BYTES:
        raise UserError(f"{path}: the key is {len(key)} bytes: one this short is found by "
                        f"trying them all; use at least {MIN_KEY_BYTES} random bytes (itdeid "
                        "writes 32 where no key file is given: head -c 32 /dev/urandom > FILE)")
    return key, False


def _read_key(path: Path) -> bytes:
    """The bytes of the key file ``path``: a regular file of at most :data:`MAX_KEY_BYTES`,
    checked before it is opened and read no further than that, so a wrong file costs nothing."""
    try:
        with open_regular(path) as handle:
            size = os.fstat(handle.fileno()).st_size
            key = handle.read(MAX_KEY_BYTES + 1) if size <= MAX_KEY_BYTES else b""
    except FormatError as error:
        raise UserError(f"{error} (a key is a file of {MIN_KEY_BYTES} to {MAX_KEY_BYTES} "
                        "bytes)") from None
    except OSError as error:
        raise UserError(f"{path}: cannot read the key: {error.strerror}") from None
    if size > MAX_KEY_BYTES or len(key) > MAX_KEY_BYTES:
        raise UserError(f"{path}: more than {MAX_KEY_BYTES} bytes, so not a key (a key is a file "
                        f"of {MIN_KEY_BYTES} to {MAX_KEY_BYTES} bytes); is it the right file?")
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
    rename: bool = False
    threshold: float | None = None
    #: Passes or pass groups turned off by name (:mod:`itdeid.pipeline`)
    skip_passes: tuple[str, ...] = ()
    #: The folder's key, which keys the manifest's digests of the inputs in every format (the
    #: outputs depend on it only where ``key`` is set too).
    digest_key: bytes = field(default=b"", repr=False)

    def fingerprint(self) -> dict:
        """The settings an output depends on (no secret): equal settings and input content
        give byte-identical outputs."""
        return {"format": self.fmt, "input_format": self.input_format,
                "model": self.model_sha256, "vote": self.vote,
                "key": key_fingerprint(self.digest_key) if self.digest_key else None,
                "rename": self.rename, "threshold": self.threshold, "itdeid": __version__,
                "skip_passes": ",".join(sorted(self.skip_passes)) or None,
                # stand-ins of one patient must come from one scheme across resumed runs
                "surrogates": SURROGATE_SCHEME if self.fmt == "surrogate" else None}


#: How :func:`differences` names each setting.
_SETTING_NAMES = {"format": "--format", "input_format": "--input-format", "model": "--model",
                  "vote": "--vote", "key": "key", "rename": "--rename",
                  "threshold": "--threshold", "skip_passes": "--skip-pass",
                  "itdeid": "itdeid version", "surrogates": "how surrogates are drawn"}


def _shown(value) -> str:
    """A setting's value as a user gives it: on or off for a switch, none where it is unset."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def differences(old: dict, new: dict) -> list[str]:
    """What differs between two :meth:`Settings.fingerprint` s, for a message (no secret: the
    model and key are said to differ, not shown)."""
    found = []
    for name in sorted(set(old) | set(new), key=lambda n: list(_SETTING_NAMES).index(n)
                       if n in _SETTING_NAMES else len(_SETTING_NAMES)):
        was, now = old.get(name), new.get(name)
        if was == now:
            continue
        label = _SETTING_NAMES.get(name, name)
        if name in ("model", "key"):
            found.append(f"{label}: " + ("none before" if was is None else "none now"
                                         if now is None else "another one"))
        elif name == "surrogates":      # a number that means nothing to a user
            found.append(f"{label}: this itdeid draws them otherwise than the one that wrote "
                         "those outputs")
        else:
            found.append(f"{label}: {_shown(was)} before, {_shown(now)} now")
    return found


def load_tagger(settings: Settings, alone: bool = False):
    """The model and (for surrogates) the Surrogates of ``settings``, as each worker loads
    them once, warmed up with the collector held off (:mod:`itdeid.estimators.warm_start`). ``alone``: this
    is the run's only tagging process, so a core the process may use besides its own is free,
    and the templates' prefilter compiles there while the model loads."""
    from itdeid.estimators.warm_start import starting
    with starting(alone):
        return _warm_tagger(settings)


def _warm_tagger(settings: Settings):
    """:func:`load_tagger`'s model and Surrogates, the model warmed up
    (:func:`itdeid.estimators.warm_start.warm_up`)."""
    from itdeid.estimators.deidentifier import Deidentifier, set_threshold
    from itdeid.model_folder.load import load_model
    from itdeid.render.surrogate import Surrogates
    from itdeid.estimators.warm_start import warm_up
    model = load_model(settings.model_dir)
    if settings.vote is not None and isinstance(model, Deidentifier):
        model.set_params(vote=settings.vote)._check()
    if settings.threshold is not None:
        set_threshold(model, settings.threshold)
    if settings.skip_passes:      # the run's passes off, beside those the model turns off
        model.skip_passes = tuple(sorted(set(getattr(model, "skip_passes", ())) | set(settings.skip_passes)))
    surrogates = Surrogates(settings.key) if settings.fmt == "surrogate" else None
    warm_up(model)
    return model, surrogates
