"""A rare word tagged once in a note is tagged wherever the note writes it (itdeid.passes.propagation)."""
import numpy as np

from itdeid.document import LABELS
from itdeid.pipeline import apply_identifiers
from itdeid.passes.propagation import propagate_in_note
from itdeid.text.tokens import tokenize

PATIENT, LOCATION = LABELS.index("PATIENT"), LABELS.index("LOCATION")


def _run(text, tagged, rules=False):
    tokens = tokenize(text)
    starts = np.array([t.start for t in tokens])
    ends = np.array([t.end for t in tokens])
    codes = np.zeros(len(tokens), dtype=np.int64)
    for i, t in enumerate(tokens):
        if (t.text, t.start) in tagged or t.text in tagged:
            codes[i] = tagged.get(t.text, tagged.get((t.text, t.start)))
    out = (apply_identifiers if rules else propagate_in_note)(text, starts, ends, codes)
    return {(t.text, t.start): LABELS[c] for t, c in zip(tokens, out) if c}


def test_a_rare_tagged_word_is_tagged_at_its_other_occurrences_in_any_case():
    text = "Mazie in to visit. kept updated re condition mazie from Middle Rock. Transfer to QUILLMOOR"
    out = _run(text, {("Mazie", 0): PATIENT, "Quillmoor": LOCATION, ("Rock", text.index("Rock")): LOCATION})
    assert out[("mazie", text.index("mazie"))] == "PATIENT"
    assert ("QUILLMOOR", text.index("QUILLMOOR")) not in out      # never tagged in this note


def test_an_everyday_or_short_word_does_not_spread_and_nothing_is_tagged_without_a_tag():
    text = "Good day. good sats. Ed called, ed visit. Good"
    assert _run(text, {("Good", 0): PATIENT, ("Ed", text.index("Ed")): PATIENT}) == {
        ("Good", 0): "PATIENT", ("Ed", text.index("Ed")): "PATIENT"}
    assert _run("mazie mazie", {}) == {}


def test_a_part_of_a_longer_word_is_not_tagged():
    text = "Seen by Lacko. Lackoville road"
    out = _run(text, {("Lacko", text.index("Lacko")): PATIENT})
    assert list(out) == [("Lacko", text.index("Lacko"))]


def test_a_propagated_drug_name_standing_alone_is_cleared_as_the_model_s_own_would_be():
    """'Esmolol' tagged beside a name spreads to its lone occurrence, which the drug rule clears."""
    text = "Esmolol Rivera called. Esmolol gtt at 50"
    out = _run(text, {("Esmolol", 0): PATIENT, ("Rivera", 8): PATIENT}, rules=True)
    assert ("Esmolol", text.rindex("Esmolol")) not in out


def test_a_short_acronym_in_mixed_case_does_not_spread_but_a_short_name_in_capitals_does():
    """The shipped model tagged 'GBS' once in a discharge letter; spreading it gave false alarms.
    In a line of capitals a short name ('SON KEELY') is no acronym."""
    text = "Hx of GBS in 2019.\nGBS resolved.\nSON KEELY CALLED.\nKEELY TO VISIT"
    out = _run(text, {("GBS", text.index("GBS")): PATIENT, ("KEELY", text.index("KEELY")): PATIENT})
    assert ("GBS", text.rindex("GBS")) not in out
    assert out[("KEELY", text.rindex("KEELY"))] == "PATIENT"
