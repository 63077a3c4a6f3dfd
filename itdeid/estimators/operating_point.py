"""The operating point of a token model: a threshold on P(PHI), not the most likely label.

Taking each token's most likely label treats a miss and a false alarm alike. A de-identifier
cannot: a missed name is a privacy breach, a false alarm a redacted ordinary word. So a token is
PHI when ``P(PHI) = 1 - P(non-PHI)`` reaches a threshold, and then it gets its most likely PHI
class (:func:`decide`). A token whose PHI probability is spread over several classes (0.3
PATIENT, 0.3 DOCTOR, 0.4 non-PHI) is PHI at any threshold up to 0.6, where the argmax called it
ordinary text.

The threshold is chosen at training time for a target recall (:func:`threshold_for_recall`),
from out-of-fold probabilities: predictions for each training note by inner models that saw
none of its patient's notes (:func:`itdeid.estimators.folds.inner_split`), never from the model's own
training fit, whose probabilities are too confident to say where recall breaks.
"""
from __future__ import annotations

import logging
import math

import numpy as np

from itdeid.errors import ParameterError

#: Thresholds are kept in [MIN_THRESHOLD, MAX_THRESHOLD]: below, every token would be PHI;
#: above 0.5 a token could be more likely PHI than not and still be called ordinary text.
MIN_THRESHOLD = 1e-3
MAX_THRESHOLD = 0.5

logger = logging.getLogger(__name__)


def decide(proba: np.ndarray, threshold: float | None = None) -> np.ndarray:
    """Label codes of the rows of ``proba`` (n, 9): the argmax when ``threshold`` is None,
    otherwise PHI where ``1 - proba[:, 0] >= threshold``, with its most likely PHI class."""
    proba = np.asarray(proba)
    if threshold is None:
        return proba.argmax(axis=1)
    phi = 1.0 - proba[:, 0] >= threshold
    return np.where(phi, proba[:, 1:].argmax(axis=1) + 1, 0)


def threshold_for_recall(proba: np.ndarray, labels: np.ndarray, target: float) -> float:
    """The largest threshold at which at least ``target`` of the PHI tokens of ``labels``
    (gold codes) have ``P(PHI) >= threshold`` in ``proba``, kept within
    [:data:`MIN_THRESHOLD`, :data:`MAX_THRESHOLD`]."""
    if not 0 < target <= 1:
        raise ValueError(f"target recall must be in (0, 1], got {target!r}")
    p_phi = 1.0 - np.asarray(proba)[np.asarray(labels) != 0, 0]
    if not len(p_phi):
        return MAX_THRESHOLD
    ranked = np.sort(p_phi)[::-1]
    needed = max(1, math.ceil(target * len(ranked) - 1e-9))
    raw = float(ranked[needed - 1])
    # said, not silent: a team that asked for a recall should know when it cannot be the one set
    if raw < MIN_THRESHOLD:
        logger.warning("recall %g of the training PHI is only reached at P(PHI) %.2g, below the "
                       "floor %g: the threshold is kept at %g, and recall on new notes may fall short "
                       "of the target (%d PHI tokens; more, and more varied, training notes help)",
                       target, raw, MIN_THRESHOLD, MIN_THRESHOLD, len(ranked))
    elif raw > MAX_THRESHOLD:
        logger.warning("recall %g of the training PHI is reached at P(PHI) %.2g, above %g: the "
                       "threshold is kept at %g (a token more likely PHI than not is PHI), so recall "
                       "will be higher than the target", target, raw, MAX_THRESHOLD, MAX_THRESHOLD)
    return float(np.clip(raw, MIN_THRESHOLD, MAX_THRESHOLD))


def operating_threshold(model) -> float | None:
    """The P(PHI) threshold a model tags at: its ``threshold`` if given, else the learned
    ``threshold_`` (None: the most probable class). Every model's ``operating_threshold``."""
    if model.threshold is not None:
        return check_threshold(model.threshold)
    return getattr(model, "threshold_", None)


def check_threshold(value, name: str = "threshold") -> float | None:
    """``value`` as a threshold (None: argmax), or a ValueError naming the parameter ``name``
    (a target recall is checked the same way) and saying what is allowed."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1:
        raise ParameterError(f"{name} must be a number in (0, 1], got {value!r}")
    return float(value)


def loaded_threshold(state: dict, target_recall: float | None) -> float | None:
    """The ``threshold`` of a saved model's state: a number exactly when the model was trained
    for a ``target_recall``, else None (argmax). A threshold dropped from the file (a partial
    write, a hand edit) once switched the model to argmax without a word, and its recall with it;
    a ValueError for the caller to name the file."""
    if "threshold" not in state:
        raise ValueError("the threshold entry is missing")
    threshold = check_threshold(state["threshold"])
    if threshold is None and target_recall is not None:
        raise ValueError(f"the threshold learned for target_recall {target_recall} is missing")
    if threshold is not None and target_recall is None:
        raise ValueError("a threshold without a target_recall it was learned for")
    return threshold
