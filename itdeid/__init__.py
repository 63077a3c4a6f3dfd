"""itdeid: de-identification of clinical notes with iteratively trained boosted decision trees.

The design follows Szarvas, Farkas & Busa-Fekete (JAMIA 2007). The data flow is one module a
stage: formats (read) -> tokens -> featurize -> model -> iterate -> vote -> standardize -> spans
-> formats (write) / evaluate.
"""
from itdeid.document import LABELS, NON_PHI, PHI_CLASSES, Document, Span

__version__ = "0.1.0"

__all__ = ["Document", "Span", "PHI_CLASSES", "NON_PHI", "LABELS", "__version__"]
