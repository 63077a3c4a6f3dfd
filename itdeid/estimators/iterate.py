"""Trusted phrases for the iterative learning of Szarvas et al. (2007): heading entropy, harvest,
acronyms, and the ``trusted`` feature columns.

The paper's observation: under some section headings the PHI is unambiguous ('Attending:' holds
doctors, 'Admission Date:' dates), so what a model tags there is very likely right, and the same
strings recur in the flow text ('Dr. Leary', 'FMH') where the context is weaker. So:

1. :func:`heading_entropy` measures, on training documents only, the Shannon entropy (bits) of
   the class distribution of the PHI tokens under each heading; headings with entropy below a
   threshold (the paper: 0.1) and enough PHI tokens to judge are *unambiguous*.
2. :func:`harvest` collects the phrases a model tagged under unambiguous headings, with their
   acronyms ('Grand Valley Hospital' -> 'GVH') and, for person names, their name parts
   ('SMITH, JOHN' -> 'smith', 'john': the header writes the full name, the flow text 'Mr.
   Smith'), as trusted phrases per class. Optionally (the paper's negative result) phrases right
   after the strongest triggers ('Dr.') are trusted too.
3. :func:`trusted_columns` marks each token matching a trusted phrase (longest match first) with
   the phrase's class and the token's place in it: the ``trusted`` feature group of
   :mod:`itdeid.featurize`.

At tagging time the phrases come from the model's own predictions on the document being tagged
(and, optionally, the other documents of the same patient, Yang & Garibaldi's timeline idea),
never from gold.
"""
from __future__ import annotations

import math
from collections import Counter, defaultdict
from typing import Iterable, Sequence

import numpy as np

from itdeid.document import LABELS
from itdeid.featurize import TRUSTED_COLUMNS, TokenizedDocument
from itdeid.featurize.word_lists import gazetteer_sets
from itdeid.text.spans import label_runs

#: Label codes of the person classes, whose name parts are trusted on their own.
PERSON_CODES = (LABELS.index("PATIENT"), LABELS.index("DOCTOR"))
#: Words skipped when making acronyms ('Hospital of the Good Samaritan' -> 'HGS').
ACRONYM_SKIP = frozenset({"of", "the", "and", "&", "at", "for", "de", "la"})
#: The strongest triggers: words right before a phrase that the paper tried trusting too.
STRONG_TRIGGERS = frozenset({"dr", "mr", "mrs", "ms"})


def heading_entropy(docs: Iterable[TokenizedDocument], labels: Sequence[np.ndarray] | None = None
                    ) -> dict[str, tuple[float, int]]:
    """Per heading name, (entropy in bits of the classes of the PHI tokens under it, their number).

    ``labels`` defaults to the documents' gold labels. Tokens of the heading itself do not count;
    tokens before the first heading belong to no heading.
    """
    counts: dict[str, Counter] = defaultdict(Counter)
    for k, td in enumerate(docs):
        codes = td.labels if labels is None else labels[k]
        names = [h.name for h in td.structure.headings]
        for i in np.flatnonzero(codes):
            h = td.structure.heading[i]
            if h >= 0 and not td.structure.in_heading[i]:
                counts[names[h]][int(codes[i])] += 1
    out = {}
    for name, c in counts.items():
        total = sum(c.values())
        entropy = -sum(v / total * math.log2(v / total) for v in c.values())
        out[name] = (max(entropy, 0.0), total)
    return out


def unambiguous_headings(docs: Iterable[TokenizedDocument], threshold: float = 0.1,
                         min_tokens: int = 5) -> frozenset[str]:
    """Headings whose PHI is (nearly) all of one class: entropy < ``threshold`` over at least
    ``min_tokens`` PHI tokens (a heading seen with two PHI tokens proves nothing)."""
    return frozenset(name for name, (h, n) in heading_entropy(docs).items()
                     if h < threshold and n >= min_tokens)


def acronym(words: Sequence[str]) -> str | None:
    """The initials of a phrase of two or more words ('Grand Valley Hospital' -> 'gvh'), lower
    case like the token words; None for one-word phrases or phrases with fewer than 2 initials."""
    letters = [w[0] for w in words if w[:1].isalpha() and w.lower() not in ACRONYM_SKIP]
    if len(letters) < 2 or len(words) < 2:
        return None
    return "".join(letters).lower()


def harvest(td: TokenizedDocument, codes: Sequence[int], headings: frozenset[str],
            acronyms: bool = True, name_parts: bool = True, trust_triggers: bool = False
            ) -> dict[tuple[str, ...], int]:
    """Trusted phrases (lower-case word tuples -> class code) from one document's labels.

    ``codes`` are the labels to harvest from: a model's predictions at tagging time (gold only
    when harvesting for training with ``harvest="gold"``).
    """
    names = [h.name for h in td.structure.headings]
    english = gazetteer_sets()["english"]
    found: dict[tuple[str, ...], int] = {}
    for first, last, code in label_runs(codes):
        h = td.structure.heading[first]
        under = h >= 0 and names[h] in headings
        after_trigger = trust_triggers and any(
            td.words[j] in STRONG_TRIGGERS for j in range(max(0, first - 2), first))
        if not (under or after_trigger):
            continue
        words = tuple(w for w in td.words[first:last + 1] if any(c.isalnum() for c in w))
        if not words:
            continue
        found.setdefault(words, code)
        if acronyms:
            short = acronym([td.tokens[i].text for i in range(first, last + 1)
                             if any(c.isalnum() for c in td.words[i])])
            if short:
                found.setdefault((short,), code)
        if name_parts and code in PERSON_CODES and len(words) > 1:
            for w in words:
                if len(w) > 1 and w.isalpha() and w not in english:
                    found.setdefault((w,), code)
    return found


def trusted_columns(td: TokenizedDocument, trusted: dict[tuple[str, ...], int],
                    max_len: int = 6) -> np.ndarray:
    """The ``trusted`` feature group of one document: an (n_tokens, 2) array of the class code
    of the trusted phrase a token lies in (0: none) and its place in it (1 first, 2 inside,
    3 last, 4 a one-token phrase), longest match first, left to right.

    Phrases are matched on alphanumeric tokens only, so 'SMITH , JOHN' matches 'smith john'.
    """
    n = len(td.tokens)
    out = np.zeros((n, len(TRUSTED_COLUMNS)), dtype=np.float32)
    if not trusted or not n:
        return out
    longest = min(max_len, max(len(k) for k in trusted))
    index = [i for i, w in enumerate(td.words) if any(c.isalnum() for c in w)]
    words = [td.words[i] for i in index]
    i = 0
    while i < len(words):
        for k in range(min(longest, len(words) - i), 0, -1):
            code = trusted.get(tuple(words[i:i + k]))
            if code:
                first, last = index[i], index[i + k - 1]
                out[first:last + 1, 0] = code
                out[first:last + 1, 1] = 2
                out[first, 1], out[last, 1] = 1, 3
                if k == 1:
                    out[first, 1] = 4
                i += k
                break
        else:
            i += 1
    return out
