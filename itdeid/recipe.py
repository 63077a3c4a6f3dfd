"""The recommended recipe: what ``itdeid train CORPUS --out MODEL`` trains when given no options.

A de-identifier's first duty is recall (a missed name is a privacy breach), so the default is
the configuration issue G's ablation (experiments/levers.py, 10-fold cross-validation grouped by
patient on the PhysioNet split; numbers in experiments/README.md) ranks real PHI best with, run
at an operating point chosen for recall rather than by argmax. (The context pass's row is
measured on part of the folds so far: experiments/results/g-levers/partial.md.)

- **feature groups**: the paper's, plus ``casing``, ``census`` and ``lexicon``
  (:data:`itdeid.featurize.RECALL_GROUPS`): on real nursing notes they took the precision at
  pooled token recall 0.90 from 39 % to 58 %;
- **the context pass** (:mod:`itdeid.context_pass`): a second model reads the first pass's
  probabilities of the neighbours and of the note's other occurrences of a word, and the
  model's probabilities are the mean of both passes. Both passes tag every token at once, so
  there is no previous-class feature (``previous="none"``);
- **the operating point**: the P(PHI) threshold at which out-of-fold predictions of an inner
  split grouped by patient find 97 % of the training PHI tokens (:mod:`itdeid.operating_point`);
- **the identifier templates** (:mod:`itdeid.identifiers`): fixed-shape HIPAA identifiers
  (e-mail, URL, IP, SSN, phone and fax, ZIP, street, numbers after MRN or policy, ...) are
  tagged even where a model trained on notes that never held one says otherwise.

Each part can be turned off from the command line (``--features paper``,
``--no-context-pass``, ``--argmax``, ``--no-identifiers``); the paper's own configuration is
``--features paper --no-context-pass --argmax --no-identifiers``. On the 2-core machine the
recipe trains on the PhysioNet split in a few minutes: one first-pass model per inner fold, the
two final models, and one second-pass model per inner fold for the threshold.
"""
from __future__ import annotations

from itdeid.featurize import GROUPS, RECALL_GROUPS

#: The TokenModel parameters of the recipe.
RECIPE = dict(groups=GROUPS + RECALL_GROUPS, context_pass=True, context_weight=0.5,
              previous="none", target_recall=0.97, identifiers=True)
