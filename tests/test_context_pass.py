"""The context stage (itdeid.estimators.context_pass): its columns, and a stacked TokenModel end to end."""
import json

import numpy as np
import pytest

from itdeid.estimators.context_pass import context_features, context_names, stacked_names
from itdeid.document import LABELS
from itdeid.errors import UserError
from itdeid.featurize import tokenize_document
from itdeid.estimators.model import TokenModel

from helpers import tiny_corpus


def _proba(p_phi, cls=1):
    """(n, 9) probabilities with P(PHI) ``p_phi`` all on class ``cls``."""
    p = np.zeros((len(p_phi), len(LABELS)), dtype=np.float32)
    p[:, 0] = 1 - np.asarray(p_phi)
    p[:, cls] = p_phi
    return p


def test_columns_read_the_neighbours_and_the_other_occurrences():
    words = ["dr", "smith", "saw", "smith", "today", ".", "."]
    p_phi = [0.1, 0.9, 0.0, 0.2, 0.0, 0.5, 0.3]
    X = context_features(words, _proba(p_phi))
    col = {n: X[:, i] for i, n in enumerate(context_names())}
    assert X.shape == (len(words), len(context_names()))
    assert list(col["pass1_phi_at+1"][:3]) == pytest.approx([0.9, 0.0, 0.2])
    assert col["pass1_phi_at-1"][0] == 0 and col["pass1_phi_at+3"][-1] == 0   # beyond the note
    assert col["pass1_phi_both_sides"][2] == pytest.approx(0.5)   # min(left 0.9, right 0.5)
    # each "smith" sees the other one, never itself; a word seen once sees nothing
    assert col["same_word_phi_max"][1] == pytest.approx(0.2)
    assert col["same_word_phi_max"][3] == pytest.approx(0.9)
    assert col["same_word_count"][1] == 1 and col["same_word_count"][2] == 0
    assert col[f"same_word_{LABELS[1]}_max"][3] == pytest.approx(0.9)
    # punctuation is not a word whose judgement carries over
    assert col["same_word_count"][5] == 0 and col["same_word_phi_max"][5] == 0


@pytest.fixture(scope="module")
def stacked():
    docs = tiny_corpus()
    model = TokenModel(previous="none", context_pass=True, target_recall=0.97, n_estimators=10,
                       n_jobs=1).fit(docs)
    return docs, model


def test_a_stacked_model_tags_saves_and_loads(tmp_path, stacked):
    docs, model = stacked
    assert model.context_learner_ is not None and model.threshold_ is not None
    # the stage the ensemble stacks on its members: a PHI-or-not model over the stacked columns
    assert model.feature_names_ == model.extractor_.feature_names_
    assert list(model.context_learner_.classes_) == [0, 1]
    X = np.zeros((1, len(stacked_names())), dtype=np.float32)
    assert model.context_learner_.predict_proba(X).shape == (1, len(LABELS))
    test = [tokenize_document(d, gold=False) for d in docs[:5]]
    proba = model.predict_proba_tokenized(test)
    assert [p.shape for p in proba] == [(len(td), len(LABELS)) for td in test]
    model.save(tmp_path)
    loaded = TokenModel.load(tmp_path)
    again = loaded.predict_proba_tokenized([tokenize_document(d, gold=False) for d in docs[:5]])
    assert all(np.array_equal(a, b) for a, b in zip(proba, again))
    # the second pass is what tags: it finds the gold PHI of notes like its training notes
    found = [s for spans in loaded.predict(docs[:5]) for s in spans]
    gold = [s for d in docs[:5] for s in d.spans]
    assert len(found) >= 0.9 * len(gold)


def test_a_model_folder_without_its_second_learner_is_refused(tmp_path, stacked):
    _, model = stacked
    model.save(tmp_path)
    (tmp_path / "context" / "learner.ubj.gz").unlink()
    with pytest.raises(UserError, match="learner file missing"):
        TokenModel.load(tmp_path)
    state = json.loads((tmp_path / "model.json").read_text())
    state["params"]["context_pass"] = False
    (tmp_path / "model.json").write_text(json.dumps(state))
    with pytest.raises(UserError, match="context stage's learner is missing or not expected"):
        TokenModel.load(tmp_path)


def test_a_folder_of_the_nine_class_context_pass_is_refused_with_what_to_do(tmp_path, stacked):
    _, model = stacked
    model.save(tmp_path)
    state = json.loads((tmp_path / "model.json").read_text())
    state["feature_names"] += context_names()      # the columns the nine-class pass read
    (tmp_path / "model.json").write_text(json.dumps(state))
    with pytest.raises(UserError, match="model.json.*train the model again"):
        TokenModel.load(tmp_path)


def test_the_stage_keeps_the_first_pass_class_of_a_phi_token(stacked):
    docs, model = stacked
    test = [tokenize_document(d, gold=False) for d in docs[:3]]
    first, second = model.pass_probabilities(test)
    for a, b in zip(first, second):
        phi = (1 - a[:, 0]) > 0.5
        assert np.array_equal(a[phi, 1:].argmax(axis=1), b[phi, 1:].argmax(axis=1))


def test_context_pass_refuses_resubstitution():
    with pytest.raises(ValueError, match="context_pass"):
        TokenModel(context_pass=True, resubstitutions=1, n_estimators=2).fit(tiny_corpus(4))


def test_the_model_averages_its_two_passes(stacked):
    docs, model = stacked
    test = [tokenize_document(d, gold=False) for d in docs[:3]]
    first, second = model.pass_probabilities(test)
    for w in (0.0, 0.5, 1.0):
        model.set_params(context_weight=w)
        blended = model.predict_proba_tokenized(test)
        assert all(np.allclose(p, w * b + (1 - w) * a) for p, a, b in zip(blended, first, second))
    model.set_params(context_weight=0.5)
    with pytest.raises(ValueError, match="context_weight"):
        TokenModel(context_weight=2.0, n_estimators=2).fit(docs[:4])


def _same_word_reference(words, proba):
    """The per-word loop the array form replaced (same numbers, bit for bit)."""
    out = np.zeros((len(words), 11), dtype=np.float32)
    positions = {}
    for i, w in enumerate(words):
        if any(ch.isalnum() for ch in w):
            positions.setdefault(w, []).append(i)
    p_phi = 1.0 - proba[:, 0]
    for rows in positions.values():
        if len(rows) < 2:
            continue
        rows = np.array(rows)
        values = np.column_stack([p_phi[rows], proba[rows, 1:]])
        order = np.argsort(-values, axis=0, kind="stable")
        cols = np.arange(values.shape[1])
        holds = np.arange(len(rows))[:, None] == order[0][None, :]
        others = np.where(holds, values[order[1], cols], values[order[0], cols])
        out[rows, 0] = len(rows) - 1
        out[rows, 1] = others[:, 0]
        out[rows, 2] = (p_phi[rows].sum() - p_phi[rows]) / (len(rows) - 1)
        out[rows, 3:] = others[:, 1:]
    return out


def test_same_word_columns_match_the_per_word_loop():
    from itdeid.estimators.context_pass import _same_word
    from itdeid.featurize import tokenize_words
    rng = np.random.default_rng(0)
    for doc in tiny_corpus(20, seed=6):
        words = tokenize_words(doc.text) + ["the"] * 9 + ["-", "-"]      # a word seen ten times
        proba = rng.dirichlet(np.ones(9) * 0.3, size=len(words)).astype(np.float32)
        proba[rng.random(len(words)) < 0.3] = proba[0]                     # ties
        np.testing.assert_array_equal(_same_word(words, proba), _same_word_reference(words, proba))


def test_the_batch_stacked_columns_are_each_notes_own():
    """batch_stacked_columns over notes end to end gives each note's stacked_columns, bit for
    bit: windows stop at note edges and a word repeats only within its note (an empty note, and
    a word repeated past numpy's 8-term summation block, included)."""
    from itdeid.estimators.context_pass import batch_stacked_columns, stacked_columns
    from itdeid.document import Document
    from itdeid.featurize import tokenize_document
    from itdeid.featurize.token_batch import TokenBatch
    from helpers import tiny_corpus
    docs = [tokenize_document(d, gold=False) for d in tiny_corpus(6, seed=5)]
    docs.insert(2, tokenize_document(Document("empty", "", []), gold=False))
    docs.append(tokenize_document(Document("rep", " ".join(["smith", "jones"] * 12 + ["smith"]), []), gold=False))
    batch = TokenBatch(docs)
    proba = np.random.default_rng(3).dirichlet(np.ones(9), size=len(batch)).astype(np.float32)
    parts = np.split(proba, np.cumsum(batch.lengths)[:-1])
    expected = np.vstack([stacked_columns(td, p) for td, p in zip(docs, parts) if len(td)])
    np.testing.assert_array_equal(batch_stacked_columns(batch, proba), expected)
    # a screened ensemble's stage asks for some rows only: the same rows, bit for bit
    for rows in (np.random.default_rng(4).random(len(batch)) < 0.2, np.zeros(len(batch), dtype=bool),
                 np.ones(len(batch), dtype=bool)):
        np.testing.assert_array_equal(batch_stacked_columns(batch, proba, rows), expected[rows])


def _repeats_by_sorting(ids, proba):
    """The same-word columns as they were computed before (a sort per column), the reference."""
    n = len(ids)
    out = np.zeros((n, 3 + len(LABELS) - 1), dtype=np.float32)
    counts = np.bincount(ids[ids >= 0]) if (ids >= 0).any() else np.zeros(1, dtype=np.int64)
    rows = np.flatnonzero((ids >= 0) & (counts[np.maximum(ids, 0)] >= 2))
    if not len(rows):
        return out
    rows = rows[np.argsort(ids[rows], kind="stable")]
    word = ids[rows]
    starts = np.flatnonzero(np.r_[True, word[1:] != word[:-1]])
    size = np.diff(np.r_[starts, len(rows)])
    group = np.repeat(np.arange(len(starts)), size)
    values = np.column_stack([1.0 - proba[rows, 0], proba[rows, 1:]]).astype(np.float32)
    others = np.empty_like(values)
    for j in range(values.shape[1]):
        order = np.lexsort((-values[:, j], group))
        others[:, j] = values[order[starts], j][group]
        others[order[starts], j] = values[order[starts + 1], j]
    phi = values[:, 0]
    total = np.array([phi[a:a + k].sum() for a, k in zip(starts.tolist(), size.tolist())], dtype=np.float32)
    out[rows, 0] = size[group] - 1
    out[rows, 1] = others[:, 0]
    out[rows, 2] = (total[group] - phi) / (size[group] - 1).astype(np.float32)
    out[rows, 3:] = others[:, 1:]
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_repeated_words_columns_equal_the_sorting_reference_bit_for_bit(seed):
    """Maxima and runner-ups by segment reductions, word sums rounded as numpy's sum: the
    same bits as a sort per column and a sum per word, ties and long words included."""
    from itdeid.estimators.context_pass import _repeats
    rng = np.random.default_rng(seed)
    n = 3000
    ids = rng.integers(-1, 300, n)
    ids[:200] = 7                                   # one word of 200 tokens
    for proba in (rng.random((n, 9)).astype(np.float32),
                  rng.integers(0, 3, (n, 9)).astype(np.float32) / 2):   # many ties
        got, want = _repeats(ids, proba), _repeats_by_sorting(ids, proba)
        assert got.view(np.uint32).tolist() == want.view(np.uint32).tolist()


def test_word_sums_round_as_numpys_sum():
    from itdeid.estimators.context_pass import _word_sums
    rng = np.random.default_rng(3)
    size = np.array([1, 2, 5, 7, 8, 9, 16, 31, 129, 3])
    values = (rng.random(size.sum()) * 1e3).astype(np.float32)
    starts = np.r_[0, np.cumsum(size)[:-1]]
    want = [values[a:a + k].sum() for a, k in zip(starts, size)]
    assert _word_sums(values, starts, size).tolist() == want
