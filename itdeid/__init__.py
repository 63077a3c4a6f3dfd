"""itdeid: de-identification of clinical notes with iteratively trained boosted decision trees.

The design follows Szarvas, Farkas & Busa-Fekete (JAMIA 2007). What happens to a note, in order,
is declared once in :mod:`itdeid.pipeline` (``itdeid pipeline`` prints it). The packages follow
the data: ``formats`` (read and write corpora) -> ``text`` (tokens, layout, spans, pieces) ->
``featurize`` (feature columns and word tables; ``templates`` is the regular-expression engine
they and the passes use) -> ``estimators`` (token model, ensemble with its context stage,
iterative system, learners, operating point) -> ``passes`` (the rules after the model, one module
a pass) -> ``render`` (output formats, surrogates) and ``evaluation`` (scores, reports).
``model_folder`` reads and writes trained models, ``training`` holds the recipe, presets and
cross-validation, ``batch`` runs folders of notes, ``cli`` the commands, ``synth`` the synthetic
corpora.

The Python API in brief (README, "Python API"): :class:`Document` and :class:`Span` carry notes
and PHI; :func:`load_model` gives a trained model (the installed one by default), whose
``predict(documents)`` gives each note's spans; :func:`itdeid.render.outputs.render` writes a note with
them in any output format of ``itdeid deid``.
"""
from itdeid.document import LABELS, NON_PHI, PHI_CLASSES, Document, Span

__version__ = "0.1.0"

__all__ = ["Document", "Span", "PHI_CLASSES", "NON_PHI", "LABELS", "load_model", "__version__"]


def load_model(folder=None):
    """The model saved in ``folder`` by ``itdeid train`` (or ``save``), or, with None or
    ``"default"``, the model installed with itdeid (:func:`itdeid.resources.model_folder`).
    Imported on first use: ``import itdeid`` stays light (the models pull in xgboost and
    scikit-learn)."""
    from itdeid.model_folder.load import load_model as load
    from itdeid.resources import model_folder
    return load(model_folder(folder))
