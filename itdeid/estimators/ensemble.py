"""The inner models as the model: an ensemble of the inner split's fold models.

Choosing a threshold for a target recall needs out-of-fold probabilities of the training notes,
so a thresholded :class:`~itdeid.estimators.model.TokenModel` already trains one inner model per fold of a
split grouped by patient (:func:`itdeid.estimators.folds.inner_split`), uses them once and throws them away,
then trains the final model on everything. :class:`InnerEnsemble` keeps them instead: a note is
tagged by the mean of the fold models' probabilities, and the threshold comes from the same
models' out-of-fold probabilities, so the ensemble costs no fit more than the single
thresholded model did.

Why a mean: models that err differently rank the rare PHI better together than any alone
(in the ablation the mean of two differently trained models ranked PHI better at high recall than
either). Fold models differ in the patients they saw and,
with ``resubstitutions``, in the stand-ins of their copies (each fold model draws its own).

With ``draws`` above 1, the whole ensemble (members and context stage) is trained that many
times with other random draws (the stand-ins of the members' copies, xgboost's column samples)
on the same inner split, and a note is tagged by the mean of the draws' blends; the threshold is
read off the mean of their out-of-fold blends. Five members leave the last few percent of the
PHI ranked by chance: the recipe retrained with other draws moves the per-fold precision at
high recall by several points, and the mean of two runs ranks better than either at every
recall, mostly through the two context stages: more members under one stage gain little
(experiments/NOTEBOOK.md).

The threshold is read off single fold models' out-of-fold probabilities, which spread wider than
their mean does: the rare PHI a single model scores lowest score higher in the mean, so at the
chosen threshold the ensemble's recall is, if anything, above the target (the safe side for a
de-identifier). Scores in the experiments are always the ensemble's own, out of fold.

With ``context_pass``, the context stage (:mod:`itdeid.estimators.context_pass`) is stacked on
the members' mean. The members' out-of-fold probabilities are exactly the rows such a stage must
learn from, so it costs no inner model more; its per-fold models are kept and averaged like the
members (or one refitted on all the rows, ``stage_refit``), and the threshold is chosen on the
blend of both stages.
"""
from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Sequence

import numpy as np
from sklearn.base import BaseEstimator, clone

from itdeid import __version__

from itdeid.estimators import fitted_params
from itdeid.document import Document
from itdeid.estimators.context_pass import blend, check_context_weight, fit_stage, stacked_names, stage_proba
from itdeid.errors import ParameterError, UserError
from itdeid.featurize import TokenizedDocument, tokenize_documents
from itdeid.estimators.folds import group_key, inner_split
from itdeid.featurize.feature_format import FEATURE_FORMAT, check_feature_format
from itdeid.model_folder.model_files import checked_params, damaged, model_part, read_model_state
from itdeid.model_folder.model_out import check_kind
from itdeid.estimators.learners import N_LABELS, Learner
from itdeid.passes.phrase_punctuation import check_pairs, left_out as punctuation_left_out
from itdeid.passes.place_endings import check_kinds, left_out as endings_left_out
from itdeid.estimators.model import (NotFittedError, TokenModel, check_count, check_training_documents,
                                    labels_in_documents, predict_spans)
from itdeid.pipeline import check_skip_passes, run_passes, saved_params
from itdeid.estimators.operating_point import (check_threshold, decide, loaded_threshold, operating_threshold,
                                               threshold_for_recall)
from itdeid.featurize.token_batch import TokenBatch

logger = logging.getLogger(__name__)

#: Version of the ensemble.json layout.
FORMAT = 1
#: The file that marks an ensemble folder (its members are TokenModel folders inside).
STATE_FILE = "ensemble.json"
#: Folder name prefix of the stacked context stage's models (``context-K``).
STAGE_PREFIX = "context-"


def _calibration_documents(calibrate_on, n: int) -> list[int]:
    """Indices of the documents flagged in ``calibrate_on`` (all of them when None)."""
    if calibrate_on is None:
        return list(range(n))
    flags = list(calibrate_on)
    if len(flags) != n:
        raise ValueError(f"calibrate_on needs one flag a document: {len(flags)} flags, {n} documents")
    chosen = [i for i, flag in enumerate(flags) if flag]
    if not chosen:
        raise UserError("no document is left to choose the threshold on (calibrate_on is all false)")
    return chosen


#: Tokens each side of a token that passes the screen that go on with it (``screen``): the
#: context stage reads the members' mean of the tokens around.
SCREEN_REACH = 3
#: The screen is never above the operating threshold over this factor (a lower ``--threshold``
#: lowers it too), so a token member 0 rates that far below the threshold is all it skips.
SCREEN_MARGIN = 10


def _whole_number(name: str, value, least: int) -> int:
    """``value`` of the parameter ``name`` as an int, or a ParameterError naming it unless it is
    a whole number (a Python or numpy integer, not a bool) of at least ``least``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < least:
        raise ParameterError(f"{name} must be a whole number of at least {least}, got {value!r}")
    return int(value)


class InnerEnsemble(BaseEstimator):
    """The mean of ``folds`` token models, each trained on the other folds of an inner split
    grouped by patient; the threshold for ``target_recall`` from their out-of-fold probabilities.

    Parameters
    ----------
    base : TokenModel or None, default None
        The member model (its ``target_recall``, ``threshold``, ``identifiers`` and
        ``context_pass`` are set here, not on it). None: ``TokenModel()``.
    folds : int, default 5
        Members, one per inner fold (fewer when the corpus has fewer patients).
    draws : int, default 1
        Whole ensembles (``folds`` members and a context stage each), each with its own random
        draws (seeds), averaged (see the module docstring).
    target_recall : float or None, default 0.95
        Share of the training PHI tokens the out-of-fold probabilities must reach at the
        threshold (:mod:`itdeid.estimators.operating_point`). None: argmax of the mean.
    threshold : float or None, default None
        A fixed P(PHI) threshold instead of the learned one.
    identifiers : bool, default True
        Also tag what the fixed-shape identifier templates match (:mod:`itdeid.passes.identifiers`).
    join_gaps : bool, default True
        Tag a capitalized word standing alone between two PHI tokens on one line as the token
        after it ('Harborview Cardiology Associates'), a US state right after a tagged place
        and a comma as LOCATION ('Portland, ME'), the surname of a 'Surname, First' field as the
        name ('PCP: Hall, Norman') and a name's trailing initial: :mod:`itdeid.passes.name_gaps`.
    subject_names : bool, default True
        Tag a census surname right after 'pt' or 'patient' that the members never saw as
        ordinary text as PATIENT ('Pt Murphy resting'), and the capitalized words after a
        title written as one ('Mr. Brown', 'Dr. Hannah Abernathy'): :mod:`itdeid.passes.subject_names`.
    context_pass : bool, default False
        Stack a context stage on the members' mean (see the module docstring).
    context_weight : float, default 0.5
        Weight of the context stage in the blend ``w * stage + (1 - w) * mean``.
    stage_refit : bool, default False
        Tag with one context stage model trained on every inner fold's out-of-fold rows, instead
        of the mean of the per-fold stage models (which still give the out-of-fold probabilities
        the threshold is chosen from): the usual way to finish stacking, at a fifth of the
        stage's trees a token when tagging.
    screen : float or None, default None
        Tag in a cascade: member 0 judges every token first, and only tokens whose
        P(PHI) from it reaches ``screen``, with :data:`SCREEN_REACH` tokens each side in the
        same note (the stage reads its neighbours), go on to the other members and the stage;
        the others keep member 0's probabilities. Nearly every token of a note is plainly
        ordinary text, so most of the trees are skipped. Needs members that tag every token at
        once (``previous="none"``). The threshold is still the full ensemble's, and the screen
        is never above a tenth of it (:data:`SCREEN_MARGIN`).
    screen_rounds : int or None, default None
        With ``screen``, member 0 judges every token first by its first ``screen_rounds``
        boosting rounds only (of its PHI-or-not model), and only the tokens those rate at a
        tenth of the screen or more (:data:`SCREEN_MARGIN` again) get all of its trees; the
        others keep that first look, which is then what the screen reads (member 0's
        trees over every token are the largest single cost of tagging once the screen has
        cut the others to a few tokens in a hundred). None: all of member 0's trees on every
        token.
    screen_reach : int or None, default None
        How many tokens each side of one that passes the screen go on with it (None:
        :data:`SCREEN_REACH`).

    Attributes
    ----------
    members_ : list of TokenModel
    stage_ : list of Learner
        The context stage's models, one per inner fold, or the one refitted on all the rows
        (``stage_refit``); empty without ``context_pass``.
    threshold_ : float or None
    punctuation_left_out_ : list of (str, str)
        The (mark, class) pairs the gold of the calibration documents leaves out between two
        words of the class ('R. Delacroix' marked 'R' and 'Delacroix' in the PhysioNet gold); after the
        decisions such a mark between two tokens of its class is untagged:
        :mod:`itdeid.passes.phrase_punctuation`.
    place_endings_left_out_ : list of str
        The kinds of word that gold leaves out after a place's name ('ward number': 'Brackenridge'
        of 'Brackenridge 3' in the PhysioNet gold); such words after a tagged place are untagged
        after the decisions: :mod:`itdeid.passes.place_endings`.
    calibration_ : (ndarray, ndarray)
        After ``fit`` only (not saved): the out-of-fold P(PHI) of the calibration documents'
        tokens (the blend with the stage) and whether each is gold PHI, what the threshold was
        chosen from.
    calibration_first_ : ndarray
        After ``fit`` with ``context_pass`` only (not saved): the same tokens' out-of-fold
        P(PHI) of the members' mean alone (so experiments can blend at another weight).
    """

    #: Pass groups of :mod:`itdeid.pipeline` the ensemble runs whatever its switches say.
    ALWAYS_PASSES = ("joining_words",)
    #: Parameters free to change after fit (:mod:`itdeid.estimators.fitted_params`): a threshold or screen
    #: over the learned ones, the passes, which act when the model tags, and the members'
    #: threads and device, which only training reads.
    RUNTIME_PARAMS = ("threshold", "screen", "screen_rounds", "screen_reach", "identifiers", "join_gaps",
                      "subject_names", "skip_passes", "n_jobs", "device")

    def __init__(self, base: TokenModel | None = None, folds: int = 5,
                 target_recall: float | None = 0.95, threshold: float | None = None,
                 identifiers: bool = True, context_pass: bool = False, context_weight: float = 0.5,
                 stage_refit: bool = False, screen: float | None = None, draws: int = 1,
                 join_gaps: bool = True, subject_names: bool = True, screen_rounds: int | None = None,
                 screen_reach: int | None = None, skip_passes: tuple[str, ...] = ()):
        self.base = base
        self.folds = folds
        self.draws = draws
        self.target_recall = target_recall
        self.threshold = threshold
        self.identifiers = identifiers
        self.context_pass = context_pass
        self.context_weight = context_weight
        self.stage_refit = stage_refit
        self.screen = screen
        self.screen_rounds = screen_rounds
        self.screen_reach = screen_reach
        self.join_gaps = join_gaps
        self.subject_names = subject_names
        self.skip_passes = skip_passes

    def _member(self, f: int, draw: int = 0) -> TokenModel:
        """Inner fold ``f``'s member of draw ``draw``: seed ``random_state + f + draw * folds``,
        so draw 0 is the single-draw ensemble's member and no two members share a seed."""
        base = self._base()
        if base.context_pass:
            raise ValueError("an InnerEnsemble's members cannot use context_pass")
        return clone(base).set_params(target_recall=None, threshold=None, identifiers=False,
                                      random_state=base.random_state + f + draw * self.folds)

    def _base(self) -> TokenModel:
        """``base``, or its documented default ``TokenModel()`` for None."""
        return TokenModel() if self.base is None else self.base

    def check_params(self) -> None:
        """The ensemble's own choices, checked at ``fit`` (and at load) rather than when they
        are first used: a :class:`~itdeid.errors.ParameterError` naming the parameter."""
        base = self._base()
        if not isinstance(base, TokenModel):
            raise ParameterError(f"base must be a TokenModel or None, got {type(base).__name__}")
        base.check_params()
        check_skip_passes(self.skip_passes)
        check_count("folds", self.folds, 2)
        if self.target_recall is not None:
            check_threshold(self.target_recall, "target_recall")
        check_threshold(self.threshold)
        check_context_weight(self.context_weight)
        if self.screen is not None:
            self._checked_screen([base])
        self._checked_rounds()
        self._checked_reach()
        self._check_draws()

    def _checked_screen(self, models) -> float:
        """``screen``, checked (at fit and load for the base, at tagging for the members, as a
        screen set after fitting is used there): a number in [0, 1) over models that tag every
        token at once."""
        screen = self.screen
        if isinstance(screen, bool) or not isinstance(screen, (int, float)) or not 0 <= screen < 1:
            raise ParameterError(f"screen must be a number in [0, 1), got {screen!r}")
        if any(m.previous != "none" for m in models):
            raise ParameterError("screen needs members that tag every token at once (previous='none')")
        return float(screen)

    def _checked_rounds(self) -> int | None:
        """``screen_rounds``, checked: None, or a whole number of rounds of at least 1, with a
        ``screen`` to serve."""
        if self.screen_rounds is None:
            return None
        rounds = _whole_number("screen_rounds", self.screen_rounds, 1)
        if self.screen is None:
            raise ParameterError("screen_rounds needs a screen")
        return rounds

    def _checked_reach(self) -> int:
        """``screen_reach``, checked: a whole number of tokens, 0 or more (None: the default)."""
        return SCREEN_REACH if self.screen_reach is None else _whole_number("screen_reach", self.screen_reach, 0)

    def _check_draws(self) -> int:
        return _whole_number("draws", self.draws, 1)

    def _check_split(self) -> int:
        """``draws``, checked to split the fitted members and stage models evenly."""
        draws = self._check_draws()
        stage = getattr(self, "stage_", [])
        if len(self.members_) % draws or len(stage) % draws:
            raise ValueError(f"{len(self.members_)} members and {len(stage)} stage models "
                             f"do not split into {draws} draws")
        return draws

    def fit(self, documents: Sequence[Document], y=None, *,
            calibrate_on: Sequence[bool] | None = None) -> "InnerEnsemble":
        labels_in_documents(y)
        return self.fit_tokenized(tokenize_documents(documents), calibrate_on)

    def fit_tokenized(self, docs: Sequence[TokenizedDocument],
                      calibrate_on: Sequence[bool] | None = None) -> "InnerEnsemble":
        """Fit on tokenized ``docs``. ``calibrate_on`` (one flag a document, default all): the
        documents whose out-of-fold probabilities choose the threshold. Synthetic notes added to
        real ones teach the members, but their PHI is easier than real PHI, so a threshold set
        over them finds less of the real notes' PHI than the target says (experiments/NOTEBOOK.md:
        synthetic records added to real training folds lower the recall on the real test notes
        below the target)."""
        check_training_documents(docs, phi=False)     # each member checks for PHI in its notes
        self.check_params()
        self.__dict__.pop("calibration_first_", None)     # a refit without the stage has none
        draws = self._check_draws()
        fold, k = inner_split([td.document for td in docs], self.folds)
        fold = np.asarray(fold)
        if k < self.folds:      # a member a fold, and a patient's notes in one fold
            logger.warning("%d members instead of the %d asked: the training notes have %d "
                           "patients", k, self.folds, len({group_key(td.document) for td in docs}))
        if len(docs) - np.bincount(fold).max() < 2:
            # each member splits its own training notes again (out-of-fold statistics): say so
            # here, in the user's numbers, not in a member's ("1 training document")
            raise UserError(f"{len(docs)} training document{'s' if len(docs) != 1 else ''} are "
                            f"too few for an ensemble of {k} members, each trained on the notes "
                            "outside its fold (at least 2 each): give more notes, or train one "
                            "model (--members 0)")
        members, stage, blends, passes = [], [], [], []
        for draw in range(draws):    # a whole ensemble a draw: its members, then its stage
            oof = [None] * len(docs)
            for f in range(k):
                train = [docs[i] for i in np.flatnonzero(fold != f)]
                test = np.flatnonzero(fold == f)
                member = self._member(f, draw).fit_tokenized(train)
                for i, proba in zip(test, member.predict_proba_tokenized([docs[i] for i in test])):
                    oof[i] = proba
                members.append(member)
            if self.context_pass:
                passes.append(oof)     # the members' mean, before it becomes the blend
                models, oof = self._fit_stage(docs, oof, fold, draw)
                stage += models
            blends.append(oof)
        self.members_ = members
        self.stage_ = stage
        oof = blends[0] if draws == 1 else [np.mean([b[i] for b in blends], axis=0) for i in range(len(docs))]
        self.threshold_ = None
        chosen = _calibration_documents(calibrate_on, len(docs))
        gold = np.concatenate([docs[i].labels for i in chosen])
        blend = np.concatenate([oof[i] for i in chosen])
        # what the threshold is chosen from, kept in memory for experiments that try other
        # rules (never saved: the model file holds no statement about its training notes)
        self.calibration_ = (1.0 - blend[:, 0]).astype(np.float32), gold != 0
        if passes:   # and the members' mean alone, so another context_weight can be tried
            first = np.mean([np.concatenate([draw[i][:, 0] for i in chosen]) for draw in passes], axis=0)
            self.calibration_first_ = (1.0 - first).astype(np.float32)
        if self.target_recall is not None:
            self.threshold_ = threshold_for_recall(blend, gold, self.target_recall)
        own = [docs[i] for i in chosen]
        self.punctuation_left_out_ = punctuation_left_out(own)
        self.place_endings_left_out_ = endings_left_out(own)
        fitted_params.remember(self)
        return self

    def _fit_stage(self, docs, oof, fold, draw: int = 0) -> tuple[list[Learner], list[np.ndarray]]:
        """The context stage's models of draw ``draw`` over that draw's members' out-of-fold
        probabilities ``oof`` (:func:`itdeid.estimators.context_pass.fit_stage`), each inner
        fold's with that fold's member's learner and seed, and the out-of-fold blend of both
        stages."""
        def new_learner(f):
            return self._member(0 if f is None else f, draw)._new_learner()
        return fit_stage(docs, oof, fold, new_learner, self.context_weight, refit=self.stage_refit)

    def blend_passes(self, mean: np.ndarray, stage: np.ndarray) -> np.ndarray:
        """The blend ``context_weight * stage + (1 - context_weight) * mean``."""
        return blend(mean, stage, self.context_weight)

    # -- prediction -------------------------------------------------------------------------
    def _check_fitted(self):
        if not hasattr(self, "members_"):
            raise NotFittedError("this InnerEnsemble is not fitted yet: call fit() or load() first")

    def predict_proba_tokenized(self, docs: Sequence[TokenizedDocument], trusted=None) -> list[np.ndarray]:
        """Per document, the mean of the members' (n_tokens, 9) label probabilities."""
        self._check_fitted()
        if getattr(self, "stage_", None):
            return [self.blend_passes(*both) for both in zip(*self.pass_probabilities(docs))]
        return self._mean(docs)

    def _mean(self, docs) -> list[np.ndarray]:
        means, _, _ = self._draw_means(docs)
        cuts = np.cumsum([len(td) for td in docs])[:-1]
        return np.split(np.mean(means, axis=0), cuts) if docs else []

    def _draw_means(self, docs) -> tuple[list[np.ndarray], np.ndarray | None, TokenBatch | None]:
        """Per draw, its members' mean probabilities of all the tokens of ``docs`` end to end;
        with ``screen``, which tokens went on past member 0 (None: all of them); and the
        batch of ``docs`` (None when there are none)."""
        # one batch for all members: the columns of the notes alone are joined once
        docs = list(docs)
        draws = self._check_split()
        if not docs:
            return [np.zeros((0, N_LABELS), dtype=np.float32)] * draws, None, None
        batch = TokenBatch(docs)
        if self.screen is None:
            each = [np.concatenate(m.predict_proba_tokenized(docs, batch=batch)) for m in self.members_]
            keep = None
        else:
            each, keep = self._screened(docs, batch)
        per_draw = len(self.members_) // draws
        return [np.mean(each[d * per_draw:(d + 1) * per_draw], axis=0) for d in range(draws)], keep, batch

    def _screened(self, docs, batch) -> tuple[list[np.ndarray], np.ndarray]:
        """Each member's probabilities when member 0 judges every token first and the others
        only the tokens near one it gives P(PHI) >= ``screen`` (the rest keep member 0's)."""
        screen = self._checked_screen(self.members_)
        threshold = self.operating_threshold()
        if threshold is not None:   # a screened-out token keeps member 0's P(PHI): keep it far below
            screen = min(screen, threshold / SCREEN_MARGIN)
        lead = self.members_[0]
        full = lead.extractor_.transform(docs, batch=batch)
        rounds = self._checked_rounds()
        first = lead.learner_.predict_proba(full, rounds)
        if rounds is not None:   # member 0's first look: all its trees where it rates the token
            more = np.flatnonzero((1.0 - first[:, 0]) >= screen / SCREEN_MARGIN)
            if len(more):
                first[more] = lead.learner_.predict_proba(full[more])
        keep = batch.near((1.0 - first[:, 0]) >= screen, self._checked_reach())
        each = [first]
        for member in self.members_[1:]:
            p = first.copy()
            if keep.any():
                X = member.extractor_.transform(docs, batch=batch, rows=keep, like=(lead.extractor_, full))
                p[keep] = member.learner_.predict_proba(X)
            each.append(p)
        return each, keep

    def pass_probabilities(self, docs: Sequence[TokenizedDocument]):
        """The members' mean and the context stage's label probabilities, each a list of
        (n_tokens, 9) arrays (what :meth:`predict_proba_tokenized` blends). With ``draws``, the
        mean of every draw's: each draw's stage reads its own members' mean, as it was trained."""
        self._check_fitted()
        if not getattr(self, "stage_", None):
            raise ValueError("pass_probabilities needs an ensemble trained with context_pass")
        docs = list(docs)
        means, keep, batch = self._draw_means(docs)
        if not docs:
            return [], []
        cuts = np.cumsum([len(td) for td in docs])[:-1]
        per_draw = len(self.stage_) // len(means)
        stages = [stage_proba(self.stage_[d * per_draw:(d + 1) * per_draw], batch, mean, keep)
                  for d, mean in enumerate(means)]
        return np.split(np.mean(means, axis=0), cuts), np.split(np.mean(stages, axis=0), cuts)

    operating_threshold = operating_threshold

    def predict_tokenized(self, docs: Sequence[TokenizedDocument], trusted=None) -> list[np.ndarray]:
        """Per document, the label codes decided at the operating point."""
        threshold = self.operating_threshold()
        return run_passes(self, docs, [decide(p, threshold) for p in self.predict_proba_tokenized(docs)])

    def seen_count(self, word: str) -> int:
        """How often a member saw ``word`` (lower case) as ordinary text in training, the most of
        any member (their lexicons; 0 for a model without the ``lexicon`` group): what
        :mod:`itdeid.passes.note_slips` reads."""
        merged = self.__dict__.get("_seen_merged")
        if merged is None or merged[0] is not self.members_:   # fitted or loaded again: merge
            merged = self._seen_merged = (self.members_, self._merged_seen_counts())
        return merged[1].get(word, 0)

    def _merged_seen_counts(self) -> dict[str, int]:
        """Each word's :meth:`seen_count`, in one table merged from the members' lexicons: a
        note's slips ask about some 300 edits of each word they look at, and asking each member
        took a millisecond a word."""
        counts: dict[str, int] = {}
        for member in self.members_:
            lexicon = getattr(member.extractor_, "lexicon_", None)
            for word in (lexicon.table if lexicon is not None else ()):
                counts[word] = max(counts.get(word, 0), lexicon.seen(word))
        return counts

    def known_word(self, word: str) -> bool:
        """Whether a member saw ``word`` (lower case) as ordinary text in training (its
        ``lexicon`` group's words, else its never-PHI words): all a model keeps of its notes."""
        for member in self.members_:
            extractor = member.extractor_
            lexicon = getattr(extractor, "lexicon_", None)
            if (lexicon is not None and word in lexicon.table) or word in extractor.nonphi_:
                return True
        return False

    def predict(self, documents: Sequence[Document]):
        """Predicted PHI spans of each document (gold spans, if any, are ignored)."""
        return predict_spans(self, documents)

    # -- persistence ------------------------------------------------------------------------
    def save(self, folder) -> None:
        """Write ``ensemble.json`` and each member's own model folder (``member-K``) inside
        ``folder``; the members are ordinary TokenModel folders, data only."""
        self._check_fitted()
        fitted_params.check_unchanged(self)
        folder = check_kind(folder, STATE_FILE)
        names = [f"member-{k}" for k in range(len(self.members_))]
        for name, member in zip(names, self.members_):
            member.save(folder / name)
        stage = []
        for k, learner in enumerate(getattr(self, "stage_", [])):
            (folder / f"{STAGE_PREFIX}{k}").mkdir(exist_ok=True)
            stage.append(learner.save(folder / f"{STAGE_PREFIX}{k}"))
        params = saved_params(self, {k: v for k, v in self.get_params(deep=False).items() if k != "base"})
        state = {"format": FORMAT, "itdeid_version": __version__, "kind": "InnerEnsemble",
                 "feature_format": FEATURE_FORMAT, "params": params, "threshold": self.threshold_,
                 "members": names, "stage": stage,
                 "punctuation_left_out": [list(p) for p in getattr(self, "punctuation_left_out_", ())],
                 "place_endings_left_out": list(getattr(self, "place_endings_left_out_", ()))}
        (folder / STATE_FILE).write_text(json.dumps(state), encoding="utf-8")

    @classmethod
    def load(cls, folder) -> "InnerEnsemble":
        """The ensemble saved in ``folder``; a damaged or tampered folder is a one-line
        :class:`UserError` naming the file, and nothing in it can run code."""
        folder = Path(folder)
        state = read_model_state(folder, STATE_FILE, "InnerEnsemble", FORMAT, "an ensemble model folder",
                                 ("format", "itdeid_version", "kind", "feature_format", "params",
                                  "threshold", "members", "stage", "punctuation_left_out",
                                  "place_endings_left_out"))
        path = folder / STATE_FILE
        check_feature_format(path, state)
        with damaged(path):
            model = cls(**checked_params(path, state["params"], cls))
            names = state["members"]
            if not isinstance(names, list) or not names or names != [f"member-{k}" for k in range(len(names))]:
                raise ValueError("members must list the folders member-0, member-1, ... in order")
            if len(names) > model.folds * model._check_draws():
                raise ValueError(f"{len(names)} members, more than folds x draws "
                                 f"({model.folds} x {model.draws}) trains")
            model.members_ = [TokenModel.load(model_part(folder, n)) for n in names]
            stage = state.get("stage", [])
            if not isinstance(stage, list) or bool(stage) != bool(model.context_pass):
                raise ValueError("stage must list the context stage's learners when context_pass is on")
            width = len(stacked_names())
            model.stage_ = [Learner.load(model_part(folder, f"{STAGE_PREFIX}{k}"), meta, width)
                            for k, meta in enumerate(stage)]
            model.base = clone(model.members_[0])   # member 0 has the base's own seed
            model.check_params()
            model._check_split()
            model.threshold_ = loaded_threshold(state, model.target_recall)
            # a model saved without the list keeps every mark inside its phrases, as it tagged
            model.punctuation_left_out_ = check_pairs(state.get("punctuation_left_out", []))
            model.place_endings_left_out_ = check_kinds(state.get("place_endings_left_out", []))
        fitted_params.remember(model)
        return model
