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
import re
from contextlib import contextmanager
from pathlib import Path

from itdeid import __version__
from itdeid.errors import ParameterError, UserError


def read_model_state(folder, filename: str, kind: str, fmt: int, what: str) -> dict:
    """The JSON state file ``filename`` of a model folder, checked to be a ``kind`` of format
    ``fmt``; every problem is a :class:`UserError` naming the file (and line), never a
    traceback. ``what`` names the folder kind in the message ('a Deidentifier model folder')."""
    folder = Path(folder)
    path = folder / filename
    if not folder.exists():
        raise UserError(f"{folder}: no such folder")
    if not path.is_file():
        raise UserError(f"{folder}: not {what} (no {filename})")
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise UserError(f"{path}:{error.lineno}: not valid JSON ({error.msg})") from None
    except (OSError, UnicodeDecodeError) as error:
        raise UserError(f"{path}: cannot read ({type(error).__name__})") from None
    if not isinstance(state, dict) or state.get("kind") != kind or state.get("format") != fmt:
        found = state if isinstance(state, dict) else {}
        raise UserError(f"{path}: model format {found.get('kind')} v{found.get('format')} "
                        f"(written by itdeid {found.get('itdeid_version')}); this itdeid "
                        f"{__version__} reads {kind} v{fmt}")
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
    estimator itself (allowed choices), inside :func:`damaged`."""
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
    return params


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
