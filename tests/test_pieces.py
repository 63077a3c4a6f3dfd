"""itdeid.text.pieces: long notes tagged in overlapping pieces (cuts, offsets, spans across a cut,
output equal to tagging whole where the guarantee says so)."""
import re

import pytest

from itdeid.document import Document, Span
from itdeid.estimators.model import TokenModel
from itdeid.batch.tagging import tag_notes
from itdeid.text.pieces import Piece, cut, in_core, join_at_cuts, tag_counted, tag_documents
from itdeid.text.tokens import count_tokens

from helpers import tiny_corpus


class NameFinder:
    """A stand-in model whose tags depend on the text alone: 'John Smith' is a PATIENT, a run of
    digits an ID. Records the lengths of the documents of each call."""

    def __init__(self):
        self.calls = []

    def predict(self, documents):
        self.calls.append([len(d.text) for d in documents])
        return [[Span(m.start(), m.end(), "ID" if m.group()[0].isdigit() else "PATIENT")
                 for m in re.finditer(r"John[ \t]+Smith|\d+", d.text)] for d in documents]


def _check_tiling(text, pieces, limit, context):
    assert pieces[0].core_start == 0 and pieces[-1].core_end == len(text)
    for a, b in zip(pieces, pieces[1:]):
        assert a.core_end == b.core_start
    for p in pieces:
        assert p.start <= p.core_start < p.core_end <= p.end
        assert p.core_end - p.core_start <= limit
        assert p.core_start - p.start <= context and p.end - p.core_end <= context


@pytest.mark.parametrize("text", [
    ("a line of words\n" * 400),                       # many lines
    " ".join(["word"] * 2000),                         # one huge line
    "x" * 5000,                                        # no whitespace at all
    ("short\n" * 50) + "y" * 3000 + ("\nend" * 100),   # a long token among lines
])
def test_cores_tile_the_text_within_the_budget(text):
    pieces = cut(text, 500, 100)
    _check_tiling(text, pieces, 500, 100)
    assert len(pieces) > 1


def test_cuts_fall_after_line_ends_and_windows_hold_whole_lines():
    text = ("a" * 30 + "\n") * 200
    pieces = cut(text, 400, 100)
    _check_tiling(text, pieces, 400, 100)
    for p in pieces[:-1]:
        assert text[p.core_end - 1] == "\n" and text[p.end - 1] == "\n"
    for p in pieces[1:]:
        assert text[p.start - 1] == "\n" and p.start < p.core_start     # some context
    one_line = " ".join(["word"] * 300)
    for p in cut(one_line, 200, 50)[1:]:
        assert one_line[p.core_start - 1] == " " and one_line[p.start - 1] == " "


def test_a_note_within_the_limit_is_one_piece_tagged_whole():
    text = "John Smith 123\n" * 10
    assert cut(text, len(text), 10) == [Piece(0, len(text), 0, len(text))]
    model = NameFinder()
    docs = [Document(f"n{k}", text) for k in range(5)]
    assert tag_documents(model, docs, limit=2 * len(text)) == model.predict(docs)
    # several notes share a call up to the limit; none is cut
    assert [len(call) for call in model.calls[:-1]] == [2, 2, 1]
    assert all(n == len(text) for call in model.calls for n in call)


def test_spans_are_clipped_to_the_core_and_joined_across_a_cut():
    text = "seen by John Smith today"
    cut_at = text.index("Smith")
    first, second = Piece(0, len(text), 0, cut_at), Piece(0, len(text), cut_at, len(text))
    name = [Span(8, 18, "PATIENT")]
    a, b = in_core(text, first, name), in_core(text, second, name)
    assert [(s.start, s.end) for s in a] == [(8, 12)]          # 'John', its space dropped
    assert [(s.start, s.end) for s in b] == [(13, 18)]         # 'Smith'
    assert join_at_cuts(text, [a, b]) == name
    # pieces that disagree on the class keep two spans; a line end between keeps them apart
    assert len(join_at_cuts(text, [a, [Span(13, 18, "DOCTOR")]])) == 2
    lines = "John\nSmith"
    assert len(join_at_cuts(lines, [[Span(0, 4, "PATIENT")], [Span(5, 10, "PATIENT")]])) == 2
    # a no-break space is a space as the model reads it (a black-box test: two spans)
    for gap in ("\u00a0", "\u200b", " \u00a0"):
        text = f"John{gap}Smith"
        assert join_at_cuts(text, [[Span(0, 4, "PATIENT")], [Span(4 + len(gap), len(text), "PATIENT")]]) == \
            [Span(0, len(text), "PATIENT")]


def test_a_long_single_line_gives_the_spans_of_the_whole_note_at_their_offsets():
    """Cuts at spaces fall inside many a 'John Smith' (between its words): each comes out as
    one span at its offsets in the whole note."""
    text = " ".join(f"note {k} seen by John Smith at home" for k in range(400))
    note = Document("long", text)
    model = NameFinder()
    whole = model.predict([note])[0]

    def crossing(limit):
        return [s for s in whole if any(s.start < p.core_start < s.end
                                        for p in cut(text, limit, 200))]

    # the first budget whose cuts fall inside some spans (deterministic)
    limit = next(n for n in range(1000, 1100) if len(crossing(n)) >= 3)
    assert len(cut(text, limit, 200)) > 10
    assert tag_documents(model, [note], limit=limit, context=200) == [whole]
    assert all(text[s.start:s.end] in ("John Smith",) or text[s.start:s.end].isdigit()
               for s in whole)


@pytest.fixture(scope="module")
def local_model():
    """A tiny model over feature groups that read a few tokens around each one (no note-wide
    counts), so a cut note's tags are those of the whole note."""
    return TokenModel(n_estimators=5, n_jobs=1, groups=("basic", "orthography", "regex"),
                      random_state=3).fit(tiny_corpus(30))


def test_a_long_note_of_repeated_notes_is_tagged_as_whole(local_model):
    text = "\n".join(d.text for d in tiny_corpus(60, seed=9))
    note = Document("long", text, patient="p")
    whole = local_model.predict([note])[0]
    assert len(whole) > 100
    pieces = tag_documents(local_model, [note], limit=4000, context=500)[0]
    assert len(cut(text, 4000, 500)) > 3
    assert pieces == whole
    # a short note beside it is tagged as alone
    short = tiny_corpus(1, seed=11)[0]
    both = tag_documents(local_model, [short, note], limit=4000, context=500)
    assert both == [local_model.predict([short])[0], whole]


def test_progress_adds_up_to_the_characters_of_the_notes():
    docs = [Document("a", "John Smith 12\n" * 300), Document("b", ""),
            Document("c", "short note 7")]
    told = []
    tag_documents(NameFinder(), docs, limit=500, context=50, advance=told.append)
    assert len(told) > 5 and sum(told) == sum(len(d.text) for d in docs)


def test_token_counts_come_from_the_tagging_and_match_a_recount(local_model):
    """tag_notes reports each note's tokens: those the model read for a note tagged whole (no
    second pass over the text), a recount for a note cut into pieces or a model that does not
    say; either way what count_tokens gives a plain note."""
    long_text = "\n".join(d.text for d in tiny_corpus(60, seed=9))
    docs = tiny_corpus(3, seed=5) + [Document("empty", ""), Document("long", long_text)]
    spans, counts = tag_counted(local_model, docs, limit=4000, context=500)
    assert spans == tag_documents(local_model, docs, limit=4000, context=500)
    assert counts[:4] == [count_tokens(d.text) for d in docs[:4]] and counts[4] is None
    assert tag_notes(local_model, docs, limit=4000)[1] == [count_tokens(d.text) for d in docs]
    assert tag_notes(NameFinder(), docs, limit=4000)[1] == [count_tokens(d.text) for d in docs]
