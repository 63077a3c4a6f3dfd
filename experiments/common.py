"""What several experiment scripts share, in one module beside them: the scripts import it as
``from common import ...`` (``python experiments/NAME.py`` puts experiments/ first on
``sys.path``), and import itdeid as installed, never from the source tree. Nothing of itdeid
calls it; what lived in itdeid only for the scripts (``run_script``, ``publish``,
``corpus_digest``) lives here.

- running a script and writing its report: :func:`run_script`, :func:`publish`,
  :func:`corpus_digest`;
- the notes choices are made on: :func:`read_choice_corpus` (the lockbox's patients left out);
- the slice of a corpus the timing scripts tag (bench_models.py, bench_code.py, stage_times.py):
  :func:`add_note_slice`, :func:`require_corpus`, :func:`timed_notes`;
- levers.py's rows and their out-of-fold fold caches, read by ceiling.py, detector_params.py,
  errors.py, rankings.py, rescoring.py and thresholds.py: :data:`ROWS`, :func:`cached_fold`, ..;
- rankings of P(PHI) (rankings.py, ceiling.py, rescoring.py): :func:`ranking_tables`;
- deid.pl and one-core runs (peers.py, bench.py): :func:`run_deid_pl`, :func:`pinned`, ..;
- timed commands: :func:`run_deid` (bench.py, many_files.py), :func:`run` (install_size.py,
  model_rebuild.py), :func:`checkout` and :func:`git_name` (bench_code.py, start_up.py),
  :func:`make_notes` (many_files.py, file_memory.py), :func:`load_fold` (table1.py,
  iteration_effect.py).
"""
from __future__ import annotations

import argparse
import hashlib
import math
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd

from itdeid.document import LABELS
from itdeid.estimators.ensemble import SCREEN_REACH
from itdeid.errors import UserError, printable
from itdeid.featurize import GROUPS, tokenize_document
from itdeid.estimators.folds import group_folds
from itdeid.formats import read_corpus
from itdeid.featurize.lexicon import Lexicon
from itdeid.estimators.operating_point import MIN_THRESHOLD, decide
from itdeid.passes.phrase_punctuation import left_out as punctuation_left_out
from itdeid.pipeline import run_passes
from itdeid.passes.place_endings import left_out as endings_left_out
from itdeid.training.recipe import RECIPE
from itdeid.evaluation.report import header, markdown_table
from itdeid.text.spans import labels_to_spans

#: experiments/, and the repository root above it.
HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


# --------------------------------------------------------------------------------------------
# The notes choices are made on

def read_choice_corpus(path) -> list:
    """The documents of the corpus at ``path`` that a choice (a feature, a pass, a word list, a
    threshold, a recipe) may be made on: for the PhysioNet split (a folder with ``id.text``),
    every patient's notes but the lockbox's (``experiments/lockbox.json``, scored only by
    ``lockbox.py --score``); any other corpus whole. Says on stderr how many notes it left out."""
    documents = read_corpus(path)
    if not (Path(path) / "id.text").is_file():
        return documents
    from lockbox import open_documents
    kept = open_documents(documents)
    print(f"{len(documents) - len(kept)} notes of the lockbox's patients left out "
          f"({len(kept)} notes kept)", file=sys.stderr)
    return kept


# --------------------------------------------------------------------------------------------
# Running a script, and its report

def run_script(main, prog: str) -> None:
    """Run the ``main`` of a script in experiments/ as itdeid's commands run: a
    :class:`UserError` (a corpus that is not there, a file that cannot be read, a parameter out
    of range) is one line on stderr and exit status 2, never a traceback; a status ``main``
    returns is the process's (a ``main`` returning None returns normally)."""
    try:
        code = main()
    except UserError as error:
        print(f"{prog}: error: {printable(str(error))}", file=sys.stderr)
        code = 2
    if code is not None:
        sys.exit(code)


def publish(text: str, out=None) -> None:
    """Write a report to ``out`` (its folder created; nothing written when None) and print it:
    what every experiment script does with its results."""
    if out:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_text(text, encoding="utf-8")
    print(text)


def corpus_digest(documents) -> str:
    """SHA-256 over every document's id, text and gold spans, in order: what a cached result
    was computed from, so a resumed run can tell another or an edited corpus from its own."""
    digest = hashlib.sha256()
    for d in documents:
        digest.update(repr((d.id, hashlib.sha256(d.text.encode("utf-8", "surrogatepass")).hexdigest(),
                            [(s.start, s.end, s.type) for s in d.spans])).encode())
    return digest.hexdigest()


# --------------------------------------------------------------------------------------------
# The timed slice of a corpus (bench_models.py, bench_code.py, stage_times.py)

def add_note_slice(ap: argparse.ArgumentParser, repeats: bool = True) -> None:
    """``--skip``, ``--notes`` and ``--warm`` (and ``--repeats``): the timed notes, after the
    notes tagged first untimed so word tables are filled as in a long run."""
    ap.add_argument("--skip", type=int, default=400, help="notes before the timed ones (default 400)")
    ap.add_argument("--notes", type=int, default=400)
    ap.add_argument("--warm", type=int, default=200, help="notes tagged first, untimed (default 200)")
    if repeats:
        ap.add_argument("--repeats", type=int, default=3)


def require_corpus(corpus) -> None:
    """A ``SystemExit`` (status 1, one line) where ``corpus`` is not there: a script reading it
    has failed, not succeeded with nothing to do (as it said before, with status 0)."""
    if not Path(corpus).exists():
        raise SystemExit(f"corpus {corpus} not found")


def timed_notes(documents, skip: int, notes: int) -> list:
    """``documents[skip:skip + notes]``, the timed notes, or a ``SystemExit`` where the slice is
    empty (a corpus of fewer than ``--skip`` notes): the scripts divided by zero, or reported
    0 tokens/s with status 0."""
    test = list(documents[skip:skip + notes])
    if not test:
        raise SystemExit(f"no notes to time: the corpus has {len(documents)}, --skip is {skip}; "
                         "give a smaller --skip")
    return test


# --------------------------------------------------------------------------------------------
# levers.py's rows and their out-of-fold fold caches

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
    phrases (the recipe as it tags: :meth:`itdeid.estimators.ensemble.InnerEnsemble.predict_tokenized`),
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
    # the context pass (itdeid.estimators.context_pass): both passes tag all tokens at once, so no
    # previous-class feature; the second reads the first's probabilities around each token.
    # One fold cache for four rows: trained as CONTEXT_R97 (the mean of both passes, threshold
    # for recall 0.97), read as the second pass alone or the mean at argmax, and with the
    # identifier templates
    "CONTEXT_R97": dict(_CONTEXT, context_weight=0.5, target_recall=0.97),
    "CONTEXT": dict(_CONTEXT, context_weight=1.0, target_recall=0.97, argmax=True),
    "CONTEXT_MEAN": dict(_CONTEXT, context_weight=0.5, target_recall=0.97, argmax=True),
    "CONTEXT_R97_IDS": dict(_CONTEXT, context_weight=0.5, target_recall=0.97, identifiers=True),
    # the trial group itdeid.featurize.spelling (misspelled ordinary words, announcing words themselves)
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
    # itdeid.estimators.ensemble: five inner-fold models of RESUB1 (without the previous-class feature, so
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
    # issue I: BAG5_CTX_R95 with two-step learners (itdeid.estimators.learners): PHI or not by a two-class
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
    # the nameshape group on trial (itdeid/featurize/name_shape.py): how much a word is spelled like a
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
    # issue G: the languages group on trial (itdeid/featurize/languages.py): how common a word is in 26 other
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
    # (itdeid/passes/subject_names.py): beside its _IDS row, what the rule changes in these folds
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
    # the peer: itdeid.estimators.crf.CRFModel (He et al. 2015's features), tagged by its best sequence; its
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


def screen_key(screen: float, rounds: int | None = None, reach: int | None = None) -> str:
    return f"screen{screen:g}" + (f"_rounds{rounds}" if rounds else "") + (f"_reach{reach}" if reach is not None else "")


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
    """The head of a report read from fold caches: :func:`itdeid.evaluation.report.header`, which code
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
    passes = (screen_key(ROWS[name]["screen"], ROWS[name].get("screen_rounds"), ROWS[name].get("screen_reach")) + "_"
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
    (:meth:`itdeid.estimators.ensemble.InnerEnsemble.predict_tokenized`); ``train``: the fold's training
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


def precision_at_recall(p_phi: np.ndarray, gold: np.ndarray, recall: float) -> tuple[float, float]:
    """Binary token precision (and the threshold) where pooled recall first reaches ``recall``."""
    order = np.argsort(-p_phi, kind="stable")
    hits = np.cumsum(gold[order])
    k = int(np.searchsorted(hits, np.ceil(recall * gold.sum() - 1e-9)))
    return float(hits[k] / (k + 1)), float(p_phi[order][k])


# --------------------------------------------------------------------------------------------
# Rankings of P(PHI), alone and paired (rankings.py, ceiling.py, rescoring.py)

PAIRED_RECALLS = (0.90, 0.95)


def ranking_tables(entries: dict, gold: list, against: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The pooled table (precision at each of RECALLS, percent) and the paired table (per-fold
    precision at PAIRED_RECALLS minus ``against``'s: mean, standard error, folds won) of
    ``entries`` (a name -> its per-fold P(PHI) arrays, aligned with ``gold``'s per-fold flags)."""
    pooled, paired = [], []
    base = {R: np.array([precision_at_recall(p, g, R)[0] for p, g in zip(entries[against], gold)])
            for R in PAIRED_RECALLS}
    for name, parts in entries.items():
        p_all, g_all = np.concatenate(parts), np.concatenate(gold)
        pooled.append({"row": name, **{f"P@R{R:.2f}": 100 * precision_at_recall(p_all, g_all, R)[0]
                                       for R in RECALLS}})
        line = {"row": name}
        for R in PAIRED_RECALLS:
            d = np.array([precision_at_recall(p, g, R)[0] for p, g in zip(parts, gold)]) - base[R]
            line[f"ΔP@R{R:.2f}"] = f"{100 * d.mean():+.1f} ± {100 * d.std(ddof=1) / np.sqrt(len(d)):.1f}"
            line[f"wins@R{R:.2f}"] = f"{int((d > 0).sum())}/{len(d)}"
        paired.append(line)
    return pd.DataFrame(pooled).set_index("row").round(2), pd.DataFrame(paired).set_index("row")


def tables_text(pooled: pd.DataFrame, paired: pd.DataFrame, pooled_caption: str, paired_caption: str) -> str:
    """:func:`ranking_tables`' two tables in markdown, each after its caption."""
    return (f"{pooled_caption}:\n\n{markdown_table(pooled)}\n\n"
            f"{paired_caption}:\n\n{markdown_table(paired)}\n")


# --------------------------------------------------------------------------------------------
# deid.pl and one-core runs (peers.py, bench.py)

SHARED_PEERS = ROOT.parent / "shared" / "peers"


#: Thread caps for every peer process (one core each).
ONE_CORE_ENV = {name: "1" for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                                       "NUMEXPR_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")}
_RECORD_END = "||||END_OF_RECORD"
_PHI_HEADER = re.compile(r"Patient\s+(\S+)\s+Note\s+(\S+)")
_PHYSIONET_ID = re.compile(r"(\d+)-(\d+)")


def keeps_physionet_ids(documents) -> bool:
    """Whether every id is PhysioNet's numeric ``<patient>-<note>`` (deid.pl's patient-name list
    applies only then)."""
    return bool(documents) and all(
        (m := _PHYSIONET_ID.fullmatch(doc.id)) and (doc.patient in (None, m.group(1)))
        for doc in documents)


def deid_records(documents, keep_ids: bool) -> tuple[str, dict[tuple[str, str], str]]:
    """The notes as one deid.pl input (PhysioNet ``id.text`` records) and the map from its
    ``(patient, note)`` numbers to document ids.

    ``keep_ids``: the ids' own numbers (PhysioNet), else patients numbered in order of first
    appearance (``Document.patient``, or the id) and notes 1, 2, .. . Characters beyond latin-1
    become ``?`` (one for one, so offsets hold); a note not ending in a newline gets one, since
    deid.pl never scans a line that shares the ``||||END_OF_RECORD`` line.
    """
    records, keys, patients = [], {}, {}
    for number, doc in enumerate(documents, 1):
        if keep_ids:
            patient, note = _PHYSIONET_ID.fullmatch(doc.id).groups()
        else:
            patient = str(patients.setdefault(doc.patient or doc.id, len(patients) + 1))
            note = str(number)
        if (patient, note) in keys:
            raise ValueError(f"document {doc.id}: record {patient}/{note} occurs twice")
        text = doc.text.encode("latin-1", errors="replace").decode("latin-1")
        if _RECORD_END in text or re.search(r"(?m)^START_OF_RECORD=", text):
            raise ValueError(f"document {doc.id}: its text holds a record marker")
        if not text.endswith("\n"):
            text += "\n"
        keys[(patient, note)] = doc.id
        records.append(f"START_OF_RECORD={patient}||||{note}||||\n{text}{_RECORD_END}\n")
    return "".join(records), keys


def parse_deid_phi(text: str) -> dict[tuple[str, str], list[tuple[int, int]]]:
    """deid.pl's ``.phi`` file: ``Patient P<TAB>Note N`` headers, each followed by ``k start end``
    lines (character offsets into that record's text). Returns ``{(P, N): [(start, end), ..]}``;
    a line of any other shape is a ``ValueError`` naming its number only."""
    found: dict[tuple[str, str], list[tuple[int, int]]] = {}
    current = None
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line:
            continue
        header = _PHI_HEADER.fullmatch(line)
        if header:
            current = header.groups()
            found.setdefault(current, [])
            continue
        fields = line.split()
        if current is None or len(fields) != 3 or not all(f.isdigit() for f in fields):
            raise ValueError(f"line {number} of deid.pl's .phi file is not 'k start end' "
                             "after a 'Patient P Note N' header")
        start, end = int(fields[1]), int(fields[2])
        if start < end:
            found[current].append((start, end))
    return found


def deid_spans(phi_text: str, keys: dict[tuple[str, str], str], lengths: dict[str, int]):
    """Spans by document id from a ``.phi`` file, clipped to each note's length (the newline
    :func:`deid_records` may add is not the note's)."""
    spans: dict[str, list[tuple[int, int]]] = {doc_id: [] for doc_id in keys.values()}
    for key, found in parse_deid_phi(phi_text).items():
        if key not in keys:
            raise ValueError(f"deid.pl reported record {key[0]}/{key[1]}, which was not given")
        doc_id = keys[key]
        spans[doc_id] = [(s, min(e, lengths[doc_id])) for s, e in found if s < lengths[doc_id]]
    return spans


@dataclass
class PeerRun:
    name: str
    notes: int
    version: str = ""
    spans: dict = field(default_factory=dict)      # doc id -> [(start, end), ..]
    startup_seconds: float | None = None
    tag_seconds: float | None = None
    skipped: str | None = None                      # why it did not run
    #: wall seconds of each run of the whole command, where it ran more than once
    run_seconds: list = field(default_factory=list)
    #: wall seconds of each run of its start-up alone, in the same order
    startup_runs: list = field(default_factory=list)


def pinned(command: list[str]) -> list[str]:
    taskset = shutil.which("taskset")
    return [taskset, "-c", "0", *command] if taskset else command


def peer_env(**extra) -> dict:
    return {**os.environ, **ONE_CORE_ENV, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
            "TOKENIZERS_PARALLELISM": "false", **extra}


def timed_peer(label: str, command, cwd, env) -> tuple[float, int]:
    """Wall seconds and exit code; the peer's output is discarded (it may quote notes), and of a
    failure only the exit code is printed, with peer_worker.py's exception class name."""
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, errors="replace")
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or [""])[-1]
        said = last[:80] if last.startswith("peer_worker: ") else ""
        print(f"  {label}: exit code {done.returncode} {said}", file=sys.stderr)
    return seconds, done.returncode


def run_deid_pl(documents, folder: Path, work: Path, repeats: int = 1, before_each=None) -> PeerRun:
    """deid.pl on ``documents``, pinned to one core; ``repeats``: runs of its start-up and of
    the whole command, the fastest of each kept, as bench.py keeps itdeid's fastest run (one
    run against itdeid's best of three favoured itdeid; issue I, session 43). ``before_each()``
    runs before each of them: bench.py times itdeid there, so the two take turns."""
    run = PeerRun("deid", len(documents), version="deid.pl 1.1 (Perl)")
    perl = shutil.which("perl")
    if perl is None or not (folder / "deid.pl").is_file():
        run.skipped = f"perl or {folder}/deid.pl not found"
        return run
    copy = work / "deid"
    shutil.copytree(folder, copy)
    config = (copy / "deid.config").read_text(encoding="latin-1")
    config = config.replace("Gold standard comparison = 1", "Gold standard comparison = 0")
    keep_ids = keeps_physionet_ids(documents)
    if not keep_ids:   # its patient-name list is PhysioNet's: other patients must not get those
        config = re.sub(r"(?m)^PID to patient name mapping = y", "PID to patient name mapping = n",
                        config)
    (copy / "o.config").write_text(config, encoding="latin-1")
    run.version += ", patient-name list " + ("on" if keep_ids else "off")
    records, keys = deid_records(documents, keep_ids)
    (copy / "x.text").write_text(records, encoding="latin-1")
    (copy / "startup.text").write_text(
        f"START_OF_RECORD=1||||1||||\nSeen today.\n{_RECORD_END}\n", encoding="latin-1")
    env = peer_env()
    startups, totals = [], []
    for _ in range(max(1, repeats)):
        if before_each is not None:
            before_each()
        (copy / "x.phi").unlink(missing_ok=True)      # each run must write its own
        startup, rc0 = timed_peer("deid.pl (start-up)", pinned([perl, "deid.pl", "startup", "o.config"]),
                              copy, env)
        total, rc = timed_peer("deid.pl", pinned([perl, "deid.pl", "x", "o.config"]), copy, env)
        if rc or rc0 or not (copy / "x.phi").is_file():
            run.skipped = f"deid.pl failed (exit code {rc or rc0})"
            return run
        startups.append(startup)
        totals.append(total)
    startup, total = min(startups), min(totals)
    run.run_seconds, run.startup_runs = totals, startups
    lengths = {doc.id: len(doc.text) for doc in documents}
    run.spans = deid_spans((copy / "x.phi").read_text(encoding="latin-1"), keys, lengths)
    run.startup_seconds, run.tag_seconds = startup, max(total - startup, 0.0)
    return run


# --------------------------------------------------------------------------------------------
# Timed commands and their inputs

def run_deid(model: Path, folder: Path, out: Path, workers: int) -> tuple[float, float]:
    """Wall seconds and peak RSS (MiB, largest process) of one ``itdeid deid`` run (one worker:
    pinned to one core, as deid.pl is)."""
    if out.exists():
        shutil.rmtree(out)
    command = [sys.executable, "-m", "itdeid.cli", "deid", str(folder.resolve()), "--out",
               str(out.resolve()), "--model", str(Path(model).resolve()), "--workers", str(workers),
               "--format", "jsonl"]
    if workers == 1:
        command = pinned(command)
    start = time.perf_counter()
    # run outside the checkout: `python -m` puts the working folder first on sys.path, and the
    # source tree's itdeid/ lacks the features/ and gazetteers/ an installed copy has
    process = subprocess.Popen(command, cwd=folder.parent, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
    stderr = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        sys.exit(f"bench: itdeid deid failed ({process.returncode}): "
                 f"{stderr.decode(errors='replace')[-500:]}")
    return seconds, usage.ru_maxrss / 1024          # ru_maxrss is in KiB on Linux


def run(command, cwd: Path | None = None, env: dict | None = None) -> float:
    """Seconds ``command`` took, its output left out; a failure stops the script that called,
    naming the command and with the last lines of its errors."""
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True)
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()[-5:]
        raise SystemExit(f"{Path(sys.argv[0]).name}: `{' '.join(map(str, command))}` failed (status "
                         f"{done.returncode}):\n" + "\n".join(tail))
    return time.perf_counter() - started


def checkout(rev: str, where: Path) -> Path:
    """A detached worktree of ``rev`` with the package's data folders linked in, as an installed
    copy has them."""
    subprocess.run(["git", "worktree", "add", "--detach", "--quiet", str(where), rev], cwd=ROOT, check=True)
    for data in ("features", "gazetteers"):
        link = where / "itdeid" / data
        if not link.exists():
            link.symlink_to(Path("..") / data)
    return where


def git_name(rev: str) -> str:
    return subprocess.run(["git", "rev-parse", "--short", rev], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout.strip()


def make_notes(folder: Path, n: int, numbers: int = 0) -> None:
    """``n`` one-line notes, 1,000 a subfolder; with ``numbers``, each ends with that many
    numbers of its own (new words for every table of per-word values)."""
    for i in range(n):
        sub = folder / f"part-{i // 1000:04d}"
        if i % 1000 == 0:
            sub.mkdir(parents=True)
        own = "".join(f" {1_000_000 + i * numbers + j}" for j in range(numbers))
        (sub / f"note-{i:07d}.txt").write_text(
            f"Pt seen in clinic on 3/{i % 28 + 1}/2090, stable. Plan per team, item {i}.{own}\n")


def load_fold(path: Path) -> dict[str, list[np.ndarray]]:
    """Stage name -> label codes per test document, from one fold's checkpoint."""
    with np.load(path, allow_pickle=False) as data:
        bounds = np.cumsum(data["__lengths__"])[:-1]
        return {stage: np.split(data[stage].astype(np.int64), bounds)
                for stage in data.files if stage != "__lengths__"}
