"""Surrogate re-substitution: more varied training notes made from the same notes.

A model trained on a few hundred notes learns their names: 'Smith' is PHI because the training
notes' Smiths were. What should carry over to new notes is the *context* of a name ('wife X',
'Dr. X called'), not the names of one hospital's patients. So each training note that holds PHI
is copied with every gold span replaced by a fresh stand-in of its class
(:class:`itdeid.render.surrogate.Surrogates` with census-sized name lists, each copy under its own
key), its labels moved with it. Each copy is its source note's context around other names,
dates and numbers.

A copy may also be *re-cased* (``recase``): written in upper case where its source is mostly
lower case, in lower case where it is mostly upper case. Real nursing notes come in all three
casings (many are almost all capitals, many almost all lower case), and in an all-caps or all-lower note capitalization says nothing; a re-cased copy shows
the trees each name's context once more in the casing its note did not have, so they learn to
read that context without the case columns. Re-casing keeps every offset (a character whose
other case is longer, 'ß' to 'SS', is left as it is), so the labels still fit. In
cross-validation (experiments/NOTEBOOK.md) re-cased copies ranked PHI within chance of the
recipe's own copies, so the recipe leaves them off.

Copies stay with their source note's patient, so an inner split grouped by patient keeps a
note and its copies on one side. Notes without PHI are not copied (they would only repeat
ordinary text). The copies are training data only: nothing of them is saved, and the stand-ins
are drawn from shipped public lists, not from the notes.
"""
from __future__ import annotations

import random
from typing import Sequence

from itdeid.document import Document
from itdeid.estimators.folds import group_key
from itdeid.render.surrogate import Surrogates


def copy_patient(document: Document) -> str:
    """The patient a copy of ``document`` is filed under: its patient, else the key by which
    :mod:`itdeid.estimators.folds` groups a note without one (its id), so the two share every split."""
    return group_key(document)


def recased(text: str) -> str:
    """``text`` in upper case if under half its letters are capitals, else in lower case, each
    character changed only where its other case is one character (the offsets stay)."""
    letters = [c for c in text if c.isalpha()]
    upper = sum(c.isupper() for c in letters) * 2 < len(letters)
    changed = text.upper() if upper else text.lower()
    if len(changed) == len(text):
        return changed
    flip = str.upper if upper else str.lower
    return "".join(f if len(f := flip(c)) == 1 else c for c in text)


def resubstituted(documents: Sequence[Document], copies: int, seed: int = 0,
                  common_names: float = 0.0, recase: float = 0.0) -> list[Document]:
    """``copies`` re-substituted copies of every document with gold spans, copy by copy;
    ``common_names``: the share of name words drawn from the common-name lists
    (:class:`~itdeid.render.surrogate.Surrogates`); ``recase``: the share of copies :func:`recased`
    (each copy's draw seeded by ``seed``, the copy and the note's id)."""
    if copies < 0:
        raise ValueError(f"copies must be >= 0, got {copies}")
    out = []
    for c in range(copies):
        surrogates = Surrogates(f"itdeid-resubstitution-{seed}-{c}".encode(), broad_names=True,
                                common_names=common_names)
        for d in documents:
            if not d.spans:
                continue
            text, spans = surrogates.replace(d, list(d.spans), weekdays=False)   # gold as annotated
            if recase and random.Random(f"itdeid-recase-{seed}-{c}-{d.id}").random() < recase:
                text = recased(text)
            out.append(Document(f"{d.id}#resubstituted-{c + 1}", text, spans, copy_patient(d), d.source))
    return out
