"""itdeid: de-identification of clinical notes with iteratively trained boosted decision trees.

The design follows Szarvas, Farkas & Busa-Fekete (JAMIA 2007). The data flow is one module a
stage: formats (read) -> tokens -> featurize -> model -> iterate -> vote -> standardize -> spans
-> formats (write) / evaluate.

The Python API in brief (README, "Python API"): :class:`Document` and :class:`Span` carry notes
and PHI; :func:`load_model` gives a trained model (the installed one by default), whose
``predict(documents)`` gives each note's spans; :func:`itdeid.outputs.render` writes a note with
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
    from itdeid.deidentifier import load_model as load
    from itdeid.resources import model_folder
    return load(model_folder(folder))
