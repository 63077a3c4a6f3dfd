"""The marks a corpus's gold leaves between two words of one PHI phrase (itdeid.passes.phrase_punctuation)."""
import numpy as np
import pytest

from itdeid.document import LABELS, Document, Span
from itdeid.estimators.ensemble import InnerEnsemble
from itdeid.errors import UserError
from itdeid.featurize import tokenize_document
from itdeid.passes.phrase_punctuation import MIN_LEFT_OUT, check_pairs, left_out, split_at_marks

from helpers import convention_ensemble, rewrite_state, tagged_after_decisions

DOCTOR = LABELS.index("DOCTOR")


def _note(i: int, whole: bool) -> Document:
    """'Seen by Q. Laugen on Apr 21, 2021': the initial and the surname marked apart (the full
    stop left out, as the PhysioNet gold has it) or whole (as i2b2's); the date always whole."""
    text = f"Seen by Q. Laugen{i} on Apr 21, 2021 ."
    q, name, date = text.index("Q."), text.index("Laugen"), text.index("Apr")
    names = ([Span(q, name + len(f"Laugen{i}"), "DOCTOR")] if whole else
             [Span(q, q + 1, "DOCTOR"), Span(name, name + len(f"Laugen{i}"), "DOCTOR")])
    return Document(f"n{i}", text, names + [Span(date, date + len("Apr 21, 2021"), "DATE")])


def test_a_mark_the_gold_leaves_out_often_enough_is_kept_with_its_class():
    apart = [tokenize_document(_note(i, whole=False)) for i in range(MIN_LEFT_OUT)]
    assert left_out(apart) == [(".", "DOCTOR")]              # the date's comma is taken in
    assert left_out(apart[:-1]) == []                           # too few to be a convention
    whole = [tokenize_document(_note(i, whole=True)) for i in range(MIN_LEFT_OUT + 1)]
    assert left_out(whole) == []                                # i2b2's gold: nothing left out
    assert left_out(apart + whole) == []                        # taken in more often than not


def test_a_kept_mark_between_two_tokens_of_its_class_is_untagged_and_no_other():
    td = tokenize_document(Document("n", "Q. LAUGEN RRT and St. Louis", []), gold=False)
    words = [t.text for t in td.tokens]
    assert words == ["Q", ".", "LAUGEN", "RRT", "and", "St", ".", "Louis"]
    loc = LABELS.index("LOCATION")
    codes = np.array([DOCTOR, DOCTOR, DOCTOR, 0, 0, loc, loc, loc])
    out = split_at_marks(td, codes, [(".", "DOCTOR")])
    assert out.tolist() == [DOCTOR, 0, DOCTOR, 0, 0, loc, loc, loc]
    assert codes[1] == DOCTOR                                   # a copy, the input untouched
    assert split_at_marks(td, codes, []) is codes


@pytest.mark.parametrize("pairs", [{"a": 1}, [[".", "NONE"]], [["ab", "DOCTOR"]], [[".", "DOCTOR", 1]],
                                   [[".", 3]], ["."]])
def test_pairs_read_from_a_file_are_checked(pairs):
    with pytest.raises(ValueError, match="punctuation_left_out"):
        check_pairs(pairs)


def test_an_ensemble_learns_the_marks_from_its_own_notes_keeps_them_and_tags_by_them(tmp_path):
    """Only the notes ``calibrate_on`` flags count (synthetic records follow i2b2's convention)."""
    model, _docs, _own = convention_ensemble(lambda i, whole: _note(i, whole), seed=2)
    assert model.punctuation_left_out_ == [(".", "DOCTOR")]
    model.save(tmp_path / "m")
    again = InnerEnsemble.load(tmp_path / "m")
    assert again.punctuation_left_out_ == [(".", "DOCTOR")]
    # the trees tag 'Q . Laugen'
    assert tagged_after_decisions(again, "Seen by Q. Laugen today", range(2, 5), DOCTOR) == [0, 0, DOCTOR, 0, DOCTOR, 0]

    rewrite_state(tmp_path / "m", punctuation_left_out=[["Laugen", "DOCTOR"]])   # a word, not a mark
    with pytest.raises(UserError, match="ensemble.json"):
        InnerEnsemble.load(tmp_path / "m")
    rewrite_state(tmp_path / "m", punctuation_left_out=None)         # saved before session 34
    assert InnerEnsemble.load(tmp_path / "m").punctuation_left_out_ == []
