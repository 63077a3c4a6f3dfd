"""Feature groups on small hand-made documents: values checked, not just shapes."""
import numpy as np
import pytest

from itdeid.document import LABELS, Document, Span
from itdeid.featurize import GROUPS, FeatureExtractor, tokenize_document

NOTE = (
    "ATTENDING: John Smith , MD\n"
    "HISTORY OF PRESENT ILLNESS:\n"
    "The patient was seen at Boston General Hospital on 10/12/2005 in Boston , MA .\n"
    "He moved from France . Call 555-123-4567 ( home ) . He said \"fine\" .\n"
    "ALL CAPS LINE HERE\n"
    "He is 87yo and IV fluids were given .\n"
)


def _doc(i: int, text: str = NOTE) -> Document:
    spans = []
    for phrase, kind in (("John Smith", "DOCTOR"), ("Boston General Hospital", "HOSPITAL"),
                         ("10/12/2005", "DATE"), ("Boston ,", None), ("555-123-4567", "PHONE")):
        if kind is None:
            continue
        start = text.index(phrase)
        spans.append(Span(start, start + len(phrase), kind))
    city = text.index("in Boston") + 3
    spans.append(Span(city, city + 6, "LOCATION"))
    return Document(f"d{i}", text, spans, patient=str(i))


@pytest.fixture(scope="module")
def fitted():
    docs = [tokenize_document(_doc(i)) for i in range(4)]
    extractor = FeatureExtractor(trigger_min_count=2).fit(docs)
    X = extractor.transform(docs[:1])
    return extractor, docs[0], X


def column(fitted, name):
    extractor, td, X = fitted
    return X[:, extractor.feature_names_.index(name)]


def at(fitted, word, k=0):
    """Index of the k-th token whose text is ``word``."""
    _, td, _ = fitted
    return [i for i, t in enumerate(td.tokens) if t.text == word][k]


def test_shape_and_names(fitted):
    extractor, td, X = fitted
    assert X.shape == (len(td.tokens), len(extractor.feature_names_))
    assert X.dtype == np.float32
    assert len(set(extractor.feature_names_)) == len(extractor.feature_names_)
    assert 100 <= X.shape[1] <= 200     # the paper had ~138 attributes


def test_basic_group(fitted):
    assert column(fitted, "initial_type")[at(fitted, "John")] == 0           # upper
    assert column(fitted, "initial_type")[at(fitted, "patient")] == 1        # lower
    assert column(fitted, "initial_type")[at(fitted, "10/12/2005")] == 2     # digit
    # 'seen at' precedes the hospital in every training note: a left trigger of HOSPITAL
    assert column(fitted, "trigger_left_HOSPITAL")[at(fitted, "Boston")] >= 1
    assert column(fitted, "trigger_left_HOSPITAL")[at(fitted, "patient")] == 0
    # 'Hospital' ends HOSPITAL phrases in training: a suffix, seen ahead by 'Boston'
    hospital = LABELS.index("HOSPITAL")
    assert column(fitted, "suffix_class")[at(fitted, "Hospital")] == hospital
    assert column(fitted, "suffix_ahead_class")[at(fitted, "Boston")] == hospital
    assert column(fitted, "suffix_ahead_distance")[at(fitted, "Boston")] == 2
    # previous-class columns are left for the model to fill
    assert np.all(column(fitted, "prev1_class") == -1)


def test_orthography_group(fitted):
    assert column(fitted, "all_upper")[at(fitted, "ATTENDING")] == 1
    assert column(fitted, "title")[at(fitted, "John")] == 1
    assert column(fitted, "title")[at(fitted, "ATTENDING")] == 0
    assert column(fitted, "has_digit")[at(fitted, "10/12/2005")] == 1
    assert column(fitted, "inner_punct")[at(fitted, "10/12/2005")] == 1
    assert column(fitted, "length")[at(fitted, "Smith")] == 5
    assert column(fitted, "roman")[at(fitted, "IV")] == 1
    assert column(fitted, "roman")[at(fitted, "He")] == 0
    assert column(fitted, "arabic_number")[at(fitted, "87")] == 1



@pytest.mark.parametrize("text", ["Smith", "ATTENDING", "10/12/2005", "555-123-4567", "87yo", "aaaa",
                                  "O'Dowd", "\u0663\u0664\u0665", "x\u0663\u0663\u0663y", "\uff38\uff11\uff12",
                                  "\u00c9l\u00e9onore", "\u01c5emal", "\u2167", "\u00b2\u00b3", "...", "MRN12345"])
def test_shape_is_that_of_the_three_substitutions(text):
    import re

    from itdeid.featurize.note_columns import _shape

    expected = re.sub(r"\d", "d", re.sub(r"[a-z]", "x", re.sub(r"[A-Z]", "X", text)))
    assert _shape(text) == re.sub(r"(.)\1{2,}", r"\1\1", expected)

def test_frequency_group(fitted):
    from wordfreq import zipf_frequency

    zipf = column(fitted, "zipf")
    assert zipf[at(fitted, "patient")] == pytest.approx(zipf_frequency("patient", "en"), abs=1e-4)
    # 'Boston' is always capitalized inside sentences; 'He' is capitalized only sentence-initially
    assert column(fitted, "cap_to_lower")[at(fitted, "Boston")] > 0
    assert column(fitted, "cap_to_initial")[at(fitted, "He")] < 0


def test_heading_group(fitted):
    extractor, td, X = fitted
    assert "HISTORY OF PRESENT ILLNESS" in extractor.headings_
    hpi = extractor.headings_["HISTORY OF PRESENT ILLNESS"]
    assert column(fitted, "heading_id")[at(fitted, "patient")] == hpi
    assert column(fitted, "in_heading")[at(fitted, "HISTORY")] == 1
    assert column(fitted, "in_heading")[at(fitted, "patient")] == 0
    assert column(fitted, "since_heading")[at(fitted, "The")] == 1


def test_regex_group(fitted):
    assert column(fitted, "regex_DATE")[at(fitted, "10/12/2005")] == 1
    assert column(fitted, "regex_PHONE")[at(fitted, "555-123-4567")] == 1
    assert column(fitted, "regex_AGE")[at(fitted, "87")] == 1
    assert column(fitted, "regex_DATE")[at(fitted, "patient")] == 0
    assert column(fitted, "regex_DATE_template")[at(fitted, "10/12/2005")] > 0


def test_location_group(fitted):
    assert column(fitted, "us_city")[at(fitted, "Boston", 1)] == 1
    assert column(fitted, "us_state")[at(fitted, "MA")] == 1
    assert column(fitted, "country")[at(fitted, "France")] == 1
    assert column(fitted, "us_city")[at(fitted, "patient")] == 0


def test_sentence_group(fitted):
    assert column(fitted, "sentence_start")[at(fitted, "The")] == 1
    assert column(fitted, "sentence_start")[at(fitted, "patient")] == 0
    assert column(fitted, "line_start")[at(fitted, "He")] == 1
    position = column(fitted, "sentence_position")
    assert np.all(np.diff(position) >= 0) and position[0] == 0


def test_context_group(fitted):
    assert column(fitted, "in_brackets")[at(fitted, "home")] == 1
    assert column(fitted, "in_brackets")[at(fitted, "Call")] == 0
    assert column(fitted, "in_quotes")[at(fitted, "fine")] == 1
    assert column(fitted, "line_upper")[at(fitted, "CAPS")] == 1
    assert column(fitted, "line_upper")[at(fitted, "patient")] == 0


def test_firstnames_and_nonphi_groups(fitted):
    assert column(fitted, "first_name")[at(fitted, "John")] > 0
    assert column(fitted, "last_name")[at(fitted, "Smith")] > 0
    assert column(fitted, "first_name")[at(fitted, "patient")] == 0
    assert column(fitted, "english_word")[at(fitted, "patient")] == 1
    assert column(fitted, "never_phi")[at(fitted, "patient")] == 1
    assert column(fitted, "never_phi")[at(fitted, "Smith")] == 0


def test_window_columns_shift_neighbours(fitted):
    title = column(fitted, "title")
    before = column(fitted, "title@-1")
    after = column(fitted, "title@+2")
    assert before[0] == -1                      # padding before the first token
    np.testing.assert_array_equal(before[1:], title[:-1])
    np.testing.assert_array_equal(after[:-2], title[2:])


@pytest.mark.parametrize("group", GROUPS)
def test_each_group_can_be_switched_off(group):
    docs = [tokenize_document(_doc(i)) for i in range(3)]
    full = FeatureExtractor(trigger_min_count=2).fit(docs)
    without = FeatureExtractor(groups=[g for g in GROUPS if g != group], trigger_min_count=2).fit(docs)
    assert len(without.feature_names_) < len(full.feature_names_)
    assert set(without.feature_names_) < set(full.feature_names_)
    assert without.transform(docs).shape == (sum(map(len, docs)), len(without.feature_names_))


def test_learned_state_holds_no_training_phi(fitted):
    extractor, _, _ = fitted
    learned = (set(extractor.suffixes_) | set(extractor.nonphi_) | set(extractor.case_counts_.capitalized)
               | {w for table in extractor.triggers_.left.values() for (_o, w) in table}
               | {w for table in extractor.triggers_.right.values() for (_o, w) in table})
    assert not {"john", "smith"} & learned


def test_unknown_group():
    with pytest.raises(ValueError, match="unknown feature groups"):
        FeatureExtractor(groups=["basic", "bogus"]).fit([tokenize_document(_doc(0))])


def test_a_notes_features_do_not_depend_on_the_notes_transformed_with_it(fitted):
    """Case ratios count the training notes plus the note itself, never its batch companions:
    otherwise a note's tags would change with the file, chunk or resumed run it came in."""
    extractor, td, _ = fitted
    other_text = "Smith smith smith SMITH went home . smith was fine .\n"
    other = tokenize_document(Document("o", other_text, []))
    alone = extractor.transform([td])
    together = extractor.transform([other, td, other])
    n_other = len(other)
    np.testing.assert_array_equal(together[n_other:n_other + len(td)], alone)
    # and the note's own counts are used: 'Smith' is capitalized in it, never lower case
    cap_to_lower = extractor.feature_names_.index("cap_to_lower")
    smith = td.words.index("smith")
    assert alone[smith, cap_to_lower] > 0


def test_plain_words_get_wordfreqs_own_zipf_frequency():
    """The direct table lookup of plain lower-case words gives what wordfreq.zipf_frequency
    gives: on a seeded sample of wordfreq's English words, words it does not know, and the
    words of synthetic notes (other words still go through wordfreq)."""
    import random
    from wordfreq import get_frequency_dict, zipf_frequency
    from itdeid.featurize import tokenize_words
    from itdeid.featurize.zipf import plain_zipf as _plain_zipf, zipf as _zipf
    from itdeid.synth import generate
    rng = random.Random(0)
    known = sorted(w for w in get_frequency_dict("en", "best") if w.isascii() and w.isalpha() and w.islower())
    words = rng.sample(known, 3000) + ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(1, 9)))
                                       for _ in range(1000)]
    words += [w for d in generate(5, seed=1) for w in tokenize_words(d.text) if w.isascii() and w.isalpha() and w.islower()]
    assert all(_plain_zipf(w) == zipf_frequency(w, "en") for w in words)
    assert all(_zipf(w) == zipf_frequency(w, "en") for w in ["don't", "2000", "Boston", "caf\u00e9", "12:30"])


def test_the_case_counts_log_ratio_is_math_log_of_each_pair():
    """Small counts come from a table, the rest from one math.log a distinct pair: the same
    float32 values either way, for pairs on both sides of the table's edge."""
    import math
    from itdeid.featurize.case_counts import SMALL_COUNTS, _log_ratio
    rng = np.random.default_rng(0)
    top = np.concatenate([rng.integers(0, 3 * SMALL_COUNTS, 500), [0, SMALL_COUNTS - 1, SMALL_COUNTS, 5000]])
    bottom = np.concatenate([rng.integers(0, 3 * SMALL_COUNTS, 500), [SMALL_COUNTS, SMALL_COUNTS - 1, 0, 7]])
    expected = np.array([math.log((t + 1) / (b + 1)) for t, b in zip(top.tolist(), bottom.tolist())], dtype=np.float32)
    assert np.array_equal(_log_ratio(top, bottom), expected)
    small = top % SMALL_COUNTS, bottom % SMALL_COUNTS          # all from the table
    assert np.array_equal(_log_ratio(*small), np.array(
        [math.log((t + 1) / (b + 1)) for t, b in zip(small[0].tolist(), small[1].tolist())], dtype=np.float32))
