"""The trial feature group ``spelling``: misspelled ordinary words and announcing words."""
import pytest

from itdeid.casing import ANNOUNCER_KINDS
from itdeid.document import Document
from itdeid.featurize import FeatureExtractor, GROUPS, tokenize_document
from itdeid.spelling import announcer_kind, edits1, near_word_zipf, spelling_columns


def test_edits1_holds_each_kind_of_edit_and_not_the_word():
    e = edits1("niece")
    assert {"nece", "neice", "nieces", "piece"} <= e and "niece" not in e


@pytest.mark.parametrize("slip", ["pasiing", "awating", "quickley", "presnt"])
def test_a_rare_slip_of_a_common_word_has_a_common_neighbour(slip):
    assert near_word_zipf(slip) >= 3.5


@pytest.mark.parametrize("word", ["passing", "the", "czyzewicz", "1234", "abc"])
def test_common_short_unrelated_or_non_alphabetic_tokens_get_none(word):
    assert near_word_zipf(word) == 0.0


def test_announcing_words_are_marked_themselves_even_misspelled():
    relation = ANNOUNCER_KINDS.index("relation") + 1
    assert announcer_kind("niece") == announcer_kind("neice") == announcer_kind("daugher") == relation
    assert announcer_kind("smith") == 0
    assert announcer_kind("sn") == 0   # short words are matched exactly only


def test_the_group_gives_one_value_per_token_through_the_extractor():
    td = tokenize_document(Document("d", "WIFE AND NEICE IN TO VISIT. PASIING STOOL."), gold=False)
    cols = spelling_columns(td)
    i = td.words.index("neice")
    assert cols["announcer_self"][i] == ANNOUNCER_KINDS.index("relation") + 1
    assert cols["near_word_zipf"][td.words.index("pasiing")] > 0
    assert all(len(v) == len(td.tokens) for v in cols.values())
    train = tokenize_document(Document("t", "Wife Mary in to visit."), gold=True)
    fx = FeatureExtractor(groups=GROUPS + ("spelling",)).fit([train])
    X = fx.transform([td])
    assert X.shape == (len(td.tokens), len(fx.feature_names_))
    assert "near_word_zipf" in fx.feature_names_ and "announcer_self@-1" in fx.feature_names_
