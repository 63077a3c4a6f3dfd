"""Tokenized documents: what every model of a pipeline shares, computed once.

A note is tokenized, its structure analysed and its words lower-cased once, then read by every
model of a system (six or nine of them, or an ensemble's members): a :class:`TokenizedDocument`
carries those and a ``cache`` of the columns that depend on the note alone, so the second model
reads what the first computed. Tokens split at gold span edges only when the gold is there
(training and evaluation); tagging reads the text's own tokens.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from itdeid.document import LABEL_CODE, LABELS, Document, Span
from itdeid.text.model_text import model_text, to_model, to_note
from itdeid.text.spans import labels_to_spans, token_labels
from itdeid.text.structure import Structure, analyze
from itdeid.text.tokens import Token, token_bounds, tokenize



@dataclass
class TokenizedDocument:
    """A document with its tokens, structure, lower-cased words and (gold) label codes.

    ``cache`` holds the feature columns that depend on the document alone (orthography, word
    frequency, regular expressions, gazetteers, context), computed by the first model that
    needs them and reused by the others: a system of six or nine models over the same notes
    computes them once.
    """

    document: Document
    tokens: list[Token]
    words: list[str]
    structure: Structure
    labels: np.ndarray | None = None
    #: Where each character of ``document.text`` begins in the note it was read from, when the
    #: model reads it with characters left out or composed (:func:`itdeid.text.model_text.model_text`);
    #: None when offsets are the note's own.
    starts: np.ndarray | None = None
    cache: dict = field(default_factory=dict, repr=False, compare=False)

    def __len__(self):
        return len(self.tokens)


def tokenize_documents(documents, gold: bool = True) -> list[TokenizedDocument]:
    """:func:`tokenize_document` of each of ``documents``, the input of every estimator's
    ``fit`` and ``predict``: an iterable of :class:`~itdeid.document.Document` with str text.
    Anything else is a ``TypeError`` naming its position, not an ``AttributeError`` from deep
    inside (a notebook passing the notes' strings, or a None read from a failed file)."""
    if isinstance(documents, (str, bytes, Document)):
        raise TypeError(f"documents must be an iterable of itdeid.Document, got one "
                        f"{type(documents).__name__}: wrap it in a list (Document(id, text))")
    out = []
    for i, document in enumerate(documents):
        if not isinstance(document, Document):
            raise TypeError(f"documents[{i}]: an itdeid.Document is needed, got "
                            f"{type(document).__name__} (Document(id, text) wraps a note's text)")
        if not isinstance(document.text, str):
            raise TypeError(f"documents[{i}] ({document.id!r}): text must be str, got "
                            f"{type(document.text).__name__}")
        out.append(tokenize_document(document, gold))
    return out


def tokenize_document(document: Document, gold: bool = True) -> TokenizedDocument:
    """Tokenize a document; with ``gold``, split tokens at its span edges and label them.

    Splitting at gold edges only happens at training and evaluation time; at tagging time the
    text's own tokens are used. The text is the one the model reads (:mod:`itdeid.text.model_text`:
    look-alikes as ASCII, invisible characters left out, accents composed);
    ``TokenizedDocument.document`` is then a copy with that text and its spans, and ``starts``
    maps offsets back to the note where they differ (:func:`note_spans`).
    """
    text, starts = model_text(document.text)
    if text is not document.text:
        document = dataclasses.replace(document, text=text, spans=to_model(document.spans, starts, document.text))
    if gold and document.spans:
        document.check_spans()   # a span past the text or two overlapping would mislabel tokens
        edges = [x for span in document.spans for x in (span.start, span.end)]
        tokens = tokenize(document.text, edges)
    else:
        tokens = tokenize(document.text)
    labels = None
    if gold:
        labels = np.array([LABEL_CODE[x] for x in token_labels(tokens, document.spans)], dtype=np.int8)
    words = [t.text.lower() for t in tokens]
    offsets = token_bounds(tokens)   # the structure reads them too: computed once a note
    td = TokenizedDocument(document, tokens, words, analyze(document.text, tokens, offsets), labels, starts)
    td.cache["offsets"] = offsets
    return td


def note_spans(td: TokenizedDocument, codes) -> list[Span]:
    """The PHI spans of label ``codes`` of ``td``'s tokens, at offsets into the note it was read
    from (whole tokens, the span rules of :func:`itdeid.text.spans.labels_to_spans`)."""
    return to_note(labels_to_spans(td.document.text, td.tokens, [LABELS[c] for c in codes]), td.starts)


def tokenize_words(text: str) -> list[str]:
    return [t.text.lower() for t in tokenize(text)]


def token_offsets(td: TokenizedDocument) -> tuple[np.ndarray, np.ndarray]:
    """Start and end offsets of the document's tokens as arrays (cached)."""
    if "offsets" not in td.cache:
        td.cache["offsets"] = token_bounds(td.tokens)
    return td.cache["offsets"]
