"""What a place's name takes after it, learned from the gold (itdeid.place_endings)."""
import json

import numpy as np
import pytest

from itdeid.document import LABELS, Document, Span
from itdeid.ensemble import InnerEnsemble
from itdeid.errors import UserError
from itdeid.place_endings import ENDINGS, MIN_LEFT_OUT, check_kinds, left_out, untag_endings
from itdeid.featurize import tokenize_document
from itdeid.model import TokenModel

from helpers import tiny_corpus

LOC, HOSP, DOC, PHONE = (LABELS.index(c) for c in ("LOCATION", "HOSPITAL", "DOCTOR", "PHONE"))


def _note(i: int, whole: bool, times: int = 1) -> Document:
    """'Transferred from Calvert Hospital today': the PhysioNet gold marks 'Calvert' (whole=False),
    the i2b2 gold 'Calvert Hospital'."""
    text, spans = "", []
    for _ in range(times):
        start = len(text) + len("Transferred from ")
        text += f"Transferred from Calvert{'abcdefghijklmnopqrstuvwxyz'[i % 26]} Hospital today .\n"
        end = text.index(" Hospital", start) + (len(" Hospital") if whole else 0)
        spans.append(Span(start, end, "LOCATION"))
    return Document(f"n{i}", text, spans)


def test_the_gold_decides_whether_the_word_of_a_places_kind_is_left_out():
    apart = [tokenize_document(_note(i, whole=False)) for i in range(MIN_LEFT_OUT)]
    whole = [tokenize_document(_note(i, whole=True)) for i in range(MIN_LEFT_OUT + 1)]
    assert left_out(apart) == ["facility word"]
    assert left_out(apart[:-1]) == []                   # too few to be a convention
    assert left_out(whole) == []
    assert left_out(apart + whole) == []                # taken in more often than not


def test_a_ward_number_after_a_building_is_its_own_kind():
    def ward(i, whole):
        text = f"transfer to Quartermain {i % 9 + 1} today, call 410 555-0100 ."
        end = text.index(" today") if whole else text.index(" ", text.index("Quartermain"))
        spans = [Span(text.index("Quartermain"), end, "LOCATION"), Span(text.index("410"), text.index(" ."), "PHONE")]
        return tokenize_document(Document(f"w{i}", text, spans))
    assert left_out([ward(i, whole=False) for i in range(3)]) == ["ward number"]
    assert left_out([ward(i, whole=True) for i in range(3)]) == []


@pytest.mark.parametrize("text, tagged, kept", [
    ("from CALVERT HOSPITAL ER today", {"CALVERT": LOC, "HOSPITAL": HOSP, "ER": HOSP}, ["CALVERT"]),
    ("Greater Baltimore Med Ctr", {"Greater": LOC, "Baltimore": LOC, "Med": LOC, "Ctr": LOC},
     ["Greater", "Baltimore"]),
    ("at the Hospital of Saint Raphael", {"Hospital": HOSP, "of": HOSP, "Saint": HOSP, "Raphael": HOSP},
     ["Hospital", "of", "Saint", "Raphael"]),                   # the kind begins the name
    ("Dr Calvert Hospital", {"Calvert": DOC, "Hospital": DOC}, ["Calvert", "Hospital"]),  # no place
    ("went to Calvert\nHospital records", {"Calvert": LOC, "Hospital": LOC}, ["Calvert", "Hospital"]),
    ("TRANSFER TO QUARTERMAIN 3 TODAY", {"QUARTERMAIN": LOC, "3": LOC}, ["QUARTERMAIN"]),
    ("back to Ward3.", {"Ward": LOC, "3": LOC}, ["Ward"]),
    ("CELLULAR- 410 202-6694", {"-": LOC, "410": PHONE, "202-6694": PHONE}, ["-", "410", "202-6694"]),
    ("Calvert 410 202-6694", {"Calvert": LOC, "410": PHONE, "202-6694": PHONE}, ["Calvert", "410", "202-6694"]),
])
def test_a_tagged_run_of_endings_after_a_tagged_place_is_untagged(text, tagged, kept):
    td = tokenize_document(Document("n", text, []), gold=False)
    codes = np.array([tagged.get(t.text, 0) for t in td.tokens])
    out = untag_endings(td, codes, list(ENDINGS))
    assert [t.text for t, c in zip(td.tokens, out) if c] == kept
    assert [t.text for t, c in zip(td.tokens, codes) if c] == list(tagged)     # a copy


def test_an_ensemble_learns_it_from_its_own_notes_keeps_it_and_tags_by_it(tmp_path):
    """Only the notes ``calibrate_on`` flags count (synthetic records follow i2b2's convention).
    The tiny corpus's hospitals take their 'Hospital' in, once a note: twice as many notes left
    out make the convention."""
    docs, own = [], []
    for i, doc in enumerate(tiny_corpus(16, seed=5)):
        note = _note(i, whole=i % 2 == 1, times=2)
        shift = len(doc.text)
        docs.append(Document(doc.id, doc.text + note.text, list(doc.spans) + [
            Span(s.start + shift, s.end + shift, s.type) for s in note.spans], patient=doc.patient))
        own.append(i % 2 == 0)
    model = InnerEnsemble(TokenModel(n_estimators=5, n_jobs=1, previous="none", resubstitutions=0,
                                     random_state=3), folds=2, target_recall=0.9)
    model.fit(docs, calibrate_on=own)
    assert model.place_endings_left_out_ == ["facility word"]
    model.fit(docs, calibrate_on=[not flag for flag in own])
    assert model.place_endings_left_out_ == []
    model.fit(docs, calibrate_on=own)
    model.save(tmp_path / "m")
    again = InnerEnsemble.load(tmp_path / "m")
    assert again.place_endings_left_out_ == ["facility word"]
    td = tokenize_document(Document("t", "from Calvert Hospital today", []), gold=False)
    proba = np.zeros((4, len(LABELS)), dtype=np.float32)
    proba[:, 0] = 1.0
    proba[1:3] = np.eye(len(LABELS))[LOC]                      # the trees tag 'Calvert Hospital'
    again.predict_proba_tokenized = lambda docs: [proba]
    again.set_params(identifiers=False, join_gaps=False, subject_names=False)
    assert again.predict_tokenized([td])[0].tolist() == [0, LOC, 0, 0]

    state_file = tmp_path / "m" / "ensemble.json"
    state = json.loads(state_file.read_text())
    state["place_endings_left_out"] = ["Calvert"]
    state_file.write_text(json.dumps(state))
    with pytest.raises(UserError, match="ensemble.json"):
        InnerEnsemble.load(tmp_path / "m")
    del state["place_endings_left_out"]                         # saved before session 34
    state_file.write_text(json.dumps(state))
    assert InnerEnsemble.load(tmp_path / "m").place_endings_left_out_ == []


@pytest.mark.parametrize("kinds", ["facility word", ["street"], [1], {"a": 1}])
def test_kinds_read_from_a_file_are_checked(kinds):
    with pytest.raises(ValueError, match="place_endings_left_out"):
        check_kinds(kinds)
