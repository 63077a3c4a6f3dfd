"""Heading entropy, trusted-phrase harvest, acronyms, trusted feature columns."""
import numpy as np
import pytest

from itdeid.document import LABELS, Document, Span
from itdeid.featurize import tokenize_document
from itdeid.estimators.iterate import acronym, harvest, heading_entropy, trusted_columns, unambiguous_headings

DOCTOR, PATIENT, HOSPITAL, DATE = (LABELS.index(c) for c in ("DOCTOR", "PATIENT", "HOSPITAL", "DATE"))

TEXT = ("ATTENDING: Kevin Leary\n"
        "HOSPITAL COURSE:\n"
        "Seen by Dr. Leary at Grand Valley Hospital on 10/12/2005 with Mr. Payne .\n"
        "Transferred back to GVH .\n")


def _doc():
    spans = []
    for phrase, kind, k in (("Kevin Leary", "DOCTOR", 0), ("Leary", "DOCTOR", 1),
                            ("Grand Valley Hospital", "HOSPITAL", 0), ("10/12/2005", "DATE", 0),
                            ("Payne", "PATIENT", 0), ("GVH", "HOSPITAL", 0)):
        start = -1
        for _ in range(k + 1):
            start = TEXT.index(phrase, start + 1)
        spans.append(Span(start, start + len(phrase), kind))
    return tokenize_document(Document("d", TEXT, spans))


def test_heading_entropy_hand_computed():
    td = _doc()
    h = heading_entropy([td])
    assert h["ATTENDING"] == (0.0, 2)                         # two DOCTOR tokens
    # under HOSPITAL COURSE: Leary(D) Grand Valley Hospital(H x3) date(D) Payne(P) GVH(H)
    p = np.array([1, 4, 1, 1]) / 7
    entropy, n = h["HOSPITAL COURSE"]
    assert n == 7 and entropy == pytest.approx(-(p * np.log2(p)).sum())
    assert unambiguous_headings([td], threshold=0.1, min_tokens=2) == {"ATTENDING"}
    assert unambiguous_headings([td], threshold=0.1, min_tokens=3) == frozenset()


def test_acronyms():
    assert acronym(["Grand", "Valley", "Hospital"]) == "gvh"
    assert acronym(["Hospital", "of", "the", "Good", "Samaritan"]) == "hgs"
    assert acronym(["Boston"]) is None


def test_harvest_from_given_labels_only():
    td = _doc()
    headings = frozenset({"ATTENDING"})
    trusted = harvest(td, td.labels, headings)
    assert trusted[("kevin", "leary")] == DOCTOR
    assert trusted[("leary",)] == DOCTOR and trusted[("kevin",)] == DOCTOR   # name parts
    assert trusted[("kl",)] == DOCTOR                                        # acronym
    assert ("grand", "valley", "hospital") not in trusted   # not under an unambiguous heading
    # at tagging time the labels are the model's predictions: nothing predicted, nothing trusted
    assert harvest(td, np.zeros(len(td), dtype=np.int8), headings) == {}


def test_harvest_after_strong_triggers_is_optional():
    td = _doc()
    assert ("leary",) not in harvest(td, td.labels, frozenset(), name_parts=False)
    assert harvest(td, td.labels, frozenset(), trust_triggers=True)[("leary",)] == DOCTOR


def test_trusted_columns_longest_match():
    td = _doc()
    trusted = {("grand", "valley", "hospital"): HOSPITAL, ("valley",): LOCATION_CODE,
               ("gvh",): HOSPITAL, ("leary",): DOCTOR}
    cols = trusted_columns(td, trusted)
    words = [t.text for t in td.tokens]
    g = words.index("Grand")
    assert cols[g:g + 3, 0].tolist() == [HOSPITAL] * 3        # the longer phrase wins over 'valley'
    assert cols[g:g + 3, 1].tolist() == [1, 2, 3]
    gvh = words.index("GVH")
    assert cols[gvh].tolist() == [HOSPITAL, 4]
    assert cols[words.index("Leary"), 0] == DOCTOR            # header mention
    assert cols[words.index("Seen"), 0] == 0


LOCATION_CODE = LABELS.index("LOCATION")
