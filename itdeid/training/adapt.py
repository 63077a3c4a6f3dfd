"""Adapt a trained model to a site's corrected notes.

A model trained on one hospital's notes misses what another writes its own way: its ward names,
its abbreviations, its note layouts. A data team that has reviewed a sample of its own notes
(``itdeid review``) holds gold annotations of exactly those misses. :func:`adapt` turns them into a
model for the site without the base model's training notes:

- **the trees go on learning**: each member's boosted trees are continued on the site's notes
  (xgboost adds ``rounds`` trees to the model it has, at ``learning_rate``), a two-step learner's
  PHI-or-not model on every token and its class model on the PHI tokens. The features stay the
  base model's (its triggers, word tables and lexicon are not refitted), so the adapted model
  keeps no word of the site's notes: nothing learned from a PHI occurrence is written.
- **the site's gold convention is learned**: which punctuation its annotators leave out of a
  phrase (:mod:`itdeid.passes.phrase_punctuation`: marks and classes, no word) is read from
  the corrected notes, and that pass runs whether or not the base model ran it.
- **what else tags is chosen on the site's notes, by cross-validation grouped by patient**: the
  notes are split by patient (:func:`itdeid.estimators.folds.inner_split`) and each part is tagged
  by a model adapted on the others. On these out-of-fold taggings, passes included:

  - the **threshold** is the largest at which the tagging finds :data:`RECALL` of the site's PHI
    tokens (the recall of the whole tagging, as the site's release depends on it); where no
    threshold does, the one of highest F2 (a missed PHI token costs four false alarms);
  - each **pass** the model runs is switched off where that raises F2 at that threshold: a
    pass written from another corpus's errors can clear a site's PHI (its ward names taken for
    care terms, say), and that corpus's habits belong to it, not to this site;
  - the **context stage** (it reads the members' probabilities of a token's neighbours) is kept
    or dropped, whichever gives the higher F2: it was trained on the base model's out-of-fold
    probabilities, which the site's few notes cannot give it again, and continued members give
    it probabilities unlike those it learned to read.
"""
from __future__ import annotations

import copy
import logging
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from itdeid.document import Document
from itdeid.errors import ParameterError, UserError
from itdeid.estimators import fitted_params
from itdeid.estimators.ensemble import InnerEnsemble
from itdeid.estimators.folds import inner_split
from itdeid.estimators.learners import Learner
from itdeid.estimators.model import TokenModel, check_count
from itdeid.estimators.operating_point import MAX_THRESHOLD, MIN_THRESHOLD, check_threshold, decide
from itdeid.featurize import tokenize_documents
from itdeid.passes.phrase_punctuation import left_out as punctuation_left_out
from itdeid.pipeline import check_skip, pass_names, run_passes, switches

logger = logging.getLogger(__name__)

#: Trees added to each boosted model, and their learning rate.
ROUNDS = 100
LEARNING_RATE = 0.1
#: Parts the site's notes are split into to choose the threshold.
FOLDS = 5
#: The share of the site's PHI tokens the adapted tagging must find out of fold (binary token
#: recall, passes included): about what the recipe's tagging finds out of fold on the corpus it
#: is trained on, so an adapted site is asked for the recall its base model gives its own notes.
RECALL = 0.96
#: The pass that follows the gold's punctuation convention, which an adapted model learns from
#: the site's corrected notes rather than keeping the base corpus's.
SITE_CONVENTION = "phrase_punctuation"
#: Thresholds tried, largest first: a geometric grid from MAX_THRESHOLD down to MIN_THRESHOLD.
CANDIDATES = 31


@dataclass
class Adaptation:
    """What :func:`adapt` did: the notes it learned from, the threshold it chose and how."""
    notes: int
    patients: int
    phi_tokens: int
    rounds: int
    learning_rate: float
    folds: int
    target_recall: float
    base_threshold: float | None
    threshold: float
    #: Of the site's PHI tokens, the share the out-of-fold tagging (passes included) finds at
    #: ``threshold``, and the share of the tokens it tags there that are PHI.
    recall_out_of_fold: float
    precision_out_of_fold: float
    #: False when no threshold reached ``target_recall`` (the one of highest F2 is used)
    reached: bool = True
    #: The passes switched off for the site, and whether the context stage was kept (None: the
    #: base model has none)
    passes_off: tuple[str, ...] = ()
    context_stage: bool | None = None


def continued(learner: Learner, X: np.ndarray, y: np.ndarray, rounds: int, learning_rate: float,
              seed: int = 0, n_jobs: int = 1) -> Learner:
    """A copy of the fitted xgboost ``learner`` with ``rounds`` trees more, grown on rows ``X``
    with label codes ``y`` (the learner itself is unchanged). Rows of a class the learner does
    not know are left out of a model that names classes."""
    import xgboost
    out = copy.copy(learner)            # the parts that change are replaced, never changed
    if getattr(learner, "detector_", None) is not None:
        phi = y != 0
        out.detector_ = continued(learner.detector_, X, phi.astype(np.int64), rounds, learning_rate, seed, n_jobs)
        if learner.typer_ is not None:
            known = phi & np.isin(y, learner.typer_.classes_)
            if known.any():
                out.typer_ = continued(learner.typer_, X[known], y[known], rounds, learning_rate, seed, n_jobs)
        return out
    if learner.name != "xgboost" or learner.estimator_ is None:
        raise UserError(f"adapting continues boosted trees, and this model's learner is "
                        f"{learner.name!r}: train a model on the corrected notes instead")
    known = np.isin(y, learner.classes_)
    X, y = X[known], y[known]
    if not len(y):
        return out
    logistic = learner.two_step and len(learner.classes_) == 2
    params = {"eta": learning_rate, "max_depth": learner.max_depth or 6, "tree_method": "hist", "max_bin": 256,
              "colsample_bytree": 0.8, "seed": seed, "nthread": n_jobs, "device": "cpu",
              "objective": "binary:logistic" if logistic else "multi:softprob"}
    if not logistic:
        params["num_class"] = len(learner.classes_)
    data = xgboost.DMatrix(X, label=np.searchsorted(learner.classes_, y))
    booster = xgboost.train(params, data, num_boost_round=rounds,
                            xgb_model=learner.estimator_.get_booster().copy())
    estimator = xgboost.XGBClassifier()
    estimator._Booster = booster
    estimator.n_classes_ = len(learner.classes_)
    out.estimator_ = estimator
    out.n_estimators = (learner.n_estimators or 0) + rounds
    out.__dict__.pop("_one_thread", None)
    return out


def _adapted_member(member: TokenModel, docs, rounds: int, learning_rate: float, n_jobs: int) -> TokenModel:
    if member.previous != "none":
        raise UserError("adapting needs members that tag every token at once (previous='none', "
                        "the recipe's); train a model on the corrected notes instead")
    out = copy.copy(member)             # shares the base's extractor, which is only read
    X = member.extractor_.transform(docs)
    y = np.concatenate([td.labels for td in docs]).astype(np.int64)
    out.learner_ = continued(member.learner_, X, y, rounds, learning_rate, member.random_state, n_jobs)
    return out


def adapted_model(model, docs, rounds: int = ROUNDS, learning_rate: float = LEARNING_RATE, n_jobs: int = 1):
    """A copy of ``model`` (an :class:`InnerEnsemble` or a :class:`TokenModel` without a
    context stage) whose boosted trees are continued on the tokenized ``docs`` (with gold
    labels); its threshold is the base model's. ``n_jobs``: xgboost's threads (one by default:
    a site's few notes give each round little to share out, and on a machine busy with other
    work two threads were many times slower than one)."""
    if isinstance(model, InnerEnsemble):
        out = copy.copy(model)
        out.members_ = [_adapted_member(m, docs, rounds, learning_rate, n_jobs) for m in model.members_]
        out.__dict__.pop("_seen_merged", None)
        # the punctuation the site's gold leaves out of a phrase is the site's to say: learned
        # from its notes and run, whatever the base did (the choice of passes may drop it again)
        out.punctuation_left_out_ = punctuation_left_out(docs)
        out.skip_passes = tuple(sorted(check_skip(getattr(model, "skip_passes", None) or ())
                                       - {SITE_CONVENTION}))
    elif isinstance(model, TokenModel) and getattr(model, "context_learner_", None) is None:
        out = _adapted_member(model, docs, rounds, learning_rate, n_jobs)
    else:
        raise UserError(f"adapting works on an ensemble or a single token model, not a "
                        f"{type(model).__name__}: train a model on the corrected notes instead")
    fitted_params.remember(out)
    return out


def adapt(model, documents: Sequence[Document], rounds: int = ROUNDS, learning_rate: float = LEARNING_RATE,
          folds: int = FOLDS, target_recall: float | None = None, n_jobs: int = 1):
    """``model`` adapted to the corrected ``documents`` (gold spans: the reviewed notes of a site),
    with its threshold chosen on them by cross-validation grouped by patient (see the module
    docstring); returns ``(adapted model, Adaptation)``."""
    check_count("rounds", rounds, 1)
    check_count("folds", folds, 2)
    check_count("n_jobs", n_jobs, 1)
    if isinstance(learning_rate, bool) or not isinstance(learning_rate, (int, float)) or not 0 < learning_rate <= 1:
        raise ParameterError(f"the learning rate must be above 0 and at most 1, got {learning_rate!r}")
    if target_recall is not None:
        check_threshold(target_recall, "target_recall")
    documents = list(documents)
    if len(documents) < 2:
        raise UserError(f"{len(documents)} corrected note{'s' if len(documents) != 1 else ''}: adapting "
                        "needs at least 2 (the threshold is chosen on notes the model did not adapt on)")
    docs = tokenize_documents(documents)
    gold = np.concatenate([td.labels for td in docs])
    if not gold.any():
        raise UserError("the corrected notes hold no PHI: nothing to adapt to (and no threshold to choose)")
    if target_recall is None:
        target_recall = RECALL
    fold, k = inner_split(documents, folds)
    parts = []
    for f in range(k):
        train = [docs[i] for i in np.flatnonzero(fold != f)]
        test = [docs[i] for i in np.flatnonzero(fold == f)]
        part = adapted_model(model, train, rounds, learning_rate, n_jobs)
        parts.append((part, test, _variants(part, test)))
    choices = []
    for variant in parts[0][2]:
        chosen = _choose([(part, test, probas[variant]) for part, test, probas in parts], target_recall,
                         frozenset(one.name for part, _, _ in parts for _, one, on in switches(part) if on))
        choices.append((f2(chosen[2]), variant == "stage", variant, chosen))
    _, _, variant, (threshold, skip, (found, tagged, phi)) = max(choices)
    adapted = adapted_model(model, docs, rounds, learning_rate, n_jobs)
    if variant == "mean":
        adapted.stage_ = []
        adapted.context_pass = False
    adapted.skip_passes = tuple(sorted(check_skip(getattr(adapted, "skip_passes", None) or ()) | skip))
    base_threshold = model.operating_threshold()
    adapted.threshold_ = threshold
    if getattr(adapted, "threshold", None) is not None:     # a fixed threshold would hide the chosen one
        adapted.threshold = None
    fitted_params.remember(adapted)
    report = Adaptation(
        notes=len(documents), patients=len({td.document.patient or td.document.id for td in docs}),
        phi_tokens=phi, rounds=rounds, learning_rate=learning_rate, folds=k,
        target_recall=float(target_recall), base_threshold=base_threshold, threshold=float(threshold),
        recall_out_of_fold=found / phi, precision_out_of_fold=found / max(tagged, 1),
        reached=found / phi >= target_recall, passes_off=tuple(sorted(skip)),
        context_stage=variant == "stage" if "stage" in parts[0][2] else None)
    return adapted, report


def f2(counts: tuple[int, int, int]) -> float:
    """F2 of (PHI tokens found, tokens tagged, PHI tokens): a missed PHI token costs four false alarms."""
    found, tagged, phi = counts
    return 5 * found / max(5 * found + 4 * (phi - found) + (tagged - found), 1)


def _variants(part, test) -> dict[str, list[np.ndarray]]:
    """The out-of-fold probabilities ``part`` gives ``test``: blended with its context stage
    (``"stage"``) and, for an ensemble with one, its members' mean alone (``"mean"``)."""
    if not getattr(part, "stage_", None):
        return {"model": part.predict_proba_tokenized(test)}
    means, stages = part.pass_probabilities(test)
    return {"stage": [part.blend_passes(m, st) for m, st in zip(means, stages)], "mean": means}


def _choose(parts, target: float, running: frozenset[str]):
    """The threshold (:func:`_threshold_for_tagging_recall`), the passes switched off and the
    counts there: each pass of ``running`` (pass names, :func:`itdeid.pipeline.switches`) in
    turn is switched off where that raises F2 at the threshold chosen with every pass on; then
    the threshold is chosen again without them."""
    threshold, counts = _threshold_for_tagging_recall(parts, target)
    skip: frozenset[str] = frozenset()
    for name in [n for n in pass_names() if n in running]:
        trial = _tagging_counts(parts, threshold, skip | {name})
        if f2(trial) > f2(counts):
            skip, counts = skip | {name}, trial
    if skip:
        threshold, counts = _threshold_for_tagging_recall(parts, target, skip)
    return threshold, skip, counts


def _tagging_counts(parts, threshold: float, skip=frozenset()) -> tuple[int, int, int]:
    """PHI tokens found, tokens tagged and PHI tokens, over every part's notes tagged at
    ``threshold`` by the model adapted without them, the passes less ``skip`` included."""
    found = tagged = phi = 0
    for part, test, probas in parts:
        codes = run_passes(part, test, [decide(p, threshold) for p in probas], skip=skip)
        for td, c in zip(test, codes):
            gold, on = td.labels != 0, np.asarray(c) != 0
            found += int((gold & on).sum())
            tagged += int(on.sum())
            phi += int(gold.sum())
    return found, tagged, phi


def _threshold_for_tagging_recall(parts, target: float, skip=frozenset()):
    """The largest of :data:`CANDIDATES` thresholds at which the out-of-fold tagging finds
    ``target`` of the PHI tokens, else the one of highest F2 (the largest of equals), and its
    counts there."""
    tried = []
    for threshold in np.geomspace(MAX_THRESHOLD, MIN_THRESHOLD, CANDIDATES):
        counts = _tagging_counts(parts, float(threshold), skip)
        if counts[0] >= target * counts[2]:
            return float(threshold), counts
        tried.append((f2(counts), float(threshold), counts))
    _, threshold, counts = max(tried, key=lambda t: (t[0], t[1]))
    return threshold, counts
