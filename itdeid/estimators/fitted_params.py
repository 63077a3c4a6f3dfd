"""The parameters a fitted model was fitted (or loaded) with, and the check that tagging and
saving see the same ones.

scikit-learn's ``set_params`` changes a parameter and leaves the fitted state as it was, for the
next ``fit`` to use. itdeid's models read some parameters again when they tag and write all of
them when they are saved, so a parameter changed between ``fit`` and ``predict`` or ``save`` gave
a model that disagreed with itself: a ``window`` changed after fit was saved beside the old
features (the folder was then refused as damaged), a system's ``iterations`` raised a bare
``KeyError``, and its ``triggers`` put each fitted model under another trigger's name without a
word. So :func:`remember` keeps the parameters at the end of ``fit`` and ``load``, and
:func:`check_unchanged` refuses to tag or save after one of them changed, naming it. The
parameters an estimator lists in ``RUNTIME_PARAMS`` may change freely: a threshold or screen
that overrides the learned one and the vote rule act at tagging time, and the threads and
device only at the next ``fit`` (the trees keep their own for tagging).
"""
from __future__ import annotations

from sklearn.base import BaseEstimator

from itdeid.errors import ParameterError


#: How a value absent from a dict of parameters is shown.
ABSENT = "absent"


def _values(estimator) -> dict:
    """The parameters of ``estimator`` (nested ones too), estimators themselves left out: their
    own parameters are there as ``name__param``; so are the entries of a dict of parameters
    (a system's ``model_params``, None read as empty), whose ``n_jobs`` may change as an
    estimator's does."""
    values = {}
    for name, value in estimator.get_params(deep=True).items():
        if isinstance(value, dict) or (value is None and name == "model_params"):
            values.update({f"{name}__{key}": item for key, item in (value or {}).items()})
        elif not isinstance(value, BaseEstimator):
            values[name] = value
    return values


def remember(estimator) -> None:
    """Keep the parameters ``estimator`` was just fitted or loaded with (``params_at_fit_``)."""
    estimator.params_at_fit_ = _values(estimator)


def check_unchanged(estimator) -> None:
    """A :class:`~itdeid.errors.ParameterError` naming the first parameter of ``estimator``
    changed since it was fitted, but those of its ``RUNTIME_PARAMS``; nothing for an estimator
    not fitted (its own not-fitted error comes next)."""
    before = getattr(estimator, "params_at_fit_", None)
    if before is None:
        return
    runtime = getattr(estimator, "RUNTIME_PARAMS", ())
    now = _values(estimator)
    for name in list(before) + [n for n in now if n not in before]:     # an entry added too
        was, is_ = before.get(name, ABSENT), now.get(name, ABSENT)
        if name not in runtime and name.rsplit("__", 1)[-1] not in runtime and was != is_:
            raise ParameterError(f"{name} was changed after fit ({was!r} -> {is_!r}): the "
                                 "fitted model still has the old value; fit again, or set it back")
