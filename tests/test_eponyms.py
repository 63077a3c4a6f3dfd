"""Eponyms (features/eponyms.json, itdeid.passes.eponyms): a tagged 'Quinton cath' or "Wilson's
disease" loses its tag, so no surrogate name is written into the clinical text; a person with
the same name keeps it."""
import numpy as np
import pytest

from itdeid.document import LABELS
from itdeid.pipeline import apply_identifiers
from itdeid.text.tokens import tokenize

DOCTOR = LABELS.index("DOCTOR")

#: (text, the words that lose the tag when every token was tagged)
CLEARED = [("QUINTON CATH PLACED", "QUINTON"), ("PASSY-MUIR VALVE IN PLACE", "PASSY - MUIR"),
           ("trial of passe muir valve", "passe muir"), ("Riker scale 4", "Riker"),
           ("hx Wilson's disease", "Wilson 's"), ("Babinski sign neg", "Babinski"),
           ("GCS: Glasgow coma scale 15", "Glasgow"), ("Salem sump to LIWS", "Salem"),
           ("Morse fall scale 45", "Morse"), ("s/p Guillain-Barre syndrome", "Guillain - Barre"),
           ("in semi-Fowler's position", "semi - Fowler 's"), ("Swan-Ganz catheter out", "Swan - Ganz"),
           ("R Babinski present, L toe down", "R Babinski"), ("Hips: Barlow and Ortolani negative", "Ortolani"),
           ("Moro symmetric, suck good", "Moro"), ("Blake drain was left in Morison's pouch", "Blake"),
           ("overlying Calot's triangle", "overlying Calot 's"), ("19 French Blake drain", "19 French Blake"),
           ("His Hamilton Depression Rating Scale score fell", "Hamilton"),
           ("US WITH FLUID IN DOUGLAS POUCH, GYN", "IN DOUGLAS"), ("PLACED ON ZOLL PACER ON STANDBY", "PLACED ON ZOLL"),
           ("6 HRS... CHEYNE -STOKE RESPS .PERSISTENT", "CHEYNE - STOKE")]
#: Persons and places the rule leaves as the model tagged them.
KEPT = [("Dr. Allen test results reviewed", "Allen"), ("Mrs. Bell's sign-out", "Bell"),
        ("from Salem tube feeds running", "Salem"), ("Allen called", "Allen"),
        ("Mayo Clinic follow up", "Mayo"), ("seen by Wilson today", "Wilson"),
        ("Murphy at bedside, sign consent", "Murphy"), ("Dr Swan line placed", "Swan"),
        ("Murphy positive for flu", "Murphy"), ("moved from Hamilton to Boston", "Hamilton"),
        ("son Douglas tests his sugar", "Douglas"), ("Zoll called", "Zoll")]


def _tag_all(text):
    tokens = tokenize(text)
    starts = np.array([t.start for t in tokens])
    ends = np.array([t.end for t in tokens])
    codes = apply_identifiers(text, starts, ends, np.full(len(tokens), DOCTOR))
    return [t.text for t in tokens], codes


@pytest.mark.parametrize("text, words", CLEARED)
def test_a_tagged_eponym_before_what_it_names_loses_its_tag(text, words):
    tokens, codes = _tag_all(text)
    cleared = " ".join(w for w, c in zip(tokens, codes) if c == 0)
    assert cleared.startswith(words), cleared


@pytest.mark.parametrize("text, word", KEPT)
def test_a_person_or_a_place_keeps_the_models_tag(text, word):
    tokens, codes = _tag_all(text)
    assert codes[tokens.index(word)] == DOCTOR


def test_an_untagged_eponym_stays_untagged_and_nothing_is_tagged():
    text = "Foley catheter draining"
    tokens = tokenize(text)
    codes = apply_identifiers(text, np.array([t.start for t in tokens]), np.array([t.end for t in tokens]),
                              np.zeros(len(tokens), dtype=np.int64))
    assert not codes.any()
