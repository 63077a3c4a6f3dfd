"""Per-token numeric features, in the feature groups of Szarvas et al. (2007).

A :class:`FeatureExtractor` is fitted on training documents (it learns triggers, the heading
vocabulary, case counts and the words never tagged as PHI there) and then turns any
tokenized documents into a float32 matrix, one row per token, one column per attribute. Each
group can be switched off so the groups' worth can be measured (the paper's Figure 2):

========== ===================================================================================
group      attributes
========== ===================================================================================
basic      initial letter type; trigger hits per class and side (of the trigger variant);
           PHI phrase suffixes ('Hospital', listed in features/suffixes.json); predicted
           classes of the 2 preceding tokens (filled in by the model, see ``previous``)
orthography capitalization pattern, length, digits, inner upper case, inner punctuation,
           letters mixed with digits, roman and arabic numbers, word shape
frequency  wordfreq Zipf frequency; log ratios of capitalized to lower-case and to
           sentence-initial occurrences, counted in the training documents (ordinary, non-PHI
           occurrences only) plus the document itself, so a note's features never depend on which other
           notes are transformed with it
heading    the nearest section heading (id in the training heading vocabulary), inside a
           heading, tokens since the heading
regex      covered by an AGE / DATE / ID / PHONE template of features/regex.json (and which)
location   US city, US state, country, world city (phrases of up to 3 tokens)
sentence   relative sentence position in the document, token position in its sentence,
           first token of a line / of a sentence
context    inside quotes, inside brackets, the whole line in upper case
firstnames first-name and last-name frequency (census-based lists)
nonphi     in a general-English word list; seen in training often and never as PHI
trusted    trusted phrases (issue C's iterative dictionary), given at transform time
========== ===================================================================================

Issue G (recall on real notes) adds five groups, off unless named (:data:`RECALL_GROUPS`), so
each one's worth is measured against the paper's set:

========== ===================================================================================
casing     announcing words in any case and case relative to the line and note
           (:mod:`itdeid.casing`)
census     1990 US Census first-name and surname frequencies (about 5,500 and 89,000 names)
lexicon    the training notes' own vocabulary: ordinary-occurrence counts against English
           frequency, and how often the word before or after was PHI (:mod:`itdeid.lexicon`)
spelling   one edit from a common English word; the token itself an announcing word, even
           misspelled (:mod:`itdeid.spelling`)
measure    clinical measurements written like dates: settings, scores, counts with their unit
           or announcing word (:mod:`itdeid.measures`, features/measures.json)
========== ===================================================================================

and groups on trial (:data:`TRIAL_GROUPS`), measured in experiments/levers.py before they join:

========== ===================================================================================
clock      times of day written like years or numbers: after 'at' or 'till', with am/pm, hh:mm,
           shift ranges (:mod:`itdeid.measures`, features/clock_times.json); measured in
           session 15 and left out
nameshape  how much a word is spelled like a name rather than like English: character
           trigrams of public name lists against wordfreq's words (:mod:`itdeid.name_shape`);
           measured in session 15 and left out
languages  how common the word is in 26 other languages written in Latin letters, for names no
           US list holds (:mod:`itdeid.languages`, wordfreq's lists); measured in session 22
           and left out
========== ===================================================================================

Attributes of the tokens in a window of ``window`` tokens each side are added for a subset of
columns (the cheap, local ones), the way the paper described each token by its neighbours.
"""
from __future__ import annotations

import dataclasses
import math
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterable, Sequence

import numpy as np

from itdeid.casing import CASING_COLUMNS, casing_columns
from itdeid.document import LABELS, PHI_CLASSES, Document, Span
from itdeid.guarded import Template, lowered_ascii
from itdeid.folds import group_key
from itdeid.languages import LANGUAGE_COLUMNS, language_values
from itdeid.lexicon import LEXICON_COLUMNS, MIN_COUNT, Lexicon, fold_lexicons, lexicon_columns, neighbours
from itdeid.lexicon import N_CLASSES as LEXICON_CLASSES
from itdeid.model_text import model_text, to_model, to_note
from itdeid.measures import FLAGGED, clock_templates, measure_templates
from itdeid.name_shape import name_shape
from itdeid.spelling import SPELLING_COLUMNS, spelling_words
from itdeid.resources import load_json
from itdeid.spans import labels_to_spans, token_labels
from itdeid.structure import Structure, analyze
from itdeid.tokens import Token, tokenize
from itdeid.triggers import TriggerLists
from itdeid.token_batch import TokenBatch
from itdeid.word_lists import census_names, gazetteer_sets
from itdeid.word_table import WordTable
from itdeid.zipf import zipf

GROUPS: tuple[str, ...] = (
    "basic", "orthography", "frequency", "heading", "regex", "location", "sentence", "context",
    "firstnames", "nonphi",
)
#: Issue G's groups, not in the paper's set (see the module docstring). spelling and measure
#: joined in session 14, after 10-fold CV (experiments/results/g-levers/rankings-shallow-syn-trial.md).
RECALL_GROUPS: tuple[str, ...] = ("casing", "census", "lexicon", "spelling", "measure")
#: Groups being measured (issue G's ablation), known to the extractor but in no preset yet.
TRIAL_GROUPS: tuple[str, ...] = ("clock", "nameshape", "languages")
#: Inner folds of the lexicon's out-of-fold statistics for training rows.
LEXICON_FOLDS = 5
LABEL_CODE = {label: i for i, label in enumerate(LABELS)}
N_CLASSES = len(PHI_CLASSES)
#: Columns of the trusted-phrase group: class code of the trusted phrase a token lies in, and
#: the token's place in it (1 first, 2 inside, 3 last, 4 a one-token phrase).
TRUSTED_COLUMNS = ("trusted_class", "trusted_position")


# ------------------------------------------------------------------------------------------
# Tokenized documents: what every model of a pipeline shares, computed once.
# ------------------------------------------------------------------------------------------
@dataclass
class TokenizedDocument:
    """A document with its tokens, structure, lower-cased words and (gold) label codes.

    ``cache`` holds the feature columns that depend on the document alone (orthography, word
    frequency, regular expressions, gazetteers, context), computed by the first model that
    needs them and reused by the others: a system of six or nine models over the same notes
    computes them once.
    """

    document: Document
    tokens: list[Token]
    words: list[str]
    structure: Structure
    labels: np.ndarray | None = None
    #: Where each character of ``document.text`` begins in the note it was read from, when the
    #: model reads it with characters left out or composed (:func:`itdeid.model_text.model_text`);
    #: None when offsets are the note's own.
    starts: np.ndarray | None = None
    cache: dict = field(default_factory=dict, repr=False, compare=False)

    def __len__(self):
        return len(self.tokens)


def tokenize_documents(documents, gold: bool = True) -> list[TokenizedDocument]:
    """:func:`tokenize_document` of each of ``documents``, the input of every estimator's
    ``fit`` and ``predict``: an iterable of :class:`~itdeid.document.Document` with str text.
    Anything else is a ``TypeError`` naming its position, not an ``AttributeError`` from deep
    inside (a notebook passing the notes' strings, or a None read from a failed file)."""
    if isinstance(documents, (str, bytes, Document)):
        raise TypeError(f"documents must be an iterable of itdeid.Document, got one "
                        f"{type(documents).__name__}: wrap it in a list (Document(id, text))")
    out = []
    for i, document in enumerate(documents):
        if not isinstance(document, Document):
            raise TypeError(f"documents[{i}]: an itdeid.Document is needed, got "
                            f"{type(document).__name__} (Document(id, text) wraps a note's text)")
        if not isinstance(document.text, str):
            raise TypeError(f"documents[{i}] ({document.id!r}): text must be str, got "
                            f"{type(document.text).__name__}")
        out.append(tokenize_document(document, gold))
    return out


def tokenize_document(document: Document, gold: bool = True) -> TokenizedDocument:
    """Tokenize a document; with ``gold``, split tokens at its span edges and label them.

    Splitting at gold edges only happens at training and evaluation time; at tagging time the
    text's own tokens are used. The text is the one the model reads (:mod:`itdeid.model_text`:
    look-alikes as ASCII, invisible characters left out, accents composed);
    ``TokenizedDocument.document`` is then a copy with that text and its spans, and ``starts``
    maps offsets back to the note where they differ (:func:`note_spans`).
    """
    text, starts = model_text(document.text)
    if text is not document.text:
        document = dataclasses.replace(document, text=text, spans=to_model(document.spans, starts, document.text))
    if gold and document.spans:
        document.check_spans()   # a span past the text or two overlapping would mislabel tokens
        edges = [x for span in document.spans for x in (span.start, span.end)]
        tokens = tokenize(document.text, edges)
    else:
        tokens = tokenize(document.text)
    labels = None
    if gold:
        labels = np.array([LABEL_CODE[x] for x in token_labels(tokens, document.spans)], dtype=np.int8)
    words = [t.text.lower() for t in tokens]
    return TokenizedDocument(document, tokens, words, analyze(document.text, tokens), labels, starts)


def note_spans(td: TokenizedDocument, codes) -> list[Span]:
    """The PHI spans of label ``codes`` of ``td``'s tokens, at offsets into the note it was read
    from (whole tokens, the span rules of :func:`itdeid.spans.labels_to_spans`)."""
    return to_note(labels_to_spans(td.document.text, td.tokens, [LABELS[c] for c in codes]), td.starts)


# ------------------------------------------------------------------------------------------
# Knowledge shipped with the package.
# ------------------------------------------------------------------------------------------
@lru_cache(maxsize=1)
def regex_templates() -> dict[str, list[Template]]:
    """Compiled templates of features/regex.json, per class."""
    data = load_json("features", "regex.json")["templates"]
    return {cls: [Template(t["pattern"], re.IGNORECASE if "i" in t.get("flags", "") else 0)
                  for t in templates]
            for cls, templates in data.items()}


@lru_cache(maxsize=1)
def phrase_suffixes() -> tuple[tuple[str, int], ...]:
    """(word, class code) of the words that end PHI phrases, from features/suffixes.json."""
    data = load_json("features", "suffixes.json")
    return tuple((w, LABEL_CODE[cls]) for cls, words in data.items() if cls in LABEL_CODE
                 for w in words)


def tokenize_words(text: str) -> list[str]:
    return [t.text.lower() for t in tokenize(text)]


_ROMAN = re.compile(r"^(?=[MDCLXVI])M{0,3}(CM|CD|D?C{0,3})(XC|XL|L?X{0,3})(IX|IV|V?I{0,3})$")


@lru_cache(maxsize=200_000)
def _shape(text: str) -> str:
    shape = re.sub(r"[A-Z]", "X", text)
    shape = re.sub(r"[a-z]", "x", shape)
    shape = re.sub(r"\d", "d", shape)
    return re.sub(r"(.)\1{2,}", r"\1\1", shape)


@lru_cache(maxsize=200_000)
def _orthography(text: str) -> tuple:
    """Orthographic attributes of one token text (cached: the vocabulary repeats)."""
    first = text[0]
    if first.isupper():
        initial = 0
    elif first.islower():
        initial = 1
    elif first.isdigit():
        initial = 2
    elif first.isalnum():
        initial = 4
    else:
        initial = 3
    letters = [c for c in text if c.isalpha()]
    n_digits = sum(c.isdigit() for c in text)
    all_upper = bool(letters) and all(c.isupper() for c in letters)
    all_lower = bool(letters) and all(c.islower() for c in letters)
    title = text[0].isupper() and len(letters) > 1 and all(c.islower() for c in letters[1:])
    inner_upper = any(c.isupper() for c in text[1:]) and not all_upper
    inner_punct = any(not c.isalnum() for c in text[1:-1]) if len(text) > 2 else False
    mixed = bool(letters) and n_digits > 0
    roman = bool(_ROMAN.match(text)) and len(text) <= 6
    number = bool(re.fullmatch(r"\d+(?:[.,]\d+)?", text))
    return (initial, float(all_upper), float(all_lower), float(title), float(inner_upper),
            float(len(text)), float(n_digits > 0), float(n_digits == len(text)), float(n_digits),
            float(inner_punct), float(mixed), float(roman), float(number),
            float(text.endswith(".")))


ORTHOGRAPHY_COLUMNS = ("all_upper", "all_lower", "title", "inner_upper", "length", "has_digit",
                       "all_digit", "n_digits", "inner_punct", "letters_and_digits", "roman",
                       "arabic_number", "ends_with_period", "shape")


@lru_cache(maxsize=16)
def _phrase_lengths(phrases: frozenset) -> dict[str, tuple[int, ...]]:
    """First word of the phrases -> their lengths, longest first (so most tokens are ruled out
    by one dictionary lookup)."""
    lengths: dict[str, set] = {}
    for phrase in phrases:
        if phrase:
            lengths.setdefault(phrase[0], set()).add(len(phrase))
    return {w: tuple(sorted(ks, reverse=True)) for w, ks in lengths.items()}


def _phrase_marks(words: Sequence[str], phrases: frozenset, max_len: int = 3) -> np.ndarray:
    """1.0 for every token inside an occurrence of a phrase (a tuple of lower-case words),
    longest phrase first at each position."""
    marks = np.zeros(len(words), dtype=np.float32)
    first = _phrase_lengths(phrases)
    for i, w in enumerate(words):
        for k in first.get(w, ()):
            if k <= max_len and i + k <= len(words) and tuple(words[i:i + k]) in phrases:
                marks[i:i + k] = 1.0
                break
    return marks


def _covered(starts: np.ndarray, ends: np.ndarray, spans: Iterable[tuple[int, int]]) -> np.ndarray:
    """Boolean mask of the tokens (``starts``, ``ends`` offsets) overlapping any (start, end)
    character span."""
    pairs = np.array(list(spans), dtype=np.int64).reshape(-1, 2)
    mask = np.zeros(len(starts), dtype=bool)
    if len(pairs):
        lo = np.searchsorted(ends, pairs[:, 0], side="right")
        hi = np.searchsorted(starts, pairs[:, 1], side="left")
        # mark [lo, hi) of every span at once: +1 at lo, -1 at hi, running sum > 0
        edges = np.zeros(len(starts) + 1, dtype=np.int64)
        np.add.at(edges, lo, 1)
        np.add.at(edges, hi, -1)
        mask = np.cumsum(edges[:-1]) > 0
    return mask


# ------------------------------------------------------------------------------------------
# Case statistics over an unlabeled corpus.
# ------------------------------------------------------------------------------------------
class CaseCounts:
    """How often each word is written capitalized, lower case, or capitalized sentence-initially.

    wordfreq folds case, so these ratios are counted in the documents themselves: the training
    documents' counts (kept for safe words only, see :meth:`FeatureExtractor.fit`) plus those of
    the one document being transformed. Not plus the other documents transformed with it: then
    a note's tags would depend on its batch (which notes share a file, a worker's chunk, a
    resumed run), and a de-identifier must give a note the same tags however it is fed.
    """

    def __init__(self):
        self.capitalized = Counter()
        self.lower = Counter()
        self.initial = Counter()

    def add(self, docs: Iterable[TokenizedDocument], ordinary_only: bool = False) -> "CaseCounts":
        """Count the documents' words; with ``ordinary_only``, only their occurrences outside
        gold PHI (what a model file may keep)."""
        for td in docs:
            first_in_sentence = td.structure.token_in_sentence == 0
            phi = (np.asarray(td.labels) != 0) if ordinary_only else np.zeros(len(td.tokens), bool)
            for token, word, initial, is_phi in zip(td.tokens, td.words, first_in_sentence, phi):
                c = token.text[0]
                if is_phi or not c.isalpha():
                    continue
                if initial:
                    self.initial[word] += 1
                elif c.isupper():
                    self.capitalized[word] += 1
                else:
                    self.lower[word] += 1
        return self

    def restricted(self, words: set) -> "CaseCounts":
        """The counts of ``words`` only."""
        out = CaseCounts()
        for name in ("capitalized", "lower", "initial"):
            getattr(out, name).update({w: n for w, n in getattr(self, name).items() if w in words})
        return out

    def table(self, words: Sequence[str]) -> np.ndarray:
        """The (capitalized, lower-case, sentence-initial) counts of each of ``words``, as an
        (n, 3) integer array."""
        return np.array([(self.capitalized.get(w, 0), self.lower.get(w, 0), self.initial.get(w, 0))
                         for w in words], dtype=np.int64).reshape(len(words), 3)


# ------------------------------------------------------------------------------------------
# Columns that depend on the document alone, cached on it.
# ------------------------------------------------------------------------------------------
def token_offsets(td: TokenizedDocument) -> tuple[np.ndarray, np.ndarray]:
    """Start and end offsets of the document's tokens as arrays (cached)."""
    if "offsets" not in td.cache:
        td.cache["offsets"] = (np.fromiter((t.start for t in td.tokens), np.int64, len(td.tokens)),
                               np.fromiter((t.end for t in td.tokens), np.int64, len(td.tokens)))
    return td.cache["offsets"]


def _shape_id(text: str) -> float:
    shape = _shape(text)
    # a stable numeric code of the shape: its hash would differ between runs, so map shapes to
    # small integers by a content-based checksum
    return float(sum((i + 1) * ord(c) for i, c in enumerate(shape[:12])) % 997)


_ORTHOGRAPHY_TABLE = WordTable(lambda text: _orthography(text) + (_shape_id(text),), 15)
_ZIPF_TABLE = WordTable(lambda word: (zipf(word),), 1)


def _orthography_texts(texts: Sequence[str]) -> dict[str, np.ndarray]:
    ortho = _ORTHOGRAPHY_TABLE.rows(texts)
    cols = {name: ortho[:, j + 1] for j, name in enumerate(ORTHOGRAPHY_COLUMNS[:-1])}
    cols["initial_type"] = ortho[:, 0]
    cols["shape"] = ortho[:, 14]
    return cols


def _orthography_columns(td: TokenizedDocument) -> dict[str, np.ndarray]:
    return _orthography_texts([t.text for t in td.tokens])


def _orthography_batch(batch: TokenBatch) -> dict[str, np.ndarray]:
    """:func:`_orthography_columns` of a whole batch, once per distinct token text (the token
    as written: case matters here), remembered on the batch."""
    key = ("words", "orthography")
    if key not in batch.memo:
        texts, ids = batch.texts()
        batch.memo[key] = {name: values[ids] for name, values in _orthography_texts(texts).items()}
    return batch.memo[key]


def _frequency_words(words: Sequence[str]) -> dict[str, np.ndarray]:
    return {"zipf": _ZIPF_TABLE.rows(words)[:, 0]}


def _heading_columns(td: TokenizedDocument) -> dict[str, np.ndarray]:
    in_heading = np.asarray(td.structure.in_heading, dtype=bool)
    since = np.zeros(len(td.tokens), dtype=np.float32)
    count = 0
    for i, inside in enumerate(in_heading):
        count = 0 if inside else count + 1
        since[i] = min(count, 50)
    return {"in_heading": in_heading.astype(np.float32), "since_heading": since}


def _first_template(td: TokenizedDocument, templates: list[Template], lowered: str | None) -> np.ndarray:
    """Per token, the 1-based index of the first of ``templates`` whose match (its group
    :data:`~itdeid.measures.FLAGGED` where it has one) covers it; 0: none. ``lowered``:
    the note's :func:`~itdeid.guarded.lowered_ascii`."""
    starts, ends = token_offsets(td)
    which = np.zeros(len(td.tokens), dtype=np.float32)
    for k, pattern in enumerate(templates, start=1):
        spans = pattern.spans(td.document.text, lowered, group=FLAGGED)
        if not spans:                   # most templates match nothing in a note
            continue
        mask = _covered(starts, ends, spans)
        which[mask & (which == 0)] = k
    return which


def _regex_columns(td: TokenizedDocument) -> dict[str, np.ndarray]:
    lowered = lowered_ascii(td.document.text)
    cols = {}
    for cls, patterns in regex_templates().items():
        which = _first_template(td, patterns, lowered)
        cols[f"regex_{cls}"], cols[f"regex_{cls}_template"] = (which > 0).astype(np.float32), which
    return cols


def _template_columns(td: TokenizedDocument, templates: list[Template], name: str) -> dict[str, np.ndarray]:
    """Covered by one of ``templates`` (:mod:`itdeid.measures`), and which one first (1-based;
    0: none), as columns ``name`` and ``name_template``."""
    which = _first_template(td, templates, lowered_ascii(td.document.text))
    return {name: (which > 0).astype(np.float32), f"{name}_template": which}


def _measure_columns(td: TokenizedDocument) -> dict[str, np.ndarray]:
    """The measurement templates of features/measures.json."""
    return _template_columns(td, measure_templates(), "measure")


def _clock_columns(td: TokenizedDocument) -> dict[str, np.ndarray]:
    """The clock-time templates of features/clock_times.json."""
    return _template_columns(td, clock_templates(), "clock")


def _location_columns(td: TokenizedDocument) -> dict[str, np.ndarray]:
    gaz = gazetteer_sets()
    state = _phrase_marks(td.words, gaz["states"])
    state[[i for i, t in enumerate(td.tokens) if t.text in gaz["state_abbr"]]] = 1.0
    return {"us_city": _phrase_marks(td.words, gaz["cities"]), "us_state": state,
            "country": _phrase_marks(td.words, gaz["countries"]),
            "world_city": _phrase_marks(td.words, gaz["world"])}


def _sentence_columns(td: TokenizedDocument) -> dict[str, np.ndarray]:
    s = td.structure
    return {"sentence_position": np.asarray(s.sentence_position, dtype=np.float32),
            "token_in_sentence": np.minimum(np.asarray(s.token_in_sentence, dtype=np.float32), 50),
            "line_start": np.asarray(s.line_start, dtype=np.float32),
            "sentence_start": (np.asarray(s.token_in_sentence) == 0).astype(np.float32)}


def _context_columns(td: TokenizedDocument) -> dict[str, np.ndarray]:
    n, text = len(td.tokens), td.document.text
    quotes = np.zeros(n, dtype=np.float32)
    brackets = np.zeros(n, dtype=np.float32)
    line_upper = np.zeros(n, dtype=np.float32)
    in_quote, depth = False, 0
    line_starts = np.asarray(td.structure.line_start)
    for i, t in enumerate(td.tokens):
        if line_starts[i]:
            in_quote, depth = False, 0
        if t.text == '"':
            in_quote = not in_quote
        elif t.text in "([{":
            depth += 1
        elif t.text in ")]}":
            depth = max(0, depth - 1)
        else:
            quotes[i], brackets[i] = float(in_quote), float(depth > 0)
    # whole line in upper case: letters of the line all upper
    bounds = list(np.flatnonzero(line_starts)) + [n]
    for a, b in zip(bounds[:-1], bounds[1:]):
        line = text[td.tokens[a].start:td.tokens[b - 1].end]
        letters = [c for c in line if c.isalpha()]
        line_upper[a:b] = float(len(letters) > 3 and all(c.isupper() for c in letters))
    return {"in_quotes": quotes, "in_brackets": brackets, "line_upper": line_upper}


def _name_list_values(word: str) -> tuple[float, float]:
    gaz = gazetteer_sets()
    return math.log1p(gaz["first"].get(word, 0.0)), math.log1p(gaz["last"].get(word, 0.0))


def _census_values(word: str) -> tuple[float, float]:
    """1 + log(1 + 1000 x percent) for a listed name (so a listed but rare name is still 1), 0
    for a word not in the list; first names, then last names."""
    return tuple(0.0 if pct is None else 1.0 + math.log1p(1000.0 * pct)
                 for pct in (table.get(word) for table in census_names()))


_NAME_LIST_TABLE = WordTable(_name_list_values, 2)
_CENSUS_TABLE = WordTable(_census_values, 2)
_ENGLISH_TABLE = WordTable(lambda word: (word in gazetteer_sets()["english"],), 1)
_NAME_SHAPE_TABLE = WordTable(lambda word: (name_shape(word),), 1)
_LANGUAGE_TABLE = WordTable(language_values, len(LANGUAGE_COLUMNS))


def _firstnames_words(words: Sequence[str]) -> dict[str, np.ndarray]:
    names = _NAME_LIST_TABLE.rows(words)
    return {"first_name": names[:, 0], "last_name": names[:, 1]}


def _census_words(words: Sequence[str]) -> dict[str, np.ndarray]:
    census = _CENSUS_TABLE.rows(words)
    return {"census_first": census[:, 0], "census_last": census[:, 1]}


def _nameshape_words(words: Sequence[str]) -> dict[str, np.ndarray]:
    return {"name_shape": _NAME_SHAPE_TABLE.rows(words)[:, 0]}


def _languages_words(words: Sequence[str]) -> dict[str, np.ndarray]:
    rows = _LANGUAGE_TABLE.rows(words)
    return {name: rows[:, i] for i, name in enumerate(LANGUAGE_COLUMNS)}


def _nonphi_words(words: Sequence[str]) -> dict[str, np.ndarray]:
    return {"english_word": _ENGLISH_TABLE.rows(words)[:, 0]}


#: Group -> the function of its columns for a list of lower-case words, for the groups whose
#: columns depend on each token's word alone. Over a batch of notes they are computed once per
#: distinct word of the batch and indexed by its tokens' word ids (:func:`_word_group_columns`):
#: a note's tokens repeat a small vocabulary, and one table lookup and one array gather per note
#: and group cost more than the values themselves (issue I).
_WORD_GROUPS = {
    "frequency": _frequency_words, "firstnames": _firstnames_words, "nonphi": _nonphi_words,
    "census": _census_words, "spelling": spelling_words, "nameshape": _nameshape_words,
    "languages": _languages_words,
}


def _of_words(group: str):
    return lambda td: _WORD_GROUPS[group](td.words)


#: Group -> the function of its columns that depend on the document alone.
_STATIC_GROUPS = {
    "orthography": _orthography_columns, "heading": _heading_columns, "regex": _regex_columns,
    "location": _location_columns, "sentence": _sentence_columns, "context": _context_columns,
    "casing": casing_columns, "measure": _measure_columns, "clock": _clock_columns,
    **{group: _of_words(group) for group in _WORD_GROUPS},
}


def batch_static_columns(batch: TokenBatch, group: str) -> dict[str, np.ndarray]:
    """The columns of ``group`` that depend on the notes alone (:func:`static_columns`) for a
    whole batch, end to end, remembered on the batch: once per distinct word for the word groups
    and orthography, else each note's cached columns joined."""
    if group in _WORD_GROUPS:
        return _word_group_columns(batch, group)
    if group == "orthography":
        return _orthography_batch(batch)
    return {name: batch.joined_once(("static", group, name), lambda td, name=name: static_columns(td, group)[name])
            for name in _static_names(batch.docs, group)}


def _word_group_columns(batch: TokenBatch, group: str) -> dict[str, np.ndarray]:
    """The columns of a word group (:data:`_WORD_GROUPS`) for a whole batch, the same values as
    :func:`static_columns` gives note by note (remembered on the batch: the members of an
    ensemble share it)."""
    key = ("words", group)
    if key not in batch.memo:
        by_word = _WORD_GROUPS[group](batch.vocabulary)
        batch.memo[key] = {name: np.asarray(values)[batch.ids] for name, values in by_word.items()}
    return batch.memo[key]


def static_columns(td: TokenizedDocument, group: str) -> dict[str, np.ndarray]:
    """The columns of ``group`` that depend on the document alone, computed once a document."""
    key = ("static", group)
    if key not in td.cache:
        td.cache[key] = _STATIC_GROUPS[group](td)
    return td.cache[key]


def check_groups(groups: Sequence[str]) -> None:
    """A ValueError naming any group that is not one of :data:`GROUPS` (or ``trusted``)."""
    unknown = set(groups) - set(GROUPS) - set(RECALL_GROUPS) - set(TRIAL_GROUPS) - {"trusted"}
    if unknown:
        raise ValueError(f"unknown feature groups: {', '.join(sorted(unknown))}")


# ------------------------------------------------------------------------------------------
# The extractor.
# ------------------------------------------------------------------------------------------
class FeatureExtractor:
    """Learns what features need from training documents and builds the feature matrix.

    Parameters
    ----------
    groups : sequence of str, default all of :data:`GROUPS`
        Feature groups to compute; the others are left out of the matrix.
    trigger : {"token", "phrase", "ngram"}, default "token"
        Which trigger variant feeds the ``basic`` group.
    window : int, default 2
        Attributes of this many tokens on each side are added for the windowed columns.
    trigger_min_count, trigger_min_gain, trigger_top_k
        Filters of the trigger lists (see :mod:`itdeid.triggers`).
    nonphi_min_count : int, default 3
        A word seen this often in training and never as PHI counts as a non-PHI word.
    lexicon_min_count : int, default 2
        Ordinary occurrences a word needs to be kept by the ``lexicon`` group (:mod:`itdeid.lexicon`).

    Attributes (after fit)
    ----------------------
    triggers_ : TriggerLists
    suffixes_ : dict[str, int]  word -> class code of phrases it ends (features/suffixes.json)
    headings_ : dict[str, int]  heading name -> id
    nonphi_ : set[str]          words never PHI in training
    case_counts_ : CaseCounts   case counts of the ordinary (non-PHI) occurrences of safe words
    lexicon_ : Lexicon or None  the ``lexicon`` group's word statistics (None when it is off)
    feature_names_ : list[str]
    """

    def __init__(self, groups: Sequence[str] = GROUPS, trigger: str = "token", window: int = 2,
                 trigger_min_count: int = 3, trigger_min_gain: float = 1e-4, trigger_top_k: int = 60,
                 nonphi_min_count: int = 3, lexicon_min_count: int = MIN_COUNT):
        self.groups = tuple(groups)
        self.trigger = trigger
        self.window = window
        self.trigger_min_count = trigger_min_count
        self.trigger_min_gain = trigger_min_gain
        self.trigger_top_k = trigger_top_k
        self.nonphi_min_count = nonphi_min_count
        self.lexicon_min_count = lexicon_min_count

    # -- fit --------------------------------------------------------------------------------
    def fit(self, docs: Sequence[TokenizedDocument]) -> "FeatureExtractor":
        check_groups(self.groups)
        if any(td.labels is None for td in docs):
            raise ValueError("FeatureExtractor.fit needs documents tokenized with gold labels")
        self.triggers_ = TriggerLists(self.trigger, self.trigger_min_count, self.trigger_min_gain,
                                      self.trigger_top_k).fit([(td.words, td.labels) for td in docs])
        # What fit learns is saved in the model file, so it keeps nothing learned from a PHI
        # occurrence (issue F): every word it stores occurred outside PHI in training (or is in a
        # shipped list), and every count describes those ordinary occurrences only. So a word
        # that was only ever PHI (a patient's surname) is in no file of a saved model, and for
        # a word that was both ('Brown', 'brown stool') only its ordinary uses are counted.
        seen, as_phi = Counter(), Counter()
        headings = Counter()
        for td in docs:
            for w, label in zip(td.words, td.labels):
                seen[w] += 1
                if label:
                    as_phi[w] += 1
            headings.update(self._phi_free_headings(td))
        ordinary = {w for w, n in seen.items() if n > as_phi[w]}
        english = gazetteer_sets()["english"]
        # suffixes are declarative (features/suffixes.json), no longer learned from PHI phrase ends
        self.suffixes_ = dict(phrase_suffixes())
        self.nonphi_ = {w for w, n in seen.items() if n >= self.nonphi_min_count and not as_phi[w]}
        safe = self.nonphi_ | (english & ordinary)
        self.headings_ = {name: i for i, name in enumerate(sorted(
            name for name, n in headings.items()
            if n >= 2 and all(w in safe for w in tokenize_words(name) if w.isalpha())))}
        self.case_counts_ = CaseCounts().add(docs, ordinary_only=True).restricted(safe)
        self.lexicon_ = Lexicon.count(docs, self.lexicon_min_count) if "lexicon" in self.groups else None
        self.feature_names_ = self._names()
        return self

    @staticmethod
    def _phi_free_headings(td: TokenizedDocument) -> set[str]:
        """Names of the document's headings none of whose tokens is PHI (a heading counts
        towards the vocabulary only through its ordinary occurrences)."""
        if not td.structure.headings:
            return set()
        starts, _ends = token_offsets(td)
        phi_starts = starts[np.asarray(td.labels) != 0]
        names = set()
        for h in td.structure.headings:
            if not ((phi_starts >= h.start) & (phi_starts < h.end)).any():
                names.add(h.name)
        return names

    # -- transform --------------------------------------------------------------------------
    def transform(self, docs: Sequence[TokenizedDocument], trusted: Sequence[np.ndarray] | None = None,
                  batch: TokenBatch | None = None, rows: np.ndarray | None = None) -> np.ndarray:
        """The feature matrix of all tokens of ``docs``, documents one after another.

        ``trusted``: per document, an (n_tokens, k) array of trusted-phrase attributes (issue C);
        required when the ``trusted`` group is on. ``batch``: a :class:`TokenBatch` of these
        same ``docs`` shared with other extractors (an ensemble's members), so the columns of
        the notes alone are joined once. ``rows``: a boolean mask over all the tokens; only
        their rows are assembled (a screened ensemble's later members, :mod:`itdeid.ensemble`),
        the same rows as ``transform(docs)[rows]``.
        """
        if not hasattr(self, "feature_names_"):
            raise RuntimeError("FeatureExtractor is not fitted yet: call fit() first")
        return self._matrix(docs, trusted, batch=batch, rows=rows)

    def fit_transform(self, docs, trusted=None, copies: Sequence[TokenizedDocument] = ()):
        """Fit on ``docs``, then the training rows: those of ``docs``, then those of ``copies``
        (re-substituted training notes, :mod:`itdeid.resubstitute`, which are not fitted on).

        With the ``lexicon`` group, each document's lexicon columns come from the other
        patients' notes (:func:`itdeid.lexicon.fold_lexicons`), since a note's own counts would
        give its labels away; a copy uses the statistics of its source note's fold.
        """
        self.fit(docs)
        if copies and trusted is not None:
            raise ValueError("copies of training notes have no trusted-phrase attributes")
        rows = list(docs) + list(copies)
        if self.lexicon_ is None:
            return self._matrix(rows, trusted)
        lexicons, fold = fold_lexicons(docs, LEXICON_FOLDS, self.lexicon_min_count)
        fold_of = {group_key(td.document): f for td, f in zip(docs, fold)}
        per_document = [lexicons[fold_of[group_key(td.document)]] for td in rows]
        return self._matrix(rows, trusted, per_document)

    def _matrix(self, docs, trusted, lexicons: Sequence[Lexicon] | None = None,
                batch: TokenBatch | None = None, rows: np.ndarray | None = None) -> np.ndarray:
        """The rows of ``docs`` stacked; ``lexicons``: per document, the lexicon its
        ``lexicon`` columns come from (default: the fitted one). Built for the whole batch at
        once (:mod:`itdeid.token_batch`); a note's rows do not depend on the batch."""
        docs = list(docs)
        if batch is None:
            batch = TokenBatch(docs)
        elif len(batch.docs) != len(docs) or any(a is not b for a, b in zip(batch.docs, docs)):
            raise ValueError("the TokenBatch given to transform holds other documents")
        if rows is not None and (rows.dtype != bool or rows.shape != (len(batch),)):
            raise ValueError("rows must be a boolean mask over the documents' tokens")
        if not len(batch) or (rows is not None and not rows.any()):
            return np.zeros((0, len(self.feature_names_)), dtype=np.float32)
        pick = slice(None) if rows is None else rows
        n_rows = len(batch) if rows is None else int(rows.sum())
        # with rows, the learned columns are needed at those tokens and their window only
        # (a screened ensemble's later members see a fifth of the tokens: issue I)
        need = None if rows is None else batch.near(rows, self.window)
        cols = self._learned_columns(batch, lexicons, need)
        for group in self.groups:
            if group in _STATIC_GROUPS:
                cols.update(batch_static_columns(batch, group))
        # one float32 matrix, each block written into its columns: no stacked copies (issue I)
        base_names, windowed = self._base_names()
        X = np.empty((n_rows, len(self.feature_names_)), dtype=np.float32)
        for j, name in enumerate(base_names):
            X[:, j] = np.asarray(cols[name])[pick]
        at = len(base_names)
        if windowed:
            w = np.column_stack([cols[name] for name in windowed])
            for o in (o for o in range(-self.window, self.window + 1) if o):
                batch.shifted(w, o, rows=rows, out=X[:, at:at + w.shape[1]])
                at += w.shape[1]
        if "basic" in self.groups:
            X[:, at:at + 2] = -1.0   # prev classes, set by the model
            at += 2
        if "trusted" in self.groups:
            if trusted is None:
                raise ValueError("the 'trusted' feature group needs trusted-phrase attributes")
            X[:, at:at + len(TRUSTED_COLUMNS)] = np.vstack(
                [np.asarray(t, dtype=np.float32).reshape(len(td), len(TRUSTED_COLUMNS))
                 for td, t in zip(docs, trusted)])[pick]
            at += len(TRUSTED_COLUMNS)
        if at != X.shape[1]:
            raise RuntimeError(f"feature matrix filled {at} of {X.shape[1]} columns")
        return X

    def _learned_columns(self, batch: TokenBatch, lexicons, need: np.ndarray | None = None) -> dict[str, np.ndarray]:
        """The columns that depend on what this extractor learned, for a whole batch; with
        ``need`` (a boolean mask over its tokens), right at those tokens only (the others hold
        values no row reads)."""
        g, cols = self.groups, {}
        if "basic" in g:
            cols["initial_type"] = batch_static_columns(batch, "orthography")["initial_type"]
            left, right = self.triggers_.batch_hits(batch, need)
            for j, c in enumerate(PHI_CLASSES):
                cols[f"trigger_left_{c}"] = left[:, j]
                cols[f"trigger_right_{c}"] = right[:, j]
            cols.update(_suffix_columns(batch, self.suffixes_))
        if "frequency" in g:
            own = _batch_own_case_counts(batch)
            counts = batch.word_rows(self.case_counts_.table, np.int64, need)
            cap, lower, initial = (counts + own).T
            cols["cap_to_lower"] = _log_ratio(cap, lower)
            cols["cap_to_initial"] = _log_ratio(cap, initial)
        if "heading" in g:
            cols["heading_id"] = batch.joined(self._heading_ids)
        if "nonphi" in g:
            cols["never_phi"] = batch.per_word(lambda w: w in self.nonphi_, need=need)
        if "lexicon" in g:
            cols.update(self._lexicon_columns(batch, lexicons, need))
        return cols

    def _heading_ids(self, td: TokenizedDocument) -> np.ndarray:
        s = td.structure
        ids = np.array([self.headings_.get(h.name, -2) for h in s.headings] + [-1], dtype=np.float32)
        return ids[np.asarray(s.heading, dtype=np.int64)]   # -1 indexes the appended "none"

    def _lexicon_columns(self, batch: TokenBatch, lexicons, need: np.ndarray | None = None) -> dict[str, np.ndarray]:
        """The ``lexicon`` columns, each note's from its own lexicon when ``lexicons`` is given
        (training rows: the other patients' statistics); with ``need``, at those tokens only."""
        zipf = batch_static_columns(batch, "frequency")["zipf"]
        left = batch.global_index(lambda td: _neighbours(td)[0], key=("neighbour", "left"))
        right = batch.global_index(lambda td: _neighbours(td)[1], key=("neighbour", "right"))
        if need is not None and lexicons is None:
            # the tokens needed and their word neighbours, renumbered; computed on those alone
            at = np.flatnonzero(need)
            around = np.concatenate([left[at], right[at]])
            some = np.union1d(at, around[around >= 0])
            lex = self.lexicon_
            words, of_word = np.unique(batch.ids[some], return_inverse=True)
            sub = lexicon_columns(lex.rows([batch.vocabulary[k] for k in words])[of_word],
                                  np.full(len(some), max(lex.tokens, 1), dtype=np.float32), zipf[some],
                                  _renumbered(left[some], some), _renumbered(right[some], some))
            out = {}
            for name, values in sub.items():
                out[name] = np.zeros(len(batch), dtype=np.float32)
                out[name][some] = values
            return out
        used = [self.lexicon_] * len(batch.docs) if lexicons is None else list(lexicons)
        which = {id(lex): lex for lex in used}
        of_token = np.repeat(np.array([id(lex) for lex in used], dtype=np.int64), batch.lengths)
        rows = np.zeros((len(batch), 1 + 2 * LEXICON_CLASSES), dtype=np.float32)
        tokens = np.zeros(len(batch), dtype=np.float32)
        for key, lex in which.items():
            mine = of_token == key
            rows[mine] = lex.rows(batch.vocabulary)[batch.ids[mine]]
            tokens[mine] = max(lex.tokens, 1)
        return lexicon_columns(rows, tokens, zipf, left, right)

    def previous_columns(self) -> list[int]:
        """Indices of the two predicted-previous-class columns (empty when ``basic`` is off)."""
        return [i for i, n in enumerate(self.feature_names_) if n in ("prev1_class", "prev2_class")]

    # -- internals --------------------------------------------------------------------------
    def _base_names(self) -> tuple[list[str], list[str]]:
        """Names of the per-token columns, and the subset that is windowed."""
        names, windowed = [], []
        g = self.groups
        if "basic" in g:
            names += ["initial_type"]
            names += [f"trigger_left_{c}" for c in PHI_CLASSES] + [f"trigger_right_{c}" for c in PHI_CLASSES]
            names += ["suffix_class", "suffix_ahead_class", "suffix_ahead_distance"]
            windowed += ["initial_type", "suffix_class"]
        if "orthography" in g:
            names += list(ORTHOGRAPHY_COLUMNS)
            windowed += ["all_upper", "title", "has_digit", "length", "shape"]
        if "frequency" in g:
            names += ["zipf", "cap_to_lower", "cap_to_initial"]
            windowed += ["zipf", "cap_to_lower"]
        if "heading" in g:
            names += ["heading_id", "in_heading", "since_heading"]
        if "regex" in g:
            names += [f"regex_{c}" for c in ("AGE", "DATE", "ID", "PHONE")]
            names += [f"regex_{c}_template" for c in ("AGE", "DATE", "ID", "PHONE")]
            windowed += [f"regex_{c}" for c in ("DATE", "ID", "PHONE")]
        if "location" in g:
            names += ["us_city", "us_state", "country", "world_city"]
            windowed += ["us_city", "us_state"]
        if "sentence" in g:
            names += ["sentence_position", "token_in_sentence", "line_start", "sentence_start"]
        if "context" in g:
            names += ["in_quotes", "in_brackets", "line_upper"]
        if "firstnames" in g:
            names += ["first_name", "last_name"]
            windowed += ["first_name", "last_name"]
        if "nonphi" in g:
            names += ["english_word", "never_phi"]
            windowed += ["english_word", "never_phi"]
        if "casing" in g:
            names += list(CASING_COLUMNS)
            windowed += ["announced_by", "cap_vs_line"]
        if "census" in g:
            names += ["census_first", "census_last"]
            windowed += ["census_first", "census_last"]
        if "lexicon" in g:
            names += list(LEXICON_COLUMNS)
            windowed += ["notes_vs_english", "left_phi_rate", "right_phi_rate"]
        if "spelling" in g:
            names += list(SPELLING_COLUMNS)
            windowed += ["announcer_self"]
        if "measure" in g:
            names += ["measure", "measure_template"]
            windowed += ["measure"]
        if "clock" in g:
            names += ["clock", "clock_template"]
            windowed += ["clock"]
        if "nameshape" in g:
            names += ["name_shape"]
            windowed += ["name_shape"]
        if "languages" in g:
            names += list(LANGUAGE_COLUMNS)
            windowed += ["lang_zipf"]
        return names, windowed

    def _names(self) -> list[str]:
        names, windowed = self._base_names()
        out = list(names)
        for o in [o for o in range(-self.window, self.window + 1) if o]:
            out += [f"{n}@{o:+d}" for n in windowed]
        if "basic" in self.groups:
            out += ["prev1_class", "prev2_class"]
        if "trusted" in self.groups:
            out += list(TRUSTED_COLUMNS)
        return out


def _static_names(docs, group: str) -> list[str]:
    """The column names of a document-only group (those of its first non-empty note)."""
    return list(static_columns(next(td for td in docs if len(td)), group))


def _batch_own_case_counts(batch: TokenBatch) -> np.ndarray:
    """Per token of a batch, its word's (capitalized, lower-case, sentence-initial) counts in
    its own note, as :class:`CaseCounts` of that note alone counts them (every model adds them
    to its own training counts), as array operations: each token's (note, word) pair numbered,
    and its three counts a bincount over the pairs (a loop over every token of every note was
    2 % of the recipe's tagging time: issue I)."""
    key = ("own case counts",)
    if key not in batch.memo:
        texts, text_ids = batch.texts()
        alpha = np.fromiter((t[0].isalpha() for t in texts), bool, len(texts))[text_ids]
        upper = np.fromiter((t[0].isupper() for t in texts), bool, len(texts))[text_ids]
        initial = np.concatenate([np.asarray(td.structure.token_in_sentence) == 0 for td in batch.docs]
                                 + [np.zeros(0, dtype=bool)])
        note = np.repeat(np.arange(len(batch.docs), dtype=np.int64), batch.lengths)
        _, pair = np.unique(note * max(len(batch.vocabulary), 1) + batch.ids, return_inverse=True)
        pair = pair.reshape(-1)
        out = np.zeros((len(batch), 3), dtype=np.int64)
        size = int(pair.max()) + 1 if len(pair) else 0
        # the columns of CaseCounts.table: capitalized, lower case, sentence-initial
        for j, counted in enumerate((alpha & ~initial & upper, alpha & ~initial & ~upper, alpha & initial)):
            out[:, j] = np.bincount(pair[counted], minlength=size)[pair]
        batch.memo[key] = out
    return batch.memo[key]


def _log_ratio(top: np.ndarray, bottom: np.ndarray) -> np.ndarray:
    """The add-one log ratio ``log((top + 1) / (bottom + 1))`` of integer counts (capitalized
    against lower-case or sentence-initial), by ``math.log`` in double precision once per
    distinct pair, in float32."""
    base = int(bottom.max()) + 1 if len(bottom) else 1
    keys, inverse = np.unique(top * base + bottom, return_inverse=True)
    values = np.array([math.log((k // base + 1) / (k % base + 1)) for k in keys.tolist()], dtype=np.float32)
    return values[np.ravel(inverse)]


def _neighbours(td: TokenizedDocument) -> tuple[np.ndarray, np.ndarray]:
    """:func:`itdeid.lexicon.neighbours` of the note's words (cached on the note)."""
    if "neighbours" not in td.cache:
        td.cache["neighbours"] = neighbours(td.words)
    return td.cache["neighbours"]


def _renumbered(index: np.ndarray, kept: np.ndarray) -> np.ndarray:
    """Batch token indices (-1: none) as positions in the sorted indices ``kept`` (-1 for an
    index not kept)."""
    at = np.searchsorted(kept, index)
    found = (index >= 0) & (at < len(kept)) & (kept[np.minimum(at, len(kept) - 1)] == index)
    return np.where(found, at, -1)


def _suffix_columns(batch: TokenBatch, suffixes: dict) -> dict[str, np.ndarray]:
    """The class of the phrase a word ends ('Hospital'), and of the nearest such word at most
    4 tokens ahead in the same note, with its distance."""
    suffix = batch.per_word(lambda w: suffixes.get(w, 0))
    marked = np.flatnonzero(suffix)
    ahead_class = np.zeros(len(batch), dtype=np.float32)
    ahead_dist = np.zeros(len(batch), dtype=np.float32)
    if len(marked):
        here = np.arange(len(batch))
        k = np.searchsorted(marked, here, side="right")   # the next marked word after each token
        nxt = marked[np.minimum(k, len(marked) - 1)]
        near = (k < len(marked)) & (nxt < batch.end) & (nxt - here <= 4)
        ahead_class[near] = suffix[nxt[near]]
        ahead_dist[near] = (nxt - here)[near]
    return {"suffix_class": suffix, "suffix_ahead_class": ahead_class, "suffix_ahead_distance": ahead_dist}


def set_previous(X: np.ndarray, columns: Sequence[int], labels: np.ndarray, doc_lengths: Sequence[int]) -> None:
    """Fill the previous-class columns of ``X`` in place from per-token label codes.

    Used at training time with gold (or out-of-fold predicted) labels; at tagging time the model
    fills them left to right from its own predictions.
    """
    if not columns:
        return
    p1, p2 = columns
    start = 0
    for n in doc_lengths:
        seg = labels[start:start + n].astype(np.float32)
        prev1 = np.full(n, -1.0, dtype=np.float32)
        prev2 = np.full(n, -1.0, dtype=np.float32)
        prev1[1:] = seg[:-1]
        prev2[2:] = seg[:-2]
        X[start:start + n, p1] = prev1
        X[start:start + n, p2] = prev2
        start += n
