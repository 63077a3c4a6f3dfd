"""Tagging the notes of one input file in bounded memory, whatever their length.

Long notes. A note longer than :data:`LONG_NOTE_CHARS` characters is tagged in pieces cut at
line ends, and the notes of a multi-note file in groups of at most that many characters, so
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


def _groups(documents: list[Document], limit: int) -> Iterator[list[tuple[Document, int]]]:
    """The (piece, offset in its note) of every non-empty note, in groups of at most ``limit``
    characters tagged together (one call: the model batches them; long notes are cut). Lazy,
    so only one group's pieces are copied out of a long note at a time."""
    group: list[tuple[Document, int]] = []
    size = 0
    for doc in documents:
        for start, end in _cuts(doc.text, limit) if doc.text else []:
            if group and size + (end - start) > limit:
                yield group
                group, size = [], 0
            piece = doc if (start, end) == (0, len(doc.text)) else Document(
                doc.id, doc.text[start:end], patient=doc.patient, source=doc.source)
            group.append((piece, start))
            size += end - start
    if group:
        yield group


def tag_documents(model, documents: list[Document], limit: int | None = None
                  ) -> tuple[list[list[Span]], int]:
    """Predicted spans of each note (offsets into its whole text) and the number of tokens,
    tagging at most ``limit`` characters at a time (see "Long notes")."""
    from itdeid.tokens import tokenize
    limit = limit or LONG_NOTE_CHARS
    spans: dict[str, list[Span]] = {doc.id: [] for doc in documents}
    tokens = 0
    for group in _groups(documents, limit):
        predicted = model.predict([piece for piece, _ in group])
        for (piece, offset), found in zip(group, predicted):
            tokens += len(tokenize(piece.text))
            spans[piece.id] += [Span(s.start + offset, s.end + offset, s.type, s.subtype)
                                for s in found]
    return [spans[doc.id] for doc in documents], tokens
