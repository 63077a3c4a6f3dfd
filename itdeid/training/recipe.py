"""The recommended recipe: what ``itdeid train CORPUS --out MODEL`` trains when given no options.

A de-identifier's first duty is recall (a missed name is a privacy breach), so the default is
the configuration that ranks real PHI best in the ablation of experiments/levers.py and
experiments/rankings.py (10-fold cross-validation grouped by patient; the numbers are in
experiments/NOTEBOOK.md and experiments/results/g-levers/), run at an operating point chosen for
recall rather than by argmax:

- **feature groups**: the paper's, plus ``casing``, ``census`` and ``lexicon``
  (:data:`itdeid.featurize.RECALL_GROUPS`), which raise the precision at high recall on real
  nursing notes; and ``spelling`` and ``measure`` (announcing words misspelled, measurements
  written like dates), which raise it again with the trees and synthetic records below;
- **one re-substituted copy** of each training note with PHI (:mod:`itdeid.estimators.resubstitute`):
  every gold span replaced by a fresh stand-in, so the trees learn the context of a name more
  than the training notes' names;
- **an ensemble of the inner fold models** (:mod:`itdeid.estimators.ensemble`): the five models of an inner
  split grouped by patient are kept and averaged, which ranks the rare PHI better than any
  single model did, at no fit more than a thresholded single model costs. The
  members tag every token at once (``previous="none"``), so tagging needs no left-to-right
  decoding;
- **the context stage stacked on the ensemble's mean** (``context_pass``,
  :mod:`itdeid.estimators.context_pass`): it reads the mean probabilities of the tokens around
  and of the note's other occurrences of a word, trained on the members' out-of-fold
  probabilities, so the second half of a name or the town before a state is not left to the
  token's own features;
- **two-step learners** (``two_step`` of :class:`~itdeid.estimators.model.TokenModel`,
  :mod:`itdeid.estimators.learners`): each model says PHI or not with a two-class model and names the class
  with a second model over the PHI tokens, asked only where P(PHI) may pass a threshold. They
  rank PHI as the nine-class learners do with far fewer trees, so training and tagging are
  faster;
- **slower, shallower trees** (400 trees of depth 4 at learning rate 0.1, for the members, their
  class models and the context stage; the learners' own default, the paper's, is 200 of depth
  6 at 0.2): chosen for the PHI detector by experiments/detector_params.py, where one detector
  with them ranked the rare PHI far better; in the whole recipe the averaging of members takes
  part of that gain already, and the rest is kept for about the same training time;
- **the operating point**: the P(PHI) threshold at which the members' out-of-fold predictions
  find 91 % of the training PHI tokens (:mod:`itdeid.estimators.operating_point`): with the rules after the
  decisions, the lowest target whose recall stays at 0.95 or more in 95 % of the draws of the
  patients. The notes are tagged by the members' mean, which scores rare PHI higher than one
  member does, so recall on unseen notes lands above that target;
- **synthetic records** (``itdeid train --synthetic``, :func:`itdeid.synth.supplement`): 100
  generated records, half of them ICU nursing notes, added to the training notes, while the
  threshold is still chosen on the corpus's own notes (synthetic PHI is easier than real PHI,
  so a threshold set over it finds less of the real PHI than the target says). They raise the
  precision at high recall, for a longer training. Three in ten of the nursing notes with PHI
  name the patient by surname after 'pt' or a title in a sentence ('Pt Kowalczyk afebrile';
  ``--synthetic-named``), which real nursing notes seldom do, so the model learns such names
  without losing clinical words after 'pt';
- **one refitted context stage, and a screen** (``stage_refit`` and ``screen`` of
  :class:`~itdeid.estimators.ensemble.InnerEnsemble`): the context stage tags with one model refitted on
  all the inner folds' rows instead of the mean of five, and member 0 judges every token first,
  the rest of the ensemble only tokens within three of one it gives P(PHI) >= the screen. The
  refit ranks PHI as the five stage models did. The screen is 0.01, the most the threshold
  allows (a tenth of it): member 0 passes a small share of the tokens on, so tagging is faster
  with the same recall. Member 0's first rounds judging every token first (``screen_rounds``)
  would be faster again but lost PHI, so it is not in the recipe;
- **small class models** (``typer_estimators`` and ``typer_learning_rate`` of
  :class:`~itdeid.estimators.model.TokenModel`): each member names the class of a PHI token with 50
  trees at learning rate 0.3 instead of its detector's 400 at 0.1. Eight classes grow eight
  trees a round, so full-size class models would take a large share of the tree time; the
  small ones rank PHI as the recipe's reseed does, and tag and train faster;
- **the identifier templates** (:mod:`itdeid.passes.identifiers`): fixed-shape HIPAA identifiers
  (e-mail, URL, IP, SSN, phone and fax, ZIP, street, numbers after MRN or policy, dictation
  initials, ...) are tagged even where a model trained on notes that never held one says otherwise;
- **names kept whole** (:mod:`itdeid.passes.name_gaps`): a capitalized word standing alone between
  two PHI tokens on one line ('Harborview Cardiology Associates') is tagged with them, so a
  released note keeps no piece of a name;
- **surnames after 'pt'** (:mod:`itdeid.passes.subject_names`): a census surname right after 'pt' or
  'patient' that the training notes never use as ordinary text is the patient's name ('Pt
  Kowalczyk resting', 'pt o'dwyer oob'), which the training notes may never write; the rule
  finds such names that the model alone misses, clinical words after 'pt' untouched
  (``experiments/named_subjects.py`` probes it).

Each part can be changed from the command line (``--features paper``, ``--resubstitutions 0``,
``--members 0``, ``--no-context-pass``, ``--no-two-step``, ``--n-estimators``, ``--max-depth``,
``--learning-rate``, ``--typer-estimators``, ``--typer-learning-rate``, ``--synthetic 0``,
``--target-recall``, ``--argmax``, ``--no-identifiers``,
``--no-join-gaps``, ``--no-subject-names``, ``--draws 2``: the whole ensemble twice with other random draws, left out of the default because
its gain per fold is within noise for about twice the training and tagging time,
experiments/NOTEBOOK.md;
``--members 0 --resubstitutions 0`` stacks the same context stage on a single model); the paper's own
configuration is ``--features paper --resubstitutions 0 --members 0 --no-context-pass --argmax
--no-identifiers``.
"""
from __future__ import annotations

from itdeid.estimators.ensemble import InnerEnsemble
from itdeid.featurize import GROUPS, RECALL_GROUPS
from itdeid.estimators.model import TokenModel

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
