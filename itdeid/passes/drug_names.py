"""Drug names: medicine's words, never PHI.

'Ofloxacin', 'Maalox', 'Aprotinin', 'Ondansetron', 'Ancef': a drug name is rare in English,
often absent from the training notes' vocabulary, capitalized or in capitals, and it follows
words that announce names ('per', 'given', 'from'). At a high-recall operating point the trees
tag some of them, and the note then loses a clinical fact twice: the word is redacted, and the
surrogates write a stranger's name into the medication list. No feature tells the trees what a
drug is: the word lists hold names, places and everyday English.

The knowledge is a word list, ``gazetteers/drug_names.txt`` (about 26,000 one-word generic and
brand names, built by gazetteers/build.py from a public drug vocabulary, without any first or
last name of the shipped and census lists, any listed place or any everyday English word).
Like the eponyms of :mod:`itdeid.passes.eponyms` it is applied after the model's decisions and only
where the model tagged something: a tagged token that is a listed drug name loses its tag when
it stands alone, its neighbours untagged, and no title comes before it. A drug name inside a
longer tagged phrase ('Dr. Lasix', 'Ondansetron Rivera') is left as the model decided: a person
whose surname is a drug's is tagged as a person.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from itdeid.passes.eponyms import after_title
from itdeid.resources import load_wordlist


@lru_cache(maxsize=1)
def drug_names() -> frozenset[str]:
    """The lower-case drug names of gazetteers/drug_names.txt."""
    return frozenset(load_wordlist("gazetteers", "drug_names.txt"))


def drug_tokens(text: str, starts: np.ndarray, ends: np.ndarray, codes: np.ndarray) -> list[int]:
    """Indices of the tagged tokens (``codes`` non-zero) to clear: listed drug names standing
    alone (the tokens either side untagged), after no title."""
    return lone_listed_tokens(text, starts, ends, codes, drug_names())


def lone_listed_tokens(text: str, starts: np.ndarray, ends: np.ndarray, codes: np.ndarray,
                       words: frozenset[str]) -> list[int]:
    """Indices of the tagged tokens (``codes`` non-zero) whose lower-case text is one of
    ``words``, standing alone (the tokens either side untagged), after no title (the drug
    names' rule, shared with :mod:`itdeid.passes.clinical_terms`)."""
    found = []
    for k in lone_tagged(codes):
        a, b = int(starts[k]), int(ends[k])
        if text[a:b].lower() in words and not after_title(text, a):
            found.append(k)
    return found


def lone_tagged(codes: np.ndarray) -> list[int]:
    """Indices of the tagged tokens (``codes`` non-zero) whose neighbours are untagged: a word
    the model tagged alone, not part of a longer tagged phrase."""
    codes = np.asarray(codes)
    n = len(codes)
    return [k for k in np.flatnonzero(codes != 0).tolist()
            if not ((k > 0 and codes[k - 1]) or (k + 1 < n and codes[k + 1]))]


def spaced_runs(text: str, starts: np.ndarray, ends: np.ndarray, codes: np.ndarray,
                longest: int) -> list[tuple[int, int]]:
    """(first, one past the last) of each run of two to ``longest`` tagged tokens (``codes``
    non-zero, whatever their classes) with nothing but spaces or tabs between them: a phrase
    the model tagged, which the run rules of :mod:`itdeid.passes.everyday_words` and
    :mod:`itdeid.passes.clinical_terms` judge whole."""
    tagged = np.concatenate([[False], np.asarray(codes) != 0, [False]])
    edges = np.flatnonzero(tagged[1:] != tagged[:-1])
    return [(lo, hi) for lo, hi in zip(edges[::2].tolist(), edges[1::2].tolist())
            if 2 <= hi - lo <= longest
            and not any(text[int(ends[k]):int(starts[k + 1])].strip(" \t") for k in range(lo, hi - 1))]

