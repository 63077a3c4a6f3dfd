"""Issue G's feature groups: casing, census, lexicon; and training-time re-substitution."""
import re

import numpy as np
import pytest

from itdeid.featurize.casing import ANNOUNCER_KINDS, casing_columns
from itdeid.document import Document, Span
from itdeid.featurize import GROUPS, RECALL_GROUPS, FeatureExtractor, tokenize_document
from itdeid.featurize.word_lists import census_names
from itdeid.featurize.lexicon import Lexicon
from itdeid.estimators.model import TokenModel
from itdeid.estimators.resubstitute import recased, resubstituted

from helpers import tiny_corpus


def _column(text, name):
    td = tokenize_document(Document("d", text), gold=False)
    return td, casing_columns(td)[name]


@pytest.mark.parametrize("text", ["PT SEEN BY DR. JONES TODAY", "pt seen by dr jones today",
                                  "Pt seen by Dr. Jones today"])
def test_a_title_announces_the_next_words_in_any_case(text):
    td, kind = _column(text, "announced_by")
    title = ANNOUNCER_KINDS.index("title") + 1
    assert kind[td.words.index("jones")] == title
    assert kind[td.words.index("seen")] == 0


def test_relation_words_announce_and_the_reach_ends():
    td, kind = _column("wife mary ann smith came in today and left", "announced_by")
    relation = ANNOUNCER_KINDS.index("relation") + 1
    assert [kind[td.words.index(w)] for w in ("mary", "ann", "smith", "came")] == [relation] * 3 + [0]


def test_case_shares_say_how_much_capitals_mean_in_this_note():
    upper_td = tokenize_document(Document("u", "PT SEEN BY JONES\nNO CHANGES"), gold=False)
    mixed_td = tokenize_document(Document("m", "pt seen by Jones\nno changes"), gold=False)
    upper, mixed = casing_columns(upper_td), casing_columns(mixed_td)
    assert upper["note_upper_share"][0] == 1.0 and mixed["note_upper_share"][0] == 0.0
    j = mixed_td.words.index("jones")
    assert mixed["cap_vs_line"][j] > 0.5 > upper["cap_vs_line"][upper_td.words.index("jones")]


def test_census_lists_are_broader_than_the_first_name_gazetteer():
    first, last = census_names()
    assert len(first) > 5000 and len(last) > 80000
    assert "smith" in last and "mary" in first


def _labelled(doc_id, patient, words_and_labels):
    text, spans = "", []
    for word, label in words_and_labels:
        if label:
            spans.append(Span(len(text), len(text) + len(word), label))
        text += word + " "
    return tokenize_document(Document(doc_id, text, spans, patient))


def test_lexicon_counts_ordinary_occurrences_and_neighbour_labels():
    docs = [_labelled(f"d{i}", f"p{i}", [("called", None), ("Kowalczyk", "PATIENT"), ("today", None)])
            for i in range(3)]
    lexicon = Lexicon.count(docs)
    assert "kowalczyk" not in lexicon.table
    row = lexicon.table["called"]
    assert row[0] == 3 and row[1] == 3 and sum(row[9:]) == 0  # next word PATIENT (code 1) each time
    cols = lexicon.columns(["called", "zbigniew"], np.zeros(2, np.float32))
    assert cols["left_phi_rate"][1] > 0.5 and cols["left_phi_class"][1] == 1
    assert cols["notes_log_count"][1] == 0


def test_training_rows_get_lexicon_statistics_of_other_patients():
    # 'foley' is ordinary text of one patient only: in that patient's training rows it must look
    # unseen, as a new rare word does in a new note
    docs = [_labelled("a", "p0", [("foley", None), ("foley", None), ("placed", None)])]
    docs += [_labelled(f"d{i}", f"p{i + 1}", [("catheter", None), ("placed", None)]) for i in range(9)]
    extractor = FeatureExtractor(groups=("lexicon",), window=0)
    X = extractor.fit_transform(docs)
    col = extractor.feature_names_.index("notes_log_count")
    assert X[0, col] == 0.0
    assert extractor.lexicon_.table["foley"][0] == 2
    assert extractor.transform(docs[:1])[0, col] > 0


def test_lexicon_min_count_says_how_often_a_word_must_be_ordinary_text_to_be_kept():
    docs = [_labelled("a", "p0", [("ambu", None), ("bag", None), ("bag", None)])]
    assert set(FeatureExtractor(groups=("lexicon",)).fit(docs).lexicon_.table) == {"bag"}
    kept = FeatureExtractor(groups=("lexicon",), lexicon_min_count=1).fit(docs).lexicon_.table
    assert set(kept) == {"ambu", "bag"}
    with pytest.raises(ValueError, match="lexicon_min_count"):
        TokenModel(lexicon_min_count=0).fit(tiny_corpus(4))


def test_resubstituted_copies_keep_classes_and_patient_and_change_the_phi():
    docs = tiny_corpus(4, seed=2)
    copies = resubstituted(docs, 2, seed=0)
    with_phi = [d for d in docs if d.spans]
    assert len(copies) == 2 * len(with_phi)
    for original, copy in zip(with_phi, copies):
        assert copy.patient == original.patient
        assert [s.type for s in copy.spans] == [s.type for s in original.spans]
        copy.check_spans()
    assert any(c.text != o.text for o, c in zip(with_phi, copies))


def test_common_names_draw_the_copies_names_from_the_common_lists():
    """common_names=0 leaves the copies as before; 1 draws every name word from the gazetteers'
    common names; a share outside [0, 1] is refused."""
    from itdeid.resources import load_table
    docs = tiny_corpus(12, seed=3)
    assert [c.text for c in resubstituted(docs, 1, seed=0, common_names=0.0)] == \
        [c.text for c in resubstituted(docs, 1, seed=0)]
    common = {row[0] for table in ("first_names.tsv", "last_names.tsv") for row in load_table("gazetteers", table)}
    names = [c.text[s.start:s.end] for c in resubstituted(docs, 1, seed=0, common_names=1.0)
             for s in c.spans if s.type in ("PATIENT", "DOCTOR")]
    words = [w for n in names for w in re.findall(r"[A-Za-z]{2,}", n) if w.lower() not in ("dr", "mr", "mrs", "ms")]
    assert words and sum(w.title() in common for w in words) >= 0.9 * len(words)
    with pytest.raises(ValueError, match="common_names"):
        TokenModel(common_names=1.5).fit(docs[:4])


def test_recased_flips_the_casing_of_a_note_and_keeps_its_offsets():
    assert recased("Pt seen by Dr. Jones, wife Mary.") == "PT SEEN BY DR. JONES, WIFE MARY."
    assert recased("PT SEEN BY DR. JONES, Wife MARY.") == "pt seen by dr. jones, wife mary."
    assert recased("Straße 5, Dr. Groß") == "STRAßE 5, DR. GROß"   # 'ß'.upper() is 'SS': left
    assert recased("") == "" and recased("12/3 - 4") == "12/3 - 4"


def test_recase_writes_a_share_of_the_copies_in_the_other_casing():
    """recase=0 leaves the copies as before; 1 re-cases every copy (same spans, same PHI
    letters up to case); a share between re-cases some; outside [0, 1] is refused."""
    docs = tiny_corpus(12, seed=3)
    plain = resubstituted(docs, 1, seed=0)
    assert [c.text for c in resubstituted(docs, 1, seed=0, recase=0.0)] == [c.text for c in plain]
    every = resubstituted(docs, 1, seed=0, recase=1.0)
    assert [c.text for c in every] == [recased(c.text) for c in plain]
    assert [c.spans for c in every] == [c.spans for c in plain]
    assert all(c.text.isupper() or c.text.islower() for c in every)
    half = [a.text != b.text for a, b in zip(resubstituted(docs, 1, seed=0, recase=0.5), plain)]
    assert 0 < sum(half) < len(half)
    with pytest.raises(ValueError, match="recase"):
        TokenModel(recase=1.5).fit(docs[:4])


def test_a_model_with_every_recall_lever_trains_saves_and_loads(tmp_path):
    docs = tiny_corpus(16, seed=4)
    model = TokenModel(groups=GROUPS + RECALL_GROUPS, n_estimators=5, n_jobs=1, previous="gold",
                       resubstitutions=1, target_recall=0.97).fit(docs[:12])
    model.save(tmp_path)
    loaded = TokenModel.load(tmp_path)
    assert loaded.predict(docs[12:]) == model.predict(docs[12:])
    with pytest.raises(ValueError):
        TokenModel(resubstitutions=-1).fit(docs[:4])


def test_word_neighbours_are_the_nearest_words_within_two_tokens():
    """lexicon.neighbours (array form) against the rule spelled out token by token, on seeded
    random runs of words, punctuation and non-ASCII letters."""
    import random
    from itdeid.featurize.lexicon import neighbours
    rng = random.Random(0)
    for _ in range(3000):
        words = [rng.choice(["a", ".", ",", "1", "_", "\u00e9", "--"]) for _ in range(rng.randint(0, 8))]
        is_word = [any(c.isalnum() for c in w) for w in words]
        n = len(words)
        left = [next((j for j in (i - 1, i - 2) if j >= 0 and is_word[j]), -1) for i in range(n)]
        right = [next((j for j in (i + 1, i + 2) if j < n and is_word[j]), -1) for i in range(n)]
        got = neighbours(words)
        assert got[0].tolist() == left and got[1].tolist() == right, words
