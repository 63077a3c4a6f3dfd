"""The data model every stage shares: a document, its text, and PHI spans over it.

Offsets are character offsets into ``Document.text`` (end exclusive), the convention of the
i2b2 2014 XML, the PhysioNet deid ``id-phi.phrase`` file and JSON Lines span files, so a span
can always be cut out of the text it annotates: ``doc.text[span.start:span.end]``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

#: The eight PHI classes of the i2b2 2006 de-identification challenge, in the order of the
#: paper's Table 2.
PHI_CLASSES: tuple[str, ...] = (
    "PATIENT", "DOCTOR", "LOCATION", "HOSPITAL", "DATE", "ID", "PHONE", "AGE",
)
#: The label of every token that is not PHI (the ninth class of the 9-way measures).
NON_PHI = "NONE"
#: All nine token labels, non-PHI first.
LABELS: tuple[str, ...] = (NON_PHI,) + PHI_CLASSES
#: Each label's code: its index in :data:`LABELS` (0 is non-PHI).
LABEL_CODE: dict[str, int] = {label: i for i, label in enumerate(LABELS)}


@dataclass(frozen=True, order=True)
class Span:
    """One PHI mention: ``text[start:end]`` is of class ``type``.

    ``type`` is always one of :data:`PHI_CLASSES`; ``subtype`` keeps the corpus's own finer
    label where it has one (i2b2 2014 ``CITY``, PhysioNet ``HCPName``), so nothing the
    annotators said is lost when corpora are mapped onto the 2006 classes.
    """

    start: int
    end: int
    type: str
    subtype: str | None = field(default=None, compare=False)

    def __post_init__(self):
        if not (0 <= self.start < self.end):
            raise ValueError(f"span offsets must satisfy 0 <= start < end, got {self.start}..{self.end}")
        if self.type not in PHI_CLASSES:
            raise ValueError(f"span type must be one of {', '.join(PHI_CLASSES)}, got {self.type!r}")


@dataclass
class Document:
    """A clinical note: its id, text and (gold or predicted) PHI spans.

    ``patient`` groups the notes of one patient, so cross-validation never puts a patient's notes
    on both sides of a fold and trusted phrases can spread along a patient's timeline. ``source``
    names the file the note came from, for error messages (never the note's text).
    """

    id: str
    text: str
    spans: list[Span] = field(default_factory=list)
    patient: str | None = None
    source: str | None = None

    def check_spans(self) -> None:
        """Raise ``ValueError`` naming the document and offsets if a span leaves the text or
        two spans overlap."""
        previous = None
        for span in sorted(self.spans):
            if span.end > len(self.text):
                raise ValueError(
                    f"document {self.id}: span {span.start}-{span.end} ends past the text "
                    f"({len(self.text)} characters)")
            if previous is not None and span.start < previous.end:
                raise ValueError(
                    f"document {self.id}: spans {previous.start}-{previous.end} and "
                    f"{span.start}-{span.end} overlap")
            previous = span
