"""Feature rows built for a whole batch at once (itdeid.featurize.token_batch, issue I): a note's rows are
the same whatever batch it is in, no window or trigger reaches into another note, and the batch
forms of the per-note computations give the same numbers."""
import numpy as np
import pytest

from itdeid.document import Document
from itdeid.featurize import GROUPS, RECALL_GROUPS, FeatureExtractor, tokenize_document
from itdeid.featurize.extractor import _suffix_columns
from itdeid.featurize.token_batch import TokenBatch
from itdeid.featurize.triggers import TriggerLists

from helpers import tiny_corpus


@pytest.fixture(scope="module")
def fitted():
    docs = [tokenize_document(d) for d in tiny_corpus(24, seed=3)]
    test = [tokenize_document(d, gold=False) for d in tiny_corpus(8, seed=9)]
    test.insert(3, tokenize_document(Document("empty", "", []), gold=False))
    return docs, test


@pytest.mark.parametrize("trigger", ["token", "phrase", "ngram"])
def test_a_notes_rows_do_not_depend_on_its_batch(fitted, trigger):
    docs, test = fitted
    ex = FeatureExtractor(groups=GROUPS + RECALL_GROUPS, trigger=trigger).fit(docs)
    together = ex.transform(test)
    alone = np.vstack([ex.transform([td]) for td in test])
    reversed_rows = np.vstack(np.split(ex.transform(test[::-1]), np.cumsum([len(td) for td in test[::-1]])[:-1])[::-1])
    np.testing.assert_array_equal(together, alone)
    np.testing.assert_array_equal(together, reversed_rows)


def test_extractors_sharing_a_batch_get_their_own_rows(fitted):
    """An ensemble's members share one TokenBatch (the notes' own columns joined once): each
    extractor's rows are those it builds alone, and a batch of other notes is refused."""
    docs, test = fitted
    first = FeatureExtractor(groups=GROUPS + RECALL_GROUPS).fit(docs[:12])
    second = FeatureExtractor(groups=GROUPS + RECALL_GROUPS, trigger="phrase").fit(docs[12:])
    batch = TokenBatch(test)
    shared = [first.transform(test, batch=batch), second.transform(test, batch=batch)]
    assert batch.memo
    np.testing.assert_array_equal(shared[0], first.transform(test))
    np.testing.assert_array_equal(shared[1], second.transform(test))
    assert not np.array_equal(shared[0], shared[1])
    with pytest.raises(ValueError, match="other documents"):
        first.transform(test[:-1], batch=batch)


def test_rows_of_a_mask_are_the_same_rows_of_the_whole_matrix(fitted):
    """transform(rows=mask) assembles only the masked tokens' rows (a screened ensemble's later
    members), exactly those of the whole matrix, windows across note boundaries included."""
    docs, test = fitted
    ex = FeatureExtractor(groups=GROUPS + RECALL_GROUPS).fit(docs)
    whole = ex.transform(test)
    mask = np.random.default_rng(0).random(len(whole)) < 0.3
    np.testing.assert_array_equal(ex.transform(test, rows=mask), whole[mask])
    assert ex.transform(test, rows=np.zeros(len(whole), dtype=bool)).shape == (0, whole.shape[1])
    with pytest.raises(ValueError, match="boolean mask"):
        ex.transform(test, rows=np.flatnonzero(mask))


@pytest.mark.parametrize("groups", [GROUPS + RECALL_GROUPS + ("lexicon",), GROUPS])
def test_rows_like_another_members_matrix_are_the_members_own_rows(fitted, groups):
    """transform(rows=mask, like=(member 0, its matrix)): the columns of the notes alone come
    from the other matrix and the learned ones are this extractor's, the same rows it builds
    alone; an extractor with other columns builds its own."""
    docs, test = fitted
    lead = FeatureExtractor(groups=groups).fit(docs[:12])
    member = FeatureExtractor(groups=groups).fit(docs[12:])
    batch = TokenBatch(test)
    full = lead.transform(test, batch=batch)
    mask = np.random.default_rng(1).random(len(full)) < 0.3
    own = member.transform(test, batch=batch, rows=mask)
    np.testing.assert_array_equal(member.transform(test, batch=batch, rows=mask, like=(lead, full)), own)
    assert not np.array_equal(own, full[mask])             # the learned columns differ
    other = FeatureExtractor(groups=groups, window=1).fit(docs[12:])
    np.testing.assert_array_equal(other.transform(test, batch=batch, rows=mask, like=(lead, full)),
                                  other.transform(test, rows=mask))
    with pytest.raises(ValueError, match="TokenBatch"):
        member.transform(test, rows=mask, like=(lead, full))
    # the suffix columns come from the other matrix only where both extractors hold the same
    # suffixes; with others, this extractor's own
    assert member.suffixes_ == lead.suffixes_
    changed = FeatureExtractor(groups=groups).fit(docs[12:])
    changed.suffixes_ = {word: 1 for word in list(lead.suffixes_)[:5]}
    mine = changed.transform(test, batch=batch, rows=mask)
    assert not np.array_equal(mine, own)
    np.testing.assert_array_equal(changed.transform(test, batch=batch, rows=mask, like=(lead, full)), mine)


def test_distinct_words_are_numpys_unique():
    batch = TokenBatch([tokenize_document(d, gold=False) for d in tiny_corpus(5, seed=4)])
    picked = batch.ids[np.random.default_rng(2).random(len(batch)) < 0.4]
    words, inverse = batch.distinct_words(picked)
    expected = np.unique(picked, return_inverse=True)
    np.testing.assert_array_equal(words, expected[0])
    np.testing.assert_array_equal(inverse, expected[1])


def test_windows_stop_at_note_boundaries(fitted):
    docs, test = fitted
    ex = FeatureExtractor(groups=GROUPS).fit(docs)
    X = ex.transform(test)
    before = [i for i, name in enumerate(ex.feature_names_) if name.endswith("@-1")]
    after = [i for i, name in enumerate(ex.feature_names_) if name.endswith("@+1")]
    starts = np.cumsum([0] + [len(td) for td in test])
    for a, b in zip(starts[:-1], starts[1:]):
        if b > a:
            assert np.all(X[a, before] == -1) and np.all(X[b - 1, after] == -1)


@pytest.mark.parametrize("variant", ["token", "phrase", "ngram"])
def test_batch_trigger_hits_are_each_notes_hits(fitted, variant):
    docs, test = fitted
    lists = TriggerLists(variant, min_count=1, min_gain=0.0).fit([(td.words, td.labels) for td in docs])
    left, right = lists.batch_hits(TokenBatch(test))
    each = [lists.hits(td.words) for td in test]
    np.testing.assert_array_equal(left, np.vstack([e[0] for e in each]))
    np.testing.assert_array_equal(right, np.vstack([e[1] for e in each]))
    assert left.any() or right.any()


def _suffix_reference(words, suffixes):
    """The per-note loop the batch form replaced: the next word after i that ends a phrase,
    at most 4 tokens ahead."""
    suffix = np.array([suffixes.get(w, 0) for w in words], dtype=np.float32)
    ahead, dist = np.zeros(len(words), np.float32), np.zeros(len(words), np.float32)
    upcoming, where = 0.0, -1
    for i in range(len(words) - 1, -1, -1):
        if where >= 0 and where - i <= 4:
            ahead[i], dist[i] = upcoming, where - i
        if suffix[i]:
            upcoming, where = suffix[i], i
    return suffix, ahead, dist


def test_heading_ids_over_a_batch_are_each_notes_ids(fitted):
    """The heading column from the batch's heading names is each note's heading's id, -2 for a
    heading the model did not learn, -1 before a note's first heading (an empty note too)."""
    docs, test = fitted
    ex = FeatureExtractor(groups=GROUPS).fit(docs)
    notes = test + [tokenize_document(Document("h", "seen today\n\nHISTORY: stable\nPLAN: none\nZZTOP: x"), gold=False)]
    want = []
    for td in notes:
        if len(td):
            s = td.structure
            ids = [ex.headings_.get(h.name, -2) for h in s.headings] + [-1]
            want += [ids[k] for k in s.heading]
    got = ex._learned_columns(TokenBatch(notes), None)["heading_id"]
    assert got.dtype == np.float32 and {-1.0, -2.0} <= set(got.tolist())
    np.testing.assert_array_equal(got, np.array(want, dtype=np.float32))


def test_suffix_columns_match_the_per_note_loop():
    words = [["st", "mary", "hospital", "a", "b", "c", "d", "clinic"], ["x", "hospital"], ["y"] * 7 + ["clinic"]]
    suffixes = {"hospital": 4, "clinic": 4, "mary": 1}
    docs = [type("Doc", (), {"words": w, "__len__": lambda self, w=w: len(w)})() for w in words]
    got = _suffix_columns(TokenBatch(docs), suffixes)
    want = [np.concatenate(parts) for parts in zip(*[_suffix_reference(w, suffixes) for w in words])]
    for name, expected in zip(("suffix_class", "suffix_ahead_class", "suffix_ahead_distance"), want):
        np.testing.assert_array_equal(got[name], expected)


@pytest.mark.parametrize("lengths", [[5, 0, 3, 1, 7], [1], [2], [1, 1], [0, 4]])
def test_a_shift_is_the_token_offset_away_in_the_same_note_or_the_fill(lengths):
    """TokenBatch.shifted, by definition, for every offset up to past the whole batch, whole or
    masked, into a new array or a given one (a feature matrix's columns)."""
    docs = [tokenize_document(Document(f"d{i}", " ".join(f"w{i}x{j}" for j in range(n)), []), gold=False)
            for i, n in enumerate(lengths)]
    batch = TokenBatch(docs)
    n = len(batch)
    values = np.arange(n * 2, dtype=np.float64).reshape(n, 2) + 10
    note = np.repeat(np.arange(len(lengths)), [len(td) for td in docs])
    mask = np.random.default_rng(n).random(n) < 0.5
    for offset in range(-n - 2, n + 3):
        expected = np.full((n, 2), -1.0)
        for i in range(n):
            if 0 <= i + offset < n and note[i + offset] == note[i]:
                expected[i] = values[i + offset]
        np.testing.assert_array_equal(batch.shifted(values, offset), expected)
        np.testing.assert_array_equal(batch.shifted(values, offset, rows=mask), expected[mask])
        into = np.zeros((n, 3), dtype=np.float32)
        batch.shifted(values, offset, out=into[:, 1:])
        np.testing.assert_array_equal(into[:, 1:], expected.astype(np.float32))
        assert not into[:, 0].any()


def test_word_groups_over_a_batch_are_each_notes_columns(fitted):
    """The word-only groups are computed once per distinct word of a batch (issue I): the same
    values as the note-by-note columns, the empty note included."""
    from itdeid.featurize import static_columns
    from itdeid.featurize.word_columns import _WORD_GROUPS, _word_group_columns
    _docs, test = fitted
    batch = TokenBatch(test)
    for group in _WORD_GROUPS:
        together = _word_group_columns(batch, group)
        for name, values in together.items():
            alone = np.concatenate([static_columns(td, group)[name] for td in test if len(td)])
            assert values.dtype == alone.dtype, (group, name)
            np.testing.assert_array_equal(values, alone, err_msg=f"{group} {name}")


def test_orthography_over_a_batch_is_each_notes_columns(fitted):
    """Orthography is computed once per distinct token text of a batch (case kept)."""
    from itdeid.featurize import static_columns
    from itdeid.featurize.note_columns import _orthography_batch
    _docs, test = fitted
    together = _orthography_batch(TokenBatch(test))
    for name, values in together.items():
        alone = np.concatenate([static_columns(td, "orthography")[name] for td in test if len(td)])
        np.testing.assert_array_equal(values, alone, err_msg=name)
        assert values.dtype == alone.dtype


def test_own_case_counts_over_a_batch_are_each_notes_counts(fitted):
    """A note's own case counts (capitalized, lower, sentence-initial) as array operations over
    a batch: the same as CaseCounts over each note alone."""
    from itdeid.featurize.case_counts import CaseCounts, _batch_own_case_counts
    docs, test = fitted
    odd = tokenize_document(Document("odd", "Ça va. ÇA va, ça VA. 3rd Smith smith SMITH. Smith", []), gold=False)
    for group in (test, docs, test + [odd]):
        alone = np.concatenate([CaseCounts().add([td]).table(td.words) for td in group if len(td)])
        np.testing.assert_array_equal(_batch_own_case_counts(TokenBatch(group)), alone)


def test_place_marks_over_a_batch_are_each_notes_marks(fitted):
    """Gazetteer phrases marked over a whole batch: the same as note by note, and no phrase
    runs from one note into the next ('New' ending one note, 'York' beginning another)."""
    from itdeid.featurize import batch_static_columns, static_columns
    _docs, test = fitted
    ends_new = tokenize_document(Document("a", "moved from New", []), gold=False)
    york = tokenize_document(Document("b", "York City and Paris, MA or New York", []), gold=False)
    group = test + [ends_new, york]
    together = batch_static_columns(TokenBatch(group), "location")
    for name, values in together.items():
        alone = np.concatenate([static_columns(td, "location")[name] for td in group if len(td)])
        np.testing.assert_array_equal(values, alone, err_msg=name)
    assert together["us_state"][len(TokenBatch(test)) + 2] == 0     # 'New' alone is no state



def test_word_neighbours_over_a_batch_are_each_notes_neighbours(fitted):
    """The nearest word within two tokens either side, found over a whole batch: each note's
    own neighbours (itdeid.featurize.lexicon.neighbours) as batch indices, and none in another note."""
    from itdeid.featurize.extractor import _batch_neighbours
    from itdeid.featurize.lexicon import neighbours
    _docs, test = fitted
    short = [tokenize_document(Document(k, text, []), gold=False)
             for k, text in (("a", "x"), ("b", ", y"), ("c", "- -"), ("d", "z , , w ."))]
    group = short[:1] + test + short[1:]
    batch = TokenBatch(group)
    for together, side in zip(_batch_neighbours(batch), (0, 1)):
        alone = np.concatenate([np.where(neighbours(td.words)[side] >= 0, neighbours(td.words)[side] + a, -1)
                                for td, a in zip(group, np.cumsum([0] + [len(td) for td in group])) if len(td)])
        np.testing.assert_array_equal(together, alone)

LAYOUT_NOTES = [
    'Dr. Smith saw "the (patient) in [bed" today.\nWIFE MARY CALLED\n(a ((b) c)) d) e ( f\n',
    ') ] } closing first, then "open\n"and" a quote "left" open "\nwife , : - mary - smith jones',
    "ÉCOLE ÇA VA BIEN\nStraße Ǆemal ǅemal ǆemal ab\nSEEN BY DR\nSMITH",
    "x",
    "mr",
    "Jones\n\n\nTITLE LINE:\nsister\nAnn",
    "HEADING:\n  a line \"with ([{ runs ([ and )]} closers\nEND",
]


@pytest.mark.parametrize("group", ["casing", "context", "heading"])
def test_layout_groups_over_a_batch_are_each_notes_columns(fitted, group):
    """The layout groups as array operations over a whole batch (itdeid.featurize.layout_batch):
    the same as note by note, with quotes, brackets (more closing than opening), capitals
    beyond ASCII, announcing words and headings at note and line boundaries."""
    from itdeid.featurize import batch_static_columns, static_columns
    _docs, test = fitted
    odd = [tokenize_document(Document(f"l{k}", text, []), gold=False) for k, text in enumerate(LAYOUT_NOTES)]
    for notes in (test, odd, odd[::-1] + test, odd[3:5]):
        together = batch_static_columns(TokenBatch(notes), group)
        assert set(together) == set(static_columns(next(td for td in notes if len(td)), group))
        for name, values in together.items():
            alone = np.concatenate([static_columns(td, group)[name] for td in notes if len(td)])
            assert values.dtype == alone.dtype, (group, name)
            np.testing.assert_array_equal(values, alone, err_msg=f"{group} {name}")
    casing = batch_static_columns(TokenBatch(odd), "casing")
    context = batch_static_columns(TokenBatch(odd), "context")
    assert casing["announced_by"].any() and context["in_quotes"].any() and context["in_brackets"].any()
    assert context["line_upper"].any()
