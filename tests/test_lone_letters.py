"""A tagged single letter with no other tag near it loses its tag (itdeid.lone_letters)."""
import numpy as np
import pytest

from itdeid.document import Document
from itdeid.featurize import tokenize_document
from itdeid.featurize.tokenized import token_offsets
from itdeid.identifiers import apply_identifiers
from itdeid.lone_letters import lone_letter_tokens


@pytest.mark.parametrize("text, tagged, cleared", [
    ("had restenosis of L circ, PTCA to L circ.", {"L"}, ["L", "L"]),
    ("Had a run of V-Tach. C/O pain.", {"V", "C"}, ["C", "V"]),
    ("ALL IS WELL AT THIS TIME. Q. LANDER RRT", {"Q", "LANDER"}, []),      # an initial by its name
    ("NWOSU, ADAEZE C", {"NWOSU", "ADAEZE", "C"}, []),
    ("Reported to Dr. K today", {"K"}, []),                                  # after a title
    ("placed in L sephalic, Z. MILLER aware", {"L", "Z", "MILLER"}, ["L"]),
    ("pt is 3 A on 5", {"3"}, []),                                           # no letter
])
def test_a_single_letter_with_no_tag_near_it_is_cleared(text, tagged, cleared):
    td = tokenize_document(Document("n", text, []), gold=False)
    codes = np.array([2 if t.text in tagged else 0 for t in td.tokens], dtype=np.int64)
    starts, ends = token_offsets(td)
    assert sorted(td.tokens[k].text for k in lone_letter_tokens(text, starts, ends, codes)) == cleared
    after = apply_identifiers(text, starts, ends, codes)
    assert sorted(t.text for t, c, o in zip(td.tokens, after, codes) if o and not c) == cleared
