"""The review folder: the sampled notes, the model's spans and the reviewer's corrections.

Everything lives in one private folder (created 0700, files 0600: it holds the notes' original
text). ``review.json`` is the state: the design of the sample and, for each sampled note, its
text, the spans the model gave it, the spans as the reviewer left them and whether the reviewer
has finished it. Every change is written at once, through a temporary file and a rename, so a
crash or a killed server leaves the last saved state. After each change the reviewed notes are
also exported as gold annotations that ``itdeid train`` and ``itdeid evaluate`` read:
``corrections.xml`` (i2b2 2006 XML, the reviewer's spans) and ``predicted.xml`` (the model's
spans of the same notes), so ``itdeid evaluate corrections.xml predicted.xml`` scores the model
on them. ``design.json`` repeats the design without any note text.
"""
from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Mapping, Sequence

from itdeid.batch.files import make_private_folders, write_atomic
from itdeid.document import PHI_CLASSES, Document, Span
from itdeid.errors import UserError
from itdeid.formats.i2b2_2006 import render_i2b2_2006

FORMAT = 1
STATE = "review.json"
DESIGN = "design.json"
CORRECTIONS = "corrections.xml"
PREDICTED = "predicted.xml"


def _span_list(spans: Sequence[Span]) -> list[list]:
    return [[s.start, s.end, s.type] for s in sorted(spans)]


def checked_spans(value, text: str) -> list[Span]:
    """``value`` (a list of ``[start, end, class]``) as spans of ``text``, sorted; a ValueError
    saying what is wrong (never quoting the text) unless each is inside the text, of a PHI
    class, and no two overlap."""
    if not isinstance(value, list):
        raise ValueError("spans must be a list of [start, end, class]")
    spans = []
    for item in value:
        if (not isinstance(item, list) or len(item) != 3
                or not all(isinstance(x, int) and not isinstance(x, bool) for x in item[:2])):
            raise ValueError("each span must be [start, end, class] with whole-number offsets")
        start, end, kind = item
        if not 0 <= start < end <= len(text):
            raise ValueError(f"span {start}-{end} is outside the note (length {len(text)})")
        if kind not in PHI_CLASSES:
            raise ValueError(f"span {start}-{end}: the class must be one of {', '.join(PHI_CLASSES)}")
        spans.append(Span(start, end, kind))
    spans.sort()
    for a, b in zip(spans, spans[1:]):
        if b.start < a.end:
            raise ValueError(f"spans {a.start}-{a.end} and {b.start}-{b.end} overlap")
    return spans


class ReviewStore:
    """A review folder's state, read and written whole; safe to use from several threads."""

    def __init__(self, folder: Path, state: dict):
        self.folder = Path(folder)
        self.state = state
        self._lock = threading.Lock()

    # -- making and opening ------------------------------------------------------------------
    @classmethod
    def create(cls, folder, documents: Sequence[Document], predicted: Mapping[int, Sequence[Span]],
               picks, risks, design: dict, tokens: Sequence[list] | None = None) -> "ReviewStore":
        """A new review folder over ``documents`` (the batch), keeping the ``picks``
        (:class:`~itdeid.review.sample.Pick`) with their ``predicted`` spans (by the pick's
        index in the batch: a list of every note's, or the picked notes' alone) and ``risks``, and
        per pick its tokens' ``[start, end, P(PHI)]`` (``tokens``, in the picks' order; what the
        calibration of P(PHI) is measured from); ``design`` is what chose them."""
        folder = Path(folder)
        if (folder / STATE).exists():
            raise UserError(f"{folder / STATE} already holds a review: resume it with "
                            f"'itdeid review --corrections {folder}', or give another folder")
        notes = []
        tokens = list(tokens) if tokens is not None else [[] for _ in picks]
        for pick, note_tokens in zip(picks, tokens):
            doc = documents[pick.index]
            risk = risks[pick.index]
            notes.append({"id": doc.id, "patient": doc.patient, "text": doc.text,
                          "stratum": pick.stratum, "probability": pick.probability,
                          "near_misses": risk.near_misses, "unsure_tags": risk.unsure_tags,
                          "predicted": _span_list(predicted[pick.index]),
                          "spans": _span_list(predicted[pick.index]), "reviewed": False,
                          "tokens": note_tokens})
        ids = [n["id"] for n in notes]
        if len(set(ids)) != len(ids):
            raise UserError("the sampled notes share an id; give notes with distinct ids to review")
        make_private_folders(folder)
        store = cls(folder, {"format": FORMAT, "design": design, "notes": notes})
        store._write()
        return store

    @classmethod
    def open(cls, folder) -> "ReviewStore":
        """The review saved in ``folder``; a one-line :class:`UserError` naming the file if it
        is missing or damaged."""
        path = Path(folder) / STATE
        if not path.is_file():
            raise UserError(f"{path}: no review here; start one with 'itdeid review NOTES "
                            f"--corrections {folder}'")
        try:
            state = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(state, dict) or state.get("format") != FORMAT:
                raise ValueError(f"not a review file of format {FORMAT}")
            for note in state["notes"]:
                note["spans"] = _span_list(checked_spans(note["spans"], note["text"]))
                note["predicted"] = _span_list(checked_spans(note["predicted"], note["text"]))
                if not isinstance(note["reviewed"], bool):
                    raise ValueError("'reviewed' must be true or false")
                if not isinstance(note.setdefault("tokens", []), list):
                    raise ValueError("'tokens' must be a list")
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError, ValueError) as e:
            raise UserError(f"{path}: damaged review file ({type(e).__name__}: "
                            f"{e if isinstance(e, ValueError) and not isinstance(e, json.JSONDecodeError) else 'unreadable'})") from None
        return cls(Path(folder), state)

    # -- what the page reads and writes ---------------------------------------------------------
    def summary(self) -> dict:
        """The notes in review order, without their text: id, stratum, reviewed."""
        notes = self.state["notes"]
        return {"notes": [{"id": n["id"], "stratum": n["stratum"], "reviewed": n["reviewed"]} for n in notes],
                "reviewed": sum(n["reviewed"] for n in notes), "classes": list(PHI_CLASSES)}

    def note(self, i: int) -> dict:
        n = self._note(i)
        return {"index": i, "id": n["id"], "stratum": n["stratum"], "text": n["text"],
                "spans": n["spans"], "predicted": n["predicted"], "reviewed": n["reviewed"]}

    def save_note(self, i: int, spans, reviewed) -> dict:
        """Replace note ``i``'s spans and reviewed flag (checked first; a ValueError leaves the
        state as it was) and write the folder."""
        if not isinstance(reviewed, bool):
            raise ValueError("reviewed must be true or false")
        with self._lock:
            n = self._note(i)
            checked = _span_list(checked_spans(spans, n["text"]))
            which = n["reviewed"] != reviewed           # the set of reviewed notes changes
            n["spans"], n["reviewed"] = checked, reviewed
            self._write(which)
        return self.note(i)

    def _note(self, i) -> dict:
        notes = self.state["notes"]
        if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < len(notes):
            raise IndexError(f"no note {i!r} in this review of {len(notes)}")
        return notes[i]

    # -- the files ------------------------------------------------------------------------------
    def documents(self, which: str = "spans", reviewed_only: bool = True) -> list[Document]:
        """The notes as documents with the reviewer's spans (``which="spans"``) or the
        model's (``"predicted"``)."""
        return [Document(n["id"], n["text"], [Span(*s) for s in n[which]], n["patient"])
                for n in self.state["notes"] if n["reviewed"] or not reviewed_only]

    def _write(self, which: bool = True) -> None:
        """Write the state and the corrections; with ``which`` (the reviewed notes are others
        than at the last write) also the design and the model's spans of the reviewed notes,
        which change only then."""
        write_atomic(self.folder / STATE, json.dumps(self.state, ensure_ascii=False).encode("utf-8"))
        write_atomic(self.folder / CORRECTIONS, render_i2b2_2006(self.documents("spans"), self.folder / CORRECTIONS))
        if not which:
            return
        design = dict(self.state["design"], sampled=[
            {"id": n["id"], "stratum": n["stratum"], "probability": n["probability"],
             "near_misses": n["near_misses"], "unsure_tags": n["unsure_tags"], "reviewed": n["reviewed"]}
            for n in self.state["notes"]])
        write_atomic(self.folder / DESIGN, json.dumps(design, indent=1).encode("utf-8"))
        write_atomic(self.folder / PREDICTED, render_i2b2_2006(self.documents("predicted"), self.folder / PREDICTED))
