"""A census surname right after 'pt' or 'patient' is tagged PATIENT (itdeid.passes.subject_names)."""
import numpy as np
import pytest

from itdeid.document import LABELS, Document
from itdeid.featurize import tokenize_document
from itdeid.passes.subject_names import tag_named_subjects


def _tagged(text: str, known=frozenset()) -> list[str]:
    td = tokenize_document(Document("n", text, []))
    codes = tag_named_subjects(td, np.zeros(len(td.tokens), dtype=int), known.__contains__)
    return [t.text for t, c in zip(td.tokens, codes) if c == LABELS.index("PATIENT")]


@pytest.mark.parametrize("text,names", [
    ("NPN: Pt Kowalski tolerating po's.", ["Kowalski"]),
    ("pt o'dowd oob to chair", ["o'dowd"]),
    ("PT. NGUYEN RESTING QUIETLY", ["NGUYEN"]),
    ("Patient Garcia-Lopez resting", ["Garcia", "-", "Lopez"]),
    ("patient  hernandez c/o pain", ["hernandez"]),
])
def test_a_surname_after_pt_is_the_patient(text, names):
    assert _tagged(text) == names


@pytest.mark.parametrize("text", [
    "Pt alert and oriented",        # an everyday English word
    "pt\nKowalski resting",         # another line
    "pt, Kowalski resting",         # a comma between
    "Dr Kowalski aware",            # no subject word (the model's titles)
    "Kowalski resting",
])
def test_not_after_the_subject_or_not_a_surname(text):
    assert _tagged(text) == []


def test_a_word_the_training_notes_use_is_left_to_the_model():
    """'foley' and 'vent' are census surnames too: the notes' own vocabulary keeps them out."""
    assert _tagged("pt foley draining, pt vent settings", known={"foley", "vent"}) == []
    assert _tagged("pt foley draining") == ["foley"]


def test_a_word_already_phi_keeps_its_class():
    td = tokenize_document(Document("n", "Pt Kowalski resting", []))
    codes = np.array([0, LABELS.index("DOCTOR"), 0])
    assert tag_named_subjects(td, codes, frozenset().__contains__).tolist() == codes.tolist()


@pytest.mark.parametrize("text, names", [
    ("Thank you for asking me to see Mr. Brown again.", [("Brown", "PATIENT")]),
    ("Dictated by Dr. Hannah Abernathy today", [("Hannah", "DOCTOR"), ("Abernathy", "DOCTOR")]),
    ("Mr. and Mrs. Garcia-Lopez visited", [("Garcia", "PATIENT"), ("-", "PATIENT"), ("Lopez", "PATIENT")]),
    ("discussed with Dr. K and Ms O'Dowd", [("K", "DOCTOR"), ("O'Dowd", "PATIENT")]),
    # capitals: 'MR' and 'MS' are mitral regurgitation and mental status as often as titles
    ("SEVERE MR. PT HAS MRSA ; ALTERED MS. ASPIRATION PRECAUTIONS", []),
    ("Mr. and the team ; Dr.\nSmith", []),
    # an everyday English word, or a word of the training notes that is no census name
    ("Dr. Office visit ; Mrs. Denies pain", []),
    # after a title with its full stop, an everyday word that is a census surname is a name
    ("She will see Dr. Yellow in 1 week ; Ms. Mask was admitted", [("Yellow", "DOCTOR"), ("Mask", "PATIENT")]),
    ("She will see Dr Yellow in 1 week ; MS. MASK", []),
])
def test_the_capitalized_word_after_a_title_is_a_name(text, names):
    """The trees missed 'Mr. Brown' in a held-out letter ('brown' is an ordinary word of the
    nursing notes): after a title written as one, capitalized words are the name, a doctor's
    after 'Dr'."""
    td = tokenize_document(Document("n", text, []))
    codes = tag_named_subjects(td, np.zeros(len(td.tokens), dtype=int), {"brown", "and", "denies"}.__contains__)
    assert [(t.text, LABELS[c]) for t, c in zip(td.tokens, codes) if c] == names
