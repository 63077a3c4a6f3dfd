"""The feature groups, and the columns of each that depend on the notes alone.

A group is switched on by naming it, so each one's worth can be measured (the paper's Figure 2,
and the recall ablations). The columns that need nothing a model learned are computed here, once a
note (:func:`static_columns`) or once a batch (:func:`batch_static_columns`), and shared by the
models that read them; :class:`~itdeid.featurize.extractor.FeatureExtractor` adds the learned
ones.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from itdeid.featurize.casing import casing_columns
from itdeid.featurize.note_columns import (_clock_columns, _context_columns, _heading_columns,
                                           _location_columns, _measure_columns, _orthography_batch,
                                           _orthography_columns, _regex_columns, _sentence_columns)
from itdeid.featurize.layout_batch import casing_batch, context_batch, heading_batch
from itdeid.featurize.tokenized import TokenizedDocument
from itdeid.featurize.word_columns import _WORD_GROUPS, _word_group_columns
from itdeid.featurize.token_batch import TokenBatch

GROUPS: tuple[str, ...] = (
    "basic", "orthography", "frequency", "heading", "regex", "location", "sentence", "context",
    "firstnames", "nonphi",
)
#: Groups for recall on real notes, not in the paper's set (see the module docstring); spelling
#: and measure joined after 10-fold CV (experiments/results/g-levers/rankings-shallow-syn-trial.md).
RECALL_GROUPS: tuple[str, ...] = ("casing", "census", "lexicon", "spelling", "measure")
#: Groups being measured, known to the extractor but in no preset yet.
TRIAL_GROUPS: tuple[str, ...] = ("clock", "nameshape", "languages")


def _of_words(group: str):
    return lambda td: _WORD_GROUPS[group](td.words)


#: Group -> the function of its columns that depend on the document alone.
_STATIC_GROUPS = {
    "orthography": _orthography_columns, "heading": _heading_columns, "regex": _regex_columns,
    "location": _location_columns, "sentence": _sentence_columns, "context": _context_columns,
    "casing": casing_columns, "measure": _measure_columns, "clock": _clock_columns,
    **{group: _of_words(group) for group in _WORD_GROUPS},
}


#: Groups whose batch form is array operations over the whole batch (:mod:`.layout_batch`).
_LAYOUT_BATCH = {"casing": casing_batch, "context": context_batch, "heading": heading_batch}


def batch_static_columns(batch: TokenBatch, group: str) -> dict[str, np.ndarray]:
    """The columns of ``group`` that depend on the notes alone (:func:`static_columns`) for a
    whole batch, end to end, remembered on the batch: once per distinct word for the word groups
    and orthography, over the whole batch for the layout groups, else each note's cached
    columns joined."""
    if group in _WORD_GROUPS:
        return _word_group_columns(batch, group)
    if group == "orthography":
        return _orthography_batch(batch)
    if group in _LAYOUT_BATCH:
        return _LAYOUT_BATCH[group](batch)
    return {name: batch.joined_once(("static", group, name), lambda td, name=name: static_columns(td, group)[name])
            for name in _static_names(batch.docs, group)}


def static_columns(td: TokenizedDocument, group: str) -> dict[str, np.ndarray]:
    """The columns of ``group`` that depend on the document alone, computed once a document."""
    key = ("static", group)
    if key not in td.cache:
        td.cache[key] = _STATIC_GROUPS[group](td)
    return td.cache[key]


def check_groups(groups: Sequence[str]) -> None:
    """A ValueError naming any group that is not one of :data:`GROUPS` (or ``trusted``)."""
    unknown = set(groups) - set(GROUPS) - set(RECALL_GROUPS) - set(TRIAL_GROUPS) - {"trusted"}
    if unknown:
        raise ValueError(f"unknown feature groups: {', '.join(sorted(unknown))}")


def _static_names(docs, group: str) -> list[str]:
    """The column names of a document-only group (those of its first non-empty note)."""
    return list(static_columns(next(td for td in docs if len(td)), group))
