"""Standardization (Szarvas et al. 2007): a phrase predicted somewhere is PHI everywhere.

Every predicted phrase of ``min_tokens`` or more tokens (a run of one PHI label) is looked for
again in the document (optionally in all documents of the same patient), and each occurrence is
overwritten with the class of the longest phrase that matches there. The phrase's class is the
one it was most often predicted with. One-token phrases are left out, as in the paper: a single
word ('May', 'Hope') predicted once as a name is too weak a reason to tag it everywhere.

Matching is on lower-cased alphanumeric tokens, so 'SMITH, JOHN' and 'Smith John' are one
phrase; punctuation between matched words takes the phrase's class only when it lies inside.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from typing import Sequence

import numpy as np

from itdeid.text.spans import label_runs


def predicted_phrases(words: Sequence[str], codes: Sequence[int], min_tokens: int = 2
                      ) -> dict[tuple[str, ...], Counter]:
    """Predicted phrases of at least ``min_tokens`` alphanumeric words -> Counter of classes."""
    found: dict[tuple[str, ...], Counter] = defaultdict(Counter)
    for first, last, code in label_runs(codes):
        key = tuple(w for w in words[first:last + 1] if any(c.isalnum() for c in w))
        if len(key) >= min_tokens:
            found[key][code] += 1
    return found


def standardize(words: Sequence[str], codes: Sequence[int],
                phrases_found: dict[tuple[str, ...], Counter] | None = None,
                min_tokens: int = 2) -> np.ndarray:
    """Label codes with every occurrence of a predicted phrase set to its class.

    ``phrases_found``: the phrases to spread (default: this document's own); pass phrases pooled
    over a patient's documents to standardize along the timeline.
    """
    codes = np.array(codes, dtype=np.int64, copy=True)
    found = predicted_phrases(words, codes, min_tokens) if phrases_found is None else phrases_found
    if not found:
        return codes
    table = {k: c.most_common(1)[0][0] for k, c in found.items()}
    longest = max(len(k) for k in table)
    index = [i for i, w in enumerate(words) if any(c.isalnum() for c in w)]
    alnum = [words[i] for i in index]
    i = 0
    while i < len(alnum):
        for k in range(min(longest, len(alnum) - i), min_tokens - 1, -1):
            code = table.get(tuple(alnum[i:i + k]))
            if code:
                codes[index[i]:index[i + k - 1] + 1] = code
                i += k
                break
        else:
            i += 1
    return codes
