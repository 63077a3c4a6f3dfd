"""Words of intensive and hospital care standing alone lose a tag (itdeid.passes.clinical_terms)."""
import numpy as np
import pytest

from itdeid.passes.clinical_terms import clinical_term_tokens, clinical_terms, medicine_run_tokens
from itdeid.document import Document
from itdeid.featurize import tokenize_document
from itdeid.featurize.tokenized import token_offsets
from itdeid.pipeline import apply_identifiers
from itdeid.text.tokens import tokenize
from itdeid.featurize.word_lists import census_names, gazetteer_sets

from helpers import cleared_by


def _lower_words(entries) -> set[str]:
    """A list's entries as lower-case text: the place lists hold phrases as tuples of words and
    the state abbreviations in capitals."""
    return {" ".join(e).lower() if isinstance(e, tuple) else str(e).lower() for e in entries}


def test_no_term_is_a_listed_name_or_place_and_each_is_one_token():
    first, last = census_names()
    lists = gazetteer_sets()
    names = set(first) | set(last) | _lower_words(lists["first"]) | _lower_words(lists["last"])
    places = set().union(*(_lower_words(lists[k]) for k in ("cities", "states", "state_abbr", "countries", "world")))
    assert {"vt", "sc", "new york", "peg", "art"} <= places | names     # the lists as read here
    terms = clinical_terms()
    assert len(terms) > 50
    assert not terms & names and not terms & places
    assert all([t.text for t in tokenize(term)] == [term] for term in terms)


def _tagged(text, tagged_words):
    td = tokenize_document(Document("n", text, []), gold=False)
    codes = np.array([2 if t.text in tagged_words else 0 for t in td.tokens], dtype=np.int64)
    return td, codes


def test_a_tagged_term_standing_alone_loses_its_tag():
    text = "Pt found in VF, shocked. Permacath placed, CVVHF running. Transfer to MICU."
    td, codes = _tagged(text, {"VF", "Permacath", "CVVHF", "MICU"})
    starts, ends = token_offsets(td)
    assert sorted(td.tokens[k].text for k in clinical_term_tokens(text, starts, ends, codes)) == \
        ["CVVHF", "MICU", "Permacath", "VF"]
    assert not apply_identifiers(text, starts, ends, codes).any()


def test_a_term_after_a_title_or_inside_a_tagged_phrase_keeps_its_tag():
    text = "Seen by Dr. Vf today. Called Anna Er Lopez."
    td, codes = _tagged(text, {"Vf", "Anna", "Er", "Lopez"})
    starts, ends = token_offsets(td)
    assert clinical_term_tokens(text, starts, ends, codes) == []
    untagged = np.zeros(len(codes), dtype=np.int64)
    assert clinical_term_tokens(text, starts, ends, untagged) == []


@pytest.mark.parametrize("text, tagged, cleared", [
    ("pt given Trazodone HCL and Zolpidem", {"Trazodone", "HCL"}, ["HCL", "Trazodone"]),
    ("Given Ondansetron Rivera today", {"Ondansetron", "Rivera"}, []),          # a name beside it
    ("Seen by Dr. Lasix HCL", {"Lasix", "HCL"}, []),                              # after a title
    ("pt given Trazodone, HCL", {"Trazodone", ",", "HCL"}, []),                  # a comma inside
])
def test_a_run_of_drug_names_and_care_terms_is_cleared_whole(text, tagged, cleared):
    assert cleared_by(medicine_run_tokens, text, tagged, code=2) == (cleared, cleared)


def test_a_hospitals_abbreviation_in_a_record_header_keeps_its_tag():
    """'WH' (wheezes, 'LS WH and RH') was a listed term, and the rule cleared the hospital
    abbreviation of synthetic i2b2-style headers, '914094386 | WH | 71778852'."""
    text = "914094386 | WH | 71778852 | | 3051827 | 9/3/2004 12:00:00 AM"
    td, codes = _tagged(text, {"WH"})
    starts, ends = token_offsets(td)
    assert clinical_term_tokens(text, starts, ends, codes) == []
