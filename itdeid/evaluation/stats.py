"""Corpus statistics: documents, patients, tokens, PHI per class, headings.

``corpus_stats(documents)`` counts what the paper's Table 2 counts (tokens per class, tokens from
:func:`itdeid.text.tokens.tokenize` cut at span edges and labelled by :func:`itdeid.text.spans.token_labels`)
plus spans per class and distinct section headings; ``format_stats(stats)`` prints it as a table
with each class's proportion beside the 2006 test set's (the ratio column: 1.0 is the test set).
"""
from __future__ import annotations

import re
from collections import Counter
from typing import Sequence

import numpy as np

from itdeid.document import LABELS, NON_PHI, PHI_CLASSES, Document
from itdeid.text.spans import token_labels
from itdeid.text.model_text import model_text, to_model
from itdeid.text.tokens import tokenize

#: Token counts of the i2b2 2006 test set (Szarvas et al. 2007, Table 2).
PAPER_TEST_TOKENS: dict[str, int] = {
    "NONE": 159_077, "PATIENT": 514, "DOCTOR": 2_309, "LOCATION": 236, "HOSPITAL": 1_598,
    "DATE": 3_683, "ID": 1_200, "PHONE": 85, "AGE": 3,
}
_PAPER_TOTAL = sum(PAPER_TEST_TOKENS.values())
#: Per-100k-token proportions of the test set.
PAPER_PER_100K: dict[str, float] = {k: v / _PAPER_TOTAL * 1e5 for k, v in PAPER_TEST_TOKENS.items()}

try:  # itdeid.text.structure finds headings the way the featurizer sees them
    from itdeid.text.structure import analyze as _analyze
except ImportError:  # pragma: no cover - only before itdeid.text.structure exists
    _analyze = None

# Fallback when itdeid.text.structure is absent: a line-initial upper-case phrase ending in ':'.
_HEADING = re.compile(r"^[ \t]*([A-Z][A-Z /&()-]{1,58}[A-Z)]):", re.MULTILINE)


def _headings(doc: Document, tokens) -> list[tuple[str, str, bool]]:
    """(surface text, normalized name, whether a gold span overlaps it) of each heading of
    ``doc``."""
    def phi(start, end):
        return any(span.start < end and start < span.end for span in doc.spans)
    if _analyze is not None:
        structure = _analyze(doc.text, tokens)
        return [(doc.text[h.start:h.end].rstrip(":").strip(), h.name, phi(h.start, h.end))
                for h in structure.headings]
    return [(m.group(1), " ".join(m.group(1).split()), phi(m.start(1), m.end(1)))
            for m in _HEADING.finditer(doc.text)]


def _patient(doc: Document) -> str:
    """The document's patient, else the document itself (a note with no patient id)."""
    return doc.patient if doc.patient is not None else f"\0{doc.id}"


#: A heading is shown by name only when the notes of this many patients have it.
MIN_HEADING_PATIENTS = 3


def _nameable(patients: dict[str, set], phi: set[str]) -> frozenset[str]:
    """The heading names a report may print: found in the notes of at least
    :data:`MIN_HEADING_PATIENTS` patients (``patients``: name -> patients), and never holding
    gold PHI (``phi``). A heading line can be a patient's name ('KOWALCZYK MARTA:'), which
    printed in a report leaves with it; where notes have no patient ids each note counts as
    one, so the gold is the surer test."""
    return frozenset(name for name, who in patients.items()
                     if len(who) >= MIN_HEADING_PATIENTS and name not in phi)


def nameable_headings(docs) -> frozenset[str]:
    """:func:`_nameable` over tokenized ``docs`` (their structure and gold labels)."""
    patients: dict[str, set] = {}
    phi: set[str] = set()
    for td in docs:
        names = [heading.name for heading in td.structure.headings]
        for name in names:
            patients.setdefault(name, set()).add(_patient(td.document))
        if td.labels is not None:
            inside = np.flatnonzero((td.labels > 0) & np.asarray(td.structure.in_heading, dtype=bool))
            phi.update(names[td.structure.heading[i]] for i in inside if td.structure.heading[i] >= 0)
    return _nameable(patients, phi)


def corpus_stats(documents: Sequence[Document], headings: bool = True) -> dict:
    """Counts over ``documents``: documents, patients, tokens, tokens and spans per class,
    per-100k-token proportions (and their ratio to the 2006 test set), distinct headings."""
    token_counts: Counter = Counter()
    span_counts: Counter = Counter()
    heading_names: Counter = Counter()
    heading_forms: Counter = Counter()
    heading_patients: dict[str, set] = {}
    phi_headings: set[str] = set()
    patients = set()
    for doc in documents:
        text, starts = model_text(doc.text)               # counted as the model reads the note
        if starts is not None or text is not doc.text:
            doc = Document(doc.id, text, to_model(doc.spans, starts, doc.text), doc.patient, doc.source)
        cuts = [edge for span in doc.spans for edge in (span.start, span.end)]
        tokens = tokenize(doc.text, cuts)
        token_counts.update(token_labels(tokens, doc.spans))
        span_counts.update(span.type for span in doc.spans)
        patients.add(_patient(doc))
        if headings:
            for form, name, phi in _headings(doc, tokens):
                heading_forms[form] += 1
                heading_names[name] += 1
                heading_patients.setdefault(name, set()).add(_patient(doc))
                if phi:
                    phi_headings.add(name)
    total = sum(token_counts.values())
    per_100k = {label: (token_counts[label] / total * 1e5 if total else 0.0) for label in LABELS}
    ratio = {label: (per_100k[label] / PAPER_PER_100K[label] if PAPER_PER_100K[label] else 0.0)
             for label in LABELS}
    stats = {
        "documents": len(documents),
        "patients": len(patients),
        "tokens": total,
        "tokens_per_document": total / len(documents) if documents else 0.0,
        "phi_tokens": {label: token_counts[label] for label in PHI_CLASSES},
        "none_tokens": token_counts[NON_PHI],
        "spans": {label: span_counts[label] for label in PHI_CLASSES},
        "per_100k": per_100k,
        "paper_per_100k": dict(PAPER_PER_100K),
        "ratio_to_paper": ratio,
    }
    if headings:
        # a heading line can be a patient's name ('KOWALCZYK MARTA:'), and printed here it left
        # the hospital in a summary
        # plain notes have no gold to say a heading is PHI, and each file is its own patient: a
        # letterhead with a name in four files of one patient was named (a black-box test)
        named = any(doc.spans or doc.patient is not None for doc in documents)
        nameable = _nameable(heading_patients, phi_headings) if named else frozenset()
        stats["headings"] = {
            "distinct_names": len(heading_names),
            "distinct_forms": len(heading_forms),
            "total": sum(heading_names.values()),
            "most_common": [(name, n) for name, n in heading_names.most_common()
                            if name in nameable][:10],
            "named": named,
        }
    return stats


def format_stats(stats: dict) -> str:
    """``stats`` as a readable table."""
    lines = [
        f"documents  {stats['documents']:>9,}",
        f"patients   {stats['patients']:>9,}",
        f"tokens     {stats['tokens']:>9,}  ({stats['tokens_per_document']:.0f} per document)",
        "",
        f"{'class':<10} {'tokens':>9} {'spans':>7} {'per 100k':>9} {'paper':>8} {'ratio':>6}",
    ]
    for label in LABELS:
        tokens = stats["none_tokens"] if label == NON_PHI else stats["phi_tokens"][label]
        spans = "" if label == NON_PHI else f"{stats['spans'][label]:,}"
        lines.append(f"{label:<10} {tokens:>9,} {spans:>7} {stats['per_100k'][label]:>9.0f} "
                     f"{stats['paper_per_100k'][label]:>8.0f} {stats['ratio_to_paper'][label]:>6.2f}")
    if "headings" in stats:
        h = stats["headings"]
        lines += ["", f"headings   {h['total']:,} in all; {h['distinct_names']} distinct names, "
                      f"{h['distinct_forms']} distinct surface forms"]
        if h["most_common"]:
            lines.append(f"  most common (of {MIN_HEADING_PATIENTS} or more patients): "
                         + ", ".join(f"{name} ({n})" for name, n in h["most_common"]))
        elif h["total"] and not h["named"]:
            lines.append("  (names not shown: the notes carry neither PHI annotations nor patient "
                         "ids, and a heading can be a name)")
    lines.append("(paper: the i2b2 2006 test set, Szarvas et al. 2007 Table 2; ratio = per 100k "
                 "/ paper per 100k)")
    return "\n".join(lines)
