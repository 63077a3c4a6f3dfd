"""The rule-only peer: regular expressions and dictionaries, no learning."""
from itdeid.training.crossval import crossval, row_model
from itdeid.document import Document
from itdeid.estimators.rules import RuleModel

from helpers import tiny_corpus

TEXT = ("Seen by Dr. John Smith at Salem Hospital on 3/4/2005. Lives in Boston, MA. "
        "Call 617-555-1234. Patient Mary Jones, MRN 12345678, 92 yo. Aspirin daily.")


def test_each_rule_on_a_hand_made_note():
    spans = RuleModel().fit([]).predict([Document("d", TEXT)])[0]
    found = {(s.type, TEXT[s.start:s.end]) for s in spans}
    assert found == {("DOCTOR", "John Smith"), ("HOSPITAL", "Salem Hospital"), ("DATE", "3/4/2005"),
                     ("LOCATION", "Boston"), ("LOCATION", "MA"), ("PHONE", "617-555-1234"),
                     ("PATIENT", "Mary Jones"), ("ID", "12345678"), ("AGE", "92")}


def test_a_bare_hospital_word_or_english_words_are_not_phi():
    text = "He was admitted to the Hospital. Hope is good. The Mobile unit came."
    assert RuleModel().predict([Document("d", text)])[0] == []


def test_cv_row_learns_nothing():
    corpus = tiny_corpus(12)
    result = crossval(corpus, lambda: row_model("RULES", {}, {"random_state": 0}), folds=2)
    assert 0 < result.pooled["8way_F"] < 1
