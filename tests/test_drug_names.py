"""Drug names (gazetteers/drug_names.txt, itdeid.passes.drug_names): a tagged drug name standing alone
loses its tag, so no surrogate name is written into a medication list; a person named like a
drug, after a title or beside another tagged word, keeps it."""
import numpy as np
import pytest

from itdeid.document import LABELS
from itdeid.passes.drug_names import drug_names, drug_tokens
from itdeid.pipeline import apply_identifiers
from itdeid.text.tokens import tokenize
from itdeid.featurize.word_lists import census_names, gazetteer_sets

DOCTOR = LABELS.index("DOCTOR")


def _codes(text, tagged):
    """The tokens of ``text`` and their codes after the rules, the words ``tagged`` tagged."""
    tokens = tokenize(text)
    starts = np.array([t.start for t in tokens])
    ends = np.array([t.end for t in tokens])
    codes = np.array([DOCTOR if t.text in tagged else 0 for t in tokens])
    return [t.text for t in tokens], apply_identifiers(text, starts, ends, codes)


@pytest.mark.parametrize("text, word", [
    ("DISCHARGE SHEETS GIVEN FOR CAPTOPRIL AND OFLOXACIN", "OFLOXACIN"),
    ("Started Aprotinin 250,000u/hr", "Aprotinin"), ("given Maalox for indigestion", "Maalox"),
    ("ondansetron 4 mg IV prn", "ondansetron"), ("avoid Advil, Motrin", "Advil")])
def test_a_tagged_drug_name_alone_loses_its_tag(text, word):
    words, codes = _codes(text, {word})
    assert codes[words.index(word)] == 0


@pytest.mark.parametrize("text, tagged, word", [
    ("seen by Dr. Lasix today", {"Lasix"}, "Lasix"),              # after a title: a person
    ("Ondansetron Rivera called", {"Ondansetron", "Rivera"}, "Ondansetron"),   # in a tagged name
    ("called Rivera Ofloxacin", {"Rivera", "Ofloxacin"}, "Ofloxacin")])
def test_a_drug_name_in_a_person_s_name_keeps_its_tag(text, tagged, word):
    words, codes = _codes(text, tagged)
    assert codes[words.index(word)] == DOCTOR


def test_nothing_untagged_is_tagged():
    text = "Maalox and Ofloxacin given"
    tokens = tokenize(text)
    starts, ends = np.array([t.start for t in tokens]), np.array([t.end for t in tokens])
    assert drug_tokens(text, starts, ends, np.zeros(len(tokens), dtype=np.int64)) == []


def test_the_list_holds_no_listed_name_and_no_everyday_word():
    """Built without the first, last and census names (a patient named 'Colace' keeps her tag)
    and without everyday English ('caps', 'sits')."""
    drugs = drug_names()
    assert len(drugs) > 10_000 and {"ofloxacin", "maalox", "ondansetron"} <= drugs
    gaz = gazetteer_sets()
    first, last = census_names()
    assert not drugs & (set(gaz["first"]) | set(gaz["last"]) | set(first) | set(last))
    assert not drugs & gaz["english"]
    assert "colace" not in drugs and "caps" not in drugs
