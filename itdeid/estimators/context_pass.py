"""The context stage: a PHI-or-not model stacked on the probabilities of the stage below it.

A token model decides each token from the attributes of a small window of words. What it cannot
see is what it concluded about those words. On real notes that is where most of the PHI it
ranks lowest sits: the second half of a name whose first half it found ("Z. MILLER", "Bethany
Mercy Methodist"), the initial before a surname ("E. BARROW"), the bracket around a phone number,
and the repeat of a word it tagged confidently three lines earlier in the same note (Yang &
Garibaldi's propagation). The paper's previous-class feature carries the left neighbour's
decision only, and forces tagging to go left to right.

So a second stage is stacked on the first (Wolpert's stacked generalization). Its rows are
:func:`stacked_columns`: the first stage's label probabilities of the token and of the tokens
around it, how the note's other occurrences of the same word were judged, and the token's own
shape and English frequency (so it can tell a bracket from a word), no word itself. It says PHI
or not (two classes: one tree a boosting round); a PHI token's class stays the first stage's
(:func:`stage_labels`), and the model's probabilities are the blend of both stages
(:func:`blend`, ``context_weight``). Both stages tag all tokens at once.

The stage must learn from first-stage probabilities like those it will see on new notes, not
from a model's confident fit of its own training rows: it trains on out-of-fold probabilities,
each training note's predicted by models that saw none of its patient's notes. One stage model
per inner fold, trained on the other folds' rows, gives the stage's own out-of-fold
probabilities, which the threshold is chosen on (:func:`fit_stage`). The same stage serves an
:class:`~itdeid.estimators.ensemble.InnerEnsemble` (over its members' mean, keeping the per-fold
stage models) and a single :class:`~itdeid.estimators.model.TokenModel` (over its inner models'
probabilities, tagging with one stage model refitted on all the rows).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from itdeid.document import LABELS
from itdeid.errors import ParameterError
from itdeid.text.tokens import LETTER_OR_DIGIT

#: Token offsets whose first-pass P(PHI) is a column; the nearest ones also give every class.
OFFSETS = (-3, -2, -1, 1, 2, 3)
CLASS_OFFSETS = (-1, 1)


def check_context_weight(value) -> None:
    """A ValueError unless ``value`` is a number in [0, 1] (the weight of a context stage in
    the blend with the stage below it)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise ParameterError(f"context_weight must be a number in [0, 1], got {value!r}")


def blend(below: np.ndarray, stage: np.ndarray, weight: float) -> np.ndarray:
    """A context stage's probabilities blended with those of the stage below it:
    ``weight * stage + (1 - weight) * below`` (``context_weight``; 0 is the stage below alone)."""
    w = float(weight)
    return w * stage + (1.0 - w) * below


def context_names() -> list[str]:
    """Names of the columns :func:`context_features` returns, in order."""
    phi = LABELS[1:]
    names = [f"pass1_{c}" for c in phi] + ["pass1_phi"]
    names += [f"pass1_phi_at{o:+d}" for o in OFFSETS]
    names += [f"pass1_{c}_at{o:+d}" for o in CLASS_OFFSETS for c in phi]
    names += ["pass1_phi_max_window", "pass1_phi_both_sides"]
    names += ["same_word_count", "same_word_phi_max", "same_word_phi_mean"]
    names += [f"same_word_{c}_max" for c in phi]
    return names


def _shifted(values: np.ndarray, offset: int) -> np.ndarray:
    """``values`` moved so row i holds row ``i + offset`` (zero beyond the document)."""
    out = np.zeros_like(values)
    n = len(values)
    if offset > 0 and offset < n:
        out[:n - offset] = values[offset:]
    elif offset < 0 and -offset < n:
        out[-offset:] = values[:n + offset]
    return out


def _same_word(words: Sequence[str], proba: np.ndarray) -> np.ndarray:
    """Per token: how many *other* tokens of the note are the same word (lower-cased, with a
    letter or digit), the highest and mean first-pass P(PHI) among them, and the highest
    probability of each PHI class among them.

    All repeated words at once: tokens sorted by word (stably, so in note order within a word),
    each column ranked within its word; a token's "highest among the others" is its word's
    maximum, or the runner-up for the token holding the maximum (the first of equal ones)."""
    n = len(words)
    index: dict[str, int] = {}
    ids = np.array([index.setdefault(w, len(index)) for w in words], dtype=np.int64).reshape(n)
    countable = np.array([LETTER_OR_DIGIT.search(w) is not None for w in index], dtype=bool)
    if not countable.any():
        return np.zeros((n, 3 + len(LABELS) - 1), dtype=np.float32)
    ids[~countable[ids]] = -1           # punctuation: no word to repeat
    return _repeats(ids, proba)


def _repeats(ids: np.ndarray, proba: np.ndarray) -> np.ndarray:
    """:func:`_same_word`'s columns from each token's word number ``ids`` (-1: no word; equal
    numbers are the same word of the same note)."""
    n = len(ids)
    out = np.zeros((n, 3 + len(LABELS) - 1), dtype=np.float32)
    if not (ids >= 0).any():
        return out
    counts = np.bincount(ids[ids >= 0])
    rows = np.flatnonzero((ids >= 0) & (counts[np.maximum(ids, 0)] >= 2))
    if not len(rows):
        return out
    rows = rows[np.argsort(ids[rows], kind="stable")]
    word = ids[rows]
    starts = np.flatnonzero(np.r_[True, word[1:] != word[:-1]])
    size = np.diff(np.r_[starts, len(rows)])
    group = np.repeat(np.arange(len(starts)), size)
    values = np.column_stack([1.0 - proba[rows, 0], proba[rows, 1:]]).astype(np.float32)
    # per word and column, the highest value; the first token holding it (in note order) gets
    # the highest of the others instead (a sort per column had done this)
    best = np.maximum.reduceat(values, starts, axis=0)
    position = np.arange(len(rows))[:, None]
    holder = np.minimum.reduceat(np.where(values == best[group], position, len(rows)), starts, axis=0)
    column = np.arange(values.shape[1])[None, :]
    rest = values.copy()
    rest[holder, column] = -np.inf
    others = best[group]
    others[holder, column] = np.maximum.reduceat(rest, starts, axis=0)
    phi = values[:, 0]
    total = _word_sums(phi, starts, size)
    out[rows, 0] = size[group] - 1
    out[rows, 1] = others[:, 0]
    out[rows, 2] = (total[group] - phi) / (size[group] - 1).astype(np.float32)
    out[rows, 3:] = others[:, 1:]
    return out


#: Numpy sums fewer values than this one after another from 0 (more: in pairs).
_SEQUENTIAL = 8


def _word_sums(values: np.ndarray, starts: np.ndarray, size: np.ndarray) -> np.ndarray:
    """Each word's sum of its (float32) ``values``, rounded as numpy's own ``sum`` of the word
    rounds it (its summation order depends on the count, and np.add.reduceat's differs): a
    word of fewer than :data:`_SEQUENTIAL` values summed column by column of a zero-padded
    block, as numpy sums them, one after another from 0; a longer word by numpy's sum."""
    total = np.zeros(len(starts), dtype=np.float32)
    short = np.flatnonzero(size < _SEQUENTIAL)
    if len(short):
        k = np.arange(_SEQUENTIAL - 1)
        at = starts[short][:, None] + k
        block = np.where(k < size[short][:, None], values[np.minimum(at, len(values) - 1)], np.float32(0))
        acc = np.zeros(len(short), dtype=np.float32)
        for j in range(block.shape[1]):
            acc = acc + block[:, j]
        total[short] = acc
    for g in np.flatnonzero(size >= _SEQUENTIAL).tolist():
        total[g] = values[starts[g]:starts[g] + size[g]].sum()
    return total


def context_features(words: Sequence[str], proba: np.ndarray) -> np.ndarray:
    """The context columns (:func:`context_names`) of one document's tokens, from its
    lower-cased ``words`` and the first pass's (n_tokens, 9) label probabilities."""
    proba = np.asarray(proba, dtype=np.float32)
    cols = _around(proba, _shifted)
    cols.append(_same_word(words, proba))
    return np.hstack(cols).astype(np.float32)


def _around(proba: np.ndarray, shift, rows: np.ndarray | None = None) -> list[np.ndarray]:
    """The context columns before the repeated words': the token's own probabilities, those of
    the tokens around (``shift(values, offset)``, zero beyond the note), their highest, and the
    lower of the highest on each side. ``rows``: a boolean mask of the tokens wanted, which
    ``shift`` also gives only (the others' columns are not made)."""
    p_phi = (1.0 - proba[:, 0])[:, None]
    own = slice(None) if rows is None else rows
    cols = [proba[own, 1:], p_phi[own]]
    cols += [shift(p_phi, o) for o in OFFSETS]
    cols += [shift(proba[:, 1:], o) for o in CLASS_OFFSETS]
    around = np.hstack(cols[2:2 + len(OFFSETS)])
    left = np.max(around[:, :len(OFFSETS) // 2], axis=1)
    right = np.max(around[:, len(OFFSETS) // 2:], axis=1)
    return cols + [around.max(axis=1)[:, None], np.minimum(left, right)[:, None]]


def batch_context_features(batch, proba: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
    """:func:`context_features` of every note of a :class:`~itdeid.featurize.token_batch.TokenBatch` at
    once, end to end (the same numbers: shifts stop at note boundaries, and a word repeats only
    within its note); ``proba`` the notes' label probabilities, end to end. A per-note loop of
    small array operations cost the context stage about a microsecond a token.
    ``rows``: a boolean mask over the tokens; only their rows, the same as ``[rows]`` of all."""
    proba = np.asarray(proba, dtype=np.float32)
    cols = _around(proba, lambda values, o: batch.shifted(values, o, fill=0.0, rows=rows), rows)
    countable = np.array([LETTER_OR_DIGIT.search(w) is not None for w in batch.vocabulary], dtype=bool)
    key = np.repeat(np.arange(len(batch.lengths), dtype=np.int64), batch.lengths) * len(batch.vocabulary) + batch.ids
    ids = np.full(len(batch), -1, dtype=np.int64)
    words = countable[batch.ids] if len(batch) else np.zeros(0, dtype=bool)
    ids[words] = np.unique(key[words], return_inverse=True)[1]
    repeats = _repeats(ids, proba)          # a word's other occurrences: all tokens are read
    cols.append(repeats if rows is None else repeats[rows])
    return np.hstack(cols).astype(np.float32)


def batch_stacked_columns(batch, proba: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
    """:func:`stacked_columns` of every note of a :class:`~itdeid.featurize.token_batch.TokenBatch`, end
    to end (the same rows); ``proba`` the notes' label probabilities, end to end. ``rows``: a
    boolean mask over the tokens; only their rows (a screened ensemble's stage reads the few
    tokens the screen keeps)."""
    from itdeid.featurize import ORTHOGRAPHY_COLUMNS, batch_static_columns
    orthography = batch_static_columns(batch, "orthography")
    own = [orthography[c] for c in ORTHOGRAPHY_COLUMNS]
    own.append(batch_static_columns(batch, "frequency")["zipf"])
    own_rows = np.column_stack(own).reshape(len(batch), len(own))
    return np.hstack([batch_context_features(batch, proba, rows),
                      own_rows if rows is None else own_rows[rows]]).astype(np.float32)


def stacked_names() -> list[str]:
    """Names of the columns :func:`stacked_columns` returns, in order."""
    from itdeid.featurize import ORTHOGRAPHY_COLUMNS
    return context_names() + [f"word_{c}" for c in ORTHOGRAPHY_COLUMNS] + ["word_zipf"]


def stacked_columns(td, proba: np.ndarray) -> np.ndarray:
    """The rows of a stacked context stage that has no feature extractor of its own (the one
    :class:`itdeid.estimators.ensemble.InnerEnsemble` puts over its members' mean): the context columns of
    the first stage's probabilities ``proba``, and the token's own shape and English frequency
    (the document-only columns every model of the notes computes once), so the stage can tell
    a bracket from a word and a rare word from a common one."""
    from itdeid.featurize import ORTHOGRAPHY_COLUMNS, static_columns
    ortho = static_columns(td, "orthography")
    own = [ortho[c] for c in ORTHOGRAPHY_COLUMNS] + [static_columns(td, "frequency")["zipf"]]
    return np.hstack([context_features(td.words, proba),
                      np.column_stack(own).reshape(len(td.tokens), -1)]).astype(np.float32)


def stage_labels(p_phi: np.ndarray, below: np.ndarray) -> np.ndarray:
    """The context stage's P(PHI) as (n_tokens, 9) label probabilities: non-PHI ``1 - p_phi``,
    and ``p_phi`` shared among the PHI classes as the stage below (``below``) shares its own PHI
    mass (evenly where it gives the PHI classes nothing), so a blend of the two is the blend of
    P(PHI) with the class of the stage below."""
    p_phi = np.asarray(p_phi, dtype=np.float32)
    classes = np.asarray(below, dtype=np.float32)[:, 1:]
    mass = classes.sum(axis=1, keepdims=True)
    share = np.where(mass > 0, classes / np.where(mass > 0, mass, 1.0), 1.0 / classes.shape[1])
    return np.column_stack([1.0 - p_phi, share * p_phi[:, None]]).astype(np.float32)


def fit_stage(docs, below: list[np.ndarray], fold: np.ndarray, new_learner, weight: float,
              refit: bool = False):
    """The context stage over tokenized ``docs`` (with gold labels) whose stage below gave each
    note the out-of-fold label probabilities ``below`` (one (n_tokens, 9) array a note), with
    ``fold`` each note's inner fold (a patient's notes in one fold).

    Returns ``(models, blended)``: one stage model per inner fold, trained on the other folds'
    rows (``new_learner(f)`` makes fold ``f``'s, unfitted), or with ``refit`` the one model
    ``new_learner(None)`` trained on all the rows after them; and per note the out-of-fold blend
    of the stage below with the per-fold models' probabilities (:func:`blend` at ``weight``),
    what a threshold is chosen on."""
    from itdeid.featurize.token_batch import TokenBatch
    fold = np.asarray(fold)
    lengths = [len(td) for td in docs]
    doc_fold = np.repeat(fold, lengths)
    X = batch_stacked_columns(TokenBatch(docs), np.concatenate(below))
    phi = (np.concatenate([td.labels for td in docs]) != 0).astype(np.int64)
    held = np.zeros(len(phi), dtype=np.float32)
    models = []
    for f in np.unique(fold):
        learner = new_learner(int(f))
        learner.fit(X[doc_fold != f], phi[doc_fold != f])
        held[doc_fold == f] = 1.0 - learner.predict_proba(X[doc_fold == f])[:, 0]
        models.append(learner)
    start = np.cumsum([0] + lengths)
    blended = [blend(p, stage_labels(held[start[i]:start[i + 1]], p), weight) for i, p in enumerate(below)]
    if refit:
        models = [new_learner(None).fit(X, phi)]
    return models, blended


def stage_proba(models, batch, below: np.ndarray, keep: np.ndarray | None = None) -> np.ndarray:
    """The context stage's (n_tokens, 9) label probabilities (:func:`stage_labels`) of the
    notes of ``batch`` (a :class:`~itdeid.featurize.token_batch.TokenBatch`), end to end, from
    the stage below's ``below``: the mean P(PHI) of the stage ``models``, one call a model for the
    whole batch. ``keep``: a boolean mask of the tokens the stage reads; the others keep what the
    stage below says."""
    if keep is None:
        X = batch_stacked_columns(batch, below)
        p_phi = 1.0 - np.mean([m.predict_proba(X)[:, 0] for m in models], axis=0)
    else:
        p_phi = 1.0 - below[:, 0]
        if keep.any():
            X = batch_stacked_columns(batch, below, keep)
            p_phi[keep] = 1.0 - np.mean([m.predict_proba(X)[:, 0] for m in models], axis=0)
    return stage_labels(p_phi, below)
