"""``RuleModel``: the project's own knowledge without learning, to show what learning adds.

A rule-only row stands beside the learned ones. It uses exactly what the learned models
get as features, turned into decisions:

- the regular-expression templates of ``features/regex.json`` (DATE, PHONE, AGE, ID), a token
  taking the class of the first template family that covers it in that order (ID's bare digit
  runs are the least specific);
- the name lists of ``gazetteers/``: a capitalized word that is a known first or last name and
  not a frequent English word is a name, DOCTOR after 'Dr'/'Doctor' or before 'MD'/'M.D.',
  else PATIENT; a name run continues over adjacent capitalized name words and initials;
- the place lists: a capitalized US city, state (or its two-letter code after a comma), country
  or world city is LOCATION, when it is no frequent English word or follows 'in', 'from', ... or
  precedes ', <place>';
- hospital suffixes: a run of capitalized words ending in 'Hospital', 'Medical Center',
  'Clinic', ... (``hospital_name_parts.tsv`` suffixes and facility words) is HOSPITAL.

``fit`` learns nothing (it is there so cross-validation can treat every row alike).
"""
from __future__ import annotations

from functools import lru_cache
from typing import Sequence

import numpy as np
from sklearn.base import BaseEstimator

from itdeid.document import LABELS, Document, Span
from itdeid.featurize import TokenizedDocument, regex_templates, token_offsets, tokenize_words
from itdeid.featurize.note_columns import _covered, _phrase_marks
from itdeid.resources import load_table
from itdeid.featurize.word_lists import gazetteer_sets
from itdeid.estimators.model import labels_in_documents, predict_spans

_CODE = {label: i for i, label in enumerate(LABELS)}
#: Template families in the order they claim tokens (most specific first).
REGEX_ORDER = ("DATE", "PHONE", "AGE", "ID")
_DOCTOR_BEFORE = {"dr", "doctor", "drs"}
_DOCTOR_AFTER = {"md", "m.d", "do", "np", "pa", "rn"}
#: Words after which a place name that is also an English word ('Boston') is taken as a place.
_PLACE_BEFORE = {"in", "from", "near", "of", ","}


@lru_cache(maxsize=1)
def _hospital_tails() -> frozenset[tuple[str, ...]]:
    """Lower-cased word tuples that end a hospital name ('medical center', 'hospital')."""
    tails = set()
    for kind, part in load_table("gazetteers", "hospital_name_parts.tsv"):
        if kind in ("suffix", "facility"):
            words = tuple(tokenize_words(part))
            tails.add(words)
            tails.add(words[-1:])                # 'Hospital' of 'General Hospital'
    return frozenset(tails)


def _capitalized(text: str) -> bool:
    return text[:1].isupper()


class RuleModel(BaseEstimator):
    """Regular expressions and dictionaries, no learning (see the module docstring).

    Parameters
    ----------
    random_state : int, default 0
        Unused; kept so every itdeid model takes one.
    """

    def __init__(self, random_state: int = 0):
        self.random_state = random_state

    def fit(self, documents: Sequence[Document], y=None) -> "RuleModel":
        labels_in_documents(y)
        return self.fit_tokenized([])

    def fit_tokenized(self, docs: Sequence[TokenizedDocument], trusted=None) -> "RuleModel":
        self.fitted_ = True
        return self

    def predict_tokenized(self, docs: Sequence[TokenizedDocument], trusted=None) -> list[np.ndarray]:
        return [self._label(td) for td in docs]

    def predict(self, documents: Sequence[Document]) -> list[list[Span]]:
        return predict_spans(self, documents)

    def _label(self, td: TokenizedDocument) -> np.ndarray:
        tokens, words, text = td.tokens, td.words, td.document.text
        n = len(tokens)
        codes = np.zeros(n, dtype=np.int64)
        templates = regex_templates()
        for cls in REGEX_ORDER:
            mask = np.zeros(n, dtype=bool)
            for pattern in templates.get(cls, []):
                mask |= _covered(*token_offsets(td), pattern.spans(text))
            if cls != "DATE":                      # 'MRN', 'yo', 'pager' around the number are not PHI
                mask &= np.array([any(c.isdigit() for c in t.text) for t in tokens], dtype=bool)
            codes[mask & (codes == 0)] = _CODE[cls]
        g = gazetteer_sets()
        cap = np.array([_capitalized(t.text) for t in tokens], dtype=bool)
        place = (_phrase_marks(words, g["cities"]) + _phrase_marks(words, g["states"])
                 + _phrase_marks(words, g["countries"]) + _phrase_marks(words, g["world"])) > 0
        for i, t in enumerate(tokens):
            if t.text in g["state_abbr"] and i and tokens[i - 1].text == ",":
                place[i] = True
        self._hospitals(words, cap, codes)
        for i in range(n):
            if codes[i] == 0 and cap[i] and place[i] and (
                    words[i] not in g["english"] or (i and words[i - 1] in _PLACE_BEFORE)
                    or (i + 2 < n and words[i + 1] == "," and place[i + 2])):
                codes[i] = _CODE["LOCATION"]
        self._names(tokens, words, cap, codes, g)
        return codes

    @staticmethod
    def _hospitals(words, cap, codes) -> None:
        tails = _hospital_tails()
        longest = max((len(t) for t in tails), default=1)
        for i in range(len(words)):
            for k in range(longest, 0, -1):
                if i + k <= len(words) and tuple(words[i:i + k]) in tails and cap[i]:
                    j = i                          # extend left over capitalized words
                    while j > 0 and cap[j - 1] and words[j - 1].isalpha():
                        j -= 1
                    if j < i:                      # a bare 'Hospital' names nothing
                        codes[j:i + k] = _CODE["HOSPITAL"]
                    break

    @staticmethod
    def _names(tokens, words, cap, codes, g) -> None:
        n = len(tokens)
        is_name = np.array([cap[i] and codes[i] == 0 and words[i].isalpha()
                            and (words[i] in g["first"] or words[i] in g["last"])
                            and words[i] not in g["english"] for i in range(n)], dtype=bool)
        i = 0
        while i < n:
            if not is_name[i]:
                i += 1
                continue
            j = i + 1                              # extend over names and initials ('J .')
            while j < n and (is_name[j] or (cap[j] and len(words[j]) == 1 and words[j].isalpha())
                             or (words[j] == "." and j > i and len(words[j - 1]) == 1)):
                j += 1
            before = words[i - 2] if i >= 2 and words[i - 1] == "." else words[i - 1] if i else ""
            after = words[j + 1] if j + 1 < n and words[j] == "," else words[j] if j < n else ""
            doctor = before in _DOCTOR_BEFORE or after.rstrip(".") in _DOCTOR_AFTER
            codes[i:j] = _CODE["DOCTOR" if doctor else "PATIENT"]
            while j > i and words[j - 1] == ".":  # a trailing period is not part of the name
                codes[j - 1] = 0
                j -= 1
            i = j + 1
