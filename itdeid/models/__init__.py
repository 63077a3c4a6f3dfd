"""Models shipped with itdeid: ``default/`` is what ``itdeid deid`` uses without ``--model``.

It is rebuilt by ``itdeid train --preset default --out itdeid/models/default`` (see
:mod:`itdeid.presets`); its ``MODEL_CARD.md`` says what it was trained on and how it scores. The
files are JSON and compressed xgboost UBJSON: nothing in them runs code when loaded.
"""
