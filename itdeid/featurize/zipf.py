"""English word frequency on the Zipf scale (wordfreq's), fast for plain words.

Several feature groups ask how common a word is in English: the frequency group for every
token, the spelling group for a word and its one-edit neighbours. wordfreq answers through its
own tokenizer and text normalization, about fifty microseconds a call, and a batch run meets
tens of thousands of new words (every number and misspelling), so in a one-core run looking
words up was a tenth of the time. A plain lower-case ASCII word is one token of wordfreq's
tokenizer, unchanged by its normalization, so its frequency is its entry in wordfreq's table;
:func:`zipf` reads that entry and rounds it as wordfreq does (tests/test_featurize.py checks the
two agree), and sends every other word through wordfreq.
"""
from __future__ import annotations

import math
from functools import lru_cache

from itdeid.featurize.word_table import MAX_WORDS


@lru_cache(maxsize=MAX_WORDS)
def zipf(word: str) -> float:
    """``wordfreq.zipf_frequency(word, "en")``."""
    if word.isascii() and word.isalpha() and word.islower():
        return plain_zipf(word)
    from wordfreq import zipf_frequency
    return zipf_frequency(word, "en")


@lru_cache(maxsize=1)
def _english_frequencies() -> dict[str, float]:
    from wordfreq import get_frequency_dict
    return get_frequency_dict("en", "best")


def plain_zipf(word: str) -> float:
    """``wordfreq.zipf_frequency(word, "en")`` for a plain lower-case ASCII word, computed as
    wordfreq computes it for a one-token word: the table's frequency (at least wordfreq's
    minimum, Zipf 0) rounded to three significant digits, then its Zipf value to hundredths."""
    freq = max(_english_frequencies().get(word, 0.0), 1e-9)
    freq = round(freq, math.floor(-math.log(freq, 10)) + 3)
    return round(math.log(freq, 10) + 9, 2)
