"""Access to the declarative knowledge shipped with the package.

``features/`` (regular-expression templates, heading inventory, suffix lists) and ``gazetteers/``
(word lists) sit at the top of the source tree and are installed as the packages
``itdeid.features`` and ``itdeid.gazetteers`` (see setup.py), so they are read through
:mod:`importlib.resources` and work the same from a wheel, an editable install or a checkout.
The default model of ``itdeid deid`` is looked for the same way, in ``itdeid.models/default``.
"""
from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from pathlib import Path


def _path(package: str, name: str):
    return resources.files(f"itdeid.{package}").joinpath(name)


@lru_cache(maxsize=None)
def load_json(package: str, name: str):
    """The parsed JSON file ``name`` of ``features`` or ``gazetteers``."""
    with _path(package, name).open("r", encoding="utf-8") as handle:
        return json.load(handle)


@lru_cache(maxsize=None)
def load_wordlist(package: str, name: str) -> tuple[str, ...]:
    """The lines of a word list, without blank lines and ``#`` comments, in file order."""
    with _path(package, name).open("r", encoding="utf-8") as handle:
        return tuple(line.strip() for line in handle
                     if line.strip() and not line.lstrip().startswith("#"))


@lru_cache(maxsize=None)
def load_table(package: str, name: str) -> tuple[tuple[str, ...], ...]:
    """The rows of a tab-separated table: ``#`` comment lines and the header row are skipped."""
    with _path(package, name).open("r", encoding="utf-8") as handle:
        rows = [line.rstrip("\n").split("\t") for line in handle
                if line.strip() and not line.startswith("#")]
    return tuple(tuple(row) for row in rows[1:])


def default_model_dir() -> Path:
    """The folder of the default model shipped inside the package (``itdeid/models/default``),
    which ``itdeid deid`` uses without ``--model``. It may not exist (a build without a model):
    callers check and say so."""
    try:
        return Path(str(resources.files("itdeid.models").joinpath("default")))
    except ModuleNotFoundError:     # no itdeid.models package in this installation
        return Path(__file__).resolve().parent / "models" / "default"


def model_folder(name) -> Path:
    """The model folder a user names: ``None``, or the word ``default`` where no such path
    exists, is the installed model (:func:`default_model_dir`); anything else is a path. One
    rule for ``itdeid tag default``, ``itdeid deid --model default`` and
    ``itdeid.load_model("default")``, which a user expects to agree."""
    if name is None or (str(name) == "default" and not Path(name).exists()):
        return default_model_dir()
    return Path(name)
