"""``Deidentifier``: the whole system of Szarvas et al. (2007) as one estimator.

Three :class:`~itdeid.estimators.model.TokenModel` s that differ only in their triggers are trained (ITR0);
then, ``iterations`` times, trusted phrases are harvested under the unambiguous headings and
three models are retrained with the ``trusted`` feature group (ITR1, ITR2, ...). Tagging runs the
same stages: each iteration's trusted phrases come from the previous iteration's voted labels of
the document being tagged (optionally pooled over the patient's documents), never from gold.
The last iteration's votes are standardized: a predicted phrase of two or more tokens is PHI
wherever it recurs.

Training-time trusted phrases (``harvest``):

``"gold"``
    harvested from the gold labels of the training documents: cheap, but the feature looks more
    reliable in training than it will be at tagging time, when it comes from predictions.
``"oof"`` (default)
    harvested from the previous iteration's voted *out-of-fold* predictions (an inner split of
    ``inner_folds``), which is what the model will really see; costs ``inner_folds`` extra
    fits of the three models per iteration.

Measured both ways (experiments/NOTEBOOK.md): trained on the synthetic corpus and tagging the 12
hand-written held-out notes, ITR2_VOTE_STD 8-way F 70.69 with ``oof`` against 69.91 with
``gold``, so ``oof`` is the default. Both stay below the ITR0 vote there (72.08).
"""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Sequence

import numpy as np
from sklearn.base import BaseEstimator

from itdeid import __version__

from itdeid.estimators import fitted_params
from itdeid.document import Document, Span
from itdeid.errors import ParameterError, UserError
from itdeid.featurize import GROUPS, TokenizedDocument, tokenize_documents
from itdeid.estimators.folds import inner_split
from itdeid.estimators.iterate import harvest as harvest_phrases
from itdeid.estimators.iterate import trusted_columns, unambiguous_headings
from itdeid.estimators.model import NotFittedError, TokenModel, check_count, labels_in_documents, predict_spans
from itdeid.pipeline import check_skip_passes, run_passes, saved_params
from itdeid.model_folder.model_files import checked_params, damaged, is_finite_number, model_part, read_model_state
from itdeid.model_folder.model_out import check_kind
from itdeid.estimators.standardize import predicted_phrases, standardize
from itdeid.featurize.triggers import VARIANTS
from itdeid.estimators.vote import RULES, vote

HARVEST = ("gold", "oof")
SPREAD = ("document", "patient")
FORMAT = 1


class Deidentifier(BaseEstimator):
    """The iterative, voting, standardizing PHI tagger.

    Parameters
    ----------
    triggers : sequence of {"token", "phrase", "ngram"}, default all three
    iterations : int, default 2
        Retraining rounds with trusted phrases (the paper: 2, giving ITR1 and ITR2).
    vote : {"two_of_three", "recall_first"}, default "two_of_three"
    standardize : bool, default True
    spread : {"document", "patient"}, default "document"
        Where trusted phrases and standardized phrases are pooled at tagging time.
    harvest : {"oof", "gold"}, default "oof"
    entropy_threshold : float, default 0.1
    min_heading_tokens : int, default 5
    trust_triggers : bool, default False
        Also trust phrases right after 'Dr.', 'Mr.'... (the paper's negative result).
    inner_folds : int, default 2
    groups : feature groups of the token models (the ``trusted`` group is added from ITR1 on)
    identifiers : bool, default False
        Also tag what the fixed-shape identifier templates match (:mod:`itdeid.passes.identifiers`),
        after the final stage, where it said non-PHI.
    model_params : dict, optional
        Further :class:`TokenModel` parameters (learner, n_estimators, n_jobs, ...).
    random_state : int, default 0
    """

    #: Parameters free to change after fit (:mod:`itdeid.estimators.fitted_params`): those that act when the
    #: model tags (the vote rule, ``itdeid deid --vote``; standardization; the templates), and the
    #: members' threads and device in ``model_params``, which only training reads.
    RUNTIME_PARAMS = ("vote", "standardize", "identifiers", "skip_passes", "n_jobs", "device")

    def __init__(self, triggers: Sequence[str] = ("token", "phrase", "ngram"), iterations: int = 2,
                 vote: str = "two_of_three", standardize: bool = True, spread: str = "document",
                 harvest: str = "oof", entropy_threshold: float = 0.1, min_heading_tokens: int = 5,
                 trust_triggers: bool = False, inner_folds: int = 2, groups: Sequence[str] = GROUPS,
                 model_params: dict | None = None, random_state: int = 0, identifiers: bool = False,
                 skip_passes: tuple[str, ...] = ()):
        self.triggers = triggers
        self.iterations = iterations
        self.vote = vote
        self.standardize = standardize
        self.spread = spread
        self.harvest = harvest
        self.entropy_threshold = entropy_threshold
        self.min_heading_tokens = min_heading_tokens
        self.trust_triggers = trust_triggers
        self.inner_folds = inner_folds
        self.groups = groups
        self.model_params = model_params
        self.random_state = random_state
        self.identifiers = identifiers
        self.skip_passes = skip_passes

    def _check(self):
        check_skip_passes(self.skip_passes)
        if self.vote not in RULES:
            raise ValueError(f"vote must be one of {', '.join(RULES)}, got {self.vote!r}")
        if self.harvest not in HARVEST:
            raise ValueError(f"harvest must be one of {', '.join(HARVEST)}, got {self.harvest!r}")
        if self.spread not in SPREAD:
            raise ValueError(f"spread must be one of {', '.join(SPREAD)}, got {self.spread!r}")
        check_count("iterations", self.iterations, 0)
        check_count("min_heading_tokens", self.min_heading_tokens, 1)
        if not is_finite_number(self.entropy_threshold) or self.entropy_threshold < 0:
            raise ParameterError(f"entropy_threshold must be a finite number of at least 0, got "
                                 f"{self.entropy_threshold!r}")
        if not self.triggers or any(t not in VARIANTS for t in self.triggers) \
                or len(set(self.triggers)) != len(self.triggers):
            raise ParameterError(f"triggers must be distinct ones of {', '.join(VARIANTS)}, "
                                 f"got {self.triggers!r}")
        if self.vote == "two_of_three" and len(self.triggers) < 3:
            # one model can never give two votes, and two must agree on every token: the names
            # they disagree on went out unredacted
            raise ParameterError(f"vote two_of_three needs three trigger models, got "
                                 f"{len(self.triggers)}; use vote='recall_first'")
        params = self.model_params or {}
        if not isinstance(params, dict):
            raise ParameterError(f"model_params must be a dict of TokenModel parameters, got {params!r}")
        unknown = sorted(set(params) - set(TokenModel().get_params()) | set(params) & {"trigger", "groups"})
        if unknown:     # trigger and groups are the system's own (triggers, groups)
            raise ParameterError(f"model_params holds {', '.join(unknown)}, which are no TokenModel "
                                 "parameters the system passes on")
        self._model(self.triggers[0], 0).check_params()

    def _model(self, trigger: str, iteration: int) -> TokenModel:
        groups = tuple(self.groups) + (("trusted",) if iteration else ())
        params = {"random_state": self.random_state, **(self.model_params or {})}
        return TokenModel(trigger=trigger, groups=groups, **params)

    # -- training ---------------------------------------------------------------------------
    def fit(self, documents: Sequence[Document], y=None) -> "Deidentifier":
        labels_in_documents(y)
        return self.fit_tokenized(tokenize_documents(documents))

    def fit_tokenized(self, docs: Sequence[TokenizedDocument]) -> "Deidentifier":
        self._check()
        if not docs:
            raise UserError("cannot train on an empty corpus")
        self.headings_ = unambiguous_headings(docs, self.entropy_threshold, self.min_heading_tokens)
        self.models_: list[list[TokenModel]] = []
        source = [td.labels for td in docs]            # labels the next harvest reads
        for iteration in range(self.iterations + 1):
            trusted = None if iteration == 0 else self._trusted(docs, source)
            models = [self._model(t, iteration).fit_tokenized(docs, trusted) for t in self.triggers]
            self.models_.append(models)
            if iteration == 0:
                # the saved model names these headings: keep only names the feature extractor
                # found safe (seen in 2+ documents, words never PHI)
                self.headings_ = self.headings_ & frozenset(models[0].extractor_.headings_)
            if self.harvest == "oof" and iteration < self.iterations:
                source = self._out_of_fold_votes(docs, iteration, trusted)
        fitted_params.remember(self)
        return self

    def _out_of_fold_votes(self, docs, iteration, trusted) -> list[np.ndarray]:
        """Voted labels of iteration ``iteration`` for each training document, from models that
        saw none of its patient's notes (an inner split grouped by patient, ``inner_folds``
        parts, :func:`itdeid.estimators.folds.inner_split`)."""
        fold, k = inner_split([td.document for td in docs], self.inner_folds)
        out: list[np.ndarray] = [None] * len(docs)
        for f in range(k):
            train = [i for i in range(len(docs)) if fold[i] != f]
            test = [i for i in range(len(docs)) if fold[i] == f]
            sub = (lambda idx: None if trusted is None else [trusted[i] for i in idx])
            predictions = []
            for t in self.triggers:
                model = self._model(t, iteration).fit_tokenized([docs[i] for i in train], sub(train))
                predictions.append(model.predict_tokenized([docs[i] for i in test], sub(test)))
            for j, i in enumerate(test):
                out[i] = vote([p[j] for p in predictions], self.vote)
        return out

    def _trusted(self, docs: Sequence[TokenizedDocument], labels: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Trusted-phrase columns of each document, harvested from ``labels`` (pooled per patient
        when ``spread="patient"``)."""
        found = [harvest_phrases(td, codes, self.headings_, trust_triggers=self.trust_triggers)
                 for td, codes in zip(docs, labels)]
        if self.spread == "patient":
            found = _pool_by_patient(docs, found, _keep_first)
        return [trusted_columns(td, phrases) for td, phrases in zip(docs, found)]

    # -- tagging ----------------------------------------------------------------------------
    def _check_fitted(self):
        if not hasattr(self, "models_"):
            raise NotFittedError("this Deidentifier is not fitted yet: call fit() or load() first")

    def predict_stages(self, docs: Sequence[TokenizedDocument]) -> dict[str, list[np.ndarray]]:
        """Label codes per document after every stage, as Table 1's rows need them:
        ``ITR{i}_{TRIGGER}`` for each model, ``ITR{i}_VOTE``, and ``..._STD`` standardized."""
        self._check_fitted()
        stages: dict[str, list[np.ndarray]] = {}
        previous = None
        for iteration, models in enumerate(self.models_):
            trusted = None if iteration == 0 else self._trusted(docs, previous)
            outputs = []
            for trigger, model in zip(self.triggers, models):
                codes = model.predict_tokenized(docs, trusted)
                stages[f"ITR{iteration}_{trigger.upper()}"] = codes
                outputs.append(codes)
            voted = [vote([o[j] for o in outputs], self.vote) for j in range(len(docs))]
            stages[f"ITR{iteration}_VOTE"] = voted
            for name in [f"ITR{iteration}_{t.upper()}" for t in self.triggers] + [f"ITR{iteration}_VOTE"]:
                stages[name + "_STD"] = self._standardized(docs, stages[name])
            previous = voted
        return stages

    def _standardized(self, docs, labels) -> list[np.ndarray]:
        found = [predicted_phrases(td.words, codes) for td, codes in zip(docs, labels)]
        if self.spread == "patient":
            found = _pool_by_patient(docs, found, _add_counts)
        return [standardize(td.words, codes, phrases) for td, codes, phrases in zip(docs, labels, found)]

    def final_stage(self) -> str:
        return f"ITR{self.iterations}_VOTE" + ("_STD" if self.standardize else "")

    def predict_tokenized(self, docs: Sequence[TokenizedDocument]) -> list[np.ndarray]:
        return run_passes(self, docs, self.predict_stages(docs)[self.final_stage()])

    def predict(self, documents: Sequence[Document]) -> list[list[Span]]:
        """Predicted PHI spans of each document (gold spans, if any, are ignored)."""
        return predict_spans(self, documents)

    # -- persistence ------------------------------------------------------------------------
    def save(self, folder) -> None:
        """One folder: deidentifier.json and a TokenModel folder per iteration and trigger."""
        self._check_fitted()
        fitted_params.check_unchanged(self)
        folder = check_kind(folder, "deidentifier.json")
        params = saved_params(self, self.get_params())
        params["triggers"], params["groups"] = list(self.triggers), list(self.groups)
        for iteration, models in enumerate(self.models_):
            for trigger, model in zip(self.triggers, models):
                model.save(folder / f"itr{iteration}-{trigger}")
        state = {"kind": "Deidentifier", "format": FORMAT, "itdeid_version": __version__,
                 "params": params, "headings": sorted(self.headings_)}
        (folder / "deidentifier.json").write_text(json.dumps(state, indent=1), encoding="utf-8")

    @classmethod
    def load(cls, folder) -> "Deidentifier":
        """The system saved in ``folder``; a damaged or tampered folder is a one-line
        :class:`UserError` naming the file."""
        folder = Path(folder)
        state = read_model_state(folder, "deidentifier.json", "Deidentifier", FORMAT,
                                 "a Deidentifier model folder",
                                 ("kind", "format", "itdeid_version", "params", "headings"))
        path = folder / "deidentifier.json"
        with damaged(path):
            model = cls(**checked_params(path, state["params"], cls))
            checked_params(path, model.model_params or {}, TokenModel)
            model._check()
            headings = state["headings"]
            if not isinstance(headings, list) or not all(isinstance(h, str) for h in headings):
                raise ValueError("headings must be a list of names")
            model.headings_ = frozenset(headings)
        model.models_ = [[TokenModel.load(model_part(folder, f"itr{i}-{t}")) for t in model.triggers]
                         for i in range(model.iterations + 1)]
        for i, models in enumerate(model.models_):
            for t, m in zip(model.triggers, models):
                if m.trigger != t or (i > 0) != ("trusted" in m.groups):
                    raise UserError(f"{folder / f'itr{i}-{t}' / 'model.json'}: not the "
                                    f"ITR{i} {t} model of this system")
        fitted_params.remember(model)
        return model


def _pool_by_patient(docs: Sequence[TokenizedDocument], found: list[dict], merge) -> list[dict]:
    """Each document's phrases replaced by those of all its patient's documents (``merge(pool,
    phrases)`` adds one document's to the pool); a document without a patient keeps its own."""
    pools: dict[str, dict] = {}
    for td, phrases in zip(docs, found):
        if td.document.patient is not None:
            merge(pools.setdefault(td.document.patient, {}), phrases)
    return [phrases if td.document.patient is None else pools[td.document.patient]
            for td, phrases in zip(docs, found)]


def _keep_first(pool: dict, phrases: dict) -> None:
    for key, code in phrases.items():
        pool.setdefault(key, code)


def _add_counts(pool: dict, phrases: dict) -> None:
    for key, counter in phrases.items():
        pool.setdefault(key, Counter()).update(counter)

def set_threshold(model, threshold: float | None):
    """``model`` (a :class:`Deidentifier`, :class:`~itdeid.estimators.ensemble.InnerEnsemble` or
    :class:`TokenModel`) tagging at the fixed P(PHI)
    ``threshold`` instead of the ones it learned (every member model of a system); returns it."""
    from itdeid.estimators.operating_point import check_threshold
    try:
        threshold = check_threshold(threshold)
    except ValueError as error:
        raise UserError(str(error)) from None
    if (threshold is not None and not isinstance(model, Deidentifier)
            and "threshold" not in model.get_params()):
        # the CRF peer tags by its best label sequence: a threshold was ignored without a word
        raise UserError(f"a {type(model).__name__} tags with no P(PHI) threshold; --threshold "
                        "applies to the models itdeid train writes")
    for member in (m for ms in model.models_ for m in ms) if isinstance(model, Deidentifier) else [model]:
        member.threshold = threshold
    return model
