"""itdeid.featurize.word_table: per-word values computed once, the same as computed token by token."""
import math

import numpy as np

from itdeid import featurize

from itdeid.featurize import word_lists
from itdeid.featurize import note_columns
from itdeid.featurize import tokenize_document
from itdeid.featurize.word_table import WordTable
from itdeid.featurize.zipf import zipf

from helpers import tiny_corpus


def test_rows_are_the_values_of_each_word_and_the_table_forgets_when_full():
    calls = []

    def values(word):
        calls.append(word)
        return (len(word), word.count("a"))
    table = WordTable(values, 2, max_words=5)
    assert table.rows(["aa", "b", "aa"]).tolist() == [[2, 2], [1, 0], [2, 2]]
    assert calls == ["aa", "b"]                       # once per distinct word
    assert table.rows(["b"]).tolist() == [[1, 0]] and calls == ["aa", "b"]
    table.rows(["c", "d", "e"])                      # 2 + 3 words: still within 5
    assert len(table) == 5
    table.rows(["f"])                                # 5 + 1 would pass 5: starts again
    assert len(table) == 1 and table.rows([]).shape == (0, 2)
    many = [f"w{i}" for i in range(3000)]            # grows past its first array
    assert WordTable(values, 2).rows(many)[2999].tolist() == [5, 0]


def test_document_columns_equal_the_token_by_token_values():
    """The groups that read their values from word tables give what the token-by-token code
    gave (the reference is that code, written out here)."""
    docs = tiny_corpus(8, seed=2)
    odd = "MRN12345 O'Dowd 6/03/04 XIV Ça 3.5 ... e.g. Smith's (617) 555-1212 ZZZQX"
    docs.append(docs[0].__class__("odd", odd, [], None))
    gaz = word_lists.gazetteer_sets()
    first, last = word_lists.census_names()

    def census(table, w):
        return 0.0 if table.get(w) is None else 1.0 + math.log1p(1000.0 * table[w])
    for td in map(tokenize_document, docs):
        texts = [t.text for t in td.tokens]
        ortho = np.array([note_columns._orthography(t) for t in texts], dtype=np.float32)
        cols = note_columns._orthography_columns(td)
        for j, name in enumerate(featurize.ORTHOGRAPHY_COLUMNS[:-1]):
            assert np.array_equal(cols[name], ortho[:, j + 1]), name
        assert np.array_equal(cols["initial_type"], ortho[:, 0])
        assert np.array_equal(cols["shape"], np.array([note_columns._shape_id(t) for t in texts], np.float32))
        words = td.words
        assert np.array_equal(featurize.static_columns(td, "frequency")["zipf"],
                              np.array([zipf(w) for w in words], np.float32))
        names = featurize.static_columns(td, "firstnames")
        assert np.array_equal(names["first_name"],
                              np.array([math.log1p(gaz["first"].get(w, 0.0)) for w in words], np.float32))
        assert np.array_equal(names["last_name"],
                              np.array([math.log1p(gaz["last"].get(w, 0.0)) for w in words], np.float32))
        cc = featurize.static_columns(td, "census")
        assert np.array_equal(cc["census_first"], np.array([census(first, w) for w in words], np.float32))
        assert np.array_equal(cc["census_last"], np.array([census(last, w) for w in words], np.float32))
        assert np.array_equal(featurize.static_columns(td, "nonphi")["english_word"],
                              np.array([w in gaz["english"] for w in words], np.float32))


def test_the_per_word_caches_share_the_tables_cap():
    """A long run fills every per-word cache to its cap (at 200,000 words they held some 320 MiB,
    experiments/results/many-files-caps.md): one number, word_table.MAX_WORDS, bounds them all."""
    from itdeid.estimators import crf
    from itdeid.featurize import name_shape
    from itdeid.featurize import spelling
    from itdeid.featurize import zipf
    from itdeid.featurize.word_table import MAX_WORDS
    cached = [zipf.zipf, spelling.near_word_zipf, spelling.announcer_kind, name_shape.name_shape,
              note_columns._shape, crf._token_features]
    sizes = {f.__qualname__: f.cache_info().maxsize for f in cached}
    assert set(sizes.values()) == {MAX_WORDS}, sizes
    assert all(table.max_words == MAX_WORDS for table in (note_columns._ORTHOGRAPHY_TABLE,))
