"""Tagging notes of any length in bounded memory: long notes in overlapping pieces.

A model tags a note by building one feature matrix for all its tokens (about 2 GB a million
tokens), so a 20 MB note cannot be tagged whole in a worker's memory. :func:`tag_documents`
tags any model with ``.predict(documents)`` (:class:`~itdeid.estimators.model.TokenModel`,
:class:`~itdeid.estimators.ensemble.InnerEnsemble`, :class:`~itdeid.estimators.deidentifier.Deidentifier`) a bounded
number of characters at a time:

* Notes of at most ``limit`` characters (:data:`PIECE_CHARS`) are tagged whole, several to a
  call up to ``limit`` characters (decoding advances a call's notes side by side, so a thousand
  short notes cost about the classifier calls of one). Their spans are exactly those of
  ``model.predict`` on the note alone: features are per note, never pooled over the notes of a
  call, except by a system that pools phrases over a patient's notes (``spread="patient"``),
  whose calls keep each patient's notes together (:func:`tags_independently`).
* A longer note is cut into pieces (:func:`cut`). Each piece has a *core*, and the cores tile
  the note; the cuts between cores fall after a line end where one lies in the second half of
  the budget, else after a space (a note of one huge line), else anywhere. Each core is tagged
  inside a *window* that adds up to ``context`` characters (:data:`CONTEXT_CHARS`) of the note
  on each side, widened or narrowed to whole lines (else to whitespace), so tokens near a cut
  see their neighbours, the lines they lie on and a recent heading as in the whole note.
* Each token is labelled by the piece whose core holds it: a piece's spans are clipped to its
  core (and the whitespace at a clipped end dropped), offsets are mapped back to the note, and
  spans of neighbouring pieces that meet at a cut with only spaces or tabs between them and
  of one class are joined into one, as tagging the whole note joins the tokens of a run
  (:func:`itdeid.text.spans.labels_to_spans`). So a name that crosses a cut on one line comes out
  whole where both pieces tag its tokens alike. A span never crosses a cut after a line end,
  since spans never hold a line break.

What changes for a note that is cut. The model sees each window as a note of its own, so the
features computed over the whole note are computed over the window: the note's own word-case
counts (``frequency`` and ``casing`` groups: how often a word is capitalized in this note),
the relative position of a sentence in the note (``sentence``), the nearest heading when it
lies more than ``context`` characters before the cut (``heading``), a second pass's other
occurrences of the same word (``context_pass``), and a system's trusted and standardized
phrases pooled per note (``spread="document"``; with ``spread="patient"``, a cut note's pieces
pool with the pieces tagged in the same call, not with the patient's other notes). The
previous-label feature starts afresh at each window's start, ``context`` characters before the
core, and decoding re-converges within a few tokens (:func:`itdeid.estimators.decoding.decode`). So the tags
of a cut note can differ from tagging it whole, and not only near cuts: the note-wide counts
change everywhere. Measured with a 5-tree model on 60 short notes joined into one and cut in 7
pieces: the groups that read a few tokens, a line or a heading (basic, orthography, regex,
heading, location, context, firstnames, nonphi, casing, census, lexicon) gave exactly the spans
of the whole note; ``sentence`` changed 8 spans of 850 and ``frequency`` about a third
(tests/test_pieces.py keeps the first case; experiments/results/long-note.md measures a full
feature set). Cuts depend on the text alone, so outputs stay deterministic.

Exactly guaranteed: notes up to ``limit`` characters are tagged whole; every character of a
longer note lies in exactly one core; its spans are those :func:`~itdeid.text.spans.labels_to_spans`
gives over its tokens each labelled by the piece whose core holds it (cuts at whitespace leave
tokens whole; only a run of ``limit / 2`` characters without any is cut inside a token).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Iterator, Sequence

from itdeid.document import Document, Span
from itdeid.text.model_text import model_text

#: A note longer than this many characters is tagged in pieces of about this many; also the
#: most characters tagged in one call (several short notes share a call up to it).
PIECE_CHARS = 500_000
#: Characters of the note each side of a piece's core that its window adds as context.
CONTEXT_CHARS = 4_000

_WHITESPACE = re.compile(r"\s")


@dataclass(frozen=True)
class Piece:
    """Part of a note: ``text[start:end]`` (its window) is tagged, and the tokens of
    ``text[core_start:core_end]`` (its core) take their labels from it."""

    start: int
    end: int
    core_start: int
    core_end: int


def _cut_points(text: str, limit: int) -> list[int]:
    """Where the cores of ``text`` end: after a line end in the second half of each budget of
    ``limit`` characters, else after a whitespace character, else at the budget's end."""
    points, start = [], 0
    while len(text) - start > limit:
        end = start + limit
        cut = text.rfind("\n", start + limit // 2, end)
        if cut < 0:
            spaces = [m.start() for m in _WHITESPACE.finditer(text, start + limit // 2, end)]
            cut = spaces[-1] if spaces else -1
        cut = cut + 1 if cut >= 0 else end
        points.append(cut)
        start = cut
    return points + [len(text)]


def _window_start(text: str, core_start: int, context: int) -> int:
    """The first line start (else word start) at most ``context`` characters before
    ``core_start``, so the window begins at a line or word; ``core_start`` if none."""
    low = max(0, core_start - context)
    if low == 0:
        return 0
    # not the line end or space just before the core: that would give no context at all
    line = text.find("\n", low - 1, core_start - 1)
    if line >= 0:
        return line + 1
    space = _WHITESPACE.search(text, low - 1, core_start - 1)
    return space.end() if space else core_start


def _window_end(text: str, core_end: int, context: int) -> int:
    """The last line end (else whitespace) at most ``context`` characters after ``core_end``,
    so the window ends after a whole line or word; ``core_end`` if none."""
    high = min(len(text), core_end + context)
    if high == len(text):
        return high
    line = text.rfind("\n", core_end, high)
    if line >= 0:
        return line + 1
    spaces = [m.start() for m in _WHITESPACE.finditer(text, core_end, high)]
    return spaces[-1] if spaces else core_end


def cut(text: str, limit: int | None = None, context: int | None = None) -> list[Piece]:
    """The pieces ``text`` is tagged in: one, the whole text, when it holds at most ``limit``
    characters (:data:`PIECE_CHARS`); else cores of at most ``limit`` characters tiling it,
    each in a window of up to ``context`` more characters each side (:data:`CONTEXT_CHARS`)."""
    limit = limit or PIECE_CHARS
    context = CONTEXT_CHARS if context is None else context
    pieces, core_start = [], 0
    for core_end in _cut_points(text, limit):
        pieces.append(Piece(_window_start(text, core_start, context),
                            _window_end(text, core_end, context), core_start, core_end))
        core_start = core_end
    return pieces


def in_core(text: str, piece: Piece, spans: Sequence[Span]) -> list[Span]:
    """The spans a piece found (offsets into its window) clipped to its core, at offsets into
    the note, without the whitespace a clip leaves at an end; those outside the core dropped."""
    kept = []
    for span in spans:
        start = max(span.start + piece.start, piece.core_start)
        end = min(span.end + piece.start, piece.core_end)
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if start < end:
            kept.append(Span(start, end, span.type, span.subtype))
    return kept


def join_at_cuts(text: str, pieces: Sequence[Sequence[Span]]) -> list[Span]:
    """The spans of a cut note, given piece by piece in note order (clipped to their cores),
    as one list: the last span of a piece and the first of the next are joined when they are
    of one class with only spaces or tabs between them as the model reads the note (the rule of
    :func:`~itdeid.text.spans.labels_to_spans`; 'John<no-break space>Smith' across a cut was two)."""
    joined: list[Span] = []
    for spans in pieces:
        for k, span in enumerate(spans):
            before = joined[-1] if joined and k == 0 else None
            if (before is not None and before.type == span.type
                    and model_text(text[before.end:span.start])[0].strip(" \t") == ""):
                joined[-1] = Span(before.start, span.end, before.type, before.subtype)
            else:
                joined.append(span)
    return joined


def tags_independently(model) -> bool:
    """Whether ``model`` tags each note on its own, so any notes can share a tagging call. Not
    so for a system that pools phrases over a patient's notes (``spread="patient"``): there a
    call must hold all the notes of a patient it holds."""
    return getattr(model, "spread", "document") != "patient"


@dataclass(frozen=True)
class _Job:
    """One document to hand the model: note ``index``'s ``piece``, or the whole note."""

    index: int
    piece: Piece
    whole: bool


def _jobs(documents: Sequence[Document], limit: int, context: int) -> list[_Job]:
    jobs = []
    for index, doc in enumerate(documents):
        if doc.text:
            pieces = cut(doc.text, limit, context)
            jobs += [_Job(index, piece, len(pieces) == 1) for piece in pieces]
    return jobs


def _calls(documents: Sequence[Document], jobs: list[_Job], limit: int,
           by_patient: bool) -> Iterator[list[_Job]]:
    """The jobs in calls of about ``limit`` characters of text. With ``by_patient``, the
    whole notes of one patient share a call whatever their size (the jobs sorted by patient;
    a note without one is its own), and the pieces of cut notes follow, in calls by size."""
    def patient(job: _Job):
        if not by_patient:
            return None
        if not job.whole:
            return (2, "", job.index, job.piece.core_start)
        found = documents[job.index].patient
        return (0, found, 0, 0) if found is not None else (1, "", job.index, 0)

    if by_patient:
        jobs = sorted(jobs, key=patient)
    call: list[_Job] = []
    size, last = 0, None
    for job in jobs:
        length = job.piece.end - job.piece.start
        key = patient(job)
        if call and size + length > limit and (key is None or key != last):
            yield call
            call, size = [], 0
        call.append(job)
        size += length
        last = key
    if call:
        yield call


def tag_documents(model, documents: Sequence[Document], limit: int | None = None,
                  context: int | None = None,
                  advance: Callable[[int], None] | None = None) -> list[list[Span]]:
    """Predicted spans of each note (offsets into its whole text), tagging about ``limit``
    characters at a time (:data:`PIECE_CHARS`; see the module docstring for what cutting a
    longer note changes). ``advance(n)`` is called after each call with the ``n`` characters
    of the notes it finished tagging (cores only: they add up to the notes' length), for a
    progress bar. Notes are told apart by position, not id: notes of different files may share
    an id."""
    return tag_counted(model, documents, limit, context, advance)[0]


def tag_counted(model, documents: Sequence[Document], limit: int | None = None,
                context: int | None = None, advance: Callable[[int], None] | None = None
                ) -> tuple[list[list[Span]], list[int | None]]:
    """:func:`tag_documents`, and the tokens the model read in each note tagged whole (from
    :func:`itdeid.estimators.model.predict_counted` where the model's ``predict`` is itdeid's); None for a
    note cut into pieces, whose windows overlap, or a model that does not say."""
    limit = limit or PIECE_CHARS
    context = CONTEXT_CHARS if context is None else context
    jobs = _jobs(documents, limit, context)
    found: list[dict[int, list[Span]]] = [{} for _ in documents]
    counts: list[int | None] = [None if doc.text else 0 for doc in documents]
    counted = hasattr(model, "predict_tokenized")   # itdeid's models: predict is predict_spans
    if counted:
        from itdeid.estimators.model import predict_counted    # here: the model module imports sklearn
    for call in _calls(documents, jobs, limit, not tags_independently(model)):
        texts = [documents[job.index] if job.whole else Document(
            documents[job.index].id, documents[job.index].text[job.piece.start:job.piece.end],
            patient=documents[job.index].patient, source=documents[job.index].source)
            for job in call]
        if counted:
            predicted, tokens = predict_counted(model, texts)
        else:
            predicted, tokens = model.predict(texts), [None] * len(texts)
        for job, spans, n in zip(call, predicted, tokens):
            found[job.index][job.piece.core_start] = (
                list(spans) if job.whole else in_core(documents[job.index].text, job.piece, spans))
            if job.whole:
                counts[job.index] = n
        if advance is not None:
            advance(sum(job.piece.core_end - job.piece.core_start for job in call))
    return ([join_at_cuts(doc.text, [pieces[k] for k in sorted(pieces)])
             for doc, pieces in zip(documents, found)], counts)
