"""Which feature values a model's trees learned from, so that a model never reads other ones.

A boosted tree compares a column with a number it learned. If the code later computes that
column differently, an old model still loads, still tags, and tags worse without any sign (a
model trained before a change to the case ratios would read the new ratios). So every model file
records the :data:`FEATURE_FORMAT` of the code that trained it, and :func:`check_feature_format`
refuses a model of another format at load time with a message naming the command that retrains
it. A model written before formats were recorded has none and is refused the same way.

The number is raised by hand whenever a change to :mod:`itdeid.featurize`, a feature group, a
word list or the context stage's columns changes a value a trained model reads. A test keeps
that honest (``tests/test_feature_format.py``): it computes the feature matrix of the sample
notes and compares its fingerprint with the one recorded for the current format, so a change of
values fails until the format is raised and the new fingerprint recorded.
"""
from __future__ import annotations

from pathlib import Path

from itdeid.errors import UserError

#: The version of the feature values of this code (see the module docstring for when to raise it).
FEATURE_FORMAT = 1

#: How to get a model of this format.
RETRAIN = ("retrain it with this itdeid: `itdeid train CORPUS --out FOLDER` (the shipped "
           "default model: `itdeid train --preset default --out FOLDER`)")


def check_feature_format(path: Path, state: dict) -> None:
    """A :class:`UserError` naming ``path`` unless the model state was trained on this code's
    feature format."""
    found = state.get("feature_format")
    if found == FEATURE_FORMAT and isinstance(found, int) and not isinstance(found, bool):
        return
    if found is not None and (not isinstance(found, int) or isinstance(found, bool)):
        raise UserError(f"{path}: damaged model state (feature_format {found!r} is not a whole number)")
    was = ("records no feature format (written before itdeid recorded one)" if found is None
           else f"was trained on feature format {found!r}")
    raise UserError(f"{path}: the model {was}, but this itdeid computes feature format "
                    f"{FEATURE_FORMAT}, so its trees would read values they never learned; "
                    f"{RETRAIN}")
