"""``CRFModel``: a linear-chain CRF peer with He et al. (2015)'s features, for comparison rows.

He, Guan, Cheng, Cen and Hua, "CRFs based de-identification of medical records" (J Biomed
Inform 2015), the strongest CRF of the 2014 i2b2 challenge, tagged tokens with BIO labels from
a linear-chain CRF over simple token features. This module rebuilds that peer on itdeid's
tokens, so it runs in the same folds as the boosted models (``itdeid cv --rows CRF``):

- the token lower-cased, its first and last 1-4 characters, its word shape ('Xxxx', 'dd/dd')
  and length;
- orthographic flags: all upper, title case, all digits, has a digit, has punctuation;
- dictionary flags from ``gazetteers/``: first name, last name, US city word, US state (name or
  abbreviation), country, frequent English word;
- the same features of the tokens within ``window`` (default 2) on each side.

Labels are BIO over the eight PHI classes, so two adjacent phrases of a class stay apart; the
predicted label codes drop the B/I distinction. Training is scikit-learn-crfsuite's L-BFGS with
elastic-net penalties ``c1``/``c2``. The model file is CRFsuite's own binary format (read by
python-crfsuite's C code, no pickle) plus JSON parameters.

CRFsuite keeps an attribute string and a weight for every word, prefix and suffix it trained on,
so a CRF trained on the notes keeps their names. With ``stand_ins=k`` it never sees them: each
training note with PHI is replaced by ``k`` re-substituted copies (:mod:`itdeid.estimators.resubstitute`,
every gold span a fresh stand-in from the shipped public lists), so every string it stores is a
word of the notes' ordinary text or a public stand-in, and a word's weights come from its
ordinary occurrences alone (the rule of every itdeid model file). Such a CRF can be saved.
"""
from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Sequence

import numpy as np
from sklearn.base import BaseEstimator

from itdeid import __version__

from itdeid.estimators import fitted_params
from itdeid.document import LABELS, Document, Span
from itdeid.errors import ParameterError, UserError
from itdeid.featurize import TokenizedDocument, tokenize_document, tokenize_documents
from itdeid.featurize.word_lists import gazetteer_sets
from itdeid.estimators.model import check_count, check_training_documents, labels_in_documents, predict_spans
from itdeid.model_folder.model_files import checked_params, damaged, read_model_state
from itdeid.model_folder.model_out import check_kind
from itdeid.estimators.resubstitute import resubstituted
from itdeid.featurize.word_table import MAX_WORDS

FORMAT = 1
_CODE = {label: i for i, label in enumerate(LABELS)}
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _crfsuite():
    """``sklearn_crfsuite``, or a :class:`UserError` naming the extra that installs it (the
    CRF is a peer for comparison rows, not a dependency of the tool)."""
    try:
        import sklearn_crfsuite
    except ImportError:
        raise UserError("the CRF peer needs sklearn-crfsuite: pip install 'itdeid[peers]'") from None
    return sklearn_crfsuite


def _shape(word: str) -> str:
    shape = "".join("X" if c.isupper() else "x" if c.islower() else "d" if c.isdigit() else c
                    for c in word)
    return re.sub(r"(.)\1{2,}", r"\1\1", shape)          # 'Xxxxxx' -> 'Xxx': a bounded vocabulary


@lru_cache(maxsize=MAX_WORDS)
def _token_features(text: str) -> tuple[tuple[str, object], ...]:
    """The window-free features of one token (cached: tokens repeat). A lone surrogate code
    point (a str from the API can hold one; a decoded file cannot) becomes U+FFFD: CRFsuite
    encodes attribute names as UTF-8 and raised SystemError on it."""
    text = _LONE_SURROGATE.sub("\ufffd", text)
    g = gazetteer_sets()
    low = text.lower()
    features: list[tuple[str, object]] = [("w", low), ("shape", _shape(text)), ("len", min(len(text), 12))]
    for k in range(1, 5):
        if len(text) >= k:
            features += [(f"p{k}", low[:k]), (f"s{k}", low[-k:])]
    flags = {"upper": text.isupper(), "title": text.istitle(), "digits": text.isdigit(),
             "has_digit": any(c.isdigit() for c in text),
             "punct": any(not c.isalnum() for c in text),
             "first": low in g["first"], "last": low in g["last"],
             "city": (low,) in g["cities"], "state": (low,) in g["states"] or text in g["state_abbr"],
             "country": (low,) in g["countries"], "english": low in g["english"]}
    features += [(name, True) for name, on in flags.items() if on]
    return tuple(features)


def document_features(td: TokenizedDocument, window: int = 2) -> list[dict]:
    """One crfsuite feature dict per token: its own features and its neighbours' (prefixed by
    their offset), plus begin/end-of-document marks."""
    own = [_token_features(t.text) for t in td.tokens]
    out = []
    for i in range(len(own)):
        features = {"bias": 1.0}
        for offset in range(-window, window + 1):
            j = i + offset
            if 0 <= j < len(own):
                prefix = "" if offset == 0 else f"{offset:+d}:"
                for name, value in own[j]:
                    if isinstance(value, bool):
                        features[prefix + name] = 1.0
                    elif isinstance(value, (int, float)):
                        features[prefix + name] = float(value)
                    else:
                        features[f"{prefix}{name}={value}"] = 1.0
            elif offset in (-1, 1):
                features["BOS" if offset < 0 else "EOS"] = 1.0
        out.append(features)
    return out


def bio(codes: Sequence[int]) -> list[str]:
    """BIO tags of label codes: a run of one class is B- then I-."""
    tags, previous = [], 0
    for c in codes:
        c = int(c)
        tags.append("O" if c == 0 else (f"I-{LABELS[c]}" if c == previous else f"B-{LABELS[c]}"))
        previous = c
    return tags


def unbio(tags: Sequence[str]) -> np.ndarray:
    return np.array([0 if t == "O" else _CODE[t[2:]] for t in tags], dtype=np.int64)


class CRFModel(BaseEstimator):
    """Linear-chain CRF over He et al. (2015)'s token features.

    Parameters
    ----------
    window : int, default 2
        Neighbours each side whose features are added.
    c1, c2 : float, default 0.1, 0.01
        L1 and L2 penalties of L-BFGS training.
    max_iterations : int, default 100
    stand_ins : int, default 0
        Train on this many re-substituted copies of each note with PHI *instead of* the note
        (notes without PHI are kept as they are). 0: the notes themselves, PHI included.
    random_state : int, default 0
        Seeds the stand-ins (L-BFGS itself is deterministic).

    Attributes
    ----------
    crf_ : sklearn_crfsuite.CRF
    """

    def __init__(self, window: int = 2, c1: float = 0.1, c2: float = 0.01,
                 max_iterations: int = 100, stand_ins: int = 0, random_state: int = 0):
        self.window = window
        self.c1 = c1
        self.c2 = c2
        self.max_iterations = max_iterations
        self.stand_ins = stand_ins
        self.random_state = random_state

    def fit(self, documents: Sequence[Document], y=None) -> "CRFModel":
        labels_in_documents(y)
        return self.fit_tokenized(tokenize_documents(documents))

    def fit_tokenized(self, docs: Sequence[TokenizedDocument], trusted=None) -> "CRFModel":
        sklearn_crfsuite = _crfsuite()
        check_training_documents(docs)
        self.check_params()
        if self.stand_ins:
            copies = resubstituted([td.document for td in docs], self.stand_ins, self.random_state)
            docs = [td for td in docs if not td.document.spans] + [tokenize_document(d) for d in copies]
        X = [document_features(td, self.window) for td in docs]
        y = [bio(td.labels) for td in docs]
        self.crf_ = sklearn_crfsuite.CRF(algorithm="lbfgs", c1=self.c1, c2=self.c2,
                                         max_iterations=self.max_iterations,
                                         all_possible_transitions=True)
        self.crf_.fit(X, y)
        fitted_params.remember(self)
        return self

    def check_params(self) -> None:
        """The parameters, checked at ``fit`` and at load: a
        :class:`~itdeid.errors.ParameterError` naming the one that is wrong."""
        check_count("window", self.window, 0)
        check_count("max_iterations", self.max_iterations, 1)
        check_count("stand_ins", self.stand_ins, 0)
        check_count("random_state", self.random_state, 0)
        for name in ("c1", "c2"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0 \
                    or value == float("inf"):
                raise ParameterError(f"{name} must be a number >= 0, got {value!r}")

    def _check_fitted(self):
        if not hasattr(self, "crf_"):
            from itdeid.estimators.model import NotFittedError
            raise NotFittedError("this CRFModel is not fitted yet: call fit() or load() first")

    def predict_tokenized(self, docs: Sequence[TokenizedDocument], trusted=None) -> list[np.ndarray]:
        self._check_fitted()
        tags = self.crf_.predict([document_features(td, self.window) for td in docs])
        return [unbio(t) for t in tags]

    def predict_proba_tokenized(self, docs: Sequence[TokenizedDocument], trusted=None
                                ) -> list[np.ndarray]:
        """Per token, the probability of each of the 9 labels: the CRF's marginals, B- and I-
        of a class summed. A ranking of the tokens (for precision at a recall); the tags of
        :meth:`predict_tokenized` are the best sequence, which need not take each token's most
        likely label."""
        self._check_fitted()
        marginals = self.crf_.predict_marginals([document_features(td, self.window) for td in docs])
        out = []
        for doc in marginals:
            proba = np.zeros((len(doc), len(LABELS)))
            for i, token in enumerate(doc):
                for tag, p in token.items():
                    proba[i, 0 if tag == "O" else _CODE[tag[2:]]] += p
            out.append(proba)
        return out

    def predict(self, documents: Sequence[Document]) -> list[list[Span]]:
        return predict_spans(self, documents)

    def save(self, folder, keeps_training_phi: bool = False) -> None:
        """``crf.json`` (parameters) and ``model.crfsuite`` (CRFsuite's binary model).

        Trained with ``stand_ins``, the file keeps the rule of every itdeid model file (nothing
        learned from a PHI occurrence). Trained on the notes themselves it breaks it: CRFsuite
        stores an attribute string and weights for every training word, prefix and suffix, names
        included. Such a CRF is a comparison peer run in cross-validation, which never saves it;
        saving it is refused unless the caller says ``keeps_training_phi=True``, and such a folder
        must stay with the training data.
        """
        self._check_fitted()    # first: an unfitted CRF keeps nothing yet
        fitted_params.check_unchanged(self)
        if not self.stand_ins and not keeps_training_phi:
            raise UserError("a CRF trained on the notes themselves keeps their words, PHI "
                            "included: train it with stand_ins >= 1 to save it, or pass "
                            "keeps_training_phi=True and keep the folder with the training data")
        folder = check_kind(folder, "crf.json")
        model_file = folder / "model.crfsuite"
        model_file.write_bytes(Path(self.crf_.modelfile.name).read_bytes())
        state = {"kind": "CRFModel", "format": FORMAT, "itdeid_version": __version__,
                 "params": self.get_params()}
        (folder / "crf.json").write_text(json.dumps(state, indent=1), encoding="utf-8")

    @classmethod
    def load(cls, folder) -> "CRFModel":
        sklearn_crfsuite = _crfsuite()
        folder = Path(folder)
        state = read_model_state(folder, "crf.json", "CRFModel", FORMAT, "a CRF model folder",
                                 ("kind", "format", "itdeid_version", "params"))
        path = folder / "crf.json"
        with damaged(path):
            model = cls(**checked_params(path, state["params"], cls))
            model.check_params()
        model.crf_ = sklearn_crfsuite.CRF(model_filename=str(folder / "model.crfsuite"))
        fitted_params.remember(model)
        return model
