"""The recommended recipe: what ``itdeid train CORPUS --out MODEL`` trains when given no options.

A de-identifier's first duty is recall (a missed name is a privacy breach), so the default is
the configuration issue G's ablation (experiments/levers.py and experiments/rankings.py, 10-fold
cross-validation grouped by patient on the PhysioNet split; numbers in experiments/README.md)
ranks real PHI best with, run at an operating point chosen for recall rather than by argmax:

- **feature groups**: the paper's, plus ``casing``, ``census`` and ``lexicon``
  (:data:`itdeid.featurize.RECALL_GROUPS`): on real nursing notes they took the precision at
  pooled token recall 0.90 from 39 % to 58 %; and ``spelling`` and ``measure`` (announcing
  words misspelled, measurements written like dates), added to the recipe below with its
  trees and synthetic records in session 14: precision at pooled recall 0.95 59.1 % against
  57.5 % (per fold +4.4 +- 2.0 points, 8 of 10 folds ahead; at 0.90 +5.0 +- 1.5, 9 of 10;
  experiments/results/g-levers/rankings-shallow-syn-trial.md);
- **one re-substituted copy** of each training note with PHI (:mod:`itdeid.resubstitute`):
  every gold span replaced by a fresh stand-in, so the trees learn the context of a name more
  than the training notes' names (precision at recall 0.90 from 58 % to 69 %);
- **an ensemble of the inner fold models** (:mod:`itdeid.ensemble`): the five models of an inner
  split grouped by patient are kept and averaged, which ranked the rare PHI better than any
  single model or the context pass did, at a quarter of the context pass's training time. The
  members tag every token at once (``previous="none"``), so tagging needs no left-to-right
  decoding;
- **a context stage stacked on the ensemble's mean** (``context_pass`` of
  :class:`~itdeid.ensemble.InnerEnsemble`): it reads the mean probabilities of the tokens around
  and of the note's other occurrences of a word, trained on the members' out-of-fold
  probabilities, so the second half of a name or the town before a state is not left to the
  token's own features (precision at pooled recall 0.90 on PhysioNet from 67 % to 75 %, 9 of
  10 folds better; the best 8-way F of the ablation at argmax);
- **two-step learners** (``two_step`` of :class:`~itdeid.model.TokenModel`,
  :mod:`itdeid.learners`): each model says PHI or not with a two-class model and names the class
  with a second model over the PHI tokens, asked only where P(PHI) may pass a threshold. Over
  the ten folds they rank PHI as the nine-class learners do (precision at pooled recall 0.90
  76.5 % against 74.7 %, at 0.95 49.4 % against 47.9 %; per fold +1.9 +- 2.6 and -0.6 +- 3.5
  points), with about a ninth of the trees: training on the dev split in 2.6 minutes against
  7.3, tagging 1.7 times as fast;
- **slower, shallower trees** (400 trees of depth 4 at learning rate 0.1, for the members, their
  class models and the context stage; the learners' own default, the paper's, is 200 of depth
  6 at 0.2): chosen for the PHI detector by experiments/detector_params.py, where one detector
  with them ranked the rare PHI far better (precision at pooled recall 0.90 over six folds
  64.3 % against 53.9 %, ahead in 6 of 6 folds). In the whole recipe the averaging of five
  members had already taken much of that gain: precision at pooled recall 0.95 54.2 %
  against 49.4 % (per fold +3.1 +- 2.7 points, 7 of 10 folds ahead; at 0.90 -0.8 +- 2.2),
  in about the same training time (experiments/results/g-levers/rankings-shallow.md);
- **the operating point**: the P(PHI) threshold at which the members' out-of-fold predictions
  find 91 % of the training PHI tokens (:mod:`itdeid.operating_point`; 93 % from session 13 to
  session 38, when the rules after the decisions had made 0.91 the lowest target whose recall
  stays at 0.95 or more in 95 % of the draws of the patients: binary P 86.18 at R 96.10 out of
  fold, instances 97.17, recall's 5th percentile 95.09; experiments/README.md, session 38). The
  figures of this paragraph are the session-13 choice's. The notes are tagged
  by the members' mean, which scores rare PHI higher than one member does, so recall on unseen
  notes lands above that target. The recipe (synthetic records below included, identifier
  templates not yet applied), over the ten folds: 95.3 % of the PHI tokens and 96.4 % of the
  PHI instances, at 56.3 % token precision and 67.4 8-way F (row
  BAG5_CTX_TWO_STEP_SHALLOW_SYN_REAL_TRIAL_OOF,
  experiments/results/g-levers/thresholds-shallow-syn-trial.md; without spelling and measure
  95.3 % at 54.4 % and 66.0; the session-12 recipe, with the paper's trees and no synthetic
  records, 96.3 % at 34.9 % and 48.5). The target is the lowest whose pooled held-out recall
  in those patient-grouped folds stays at 0.95 or more (0.92 gives 94.9 %); 0.94 gives 95.8 %
  at 50.1 %;
- **synthetic records** (``itdeid train --synthetic``, :func:`itdeid.synth.supplement`): 100
  generated records, half of them ICU nursing notes, added to the training notes, while the
  threshold is still chosen on the corpus's own notes (synthetic PHI is easier than real PHI,
  so a threshold set over it finds less of the real PHI than the target says). Two rows of the
  ablation saw the same gain: precision at pooled recall 0.95 +5.1 +- 2.7 points (7 of 10
  folds) with the paper's trees, +4.3 +- 4.5 (6 of 10) with the shallow ones (57.5 % against
  54.2 %); at the target 0.93, 95.3 % token recall, 96.4 % instances, 54.4 % precision and
  66.0 8-way F against 95.5 / 96.7 / 49.9 / 62.7 without them; at target 0.94 both find 96.5 %
  of the PHI tokens, at 47.5 % precision against 42.7 %
  (experiments/results/g-levers/rankings-shallow-syn.md, thresholds-shallow-syn.md). Training
  takes about 1.6 times as long. Three in ten of the nursing notes with PHI name the patient
  by surname after 'pt' or a title in a sentence ('Pt Murphy afebrile'; ``--synthetic-named``,
  session 27), which the PhysioNet split never does: in the same ten folds, precision at pooled
  recall 0.95 62.3 % against 58.7 % (per fold +1.7 +- 3.1 points, 6 of 10; at 0.90 +0.8 +-
  1.4, experiments/results/g-levers/rankings-named.md), within noise, and on
  ``experiments/named_subjects.py``'s probes (with the rule below) the retrained model finds
  94.4 % of the names against 93.1 %, and tags 2.8 % of the clinical words against 5.3 %;
- **one refitted context stage, and a screen** (issue I, session 14; ``stage_refit`` and
  ``screen`` of :class:`~itdeid.ensemble.InnerEnsemble`): the context stage tags with one model
  refitted on all the inner folds' rows instead of the mean of five, and member 0 judges every
  token first, the rest of the ensemble only tokens within three of one it gives P(PHI) >=
  0.001 (never above a tenth of the threshold). Over the ten folds
  (experiments/results/g-levers/rankings-refit-screens.md, thresholds-refit*.md) the refit
  ranks PHI as the five stage models did (precision at pooled recall 0.95 +1.8 +- 1.4 points,
  at 0.90 -1.4 +- 1.2) and at the target finds 95.6 % of the PHI tokens and 96.6 % of the
  instances at 55.8 % precision (five stage models: 95.3 / 96.4 / 56.3); the screen of 0.001
  changes none of these scores. Since session 40 the screen is 0.01, the most the threshold
  allows (a tenth of 0.102): member 0 passes 6 % of the tokens on instead of a fifth, tagging
  is about 1.17 times as fast, and over the ten folds at the target 0.91 (the recipe trained
  for it: experiments/results/g-levers/thresholds-recipe-rules.md against
  thresholds-screen-0.001.md) binary token P / R 86.25 / 96.10 against 86.04 / 96.10, PHI
  instances 97.17 both, 8-way F 88.06 against 87.95. Member 0's first 100 rounds judging
  every token first (``screen_rounds``) would be about 1.06 times faster again, but lost a PHI
  instance and two PHI tokens in those folds (96.01 / 97.08), so it is not in the recipe;
- **small class models** (issue I, session 19; ``typer_estimators`` and ``typer_learning_rate``
  of :class:`~itdeid.model.TokenModel`): each member names the class of a PHI token with 50
  trees at learning rate 0.3 instead of its detector's 400 at 0.1. Eight classes grow eight
  trees a round, and these class models were about a third of the recipe's tree time. Over
  the ten folds (experiments/results/g-levers/rankings-typer50.md, thresholds-typer50.md) they
  rank PHI as the recipe's reseed does (per fold against it +0.4 +- 4.4 points at pooled recall
  0.95, -0.6 +- 2.0 at 0.90) and at the target find 95.2 % of the PHI tokens and 96.4 % of the
  instances at 56.5 % precision, 8-way F 67.6 (the recipe before them: 95.5 / 96.5 / 56.1 /
  67.2; its reseed 95.3 / 56.6 / 67.5); tagging is 1.17 times as fast and training 109 s
  against 125 (experiments/results/bench-models-typer-screener.md, train-time-typer-screener.md);
- **the identifier templates** (:mod:`itdeid.identifiers`): fixed-shape HIPAA identifiers
  (e-mail, URL, IP, SSN, phone and fax, ZIP, street, numbers after MRN or policy, dictation
  initials, ...) are tagged even where a model trained on notes that never held one says otherwise;
- **names kept whole** (:mod:`itdeid.name_gaps`): a capitalized word standing alone between
  two PHI tokens on one line ('Harborview Cardiology Associates') is tagged with them, so a
  released note keeps no piece of a name (session 17; one token changed on PhysioNet's
  out-of-fold decisions, the sample letters' institution names made whole);
- **surnames after 'pt'** (:mod:`itdeid.subject_names`): a census surname right after 'pt' or
  'patient' that the training notes never use as ordinary text is the patient's name ('Pt
  Murphy resting', 'pt o'brien oob'), which the PhysioNet split never writes. On
  ``experiments/named_subjects.py``'s 1,800 probe names the shipped model found 65.8 % of the
  names and 93.1 % with the rule, clinical words after 'pt' untouched (session 27; what it
  changes in the PhysioNet split's 10 folds: experiments/README.md, session 27).

Each part can be changed from the command line (``--features paper``, ``--resubstitutions 0``,
``--members 0``, ``--no-context-pass``, ``--no-two-step``, ``--n-estimators``, ``--max-depth``,
``--learning-rate``, ``--typer-estimators``, ``--typer-learning-rate``, ``--synthetic 0``,
``--target-recall``, ``--argmax``, ``--no-identifiers``,
``--no-join-gaps``, ``--no-subject-names``, ``--draws 2``: the whole ensemble twice with other random draws, left out of the default because
its gain per fold is within noise for 1.9 times the training and 1.5 times the tagging time,
experiments/README.md, session 16;
``--members 0 --resubstitutions 0`` keeps the context pass of sessions 7-8 on a single model); the paper's own
configuration is ``--features paper --resubstitutions 0 --members 0 --no-context-pass --argmax
--no-identifiers``.
"""
from __future__ import annotations

from itdeid.ensemble import InnerEnsemble
from itdeid.featurize import GROUPS, RECALL_GROUPS
from itdeid.model import TokenModel

#: The member TokenModel's parameters of the recipe.
MEMBER = dict(groups=GROUPS + RECALL_GROUPS, previous="none", resubstitutions=1, two_step=True,
              n_estimators=400, max_depth=4, learning_rate=0.1, typer_estimators=50, typer_learning_rate=0.3)
#: The ensemble's parameters of the recipe.
RECIPE = dict(members=5, context_pass=True, target_recall=0.91, identifiers=True, synthetic=100,
              synthetic_nursing=0.5, synthetic_named=0.3, stage_refit=True, screen=1e-2, screen_rounds=None,
              draws=1, join_gaps=True, subject_names=True)


def recipe_model(**member_params) -> InnerEnsemble:
    """A fresh, unfitted estimator of the recipe; ``member_params`` are TokenModel parameters
    of its members (``n_jobs``, ``n_estimators``, ``random_state``, ...) over :data:`MEMBER`.

    The recipe's synthetic records are training data, not a part of the estimator: ``itdeid
    train`` adds ``RECIPE["synthetic"]`` records of :func:`itdeid.synth.supplement` to the
    corpus and fits with ``calibrate_on`` flagging the corpus's own notes."""
    return InnerEnsemble(TokenModel(**{**MEMBER, **member_params}), folds=RECIPE["members"],
                         context_pass=RECIPE["context_pass"], target_recall=RECIPE["target_recall"],
                         identifiers=RECIPE["identifiers"], stage_refit=RECIPE["stage_refit"],
                         screen=RECIPE["screen"], screen_rounds=RECIPE["screen_rounds"], draws=RECIPE["draws"],
                         join_gaps=RECIPE["join_gaps"], subject_names=RECIPE["subject_names"])
