"""Misspellings of ordinary words, which a model of real notes mistakes for names.

Nursing notes are typed fast: 'NEICE', 'DAUGHER', 'PASIING', 'AWATING', 'quickley'. To the trees
such a token looks like a name: it is rare in English, it is absent from the training notes'
vocabulary (another patient's nurse did not make the same slip), and it often follows a word
that announces a name ('WIFE AND NEICE IN TO VISIT'). At a high-recall operating point these
slips are a large share of the false alarms (an error analysis of the PhysioNet folds).
What still gives them away:

- a common English word lies one edit away (a letter dropped, added, changed or two swapped),
  while the token itself is rare: ``near_word_zipf`` is that neighbour's wordfreq Zipf
  frequency, 0 when the token is common itself, short, not alphabetic, or has no such neighbour;
- the token is itself a word that announces a name (features/context_words.json), spelled right
  or one edit off ('niece', 'neice', 'daugther'): ``announcer_self`` is its kind code. The
  casing group marks the words *after* an announcer; this marks the announcer.

Surnames are often one edit from a word too ('Storey', 'Hartt'), so neither column decides: the
trees weigh them with the name lists and the context. Both depend on the document alone.

Speed: :func:`edits1` defines "one edit", but building its 54n+25 strings for every new
word type cost about a tenth of the tagging time. The lookups go the other way instead: the
common words and the announcers are indexed once by what one edit can leave of them (each
deletion, each position blanked), so a word needs about 3n lookups. For lower-case ASCII
words the answer is the same as through :func:`edits1` (tests/test_trial_features.py checks it
on a corpus); other words take the :func:`edits1` path.
"""
from __future__ import annotations

from functools import lru_cache
from string import ascii_lowercase

import numpy as np

from itdeid.featurize.casing import announcers
from itdeid.featurize.zipf import zipf
from itdeid.featurize.word_table import MAX_WORDS

#: A neighbour must be at least this common (wordfreq Zipf) to count: ordinary words, not names.
COMMON_ZIPF = 3.5
#: A token at least this common is an ordinary word itself and gets no neighbour.
RARE_ZIPF = 3.0
#: Shortest token looked at: short tokens are one edit from too many words.
MIN_LENGTH = 4
#: How many of wordfreq's most frequent English words are candidates.
VOCABULARY_SIZE = 50_000

SPELLING_COLUMNS = ("near_word_zipf", "announcer_self")


def edits1(word: str) -> set[str]:
    """Every string one deletion, transposition, substitution or insertion from ``word``."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    deletes = {a + b[1:] for a, b in splits if b}
    transposes = {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
    replaces = {a + c + b[1:] for a, b in splits if b for c in ascii_lowercase}
    inserts = {a + c + b for a, b in splits for c in ascii_lowercase}
    return (deletes | transposes | replaces | inserts) - {word}


@lru_cache(maxsize=1)
def common_words() -> dict[str, float]:
    """wordfreq's frequent alphabetic English words with Zipf >= :data:`COMMON_ZIPF`."""
    from wordfreq import top_n_list
    out = {}
    for w in top_n_list("en", VOCABULARY_SIZE):
        if w.isalpha() and w.isascii():
            z = zipf(w)
            if z < COMMON_ZIPF:
                break   # the list is in frequency order
            out[w] = z
    return out


class OneEditIndex:
    """Which words of a fixed lower-case ASCII vocabulary lie one edit (:func:`edits1`) from a
    word, found by lookups rather than by generating the edits.

    For lower-case ASCII ``word`` and vocabulary word ``e`` (``e != word``), ``e`` is in
    ``edits1(word)`` exactly when one of these holds: ``e`` is ``word`` with one letter deleted,
    or with two adjacent letters swapped (looked up in the vocabulary); ``word`` is ``e`` with
    one letter deleted (``by_deletion``); or the two differ at one position only (``by_blank``,
    keyed by the word with that position blanked)."""

    BLANK = "\0"

    def __init__(self, vocabulary):
        self.words = frozenset(vocabulary)
        #: a word longer than this by two or more is one edit from no vocabulary word
        self.longest = max(map(len, self.words), default=0)
        self.by_deletion: dict[str, set[str]] = {}
        self.by_blank: dict[str, set[str]] = {}
        for e in self.words:
            for i in range(len(e)):
                self.by_deletion.setdefault(e[:i] + e[i + 1:], set()).add(e)
                self.by_blank.setdefault(e[:i] + self.BLANK + e[i + 1:], set()).add(e)

    def neighbours(self, word: str) -> set[str]:
        """The vocabulary words in ``edits1(word)``; ``word`` must be lower-case ASCII."""
        if len(word) > self.longest + 1:   # also spares a long run of letters n^2 work
            return set()
        words, found = self.words, set()
        for i in range(len(word)):
            deleted = word[:i] + word[i + 1:]
            if deleted in words:
                found.add(deleted)
            found |= self.by_blank.get(word[:i] + self.BLANK + word[i + 1:], set())
            if i + 1 < len(word):
                swapped = word[:i] + word[i + 1] + word[i] + word[i + 2:]
                if swapped in words:
                    found.add(swapped)
        found |= self.by_deletion.get(word, set())
        found.discard(word)
        return found


def _plain(word: str) -> bool:
    """Lower-case ASCII letters only: the words :class:`OneEditIndex` answers for."""
    return word.isascii() and word.isalpha() and word.islower()


@lru_cache(maxsize=1)
def _common_index() -> OneEditIndex:
    return OneEditIndex(common_words())


@lru_cache(maxsize=1)
def _announcer_index() -> OneEditIndex:
    return OneEditIndex(w for w in announcers() if len(w) >= 5 and _plain(w))


@lru_cache(maxsize=MAX_WORDS)
def near_word_zipf(word: str) -> float:
    """Zipf of the most frequent common word one edit from lower-case ``word`` (see module)."""
    if len(word) < MIN_LENGTH or not word.isalpha() or not word.isascii():
        return 0.0
    if zipf(word) >= RARE_ZIPF:
        return 0.0
    common = common_words()
    if len(word) > _common_index().longest + 1:   # one edit from no common word
        return 0.0
    near = common_neighbours(word) if _plain(word) else (e for e in edits1(word) if e in common)
    return max((common[e] for e in near), default=0.0)


def common_neighbours(word: str) -> set[str]:
    """The common words (:func:`common_words`) one edit from lower-case ASCII ``word``."""
    if not _plain(word) or len(word) > _common_index().longest + 1:
        return set()
    return _common_index().neighbours(word)


@lru_cache(maxsize=1)
def _longest_announcer() -> int:
    return max(map(len, announcers()), default=0)


@lru_cache(maxsize=MAX_WORDS)
def announcer_kind(word: str) -> int:
    """Kind code of lower-case ``word`` as an announcing word, spelled right or (five letters
    or more) one edit off; 0 when it is none."""
    table = announcers()
    if word in table:
        return table[word]
    if len(word) < 5 or not word.isalpha() or len(word) > _longest_announcer() + 1:
        return 0
    if _plain(word):
        near = _announcer_index().neighbours(word)
    else:
        near = {e for e in edits1(word) if e in table and len(e) >= 5}
    kinds = {table[e] for e in near}
    return min(kinds) if kinds else 0


def spelling_words(words) -> dict[str, np.ndarray]:
    """The columns of the ``spelling`` feature group for a list of lower-case words."""
    return {"near_word_zipf": np.array([near_word_zipf(w) for w in words], dtype=np.float32),
            "announcer_self": np.array([announcer_kind(w) for w in words], dtype=np.float32)}


def spelling_columns(td) -> dict[str, np.ndarray]:
    """The columns of the ``spelling`` feature group for one tokenized document."""
    return spelling_words(td.words)
