"""What a place's name takes after it, learned from the gold (itdeid.passes.place_endings)."""
import numpy as np
import pytest

from itdeid.document import LABELS, Document, Span
from itdeid.estimators.ensemble import InnerEnsemble
from itdeid.errors import UserError
from itdeid.featurize import tokenize_document
from itdeid.passes.place_endings import ENDINGS, MIN_LEFT_OUT, check_kinds, left_out, untag_endings

from helpers import convention_ensemble, rewrite_state, tagged_after_decisions

LOC, HOSP, PHONE = (LABELS.index(c) for c in ("LOCATION", "HOSPITAL", "PHONE"))


def _note(i: int, whole: bool, times: int = 1) -> Document:
    """'transfer to Quillmoor 3 today': the PhysioNet gold marks 'Quillmoor' (whole=False)."""
    text, spans = "", []
    for _ in range(times):
        start = len(text) + len("transfer to ")
        text += f"transfer to Quillmoor {i % 9 + 1} today .\n"
        end = text.index(" today", start) if whole else text.index(" ", start)
        spans.append(Span(start, end, "LOCATION"))
    return Document(f"n{i}", text, spans)


def test_the_gold_decides_whether_a_ward_number_after_a_building_is_left_out():
    apart = [tokenize_document(_note(i, whole=False)) for i in range(MIN_LEFT_OUT)]
    whole = [tokenize_document(_note(i, whole=True)) for i in range(MIN_LEFT_OUT + 1)]
    assert left_out(apart) == ["ward number"]
    assert left_out(apart[:-1]) == []                   # too few to be a convention
    assert left_out(whole) == []
    assert left_out(apart + whole) == []                # taken in more often than not


@pytest.mark.parametrize("text, tagged, kept", [
    ("TRANSFER TO QUILLMOOR 3 TODAY", {"QUILLMOOR": LOC, "3": LOC}, ["QUILLMOOR"]),
    ("back to Ward3.", {"Ward": LOC, "3": LOC}, ["Ward"]),
    ("CELLULAR- 410 202-6694", {"-": LOC, "410": PHONE, "202-6694": PHONE}, ["-", "410", "202-6694"]),
    ("Cooksley 410 202-6694", {"Cooksley": LOC, "410": PHONE, "202-6694": PHONE}, ["Cooksley", "410", "202-6694"]),
    ("1220 Atlantic Avenue, Suite 400", {"1220": LOC, "Atlantic": LOC, "Avenue": LOC, ",": LOC, "Suite": LOC,
                                          "400": LOC}, ["1220", "Atlantic", "Avenue", ",", "Suite", "400"]),
    ("went to Quillmoor\n3 times", {"Quillmoor": LOC, "3": LOC}, ["Quillmoor", "3"]),
    ("from COOKSLEY HOSPITAL today", {"COOKSLEY": LOC, "HOSPITAL": HOSP}, ["COOKSLEY", "HOSPITAL"]),
])
def test_a_tagged_ward_number_after_a_tagged_place_is_untagged(text, tagged, kept):
    td = tokenize_document(Document("n", text, []), gold=False)
    codes = np.array([tagged.get(t.text, 0) for t in td.tokens])
    out = untag_endings(td, codes, list(ENDINGS))
    assert [t.text for t, c in zip(td.tokens, out) if c] == kept
    assert [t.text for t, c in zip(td.tokens, codes) if c] == list(tagged)     # a copy


def test_an_ensemble_learns_it_from_its_own_notes_keeps_it_and_tags_by_it(tmp_path):
    """Only the notes ``calibrate_on`` flags count (synthetic records follow i2b2's convention)."""
    model, docs, own = convention_ensemble(lambda i, whole: _note(i, whole, times=2), seed=5)
    assert model.place_endings_left_out_ == ["ward number"]
    model.fit(docs, calibrate_on=[not flag for flag in own])
    assert model.place_endings_left_out_ == []
    model.fit(docs, calibrate_on=own)
    model.save(tmp_path / "m")
    again = InnerEnsemble.load(tmp_path / "m")
    assert again.place_endings_left_out_ == ["ward number"]
    # the trees tag 'Quillmoor 3'
    assert tagged_after_decisions(again, "to Quillmoor 3 today", range(1, 3), LOC) == [0, LOC, 0, 0]

    rewrite_state(tmp_path / "m", place_endings_left_out=["Cooksley"])
    with pytest.raises(UserError, match="ensemble.json"):
        InnerEnsemble.load(tmp_path / "m")
    rewrite_state(tmp_path / "m", place_endings_left_out=None)       # saved before session 34
    assert InnerEnsemble.load(tmp_path / "m").place_endings_left_out_ == []


@pytest.mark.parametrize("kinds", ["ward number", ["facility word"], [1], {"a": 1}])
def test_kinds_read_from_a_file_are_checked(kinds):
    with pytest.raises(ValueError, match="place_endings_left_out"):
        check_kinds(kinds)
