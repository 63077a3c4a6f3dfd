"""How common a word is in other languages written in Latin letters (the ``languages`` feature
group, on trial).

The names a model misses on real notes are often not American: Polish, Irish, Italian,
Vietnamese, Filipino surnames and first names that no US list holds, and that English
frequency calls rare, exactly like a misspelling or a drug name. Such a word is often an
ordinary word or a common name in its own language, and wordfreq (already the frequency group's
source) lists the words of many languages, public and small. A ceiling study
(experiments/ceiling.py, results/g-levers/ceiling.md) found that correcting the recipe's
ranking with this evidence leaned towards a gain in both runs of the recipe, so it is a group on
trial here, measured by experiments/levers.py before it joins any preset.

Per word, :func:`language_values` gives the highest Zipf frequency it has among
:data:`LANGUAGES` and in how many of them it occurs. Nothing in it comes from training notes.
The table of all languages' words (hundreds of thousands of them) is built once a process, on first use,
which takes seconds and hundreds of MiB, so the group would need a compact form before it joined
a preset. Measured in cross-validation (experiments/NOTEBOOK.md, "Other languages' words"), it
ranked PHI within a reseed's spread of the recipe and was left out.
"""
from __future__ import annotations

import math
from functools import lru_cache

#: wordfreq's languages written in Latin letters whose lists need no extra tokenizer package
#: (English, the frequency group's, is left out).
LANGUAGES = ("pl", "cs", "sk", "sl", "sh", "hu", "fi", "de", "nl", "da", "sv", "nb", "is", "es", "pt",
             "it", "fr", "ca", "ro", "lt", "lv", "tr", "id", "ms", "fil", "vi")
#: The group's columns.
LANGUAGE_COLUMNS = ("lang_zipf", "lang_count")


@lru_cache(maxsize=1)
def _table() -> dict[str, tuple[float, int]]:
    """Word -> (its highest Zipf frequency among :data:`LANGUAGES`, how many list it)."""
    from wordfreq import get_frequency_dict
    table: dict[str, tuple[float, int]] = {}
    for lang in LANGUAGES:
        for word, freq in get_frequency_dict(lang, "small").items():
            z = round(math.log10(freq) + 9, 2)
            best, count = table.get(word, (0.0, 0))
            table[word] = (max(best, z), count + 1)
    return table


def language_values(word: str) -> tuple[float, int]:
    """(highest Zipf frequency of the lower-case ``word`` in :data:`LANGUAGES`, in how many of
    them it occurs); (0, 0) for a word none of them lists."""
    return _table().get(word, (0.0, 0))
