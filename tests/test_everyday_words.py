"""Everyday English words tagged where the case says nothing lose the tag (itdeid.passes.everyday_words)."""
import numpy as np
import pytest

from itdeid.document import Document
from itdeid.passes.everyday_words import everyday_run_tokens, everyday_word_tokens
from itdeid.featurize import tokenize_document
from itdeid.featurize.tokenized import token_offsets
from itdeid.pipeline import apply_identifiers

from helpers import cleared_by


def _cleared(text, tagged_words):
    td = tokenize_document(Document("n", text, []), gold=False)
    codes = np.array([3 if t.text in tagged_words else 0 for t in td.tokens], dtype=np.int64)
    starts, ends = token_offsets(td)
    return sorted(td.tokens[k].text for k in everyday_word_tokens(text, starts, ends, codes)), td, codes


@pytest.mark.parametrize("text, tagged, cleared", [
    ("SKIN- REDDENED COCCYX- ENCOURAGED TO TILT ON SIDE.", {"TILT"}, ["TILT"]),
    ("GU- GOOD U.O- URINE ORANGE S/P PYRIDIUM.", {"ORANGE"}, []),                  # a listed place
    ("tolerated transfer to sink for pm care", {"sink"}, ["sink"]),
    ("S- CAN I GET UP TO THE WHEELCHAIR...", {"WHEELCHAIR"}, ["WHEELCHAIR"]),
    ("HOME HEALTH AID AND PT. WALKER ORDERED.", {"WALKER"}, []),                    # a census surname
    ("WORKS AS AIDE AT HARGENS METHODIST.", {"METHODIST"}, []),                     # a hospital's word
    ("HUSBAND CEO OF IBM.", {"IBM"}, []),                                           # three letters
    ("SEEN BY MRS. PEACE TODAY.", {"PEACE"}, []),                                   # after a title
    ("Pt wants to go Hanover Peace today.", {"Peace"}, []),                          # title case, mixed text
    ("urine ORANGE today", {"ORANGE"}, []),                                         # capitals in mixed text
    ("moved to DELAY CREEK.", {"DELAY", "CREEK"}, []),                              # not alone
    ("WIFE PEACE CALLED TONIGHT.", {"PEACE"}, []),                                  # a relation before
    ("APPEARS AT PEACE WITH PLAN.", {"PEACE"}, ["PEACE"]),                          # a rare surname alone
    ("in march of 2022 pt was at St Jude", {"march"}, []),                          # a month is a date
    ("FAMILY WILL WINTER IN FLORIDA.", {"WINTER"}, []),                             # a census surname
    ("ALL IS WELL AT THIS TIME. Q. LAUGEN RRT", {"LAUGEN"}, []),                    # after an initial
    ("O2 SATS 95%. LEFT A. LINE. WALLET HOME", {"WALLET"}, ["WALLET"]),
    ("BONE SCAN TODAY TO R/O OSTEO-AWATING RHEUM CONSULT", {"AWATING"}, ["AWATING"]),   # a slip
    ("my chest hurts when i strech my arm", {"strech"}, ["strech"]),
    ("PT WENT TO HARBR ON 3/6", {"HARBR"}, []),                                     # a misspelt place
    ("seen by the team, kulwicki rrt", {"kulwicki"}, []),                             # no word near
    ("Noted urine darker. Manual lavage with NS.", {"Manual"}, ["Manual"]),         # a sentence's start
    ("CXR done.\nAdminister racemic epi if needed.", {"Administer"}, ["Administer"]),
    ("Lungs clear. Stowd plans to wean.", {"Stowd"}, []),                           # no slip at a start
    ("Lungs clear, Manual lavage given.", {"Manual"}, []),                           # mid-sentence capital
    ("ABLE TO CONVERSE COHERENTLY- MEDICATED", {"COHERENTLY"}, ["COHERENTLY"]),    # a common word's ending
    ("AFTER CPT PATIENT PANICED THAT HE", {"PANICED"}, ["PANICED"]),
    ("wife reveals dementia at home", {"reveals"}, ["reveals"]),                    # an inflection after a relation
    ("WIFE JONNES CALLED", {"JONNES"}, []),                                         # a slip of a name
    ("daughter golding called", {"golding"}, []),                                   # one edit from 'holding'
    ("son harding here", {"harding"}, []),                                          # a census surname
    # names of other countries and rare first names, which no US list keeps as common names
    ("CALLED BACK. GARETH WILL VISIT TOMORROW.", {"GARETH"}, []),                  # Zipf 3.5
    ("spoke with zara about plan", {"zara"}, []),
    ("WILL CALL DELEZE IN AM", {"DELEZE"}, []),                                     # one edit from 'delete'
    ("TALKED WITH SPELA TONIGHT", {"SPELA"}, []),                                   # 'Špela' unaccented
    ("Luigi visited today.", {"Luigi"}, []),                                        # a sentence's start
    ("fever.\n\nHISTORY:\nAssad is a 60-year-old man", {"Assad"}, []),             # a census surname, Zipf 3.6
    ("GIVEN COMFORT MEASURES", {"COMFORT"}, ["COMFORT"]),                           # a name, and everyday
])
def test_only_an_everyday_word_standing_alone_without_a_case_signal_is_cleared(text, tagged, cleared):
    found, td, codes = _cleared(text, tagged)
    assert found == cleared
    starts, ends = token_offsets(td)
    after = apply_identifiers(text, starts, ends, codes)
    assert sorted(t.text for t, c in zip(td.tokens, after) if c == 0 and t.text in tagged) == cleared


@pytest.mark.parametrize("text, tagged, cleared", [
    ("FACE FLUSHED ESPECIALLY AT SCALP HAIRLINE AND CHIN.", {"SCALP", "HAIRLINE"}, ["HAIRLINE", "SCALP"]),
    ("cp after riding stationary bicycle today", {"stationary", "bicycle"}, ["bicycle", "stationary"]),
    ("PAIN IN SJOULDER BLADE AND BACK", {"SJOULDER", "BLADE"}, ["BLADE", "SJOULDER"]),    # a slip
    ("SON NEWLY GRADUATED NURSE", {"NEWLY", "GRADUATED"}, []),                  # a relation before
    ("LIVES AT ROSE HILL FARM", {"ROSE", "HILL", "FARM"}, []),                  # names among them
    ("moved to DELAY CREEK.", {"DELAY", "CREEK"}, []),                          # a place word
    ("Seen at Scalp Hairline today", {"Scalp", "Hairline"}, []),                 # title case
    ("AT SCALP, HAIRLINE", {"SCALP", ",", "HAIRLINE"}, []),                     # a comma inside
    ("FLUSHED AT SCALP HAIRLINE CHIN NECK", {"SCALP", "HAIRLINE", "CHIN", "NECK"}, []),   # too long a run
])
def test_a_run_of_everyday_words_without_a_case_signal_is_cleared_whole(text, tagged, cleared):
    assert cleared_by(everyday_run_tokens, text, tagged, code=3) == (cleared, cleared)
