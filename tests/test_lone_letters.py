"""A tagged single letter with no other tag near it loses its tag (itdeid.passes.lone_letters)."""
import pytest

from itdeid.passes.lone_letters import lone_letter_tokens

from helpers import cleared_by


@pytest.mark.parametrize("text, tagged, cleared", [
    ("had restenosis of L circ, PTCA to L circ.", {"L"}, ["L", "L"]),
    ("Had a run of V-Tach. C/O pain.", {"V", "C"}, ["C", "V"]),
    ("ALL IS WELL AT THIS TIME. Q. LAUGEN RRT", {"Q", "LAUGEN"}, []),      # an initial by its name
    ("NWOSU, ADAEZE C", {"NWOSU", "ADAEZE", "C"}, []),
    ("Reported to Dr. K today", {"K"}, []),                                  # after a title
    ("placed in L sephalic, Z. MILLER aware", {"L", "Z", "MILLER"}, ["L"]),
    ("pt is 3 A on 5", {"3"}, []),                                           # no letter
])
def test_a_single_letter_with_no_tag_near_it_is_cleared(text, tagged, cleared):
    assert cleared_by(lone_letter_tokens, text, tagged, code=2) == (cleared, cleared)
