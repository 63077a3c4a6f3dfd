"""A state or a country standing alone loses a LOCATION tag; a town's state keeps it (itdeid.passes.regions)."""
import numpy as np
import pytest

from itdeid.document import LABELS, Document
from itdeid.featurize import tokenize_document
from itdeid.featurize.tokenized import token_offsets
from itdeid.pipeline import apply_identifiers
from itdeid.passes.regions import lone_region_tokens

LOC = LABELS.index("LOCATION")


@pytest.mark.parametrize("text, tagged, cleared", [
    ("Niece lives in California, phone given.", {"California"}, ["California"]),
    ("CARDIAC CATH (10/16) IN BAHAMAS SHOWED 3V CAD.", {"BAHAMAS"}, ["BAHAMAS"]),
    ("family in the dominican republic but returning", {"dominican", "republic"}, ["dominican", "republic"]),
    ("NURSING HOMES IN RI (WHERE PT FROM).", {"RI"}, ["RI"]),
    ("Seen at the clinic in Portland, ME today.", {"Portland", "ME"}, []),      # a town's state
    ("Sister Virginia called.", {"Virginia"}, []),                               # a first name
    ("proxy lives in DC.", {"DC"}, []),                                          # a city
    ("moved to Salem Oregon last year", {"Salem", "Oregon"}, []),                # not alone
    ("Springfield is in Illinois.", {"Springfield"}, []),                        # not tagged
    ("Pt admitted to U Maryland ER w/ ant ST", {"Maryland"}, []),                # a hospital's name
    ("Pt admitted from MD Hospital at 1900.", {"MD"}, []),
])
def test_a_lone_state_or_country_is_cleared(text, tagged, cleared):
    td = tokenize_document(Document("n", text, []), gold=False)
    codes = np.array([LOC if t.text in tagged else 0 for t in td.tokens], dtype=np.int64)
    starts, ends = token_offsets(td)
    assert [td.tokens[k].text for k in lone_region_tokens(text, starts, ends, codes)] == cleared
    after = apply_identifiers(text, starts, ends, codes)
    assert sorted(t.text for t, c, o in zip(td.tokens, after, codes) if o and not c) == sorted(cleared)
