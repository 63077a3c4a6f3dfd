"""``TokenModel``: one trigger variant's PHI tagger (features + boosted trees).

The estimator follows scikit-learn's contract (it is a ``BaseEstimator``): ``__init__`` stores
parameters, ``fit`` learns and returns ``self``, learned state ends in ``_``, and
``sklearn.base.clone`` gives a cross-validation runner a fresh model for each fold.

Predicted classes of preceding tokens (the paper's "online evaluation") are a feature: at
tagging time they are the model's own predictions, filled in left to right. Documents are cut
into segments that advance together one token position at a time, then repaired at segment
starts (:func:`decode`), so a batch costs a few hundred classifier calls however long its
notes. At training time the feature can come from ``previous="oof"`` out-of-fold predictions of
an inner split (what the model will really see; the default), from ``previous="gold"`` labels
(cheaper, but they look more reliable than they will be), or be left out (``"none"``).

Why ``oof`` is the default: measured both ways, in cross-validation and on held-out notes,
it generalized a little better every time (experiments/NOTEBOOK.md), at about three times the
training cost. The cross-validation experiments use ``gold`` to save that cost.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Sequence

import numpy as np
import sklearn.exceptions
from sklearn.base import BaseEstimator, clone

from itdeid import __version__
from itdeid.estimators.context_pass import blend, check_context_weight, fit_stage, stacked_names, stage_proba
from itdeid.document import LABELS, Document, Span
from itdeid.errors import ParameterError, UserError
from itdeid.featurize import (GROUPS, CaseCounts, FeatureExtractor, TokenizedDocument,
                              check_groups, note_spans, set_previous, tokenize_document,
                              tokenize_documents)
from itdeid.estimators import fitted_params
from itdeid.pipeline import check_skip_passes, run_passes, saved_params
from itdeid.estimators.folds import inner_split
from itdeid.estimators.learners import Learner
from itdeid.featurize.lexicon import MIN_COUNT, Lexicon
from itdeid.estimators.resubstitute import resubstituted
from itdeid.estimators.decoding import decode
from itdeid.estimators.operating_point import (check_threshold, decide, loaded_threshold, operating_threshold,
                                               threshold_for_recall)
from itdeid.featurize.feature_format import FEATURE_FORMAT, check_feature_format
from itdeid.model_folder.model_files import (check_entries, checked_params, checked_word_table, checked_words,
                                             damaged, is_finite_number, model_part, read_model_state)
from itdeid.model_folder.model_out import check_kind
from itdeid.featurize.token_batch import TokenBatch
from itdeid.featurize.triggers import TriggerLists

MODEL_FORMAT = 1
#: The entries ``save`` writes in ``model.json`` and in its ``extractor``; ``load`` refuses others.
STATE_ENTRIES = ("format", "itdeid_version", "kind", "feature_format", "params", "extractor",
                 "feature_names", "threshold", "learner", "context_learner")
EXTRACTOR_ENTRIES = ("triggers", "suffixes", "headings", "nonphi", "case_counts", "lexicon")
#: The subfolder of a model folder holding the context stage's model (``context_pass``).
CONTEXT_FOLDER = "context"
PREVIOUS = ("gold", "oof", "none")


def predict_spans(model, documents: Sequence[Document]) -> list[list[Span]]:
    """Predicted PHI spans of each document by any itdeid model with ``predict_tokenized`` (its
    ``predict``); gold spans, if any, are ignored."""
    return predict_counted(model, documents)[0]


def predict_counted(model, documents: Sequence[Document]) -> tuple[list[list[Span]], list[int]]:
    """:func:`predict_spans`, and how many tokens the model read in each document: what a batch
    reports, from the tokens tagging made (counting them again would cost a noticeable share of a
    batch of short notes)."""
    fitted_params.check_unchanged(model)
    docs = tokenize_documents(documents, gold=False)
    return ([note_spans(td, codes) for td, codes in zip(docs, model.predict_tokenized(docs))],
            [len(td) for td in docs])


def labels_in_documents(y) -> None:
    """Refuse a ``y`` given to ``fit``: itdeid's estimators read the gold labels from the
    documents' spans, so ``y`` is only a place-holder for scikit-learn's ``fit(X, y=None)``. A
    label list passed there in scikit-learn's habit once landed in the next positional
    parameter (``trusted``, ``calibrate_on``) and trained on it without a word."""
    if y is not None:
        raise ParameterError("y must be None: fit reads the gold labels from the documents' spans "
                             "(Document.spans)")


def check_training_documents(docs, phi: bool = True) -> None:
    """A :class:`UserError` for tokenized training ``docs`` that are none, that lack gold labels
    or, with ``phi``, that hold no gold PHI (a model of no PHI would also keep every word as
    ordinary text)."""
    if not docs:
        raise UserError("cannot train on an empty corpus")
    if any(td.labels is None for td in docs):
        raise UserError("training documents need gold labels")
    if phi and not any(td.labels.any() for td in docs):
        raise UserError("the training documents hold no gold PHI: nothing to learn PHI from")


class NotFittedError(UserError, sklearn.exceptions.NotFittedError):
    """The model is used before ``fit`` (or ``load``): scikit-learn's NotFittedError too, so
    ``except sklearn.exceptions.NotFittedError`` catches it."""


def _lengths(docs: Sequence[TokenizedDocument]) -> np.ndarray:
    return np.array([len(td) for td in docs], dtype=np.int64)


def _per_document(rows: np.ndarray, lengths: np.ndarray) -> list[np.ndarray]:
    """``rows`` (documents one after another, ``lengths`` rows each) cut into one array a document."""
    return np.split(rows, np.cumsum(lengths)[:-1]) if len(lengths) else []


class TokenModel(BaseEstimator):
    """A token classifier over one trigger variant's features.

    Parameters
    ----------
    trigger : {"token", "phrase", "ngram"}, default "token"
        Trigger variant (the three models of the final vote differ only in this).
    learner : {"xgboost", "adaboost", "tree", "majority"}, default "xgboost"
        See :mod:`itdeid.estimators.learners`.
    groups : sequence of str, default all feature groups of :mod:`itdeid.featurize`
    window : int, default 2
        Neighbouring tokens each side whose attributes are added.
    previous : {"oof", "gold", "none"}, default "oof"
        Where the predicted-previous-class feature comes from at training time.
    inner_folds : int, default 3
        Folds of the inner split used by ``previous="oof"``.
    n_estimators, max_depth, learning_rate : learner parameters (None: the learner's default)
    device : {"cpu", "cuda"}, default "cpu"
        xgboost training device.
    n_jobs : int or None
        Threads for xgboost (None: all cores).
    random_state : int, default 0
    trigger_min_count, trigger_min_gain, trigger_top_k : trigger filters (:mod:`itdeid.featurize.triggers`)
    two_step : bool, default False
        The learner says PHI or not with a two-class model and names the class with a second
        model over the PHI tokens, asked only where P(PHI) may pass a threshold
        (:mod:`itdeid.estimators.learners`): about a ninth of the trees of one nine-class model.
    lexicon_min_count : int, default 2
        Ordinary occurrences in the training notes a word needs to be kept by the ``lexicon``
        group (:mod:`itdeid.featurize.lexicon`).
    target_recall : float or None, default None
        Choose the operating point (:mod:`itdeid.estimators.operating_point`) at fit time: the largest
        P(PHI) threshold at which out-of-fold predictions of an inner split grouped by patient
        find this share of the training PHI tokens. None: no threshold is learned.
    threshold : float or None, default None
        A fixed P(PHI) threshold, used instead of the learned one (``itdeid deid --threshold``).
        With neither, a token gets its most likely label (the paper's argmax).
    identifiers : bool, default False
        Also tag what the fixed-shape identifier templates match (:mod:`itdeid.passes.identifiers`:
        e-mail, URL, IP, SSN, phone, ZIP, street, numbers after 'MRN', 'policy', 'VIN', ...),
        where the model said non-PHI.
    resubstitutions : int, default 0
        Train also on this many copies of each training note that holds PHI, every gold span
        replaced by a fresh stand-in of its class (:mod:`itdeid.estimators.resubstitute`), so the trees
        learn the context of a name more than the training notes' names. What the extractor
        learns (lexicon, case counts, triggers) and the threshold of ``target_recall`` come
        from the original notes alone. Not with the ``trusted`` group (a copy has no
        trusted-phrase attributes).
    common_names : float, default 0.0
        Share of the copies' name words drawn from the gazetteers' common US names (weighted
        lists of about 700 first names and 1,000 surnames) instead of the 1990 census lists,
        drawn uniformly, whose names are mostly rare words. Real names are often common words
        ('Mark', 'Page'): far more of the PhysioNet gold's name words are common English words
        than of the census stand-ins.
    recase : float, default 0.0
        Share of the copies written in the other casing: upper case for a mostly lower-case
        note, lower case for a mostly upper-case one (:func:`itdeid.estimators.resubstitute.recased`), so
        the trees see each name's context in a note whose capitals say nothing (it ranked PHI within chance of the recipe,
        which leaves it at 0).
    subsample : float or None, default None
        Share of the training rows each boosting round of an xgboost learner draws (its
        ``subsample``; None: all rows). Trees grown on other draws err differently, so the
        members of an ensemble average out more of each other's errors.
    phi_weight : float, default 1.0
        Weight of each PHI token in training the PHI-or-not decision, against 1 for ordinary
        text (a two-step learner's class model weighs its PHI tokens alike). Real notes hold
        very little PHI, and the operating point lies where recall is 0.95: more weight on the
        PHI makes the trees spend their splits on the PHI that looks ordinary rather than on
        the ordinary text that is easy.
    typer_estimators, typer_learning_rate : int and float or None, default None
        Trees and learning rate of a ``two_step`` learner's class model (None: those of the
        PHI-or-not model, ``n_estimators`` and ``learning_rate``). Naming the class of a PHI
        token is the easy half, and eight classes grow eight trees a round.
    context_pass : bool, default False
        Stack the context stage on this model (:mod:`itdeid.estimators.context_pass`): a
        PHI-or-not model over the first pass's label probabilities of the token, of the tokens
        around it and of the note's other occurrences of the same word, learned from the inner
        models' out-of-fold probabilities and refitted on all of them. The model's
        probabilities are then the blend of the two (``context_weight``), and ``target_recall``
        chooses the threshold on the blend of the stage's own out-of-fold probabilities. Not
        with ``resubstitutions`` (a copy has no out-of-fold pass).
    context_weight : float, default 0.5
        The stage's weight in that blend (1: the stage alone).
    negative_rate : float, default 1.0
        Fraction of the *distant* non-PHI tokens (more than ``window + 1`` tokens from any PHI
        token) the learner trains on, each kept one weighted ``1 / negative_rate`` so the class
        balance the trees see is unchanged in expectation. Real notes are almost all such tokens,
        so a rate of 0.1-0.2 cuts the boosting cost several times; 1.0 keeps every token. Tokens
        near PHI (the context the triggers and boundaries live in) and all PHI are always kept.

    Attributes
    ----------
    extractor_ : FeatureExtractor
    learner_ : Learner
    context_learner_ : Learner or None
        The context stage's model (None without ``context_pass``).
    feature_names_ : list of str
    threshold_ : float or None
        The threshold learned for ``target_recall`` (None without one).
    """

    #: Parameters free to change after fit (:mod:`itdeid.estimators.fitted_params`): a threshold over the
    #: learned one and the identifier templates, which act when the model tags, and the threads
    #: and device, which only training reads.
    RUNTIME_PARAMS = ("n_jobs", "device", "threshold", "identifiers", "skip_passes")

    def __init__(self, trigger: str = "token", learner: str = "xgboost", groups: Sequence[str] = GROUPS,
                 window: int = 2, previous: str = "oof", inner_folds: int = 3,
                 n_estimators: int | None = None, max_depth: int | None = None,
                 learning_rate: float | None = None, device: str = "cpu", n_jobs: int | None = None,
                 random_state: int = 0, trigger_min_count: int = 3, trigger_min_gain: float = 1e-4,
                 trigger_top_k: int = 60, negative_rate: float = 1.0,
                 target_recall: float | None = None, threshold: float | None = None,
                 identifiers: bool = False, resubstitutions: int = 0, context_pass: bool = False,
                 context_weight: float = 0.5, lexicon_min_count: int = MIN_COUNT, two_step: bool = False,
                 common_names: float = 0.0, subsample: float | None = None, phi_weight: float = 1.0,
                 typer_estimators: int | None = None, typer_learning_rate: float | None = None,
                 recase: float = 0.0, skip_passes: tuple[str, ...] = ()):
        self.trigger = trigger
        self.learner = learner
        self.groups = groups
        self.window = window
        self.previous = previous
        self.inner_folds = inner_folds
        self.n_estimators = n_estimators
        self.max_depth = max_depth
        self.learning_rate = learning_rate
        self.device = device
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.trigger_min_count = trigger_min_count
        self.trigger_min_gain = trigger_min_gain
        self.trigger_top_k = trigger_top_k
        self.negative_rate = negative_rate
        self.target_recall = target_recall
        self.threshold = threshold
        self.identifiers = identifiers
        self.resubstitutions = resubstitutions
        self.context_pass = context_pass
        self.context_weight = context_weight
        self.lexicon_min_count = lexicon_min_count
        self.two_step = two_step
        self.common_names = common_names
        self.subsample = subsample
        self.phi_weight = phi_weight
        self.typer_estimators = typer_estimators
        self.typer_learning_rate = typer_learning_rate
        self.recase = recase
        self.skip_passes = skip_passes

    # -- training ---------------------------------------------------------------------------
    def _new_extractor(self) -> FeatureExtractor:
        return FeatureExtractor(groups=self.groups, trigger=self.trigger, window=self.window,
                                trigger_min_count=self.trigger_min_count,
                                trigger_min_gain=self.trigger_min_gain, trigger_top_k=self.trigger_top_k,
                                lexicon_min_count=self.lexicon_min_count)

    def _new_learner(self) -> Learner:
        return Learner(self.learner, n_estimators=self.n_estimators, max_depth=self.max_depth,
                       learning_rate=self.learning_rate, n_jobs=self.n_jobs, device=self.device,
                       random_state=self.random_state, two_step=self.two_step, subsample=self.subsample,
                       phi_weight=self.phi_weight, typer_estimators=self.typer_estimators,
                       typer_learning_rate=self.typer_learning_rate)

    def fit(self, documents: Sequence[Document], y=None, *, trusted=None) -> "TokenModel":
        """Train on documents with gold spans (``y`` must stay None: see :func:`labels_in_documents`)."""
        labels_in_documents(y)
        return self.fit_tokenized(tokenize_documents(documents), trusted)

    def fit_tokenized(self, docs: Sequence[TokenizedDocument], trusted=None) -> "TokenModel":
        self.check_params()
        check_training_documents(docs)
        previous_labels, self.threshold_, self.context_learner_ = None, None, None
        copies: list[TokenizedDocument] = []
        if self.resubstitutions:
            if trusted is not None:
                raise ValueError("resubstitutions cannot be used with the 'trusted' feature group")
            if self.context_pass:
                raise ValueError("resubstitutions cannot be used with context_pass")
            copies = [tokenize_document(d) for d in resubstituted(
                [td.document for td in docs], self.resubstitutions, self.random_state,
                common_names=self.common_names, recase=self.recase)]
        wants_oof = self.previous == "oof" and "basic" in self.groups
        if wants_oof or self.target_recall is not None or self.context_pass:
            # over the original notes only (the inner models make their own copies)
            oof, inner_fold = self._out_of_fold_proba(docs, trusted)
            if wants_oof:
                previous_labels = decide(oof)
            if self.target_recall is not None and not self.context_pass:
                gold = np.concatenate([td.labels for td in docs])
                self.threshold_ = threshold_for_recall(oof, gold, self.target_recall)
        self.extractor_ = self._new_extractor()
        X = self.extractor_.fit_transform(docs, trusted, copies=copies)
        docs = list(docs) + copies
        y = np.concatenate([td.labels for td in docs]).astype(np.int64)
        columns = self.extractor_.previous_columns()
        if self.previous == "gold":
            set_previous(X, columns, y, _lengths(docs))
        elif self.previous == "oof":
            # a copy's previous classes are its gold labels: it has no out-of-fold tags
            copy_labels = [td.labels for td in copies]
            set_previous(X, columns, np.concatenate([previous_labels, *copy_labels]), _lengths(docs))
        rows, weights = self._training_rows(y, _lengths(docs))
        picked = slice(None) if rows is None else rows
        self.learner_ = self._new_learner().fit(X[picked], y[picked], sample_weight=weights)
        self.feature_names_ = self.extractor_.feature_names_
        if self.context_pass:
            self._fit_context(docs, oof, inner_fold)
        fitted_params.remember(self)
        return self

    def _fit_context(self, docs, oof, inner_fold) -> None:
        """Train the context stage on the inner models' out-of-fold probabilities ``oof`` over
        the inner split ``inner_fold`` (:func:`itdeid.estimators.context_pass.fit_stage`): one
        model refitted on all the rows tags, and for ``target_recall`` the per-fold models'
        out-of-fold blend chooses the threshold."""
        lengths = _lengths(docs)
        gold = np.concatenate([td.labels for td in docs])
        models, blended = fit_stage(docs, _per_document(oof, lengths), inner_fold,
                                    lambda f: self._new_learner(), self.context_weight, refit=True)
        self.context_learner_ = models[0]
        if self.target_recall is not None:
            self.threshold_ = threshold_for_recall(np.concatenate(blended), gold, self.target_recall)

    def blend_passes(self, first: np.ndarray, second: np.ndarray) -> np.ndarray:
        """The model's probabilities from the first pass's and the context stage's
        (``context_weight``)."""
        return blend(first, second, self.context_weight)

    def _training_rows(self, y: np.ndarray, lengths: np.ndarray):
        """Rows to train on and their weights under ``negative_rate`` (None, None: all, equal)."""
        if self.negative_rate == 1:
            return None, None
        near = np.zeros(len(y), dtype=bool)
        reach = self.window + 1
        start = 0
        for n in lengths:
            phi = np.flatnonzero(y[start:start + n])
            if len(phi):
                # +1 at phi - reach, -1 after phi + reach, clipped to the document
                edges = np.zeros(n + 1, dtype=np.int64)
                np.add.at(edges, np.maximum(phi - reach, 0), 1)
                np.add.at(edges, np.minimum(phi + reach + 1, n), -1)
                near[start:start + n] = np.cumsum(edges[:-1]) > 0
            start += n
        rng = np.random.default_rng(self.random_state)
        kept = near | (rng.random(len(y)) < self.negative_rate)
        weights = np.where(near, 1.0, 1.0 / self.negative_rate)[kept].astype(np.float32)
        return np.flatnonzero(kept), weights

    def _out_of_fold_proba(self, docs, trusted) -> np.ndarray:
        """Label probabilities (all tokens, (n, 9)) predicted for each training document by a
        model that saw none of its patient's notes (an inner split grouped by patient,
        :func:`itdeid.estimators.folds.inner_split`), and each document's inner fold; the inner models
        tag by argmax and learn their previous-class feature from gold labels (or not at all,
        with ``previous="none"``)."""
        fold, k = inner_split([td.document for td in docs], self.inner_folds)
        out = [None] * len(docs)
        for f in range(k):
            train = [i for i in range(len(docs)) if fold[i] != f]
            test = [i for i in range(len(docs)) if fold[i] == f]
            inner = clone(self).set_params(previous="none" if self.previous == "none" else "gold",
                                           target_recall=None, threshold=None, context_pass=False)
            inner.fit_tokenized([docs[i] for i in train],
                                None if trusted is None else [trusted[i] for i in train])
            predicted = inner.predict_proba_tokenized(
                [docs[i] for i in test], None if trusted is None else [trusted[i] for i in test])
            for i, proba in zip(test, predicted):
                out[i] = proba
        return np.concatenate(out), np.asarray(fold)

    # -- prediction -------------------------------------------------------------------------
    def _check_fitted(self):
        if not hasattr(self, "learner_"):
            raise NotFittedError("this TokenModel is not fitted yet: call fit() or load() first")

    def predict_proba_tokenized(self, docs: Sequence[TokenizedDocument], trusted=None,
                                batch=None) -> list[np.ndarray]:
        """Per document, an (n_tokens, 9) array of label probabilities (tagging left to right).
        ``batch``: a :class:`~itdeid.featurize.token_batch.TokenBatch` of ``docs`` shared with other models
        (:meth:`itdeid.featurize.FeatureExtractor.transform`)."""
        self._check_fitted()
        if getattr(self, "context_learner_", None) is None:
            return self._first_pass(docs, trusted, self.operating_threshold(), batch)[1]
        first, second = self.pass_probabilities(docs, trusted, batch)
        return [self.blend_passes(a, b) for a, b in zip(first, second)]

    def _first_pass(self, docs, trusted, threshold, batch=None):
        """The documents' feature rows and the first model's probabilities, decoded with the
        previous-class feature (if any) decided at ``threshold``."""
        X = self.extractor_.transform(docs, trusted, batch=batch)
        columns = [] if self.previous == "none" else self.extractor_.previous_columns()
        return X, decode(self.learner_, X, _lengths(docs), columns, threshold=threshold)

    def pass_probabilities(self, docs: Sequence[TokenizedDocument], trusted=None, batch=None):
        """The first pass's and the context stage's label probabilities of a ``context_pass``
        model, each a list of (n_tokens, 9) arrays (what :meth:`predict_proba_tokenized`
        blends)."""
        self._check_fitted()
        if getattr(self, "context_learner_", None) is None:
            raise ValueError("pass_probabilities needs a model trained with context_pass")
        docs = list(docs)
        if not docs:
            return [], []
        batch = TokenBatch(docs) if batch is None else batch
        # the first pass decodes by argmax, as its out-of-fold training probabilities did
        _, first = self._first_pass(docs, trusted, None, batch)
        stage = stage_proba([self.context_learner_], batch, np.concatenate(first))
        return first, _per_document(stage, _lengths(docs))

    operating_threshold = operating_threshold

    def predict_tokenized(self, docs: Sequence[TokenizedDocument], trusted=None) -> list[np.ndarray]:
        """Per document, the predicted label codes (indices into ``LABELS``), decided at the
        model's operating point."""
        threshold = self.operating_threshold()
        codes = [decide(p, threshold) for p in self.predict_proba_tokenized(docs, trusted)]
        return run_passes(self, docs, codes)

    def predict(self, documents: Sequence[Document]) -> list[list[Span]]:
        """Predicted PHI spans of each document (gold spans, if any, are ignored)."""
        return predict_spans(self, documents)

    # -- persistence ------------------------------------------------------------------------
    def save(self, folder) -> None:
        """Write the model to ``folder`` as JSON metadata plus the learner's own file."""
        self._check_fitted()
        fitted_params.check_unchanged(self)
        folder = check_kind(folder, "model.json")
        params = saved_params(self, self.get_params())
        params["groups"] = list(params["groups"])
        ex = self.extractor_
        state = {
            "format": MODEL_FORMAT, "itdeid_version": __version__, "kind": "TokenModel",
            "feature_format": FEATURE_FORMAT, "params": params,
            "extractor": {
                "triggers": ex.triggers_.to_dict(), "suffixes": ex.suffixes_, "headings": ex.headings_,
                "nonphi": sorted(ex.nonphi_),
                "case_counts": {"capitalized": dict(ex.case_counts_.capitalized),
                                "lower": dict(ex.case_counts_.lower),
                                "initial": dict(ex.case_counts_.initial)},
                "lexicon": ex.lexicon_.to_dict() if ex.lexicon_ is not None else None,
            },
            "feature_names": self.feature_names_,
            "threshold": getattr(self, "threshold_", None),
            "learner": self.learner_.save(folder),
        }
        if self.context_learner_ is not None:
            (folder / CONTEXT_FOLDER).mkdir(exist_ok=True)
            state["context_learner"] = self.context_learner_.save(folder / CONTEXT_FOLDER)
        (folder / "model.json").write_text(json.dumps(state), encoding="utf-8")

    @classmethod
    def load(cls, folder) -> "TokenModel":
        """The model saved in ``folder``; a damaged or tampered folder is a one-line
        :class:`UserError` naming the file, and nothing in it can run code."""
        folder = Path(folder)
        state = read_model_state(folder, "model.json", "TokenModel", MODEL_FORMAT, "a model folder",
                                 STATE_ENTRIES)
        path = folder / "model.json"
        check_feature_format(path, state)
        with damaged(path):
            model = cls(**checked_params(path, state["params"], cls))
            model.check_params()
            ex = model._new_extractor()
            saved = state["extractor"]
            check_entries(path, saved, EXTRACTOR_ENTRIES, "'extractor'")
            check_entries(path, saved["case_counts"], ("capitalized", "lower", "initial"),
                          "'extractor.case_counts'")
            check_entries(path, saved["triggers"], ("variant", "min_count", "min_gain", "top_k",
                                                    "left", "right"), "'extractor.triggers'")
            check_entries(path, saved.get("lexicon"), ("tokens", "table"), "'extractor.lexicon'")
            ex.triggers_ = TriggerLists.from_dict(saved["triggers"])
            if ex.triggers_.variant != model.trigger:
                raise ValueError(f"params.trigger {model.trigger!r} is not the saved triggers' "
                                 f"variant {ex.triggers_.variant!r}")
            ex.suffixes_ = checked_word_table(saved["suffixes"], "suffixes", range(1, len(LABELS)))
            ex.headings_ = checked_word_table(saved["headings"], "headings", None)
            ex.nonphi_ = set(checked_words(saved["nonphi"], "nonphi"))
            counts = CaseCounts()
            for name in ("capitalized", "lower", "initial"):
                getattr(counts, name).update(checked_word_table(saved["case_counts"][name], name, None))
            ex.case_counts_ = counts
            saved_lexicon = saved.get("lexicon")
            if ("lexicon" in model.groups) != (saved_lexicon is not None):
                raise ValueError("the lexicon is missing or not expected by the feature groups")
            ex.lexicon_ = Lexicon.from_dict(saved_lexicon) if saved_lexicon is not None else None
            ex.feature_names_ = ex._names()
            names = ex.feature_names_
            if model.context_pass and state["feature_names"][len(names):]:
                raise ValueError("its context pass is a nine-class model over the features, which "
                                 "this version of itdeid no longer reads: train the model again")
            if state["feature_names"] != names:
                raise ValueError("the feature names differ from those of the saved parameters")
            model.extractor_ = ex
            model.feature_names_ = names
            model.learner_ = Learner.load(folder, state["learner"], len(ex.feature_names_))
            if model.learner_.name != model.learner:   # get_params would say what was not used
                raise ValueError(f"params.learner {model.learner!r} is not the saved learner "
                                 f"{model.learner_.name!r}")
            model.context_learner_ = None
            if ("context_learner" in state) != model.context_pass:
                raise ValueError("the context stage's learner is missing or not expected by params.context_pass")
            if model.context_pass:
                model.context_learner_ = Learner.load(model_part(folder, CONTEXT_FOLDER), state["context_learner"],
                                                      len(stacked_names()))
            model.threshold_ = loaded_threshold(state, model.target_recall)
        fitted_params.remember(model)
        return model

    def check_params(self) -> None:
        """Choices the constructor leaves to ``fit``, checked for a loaded model too, and by
        ``itdeid train`` before it reads a corpus: a :class:`~itdeid.errors.ParameterError`
        naming the parameter."""
        if self.previous not in PREVIOUS:
            raise ParameterError(f"previous must be one of {', '.join(PREVIOUS)}, got {self.previous!r}")
        check_skip_passes(self.skip_passes)
        check_count("window", self.window, 0)
        check_count("inner_folds", self.inner_folds, 2)
        for name in ("n_estimators", "max_depth"):      # None: the learner's own default
            if getattr(self, name) is not None:
                check_count(name, getattr(self, name), 1)
        rate = self.learning_rate
        if rate is not None and (not is_finite_number(rate) or rate <= 0):
            raise ParameterError(f"learning_rate must be a finite number above 0, got {rate!r}")
        if self.n_jobs is not None and (isinstance(self.n_jobs, bool) or not isinstance(self.n_jobs, int)
                                        or self.n_jobs == 0):
            raise ParameterError(f"n_jobs must be None or a nonzero integer, got {self.n_jobs!r}")
        if not isinstance(self.device, str) or not re.fullmatch(r"cpu|cuda(:\d+)?", self.device):
            raise ParameterError(f"device must be 'cpu' or 'cuda' ('cuda:N'), got {self.device!r}")
        check_count("trigger_min_count", self.trigger_min_count, 1)
        check_count("trigger_top_k", self.trigger_top_k, 0)
        for name in ("identifiers", "context_pass", "two_step"):
            if not isinstance(getattr(self, name), bool):
                raise ParameterError(f"{name} must be True or False, got {getattr(self, name)!r}")
        check_groups(self.groups)
        check_threshold(self.threshold)
        check_context_weight(self.context_weight)
        if self.target_recall is not None:
            check_threshold(self.target_recall, "target_recall")
        if isinstance(self.negative_rate, bool) or not isinstance(self.negative_rate, (int, float)) \
                or not 0 < self.negative_rate <= 1:
            raise ParameterError(f"negative_rate must be in (0, 1], got {self.negative_rate!r}")
        check_count("resubstitutions", self.resubstitutions, 0)
        check_count("lexicon_min_count", self.lexicon_min_count, 1)
        if isinstance(self.common_names, bool) or not 0 <= self.common_names <= 1:
            raise ParameterError(f"common_names must be a share between 0 and 1, got {self.common_names!r}")
        if isinstance(self.recase, bool) or not 0 <= self.recase <= 1:
            raise ParameterError(f"recase must be a share between 0 and 1, got {self.recase!r}")
        if self.subsample is not None and (isinstance(self.subsample, bool) or not 0 < self.subsample <= 1):
            raise ParameterError(f"subsample must be a share above 0 and at most 1, got {self.subsample!r}")
        if not is_finite_number(self.phi_weight) or self.phi_weight <= 0:
            raise ParameterError(f"phi_weight must be a finite number above 0, got {self.phi_weight!r}")
        if not is_finite_number(self.trigger_min_gain):
            raise ParameterError(f"trigger_min_gain must be a finite number, got {self.trigger_min_gain!r}")
        if self.typer_estimators is not None:
            check_count("typer_estimators", self.typer_estimators, 1)
        if self.typer_learning_rate is not None and (
                isinstance(self.typer_learning_rate, bool) or not isinstance(self.typer_learning_rate, (int, float))
                or not 0 < self.typer_learning_rate <= 1):
            raise ParameterError(f"typer_learning_rate must be a number above 0 and at most 1, "
                             f"got {self.typer_learning_rate!r}")


def check_count(name: str, value, minimum: int) -> None:
    """A ValueError unless ``value`` (the parameter ``name``) is an integer >= ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ParameterError(f"{name} must be an integer >= {minimum}, got {value!r}")
