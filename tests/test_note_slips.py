"""A tagged slip of a word the training notes use loses the tag (itdeid.passes.note_slips)."""
from types import SimpleNamespace

import numpy as np
import pytest

from itdeid.document import Document, LABELS
from itdeid.estimators.ensemble import InnerEnsemble
from itdeid.featurize import tokenize_document
from itdeid.featurize.lexicon import Lexicon
from itdeid.passes.note_slips import clear_note_slips, note_slip_tokens

LOCATION = LABELS.index("LOCATION")
#: What a model saw as ordinary text, and how often.
SEEN = {"bigeminy": 40, "coccyx": 12, "cardiac": 300, "stood": 30, "store": 8, "sword": 1}


def _cleared(text, tagged, seen=SEEN):
    td = tokenize_document(Document("n", text, []), gold=False)
    codes = np.array([LOCATION if t.text in tagged else 0 for t in td.tokens], dtype=np.int64)
    found = sorted(td.tokens[k].text for k in note_slip_tokens(td, codes, lambda w: seen.get(w, 0)))
    after = clear_note_slips(td, codes, lambda w: seen.get(w, 0))
    assert sorted(t.text for t, c, o in zip(td.tokens, after, codes) if o and not c) == found
    return found


@pytest.mark.parametrize("text, tagged, cleared", [
    ("AFIB WITH RUNS OF BIGEMENY. LAST K 3.9", {"BIGEMENY"}, ["BIGEMENY"]),
    ("OPSITE TO AREAS ON COOCYX.", {"COOCYX"}, ["COOCYX"]),
    ("Seen by Cardic Transplant surgeon", {"Cardic"}, ["Cardic"]),
    ("RUNS OF BIGEMENY PAIRS", {"BIGEMENY", "PAIRS"}, []),                  # not alone
    ("spoke with Dr. Cardic today", {"Cardic"}, []),                        # after a title
    ("WIFE BIGEMENY CALLED", {"BIGEMENY"}, []),                             # after a relation
    ("Harding here today", {"Harding"}, []),                                # a census surname
    ("Stowd plans to wean", {"Stowd"}, []),                                 # short, and written as a name
    ("STOWD PLANS TO WEAN", {"STOWD"}, ["STOWD"]),                          # capitals: 'stood' seen 30 times
])
def test_a_slip_of_a_word_the_notes_use_is_cleared(text, tagged, cleared):
    assert _cleared(text, tagged) == cleared


def test_the_word_one_edit_away_must_be_seen_often_and_the_slip_never():
    assert _cleared("STOWD PLANS TO WEAN", {"STOWD"}, {"stood": 4, "stows": 1}) == []    # seen too rarely
    assert _cleared("RUNS OF BIGEMENY", {"BIGEMENY"}, {"bigeminy": 40, "bigemeny": 1}) == []   # seen itself
    assert _cleared("RUNS OF BIGEMEN", {"BIGEMEN"}, SEEN) == []                            # too far


def test_an_ensemble_reads_the_most_any_member_saw():
    table = lambda counts: SimpleNamespace(lexicon_=Lexicon({w: [n] + [0] * 16 for w, n in counts.items()}))  # noqa: E731
    model = InnerEnsemble()
    model.members_ = [SimpleNamespace(extractor_=table({"coccyx": 3})),
                      SimpleNamespace(extractor_=table({"coccyx": 7, "foley": 2})),
                      SimpleNamespace(extractor_=SimpleNamespace())]            # no lexicon group
    assert model.seen_count("coccyx") == 7 and model.seen_count("foley") == 2 and model.seen_count("x") == 0
    # the merged table is remembered with the members: fitted or loaded again, it is merged again
    model.members_ = [SimpleNamespace(extractor_=table({"coccyx": 1, "vent": 9}))]
    assert model.seen_count("coccyx") == 1 and model.seen_count("vent") == 9 and model.seen_count("foley") == 0
