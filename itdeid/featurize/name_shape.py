"""How much a word is spelled like a name rather than like an English word (the ``nameshape``
feature group, on trial).

Most false alarms of the recipe on real notes are rare words: misspellings ('Recievd'), drug
names ('ALLEGRA', 'Cosyntropin'), abbreviations ('CVVHF'), often in all-caps notes where case
says nothing; most missed names are rare too ('Corvetti', 'Zabarella', 'Tarkley'). Neither kind is
in a word list, yet they are spelled differently: surnames and places end in '-etti', '-ley',
'-son', drug names in '-one', '-pril', '-mycin', abbreviations are runs of consonants. A
character-trigram model of each spelling, learned from public lists only, tells them apart:

- names: the 1990 US Census first names and surnames and the US city names of ``gazetteers/``
  (public domain);
- English: wordfreq's 50,000 most frequent English words that are not among those names.

:func:`name_shape` is the mean, over the trigrams of the word padded with boundary marks, of
log P(trigram | names) - log P(trigram | English), add-one smoothed: positive for a word spelled
like a name, negative for one spelled like English. Nothing in it comes from training notes.
"""
from __future__ import annotations

import math
from collections import Counter
from functools import lru_cache

from itdeid.resources import load_table
from itdeid.featurize.word_table import MAX_WORDS

#: Characters a trigram spans; words are padded with two marks before and one after.
N = 3
#: English words the English side learns from (wordfreq's most frequent).
ENGLISH_WORDS = 50_000
#: Shorter words get 0: too few trigrams to say anything.
MIN_LENGTH = 3


def _plain(word: str) -> bool:
    return word.isascii() and word.isalpha()


def _trigrams(word: str) -> list[str]:
    padded = "^" * (N - 1) + word + "$"
    return [padded[i:i + N] for i in range(len(padded) - N + 1)]


@lru_cache(maxsize=1)
def _model() -> tuple[dict, dict, float, float]:
    """Per side, log-probabilities of the trigrams seen, and of an unseen one."""
    from wordfreq import top_n_list
    names: set[str] = set()
    for row in load_table("gazetteers", "census_first_names.tsv") + load_table("gazetteers", "census_last_names.tsv"):
        names.add(row[0].lower())
    for row in load_table("gazetteers", "us_cities.tsv"):
        names.update(w for w in row[0].lower().split())
    names = {w for w in names if _plain(w) and len(w) >= MIN_LENGTH}
    english = [w for w in top_n_list("en", ENGLISH_WORDS) if _plain(w) and len(w) >= MIN_LENGTH and w not in names]
    sides = []
    for words in (sorted(names), english):
        counts = Counter(t for w in words for t in _trigrams(w))
        total, kinds = sum(counts.values()), len(counts) + 1
        sides.append(({t: math.log((c + 1) / (total + kinds)) for t, c in counts.items()},
                      math.log(1 / (total + kinds))))
    (name_lp, name_unseen), (english_lp, english_unseen) = sides
    return name_lp, english_lp, name_unseen, english_unseen


@lru_cache(maxsize=MAX_WORDS)
def name_shape(word: str) -> float:
    """Mean trigram log-odds of lower-case ``word`` being spelled like a name (see the module
    docstring); 0.0 for a word shorter than :data:`MIN_LENGTH` or not plain ASCII letters."""
    if len(word) < MIN_LENGTH or not _plain(word):
        return 0.0
    name_lp, english_lp, name_unseen, english_unseen = _model()
    grams = _trigrams(word.lower())
    return round(sum(name_lp.get(t, name_unseen) - english_lp.get(t, english_unseen) for t in grams) / len(grams), 4)
