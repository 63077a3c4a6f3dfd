"""Tagging notes in bounded memory, whatever their length and number.

Many notes. Notes are tagged in groups of up to :data:`LONG_NOTE_CHARS` characters (the notes of
a multi-note file, or of a chunk of small files, :mod:`itdeid.batch.unit`): a model decodes
left to right, one classifier call a token position, and a group's notes advance side by side,
so a thousand short notes cost about the calls of one. A note's tags do not depend on the
notes grouped with it (features are per note; see ``CaseCounts`` in :mod:`itdeid.featurize`).

Long notes. A note longer than :data:`LONG_NOTE_CHARS` characters is tagged in pieces cut at
line ends, so
memory stays bounded whatever the size of a note (measured: a 10 MB note, 2 million tokens, in
78 s and 0.56 GB peak on one core; tagged whole, a note takes about 2 GB a million tokens).
The model sees each piece as a note: the previous-label feature, the note's word-case counts and
(for the iterative system) its trusted and standardized phrases do not cross a cut, so tagging
near a cut can differ from tagging the whole note at once. Cuts depend on the text alone, so
outputs stay deterministic.
"""
from __future__ import annotations

from typing import Iterator

from itdeid.document import Document, Span

#: Characters of text tagged at once (see "Long notes" in the module docstring).
LONG_NOTE_CHARS = 500_000


def _cuts(text: str, limit: int) -> list[tuple[int, int]]:
    """(start, end) pieces of at most ``limit`` characters covering ``text``, cut after a line
    end where one lies in the second half of the piece, else after a space, else anywhere."""
    pieces, start = [], 0
    while len(text) - start > limit:
        end = start + limit
        cut = text.rfind("\n", start + limit // 2, end)
        if cut < 0:
            cut = text.rfind(" ", start + limit // 2, end)
        cut = cut + 1 if cut >= 0 else end
        pieces.append((start, cut))
        start = cut
    pieces.append((start, len(text)))
    return pieces


def _groups(documents: list[Document], limit: int) -> Iterator[list[tuple[int, Document, int]]]:
    """The (note index, piece, offset in its note) of every non-empty note, in groups of at most
    ``limit`` characters tagged together (one call: the model batches them; long notes are
    cut). Lazy, so only one group's pieces are copied out of a long note at a time."""
    group: list[tuple[int, Document, int]] = []
    size = 0
    for index, doc in enumerate(documents):
        for start, end in _cuts(doc.text, limit) if doc.text else []:
            if group and size + (end - start) > limit:
                yield group
                group, size = [], 0
            piece = doc if (start, end) == (0, len(doc.text)) else Document(
                doc.id, doc.text[start:end], patient=doc.patient, source=doc.source)
            group.append((index, piece, start))
            size += end - start
    if group:
        yield group


def tag_notes(model, documents: list[Document], limit: int | None = None
              ) -> tuple[list[list[Span]], list[int]]:
    """Predicted spans of each note (offsets into its whole text) and its number of tokens,
    tagging at most ``limit`` characters at a time (see "Long notes"). Notes are told apart by
    position, not id: notes of different files may share an id."""
    from itdeid.tokens import tokenize
    limit = limit or LONG_NOTE_CHARS
    spans: list[list[Span]] = [[] for _ in documents]
    tokens = [0] * len(documents)
    for group in _groups(documents, limit):
        predicted = model.predict([piece for _, piece, _ in group])
        for (index, piece, offset), found in zip(group, predicted):
            tokens[index] += len(tokenize(piece.text))
            spans[index] += [Span(s.start + offset, s.end + offset, s.type, s.subtype)
                             for s in found]
    return spans, tokens

