"""itdeid adapt: a model's boosted trees continued on a site's corrected notes."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import average_precision_score

from itdeid.document import Document, Span
from itdeid.errors import ParameterError, UserError
from itdeid.estimators.ensemble import InnerEnsemble
from itdeid.estimators.learners import Learner
from itdeid.estimators.model import TokenModel
from itdeid.featurize import tokenize_documents
from itdeid.formats.i2b2_2006 import write_i2b2_2006
from itdeid.synth import generate
from itdeid.pipeline import pass_names, switches
from itdeid.training import adapt as adapting
from itdeid.training.adapt import adapt, adapted_model, continued

from helpers import tiny_corpus

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def base():
    """A small ensemble trained on the tiny corpus (the 'base site')."""
    member = TokenModel(previous="none", n_estimators=15, n_jobs=1, two_step=True)
    return InnerEnsemble(member, folds=3, context_pass=True, target_recall=0.9).fit(tiny_corpus(30))


@pytest.fixture(scope="module")
def site():
    """Another site's notes: synthetic discharge summaries, one patient each."""
    return generate(12, seed=5)


def test_continued_trees_grow_from_the_base_and_leave_it_unchanged():
    rng = np.random.default_rng(0)
    X = rng.random((300, 6)).astype(np.float32)
    y = (X[:, 0] > 0.5).astype(np.int64) * rng.integers(1, 3, 300)
    learner = Learner("xgboost", n_estimators=5, max_depth=3, n_jobs=1, two_step=True).fit(X, y)
    before = learner.predict_proba(X)
    flipped = np.where(X[:, 1] > 0.5, y, 0)          # the new site writes PHI only where X1 is high
    more = continued(learner, X, flipped, rounds=20, learning_rate=0.3)
    assert np.array_equal(learner.predict_proba(X), before)
    assert more.detector_.estimator_.get_booster().num_boosted_rounds() == 25
    after = more.predict_proba(X)
    lost = (flipped == 0) & (y != 0)
    assert (1 - after[lost, 0]).mean() < (1 - before[lost, 0]).mean() - 0.2


def test_adapting_finds_more_of_the_new_sites_phi_and_keeps_none_of_its_words(base, site, tmp_path):
    train, test = site[:8], site[8:]
    adapted, report = adapt(base, train, rounds=30, folds=4)
    patients = len({d.patient for d in train})
    assert report.notes == 8 and report.patients == patients and report.folds == min(4, patients) >= 2
    assert report.phi_tokens > 0
    assert 0 < report.threshold < 1 and adapted.threshold_ == report.threshold
    assert report.target_recall == adapting.RECALL and report.context_stage in (True, False)
    assert report.recall_out_of_fold >= report.target_recall or not report.reached
    assert tuple(adapted.skip_passes) == report.passes_off and adapted.context_pass == report.context_stage
    tokenized = tokenize_documents(test)
    gold = np.concatenate([td.labels for td in tokenized]) != 0

    def phi_prob(model):
        return 1 - np.concatenate(model.predict_proba_tokenized(tokenized))[:, 0]
    # the base model, trained on other notes, ranks this site's PHI poorly; the adapted one well
    assert average_precision_score(gold, phi_prob(adapted)) > average_precision_score(gold, phi_prob(base)) + 0.2
    tagged = phi_prob(adapted) >= adapted.threshold_
    assert (tagged & gold).sum() / gold.sum() > 0.85
    # the base is untouched, and the adapted model saves, loads and tags the same
    assert [len(m.learner_.detector_.estimator_.get_booster().get_dump()) for m in base.members_] == [15] * 3
    adapted.save(tmp_path / "m")
    loaded = InnerEnsemble.load(tmp_path / "m")
    assert np.array_equal(phi_prob(loaded), phi_prob(adapted)) and loaded.threshold_ == adapted.threshold_
    # issue F's rule: no word that is only PHI in the site's notes is in the model files
    phi_words = {td.words[i] for td in tokenize_documents(train) for i in np.flatnonzero(td.labels)}
    text_words = {w for td in tokenize_documents(train) for w, c in zip(td.words, td.labels) if c == 0}
    only_phi = {w for w in phi_words - text_words if len(w) > 3 and w.isalpha()}
    assert only_phi
    files = " ".join(p.read_text(errors="replace").lower() for p in (tmp_path / "m").rglob("*.json"))
    base.save(tmp_path / "b")
    base_files = " ".join(p.read_text(errors="replace").lower() for p in (tmp_path / "b").rglob("*.json"))
    assert not {w for w in only_phi if f'"{w}"' in files and f'"{w}"' not in base_files}


def test_the_threshold_is_the_largest_at_which_the_whole_tagging_reaches_the_recall(base, site):
    docs = tokenize_documents(site[:4])
    rng = np.random.default_rng(3)
    probas = []
    for td in docs:                     # PHI tokens spread over P(PHI), the others low
        p_phi = np.where(td.labels != 0, rng.uniform(0.0005, 0.9, len(td)), rng.uniform(0, 0.01, len(td)))
        proba = np.zeros((len(td), 9))
        proba[:, 0] = 1 - p_phi
        proba[np.arange(len(td)), np.maximum(td.labels, 1)] += p_phi
        probas.append(proba)
    parts = [(base, docs[:2], probas[:2]), (base, docs[2:], probas[2:])]
    grid = np.geomspace(0.5, 0.001, adapting.CANDIDATES)
    for target in (0.5, 0.8, 0.95):
        threshold, (found, tagged, phi) = adapting._threshold_for_tagging_recall(parts, target)
        assert found >= target * phi and (found, tagged, phi) == adapting._tagging_counts(parts, threshold)
        (at,) = np.flatnonzero(np.isclose(grid, threshold))
        if at:                          # the next larger threshold falls short, passes included
            above = adapting._tagging_counts(parts, float(grid[at - 1]))
            assert above[0] < target * above[2]
    # out of reach: the threshold of highest F2
    threshold, counts = adapting._threshold_for_tagging_recall(parts, 1.0)
    if counts[0] < counts[2]:
        assert adapting.f2(counts) == max(adapting.f2(adapting._tagging_counts(parts, float(t))) for t in grid)


def test_a_pass_that_clears_the_sites_phi_is_switched_off(base):
    # a site whose wards are named after drugs and care terms, which two passes clear
    words = ["Meadow", "Garden", "Orchard", "Harbor", "Summit", "Lasix", "Aspirin", "Cardiology",
             "Oncology", "Bridge", "Valley"]
    notes = []
    for i, word in enumerate(words):
        text = f"Seen today. Transferred from {word} on arrival.\n"
        notes.append(Document(f"d{i}", text, [Span(text.index(word), text.index(word) + len(word), "HOSPITAL")], f"p{i}"))
    docs = tokenize_documents(notes)
    probas = []
    for td in docs:                     # the models tag every PHI token and nothing else
        proba = np.zeros((len(td), 9))
        proba[np.arange(len(td)), td.labels] = 1.0
        probas.append(proba)
    parts = [(base, docs[:6], probas[:6]), (base, docs[6:], probas[6:])]
    everything = adapting._tagging_counts(parts, 0.5)
    assert everything[0] < everything[2]                     # the passes clear some of the PHI
    running = frozenset(one.name for _, one, on in switches(base) if on)      # as adapt() asks
    assert {"drug_names", "clinical_terms"} <= running <= set(pass_names())
    threshold, skip, counts = adapting._choose(parts, 0.96, running)
    assert {"drug_names", "clinical_terms"} <= skip and counts[0] == counts[1] == counts[2]
    # a pass the model does not run is never chosen
    assert not adapting._choose(parts, 0.96, frozenset({"eponyms"}))[1]


def test_bad_settings_and_too_few_notes_are_clear_errors(base, site):
    with pytest.raises(ParameterError, match="rounds"):
        adapt(base, site[:4], rounds=0)
    with pytest.raises(ParameterError, match="learning rate"):
        adapt(base, site[:4], learning_rate=0)
    with pytest.raises(UserError, match="at least 2"):
        adapt(base, site[:1])
    plain = [type(d)(d.id, d.text, [], d.patient) for d in site[:3]]
    with pytest.raises(UserError, match="no PHI"):
        adapt(base, plain)
    with pytest.raises(UserError, match="previous='none'"):
        adapted_model(TokenModel(previous="gold", n_estimators=3, n_jobs=1).fit(tiny_corpus(6)),
                      tokenize_documents(site[:2]))


def test_the_command_adapts_the_shipped_model_to_corrections_and_writes_a_card(site, tmp_path):
    write_i2b2_2006(site[:4], tmp_path / "corrections.xml")
    out = tmp_path / "adapted"
    # from tests/: in a checkout's root the source itdeid/ (without its data packages) would be
    # imported instead of the installed one
    done = subprocess.run([sys.executable, "-m", "itdeid", "adapt", str(tmp_path), "--out", str(out),
                           "--rounds", "5", "--folds", "2"], capture_output=True, text=True, cwd=ROOT / "tests")
    assert done.returncode == 0, done.stderr
    assert "adapted default on 4 corrected notes" in done.stdout
    assert (out / "SHA256SUMS").is_file() and (out / "ensemble.json").is_file()
    card = (out / "MODEL_CARD.md").read_text()
    assert f"4 notes of {len({d.patient for d in site[:4]})} patients" in card
    assert "2-part cross-validation" in card
    state = json.loads((out / "ensemble.json").read_text())
    assert state["threshold"] is not None
    tagged = subprocess.run([sys.executable, "-m", "itdeid", "tag", str(out), str(tmp_path / "corrections.xml"),
                             "--out", str(tmp_path / "pred.jsonl")], capture_output=True, text=True, cwd=ROOT / "tests")
    assert tagged.returncode == 0, tagged.stderr


def test_an_adapted_model_learns_the_sites_punctuation_convention(base):
    """The base runs without the punctuation pass; the site's gold leaves the full stop out of
    'J. Cortez' and the comma out of 'Apr 21, 2021': the adapted model learns those pairs from
    the corrected notes and runs the pass (mark and class only: no word)."""
    def note(k):
        text = f"Seen by J. Cortez on Apr {k + 1}, 2021 at clinic.\nPatient A. Osei called.\n"
        spans = []
        for piece, kind in (("J", "DOCTOR"), ("Cortez", "DOCTOR"), (f"Apr {k + 1}", "DATE"), ("2021", "DATE"),
                            ("A", "PATIENT"), ("Osei", "PATIENT")):
            start = text.index(piece, spans[-1].end if spans else 0)
            spans.append(Span(start, start + len(piece), kind))
        return Document(id=f"n{k}", text=text, spans=spans, patient=f"p{k}")
    notes = [note(k) for k in range(6)]
    base_off = adapted_model(base, tokenize_documents(notes[:1]), rounds=1)
    base_off.skip_passes = ("phrase_punctuation",)
    out = adapted_model(base_off, tokenize_documents(notes), rounds=1)
    assert {(".", "DOCTOR"), (".", "PATIENT"), (",", "DATE")} <= set(out.punctuation_left_out_)
    assert "phrase_punctuation" not in out.skip_passes
    assert any(one.name == "phrase_punctuation" and on for _, one, on in switches(out))
    assert not any(one.name == "phrase_punctuation" and on for _, one, on in switches(base_off))
