"""Scoring predicted PHI spans against gold: token level as Szarvas et al. (2007), entity level as
the i2b2 2014 challenge.

:func:`evaluate` takes the gold documents and the predicted spans keyed by document id and returns
an :class:`Evaluation`. A gold document missing from the predictions counts as one where nothing
was predicted (every gold PHI token a false negative); a predicted document id that is not in the
gold corpus, or a predicted span that leaves its document's text, is a
:class:`~itdeid.errors.UserError`.

Token units (``unit``), over the text the model reads (:mod:`itdeid.text.model_text`: invisible
characters left out, accents composed, with both span sets mapped onto it), so a note and its
twin with zero-width spaces or decomposed accents score alike:

- ``"token"``: the tokens of :func:`itdeid.text.tokens.tokenize`, split at every gold *and* predicted
  span edge, so each token lies wholly inside or outside every span and a boundary error inside a
  token never loses (or gains) a PHI character. A token's label is the class of the span it lies
  in (where predicted spans overlap, the one starting later wins), else ``NONE``.
- ``"whitespace"``: whitespace-separated tokens, the unit of the 2006 challenge (its text came
  pre-tokenized with spaces). A token that a span covers only in part takes the label covering
  the majority of its characters, ``NONE`` counting as a label; a tie goes to the tied label of the
  token's leftmost character. Gold and predicted labels follow the same rule.

Token measures (each token has one gold and one predicted label among the nine of
:data:`~itdeid.document.LABELS`):

- ``token_9way``: micro P/R/F over all nine labels, i.e. accuracy, so P = R = F (the paper's
  9-way measure).
- ``token_8way``: micro P/R/F over the PHI classes only (the paper's 8-way measure): TP = tokens
  with gold == predicted != NONE; the precision denominator is the tokens predicted PHI, the recall
  denominator the tokens that are gold PHI, so correctly untagged non-PHI tokens do not count.
  ``token_8way_macro`` averages the per-document 8-way P, R and F.
- ``binary_token``: PHI against non-PHI whatever the class.
- per class (nine labels, ``NONE`` included) and the confusion matrix, rows gold, columns
  predicted, in the order of the paper's Table 2 (``NONE`` then the PHI classes).

Entity measures (the i2b2 2014 challenge), over spans:

- ``entity_strict``: a predicted span matches a gold span with the same start, end and type.
- ``entity_relaxed``: same type and start, the ends may differ by up to 2 characters
  (:data:`RELAXED_END`). Matching is one to one (closest ends first).
- micro P/R/F over all spans, and ``*_macro``: per-document P/R/F averaged over documents.

PHI instances (``phi_instances``), the measure a privacy officer asks for: a gold span counts as
found when any predicted span of any class overlaps it by a character (recall: found gold spans
over gold spans), and a predicted span counts as right when it overlaps any gold span (precision).
A name tagged as a DOCTOR instead of a PATIENT, or with one token too few, was still not let out.
Per class (``per_class()[...]["instances"]``): the same over that class's gold spans (recall)
and over the spans predicted with that class (precision).

HIPAA subset: the 2014 challenge also scored only the categories that the HIPAA Safe Harbor
method requires removing. Of the 2006 classes, HIPAA does not require removing the names of
care providers (DOCTOR) or of hospitals (HOSPITAL), so ``hipaa_*`` measures drop DOCTOR and
HOSPITAL from gold and predictions alike (a token of those classes counts as NONE) and score the
remaining six classes: ``hipaa_token`` (8-way-style micro P/R/F), ``hipaa_entity_strict`` and
``hipaa_entity_relaxed``.

0/0: a ratio whose denominator is 0 is 1 when both the gold and the predicted count are 0
(nothing to find and nothing claimed: a document with no gold and no predicted spans has
P = R = F = 1), else 0; F is 0 when P + R is 0. This applies to micro, macro and per-class scores.

Counting is vectorized with numpy per document (per-character label arrays, ``bincount`` into a
9x9 confusion matrix), so it scales to millions of tokens.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from itdeid.document import LABELS, PHI_CLASSES, Document, Span
from itdeid.errors import UserError
from itdeid.text.model_text import model_text, to_model
from itdeid.text.tokens import tokenize

#: Token units :func:`evaluate` accepts.
UNITS = ("token", "whitespace")
#: How far (characters) a predicted end may be from the gold end in the relaxed entity match.
RELAXED_END = 2
#: Classes HIPAA Safe Harbor does not require removing, dropped by the ``hipaa_*`` measures.
NON_HIPAA_CLASSES: tuple[str, ...] = ("DOCTOR", "HOSPITAL")
#: Classes the ``hipaa_*`` measures score.
HIPAA_CLASSES: tuple[str, ...] = tuple(c for c in PHI_CLASSES if c not in NON_HIPAA_CLASSES)

#: The measures of ``Evaluation.to_dict()["summary"]``, in the order they are printed.
SUMMARY_MEASURES: tuple[str, ...] = (
    "token_9way", "token_8way", "token_8way_macro", "binary_token",
    "entity_strict", "entity_relaxed", "entity_strict_macro", "entity_relaxed_macro",
    "phi_instances", "hipaa_token", "hipaa_entity_strict", "hipaa_entity_relaxed",
)

_CODE = {label: i for i, label in enumerate(LABELS)}
_N = len(LABELS)
_PHI = np.arange(1, _N)  # label codes of the PHI classes
_HIPAA = np.array([_CODE[c] for c in HIPAA_CLASSES])
_WHITESPACE_TOKEN = re.compile(r"\S+")


# --------------------------------------------------------------------------------------------
# Ratios

def _ratio(numerator, denominator, other):
    """``numerator / denominator`` with the 0/0 rule: 1 where ``other`` is 0 too, else 0."""
    numerator = np.asarray(numerator, dtype=float)
    denominator = np.asarray(denominator, dtype=float)
    other = np.asarray(other, dtype=float)
    safe = np.where(denominator > 0, denominator, 1.0)
    return np.where(denominator > 0, numerator / safe, np.where(other == 0, 1.0, 0.0))


def _prf(tp, n_pred, n_gold):
    """Precision, recall and F1 (arrays or scalars) from TP and the predicted and gold counts."""
    p = _ratio(tp, n_pred, n_gold)
    r = _ratio(tp, n_gold, n_pred)
    s = p + r
    f = np.where(s > 0, 2 * p * r / np.where(s > 0, s, 1.0), 0.0)
    return p, r, f


def _score(tp, n_pred, n_gold) -> dict:
    p, r, f = _prf(tp, n_pred, n_gold)
    return {"p": float(p), "r": float(r), "f": float(f),
            "tp": int(tp), "n_pred": int(n_pred), "n_gold": int(n_gold)}


def _macro(tp, n_pred, n_gold) -> dict:
    """Per-document P/R/F (arrays over documents) averaged; 0 documents give the 0/0 rule's 1."""
    p, r, f = _prf(tp, n_pred, n_gold)
    n = len(np.atleast_1d(tp))
    if n == 0:
        return {"p": 1.0, "r": 1.0, "f": 1.0, "documents": 0}
    return {"p": float(np.mean(p)), "r": float(np.mean(r)), "f": float(np.mean(f)),
            "documents": int(n)}


def _subset_counts(confusion: np.ndarray, keep: np.ndarray):
    """TP, predicted and gold counts over the classes ``keep`` of a confusion matrix (or a stack
    of them), the other classes counting as NONE."""
    tp = confusion[..., keep, keep].sum(axis=-1)
    n_pred = confusion[..., :, keep].sum(axis=(-1, -2))
    n_gold = confusion[..., keep, :].sum(axis=(-1, -2))
    return tp, n_pred, n_gold


# --------------------------------------------------------------------------------------------
# Labelling

def _char_labels(length: int, spans: Sequence[Span]) -> np.ndarray:
    """The label code of every character (0 = NONE); later spans (by start) overwrite earlier."""
    labels = np.zeros(length, dtype=np.int8)
    for span in sorted(spans):
        labels[span.start:span.end] = _CODE[span.type]
    return labels


def _token_unit(text: str, gold: np.ndarray, pred: np.ndarray, edges: np.ndarray):
    tokens = tokenize(text, edges.tolist())
    starts = np.fromiter((t.start for t in tokens), dtype=np.int64, count=len(tokens))
    return gold[starts], pred[starts]


def _majority(labels: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The label covering most characters of each token ``[start, end)``; ties go to the tied
    label of the token's leftmost character."""
    counts = np.empty((len(starts), _N), dtype=np.int64)
    for code in range(_N):
        cumulative = np.concatenate(([0], np.cumsum(labels == code, dtype=np.int64)))
        counts[:, code] = cumulative[ends] - cumulative[starts]
    best = counts.max(axis=1, keepdims=True)
    result = counts.argmax(axis=1)
    tied = np.flatnonzero((counts == best).sum(axis=1) > 1)
    for i in tied:  # rare: a token split evenly between two labels
        candidates = counts[i] == best[i, 0]
        piece = labels[starts[i]:ends[i]]
        result[i] = piece[np.flatnonzero(candidates[piece])[0]]
    return result.astype(np.int8)


def whitespace_labels(text: str, spans: Sequence[Span]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The 2006 challenge's unit for ``spans`` of ``text``: each whitespace token's start, end and
    label code (the label of most of its characters, as the ``whitespace`` unit scores it)."""
    starts, ends = _whitespace_bounds(text)
    return starts, ends, _majority(_char_labels(len(text), spans), starts, ends)


def _whitespace_bounds(text: str) -> tuple[np.ndarray, np.ndarray]:
    bounds = np.array([m.span() for m in _WHITESPACE_TOKEN.finditer(text)], dtype=np.int64).reshape(-1, 2)
    return bounds[:, 0], bounds[:, 1]


def _whitespace_unit(text: str, gold: np.ndarray, pred: np.ndarray):
    starts, ends = _whitespace_bounds(text)
    if len(starts) == 0:
        return np.zeros(0, np.int8), np.zeros(0, np.int8)
    return _majority(gold, starts, ends), _majority(pred, starts, ends)


# --------------------------------------------------------------------------------------------
# Entity matching

def _entity_counts(gold: Sequence[Span], pred: Sequence[Span]) -> np.ndarray:
    """Per PHI class (rows, :data:`PHI_CLASSES` order): strict TP, relaxed TP, predicted, gold."""
    out = np.zeros((len(PHI_CLASSES), 4), dtype=np.int64)
    for span in gold:
        out[_CODE[span.type] - 1, 3] += 1
    for span in pred:
        out[_CODE[span.type] - 1, 2] += 1
    gold_keys: dict[tuple, int] = {}
    for span in gold:
        key = (span.start, span.end, span.type)
        gold_keys[key] = gold_keys.get(key, 0) + 1
    for span in pred:  # strict: multiset intersection of (start, end, type)
        key = (span.start, span.end, span.type)
        if gold_keys.get(key, 0) > 0:
            gold_keys[key] -= 1
            out[_CODE[span.type] - 1, 0] += 1
    groups: dict[tuple, tuple[list, list]] = {}
    for span in gold:
        groups.setdefault((span.start, span.type), ([], []))[0].append(span.end)
    for span in pred:
        if (span.start, span.type) in groups:
            groups[(span.start, span.type)][1].append(span.end)
    for (_, span_type), (gold_ends, pred_ends) in groups.items():
        if not pred_ends:
            continue
        pairs = sorted((abs(g - p), i, j) for i, g in enumerate(gold_ends)
                       for j, p in enumerate(pred_ends) if abs(g - p) <= RELAXED_END)
        used_gold, used_pred = set(), set()
        for _, i, j in pairs:  # one to one, closest ends first
            if i not in used_gold and j not in used_pred:
                used_gold.add(i)
                used_pred.add(j)
                out[_CODE[span_type] - 1, 1] += 1
    return out


def overlaps_any(spans: Sequence[Span], others: Sequence[Span]) -> list[bool]:
    """For each of ``spans``, whether it shares a character with any of ``others``.

    A span [a, b) overlaps some other [s, e) iff an other with s < b has e > a; the running
    maximum of the others' ends, in order of their starts, answers that with one binary search
    a span.
    """
    if not others:
        return [False] * len(spans)
    order = sorted(others, key=lambda s: s.start)
    starts = np.array([s.start for s in order], dtype=np.int64)
    running = np.maximum.accumulate(np.array([s.end for s in order], dtype=np.int64))
    found = []
    for span in spans:
        k = int(np.searchsorted(starts, span.end, side="left"))
        found.append(k > 0 and bool(running[k - 1] > span.start))
    return found


def _instance_counts(gold: Sequence[Span], pred: Sequence[Span]) -> np.ndarray:
    """Per PHI class (rows, :data:`PHI_CLASSES` order): gold spans overlapped by any predicted
    span, gold spans, predicted spans overlapping any gold span, predicted spans (the last two
    by the predicted span's class)."""
    out = np.zeros((len(PHI_CLASSES), 4), dtype=np.int64)
    for span, hit in zip(gold, overlaps_any(gold, pred)):
        out[_CODE[span.type] - 1, 0] += hit
        out[_CODE[span.type] - 1, 1] += 1
    for span, hit in zip(pred, overlaps_any(pred, gold)):
        out[_CODE[span.type] - 1, 2] += hit
        out[_CODE[span.type] - 1, 3] += 1
    return out


# --------------------------------------------------------------------------------------------
# Result

@dataclass
class Evaluation:
    """The counts behind every score; the scores are computed from them on demand.

    ``doc_confusion``: per document 9x9 token counts, rows gold, columns predicted,
    :data:`LABELS` order (documents x 9 x 9); :attr:`matrix` sums them, :attr:`confusion` is
    the same as a DataFrame. ``entity``: per document and
    PHI class (documents x 8 x 4): strict TP, relaxed TP, predicted spans, gold spans.
    ``instances``: per document and PHI class (documents x 8 x 4): gold spans found by any
    overlap, gold spans, predicted spans overlapping gold, predicted spans.
    """

    unit: str
    doc_ids: list[str]
    doc_confusion: np.ndarray
    entity: np.ndarray
    missing: list[str] = field(default_factory=list)
    instances: np.ndarray | None = None

    @property
    def matrix(self) -> np.ndarray:
        """The 9x9 token confusion counts (rows gold, columns predicted, :data:`LABELS` order)."""
        return self.doc_confusion.sum(axis=0)

    @property
    def confusion(self) -> pd.DataFrame:
        """The confusion matrix laid out as the paper's Table 2: rows gold, columns predicted,
        ``NONE`` then the PHI classes, label names as headers."""
        frame = pd.DataFrame(self.matrix, index=list(LABELS), columns=list(LABELS))
        frame.index.name, frame.columns.name = "gold", "predicted"
        return frame

    # -- token measures ------------------------------------------------------------------------

    def _token_scores(self) -> dict:
        c = self.matrix
        total = int(c.sum())
        correct = int(np.trace(c))
        tp8, pred8, gold8 = _subset_counts(c, _PHI)
        dtp, dpred, dgold = _subset_counts(self.doc_confusion, _PHI)
        htp, hpred, hgold = _subset_counts(c, _HIPAA)
        binary_tp = int(c[1:, 1:].sum())
        return {
            "token_9way": _score(correct, total, total),
            "token_8way": _score(tp8, pred8, gold8),
            "token_8way_macro": _macro(dtp, dpred, dgold),
            "binary_token": _score(binary_tp, pred8, gold8),
            "hipaa_token": _score(htp, hpred, hgold),
        }

    # -- entity measures -----------------------------------------------------------------------

    def _entity_scores(self) -> dict:
        e = self.entity
        hipaa = _HIPAA - 1
        scores = {}
        for name, column in (("strict", 0), ("relaxed", 1)):
            tp, n_pred, n_gold = e[:, :, column].sum(), e[:, :, 2].sum(), e[:, :, 3].sum()
            scores[f"entity_{name}"] = _score(tp, n_pred, n_gold)
            scores[f"entity_{name}_macro"] = _macro(
                e[:, :, column].sum(axis=1), e[:, :, 2].sum(axis=1), e[:, :, 3].sum(axis=1))
            scores[f"hipaa_entity_{name}"] = _score(
                e[:, hipaa, column].sum(), e[:, hipaa, 2].sum(), e[:, hipaa, 3].sum())
        i = self._instances().sum(axis=(0, 1))
        # precision: predicted spans overlapping gold / predicted; recall: found gold / gold
        p, r = float(_ratio(i[2], i[3], i[1])), float(_ratio(i[0], i[1], i[3]))
        scores["phi_instances"] = {"p": p, "r": r, "f": 2 * p * r / (p + r) if p + r else 0.0,
                                   "tp": int(i[0]), "n_pred": int(i[3]), "n_gold": int(i[1])}
        return scores

    def _instances(self) -> np.ndarray:
        if self.instances is None:
            return np.zeros((len(self.doc_ids), len(PHI_CLASSES), 4), dtype=np.int64)
        return self.instances

    # -- outputs -------------------------------------------------------------------------------

    def summary(self) -> dict:
        """``{measure: {"p", "r", "f", ...}}`` for the measures of :data:`SUMMARY_MEASURES`."""
        scores = {**self._token_scores(), **self._entity_scores()}
        return {name: scores[name] for name in SUMMARY_MEASURES}

    def per_class(self) -> dict:
        """Token P/R/F per label (``NONE`` first); PHI classes also carry their entity scores."""
        c = self.matrix
        e = self.entity.sum(axis=0)
        inst = self._instances().sum(axis=0)
        out = {}
        for code, label in enumerate(LABELS):
            row = _score(c[code, code], c[:, code].sum(), c[code, :].sum())
            if code > 0:
                row["entity_strict"] = _score(e[code - 1, 0], e[code - 1, 2], e[code - 1, 3])
                row["entity_relaxed"] = _score(e[code - 1, 1], e[code - 1, 2], e[code - 1, 3])
                # as the summary's phi_instances: recall over the class's gold spans, precision
                # over its predicted spans (those overlapping any gold span count)
                found, n_gold, hits, n_pred = inst[code - 1]
                pr, rc = float(_ratio(hits, n_pred, n_gold)), float(_ratio(found, n_gold, n_pred))
                row["instances"] = {"p": pr, "r": rc, "f": 2 * pr * rc / (pr + rc) if pr + rc else 0.0,
                                    "tp": int(found), "n_pred": int(n_pred), "n_gold": int(n_gold)}
            out[label] = row
        return out

    def counts(self) -> dict:
        c = self.matrix
        e = self.entity.sum(axis=0)
        return {
            "unit": self.unit,
            "documents": len(self.doc_ids),
            "documents_without_predictions": len(self.missing),
            "tokens": int(c.sum()),
            "gold_tokens": {label: int(c[i, :].sum()) for i, label in enumerate(LABELS)},
            "predicted_tokens": {label: int(c[:, i].sum()) for i, label in enumerate(LABELS)},
            "gold_spans": {label: int(e[i, 3]) for i, label in enumerate(PHI_CLASSES)},
            "predicted_spans": {label: int(e[i, 2]) for i, label in enumerate(PHI_CLASSES)},
        }

    def to_dict(self) -> dict:
        """JSON-serializable: ``summary``, ``per_class``, ``confusion`` (``labels``, ``matrix``
        rows gold, columns predicted) and ``counts``."""
        return {
            "unit": self.unit,
            "summary": self.summary(),
            "per_class": self.per_class(),
            "confusion": {"labels": list(LABELS), "rows": "gold", "columns": "predicted",
                          "matrix": self.matrix.astype(int).tolist()},
            "counts": self.counts(),
        }

    def to_frame(self) -> pd.DataFrame:
        """One row per summary measure, then one per class (``class NONE`` ..): columns
        ``measure, p, r, f, tp, n_pred, n_gold`` (fractions; counts empty for macro rows)."""
        rows = []
        for name, s in self.summary().items():
            rows.append({"measure": name, "p": s["p"], "r": s["r"], "f": s["f"],
                         "tp": s.get("tp"), "n_pred": s.get("n_pred"), "n_gold": s.get("n_gold")})
        for label, s in self.per_class().items():
            rows.append({"measure": f"class {label}", "p": s["p"], "r": s["r"], "f": s["f"],
                         "tp": s["tp"], "n_pred": s["n_pred"], "n_gold": s["n_gold"]})
        frame = pd.DataFrame(rows, columns=["measure", "p", "r", "f", "tp", "n_pred", "n_gold"])
        for column in ("tp", "n_pred", "n_gold"):
            frame[column] = frame[column].astype("Int64")
        return frame

    def format(self) -> str:
        """A fixed-width table: P, R, F in percent with 2 decimals, counts, per-class rows and
        the confusion matrix (rows gold, columns predicted)."""
        counts = self.counts()
        lines = [f"{counts['documents']} documents, {counts['tokens']} tokens (unit: {self.unit}), "
                 f"{sum(counts['gold_spans'].values())} gold spans, "
                 f"{sum(counts['predicted_spans'].values())} predicted spans"]
        if self.missing:
            lines.append(f"{len(self.missing)} gold documents without predictions "
                         "(scored as predicting nothing)")
        header = f"{'measure':<22}{'P':>8}{'R':>8}{'F':>8}{'TP':>9}{'pred':>9}{'gold':>9}"

        def row(name, s):
            text = f"{name:<22}{100 * s['p']:>8.2f}{100 * s['r']:>8.2f}{100 * s['f']:>8.2f}"
            if "tp" in s:
                text += f"{s['tp']:>9}{s['n_pred']:>9}{s['n_gold']:>9}"
            return text

        lines += ["", header, "-" * len(header)]
        lines += [row(name, s) for name, s in self.summary().items()]
        lines += ["", header.replace("measure", "token class"), "-" * len(header)]
        lines += [row(label, s) for label, s in self.per_class().items()]
        width = max(9, max(len(str(v)) for v in self.matrix.ravel()) + 1)
        lines += ["", "confusion (rows gold, columns predicted)",
                  f"{'':<10}" + "".join(f"{label:>{width}}" for label in LABELS)]
        for code, label in enumerate(LABELS):
            lines.append(f"{label:<10}" + "".join(f"{v:>{width}}" for v in self.matrix[code]))
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.format()

    def write_json(self, path) -> None:
        """All scores as JSON in ``path`` (its folder created, as the other commands' outputs)."""
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(json.dumps(self.to_dict(), indent=2) + "\n", encoding="utf-8")

    def write_csv(self, path) -> None:
        """The score table as CSV in ``path`` (its folder created)."""
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        self.to_frame().to_csv(path, index=False)


# --------------------------------------------------------------------------------------------
# Entry point

def evaluate(gold: Sequence[Document], predicted: Mapping[str, Sequence[Span]],
             unit: str = "token") -> Evaluation:
    """Score ``predicted`` (document id -> spans) against the spans of the ``gold`` documents.

    A gold document absent from ``predicted`` is scored as predicting nothing. Raises
    :class:`UserError` for an unknown ``unit``, a predicted document id not in ``gold`` or a
    predicted span ending past its document's text. See the module docstring for the measures.
    """
    if unit not in UNITS:
        raise UserError(f"unknown unit {unit!r}; expected one of {', '.join(UNITS)}")
    if not isinstance(predicted, Mapping) or not all(
            isinstance(span, Span) and span.type in PHI_CLASSES for spans in predicted.values() for span in spans):
        # model.predict gives a list, one per document: dict(zip(ids, model.predict(gold)))
        raise UserError("predicted must map each document id to a list of Span of the PHI classes "
                        "(from a list of model.predict: dict(zip((d.id for d in gold), predictions)))")
    ids = [doc.id for doc in gold]
    known = set(ids)
    if len(known) != len(ids):
        seen: set[str] = set()
        duplicate = next(i for i in ids if i in seen or seen.add(i))
        raise UserError(f"gold document id {duplicate!r} occurs more than once")
    unknown = [doc_id for doc_id in predicted if doc_id not in known]
    if unknown:
        more = f" (and {len(unknown) - 1} more)" if len(unknown) > 1 else ""
        raise UserError(f"predictions for document {unknown[0]!r}{more}, which is not in the gold "
                        "corpus")
    missing = [doc_id for doc_id in ids if doc_id not in predicted]
    doc_confusion = np.zeros((len(gold), _N, _N), dtype=np.int64)
    entity = np.zeros((len(gold), len(PHI_CLASSES), 4), dtype=np.int64)
    instances = np.zeros((len(gold), len(PHI_CLASSES), 4), dtype=np.int64)
    for d, doc in enumerate(gold):
        pred_spans = list(predicted.get(doc.id, ()))
        n = len(doc.text)
        for which, spans in (("gold", doc.spans), ("predicted", pred_spans)):
            for span in spans:
                if span.end > n:
                    raise UserError(f"document {doc.id!r}: {which} span {span.start}-{span.end} "
                                    f"ends past the text ({n} characters)")
        # scored on the text the model reads (itdeid.text.model_text): a zero-width space or a
        # decomposed accent split tokens here too, so twin notes scored apart
        text, starts = model_text(doc.text)
        gold_spans = to_model(doc.spans, starts, doc.text)
        pred_spans = to_model(pred_spans, starts, doc.text)
        gold_chars = _char_labels(len(text), gold_spans)
        pred_chars = _char_labels(len(text), pred_spans)
        if unit == "token":
            edges = np.unique(np.array([x for s in (*gold_spans, *pred_spans)
                                        for x in (s.start, s.end)], dtype=np.int64))
            g, p = _token_unit(text, gold_chars, pred_chars, edges)
        else:
            g, p = _whitespace_unit(text, gold_chars, pred_chars)
        doc_confusion[d] = np.bincount(g.astype(np.int64) * _N + p, minlength=_N * _N).reshape(_N, _N)
        entity[d] = _entity_counts(gold_spans, pred_spans)
        instances[d] = _instance_counts(gold_spans, pred_spans)
    return Evaluation(unit, ids, doc_confusion, entity, missing, instances)
