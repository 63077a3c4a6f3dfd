"""Tagging a batch's notes in bounded memory, whatever their length and number.

Notes are tagged by :func:`itdeid.text.pieces.tag_documents`, :data:`LONG_NOTE_CHARS` characters at
a time. Many notes: the notes of a multi-note file, or of a chunk of small files
(:mod:`itdeid.batch.unit`), share tagging calls of up to that many characters: a model decodes
left to right, one classifier call a token position, and a call's notes advance side by side,
so a thousand short notes cost about the calls of one. A note's tags do not depend on the
notes grouped with it (features are per note; see ``CaseCounts`` in :mod:`itdeid.featurize`).
Long notes: a note longer than :data:`LONG_NOTE_CHARS` characters is tagged in overlapping
pieces, so memory stays bounded whatever its size; :mod:`itdeid.text.pieces` says how it is cut and
what tagging near a cut can change.
"""
from __future__ import annotations

from typing import Callable

from itdeid.document import Document, Span
from itdeid.text.pieces import PIECE_CHARS, tag_counted
from itdeid.text.tokens import count_tokens

#: Characters of text tagged at once (see the module docstring).
LONG_NOTE_CHARS = PIECE_CHARS


def tag_notes(model, documents: list[Document], limit: int | None = None,
              advance: Callable[[int], None] | None = None
              ) -> tuple[list[list[Span]], list[int]]:
    """Predicted spans of each note (offsets into its whole text) and its number of tokens (those
    the model read, counted again only for a note cut into pieces),
    tagging at most ``limit`` characters at a time (default :data:`LONG_NOTE_CHARS`);
    ``advance(n)`` hears of each ``n`` characters tagged. Notes are told apart by position,
    not id: notes of different files may share an id."""
    spans, counts = tag_counted(model, documents, limit or LONG_NOTE_CHARS, advance=advance)
    return spans, [count_tokens(doc.text) if n is None else n for doc, n in zip(documents, counts)]
