"""Reading a model folder as untrusted data: every problem is one line naming the file.

A model folder comes from anywhere a user downloads or copies it, and ``itdeid deid`` may run
it over millions of notes: a tampered or truncated file must stop the run at load time with a
:class:`~itdeid.errors.UserError` naming the file, not with a traceback half-way through a
batch, and never by running anything. So the JSON state of every model kind is read here:

- :func:`read_model_state`: the file exists, is JSON, and is the kind and format expected;
- :func:`checked_params`: the saved estimator parameters are the estimator's own, each of the
  type its ``__init__`` declares (an ``int`` is not ``"2"``, a list of words is a list of str);
- :func:`damaged`: any other inconsistency found while rebuilding the model from the state
  (a missing key, a wrong shape) becomes the same one-line error.
"""
from __future__ import annotations

import inspect
import json
import math
import os
import re
from contextlib import contextmanager
from pathlib import Path

from itdeid import __version__
from itdeid.errors import ParameterError, UserError


#: The largest count a model file may hold: float64 holds every integer up to it exactly (the
#: features compute with counts as floats); above it, or below 0, a count is damage.
MAX_COUNT = 2 ** 53


def is_count(value) -> bool:
    """Whether a value read from a model file is a count: an int (not a bool) in 0..MAX_COUNT."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_COUNT


def is_finite_number(value) -> bool:
    """Whether a value read from a model file is a finite number (not a bool, NaN or infinite)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


#: The most bytes any file of a model folder may have, checked before the file is read. The
#: shipped model's largest file is about 0.6 MB, and a model trained on many more notes has files
#: of a few MB; a bigger file is damaged or hostile, and every worker process that loads the
#: model would hold it, JSON several times over while it is parsed.
MAX_FILE_BYTES = 64 << 20
#: The most bytes a model's JSON file may have: the cap on any model file.
MAX_STATE_BYTES = MAX_FILE_BYTES


def _amount(size: int) -> str:
    return f"{size / (1 << 20):.1f} MiB" if size >= 1 << 20 else f"{size:,} bytes"


def check_size(path: Path, limit: int = MAX_FILE_BYTES) -> None:
    """Refuse (:class:`UserError`, one line naming the file, its size and the cap) a model file
    of more than ``limit`` bytes, before anything of it is read."""
    size = path.stat().st_size
    if size > limit:
        raise UserError(f"{path}: {_amount(size)}, over the {_amount(limit)} a model file may "
                        "have; not a model file (damaged, or not written by itdeid train)")


def check_entries(path, state, known, what: str = "the file") -> None:
    """Refuse (:class:`UserError` naming the file) an entry of the JSON object ``state`` that
    ``known`` does not name: itdeid never writes one, so it is damage or an edit, and a large
    one would cost every worker process its memory for nothing."""
    if not isinstance(state, dict):
        return      # the loader says what is wrong with a value that is no object
    unknown = sorted(set(state) - set(known))
    if unknown:
        more = f" (and {len(unknown) - 1} more)" if len(unknown) > 1 else ""
        raise UserError(f"{path}: unknown entry {unknown[0][:40]!r}{more} in {what}; "
                        "not a model file itdeid wrote (damaged or edited): use the folder "
                        "itdeid train wrote")


def model_part(folder, name: str) -> Path:
    """``folder / name``, a file or subfolder of a model folder, refused (:class:`UserError`)
    when it is a link leading out of ``folder``: a model folder is read as one piece of
    untrusted data, and its parts come from nowhere else."""
    folder = Path(folder)
    path = folder / name
    if os.path.lexists(path) and not path.resolve().is_relative_to(folder.resolve()):
        raise UserError(f"{path}: a link out of the model folder; a model's files must lie inside it")
    return path


def read_json_file(path: Path, limit: int = MAX_STATE_BYTES):
    """The JSON value in ``path`` (at most ``limit`` bytes), or a one-line :class:`UserError`
    naming it: unreadable, too big, not UTF-8, not JSON, or nested too deeply for the parser."""
    try:
        check_size(path, limit)
        with open(path, encoding="utf-8") as handle:
            text = handle.read(limit + 1)
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise UserError(f"{path}:{error.lineno}: not valid JSON ({error.msg})") from None
    except RecursionError:
        raise UserError(f"{path}: not valid JSON (nested too deeply)") from None
    except UnicodeDecodeError:
        raise UserError(f"{path}: cannot read (not UTF-8 text)") from None
    except OSError as error:
        raise UserError(f"{path}: cannot read ({error.strerror or type(error).__name__})") from None


def threshold_described(folder, given: float | None = None) -> str:
    """The P(PHI) threshold a run tags at, for its closing summary: ``given`` (``--threshold``),
    else the one the model in ``folder`` learned, read from its state files without building the
    model (a batch's parent process says it while its workers load the model): '0.1023 (the
    model's own)', the several of a system's member models, or none for a model that tags each
    token's most probable class. A file that cannot be read is left out here: loading the model
    refuses it."""
    if given is not None:
        return f"{given:g} (--threshold)"
    folder = Path(folder)
    if (folder / "ensemble.json").is_file():
        paths = [folder / "ensemble.json"]
    elif (folder / "deidentifier.json").is_file():
        paths = sorted(folder.glob("itr*-*/model.json"))
    else:
        paths = [folder / "model.json"]
    found = set()
    for path in paths:
        try:
            state = read_json_file(path)
        except UserError:
            continue
        value = state.get("threshold") if isinstance(state, dict) else None
        if is_finite_number(value):
            found.add(float(value))
    if not found:
        return "none, each token's most probable class (the model's own)"
    return ", ".join(f"{value:.4g}" for value in sorted(found)) + " (the model's own)"


def read_model_state(folder, filename: str, kind: str, fmt: int, what: str, entries) -> dict:
    """The JSON state file ``filename`` of a model folder, checked to be a ``kind`` of format
    ``fmt`` holding no entry but ``entries``; every problem is a :class:`UserError` naming the
    file (and line), never a traceback. ``what`` names the folder kind in the message ('a
    Deidentifier model folder')."""
    folder = Path(folder)
    if not os.path.lexists(folder):
        raise UserError(f"{folder}: no such folder")
    if not folder.is_dir():
        raise UserError(f"{folder}: not a folder; give the model's folder")
    try:
        os.scandir(folder).close()
    except OSError as error:
        raise UserError(f"{folder}: cannot read the folder ({error.strerror})") from None
    path = model_part(folder, filename)
    if not path.is_file():
        raise UserError(f"{folder}: not {what} (no {filename})")
    state = read_json_file(path)
    if not isinstance(state, dict):
        raise UserError(f"{path}: not a model state (a JSON object); this itdeid {__version__} "
                        f"reads {kind} v{fmt}")
    if state.get("kind") != kind or state.get("format") != fmt:
        raise UserError(f"{path}: model format {state.get('kind')} v{state.get('format')} "
                        f"(written by itdeid {state.get('itdeid_version')}); this itdeid "
                        f"{__version__} reads {kind} v{fmt}")
    check_entries(path, state, entries)
    return state


#: Annotation words of ``__init__`` parameters -> the JSON values they accept.
_TYPES = {
    "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "float": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "str": lambda v: isinstance(v, str),
    "bool": lambda v: isinstance(v, bool),
    "None": lambda v: v is None,
    "dict": lambda v: isinstance(v, dict),
    "Sequence[str]": lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v),
    "tuple[str, ...]": lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v),
}


def checked_params(path, params, estimator_class) -> dict:
    """``params`` (saved by ``get_params``) checked against ``estimator_class.__init__``: known
    names only, each value of a type its annotation allows. Values are checked further by the
    estimator itself (allowed choices), inside :func:`damaged`. A list saved for a parameter
    whose default is a tuple (JSON has no tuples) comes back a tuple, so a loaded model's
    ``get_params`` equals the saved one's."""
    if not isinstance(params, dict):
        raise UserError(f"{path}: 'params' is not an object")
    signature = inspect.signature(estimator_class.__init__)
    for name, value in params.items():
        parameter = signature.parameters.get(name)
        if parameter is None or name == "self":
            raise UserError(f"{path}: unknown parameter {name!r} of {estimator_class.__name__}")
        annotation = parameter.annotation
        if annotation is inspect.Parameter.empty:
            continue
        allowed = [a.strip() for a in re.split(r"\s*\|\s*", str(annotation))]
        checks = [_TYPES[a] for a in allowed if a in _TYPES]
        if checks and not any(check(value) for check in checks):
            raise UserError(f"{path}: parameter {name!r} must be {' or '.join(allowed)}, "
                            f"got {type(value).__name__}")
    return {name: tuple(value) if isinstance(value, list)
            and isinstance(signature.parameters[name].default, tuple) else value
            for name, value in params.items()}


@contextmanager
def damaged(path):
    """Turn any inconsistency met while rebuilding a model from ``path``'s state into a
    one-line :class:`UserError` naming the file (the error's type and message describe the
    state, which holds no note text)."""
    try:
        yield
    except ParameterError as error:    # a saved parameter out of range: name the file too
        raise UserError(f"{path}: damaged model state ({error})") from None
    except UserError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as error:
        detail = f"missing entry {error}" if isinstance(error, KeyError) else str(error)
        raise UserError(f"{path}: damaged model state ({type(error).__name__}: {detail})") from None


def checked_words(values, name: str) -> list[str]:
    """A saved list of words, checked."""
    if not isinstance(values, list) or not all(isinstance(w, str) for w in values):
        raise ValueError(f"{name} must be a list of words")
    return values


def checked_word_table(table, name: str, allowed) -> dict:
    """A saved {word: integer} table, checked (values in ``allowed`` when given)."""
    if not isinstance(table, dict) or not all(
            is_count(v) and (allowed is None or v in allowed) for v in table.values()):
        raise ValueError(f"{name} must map words to counts" if allowed is None else
                         f"{name} must map words to codes {min(allowed)}..{max(allowed)}")
    return table
