"""itdeid report: the estimates of the PHI left, and the page a release committee reads."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from itdeid.review.estimate import (NoteReview, calibration_curve, design_estimate, model_estimate,
                                    review_note)
from itdeid.review.store import ReviewStore

ROOT = Path(__file__).resolve().parents[1]


def _review(stratum, misses):
    return NoteReview(stratum, misses, 0, 0, misses, 5, 8, {}, {})


def test_a_stratum_reviewed_whole_is_counted_exactly():
    e = design_estimate([_review("risk", 2), _review("risk", 1)], {"risk": 2, "random": 0}, notes=2)
    assert (e.total, e.low, e.high) == (3, 3, 3) and e.per_1000 == (1500, 1500, 1500)


def test_a_random_stratum_is_expanded_by_its_sampling_fraction():
    reviews = [_review("risk", 1), _review("risk", 0), _review("random", 1), _review("random", 0)]
    e = design_estimate(reviews, {"risk": 2, "random": 10}, notes=12)
    assert e.total == pytest.approx(1 + 10 / 2 * 1)
    assert 2 <= e.low < e.total < e.high          # never below the misses found
    # no miss in the random notes still leaves a positive upper bound (Poisson), never zero
    quiet = design_estimate([_review("random", 0)] * 10, {"risk": 0, "random": 100}, notes=100)
    assert quiet.total == 0 and quiet.high > 10
    # a stratum no one reviewed cannot be estimated
    assert np.isnan(design_estimate([_review("risk", 0)], {"risk": 1, "random": 5}, notes=6).total)


def _note(spans, predicted, tokens, stratum="random"):
    return {"spans": spans, "predicted": predicted, "tokens": tokens, "stratum": stratum, "reviewed": True}


def test_a_reviewed_note_counts_misses_false_alarms_and_retyped_phi():
    note = _note(spans=[[0, 4, "PATIENT"], [10, 14, "DATE"], [20, 25, "AGE"]],
                 predicted=[[0, 4, "DOCTOR"], [30, 33, "ID"]],
                 tokens=[[0, 4, .9], [10, 14, .05], [20, 22, .01], [22, 25, .02], [30, 33, .6]])
    r = review_note(note)
    assert (r.misses, r.false_alarms, r.retyped, r.missed_tokens) == (2, 1, 1, 3)
    assert r.misses_by_class == {"DATE": 1, "AGE": 1} and r.false_alarms_by_class == {"ID": 1}


def test_the_model_estimate_follows_the_calibrated_rate_and_is_never_sure_of_none():
    rng = np.random.default_rng(0)
    notes = []
    for _ in range(30):                 # untagged tokens; PHI twice as often as P(PHI) says
        p = rng.uniform(0, 0.1, 200)
        phi = rng.random(200) < 2 * p
        offsets = np.arange(200) * 2
        notes.append(_note([[int(o), int(o) + 1, "DATE"] for o in offsets[phi]], [],
                           [[int(o), int(o) + 1, float(q)] for o, q in zip(offsets, p)]))
    reviews = [review_note(n) for n in notes]
    untagged = {"counts": [50000, 50000], "sums": [500.0, 4000.0]}    # mean P 0.01 and 0.08
    e = model_estimate(notes, untagged, reviews, population=500)
    assert e.total == pytest.approx(50000 * 0.02 + 50000 * 0.16, rel=0.35)
    assert e.low <= e.total <= e.high
    p, fitted, y = calibration_curve(notes)
    assert len(p) == len(fitted) == len(y) == 6000 and abs(fitted.mean() - y.mean()) < 0.02
    none = [_note([], [], [[i, i + 1, 0.01] for i in range(0, 400, 2)]) for _ in range(5)]
    nothing = model_estimate(none, untagged, [review_note(n) for n in none], population=500)
    assert nothing.total == 0 and nothing.high > 0
    # the misses review found are a floor of what is left
    assert model_estimate(notes, untagged, reviews, population=500).low >= sum(r.misses for r in reviews)


def _itdeid(*args):
    # from tests/: in a checkout's root, python -m itdeid would import the source itdeid/, which
    # lacks the data packages an install adds (itdeid.features, itdeid.gazetteers)
    return subprocess.run([sys.executable, "-m", "itdeid", *args], capture_output=True, text=True, cwd=ROOT / "tests")


def test_the_report_of_a_batch_and_its_review_holds_counts_and_plots_and_no_note_text(tmp_path):
    pytest.importorskip("matplotlib", reason="itdeid report needs matplotlib (pip install '.[test]')")
    out, review, page = tmp_path / "deid", tmp_path / "review", tmp_path / "report.html"
    assert _itdeid("deid", str(ROOT / "samples" / "notes"), "--out", str(out)).returncode == 0
    assert _itdeid("review", str(ROOT / "samples" / "notes"), "--corrections", str(review), "--sample", "3",
                   "--no-serve").returncode == 0
    store = ReviewStore.open(review)
    first = store.note(0)
    store.save_note(0, first["spans"][1:], True)             # a false alarm removed
    store.save_note(1, store.note(1)["spans"], True)
    done = _itdeid("report", "--deid-out", str(out), "--review", str(review), "--out", str(page))
    assert done.returncode == 0, done.stderr
    text = page.read_text()
    for heading in ("What ran", "What was found", "What review found", "PHI estimated to be left"):
        assert f"<h2>{heading}</h2>" in text
    assert text.count("data:image/png;base64,") == 2
    assert "checked: 17 files match SHA256SUMS" in text and "2 of the 3 sampled notes are reviewed" in text
    assert "http://" not in text and "https://" not in text
    assert "judged another model" not in text                # the batch's model is the reviewed one
    notes = " ".join(p.read_text() for p in (ROOT / "samples" / "notes").glob("*.txt"))
    words = {w for w in notes.split() if w.istitle() and len(w) > 6 and w.isalpha()}
    assert words and not [w for w in words if w in text]      # no word of the notes
    assert not [p.name for p in (ROOT / "samples" / "notes").glob("*.txt") if p.stem in text]


def test_a_folder_that_is_no_deid_output_is_one_clear_line(tmp_path):
    done = _itdeid("report", "--deid-out", str(tmp_path), "--out", str(tmp_path / "r.html"))
    assert done.returncode == 2 and "no .itdeid-manifest.jsonl here" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_report_says_a_folder_is_not_complete_and_why_without_naming_the_input(tmp_path, capsys):
    pytest.importorskip("matplotlib", reason="itdeid report needs matplotlib (pip install '.[test]')")
    from itdeid.cli import main
    notes, out, page = tmp_path / "notes", tmp_path / "deid", tmp_path / "report.html"
    notes.mkdir()
    (notes / "ok.txt").write_text("Seen by Dr. Quenby Alvarro on 3/4/2091.\n")
    (notes / "Ovrebo_Tindra_visit.txt").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    deid = ["deid", str(notes), "--out", str(out), "--workers", "1"]
    report = ["report", "--deid-out", str(out), "--out", str(page)]
    assert main(deid) == 1
    assert main(report) == 0
    text = page.read_text()
    assert "This folder is not complete" in text and "1 failed" in text
    assert "binary file (a PNG image), not text" in text          # the reason, counted
    assert "Ovrebo" not in text and "Tindra" not in text            # never the input's name
    (notes / "Ovrebo_Tindra_visit.txt").unlink()                     # gone; the rerun finishes
    assert main(deid) == 0 and main(report) == 0
    assert "not complete" not in page.read_text() and "2 runs recorded" in page.read_text()
    (out / ".itdeid-runs.jsonl").unlink()                            # a folder kept no record
    assert main(report) == 0 and "No run record" in page.read_text()
