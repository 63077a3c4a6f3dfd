"""The feature extractor: what the features need learned from training notes, and the matrix.

:class:`FeatureExtractor` follows scikit-learn's contract (``fit``, ``transform``): ``fit``
learns the trigger lists, the heading vocabulary, case counts and the words never PHI in
training (keeping nothing learned from a PHI occurrence); ``transform`` joins those
learned columns with the notes' own (:mod:`itdeid.featurize.groups`) into one float32 matrix,
one row a token, with the windowed columns of its neighbours.
"""
from __future__ import annotations

from collections import Counter
from typing import Sequence

import numpy as np

from itdeid.featurize.casing import CASING_COLUMNS
from itdeid.document import PHI_CLASSES
from itdeid.featurize.case_counts import CaseCounts, _batch_own_case_counts, _log_ratio
from itdeid.featurize.groups import GROUPS, _STATIC_GROUPS, batch_static_columns, check_groups
from itdeid.featurize.note_columns import ORTHOGRAPHY_COLUMNS, phrase_suffixes
from itdeid.featurize.tokenized import TokenizedDocument, token_offsets, tokenize_words
from itdeid.estimators.folds import group_key
from itdeid.featurize.languages import LANGUAGE_COLUMNS
from itdeid.featurize.lexicon import LEXICON_COLUMNS, MIN_COUNT, Lexicon, fold_lexicons, lexicon_columns
from itdeid.featurize.lexicon import N_CLASSES as LEXICON_CLASSES
from itdeid.featurize.spelling import SPELLING_COLUMNS
from itdeid.featurize.token_batch import TokenBatch
from itdeid.text.tokens import LETTER_OR_DIGIT
from itdeid.featurize.triggers import TriggerLists
from itdeid.featurize.word_lists import gazetteer_sets

#: Inner folds of the lexicon's out-of-fold statistics for training rows.
LEXICON_FOLDS = 5
#: Columns of the trusted-phrase group: class code of the trusted phrase a token lies in, and
#: the token's place in it (1 first, 2 inside, 3 last, 4 a one-token phrase).
TRUSTED_COLUMNS = ("trusted_class", "trusted_position")


class FeatureExtractor:
    """Learns what features need from training documents and builds the feature matrix.

    Parameters
    ----------
    groups : sequence of str, default all of :data:`GROUPS`
        Feature groups to compute; the others are left out of the matrix.
    trigger : {"token", "phrase", "ngram"}, default "token"
        Which trigger variant feeds the ``basic`` group.
    window : int, default 2
        Attributes of this many tokens on each side are added for the windowed columns.
    trigger_min_count, trigger_min_gain, trigger_top_k
        Filters of the trigger lists (see :mod:`itdeid.featurize.triggers`).
    nonphi_min_count : int, default 3
        A word seen this often in training and never as PHI counts as a non-PHI word.
    lexicon_min_count : int, default 2
        Ordinary occurrences a word needs to be kept by the ``lexicon`` group (:mod:`itdeid.featurize.lexicon`).

    Attributes (after fit)
    ----------------------
    triggers_ : TriggerLists
    suffixes_ : dict[str, int]  word -> class code of phrases it ends (features/suffixes.json)
    headings_ : dict[str, int]  heading name -> id
    nonphi_ : set[str]          words never PHI in training
    case_counts_ : CaseCounts   case counts of the ordinary (non-PHI) occurrences of safe words
    lexicon_ : Lexicon or None  the ``lexicon`` group's word statistics (None when it is off)
    feature_names_ : list[str]
    """

    def __init__(self, groups: Sequence[str] = GROUPS, trigger: str = "token", window: int = 2,
                 trigger_min_count: int = 3, trigger_min_gain: float = 1e-4, trigger_top_k: int = 60,
                 nonphi_min_count: int = 3, lexicon_min_count: int = MIN_COUNT):
        self.groups = tuple(groups)
        self.trigger = trigger
        self.window = window
        self.trigger_min_count = trigger_min_count
        self.trigger_min_gain = trigger_min_gain
        self.trigger_top_k = trigger_top_k
        self.nonphi_min_count = nonphi_min_count
        self.lexicon_min_count = lexicon_min_count

    # -- fit --------------------------------------------------------------------------------
    def fit(self, docs: Sequence[TokenizedDocument]) -> "FeatureExtractor":
        check_groups(self.groups)
        if any(td.labels is None for td in docs):
            raise ValueError("FeatureExtractor.fit needs documents tokenized with gold labels")
        self.triggers_ = TriggerLists(self.trigger, self.trigger_min_count, self.trigger_min_gain,
                                      self.trigger_top_k).fit([(td.words, td.labels) for td in docs])
        # What fit learns is saved in the model file, so it keeps nothing learned from a PHI
        # occurrence: every word it stores occurred outside PHI in training (or is in a
        # shipped list), and every count describes those ordinary occurrences only. So a word
        # that was only ever PHI (a patient's surname) is in no file of a saved model, and for
        # a word that was both ('Brown', 'brown stool') only its ordinary uses are counted.
        seen, as_phi = Counter(), Counter()
        headings = Counter()
        for td in docs:
            for w, label in zip(td.words, td.labels):
                seen[w] += 1
                if label:
                    as_phi[w] += 1
            headings.update(self._phi_free_headings(td))
        ordinary = {w for w, n in seen.items() if n > as_phi[w]}
        english = gazetteer_sets()["english"]
        # suffixes are declarative (features/suffixes.json), no longer learned from PHI phrase ends
        self.suffixes_ = dict(phrase_suffixes())
        self.nonphi_ = {w for w, n in seen.items() if n >= self.nonphi_min_count and not as_phi[w]}
        safe = self.nonphi_ | (english & ordinary)
        self.headings_ = {name: i for i, name in enumerate(sorted(
            name for name, n in headings.items()
            if n >= 2 and all(w in safe for w in tokenize_words(name) if w.isalpha())))}
        self.case_counts_ = CaseCounts().add(docs, ordinary_only=True).restricted(safe)
        self.lexicon_ = Lexicon.count(docs, self.lexicon_min_count) if "lexicon" in self.groups else None
        self.feature_names_ = self._names()
        return self

    @staticmethod
    def _phi_free_headings(td: TokenizedDocument) -> set[str]:
        """Names of the document's headings none of whose tokens is PHI (a heading counts
        towards the vocabulary only through its ordinary occurrences)."""
        if not td.structure.headings:
            return set()
        starts, _ends = token_offsets(td)
        phi_starts = starts[np.asarray(td.labels) != 0]
        names = set()
        for h in td.structure.headings:
            if not ((phi_starts >= h.start) & (phi_starts < h.end)).any():
                names.add(h.name)
        return names

    # -- transform --------------------------------------------------------------------------
    def transform(self, docs: Sequence[TokenizedDocument], trusted: Sequence[np.ndarray] | None = None,
                  batch: TokenBatch | None = None, rows: np.ndarray | None = None,
                  like: tuple["FeatureExtractor", np.ndarray] | None = None) -> np.ndarray:
        """The feature matrix of all tokens of ``docs``, documents one after another.

        ``trusted``: per document, an (n_tokens, k) array of trusted-phrase attributes;
        required when the ``trusted`` group is on. ``batch``: a :class:`TokenBatch` of these
        same ``docs`` shared with other extractors (an ensemble's members), so the columns of
        the notes alone are joined once. ``rows``: a boolean mask over all the tokens; only
        their rows are assembled (a screened ensemble's later members, :mod:`itdeid.estimators.ensemble`),
        the same rows as ``transform(docs)[rows]``.

        ``like``: another extractor and its full matrix of the same batch (an ensemble's member
        0). Where that extractor has the same columns, the columns of the notes alone are its
        matrix's at ``rows`` and only this extractor's learned columns are computed: the same
        matrix, without assembling those columns once for every member.
        """
        if not hasattr(self, "feature_names_"):
            raise RuntimeError("FeatureExtractor is not fitted yet: call fit() first")
        if like is not None and rows is not None and self._same_columns(like[0]):
            return self._like(docs, batch, rows, like[1], like[0])
        return self._matrix(docs, trusted, batch=batch, rows=rows)

    def _same_columns(self, other: "FeatureExtractor") -> bool:
        """Whether ``other``'s matrix has this one's columns, each of the notes alone the same
        (the same groups and window; no trusted phrases, which are given per call)."""
        return (other.feature_names_ == self.feature_names_ and other.window == self.window
                and tuple(other.groups) == tuple(self.groups) and "trusted" not in self.groups)

    def _like(self, docs, batch: TokenBatch | None, rows: np.ndarray, full: np.ndarray,
              other: "FeatureExtractor | None" = None) -> np.ndarray:
        """:meth:`_matrix` at ``rows``, from ``full`` (the matrix of ``other``, an extractor with
        the same columns, over the same batch) with this extractor's learned columns written
        over it; those it learned as ``other`` did (the phrase suffixes) are ``full``'s already."""
        docs = list(docs)
        if batch is None or len(batch.docs) != len(docs) or any(a is not b for a, b in zip(batch.docs, docs)):
            raise ValueError("transform(like=...) needs the TokenBatch the full matrix was built from")
        if rows.dtype != bool or rows.shape != (len(batch),) or full.shape != (len(batch), len(self.feature_names_)):
            raise ValueError("rows must be a boolean mask over the tokens of the full matrix")
        if not rows.any():
            return np.zeros((0, len(self.feature_names_)), dtype=np.float32)
        X = full[rows]
        cols = self._learned_columns(batch, None, batch.near(rows, self.window), same_as=other)
        at = {name: j for j, name in enumerate(self.feature_names_)}
        for name, values in cols.items():
            X[:, at[name]] = np.asarray(values)[rows]
        _, windowed = self._base_names()
        learned = [name for name in windowed if name in cols]
        if learned:
            w = np.column_stack([cols[name] for name in learned])
            for o in (o for o in range(-self.window, self.window + 1) if o):
                X[:, [at[f"{name}@{o:+d}"] for name in learned]] = batch.shifted(w, o, rows=rows)
        return X

    def fit_transform(self, docs, trusted=None, copies: Sequence[TokenizedDocument] = ()):
        """Fit on ``docs``, then the training rows: those of ``docs``, then those of ``copies``
        (re-substituted training notes, :mod:`itdeid.estimators.resubstitute`, which are not fitted on).

        With the ``lexicon`` group, each document's lexicon columns come from the other
        patients' notes (:func:`itdeid.featurize.lexicon.fold_lexicons`), since a note's own counts would
        give its labels away; a copy uses the statistics of its source note's fold.
        """
        self.fit(docs)
        if copies and trusted is not None:
            raise ValueError("copies of training notes have no trusted-phrase attributes")
        rows = list(docs) + list(copies)
        if self.lexicon_ is None:
            return self._matrix(rows, trusted)
        lexicons, fold = fold_lexicons(docs, LEXICON_FOLDS, self.lexicon_min_count)
        fold_of = {group_key(td.document): f for td, f in zip(docs, fold)}
        per_document = [lexicons[fold_of[group_key(td.document)]] for td in rows]
        return self._matrix(rows, trusted, per_document)

    def _matrix(self, docs, trusted, lexicons: Sequence[Lexicon] | None = None,
                batch: TokenBatch | None = None, rows: np.ndarray | None = None) -> np.ndarray:
        """The rows of ``docs`` stacked; ``lexicons``: per document, the lexicon its
        ``lexicon`` columns come from (default: the fitted one). Built for the whole batch at
        once (:mod:`itdeid.featurize.token_batch`); a note's rows do not depend on the batch."""
        docs = list(docs)
        if batch is None:
            batch = TokenBatch(docs)
        elif len(batch.docs) != len(docs) or any(a is not b for a, b in zip(batch.docs, docs)):
            raise ValueError("the TokenBatch given to transform holds other documents")
        if rows is not None and (rows.dtype != bool or rows.shape != (len(batch),)):
            raise ValueError("rows must be a boolean mask over the documents' tokens")
        if not len(batch) or (rows is not None and not rows.any()):
            return np.zeros((0, len(self.feature_names_)), dtype=np.float32)
        pick = slice(None) if rows is None else rows
        n_rows = len(batch) if rows is None else int(rows.sum())
        # with rows, the learned columns are needed at those tokens and their window only
        # (a screened ensemble's later members see a fifth of the tokens)
        need = None if rows is None else batch.near(rows, self.window)
        cols = self._learned_columns(batch, lexicons, need)
        for group in self.groups:
            if group in _STATIC_GROUPS:
                cols.update(batch_static_columns(batch, group))
        # one float32 matrix, each block written into its columns: no stacked copies
        base_names, windowed = self._base_names()
        X = np.empty((n_rows, len(self.feature_names_)), dtype=np.float32)
        for j, name in enumerate(base_names):
            X[:, j] = np.asarray(cols[name])[pick]
        at = len(base_names)
        if windowed:
            w = np.column_stack([cols[name] for name in windowed])
            for o in (o for o in range(-self.window, self.window + 1) if o):
                batch.shifted(w, o, rows=rows, out=X[:, at:at + w.shape[1]])
                at += w.shape[1]
        if "basic" in self.groups:
            X[:, at:at + 2] = -1.0   # prev classes, set by the model
            at += 2
        if "trusted" in self.groups:
            if trusted is None:
                raise ValueError("the 'trusted' feature group needs trusted-phrase attributes")
            X[:, at:at + len(TRUSTED_COLUMNS)] = np.vstack(
                [np.asarray(t, dtype=np.float32).reshape(len(td), len(TRUSTED_COLUMNS))
                 for td, t in zip(docs, trusted)])[pick]
            at += len(TRUSTED_COLUMNS)
        if at != X.shape[1]:
            raise RuntimeError(f"feature matrix filled {at} of {X.shape[1]} columns")
        return X

    def _learned_columns(self, batch: TokenBatch, lexicons, need: np.ndarray | None = None,
                         same_as: "FeatureExtractor | None" = None) -> dict[str, np.ndarray]:
        """The columns that depend on what this extractor learned, for a whole batch; with
        ``need`` (a boolean mask over its tokens), right at those tokens only (the others hold
        values no row reads). ``same_as``: an extractor whose columns of this batch the caller
        has; the suffix columns are left out where both hold the same suffixes (the shipped
        list: otherwise each of an ensemble's members would compute them over the whole batch)."""
        g, cols = self.groups, {}
        if "basic" in g:
            cols["initial_type"] = batch_static_columns(batch, "orthography")["initial_type"]
            left, right = self.triggers_.batch_hits(batch, need)
            for j, c in enumerate(PHI_CLASSES):
                cols[f"trigger_left_{c}"] = left[:, j]
                cols[f"trigger_right_{c}"] = right[:, j]
            if same_as is None or same_as.suffixes_ != self.suffixes_:
                cols.update(_suffix_columns(batch, self.suffixes_))
        if "frequency" in g:
            own = _batch_own_case_counts(batch)
            counts = batch.word_rows(self.case_counts_.table, np.int64, need)
            cap, lower, initial = (counts + own).T
            at = slice(None) if need is None else np.flatnonzero(need)
            for name, bottom in (("cap_to_lower", lower), ("cap_to_initial", initial)):
                cols[name] = np.zeros(len(batch), dtype=np.float32)
                cols[name][at] = _log_ratio(cap[at], bottom[at])
        if "heading" in g:
            names, index = batch.heading_names()
            ids = np.array([self.headings_.get(name, -2) for name in names] + [-1], dtype=np.float32)
            cols["heading_id"] = ids[index]   # -1 indexes the appended "none"
        if "nonphi" in g:
            cols["never_phi"] = batch.per_word(lambda w: w in self.nonphi_, need=need)
        if "lexicon" in g:
            cols.update(self._lexicon_columns(batch, lexicons, need))
        return cols

    def _lexicon_columns(self, batch: TokenBatch, lexicons, need: np.ndarray | None = None) -> dict[str, np.ndarray]:
        """The ``lexicon`` columns, each note's from its own lexicon when ``lexicons`` is given
        (training rows: the other patients' statistics); with ``need``, at those tokens only."""
        zipf = batch_static_columns(batch, "frequency")["zipf"]
        left, right = _batch_neighbours(batch)
        if need is not None and lexicons is None:
            # the tokens needed and their word neighbours, renumbered; computed on those alone
            at = np.flatnonzero(need)
            around = np.concatenate([left[at], right[at]])
            wanted = need.copy()                  # marks rather than np.union1d's sort
            wanted[around[around >= 0]] = True
            some = np.flatnonzero(wanted)
            lex = self.lexicon_
            words, of_word = batch.distinct_words(batch.ids[some])
            sub = lexicon_columns(lex.rows([batch.vocabulary[k] for k in words])[of_word],
                                  np.full(len(some), max(lex.tokens, 1), dtype=np.float32), zipf[some],
                                  _renumbered(left[some], some), _renumbered(right[some], some))
            out = {}
            for name, values in sub.items():
                out[name] = np.zeros(len(batch), dtype=np.float32)
                out[name][some] = values
            return out
        used = [self.lexicon_] * len(batch.docs) if lexicons is None else list(lexicons)
        which = {id(lex): lex for lex in used}
        of_token = np.repeat(np.array([id(lex) for lex in used], dtype=np.int64), batch.lengths)
        rows = np.zeros((len(batch), 1 + 2 * LEXICON_CLASSES), dtype=np.float32)
        tokens = np.zeros(len(batch), dtype=np.float32)
        for key, lex in which.items():
            mine = of_token == key
            rows[mine] = lex.rows(batch.vocabulary)[batch.ids[mine]]
            tokens[mine] = max(lex.tokens, 1)
        return lexicon_columns(rows, tokens, zipf, left, right)

    def previous_columns(self) -> list[int]:
        """Indices of the two predicted-previous-class columns (empty when ``basic`` is off)."""
        return [i for i, n in enumerate(self.feature_names_) if n in ("prev1_class", "prev2_class")]

    # -- internals --------------------------------------------------------------------------
    def _base_names(self) -> tuple[list[str], list[str]]:
        """Names of the per-token columns, and the subset that is windowed."""
        names, windowed = [], []
        g = self.groups
        if "basic" in g:
            names += ["initial_type"]
            names += [f"trigger_left_{c}" for c in PHI_CLASSES] + [f"trigger_right_{c}" for c in PHI_CLASSES]
            names += ["suffix_class", "suffix_ahead_class", "suffix_ahead_distance"]
            windowed += ["initial_type", "suffix_class"]
        if "orthography" in g:
            names += list(ORTHOGRAPHY_COLUMNS)
            windowed += ["all_upper", "title", "has_digit", "length", "shape"]
        if "frequency" in g:
            names += ["zipf", "cap_to_lower", "cap_to_initial"]
            windowed += ["zipf", "cap_to_lower"]
        if "heading" in g:
            names += ["heading_id", "in_heading", "since_heading"]
        if "regex" in g:
            names += [f"regex_{c}" for c in ("AGE", "DATE", "ID", "PHONE")]
            names += [f"regex_{c}_template" for c in ("AGE", "DATE", "ID", "PHONE")]
            windowed += [f"regex_{c}" for c in ("DATE", "ID", "PHONE")]
        if "location" in g:
            names += ["us_city", "us_state", "country", "world_city"]
            windowed += ["us_city", "us_state"]
        if "sentence" in g:
            names += ["sentence_position", "token_in_sentence", "line_start", "sentence_start"]
        if "context" in g:
            names += ["in_quotes", "in_brackets", "line_upper"]
        if "firstnames" in g:
            names += ["first_name", "last_name"]
            windowed += ["first_name", "last_name"]
        if "nonphi" in g:
            names += ["english_word", "never_phi"]
            windowed += ["english_word", "never_phi"]
        if "casing" in g:
            names += list(CASING_COLUMNS)
            windowed += ["announced_by", "cap_vs_line"]
        if "census" in g:
            names += ["census_first", "census_last"]
            windowed += ["census_first", "census_last"]
        if "lexicon" in g:
            names += list(LEXICON_COLUMNS)
            windowed += ["notes_vs_english", "left_phi_rate", "right_phi_rate"]
        if "spelling" in g:
            names += list(SPELLING_COLUMNS)
            windowed += ["announcer_self"]
        if "measure" in g:
            names += ["measure", "measure_template"]
            windowed += ["measure"]
        if "clock" in g:
            names += ["clock", "clock_template"]
            windowed += ["clock"]
        if "nameshape" in g:
            names += ["name_shape"]
            windowed += ["name_shape"]
        if "languages" in g:
            names += list(LANGUAGE_COLUMNS)
            windowed += ["lang_zipf"]
        return names, windowed

    def _names(self) -> list[str]:
        names, windowed = self._base_names()
        out = list(names)
        for o in [o for o in range(-self.window, self.window + 1) if o]:
            out += [f"{n}@{o:+d}" for n in windowed]
        if "basic" in self.groups:
            out += ["prev1_class", "prev2_class"]
        if "trusted" in self.groups:
            out += list(TRUSTED_COLUMNS)
        return out


def _batch_neighbours(batch: TokenBatch) -> tuple[np.ndarray, np.ndarray]:
    """:func:`itdeid.featurize.lexicon.neighbours` of every note of ``batch``, as batch indices (-1:
    none), remembered on the batch: whether a token is a word is asked once per distinct word,
    where a note-by-note pass searched every token, and a neighbour is
    looked for in the token's own note only."""
    key = ("neighbours",)
    if key not in batch.memo:
        n = len(batch)
        is_word = batch.per_word(lambda w: LETTER_OR_DIGIT.search(w) is not None, dtype=bool)
        index = np.arange(n, dtype=np.int64)
        left = np.full(n, -1, dtype=np.int64)
        right = np.full(n, -1, dtype=np.int64)
        for step in (2, 1):                 # the nearer word, written last, wins
            m = max(n - step, 0)            # tokens with a token ``step`` after them
            before = index[step:][is_word[:m] & (index[:m] >= batch.start[step:])]
            left[before] = before - step
            after = index[:m][is_word[step:] & (index[step:] < batch.end[:m])]
            right[after] = after + step
        batch.memo[key] = (left, right)
    return batch.memo[key]


def _renumbered(index: np.ndarray, kept: np.ndarray) -> np.ndarray:
    """Batch token indices (-1: none) as positions in the sorted indices ``kept`` (-1 for an
    index not kept)."""
    at = np.searchsorted(kept, index)
    found = (index >= 0) & (at < len(kept)) & (kept[np.minimum(at, len(kept) - 1)] == index)
    return np.where(found, at, -1)


def _suffix_columns(batch: TokenBatch, suffixes: dict) -> dict[str, np.ndarray]:
    """The class of the phrase a word ends ('Hospital'), and of the nearest such word at most
    4 tokens ahead in the same note, with its distance."""
    suffix = batch.per_word(lambda w: suffixes.get(w, 0))
    marked = np.flatnonzero(suffix)
    ahead_class = np.zeros(len(batch), dtype=np.float32)
    ahead_dist = np.zeros(len(batch), dtype=np.float32)
    if len(marked):
        here = np.arange(len(batch))
        k = np.searchsorted(marked, here, side="right")   # the next marked word after each token
        nxt = marked[np.minimum(k, len(marked) - 1)]
        near = (k < len(marked)) & (nxt < batch.end) & (nxt - here <= 4)
        ahead_class[near] = suffix[nxt[near]]
        ahead_dist[near] = (nxt - here)[near]
    return {"suffix_class": suffix, "suffix_ahead_class": ahead_class, "suffix_ahead_distance": ahead_dist}


def set_previous(X: np.ndarray, columns: Sequence[int], labels: np.ndarray, doc_lengths: Sequence[int]) -> None:
    """Fill the previous-class columns of ``X`` in place from per-token label codes.

    Used at training time with gold (or out-of-fold predicted) labels; at tagging time the model
    fills them left to right from its own predictions.
    """
    if not columns:
        return
    p1, p2 = columns
    start = 0
    for n in doc_lengths:
        seg = labels[start:start + n].astype(np.float32)
        prev1 = np.full(n, -1.0, dtype=np.float32)
        prev2 = np.full(n, -1.0, dtype=np.float32)
        prev1[1:] = seg[:-1]
        prev2[2:] = seg[:-2]
        X[start:start + n, p1] = prev1
        X[start:start + n, p2] = prev2
        start += n
