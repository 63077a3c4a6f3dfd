"""An ordinary word tagged at a person's name's end loses the tag (itdeid.passes.name_trailers)."""
import pytest

from itdeid.document import LABELS
from itdeid.passes.name_trailers import name_trailer_tokens

from helpers import cleared_by

DOCTOR = LABELS.index("DOCTOR")


@pytest.mark.parametrize("text, tagged, cleared", [
    ("BIPAP UNTIL SON DAVID CALLS BACK", {"DAVID", "CALLS"}, ["CALLS"]),          # an inflection
    ("stable. dr. joseph to bedside, aware", {"joseph", "to"}, ["to"]),            # a function word
    ("WATCHED VIDEO OF SONS HOCKEY GAME TODAY", {"HOCKEY", "GAME"}, ["GAME"]),      # an everyday word
    ("Seen by Dr. Lasix HCL", {"Lasix", "HCL"}, []),                              # a care term: kept
    ("ALL IS WELL. Q. LAUGEN RRT", {"Q", ".", "LAUGEN"}, []),                      # an initial's surname
    ("Seen by Dr. Joseph To today", {"Joseph", "To"}, []),                         # mixed case: a surname
    ("spoke with pat good today", {"pat", "good"}, []),                            # a census surname
    ("____\nCARLOS MENDES, M.D.\n", {"CARLOS", "MENDES"}, []),                     # 'mend' + 'es', a rare surname
    ("SPOKE WITH JOHN PEACE TODAY", {"JOHN", "PEACE"}, []),                        # a rare surname, common word
    ("consulted susana avril today", {"stella", "maris"}, []),                     # no misspelling
    ("seen by dr joseph\nto bedside", {"joseph", "to"}, []),                        # another line
    ("SON DAVID CALLS BACK", {"DAVID", "CALLS", "BACK"}, []),                      # not the run's end
])
def test_an_ordinary_word_at_a_names_end_is_cleared(text, tagged, cleared):
    assert cleared_by(name_trailer_tokens, text, tagged, code=DOCTOR) == (cleared, cleared)
