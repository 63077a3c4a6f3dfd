"""The two vote rules and standardization's longest match."""
import numpy as np
import pytest

from itdeid.estimators.standardize import predicted_phrases, standardize
from itdeid.estimators.vote import vote

N, PAT, DOC, LOC = 0, 1, 2, 3


def test_two_of_three():
    a = np.array([N, PAT, DOC, DOC, LOC])
    b = np.array([N, PAT, PAT, N, N])
    c = np.array([PAT, N, LOC, DOC, N])
    assert vote([a, b, c]).tolist() == [N, PAT, N, DOC, N]


def test_recall_first_and_priority():
    a = np.array([N, PAT, DOC, DOC, LOC])
    b = np.array([N, PAT, PAT, N, N])
    c = np.array([PAT, N, LOC, DOC, N])
    assert vote([a, b, c], "recall_first").tolist() == [PAT, PAT, DOC, DOC, LOC]
    # three-way tie at token 2 goes to the model ranked first
    assert vote([a, b, c], "recall_first", priority=[1, 0, 2])[2] == PAT
    assert vote([a, b, c], "recall_first", priority=[2, 0, 1])[2] == LOC


def test_unknown_rule():
    with pytest.raises(ValueError, match="vote rule"):
        vote([np.zeros(2)], "majority")


def test_standardize_spreads_multi_token_phrases():
    words = ["grand", "valley", "hospital", "and", "grand", "valley", "hospital", "in", "valley"]
    codes = [4, 4, 4, 0, 0, 0, 0, 0, 0]
    out = standardize(words, codes)
    assert out.tolist() == [4, 4, 4, 0, 4, 4, 4, 0, 0]      # one-word 'valley' untouched


def test_standardize_longest_match_wins():
    words = ["john", "smith", "jr", ".", "saw", "john", "smith", "jr", "and", "john", "smith"]
    codes = [PAT, PAT, PAT, 0, 0, DOC, DOC, 0, 0, 0, 0]
    found = predicted_phrases(words, codes)
    assert set(found) == {("john", "smith", "jr"), ("john", "smith")}
    out = standardize(words, codes)
    assert out[5:8].tolist() == [PAT, PAT, PAT]               # longest phrase's class
    assert out[9:11].tolist() == [DOC, DOC]


def test_standardize_skips_punctuation_when_matching():
    words = ["smith", ",", "john", "was", "seen", ".", "smith", "john"]
    codes = [PAT, PAT, PAT, 0, 0, 0, 0, 0]
    assert standardize(words, codes).tolist()[6:] == [PAT, PAT]


def test_patient_level_phrases():
    found = predicted_phrases(["mary", "jones"], [PAT, PAT])
    assert standardize(["saw", "mary", "jones"], [0, 0, 0], found).tolist() == [0, PAT, PAT]
