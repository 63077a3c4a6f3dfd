"""Columns that depend on each token's word alone: English frequency, name lists, spelling,
name shape and other languages.

Over a batch of notes they are computed once per distinct word of the batch and indexed by its
tokens' word ids (:func:`_word_group_columns`); each word's values are remembered across
batches in a :class:`~itdeid.featurize.word_table.WordTable`, so a long run computes a word once.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from itdeid.featurize.languages import LANGUAGE_COLUMNS, language_values
from itdeid.featurize.name_shape import name_shape
from itdeid.featurize.spelling import spelling_words
from itdeid.featurize.token_batch import TokenBatch
from itdeid.featurize.word_lists import census_names, gazetteer_sets
from itdeid.featurize.word_table import WordTable
from itdeid.featurize.zipf import zipf

_ZIPF_TABLE = WordTable(lambda word: (zipf(word),), 1)


def _frequency_words(words: Sequence[str]) -> dict[str, np.ndarray]:
    return {"zipf": _ZIPF_TABLE.rows(words)[:, 0]}


def _name_list_values(word: str) -> tuple[float, float]:
    gaz = gazetteer_sets()
    return math.log1p(gaz["first"].get(word, 0.0)), math.log1p(gaz["last"].get(word, 0.0))


def _census_values(word: str) -> tuple[float, float]:
    """1 + log(1 + 1000 x percent) for a listed name (so a listed but rare name is still 1), 0
    for a word not in the list; first names, then last names."""
    return tuple(0.0 if pct is None else 1.0 + math.log1p(1000.0 * pct)
                 for pct in (table.get(word) for table in census_names()))


_NAME_LIST_TABLE = WordTable(_name_list_values, 2)
_CENSUS_TABLE = WordTable(_census_values, 2)
_ENGLISH_TABLE = WordTable(lambda word: (word in gazetteer_sets()["english"],), 1)
_NAME_SHAPE_TABLE = WordTable(lambda word: (name_shape(word),), 1)
_LANGUAGE_TABLE = WordTable(language_values, len(LANGUAGE_COLUMNS))


def _firstnames_words(words: Sequence[str]) -> dict[str, np.ndarray]:
    names = _NAME_LIST_TABLE.rows(words)
    return {"first_name": names[:, 0], "last_name": names[:, 1]}


def _census_words(words: Sequence[str]) -> dict[str, np.ndarray]:
    census = _CENSUS_TABLE.rows(words)
    return {"census_first": census[:, 0], "census_last": census[:, 1]}


def _nameshape_words(words: Sequence[str]) -> dict[str, np.ndarray]:
    return {"name_shape": _NAME_SHAPE_TABLE.rows(words)[:, 0]}


def _languages_words(words: Sequence[str]) -> dict[str, np.ndarray]:
    rows = _LANGUAGE_TABLE.rows(words)
    return {name: rows[:, i] for i, name in enumerate(LANGUAGE_COLUMNS)}


def _nonphi_words(words: Sequence[str]) -> dict[str, np.ndarray]:
    return {"english_word": _ENGLISH_TABLE.rows(words)[:, 0]}


#: Group -> the function of its columns for a list of lower-case words, for the groups whose
#: columns depend on each token's word alone. Over a batch of notes they are computed once per
#: distinct word of the batch and indexed by its tokens' word ids (:func:`_word_group_columns`):
#: a note's tokens repeat a small vocabulary, and one table lookup and one array gather per note
#: and group cost more than the values themselves.
_WORD_GROUPS = {
    "frequency": _frequency_words, "firstnames": _firstnames_words, "nonphi": _nonphi_words,
    "census": _census_words, "spelling": spelling_words, "nameshape": _nameshape_words,
    "languages": _languages_words,
}


def _word_group_columns(batch: TokenBatch, group: str) -> dict[str, np.ndarray]:
    """The columns of a word group (:data:`_WORD_GROUPS`) for a whole batch, the same values as
    :func:`static_columns` gives note by note (remembered on the batch: the members of an
    ensemble share it)."""
    key = ("words", group)
    if key not in batch.memo:
        by_word = _WORD_GROUPS[group](batch.vocabulary)
        batch.memo[key] = {name: np.asarray(values)[batch.ids] for name, values in by_word.items()}
    return batch.memo[key]
