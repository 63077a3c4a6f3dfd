"""Trigger harvest: candidates, the frequency and information-gain filters, hits, persistence."""
import numpy as np
import pytest

from itdeid.document import LABELS
from itdeid.featurize.triggers import TriggerLists, information_gain

DOCTOR = LABELS.index("DOCTOR")
DATE = LABELS.index("DATE")


def _corpus(n=10):
    """'seen by dr X Y , md on DATE' repeated: 'dr' precedes doctors, 'on' precedes dates."""
    sequences = []
    for i in range(n):
        words = ["seen", "by", "dr", f"a{i}", f"b{i}", ",", "md", "on", f"d{i}", "today", "."]
        labels = np.zeros(len(words), dtype=np.int8)
        labels[3:5] = DOCTOR
        labels[8] = DATE
        sequences.append((words, labels))
    return sequences


def test_information_gain_hand_computed():
    # 4 items, 2 positive; a feature firing exactly on the positives carries 1 bit.
    assert information_gain(4, 2, np.array([2]), np.array([2]))[0] == pytest.approx(1.0)
    # a feature firing on everything carries nothing
    assert information_gain(4, 2, np.array([4]), np.array([2]))[0] == pytest.approx(0.0, abs=1e-9)


def test_token_triggers_per_class_and_offset():
    t = TriggerLists("token", min_count=3).fit(_corpus())
    assert (-1, "dr") in t.left[DOCTOR]      # right before the first name token
    assert (-2, "dr") in t.left[DOCTOR]      # two before the last name token
    assert (-1, "on") in t.left[DATE]
    assert (2, "md") in t.right[DOCTOR]      # 'a' , md: +3 from a, +2 from b
    # per-document words occur once: below min_count, never triggers
    assert not any(w.startswith(("a", "b", "d")) and w[1:].isdigit()
                   for table in t.left.values() for (_o, w) in table)


def test_min_count_filters_rare_candidates():
    t = TriggerLists("token", min_count=11).fit(_corpus(10))
    assert all(not table for table in t.left.values())


def test_phrase_triggers_mark_phrase_edges_only():
    t = TriggerLists("phrase", min_count=3).fit(_corpus())
    assert (2, "md") in t.right[DOCTOR]      # 'md' two tokens after the phrase's last token
    left, right = t.hits(["seen", "by", "dr", "x", "y", ",", "md", "on", "z", "today", "."])
    assert left[3, DOCTOR - 1] >= 1          # phrase start 'x'
    assert right[4, DOCTOR - 1] >= 1         # phrase end 'y'
    assert right[3, DOCTOR - 1] == 0         # 'md' is +3 from x: not a phrase-end trigger there


def test_ngram_triggers():
    t = TriggerLists("ngram", min_count=3).fit(_corpus())
    assert ("by", "dr") in t.left[DOCTOR]
    assert (",", "md") in t.right[DOCTOR]
    left, right = t.hits(["by", "dr", "q", "r", ",", "md"])
    assert left[2, DOCTOR - 1] >= 1
    assert right[3, DOCTOR - 1] >= 1


def test_triggers_learned_only_from_given_documents():
    train = _corpus(10)
    held_out = [(["admitted", "to", "x", "hospital"], np.array([0, 0, 4, 4], dtype=np.int8))] * 5
    t = TriggerLists("token", min_count=3).fit(train)
    assert not any(w in ("admitted", "to") for table in t.left.values() for (_o, w) in table)
    t2 = TriggerLists("token", min_count=3).fit(train + held_out)
    assert any(w == "to" for table in t2.left.values() for (_o, w) in table)


@pytest.mark.parametrize("variant", ["token", "phrase", "ngram"])
def test_round_trip(variant):
    t = TriggerLists(variant, min_count=3).fit(_corpus())
    u = TriggerLists.from_dict(t.to_dict())
    words = ["seen", "by", "dr", "x", "y", ",", "md", "on", "z"]
    for a, b in zip(t.hits(words), u.hits(words)):
        np.testing.assert_array_equal(a, b)


def test_unknown_variant():
    with pytest.raises(ValueError, match="trigger variant"):
        TriggerLists("bogus")


@pytest.mark.parametrize("variant", ["token", "phrase", "ngram"])
def test_phi_words_never_become_triggers(variant):
    # the first name 'john' stands right before every last name, but it is PHI itself
    sequences = []
    for i in range(10):
        words = ["patient", "john", f"s{i}", "was", "seen"]
        labels = np.array([0, 1, 1, 0, 0], dtype=np.int8)
        sequences.append((words, labels))
    t = TriggerLists(variant, min_count=3).fit(sequences)
    keys = [k for lists in (t.left, t.right) for table in lists.values() for k in table]
    assert keys, "context triggers are still found"
    assert not any("john" in (k if variant == "ngram" else (k[1],)) for k in keys)
