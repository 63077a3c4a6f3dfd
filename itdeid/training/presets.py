"""Training recipes that can be rerun exactly: ``itdeid train --preset NAME --out DIR``.

``default``
    The model shipped inside the package (``itdeid/models/default``), which ``itdeid deid`` uses
    when no ``--model`` is given: the recommended recipe of :mod:`itdeid.training.recipe`, exactly what
    ``itdeid train CORPUS --skip-pass phrase_punctuation --out DIR`` trains on the shared PhysioNet
    deid split (real nursing notes, PhysioNet deid 1.1 gold standard, GPL 2.0), read from
    ``--physionet`` (default
    ``../shared/corpora/physionet-deid`` or ``$ITDEID_SHARED/corpora/physionet-deid``), with
    the recipe's 100 synthetic records (half of them discharge summaries, half nursing notes,
    invented PHI) and its threshold chosen on the real notes alone. The shipped model leaves
    out the punctuation convention of the PhysioNet gold (:mod:`itdeid.passes.phrase_punctuation`,
    which splits 'J. Cortez' at its full stop): a model trained on a team's own notes follows
    its own gold's convention, but the model every site starts from should not impose one
    corpus's, which costs token recall on notes annotated the other way (the table of
    ``experiments/pass_table.py``); ``itdeid adapt`` learns a site's convention from its
    corrections. Being that recipe, the
    10-fold cross-validation of experiments/levers.py describes it, and its card
    quotes those scores. What the model files keep of the training notes is limited as for
    any itdeid model: trees over numbers, and words seen outside PHI with statistics of those
    ordinary occurrences only.

A model card (``MODEL_CARD.md``, :mod:`itdeid.model_folder.model_card`) is written beside the model by the
same command: data and licences, settings, date, machine and code version, training time and
size, the scores of the new model on the project's hand-written held-out notes
(``experiments/heldout``, when run from a checkout, never trained on), and the cross-validated
scores, speed and misses of the recipe from the results files it names.
"""
from __future__ import annotations

import os
import time
from pathlib import Path

from itdeid.errors import UserError
from itdeid.formats import read_corpus
from itdeid.model_folder.model_card import heldout_report, write_model_card
from itdeid.training.recipe import MEMBER, RECIPE, recipe_model
from itdeid.evaluation.report import code_version
from itdeid.synth import generate, supplement

#: Each preset: the corpus (the PhysioNet split, or ``records`` synthetic records standing in for
#: it where a test has no real notes), the recipe's synthetic supplement, the seed, and the
#: passes the model is saved with switched off (``skip_passes``, see the module docstring).
PRESETS: dict[str, dict] = {
    "default": dict(physionet=True, records=0, synthetic=RECIPE["synthetic"],
                    synthetic_nursing=RECIPE["synthetic_nursing"], synthetic_named=RECIPE["synthetic_named"],
                    seed=0, skip_passes=("phrase_punctuation",)),
}


def default_physionet() -> Path:
    shared = os.environ.get("ITDEID_SHARED")
    return (Path(shared) if shared else Path("..") / "shared") / "corpora" / "physionet-deid"


def preset_corpus(name: str, physionet: str | os.PathLike | None = None) -> tuple[list, list[bool], dict]:
    """The training documents of preset ``name``, which of them the threshold is chosen on (the
    corpus's own notes, not the synthetic supplement), and a description for the card."""
    recipe = _recipe(name)
    documents, data = [], {}
    if recipe["physionet"]:
        path = Path(physionet) if physionet else default_physionet()
        if not (path / "id.text").is_file():
            raise UserError(f"{path}: no PhysioNet deid split here (id.text); the {name!r} preset "
                            "trains on it: pass --physionet FOLDER")
        documents = read_corpus(path, "physionet")
        # the folder as given: the preset is meant for the shared split, and the card says what
        # was read rather than claiming any folder passed as --physionet is it
        data["physionet"] = (f"{len(documents)} nursing notes of "
                             f"{len({d.patient for d in documents})} patients read from `{path}` "
                             "(`--physionet`), meant to be the project's shared developer split "
                             "of the PhysioNet deid 1.1 gold standard (GPL 2.0)")
    if recipe["records"]:
        documents = documents + generate(recipe["records"], seed=recipe["seed"])
        data["corpus"] = (f"{recipe['records']} records from `itdeid synth --records "
                          f"{recipe['records']} --seed {recipe['seed']}` (invented PHI; MIT, as the project)")
    calibrate = [True] * len(documents)
    if recipe["synthetic"]:
        extra = supplement(recipe["synthetic"], seed=recipe["seed"], nursing=recipe["synthetic_nursing"],
                           named=recipe.get("synthetic_named", 0.0))
        documents, calibrate = documents + extra, calibrate + [False] * len(extra)
        data["synthetic"] = (f"{len(extra)} records of `itdeid.synth.supplement` (seed "
                             f"{recipe['seed']}, {recipe['synthetic_nursing']:.0%} ICU nursing notes, "
                             f"{recipe.get('synthetic_named', 0.0):.0%} of those with PHI naming the "
                             "patient after 'pt' or a title, "
                             "the rest discharge summaries; invented PHI, MIT as the project), "
                             "not used to choose the threshold")
    return documents, calibrate, data


def train_preset(name: str, out, physionet=None, model_params: dict | None = None):
    """Train preset ``name`` (the recipe, :func:`itdeid.training.recipe.recipe_model`), save it to
    ``out`` with its model card, and return it. ``model_params``: member TokenModel
    parameters over the recipe's (``n_jobs``, ``device``)."""
    recipe = _recipe(name)
    documents, calibrate, data = preset_corpus(name, physionet)
    params = {k: v for k, v in (model_params or {}).items() if v is not None}
    model = preset_model(name, **params)
    code = code_version()           # the code that trains, not the checkout's state at the end
    start = time.perf_counter()
    model.fit(documents, calibrate_on=calibrate)
    seconds = time.perf_counter() - start
    model.save(out)
    settings = {"member": {**MEMBER, "random_state": recipe["seed"], **params}, "ensemble": RECIPE,
                "passes off": list(model.skip_passes),
                "learned threshold": round(float(model.threshold_), 6)}
    write_model_card(Path(out), name, settings, data, seconds, heldout_report(model),
                     RECIPE["target_recall"], code)
    return model


def preset_model(name: str, **member_params):
    """A fresh, unfitted estimator of preset ``name``: the recipe with the preset's seed and its
    passes switched off; ``member_params`` as :func:`itdeid.training.recipe.recipe_model`'s."""
    recipe = _recipe(name)
    model = recipe_model(**{"random_state": recipe["seed"], **member_params})
    model.skip_passes = tuple(recipe.get("skip_passes", ()))
    return model


def _recipe(name: str) -> dict:
    if name not in PRESETS:
        raise UserError(f"unknown preset {name!r}; expected one of {', '.join(PRESETS)}")
    return PRESETS[name]
