"""Issue G's ablation: each recall lever added to XGB_TOKEN, in the same patient-grouped folds.

    python experiments/levers.py ../shared/corpora/physionet-deid --out experiments/results/g-levers \\
        --rows XGB_TOKEN,CASING,CENSUS,LEXICON,R97 --n-jobs 2

Every row is a :class:`itdeid.model.TokenModel` cross-validated over 10 folds grouped by patient
(:func:`itdeid.folds.group_folds`, the folds of ``itdeid cv``). Each fold's out-of-fold label
probabilities are saved as soon as the fold ends (``OUT/cache/ROW/foldK.npz``), so a stopped run
resumes where it stopped; the report is rebuilt from the cache on every run.

Reported per row, pooled over the out-of-fold predictions, at the row's own operating point
(argmax, or the threshold its inner cross-validation chose for a target recall; the chosen
threshold of each fold is listed): binary token P/R, PHI instances found (any overlap), entity
relaxed and token 8-way P/R/F, and 8-way F's spread over folds. A second table reads the
ranking the row's probabilities give, whatever the threshold: binary token precision where the
pooled recall first reaches 0.90, 0.95 and 0.97. It is a diagnostic of what a threshold *could*
reach, not a choice: no setting here is picked from it.

The rows are cumulative (each adds one lever to the row before it), except the peer.
"""
from __future__ import annotations

import argparse
import hashlib
import math
import sys
import time
from types import SimpleNamespace
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "experiments"))      # note_slice, beside this script

from note_slice import require_corpus  # noqa: E402
from itdeid.crf import CRFModel  # noqa: E402
from itdeid.document import LABELS  # noqa: E402
from itdeid.evaluate import evaluate  # noqa: E402
from itdeid.featurize import GROUPS, tokenize_document  # noqa: E402
from itdeid.folds import group_folds  # noqa: E402
from itdeid.formats import read_corpus, write_jsonl_spans  # noqa: E402
from itdeid.ensemble import SCREEN_REACH, InnerEnsemble  # noqa: E402
from itdeid.model import TokenModel  # noqa: E402
from itdeid.lexicon import Lexicon  # noqa: E402
from itdeid.pipeline import run_passes  # noqa: E402
from itdeid.phrase_punctuation import left_out as punctuation_left_out  # noqa: E402
from itdeid.place_endings import left_out as endings_left_out  # noqa: E402
from itdeid.operating_point import MIN_THRESHOLD, decide  # noqa: E402
from itdeid.recipe import RECIPE  # noqa: E402
from itdeid.report import code_version, corpus_digest, header, markdown_table  # noqa: E402
from itdeid.spans import labels_to_spans  # noqa: E402
from itdeid.synth import supplement  # noqa: E402
from itdeid.errors import run_script  # noqa: E402

_XGB = dict(learner="xgboost", trigger="token", previous="gold")
_CONTEXT = dict(_XGB, groups=GROUPS + ("casing", "census", "lexicon"), previous="none", context_pass=True)
#: The rows, cumulative: each adds one lever to the one before. A row whose parameters differ
#: from another's only by ``identifiers`` shares its fold cache (the templates act after tagging),
#: and so does one that differs only by ``context_weight`` (the cache keeps both passes) or by
#: ``argmax`` (tag by the most likely label, not at the cached threshold).
#: The session-13 recipe's row: two-step members with 400 trees of depth 4 at learning rate 0.1,
#: a context stage, target 0.93, the calibration data kept (thresholds.py).
_SHALLOW = dict(_XGB, groups=GROUPS + ("casing", "census", "lexicon"), resubstitutions=1, previous="none",
                members=5, stacked=True, context_weight=0.5, target_recall=0.93, two_step=True,
                keep_oof=True, n_estimators=400, max_depth=4, learning_rate=0.1)
_TRIAL_GROUPS = GROUPS + ("casing", "census", "lexicon", "spelling", "measure")
#: The screens tried (experiments/results/cascade.md: at 1e-5 to 1e-4 no gold PHI changed).
_SCREENS = (1e-5, 1e-4, 1e-3)
#: Higher screens (issue I): up to the cap, a tenth of the operating threshold (about 0.1).
_WIDER_SCREENS = (1e-3, 3e-3, 1e-2)
#: Member 0's first rounds judging every token first (InnerEnsemble's ``screen_rounds``).
_SCREEN_ROUNDS = (100,)
#: Fewer tokens each side of one that passes the screen (InnerEnsemble's ``screen_reach``).
_SCREEN_REACHES = (1, 2)


def _screen_tag(screen: float) -> str:
    """A screen as row names write it: 0.001 -> '1E3', 0.003 -> '3E3'."""
    mantissa, exponent = f"{screen:.0e}".split("e")
    return f"{mantissa}E{-int(exponent)}"


def _rounds_tag(rounds: int | None) -> str:
    """``screen_rounds`` as row names write it: 100 -> '_R100', None -> ''."""
    return f"_R{rounds}" if rounds else ""

#: The recipe since session 14 as a row (its groups, synthetic records, refitted stage).
_RECIPE = dict(_SHALLOW, groups=_TRIAL_GROUPS, synthetic=(100, 0.5), calibrate_real=True, stage_refit=True)
#: The recipe as it ships (the _NAMED row's training) at its shipped target, 0.91.
_R91 = dict(_RECIPE, typer_estimators=50, typer_learning_rate=0.3, synthetic=(100, 0.5, 0.3), target_recall=0.91)
#: The steps the recipe takes after its decisions (:func:`after_decisions`), all of them.
_AS_IT_TAGS = dict(identifiers=True, join_gaps=True, subject_names=True, punctuation=True)


def _screened_rows(prefix: str, tag_target: float | None = None, **change) -> dict[str, dict]:
    """The recipe with ``change``, trained once a fold and tagging with the recipe's screen:
    ``PREFIX_SCREENS_OOF`` owns the cache, ``PREFIX_SCREEN1E3_OOF`` ranks its screened tagging,
    ``PREFIX_SCREEN1E3_IDS`` adds the identifier templates, the joined name gaps, the
    surnames after 'pt' and the marks and place endings the fold's training gold leaves out of
    phrases (the recipe as it tags: :meth:`itdeid.ensemble.InnerEnsemble.predict_tokenized`),
    at ``tag_target`` where given: the threshold for that target recall read off the cache's
    calibration data, while the cache keeps the one it was trained for (session 38: the
    recipe's target moved from 0.93 to 0.91 with no model retrained but the threshold)."""
    row = dict(_RECIPE, **change, screens=(1e-3,))
    tagged = dict(row, screen=1e-3, **_AS_IT_TAGS)
    if tag_target is not None:
        tagged["tag_target"] = tag_target
    return {f"{prefix}_SCREENS_OOF": row, f"{prefix}_SCREEN1E3_OOF": dict(row, screen=1e-3),
            f"{prefix}_SCREEN1E3_IDS": tagged}


ROWS: dict[str, dict] = {
    "XGB_TOKEN": dict(_XGB, groups=GROUPS),
    "CASING": dict(_XGB, groups=GROUPS + ("casing",)),
    "CENSUS": dict(_XGB, groups=GROUPS + ("casing", "census")),
    "LEXICON": dict(_XGB, groups=GROUPS + ("casing", "census", "lexicon")),
    "R97": dict(_XGB, groups=GROUPS + ("casing", "census", "lexicon"), target_recall=0.97),
    # the same models as R97 (its fold cache), then the identifier templates on their tags
    "R97_IDS": dict(_XGB, groups=GROUPS + ("casing", "census", "lexicon"), target_recall=0.97,
                    identifiers=True),
    "XGB_TOKEN_R97": dict(_XGB, groups=GROUPS, target_recall=0.97),
    # the context pass (itdeid.context_pass): both passes tag all tokens at once, so no
    # previous-class feature; the second reads the first's probabilities around each token.
    # One fold cache for four rows: trained as CONTEXT_R97 (the mean of both passes, threshold
    # for recall 0.97), read as the second pass alone or the mean at argmax, and with the
    # identifier templates
    "CONTEXT_R97": dict(_CONTEXT, context_weight=0.5, target_recall=0.97),
    "CONTEXT": dict(_CONTEXT, context_weight=1.0, target_recall=0.97, argmax=True),
    "CONTEXT_MEAN": dict(_CONTEXT, context_weight=0.5, target_recall=0.97, argmax=True),
    "CONTEXT_R97_IDS": dict(_CONTEXT, context_weight=0.5, target_recall=0.97, identifiers=True),
    # the trial group itdeid.spelling (misspelled ordinary words, announcing words themselves)
    "SPELLING": dict(_XGB, groups=GROUPS + ("casing", "census", "lexicon", "spelling")),
    "MEASURE": dict(_XGB, groups=GROUPS + ("casing", "census", "lexicon", "spelling", "measure")),
    # lever 4: one re-substituted copy of each training note with PHI
    "RESUB1": dict(_XGB, groups=GROUPS + ("casing", "census", "lexicon"), resubstitutions=1),
    "RESUB2": dict(_XGB, groups=GROUPS + ("casing", "census", "lexicon"), resubstitutions=2),
    # RESUB1 with the lexicon keeping words seen once as ordinary text (default: twice): a word
    # seen once is otherwise as unknown as a word never seen, and most unseen words are PHI
    "RESUB1_LEX1": dict(_XGB, groups=GROUPS + ("casing", "census", "lexicon"), resubstitutions=1,
                        lexicon_min_count=1),
    "RESUB3": dict(_XGB, groups=GROUPS + ("casing", "census", "lexicon"), resubstitutions=3),
    # itdeid.ensemble: five inner-fold models of RESUB1 (without the previous-class feature, so
    # each tags a note in one call), averaged, at the threshold for recall 0.95 of their oof
    "BAG5_R95": dict(_XGB, groups=GROUPS + ("casing", "census", "lexicon"), resubstitutions=1,
                     previous="none", members=5, target_recall=0.95),
    "BAG5_R95_IDS": dict(_XGB, groups=GROUPS + ("casing", "census", "lexicon"), resubstitutions=1,
                         previous="none", members=5, target_recall=0.95, identifiers=True),
    "BAG5": dict(_XGB, groups=GROUPS + ("casing", "census", "lexicon"), resubstitutions=1,
                 previous="none", members=5, target_recall=0.95, argmax=True),
    # the same ensemble with a context stage stacked on its mean (InnerEnsemble's context_pass):
    # one cache for the blend at its threshold, at argmax, and the stage alone
    "BAG5_CTX_R95": dict(_XGB, groups=GROUPS + ("casing", "census", "lexicon"), resubstitutions=1,
                         previous="none", members=5, stacked=True, context_weight=0.5,
                         target_recall=0.95),
    "BAG5_CTX": dict(_XGB, groups=GROUPS + ("casing", "census", "lexicon"), resubstitutions=1,
                     previous="none", members=5, stacked=True, context_weight=0.5,
                     target_recall=0.95, argmax=True),
    "BAG5_CTX_R95_IDS": dict(_XGB, groups=GROUPS + ("casing", "census", "lexicon"), resubstitutions=1,
                             previous="none", members=5, stacked=True, context_weight=0.5,
                             target_recall=0.95, identifiers=True),
    # the context stage's probabilities alone, at argmax (a ranking diagnostic)
    "BAG5_CTX_STAGE": dict(_XGB, groups=GROUPS + ("casing", "census", "lexicon"), resubstitutions=1,
                           previous="none", members=5, stacked=True, context_weight=1.0,
                           target_recall=0.95, argmax=True),
    # issue H: the same, trained on the fold's PhysioNet notes plus synthetic records (itdeid.synth,
    # 100 records, half of them nursing notes, drawn afresh each fold): must not lose real recall
    "BAG5_CTX_SYN": dict(_XGB, groups=GROUPS + ("casing", "census", "lexicon"), resubstitutions=1,
                         previous="none", members=5, stacked=True, context_weight=0.5,
                         target_recall=0.95, synthetic=(100, 0.5)),
    # the same, its threshold chosen on the real training notes alone (InnerEnsemble's
    # calibrate_on): BAG5_CTX_SYN's threshold, set over synthetic PHI too, lost real recall
    "BAG5_CTX_SYN_REAL": dict(_XGB, groups=GROUPS + ("casing", "census", "lexicon"), resubstitutions=1,
                              previous="none", members=5, stacked=True, context_weight=0.5,
                              target_recall=0.95, synthetic=(100, 0.5), calibrate_real=True),
    # issue I: BAG5_CTX_R95 with two-step learners (itdeid.learners): PHI or not by a two-class
    # model (one tree a round, not nine), the class by a model of the PHI tokens, asked only
    # where P(PHI) reaches 1e-3; the context stage is a logistic model too
    "BAG5_CTX_R95_TWO_STEP": dict(_XGB, groups=GROUPS + ("casing", "census", "lexicon"), resubstitutions=1,
                                  previous="none", members=5, stacked=True, context_weight=0.5,
                                  target_recall=0.95, two_step=True),
    "BAG5_CTX_R95_IDS_TWO_STEP": dict(_XGB, groups=GROUPS + ("casing", "census", "lexicon"),
                                      resubstitutions=1, previous="none", members=5, stacked=True,
                                      context_weight=0.5, target_recall=0.95, two_step=True,
                                      identifiers=True),
    # the same, its fold cache also keeping the out-of-fold P(PHI) of the training notes the
    # threshold is chosen from (InnerEnsemble.calibration_), so threshold rules can be compared
    # without retraining (experiments/thresholds.py)
    "BAG5_CTX_TWO_STEP_OOF": dict(_XGB, groups=GROUPS + ("casing", "census", "lexicon"), resubstitutions=1,
                                  previous="none", members=5, stacked=True, context_weight=0.5,
                                  target_recall=0.95, two_step=True, keep_oof=True),
    # the recipe since session 12 (two-step learners, target 0.93) plus synthetic records with the
    # threshold on the real notes (BAG5_CTX_SYN_REAL's issue H lever), keeping its calibration
    # data so thresholds.py can replay other targets
    "BAG5_CTX_TWO_STEP_SYN_REAL_OOF": dict(_XGB, groups=GROUPS + ("casing", "census", "lexicon"),
                                           resubstitutions=1, previous="none", members=5, stacked=True,
                                           context_weight=0.5, target_recall=0.93, two_step=True,
                                           synthetic=(100, 0.5), calibrate_real=True, keep_oof=True),
    # the recipe's row (two-step learners, target 0.93, calibration data kept) with the trees of
    # experiments/detector_params.py's sets: 400 trees at learning rate 0.1, of depth 4 ("shallow")
    # or 6 ("slow"), for the members, their class models and the context stage alike
    "BAG5_CTX_TWO_STEP_SHALLOW_OOF": _SHALLOW,
    "BAG5_CTX_TWO_STEP_SLOW_OOF": dict(_SHALLOW, max_depth=None),
    # the same models (its fold cache) with the identifier templates
    "BAG5_CTX_TWO_STEP_SHALLOW_IDS": dict(_SHALLOW, identifiers=True),
    # issue I: one context stage model refitted on all the inner folds' rows (InnerEnsemble's
    # stage_refit) instead of the mean of five: the threshold data are the same, a token passes
    # through a fifth of the stage's trees
    "BAG5_CTX_TWO_STEP_SHALLOW_REFIT_OOF": dict(_SHALLOW, stage_refit=True),
    # the two trial groups (misspelled announcing words such as 'neice', and measurements written
    # like dates such as '5/5' or '3-4/10'), whose single-model rows ranked too noisily to judge
    # them with the old trees
    "BAG5_CTX_TWO_STEP_SHALLOW_TRIAL_OOF": dict(_SHALLOW, groups=_TRIAL_GROUPS),
    # issue H's synthetic records (BAG5_CTX_TWO_STEP_SYN_REAL_OOF's lever): the recipe since
    # session 13; with the identifier templates (the same fold cache), the recipe as it tags
    "BAG5_CTX_TWO_STEP_SHALLOW_SYN_REAL_OOF": dict(_SHALLOW, synthetic=(100, 0.5), calibrate_real=True),
    "BAG5_CTX_TWO_STEP_SHALLOW_SYN_REAL_IDS": dict(_SHALLOW, synthetic=(100, 0.5), calibrate_real=True,
                                                   identifiers=True),
    # that recipe plus the trial groups: the recipe since session 14; with the identifier
    # templates (the same fold cache), the recipe as it tags
    "BAG5_CTX_TWO_STEP_SHALLOW_SYN_REAL_TRIAL_OOF": dict(_SHALLOW, groups=_TRIAL_GROUPS, synthetic=(100, 0.5),
                                                         calibrate_real=True),
    "BAG5_CTX_TWO_STEP_SHALLOW_SYN_REAL_TRIAL_IDS": dict(_SHALLOW, groups=_TRIAL_GROUPS, synthetic=(100, 0.5),
                                                         calibrate_real=True, identifiers=True),
    # issue I: the session-14 recipe with one context stage model refitted on all the inner
    # folds' rows (stage_refit) instead of the mean of five
    "BAG5_CTX_TWO_STEP_SHALLOW_SYN_REAL_TRIAL_REFIT_OOF": dict(_SHALLOW, groups=_TRIAL_GROUPS, synthetic=(100, 0.5),
                                                               calibrate_real=True, stage_refit=True),
    # and those models tagging in a cascade (InnerEnsemble's screen): member 0 judges every
    # token, the rest of the ensemble only tokens near one it gives at least P(PHI) = screen.
    # One training a fold: the row keeps the full ensemble's tagging (the same models as
    # ..._REFIT_OOF, so the same probabilities) and each screen's; the _SCREEN rows read those.
    "BAG5_CTX_TWO_STEP_SHALLOW_SYN_REAL_TRIAL_REFIT_SCREENS_OOF": dict(
        _SHALLOW, groups=_TRIAL_GROUPS, synthetic=(100, 0.5), calibrate_real=True, stage_refit=True,
        screens=_SCREENS),
    **{f"BAG5_CTX_TWO_STEP_SHALLOW_SYN_REAL_TRIAL_REFIT_SCREEN1E{round(-math.log10(s))}_OOF": dict(
        _SHALLOW, groups=_TRIAL_GROUPS, synthetic=(100, 0.5), calibrate_real=True, stage_refit=True,
        screens=_SCREENS, screen=s) for s in _SCREENS},
    # the recipe since session 14 as it tags: the screen of 0.001 and the identifier templates
    "BAG5_CTX_TWO_STEP_SHALLOW_SYN_REAL_TRIAL_REFIT_SCREEN1E3_IDS": dict(
        _SHALLOW, groups=_TRIAL_GROUPS, synthetic=(100, 0.5), calibrate_real=True, stage_refit=True,
        screens=_SCREENS, screen=1e-3, identifiers=True),
    # the clock group on trial (features/clock_times.json): times of day such as 'at 2015' or
    # '1900-0730', which the regex group's year template flags, as evidence against PHI; trained
    # once a fold with the recipe's screen, which the _SCREEN1E3 rows read (compare with
    # ..._REFIT_SCREEN1E3_OOF and ..._IDS)
    **_screened_rows("BAG5_CTX_TWO_STEP_SHALLOW_SYN_REAL_TRIAL_REFIT_CLOCK", groups=_TRIAL_GROUPS + ("clock",)),
    # the nameshape group on trial (itdeid/name_shape.py): how much a word is spelled like a
    # name rather than like English, from public lists only, for the rare words most false
    # alarms and misses are (compare with ..._REFIT_SCREEN1E3_OOF and ..._IDS)
    **_screened_rows("BAG5_CTX_TWO_STEP_SHALLOW_SYN_REAL_TRIAL_REFIT_NAMESHAPE",
                     groups=_TRIAL_GROUPS + ("nameshape",)),
    # the recipe again with other random draws in training (models' random_state and the
    # synthetic records; the folds stay): how far P@R.95 moves when nothing changes but chance,
    # the floor a lever's paired difference has to clear
    **_screened_rows("BAG5_CTX_TWO_STEP_SHALLOW_SYN_REAL_TRIAL_REFIT_SEED1", seed_offset=1),
    # the recipe's ensemble trained twice with other random draws (InnerEnsemble's draws),
    # members and stage, blends averaged, the threshold read off the mean of their out-of-fold
    # blends: the mean of the SEED1 row and the recipe's ranked better at every recall, and a
    # model must choose its own operating point for it. (Measured first at git 072a6d0 with
    # one stage over both draws' members: rankings-draws-members.md, thresholds-draws-members.md)
    **_screened_rows("BAG5_CTX_TWO_STEP_SHALLOW_SYN_REAL_TRIAL_REFIT_DRAWS2", draws=2),
    # twice the synthetic records (200 a fold, half nursing notes): the first 100 gained +4.3 +- 4.5
    # and +5.1 +- 2.7 at R.95 in two rows (session 13), and they cost nothing when tagging
    **_screened_rows("BAG5_CTX_TWO_STEP_SHALLOW_SYN_REAL_TRIAL_REFIT_SYN200", synthetic=(200, 0.5)),
    # the re-substituted copies' name words drawn three times in four from the gazetteers' common
    # US names instead of the census lists (TokenModel's common_names): about the gold's share of
    # names that are common English words (47 % against 42 %; the census stand-ins have 7 %)
    **_screened_rows("BAG5_CTX_TWO_STEP_SHALLOW_SYN_REAL_TRIAL_REFIT_COMMON75", common_names=0.75),
    # each boosting round of every member (and of the stage) grown on 70 % of the rows (xgboost's
    # subsample): averaging more trainings ranked better at R.90 (rankings-averages.md), so members
    # that differ more may average out more of each other's errors, at no tagging cost
    **_screened_rows("BAG5_CTX_TWO_STEP_SHALLOW_SYN_REAL_TRIAL_REFIT_SUB70", subsample=0.7),
    # members reading three tokens each side instead of the paper's two (the context stage reads
    # three each side of the members' probabilities already): a misspelt relation word or a pain
    # word two or three tokens from a name or a score is then in a member's own row
    **_screened_rows("BAG5_CTX_TWO_STEP_SHALLOW_SYN_REAL_TRIAL_REFIT_WIN3", window=3),
    # and one token each side: the wider window ranked worse in every fold at R.95 (rankings-win3.md),
    # so fewer windowed columns may overfit the training notes less (and cost less to tag)
    **_screened_rows("BAG5_CTX_TWO_STEP_SHALLOW_SYN_REAL_TRIAL_REFIT_WIN1", window=1),
    # PHI tokens weighing four times an ordinary token in the PHI-or-not models (members'
    # detectors and the stage; TokenModel's phi_weight): the operating point lies at recall 0.95,
    # where the hard PHI is ranked among ordinary words the trees spend most of their splits on
    **_screened_rows("BAG5_CTX_TWO_STEP_SHALLOW_SYN_REAL_TRIAL_REFIT_PHIW4", phi_weight=4.0),
    # issue I: the members' class models (two-step learners' typers) with 50 trees at learning rate
    # 0.3 instead of the detectors' 400 at 0.1: eight classes grow eight trees a round, and the
    # typers were a third of the recipe's tree time; alone on the PHI tokens of four folds, 30 to
    # 400 trees named the class alike (96-97 % right; a scratch run, not committed)
    **_screened_rows("BAG5_CTX_TWO_STEP_SHALLOW_SYN_REAL_TRIAL_REFIT_TYPER50", typer_estimators=50,
                     typer_learning_rate=0.3),
    # the session-19 recipe (TYPER50) again with other random draws (models' seeds and the synthetic
    # records; the folds stay): a second run of the recipe to judge the next lever against
    **_screened_rows("BAG5_CTX_TWO_STEP_SHALLOW_SYN_REAL_TRIAL_REFIT_TYPER50_SEED1", typer_estimators=50,
                     typer_learning_rate=0.3, seed_offset=1),
    # issue I: and half the detector and stage trees at twice the learning rate (200 at 0.2, depth 4
    # still): member 0's detector on every token is the largest part of the trees' time left
    **_screened_rows("BAG5_CTX_TWO_STEP_SHALLOW_SYN_REAL_TRIAL_REFIT_TYPER50_T200", typer_estimators=50,
                     typer_learning_rate=0.3, n_estimators=200, learning_rate=0.2),
    # issue G: the re-substituted copies written in the other casing (TokenModel's recase: upper case
    # for a mostly lower-case note, lower case for a mostly upper-case one), every copy or half of
    # them: 30 % of the split's notes are all capitals and 52 % nearly all lower case, and at
    # R.95 most false alarms are ordinary words of such notes, where capitals say nothing
    **_screened_rows("BAG5_CTX_TWO_STEP_SHALLOW_SYN_REAL_TRIAL_REFIT_TYPER50_RECASE", typer_estimators=50,
                     typer_learning_rate=0.3, recase=1.0),
    **_screened_rows("BAG5_CTX_TWO_STEP_SHALLOW_SYN_REAL_TRIAL_REFIT_TYPER50_RECASE50", typer_estimators=50,
                     typer_learning_rate=0.3, recase=0.5),
    # issue G: the languages group on trial (itdeid/languages.py): how common a word is in 26 other
    # languages written in Latin letters, for the names no US list holds; session 21's ceiling
    # study (ceiling.md) found it leaning towards a gain in both recipe runs. Twice, with the
    # recipe's two draws, to judge it against both runs of the recipe
    **_screened_rows("BAG5_CTX_TWO_STEP_SHALLOW_SYN_REAL_TRIAL_REFIT_TYPER50_LANGUAGES", typer_estimators=50,
                     typer_learning_rate=0.3, groups=_TRIAL_GROUPS + ("languages",)),
    **_screened_rows("BAG5_CTX_TWO_STEP_SHALLOW_SYN_REAL_TRIAL_REFIT_TYPER50_LANGUAGES_SEED1", typer_estimators=50,
                     typer_learning_rate=0.3, groups=_TRIAL_GROUPS + ("languages",), seed_offset=1),
    # issue G: the recipe (TYPER50) with three in ten synthetic nursing notes with PHI naming the
    # patient by last name after 'pt' or a title in a sentence ('Pt Murphy afebrile'; supplement's
    # named): the split never names a patient so, so these folds say what it costs and
    # experiments/named_subjects.py what it gains
    **_screened_rows("BAG5_CTX_TWO_STEP_SHALLOW_SYN_REAL_TRIAL_REFIT_TYPER50_NAMED", typer_estimators=50,
                     typer_learning_rate=0.3, synthetic=(100, 0.5, 0.3), tag_target=RECIPE["target_recall"]),
    # issue I: the recipe (the _NAMED row) with three members, each on two thirds of the notes
    # (an inner split in three), instead of five on four fifths: the members' rows and trees
    # are about half of the tagging time (stage_times.py), so what would fewer cost in quality
    **_screened_rows("BAG3_CTX_TWO_STEP_SHALLOW_SYN_REAL_TRIAL_REFIT_TYPER50_NAMED", typer_estimators=50,
                     typer_learning_rate=0.3, synthetic=(100, 0.5, 0.3), members=3),
    # issue I: the recipe (the _NAMED row) trained for its shipped target (0.91, so the screen's
    # cap, a tenth of the threshold, is the shipped model's) and tagging with higher screens:
    # member 0 passes a fifth of the tokens on at 1e-3, 6 % at 1e-2 (session 40), and the
    # other members' rows and trees were over a quarter of the tagging time; and at 1e-2 with
    # member 0's first 100 rounds judging every token first (InnerEnsemble's screen_rounds)
    "BAG5_CTX_TWO_STEP_SHALLOW_SYN_REAL_TRIAL_REFIT_TYPER50_NAMED_R91_SCREENS_OOF": dict(
        _R91, screens=_WIDER_SCREENS, screen_rounds_options=_SCREEN_ROUNDS),
    **{f"BAG5_CTX_TWO_STEP_SHALLOW_SYN_REAL_TRIAL_REFIT_TYPER50_NAMED_R91_SCREEN{_screen_tag(s)}{_rounds_tag(r)}_IDS":
       dict(_R91, screens=_WIDER_SCREENS, screen_rounds_options=_SCREEN_ROUNDS, screen=s, screen_rounds=r,
            **_AS_IT_TAGS)
       for s in _WIDER_SCREENS for r in (None, *_SCREEN_ROUNDS)},
    # issue I: the recipe at 0.91 with its screen of 0.01, fewer tokens each side of one that
    # passes going on with it (InnerEnsemble's screen_reach; 3 in the recipe): at 0.01 member 0
    # passes 6.0 % of the tokens on with 3, 2.8 % with 1 (session 40)
    "BAG5_CTX_TWO_STEP_SHALLOW_SYN_REAL_TRIAL_REFIT_TYPER50_NAMED_R91_REACH_OOF": dict(
        _R91, screens=(1e-2,), screen_reach_options=_SCREEN_REACHES),
    **{f"BAG5_CTX_TWO_STEP_SHALLOW_SYN_REAL_TRIAL_REFIT_TYPER50_NAMED_R91_REACH{r or SCREEN_REACH}_SCREEN1E2_IDS": dict(
        _R91, screens=(1e-2,), screen_reach_options=_SCREEN_REACHES, screen=1e-2, screen_reach=r, **_AS_IT_TAGS)
       for r in (None, *_SCREEN_REACHES)},
    # the recipe since session 27 (the _NAMED row) tagging without the surnames-after-'pt' rule
    # (itdeid/subject_names.py): beside its _IDS row, what the rule changes in these folds
    "BAG5_CTX_TWO_STEP_SHALLOW_SYN_REAL_TRIAL_REFIT_TYPER50_NAMED_SCREEN1E3_IDS_NO_SUBJECTS": dict(
        _RECIPE, typer_estimators=50, typer_learning_rate=0.3, synthetic=(100, 0.5, 0.3), screens=(1e-3,),
        screen=1e-3, identifiers=True, join_gaps=True),
    # the recipe again, keeping the members' out-of-fold mean beside the blend (keep_passes), so
    # that thresholds.py can set the operating point of another context_weight: the stage alone
    # or weighted 0.75 ranked better at R.95 than the even blend in both recipe runs' caches
    **_screened_rows("BAG5_CTX_TWO_STEP_SHALLOW_SYN_REAL_TRIAL_REFIT_PASSES", keep_passes=True),
    # the rankings of other stage weights on the caches of the recipe, its other draws and the
    # two-draw model (a weight acts after training; their thresholds are the even blend's, so
    # these rows are for rankings.py only, the _PASSES rows for an operating point)
    **{f"BAG5_CTX_TWO_STEP_SHALLOW_SYN_REAL_TRIAL_REFIT{run}_W{round(100 * w)}_SCREEN1E3_OOF": dict(
        _RECIPE, screens=(1e-3,), screen=1e-3, context_weight=w) | change
       for run, change in (("", {"screens": _SCREENS}), ("_SEED1", {"seed_offset": 1}), ("_DRAWS2", {"draws": 2}))
       for w in (0.75, 1.0)},
    **{f"BAG5_CTX_TWO_STEP_SHALLOW_SYN_REAL_TRIAL_REFIT_PASSES_W{round(100 * w)}_SCREEN1E3_OOF": dict(
        _RECIPE, keep_passes=True, screens=(1e-3,), screen=1e-3, context_weight=w) for w in (0.75, 1.0)},
    # the peer: itdeid.crf.CRFModel (He et al. 2015's features), tagged by its best sequence; its
    # ranking is the marginal P(PHI) of each token
    "CRF": dict(peer="crf"),
    # the same CRF trained on one stand-in copy of each note with PHI instead of the note
    # (CRFModel's stand_ins), so its file keeps no training PHI and it can ship
    "CRF_STANDINS": dict(peer="crf", stand_ins=1),
}
RECALLS = (0.90, 0.95, 0.97)


#: Parameters that act after the models are trained: rows differing only by these share a cache.
AFTER_TRAINING = ("identifiers", "context_weight", "argmax", "screen", "screen_rounds", "screen_reach", "join_gaps",
                  "subject_names", "punctuation", "tag_target")
#: Of those, the ones the trained estimator never takes (the cache owner's ``context_weight`` is
#: a parameter of its context stage, so training keeps it).
TAGGING_ONLY = tuple(k for k in AFTER_TRAINING if k != "context_weight")


def _trained(params: dict) -> dict:
    return {k: v for k, v in params.items() if k not in AFTER_TRAINING}


def cache_name(name: str) -> str:
    """The row whose fold cache ``name`` reads: the first row with the same model parameters."""
    return next(r for r, p in ROWS.items() if _trained(p) == _trained(ROWS[name]))


def corpus_key(tokenized, assignment) -> str:
    """What a fold cache was computed from: every note (id, text, gold spans) and its fold. A
    cache is read only under the same key: one computed with another ``--folds`` or ``--seed``,
    or on another or an edited corpus, was read as this run's before (its numbers reported as
    this corpus's, exit 0)."""
    documents = corpus_digest(td.document for td in tokenized)
    return hashlib.sha256(repr((documents, [int(f) for f in assignment])).encode()).hexdigest()


def check_cache(path: Path, saved, tokenized, assignment, f: int) -> None:
    """Refuse (``SystemExit`` naming the file) the fold cache ``saved`` of ``path`` unless it
    was computed from these notes in these folds: by its ``corpus_key``, or, for a cache older
    than the key, by its test notes' token counts."""
    test = [td for td, a in zip(tokenized, assignment) if a == f]
    if "corpus_key" in saved.files:
        same = str(saved["corpus_key"]) == corpus_key(tokenized, assignment)
    else:
        same = saved["lengths"].tolist() == [len(td.tokens) for td in test]
    if not same:
        raise SystemExit(f"{path}: computed from other notes or folds (another corpus, an edited "
                         "one, or another --folds or --seed); remove the cache folder or give "
                         "another --out / --levers")


def run_fold(name, tokenized, assignment, f, cache: Path, n_jobs, seed, code: str | None = None) -> Path:
    """Train row ``name`` on every fold but ``f``, save its probabilities on fold ``f``
    (the row owning the cache is the one trained, so a cached threshold is that row's).
    ``code``: :func:`~itdeid.report.code_version` when the run started (default: now), which
    is the code the process runs: a commit made in the checkout during a long run changes
    what git says, not the modules already loaded (session 39's caches named four commits)."""
    params = {k: v for k, v in ROWS[cache_name(name)].items() if k not in TAGGING_ONLY}
    seed += params.pop("seed_offset", 0)    # the same folds, other random draws in training
    path = cache / cache_name(name) / f"fold{f}.npz"
    if path.exists():
        with np.load(path) as saved:
            check_cache(path, saved, tokenized, assignment, f)
        return path
    key = corpus_key(tokenized, assignment)
    path.parent.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    train = [td for td, a in zip(tokenized, assignment) if a != f]
    test = [td for td, a in zip(tokenized, assignment) if a == f]
    synthetic = params.pop("synthetic", None)
    real = len(train)
    if synthetic:   # patients renamed so no synthetic patient shares a real one's inner fold
        records, nursing, *named = synthetic
        train += [tokenize_document(d) for d in supplement(records, seed=seed + 1000 + f, nursing=nursing,
                                                           named=named[0] if named else 0.0)]
    # the threshold from the real training notes' out-of-fold probabilities alone
    calibrate_on = [i < real for i in range(len(train))] if params.pop("calibrate_real", False) else None
    if params.pop("peer", None) == "crf":
        return _save_fold(path, start, *_crf_fold(train, test, random_state=seed, **params), key, code)
    members = params.pop("members", None)
    stacked = params.pop("stacked", False)
    keep_oof = params.pop("keep_oof", False)
    keep_passes = params.pop("keep_passes", False)
    weight = params.pop("context_weight", 0.5) if stacked else None
    refit = params.pop("stage_refit", False)
    draws = params.pop("draws", 1)
    screens = params.pop("screens", ())
    rounds_options = params.pop("screen_rounds_options", ())
    reach_options = params.pop("screen_reach_options", ())
    model = TokenModel(**params, n_jobs=n_jobs, random_state=seed)
    if members:   # itdeid.ensemble: the inner fold models, averaged, thresholded by their oof
        model = InnerEnsemble(model, folds=members, target_recall=model.target_recall,
                              identifiers=False, context_pass=stacked, context_weight=weight or 0.5,
                              stage_refit=refit, draws=draws)
    if calibrate_on is None:
        model.fit_tokenized(train)
    else:   # an InnerEnsemble (a TokenModel's second argument is its trusted phrases)
        model.fit_tokenized(train, calibrate_on)
    threshold = model.operating_threshold()
    passes = {}
    if params.get("context_pass") or stacked:   # both passes tagged once, blended as the model does
        first, second = model.pass_probabilities(test)
        proba = [model.blend_passes(a, b) for a, b in zip(first, second)]
        passes = dict(first=np.concatenate(first).astype(np.float32),
                      second=np.concatenate(second).astype(np.float32))
    else:
        proba = model.predict_proba_tokenized(test)
    if keep_oof:
        passes["oof_phi"], passes["oof_gold"] = model.calibration_
    if keep_passes:   # the members' mean alone too: thresholds.py blends at the row's weight
        passes["oof_first_phi"] = model.calibration_first_
    for screen in screens:   # the same models tagging in a cascade (InnerEnsemble's screen)
        for rounds in (None, *rounds_options):
            for reach in (None, *reach_options):
                model.screen, model.screen_rounds, model.screen_reach = screen, rounds, reach
                first, second = model.pass_probabilities(test)
                tagging = _screen_key(screen, rounds, reach)   # not `key`: the corpus's, saved below
                passes[f"{tagging}_first"] = np.concatenate(first).astype(np.float32)
                passes[f"{tagging}_second"] = np.concatenate(second).astype(np.float32)
        model.screen = model.screen_rounds = model.screen_reach = None
    return _save_fold(path, start, proba, threshold, passes, key, code)


def _screen_key(screen: float, rounds: int | None = None, reach: int | None = None) -> str:
    return f"screen{screen:g}" + (f"_rounds{rounds}" if rounds else "") + (f"_reach{reach}" if reach is not None else "")


def _crf_fold(train, test, **params):
    """The CRF's marginals on ``test`` and its best-sequence tags (kept as ``codes``)."""
    model = CRFModel(**params).fit_tokenized(train)
    tags = model.predict_tokenized(test)
    return model.predict_proba_tokenized(test), None, {"codes": np.concatenate(tags)}


def _save_fold(path: Path, start: float, proba, threshold, extra, key: str, code: str | None = None) -> Path:
    tmp = path.with_suffix(".tmp.npz")
    np.savez_compressed(tmp, **extra, corpus_key=np.array(key), proba=np.concatenate(proba).astype(np.float32),
                        lengths=np.array([len(p) for p in proba]),
                        threshold=np.array(np.nan if threshold is None else threshold),
                        seconds=np.array(time.perf_counter() - start),
                        code=np.array(code or code_version()))     # which code computed this fold
    tmp.replace(path)  # a fold is either wholly saved or not at all
    return path


def cache_provenance(cache: Path, rows, folds) -> str:
    """The results header's line saying which code computed the fold caches that ``rows``
    read (``- fold caches computed by: ...``, which provenance.py reads back): each version
    with the rows and folds it computed ('not recorded' for caches older than the record). A
    run resumed across commits shows several."""
    made: dict[str, dict[str, list[int]]] = {}
    for row in dict.fromkeys(cache_name(r) for r in rows):
        for f in folds:
            path = cache / row / f"fold{f}.npz"
            if path.exists():
                with np.load(path) as saved:
                    code = str(saved["code"]) if "code" in saved.files else "not recorded"
                made.setdefault(code, {}).setdefault(row, []).append(f)
    return "- fold caches computed by: " + ("; ".join(
        f"{code} ({', '.join(f'{row} folds {fs}' for row, fs in by_row.items())})"
        for code, by_row in made.items()) or "none") + "\n"


def cache_report_head(title: str, cache: Path, rows, folds, total: int) -> str:
    """The head of a report read from fold caches: :func:`itdeid.report.header`, which code
    computed the caches (:func:`cache_provenance`) and which of the ``total`` folds were read."""
    return header(title) + cache_provenance(cache, rows, folds) + f"- folds: {folds} of {total}\n\n"


def add_cache_arguments(ap: argparse.ArgumentParser) -> None:
    """The arguments of a script that reads these fold caches (rankings.py, errors.py,
    thresholds.py): the corpus, the results folder and the folds' layout."""
    ap.add_argument("corpus")
    ap.add_argument("--levers", default="experiments/results/g-levers")
    ap.add_argument("--folds", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)


def cached_folds(cache: Path, rows, folds: int) -> list[int]:
    """The folds every row of ``rows`` has cached."""
    return [f for f in range(folds) if all((cache / cache_name(r) / f"fold{f}.npz").exists() for r in rows)]


def tokenized_folds(args):
    """The corpus of ``args`` tokenized, and levers.py's fold of each note."""
    documents = read_corpus(args.corpus)
    return [tokenize_document(d) for d in documents], group_folds(documents, args.folds, args.seed)


def threshold_at(p_phi: np.ndarray, gold: np.ndarray, target: float, floor: float) -> float:
    """The largest threshold at which ``target`` of the gold PHI tokens have P(PHI) >= it,
    kept at or above ``floor`` (threshold_for_recall's rule on P(PHI) itself)."""
    ranked = np.sort(p_phi[gold])[::-1]
    needed = max(1, math.ceil(target * len(ranked) - 1e-9))
    return float(max(ranked[needed - 1], floor))


def calibration_phi(name: str, saved) -> np.ndarray:
    """A fold cache's out-of-fold P(PHI) of the training notes (``keep_oof``), blended at row
    ``name``'s own ``context_weight`` where the cache kept the members' mean too
    (``keep_passes``): what row ``name``'s threshold is read off."""
    oof_phi = saved["oof_phi"]
    if "oof_first_phi" in saved.files:
        trained = float(ROWS[cache_name(name)].get("context_weight", 0.5))
        w = float(ROWS[name].get("context_weight", 0.5))
        first = saved["oof_first_phi"]
        stage = (oof_phi - (1 - trained) * first) / trained
        oof_phi = (w * stage + (1 - w) * first).astype(np.float32)
    return oof_phi


def cached_fold(name, tokenized, assignment, cache: Path, f: int) -> dict:
    """Row ``name``'s cached fold ``f``: its test documents, their probabilities, the
    threshold, the seconds it took, and the predicted spans by document id at that threshold
    (name gaps joined, surnames after 'pt' tagged and identifier templates applied when the
    row has them)."""
    path = cache / cache_name(name) / f"fold{f}.npz"
    saved = np.load(path)
    check_cache(path, saved, tokenized, assignment, f)
    test = [td for td, a in zip(tokenized, assignment) if a == f]
    threshold = None if np.isnan(saved["threshold"]) or ROWS[name].get("argmax") \
        else float(saved["threshold"])
    if threshold is not None and ROWS[name].get("tag_target") is not None:
        # the recipe tags at another target than its cache was trained for: the threshold its
        # training would have learned, read off the fold's cached calibration data
        if "oof_phi" not in saved.files:
            raise KeyError(f"{path} keeps no out-of-fold calibration data for {name}'s tag_target")
        threshold = threshold_at(calibration_phi(name, saved), saved["oof_gold"].astype(bool),
                                 float(ROWS[name]["tag_target"]), MIN_THRESHOLD)
    proba = saved["proba"]
    passes = (_screen_key(ROWS[name]["screen"], ROWS[name].get("screen_rounds"), ROWS[name].get("screen_reach")) + "_"
              if ROWS[name].get("screen") else "")
    if passes + "second" in saved:   # a context-pass row: its own mean of the two passes
        w = float(ROWS[name].get("context_weight", 0.5))
        proba = w * saved[passes + "second"] + (1 - w) * saved[passes + "first"]
    elif passes:
        raise KeyError(f"fold {f} of {cache_name(name)} holds no tagging with screen {ROWS[name]['screen']:g}")
    cuts = np.cumsum(saved["lengths"])[:-1]
    parts = np.split(proba, cuts)
    if "codes" in saved and threshold is None:   # a peer's own tags (the CRF's best sequence)
        codes = np.split(saved["codes"], cuts)
    else:
        codes = [decide(p, threshold) for p in parts]
    codes = after_decisions(name, test, codes, [td for td, a in zip(tokenized, assignment) if a != f])
    spans = {td.document.id: labels_to_spans(td.document.text, td.tokens, [LABELS[c] for c in cc])
             for td, cc in zip(test, codes)}
    return {"test": test, "proba": parts, "threshold": threshold,
            "seconds": float(saved["seconds"]), "spans": spans}


#: The row parameters of the steps taken after the decisions (:func:`after_decisions`).
AFTER_DECISIONS = ("join_gaps", "subject_names", "identifiers", "punctuation")


def after_decisions(name: str, test, codes, train) -> list:
    """The label codes of the notes ``test`` after the steps row ``name`` takes once the
    decisions are made, in the order the recipe takes them
    (:meth:`itdeid.ensemble.InnerEnsemble.predict_tokenized`); ``train``: the fold's training
    notes, whose vocabulary and gold conventions those steps read."""
    row = ROWS[name]
    # the words the fold's training notes use as ordinary text, counted once for the passes that
    # read them (the members' lexicons hold those of four fifths of them each; their union, all)
    lexicon = Lexicon.count(train) if row.get("subject_names") or row.get("identifiers") else None
    # what the recipe's ensemble offers the passes, from this fold's training notes
    model = SimpleNamespace(join_gaps=row.get("join_gaps", False), subject_names=row.get("subject_names", False),
                            identifiers=row.get("identifiers", False), ALWAYS_PASSES=("joining_words",))
    if lexicon is not None:
        model.known_word, model.seen_count = lexicon.table.__contains__, lexicon.seen
    if row.get("punctuation"):   # the marks the fold's training gold leaves out of phrases
        model.punctuation_left_out_ = punctuation_left_out(train)
        model.place_endings_left_out_ = endings_left_out(train)   # and the words after a place's name
    return run_passes(model, test, codes)


def row_scores(name, tokenized, assignment, cache: Path, folds):
    """Pooled evaluation, per-fold 8-way F, thresholds, seconds and pooled (P(PHI), gold) of a
    row over the cached folds ``folds`` (their indices)."""
    predictions, per_fold_f, thresholds, seconds = {}, [], [], 0.0
    p_phi, gold = [], []
    for f in folds:
        fold = cached_fold(name, tokenized, assignment, cache, f)
        thresholds.append(fold["threshold"])
        seconds += fold["seconds"]
        predictions.update(fold["spans"])
        fold_eval = evaluate([td.document for td in fold["test"]], fold["spans"]).to_dict()["summary"]
        per_fold_f.append(fold_eval["token_8way"]["f"])
        for td, p in zip(fold["test"], fold["proba"]):
            p_phi.append(1.0 - p[:, 0])
            gold.append(td.labels != 0)
    scores = evaluate([td.document for td in tokenized if td.document.id in predictions], predictions)
    return scores, per_fold_f, thresholds, seconds, np.concatenate(p_phi), np.concatenate(gold)


def precision_at_recall(p_phi: np.ndarray, gold: np.ndarray, recall: float) -> tuple[float, float]:
    """Binary token precision (and the threshold) where pooled recall first reaches ``recall``."""
    order = np.argsort(-p_phi, kind="stable")
    hits = np.cumsum(gold[order])
    k = int(np.searchsorted(hits, np.ceil(recall * gold.sum() - 1e-9)))
    return float(hits[k] / (k + 1)), float(p_phi[order][k])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus")
    ap.add_argument("--out", default="experiments/results/g-levers")
    ap.add_argument("--rows", default=",".join(list(ROWS)[:5]))
    ap.add_argument("--folds", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n-jobs", type=int, default=2)
    ap.add_argument("--only", default=None,
                    help="compute only these folds (comma-separated indices, in this order), e.g. "
                         "to share a row's folds between two processes; the report waits for all")
    ap.add_argument("--report-only", action="store_true", help="rebuild the report from the cache")
    ap.add_argument("--report", default="results.md",
                    help="the report's file name in OUT (default results.md): another keeps the "
                         "table of rows whose caches a new checkout no longer has")
    ap.add_argument("--write-predictions", action="store_true",
                    help="only write OUT/predictions-ROW.jsonl from the cache, each row's "
                         "out-of-fold spans at its operating point (for peers.py --itdeid-predictions)")
    ap.add_argument("--partial", action="store_true",
                    help="with --report-only: write partial.md over the folds every named row has "
                         "cached so far (an unfinished run's interim view; results.md is untouched)")
    args = ap.parse_args(argv)
    require_corpus(args.corpus)
    names = [r for r in args.rows.split(",") if r]
    unknown = [r for r in names if r not in ROWS]
    if unknown:
        ap.error(f"unknown rows {unknown}; choose from {list(ROWS)}")
    out = Path(args.out)
    cache = out / "cache"
    documents = read_corpus(args.corpus)
    tokenized = [tokenize_document(d) for d in documents]
    assignment = group_folds(documents, args.folds, args.seed)
    order = [int(f) for f in args.only.split(",")] if args.only else list(range(args.folds))
    started = code_version()
    for name in [] if args.report_only or args.write_predictions else names:
        for f in order:
            run_fold(name, tokenized, assignment, f, cache, args.n_jobs, args.seed, started)
            print(f"{name} fold {f + 1}/{args.folds} done", file=sys.stderr, flush=True)
        if not args.only:
            write_report(out, args, names, documents, tokenized, assignment)
    if args.write_predictions:
        for name in names:
            write_predictions(out / f"predictions-{name}.jsonl", name, tokenized, assignment, cache, args.folds)
    elif args.report_only:
        write_report(out, args, names, documents, tokenized, assignment)
    return 0


def write_predictions(path: Path, name: str, tokenized, assignment, cache: Path, folds: int) -> None:
    """Row ``name``'s out-of-fold spans of every note as JSON Lines (doc, start, end, type)."""
    spans = {}
    for f in range(folds):
        spans.update(cached_fold(name, tokenized, assignment, cache, f)["spans"])
    write_jsonl_spans([replace(td.document, spans=spans[td.document.id]) for td in tokenized], path)
    print(f"wrote {path}", file=sys.stderr)


def write_report(out: Path, args, names, documents, tokenized, assignment) -> None:
    cache = out / "cache"
    cached = lambda n, f: (cache / cache_name(n) / f"fold{f}.npz").exists()  # noqa: E731
    fold_ids = list(range(args.folds))
    if getattr(args, "partial", False):
        fold_ids = [f for f in fold_ids if all(cached(n, f) for n in names)]
    done = [n for n in names if fold_ids and all(cached(n, f) for f in fold_ids)]
    if not done and args.report_only:   # an empty table over the committed one, status 0 before
        raise SystemExit(f"no row of {', '.join(names)} has its {args.folds} folds cached in "
                         f"{cache} (another --folds?); nothing to report")
    main_rows, rank_rows, class_rows, details = [], [], [], []
    for name in done:
        scores, per_fold_f, thresholds, seconds, p_phi, gold = row_scores(
            name, tokenized, assignment, cache, fold_ids)
        s = scores.to_dict()["summary"]
        main_rows.append({
            "row": name, "binary_P": s["binary_token"]["p"], "binary_R": s["binary_token"]["r"],
            "instances_R": s["phi_instances"]["r"], "instances_P": s["phi_instances"]["p"],
            "entity_relaxed_F": s["entity_relaxed"]["f"], "8way_P": s["token_8way"]["p"],
            "8way_R": s["token_8way"]["r"], "8way_F": s["token_8way"]["f"],
            "8way_F_fold_sd": float(np.std(per_fold_f)), "train_seconds": round(seconds)})
        rank = {"row": name}
        for r in RECALLS:
            rank[f"P@R{r:.2f}"], rank[f"threshold@R{r:.2f}"] = precision_at_recall(p_phi, gold, r)
        rank_rows.append(rank)
        per_class = scores.per_class()
        class_rows.append({"row": name, **{c: per_class[c]["f"] for c in LABELS[1:]},
                           **{f"{c}_found": per_class[c]["instances"]["r"] for c in LABELS[1:]}})
        chosen = ", ".join("argmax" if t is None else f"{t:.3f}" for t in thresholds)
        details.append(f"## {name}\n\n- parameters: `{ROWS[name]}`\n- operating point per fold: "
                       f"{chosen}\n\n```\n{scores.format()}\n```\n")
    pct = lambda frame: frame.set_index("row").apply(  # noqa: E731
        lambda c: c.map(lambda t: f"{t:.2g}") if c.name.startswith("threshold")
        else c if c.name.startswith("train") else (100 * c).round(2))
    # the command as run (a hand-built one dropped --folds and --seed)
    text = (header(f"Issue G levers: {args.folds}-fold CV grouped by patient on {Path(args.corpus).name}")
            + cache_provenance(Path(args.out) / 'cache', names, fold_ids) +
            f"- corpus: {len(documents)} documents, {len({d.patient or d.id for d in documents})} patients\n"
            + (f"- partial: {len(done)} of {len(names)} rows finished\n" if len(done) < len(names) else "")
            + (f"- **interim: only folds {fold_ids} ({len(fold_ids)} of {args.folds}), those every row "
               "has cached; pooled over their notes alone**\n" if len(fold_ids) < args.folds else "")
            + "\nAt each row's operating point (percent; train_seconds: all folds' training and tagging):\n\n"
            + (markdown_table(pct(pd.DataFrame(main_rows))) if main_rows else "(none yet)")
            + "\n\nRanking, whatever the threshold (binary token precision where pooled recall "
              "first reaches R; a diagnostic, nothing is chosen by it):\n\n"
            + (markdown_table(pct(pd.DataFrame(rank_rows))) if rank_rows else "(none yet)")
            + "\n\nPer class: token 8-way F, and the share of gold instances found by any overlap "
              "(`_found`):\n\n"
            + (markdown_table(pct(pd.DataFrame(class_rows))) if class_rows else "(none yet)")
            + "\n\n" + "\n".join(details))
    out.mkdir(parents=True, exist_ok=True)
    report = getattr(args, "report", "results.md")
    (out / ("partial.md" if len(fold_ids) < args.folds else report)).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    run_script(main, "levers.py")
