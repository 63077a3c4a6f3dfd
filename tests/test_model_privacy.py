"""A saved model keeps nothing learned from a PHI occurrence (issue F, defect 10).

The rule: every string a model file stores is a word that occurred outside PHI in training (or is
in a shipped public list), and every statistic stored for it describes those ordinary
occurrences. So a model is trained on notes with planted words, saved, and every file of its
folder is scanned: words that were only ever PHI must be in none of them, and a word that was
both PHI and ordinary text must carry the counts of its ordinary occurrences only.
"""
import json
import random
from collections import Counter
from pathlib import Path

import pytest

from itdeid.estimators.deidentifier import Deidentifier
from itdeid.document import Document, Span
from itdeid.featurize import phrase_suffixes, tokenize_document
from itdeid.featurize.word_lists import gazetteer_sets
from itdeid.estimators.model import TokenModel

from helpers import tiny_corpus

#: Only ever PHI in the planted corpus: 'hope' is in the shipped English word list (so the old
#: code kept its case counts and a heading made of it), 'kowalczyk' and 'ostrava' in no list.
ONLY_PHI = ("hope", "kowalczyk", "ostrava")
#: PHI in some places ('Dr. Field'), ordinary text in others ('visual field').
BOTH = "field"


def planted_corpus(n: int = 24, seed: int = 3) -> list[Document]:
    """tiny_corpus notes, each followed by planted lines whose gold offsets are exact."""
    rng = random.Random(seed)
    docs = []
    for base in tiny_corpus(n, seed=seed):
        pieces = [(base.text, None), ("HOPE NOTE :\n", None),
                  ("Daughter ", None), ("Hope Kowalczyk", "PATIENT"), (" visited from ", None),
                  ("Ostrava", "LOCATION"), (" .\nSeen with Dr. ", None), ("Field", "DOCTOR"),
                  (" , the visual field is full .\n", None)]
        if rng.random() < 0.5:
            pieces += [("Hope", "PATIENT"), (" called again ; visual field unchanged .\n", None)]
        text, spans = "", list(base.spans)
        for piece, kind in pieces:
            if kind:
                spans.append(Span(len(text), len(text) + len(piece), kind))
            text += piece
        # 'HOPE NOTE :' opens a heading whose first word is the patient's name
        hope = text.index("HOPE NOTE")
        spans.append(Span(hope, hope + 4, "PATIENT"))
        docs.append(Document(base.id, text, sorted(spans), patient=base.patient))
    return docs


def ordinary_case_counts(docs, word: str) -> Counter:
    """How often ``word`` occurs outside gold PHI, by case kind, as CaseCounts counts them."""
    counts = Counter()
    for td in map(tokenize_document, docs):
        initial = td.structure.token_in_sentence == 0
        for token, w, label, first in zip(td.tokens, td.words, td.labels, initial):
            if w == word and not label:
                counts["initial" if first else "capitalized" if token.text[0].isupper() else "lower"] += 1
    return counts


def folder_text(folder: Path) -> str:
    """Every file of a model folder, lower-cased (binary files decoded byte for byte)."""
    return "\n".join(p.read_bytes().decode("latin-1").lower() for p in sorted(folder.rglob("*"))
                     if p.is_file())


@pytest.fixture(scope="module")
def corpus():
    return planted_corpus()


def test_planted_corpus_is_what_the_test_assumes(corpus):
    assert "hope" in gazetteer_sets()["english"]          # so the old code's 'safe' words held it
    assert not {w for w, _ in phrase_suffixes()} & set(ONLY_PHI + (BOTH,))
    counts = ordinary_case_counts(corpus, BOTH)
    assert counts["lower"] > 0 and counts["capitalized"] == 0
    for word in ONLY_PHI:
        assert ordinary_case_counts(corpus, word) == Counter()


@pytest.mark.parametrize("trigger", ["token", "phrase", "ngram"])
def test_token_model_folder_holds_no_training_phi(tmp_path, corpus, trigger):
    model = TokenModel(trigger=trigger, n_estimators=5, n_jobs=1, previous="gold",
                       trigger_min_count=2).fit(corpus)
    model.save(tmp_path)
    text = folder_text(tmp_path)
    for word in ONLY_PHI:
        assert word not in text, f"{word!r}, only ever PHI in training, is in the model folder"
    saved = json.loads((tmp_path / "model.json").read_text())["extractor"]["case_counts"]
    ordinary = ordinary_case_counts(corpus, BOTH)
    for kind in ("capitalized", "lower", "initial"):
        assert saved[kind].get(BOTH, 0) == ordinary[kind], kind


def test_system_folder_holds_no_training_phi(tmp_path, corpus):
    system = Deidentifier(iterations=1, harvest="gold", min_heading_tokens=3,
                          model_params=dict(n_estimators=5, n_jobs=1, previous="gold",
                                            trigger_min_count=2)).fit(corpus)
    system.save(tmp_path)
    text = folder_text(tmp_path)
    for word in ONLY_PHI:
        assert word not in text, f"{word!r}, only ever PHI in training, is in the model folder"


def test_recall_groups_and_resubstitution_keep_no_training_phi(tmp_path, corpus):
    """Issue G's lexicon stores words with counts; re-substitution trains on stand-ins. Still no
    word that was only PHI, and the lexicon counts only ordinary occurrences of a word."""
    from itdeid.featurize import GROUPS, RECALL_GROUPS
    model = TokenModel(groups=GROUPS + RECALL_GROUPS, n_estimators=5, n_jobs=1, previous="gold",
                       trigger_min_count=2, resubstitutions=1).fit(corpus)
    model.save(tmp_path)
    text = folder_text(tmp_path)
    for word in ONLY_PHI:
        assert word not in text, f"{word!r}, only ever PHI in training, is in the model folder"
    lexicon = json.loads((tmp_path / "model.json").read_text())["extractor"]["lexicon"]["table"]
    assert lexicon[BOTH][0] == sum(ordinary_case_counts(corpus, BOTH).values())


def test_context_pass_keeps_no_training_phi(tmp_path, corpus):
    """The context pass adds a second learner (in the folder's context/ subfolder) and no word
    list: still no word that was only PHI in training."""
    from itdeid.featurize import GROUPS, RECALL_GROUPS
    model = TokenModel(groups=GROUPS + RECALL_GROUPS, n_estimators=5, n_jobs=1, previous="none",
                       trigger_min_count=2, context_pass=True).fit(corpus)
    model.save(tmp_path)
    assert (tmp_path / "context").is_dir()
    text = folder_text(tmp_path)
    for word in ONLY_PHI:
        assert word not in text, f"{word!r}, only ever PHI in training, is in the model folder"


def test_inner_ensemble_folder_holds_no_training_phi(tmp_path, corpus):
    """An ensemble folder is its members' TokenModel folders and a JSON of parameters."""
    from itdeid.estimators.ensemble import InnerEnsemble
    from itdeid.featurize import GROUPS, RECALL_GROUPS
    base = TokenModel(groups=GROUPS + RECALL_GROUPS, n_estimators=5, n_jobs=1, previous="none",
                      trigger_min_count=2, resubstitutions=1)
    InnerEnsemble(base, folds=2).fit(corpus).save(tmp_path)
    text = folder_text(tmp_path)
    for word in ONLY_PHI:
        assert word not in text, f"{word!r}, only ever PHI in training, is in the model folder"


def test_crf_with_stand_ins_keeps_no_training_phi(tmp_path, corpus):
    """The CRF stores an attribute string for every word it trained on: on the notes themselves
    it keeps their names (so saving is refused), on stand-in copies it keeps none of them.
    ('hope' is left out: it is a census first name, so a stand-in may be 'Hope'.)"""
    pytest.importorskip("sklearn_crfsuite")
    from itdeid.estimators.crf import CRFModel
    CRFModel(max_iterations=20).fit(corpus).save(tmp_path / "raw", keeps_training_phi=True)
    raw = folder_text(tmp_path / "raw")
    assert all(word in raw for word in ONLY_PHI[1:])      # the scan sees what a CRF keeps
    CRFModel(max_iterations=20, stand_ins=1).fit(corpus).save(tmp_path / "safe")
    text = folder_text(tmp_path / "safe")
    for word in ONLY_PHI[1:]:
        assert word not in text, f"{word!r}, only ever PHI in training, is in the model folder"
    assert BOTH in text                                   # ordinary words are kept
