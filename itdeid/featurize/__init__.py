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
trusted    trusted phrases (the iterative dictionary), given at transform time
========== ===================================================================================

Five groups for recall on real notes are added, off unless named (:data:`RECALL_GROUPS`), so
each one's worth is measured against the paper's set:

========== ===================================================================================
casing     announcing words in any case and case relative to the line and note
           (:mod:`itdeid.featurize.casing`)
census     1990 US Census first-name and surname frequencies (about 5,500 and 89,000 names)
lexicon    the training notes' own vocabulary: ordinary-occurrence counts against English
           frequency, and how often the word before or after was PHI (:mod:`itdeid.featurize.lexicon`)
spelling   one edit from a common English word; the token itself an announcing word, even
           misspelled (:mod:`itdeid.featurize.spelling`)
measure    clinical measurements written like dates: settings, scores, counts with their unit
           or announcing word (:mod:`itdeid.featurize.measures`, features/measures.json)
========== ===================================================================================

and groups on trial (:data:`TRIAL_GROUPS`), measured in experiments/levers.py before they join:

========== ===================================================================================
clock      times of day written like years or numbers: after 'at' or 'till', with am/pm, hh:mm,
           shift ranges (:mod:`itdeid.featurize.measures`, features/clock_times.json); measured and
           left out
nameshape  how much a word is spelled like a name rather than like English: character
           trigrams of public name lists against wordfreq's words (:mod:`itdeid.featurize.name_shape`);
           measured and left out
languages  how common the word is in 26 other languages written in Latin letters, for names no
           US list holds (:mod:`itdeid.featurize.languages`, wordfreq's lists); measured and left
           out
========== ===================================================================================

Attributes of the tokens in a window of ``window`` tokens each side are added for a subset of
columns (the cheap, local ones), the way the paper described each token by its neighbours.

The package holds one module a kind of column: :mod:`~itdeid.featurize.tokenized` (the
tokenized note every model shares), :mod:`~itdeid.featurize.note_columns` (columns of the note
alone), :mod:`~itdeid.featurize.word_columns` (columns of each word alone),
:mod:`~itdeid.featurize.case_counts`, :mod:`~itdeid.featurize.groups` (which groups there are,
and their columns cached once a note or a batch) and :mod:`~itdeid.featurize.extractor` (what
is learned, and the matrix).
"""
from itdeid.featurize.case_counts import CaseCounts
from itdeid.featurize.extractor import (LEXICON_FOLDS, TRUSTED_COLUMNS, FeatureExtractor,
                                        set_previous)
from itdeid.featurize.groups import (GROUPS, RECALL_GROUPS, TRIAL_GROUPS, batch_static_columns,
                                     check_groups, static_columns)
from itdeid.featurize.note_columns import ORTHOGRAPHY_COLUMNS, phrase_suffixes, regex_templates
from itdeid.featurize.tokenized import (LABEL_CODE, TokenizedDocument, note_spans, token_offsets,
                                        tokenize_document, tokenize_documents, tokenize_words)

__all__ = ["CaseCounts", "FeatureExtractor", "GROUPS", "LABEL_CODE", "LEXICON_FOLDS",
           "ORTHOGRAPHY_COLUMNS", "RECALL_GROUPS", "TRIAL_GROUPS", "TRUSTED_COLUMNS",
           "TokenizedDocument", "batch_static_columns", "check_groups", "note_spans",
           "phrase_suffixes", "regex_templates", "set_previous", "static_columns", "token_offsets",
           "tokenize_document", "tokenize_documents", "tokenize_words"]
