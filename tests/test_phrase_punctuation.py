"""The marks a corpus's gold leaves between two words of one PHI phrase (itdeid.phrase_punctuation)."""
import json

import numpy as np
import pytest

from itdeid.document import LABELS, Document, Span
from itdeid.ensemble import InnerEnsemble
from itdeid.errors import UserError
from itdeid.featurize import tokenize_document
from itdeid.model import TokenModel
from itdeid.phrase_punctuation import MIN_LEFT_OUT, check_pairs, left_out, split_at_marks

from helpers import tiny_corpus

DOCTOR = LABELS.index("DOCTOR")


def _note(i: int, whole: bool) -> Document:
    """'Seen by Q. Lander on Apr 21, 2021': the initial and the surname marked apart (the full
    stop left out, as the PhysioNet gold has it) or whole (as i2b2's); the date always whole."""
    text = f"Seen by Q. Lander{i} on Apr 21, 2021 ."
    q, name, date = text.index("Q."), text.index("Lander"), text.index("Apr")
    names = ([Span(q, name + len(f"Lander{i}"), "DOCTOR")] if whole else
             [Span(q, q + 1, "DOCTOR"), Span(name, name + len(f"Lander{i}"), "DOCTOR")])
    return Document(f"n{i}", text, names + [Span(date, date + len("Apr 21, 2021"), "DATE")])


def test_a_mark_the_gold_leaves_out_often_enough_is_kept_with_its_class():
    apart = [tokenize_document(_note(i, whole=False)) for i in range(MIN_LEFT_OUT)]
    assert left_out(apart) == [(".", "DOCTOR")]              # the date's comma is taken in
    assert left_out(apart[:-1]) == []                           # too few to be a convention
    whole = [tokenize_document(_note(i, whole=True)) for i in range(MIN_LEFT_OUT + 1)]
    assert left_out(whole) == []                                # i2b2's gold: nothing left out
    assert left_out(apart + whole) == []                        # taken in more often than not


def test_a_kept_mark_between_two_tokens_of_its_class_is_untagged_and_no_other():
    td = tokenize_document(Document("n", "Q. LANDER RRT and St. Louis", []), gold=False)
    words = [t.text for t in td.tokens]
    assert words == ["Q", ".", "LANDER", "RRT", "and", "St", ".", "Louis"]
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
    base = tiny_corpus(16, seed=2)
    docs, own = [], []
    for i, doc in enumerate(base):
        note = _note(i, whole=i % 2 == 1)
        shift = len(doc.text)
        docs.append(Document(doc.id, doc.text + note.text, list(doc.spans) + [
            Span(s.start + shift, s.end + shift, s.type) for s in note.spans], patient=doc.patient))
        own.append(i % 2 == 0)
    model = InnerEnsemble(TokenModel(n_estimators=5, n_jobs=1, previous="none", resubstitutions=0,
                                     random_state=3), folds=2, target_recall=0.9)
    model.fit(docs, calibrate_on=own)
    assert model.punctuation_left_out_ == [(".", "DOCTOR")]
    model.save(tmp_path / "m")
    again = InnerEnsemble.load(tmp_path / "m")
    assert again.punctuation_left_out_ == [(".", "DOCTOR")]
    td = tokenize_document(Document("t", "Seen by Q. Lander today", []), gold=False)
    proba = np.zeros((6, len(LABELS)), dtype=np.float32)
    proba[:, 0] = 1.0
    proba[2:5] = np.eye(len(LABELS))[DOCTOR]                   # the trees tag 'Q . Lander'
    again.predict_proba_tokenized = lambda docs: [proba]
    again.set_params(identifiers=False, join_gaps=False, subject_names=False)
    assert again.predict_tokenized([td])[0].tolist() == [0, 0, DOCTOR, 0, DOCTOR, 0]

    state_file = tmp_path / "m" / "ensemble.json"
    state = json.loads(state_file.read_text())
    state["punctuation_left_out"] = [["Lander", "DOCTOR"]]     # a word, not a mark
    state_file.write_text(json.dumps(state))
    with pytest.raises(UserError, match="ensemble.json"):
        InnerEnsemble.load(tmp_path / "m")
    del state["punctuation_left_out"]                           # saved before session 34
    state_file.write_text(json.dumps(state))
    assert InnerEnsemble.load(tmp_path / "m").punctuation_left_out_ == []
