"""Every pass of :data:`itdeid.pipeline.PASSES` does work where it stands: skipped by name, the
labels of a note it acts on change, on the tokens it is for (itdeid.pipeline).

Each pass has one invented note (the example texts of the pass's own tests), the labels the
trees might have given it, and a stand-in model with the hooks the pass reads. The note runs
through the pass's whole group, once as is and once with the pass skipped: so an earlier or
later pass of the group that does the same work would show here as no difference."""
from types import SimpleNamespace

import numpy as np
import pytest

from itdeid import pipeline
from itdeid.document import LABELS, Document
from itdeid.featurize import tokenize_document
from itdeid.featurize.tokenized import token_offsets
from itdeid.pipeline import Note, run_note, run_passes

#: What a note slip is one edit from, and how often the model saw it as ordinary text.
SEEN = {"bigeminy": 40, "coccyx": 12, "cardiac": 300}


def _model(**hooks):
    """A stand-in model: no word known, none seen, no learned convention, unless ``hooks`` say."""
    return SimpleNamespace(**{"known_word": frozenset().__contains__, "seen_count": lambda word: 0,
                              "punctuation_left_out_": (), "place_endings_left_out_": (), **hooks})


#: pass name -> (note text, {token text: label the trees gave it}, stand-in model,
#:               {token text: its label with the pass on}). Every token of a listed text takes
#: the label; a token listed in the last dict differs with the pass skipped, and no other does.
CASES = {
    # name_gaps
    "capitalized_gaps": ("Seen at Harborview Cardiology Associates today.",
                         {"Harborview": "HOSPITAL", "Associates": "HOSPITAL"}, _model(),
                         {"Cardiology": "HOSPITAL"}),
    "state_after_place": ("moved to Salem, Oregon last year", {"Salem": "LOCATION"}, _model(),
                          {"Oregon": "LOCATION"}),
    "surname_before_name": ("PCP: Hall, Norman\nnext", {"Norman": "DOCTOR"}, _model(), {"Hall": "DOCTOR"}),
    "initial_after_name": ("COSIGNED HADDAD M. today", {"HADDAD": "DOCTOR"}, _model(), {"M": "DOCTOR"}),
    "initial_before_name": ("ALL IS WELL AT THIS TIME. Q. LAUGEN RRT", {"LAUGEN": "DOCTOR"}, _model(),
                            {"Q": "DOCTOR"}),
    "possessive_start": ("seen at Children's Hospital Boston", {"'s": "HOSPITAL", "Hospital": "HOSPITAL"},
                         _model(), {"Children": "HOSPITAL"}),
    "saint_names": ("Was accepted by St. Clement but cannot", {"St": "LOCATION", ".": "DOCTOR", "Clement": "DOCTOR"},
                    _model(), {".": "LOCATION", "Clement": "LOCATION"}),
    "place_name_words": ("FAMILY REPORTS THAT AT WESLEY METHODIST, HER SKIN", {"WESLEY": "LOCATION"}, _model(),
                         {"METHODIST": "LOCATION"}),
    "hyphenated_names": ("Mary-Kate Osborne seen", {"Mary": "PATIENT", "-": "DOCTOR", "Kate": "PATIENT"}, _model(),
                         {"-": "PATIENT"}),
    "one_class_a_name": ("TAKEN HOME BY DAUGHTER LISA BARBIERI.", {"LISA": "PATIENT", "BARBIERI": "DOCTOR"},
                         _model(), {"BARBIERI": "PATIENT"}),
    "name_separators": ("DRS JOSEPH AND ROTKOWSKI AWARE",
                        {"JOSEPH": "DOCTOR", "AND": "DOCTOR", "ROTKOWSKI": "DOCTOR"}, _model(), {"AND": "NONE"}),
    # named_subjects: the trees tagged nothing
    "named_subjects": ("NPN: Pt Kowalski tolerating po's.", {}, _model(), {"Kowalski": "PATIENT"}),
    # tag_review
    "plain_shapes": ("heparin started at 2000", {"2000": "DATE"}, _model(), {"2000": "NONE"}),
    "propagation": ("Mazie in to visit. kept updated re condition mazie from Middle Rock.",
                    {"Mazie": "PATIENT"}, _model(), {"mazie": "PATIENT"}),
    "eponyms": ("QUINTON CATH PLACED", {"QUINTON": "DOCTOR"}, _model(), {"QUINTON": "NONE"}),
    "drug_names": ("given Maalox for indigestion", {"Maalox": "DOCTOR"}, _model(), {"Maalox": "NONE"}),
    "clinical_terms": ("Permacath placed, CVVHF running.", {"Permacath": "DOCTOR", "CVVHF": "DOCTOR"}, _model(),
                       {"Permacath": "NONE", "CVVHF": "NONE"}),
    "medicine_runs": ("pt given Trazodone HCL and Zolpidem", {"Trazodone": "DOCTOR", "HCL": "DOCTOR"}, _model(),
                      {"Trazodone": "NONE", "HCL": "NONE"}),
    "name_trailers": ("BIPAP UNTIL SON DAVID CALLS BACK", {"DAVID": "DOCTOR", "CALLS": "DOCTOR"}, _model(),
                      {"CALLS": "NONE"}),
    "everyday_words": ("tolerated transfer to sink for pm care", {"sink": "LOCATION"}, _model(), {"sink": "NONE"}),
    "everyday_runs": ("cp after riding stationary bicycle today", {"stationary": "LOCATION", "bicycle": "LOCATION"},
                      _model(), {"stationary": "NONE", "bicycle": "NONE"}),
    "regions": ("Niece lives in California, phone given.", {"California": "LOCATION"}, _model(),
                {"California": "NONE"}),
    "lone_letters": ("had restenosis of L circ, PTCA to L circ.", {"L": "DOCTOR"}, _model(), {"L": "NONE"}),
    # identifiers
    "identifier_labels": ("MRN: 4452198 seen today", {"MRN": "PATIENT", "4452198": "ID"}, _model(), {"MRN": "NONE"}),
    "identifier_templates": ("write to j.doe@example.org today", {}, _model(),     # the address is 7 tokens
                             dict.fromkeys(["j", ".", "doe", "@", "example", "org"], "ID")),
    # one pass a group
    "note_slips": ("AFIB WITH RUNS OF BIGEMENY. LAST K 3.9", {"BIGEMENY": "LOCATION"},
                   _model(seen_count=lambda word: SEEN.get(word, 0)), {"BIGEMENY": "NONE"}),
    "phrase_punctuation": ("Seen by Q. Laugen today", {"Q": "DOCTOR", ".": "DOCTOR", "Laugen": "DOCTOR"},
                           _model(punctuation_left_out_=[(".", "DOCTOR")]), {".": "NONE"}),
    "place_endings": ("TRANSFER TO QUILLMOOR 3 TODAY", {"QUILLMOOR": "LOCATION", "3": "LOCATION"},
                      _model(place_endings_left_out_=["ward number"]), {"3": "NONE"}),
    "joining_words": ("on March 3 at Mercy Hospital",
                      {"March": "DATE", "3": "DATE", "at": "HOSPITAL", "Mercy": "HOSPITAL", "Hospital": "HOSPITAL"},
                      _model(), {"at": "NONE"}),
}

GROUP_OF = {p.name: group.name for group in pipeline.PASSES for p in group.passes}


def _note(text, tagged, model):
    """The note as the passes read it, and the trees' codes."""
    td = tokenize_document(Document("n", text, []), gold=False)
    codes = np.array([LABELS.index(tagged.get(t.text, "NONE")) for t in td.tokens], dtype=np.int64)
    return Note(text, *token_offsets(td), td=td, model=model), codes


def test_the_table_covers_every_pass_and_no_other():
    assert sorted(CASES) == sorted(pipeline.pass_names())
    assert len(pipeline.pass_names()) == len(set(pipeline.pass_names())) == 29


@pytest.mark.parametrize("name", pipeline.pass_names())
def test_skipping_a_pass_changes_the_labels_it_is_for(name):
    text, tagged, model, expected = CASES[name]
    note, codes = _note(text, tagged, model)
    given = codes.copy()
    words = [t.text for t in note.td.tokens]
    assert set(expected) <= set(words), "a word of the table is no token of its note"
    on = run_note(note, codes, {GROUP_OF[name]}, skip=frozenset())
    note.cache.clear()
    off = run_note(note, codes, {GROUP_OF[name]}, skip=frozenset({name}))
    assert np.array_equal(codes, given)                                  # the caller's codes untouched
    assert {w: LABELS[c] for w, c in zip(words, on) if w in expected} == expected
    changed = {words[k] for k in np.flatnonzero(on != off)}
    assert changed == set(expected), (name, [LABELS[c] for c in on], [LABELS[c] for c in off])


@pytest.mark.parametrize("name", ["tag_review", "name_gaps"])
def test_a_skipped_group_leaves_the_codes_as_given(name):
    for pass_name in (p.name for group in pipeline.PASSES if group.name == name for p in group.passes):
        text, tagged, model, _expected = CASES[pass_name]
        note, codes = _note(text, tagged, model)
        assert not np.array_equal(run_note(note, codes, {name}), codes)      # the group does work here
        assert np.array_equal(run_note(note, codes, {name}, skip=frozenset({name})), codes)


def test_an_unknown_name_is_refused():
    with pytest.raises(ValueError, match="no pass or group named plain_shape"):
        pipeline.check_skip({"plain_shape"})


@pytest.fixture(scope="module")
def shipped():
    import itdeid
    return itdeid.load_model()


def test_the_shipped_model_runs_the_passes_and_skips_one_by_name(shipped):
    """Through the default model's own hooks and switches: the trees' (supposed) DATE on a
    clock time is cleared, an e-mail address they missed is tagged; skipped by name, by
    ``run_passes`` or the model's ``skip_passes``, each pass leaves its token as given."""
    text = "Heparin at 2000, write to j.doe@example.org"
    td = tokenize_document(Document("n", text, []), gold=False)
    words = [t.text for t in td.tokens]
    clock, mail = words.index("2000"), slice(words.index("j"), len(words))
    assert "".join(words[mail]) == "j.doe@example.org"
    codes = np.zeros(len(words), dtype=np.int64)
    codes[clock] = LABELS.index("DATE")
    assert {"tag_review", "identifiers"} <= pipeline.passes_on(shipped)

    ID = LABELS.index("ID")
    (out,) = run_passes(shipped, [td], [codes])
    assert LABELS[out[clock]] == "NONE" and (out[mail] == ID).all()
    (kept,) = run_passes(shipped, [td], [codes], skip={"plain_shapes"})
    assert LABELS[kept[clock]] == "DATE" and (kept[mail] == ID).all()
    before = getattr(shipped, "skip_passes", None)
    try:
        shipped.skip_passes = ("identifier_templates",)
        (missed,) = run_passes(shipped, [td], [codes])
    finally:
        shipped.skip_passes = before
    assert LABELS[missed[clock]] == "NONE" and not missed[mail].any()
    assert LABELS[codes[clock]] == "DATE" and not codes[mail].any()          # the caller's codes untouched
