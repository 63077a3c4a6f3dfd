"""The feature groups of issue G that were or are on trial: ``spelling`` (misspelled ordinary
words, announcing words themselves), ``measure`` (clinical measurements written like dates) and
``clock`` (times of day written like years)."""
import pytest

from itdeid.featurize.casing import ANNOUNCER_KINDS
from itdeid.document import Document
from itdeid.featurize import FeatureExtractor, GROUPS, tokenize_document
from itdeid.featurize.spelling import announcer_kind, edits1, near_word_zipf, spelling_columns


def test_edits1_holds_each_kind_of_edit_and_not_the_word():
    e = edits1("niece")
    assert {"nece", "neice", "nieces", "piece"} <= e and "niece" not in e


@pytest.mark.parametrize("slip", ["pasiing", "awating", "quickley", "presnt"])
def test_a_rare_slip_of_a_common_word_has_a_common_neighbour(slip):
    assert near_word_zipf(slip) >= 3.5


@pytest.mark.parametrize("word", ["passing", "the", "zdrobnowicz", "1234", "abc"])
def test_common_short_unrelated_or_non_alphabetic_tokens_get_none(word):
    assert near_word_zipf(word) == 0.0


def test_announcing_words_are_marked_themselves_even_misspelled():
    relation = ANNOUNCER_KINDS.index("relation") + 1
    assert announcer_kind("niece") == announcer_kind("neice") == announcer_kind("daugher") == relation
    assert announcer_kind("smith") == 0
    assert announcer_kind("sn") == 0   # short words are matched exactly only


def test_the_group_gives_one_value_per_token_through_the_extractor():
    td = tokenize_document(Document("d", "WIFE AND NEICE IN TO VISIT. PASIING STOOL."), gold=False)
    cols = spelling_columns(td)
    i = td.words.index("neice")
    assert cols["announcer_self"][i] == ANNOUNCER_KINDS.index("relation") + 1
    assert cols["near_word_zipf"][td.words.index("pasiing")] > 0
    assert all(len(v) == len(td.tokens) for v in cols.values())
    train = tokenize_document(Document("t", "Wife Mary in to visit."), gold=True)
    fx = FeatureExtractor(groups=GROUPS + ("spelling",)).fit([train])
    X = fx.transform([td])
    assert X.shape == (len(td.tokens), len(fx.feature_names_))
    assert "near_word_zipf" in fx.feature_names_ and "announcer_self@-1" in fx.feature_names_


# ---- the trial group ``measure`` (itdeid.featurize.measures, features/measures.json) ------------------
from itdeid.featurize import static_columns  # noqa: E402


def _flags(text, group="measure"):
    td = tokenize_document(Document("m", text), gold=False)
    flag = static_columns(td, group)[group]
    return {t.text: bool(f) for t, f in zip(td.tokens, flag)}


@pytest.mark.parametrize("text,token", [
    ("PS 10/5/50% no changes", "10/5/50"), ("c/o chest pain 6/10 after", "6/10"),
    ("gram neg rods in 2/4 bl cx", "2/4"), ("CO/CI/SVR 5/2.5/800 this am", "5/2.5/800"),
    ("WBC 12.4 today", "12.4"), ("then 500-1000 cc out", "500-1000")])
def test_settings_scores_counts_and_readings_are_flagged(text, token):
    assert _flags(text)[token]


@pytest.mark.parametrize("text,token", [("seen in clinic on 6/10 by", "6/10"),
                                        ("admitted 9/3/97 with", "9/3/97"),
                                        ("caps 3/4 of the way", "caps")])
def test_dates_and_words_around_them_are_not(text, token):
    assert not _flags(text)[token]


def test_only_the_number_of_an_announced_template_is_flagged():
    flags = _flags("PEEP 5 and pain 8/10")
    assert flags["8/10"] and not flags["pain"]


# ---- the trial group ``clock`` (itdeid.featurize.measures, features/clock_times.json) ---------------
@pytest.mark.parametrize("text,token", [
    ("extubated at 2015 no stridor", "2015"), ("present till approx 2030 .", "2030"),
    ("arrived to MICU AT 0130 alert", "0130"), ("MICU NPN 1900-0730 : neuro", "1900-0730"),
    ("given at 515 PM", "515"), ("visit 1:20 today", "1:20"), ("shift 7a-7p uneventful", "7")])
def test_times_of_day_are_flagged(text, token):
    assert _flags(text, "clock")[token]


@pytest.mark.parametrize("text,token", [("admitted in 2015 with", "2015"),
                                        ("rate at 100 cc/hr", "100"),
                                        ("seen on 10/18 by", "10/18"),
                                        ("at 2000 lasix given", "at")])
def test_years_rates_dates_and_time_words_are_not(text, token):
    assert not _flags(text, "clock")[token]


def test_the_clock_group_goes_through_the_extractor_with_its_window():
    td = tokenize_document(Document("c", "BP 84/40 at 2000 , better"), gold=False)
    train = tokenize_document(Document("t", "Seen at 1900 by Dr Smith."), gold=True)
    fx = FeatureExtractor(groups=GROUPS + ("clock",)).fit([train])
    X = fx.transform([td])
    assert X.shape == (len(td.tokens), len(fx.feature_names_))
    column = X[:, fx.feature_names_.index("clock")]
    assert list(column) == [1.0 if t.text == "2000" else 0.0 for t in td.tokens]
    assert "clock@+1" in fx.feature_names_


def test_one_edit_index_finds_what_edits1_finds():
    """The lookup path of near_word_zipf and announcer_kind gives the words edits1 would, on
    common words, announcers, their one-edit slips and random letter strings (seeded)."""
    import random
    from itdeid.featurize.casing import announcers
    from itdeid.featurize.spelling import _announcer_index, _common_index, common_words
    rng = random.Random(0)
    common = common_words()
    letters = "abcdefghijklmnopqrstuvwxyz"
    sample = rng.sample(sorted(common), 300) + sorted(announcers())
    words = set(sample)
    for w in sample:
        words.update(rng.sample(sorted(edits1(w)), 5))
    words.update("".join(rng.choice(letters) for _ in range(rng.randint(1, 9))) for _ in range(300))
    table = {w for w in announcers() if len(w) >= 5}
    checked = 0
    for w in sorted(words):
        if not (w.isascii() and w.isalpha() and w.islower()):
            continue
        assert _common_index().neighbours(w) == {e for e in edits1(w) if e in common}, w
        assert _announcer_index().neighbours(w) == {e for e in edits1(w) if e in table}, w
        checked += 1
    assert checked > 1500


# ---- the trial group ``nameshape`` (itdeid.featurize.name_shape) --------------------------------------
def test_names_are_spelled_more_like_names_than_misspellings_and_abbreviations_are():
    from itdeid.featurize.name_shape import name_shape
    for name in ("barbieri", "kimber", "skornik", "kristel"):
        for other in ("recievd", "cvvhf", "cosyntropin", "hospital"):
            assert name_shape(name) > name_shape(other), (name, other)
    assert name_shape("ab") == 0.0 and name_shape("12:30") == 0.0 and name_shape("caf\u00e9") == 0.0


def _trial_column(group: str, column: str, text: str):
    """A note's tokens, the extractor with trial ``group`` added (fitted on one short note) and
    the note's values of ``column``."""
    td = tokenize_document(Document("n", text), gold=False)
    train = tokenize_document(Document("t", "Seen by Dr Smith."), gold=True)
    fx = FeatureExtractor(groups=GROUPS + (group,)).fit([train])
    X = fx.transform([td])
    return td, fx, list(X[:, fx.feature_names_.index(column)])


def test_the_nameshape_group_goes_through_the_extractor_with_its_window():
    td, fx, column = _trial_column("nameshape", "name_shape", "Seen by BARBIERI , CVVHF running")
    assert column[td.words.index("barbieri")] > 0 > column[td.words.index("cvvhf")]
    assert "name_shape@-1" in fx.feature_names_


# ---- the trial group ``languages`` (itdeid.featurize.languages) ---------------------------------------
def test_words_of_other_languages_are_common_there_and_english_only_words_are_not():
    from itdeid.featurize.languages import language_values
    for word in ("nguyen", "kowalski", "barbieri", "maria"):
        zipf, count = language_values(word)
        assert zipf > 2.0 and count >= 1, word
    assert language_values("cvvhf") == (0.0, 0) and language_values("12:30") == (0.0, 0)
    assert language_values("de")[1] > language_values("kowalski")[1]


def test_the_languages_group_goes_through_the_extractor_with_its_window():
    td, fx, column = _trial_column("languages", "lang_zipf", "Seen by NGUYEN , CVVHF running")
    assert column[td.words.index("nguyen")] > 0 == column[td.words.index("cvvhf")]
    assert "lang_zipf@-1" in fx.feature_names_ and "lang_count" in fx.feature_names_


def test_spelling_answers_a_long_run_of_letters_at_once(monkeypatch):
    """A word two letters longer than the longest vocabulary word is one edit from none: a long
    run of letters (an attachment's base64) is answered without the n^2 work of its edits."""
    from itdeid.featurize import spelling

    def no_edits(word):
        raise AssertionError("edits built for a word too long to be one edit from any")
    spelling._common_index(), spelling._announcer_index()      # built before the patches
    monkeypatch.setattr(spelling, "edits1", no_edits)
    monkeypatch.setattr(spelling.OneEditIndex, "BLANK", None)   # any lookup past the guard fails
    for word in ("x" * 300_000, "é" * 300_000, "neice" * 60_000):
        assert spelling.near_word_zipf(word) == 0.0 and spelling.announcer_kind(word) == 0
    monkeypatch.undo()
    longest = spelling._common_index().longest
    word = next(w for w in spelling.common_words() if len(w) == longest) + "q"
    assert spelling.near_word_zipf(word) > 0    # still one edit (an insertion) from it
