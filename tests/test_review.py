"""itdeid review: the sample's design, the review folder, the server's guards, and the page in a
real browser (headless Chromium driven by Selenium)."""
from __future__ import annotations

import json
import logging
import shutil
import stat
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
import pytest

from itdeid.document import Document, Span
from itdeid.errors import ParameterError, UserError
from itdeid.formats.i2b2_2006 import read_i2b2_2006
from itdeid.review.sample import Pick, Risk, choose_sample, note_risk
from itdeid.review.server import ReviewServer
from itdeid.review.store import CORRECTIONS, DESIGN, PREDICTED, STATE, ReviewStore, checked_spans

ROOT = Path(__file__).resolve().parents[1]

# invented notes; the model's spans miss one name, tag one ordinary word, and mistype a place
NOTES = [
    Document("n1", "Seen by Dr. Quillon Brandt today.\nPt Ivo Marchetti walked to the window.\n", patient="p1"),
    Document("n2", "Call 555-201-3344 if worse. Follow up at Wexmoor Clinic on 3/4.\n", patient="p2"),
    Document("n3", "Family at bedside. Plan: 😊 continue Lasix; Ms. Odile Farrant aware.\n", patient="p3"),
]


def _at(note: int, word: str, cls: str) -> Span:
    start = NOTES[note].text.index(word)
    return Span(start, start + len(word), cls)


PREDICTED_SPANS = [
    [_at(0, "Quillon", "DOCTOR"), _at(0, "Brandt", "DOCTOR"), _at(0, "Marchetti", "PATIENT"),
     _at(0, "window", "LOCATION")],
    [_at(1, "555-201-3344", "PHONE"), _at(1, "Wexmoor", "LOCATION"), _at(1, "3/4", "DATE")],
    [_at(2, "Odile", "PATIENT"), _at(2, "Farrant", "PATIENT")],
]


def _store(folder) -> ReviewStore:
    picks = [Pick(0, "risk", 1.0), Pick(1, "random", 0.5), Pick(2, "random", 0.5)]
    risks = [Risk(2, 1), Risk(0, 0), Risk(1, 0)]
    return ReviewStore.create(folder, NOTES, PREDICTED_SPANS, picks, risks, {"seed": 0, "population": 3})


# -- the sample ---------------------------------------------------------------------------------
def test_near_misses_and_unsure_tags_are_counted_against_the_threshold():
    p = np.array([0.01, 0.03, 0.09, 0.1, 0.3, 0.6, 0.99])
    assert note_risk(p, 0.1) == Risk(near_misses=2, unsure_tags=2)    # 0.03, 0.09; 0.1, 0.3


def test_the_sample_takes_the_riskiest_notes_then_a_seeded_uniform_draw_of_the_rest():
    risks = [Risk(i % 7, 0) for i in range(40)]
    picks = choose_sample(risks, 10, 0.4, seed=3)
    risky = [p for p in picks if p.stratum == "risk"]
    drawn = [p for p in picks if p.stratum == "random"]
    assert len(risky) == 6 and len(drawn) == 4
    assert all(risks[p.index].score == 6 for p in risky[:5]) and all(p.probability == 1.0 for p in risky)
    assert all(p.probability == pytest.approx(4 / 34) for p in drawn)
    assert not {p.index for p in risky} & {p.index for p in drawn}
    assert picks == choose_sample(risks, 10, 0.4, seed=3)                # recorded seed: same sample
    assert [p.index for p in drawn] != [p.index for p in choose_sample(risks, 10, 0.4, seed=4) if p.stratum == "random"]


def test_a_sample_larger_than_the_batch_takes_every_note_once():
    picks = choose_sample([Risk(1, 0)] * 3, 10, 0.5, seed=0)
    assert sorted(p.index for p in picks) == [0, 1, 2]
    with pytest.raises(ParameterError, match="sample size"):
        choose_sample([Risk(1, 0)], 0, 0.5, seed=0)
    with pytest.raises(ParameterError, match="random share"):
        choose_sample([Risk(1, 0)], 1, 1.5, seed=0)


# -- the review folder --------------------------------------------------------------------------
def test_the_folder_is_private_and_its_exports_read_back_as_gold(tmp_path):
    folder = tmp_path / "review"
    store = _store(folder)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    for name in (STATE, DESIGN, CORRECTIONS, PREDICTED):
        assert stat.S_IMODE((folder / name).stat().st_mode) == 0o600, name
    assert "Quillon" not in (folder / DESIGN).read_text()                 # the design holds no text
    doctor, patient = _at(0, "Quillon Brandt", "DOCTOR"), _at(0, "Ivo Marchetti", "PATIENT")
    corrected = [[doctor.start, doctor.end, "DOCTOR"], [patient.start, patient.end, "PATIENT"]]
    store.save_note(0, corrected, True)
    gold = read_i2b2_2006(folder / CORRECTIONS)
    assert [d.id for d in gold] == ["n1"]                                 # reviewed notes only
    assert gold[0].spans == [doctor, patient]
    assert read_i2b2_2006(folder / PREDICTED)[0].spans == PREDICTED_SPANS[0]
    again = ReviewStore.open(folder)
    assert again.note(0)["spans"] == corrected and again.note(0)["reviewed"]
    with pytest.raises(UserError, match="already holds a review"):
        _store(folder)


@pytest.mark.parametrize("spans, message", [
    ([[0, 500, "DATE"]], "outside the note"), ([[3, 2, "DATE"]], "outside the note"),
    ([[0, 4, "NAME"]], "class must be one of"), ([[0, 5, "ID"], [4, 6, "ID"]], "overlap"),
    ([[0, 1.5, "ID"]], "whole-number"), ("x", "must be a list")])
def test_a_bad_span_is_refused_and_changes_nothing(tmp_path, spans, message):
    store = _store(tmp_path / "r")
    before = (tmp_path / "r" / STATE).read_bytes()
    with pytest.raises(ValueError, match=message):
        store.save_note(1, spans, True)
    assert (tmp_path / "r" / STATE).read_bytes() == before


def test_a_damaged_review_file_is_one_line_naming_it(tmp_path):
    _store(tmp_path / "r")
    (tmp_path / "r" / STATE).write_text('{"format": 1, "notes": [{"text": "ab", "spans": [[0, 9, "ID"]]}]}')
    with pytest.raises(UserError, match=r"review\.json: damaged review file"):
        ReviewStore.open(tmp_path / "r")
    with pytest.raises(UserError, match="no review here"):
        ReviewStore.open(tmp_path / "none")


def test_offsets_count_code_points_as_python_does():
    span = _at(2, "Odile", "PATIENT")
    assert len(NOTES[2].text[:span.start].encode("utf-16-le")) // 2 == span.start + 1   # one pair before
    assert checked_spans([[span.start, span.end, "PATIENT"]], NOTES[2].text) == [span]


# -- the server's guards ------------------------------------------------------------------------
@pytest.fixture()
def served(tmp_path):
    server = ReviewServer(_store(tmp_path / "review"))
    server.start()
    yield server
    server.shutdown()
    server.server_close()


def _get(url, headers=None, data=None):
    request = urllib.request.Request(url, data=data, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def test_the_server_binds_to_this_machine_and_answers_only_under_its_secret(served):
    assert served.server_address[0] == "127.0.0.1" and len(served.secret) >= 40
    port = served.server_address[1]
    assert _get(served.url)[0] == 200
    assert _get(f"http://127.0.0.1:{port}/")[0] == 404
    assert _get(f"http://127.0.0.1:{port}/{served.secret[:-1]}x/api/notes")[0] == 404
    status, body = _get(served.url + "api/note/0", headers={"Host": f"evil.example:{port}"})
    assert status == 403 and b"Quillon" not in body


def test_the_page_loads_nothing_from_elsewhere(served):
    status, body = _get(served.url)
    page = body.decode()
    assert status == 200 and "http://" not in page and "https://" not in page and "src=" not in page


def test_a_bad_save_is_a_clear_error_and_the_log_holds_no_note_text(served, caplog):
    caplog.set_level(logging.DEBUG)
    status, body = _get(served.url + "api/note/0", headers={"Content-Type": "application/json"},
                        data=json.dumps({"spans": [[0, 999, "ID"]], "reviewed": True}).encode())
    assert status == 400 and b"outside the note" in body
    assert _get(served.url + "api/note/7")[0] == 404
    status, _ = _get(served.url + "api/note/1", data=json.dumps({"spans": [], "reviewed": True}).encode())
    assert status == 200
    assert "Quillon" not in caplog.text and served.secret not in caplog.text


# -- the command --------------------------------------------------------------------------------
def _itdeid(*args):
    # from tests/: in a checkout's root, python -m itdeid would import the source itdeid/, which
    # lacks the data packages an install adds (itdeid.features, itdeid.gazetteers)
    return subprocess.run([sys.executable, "-m", "itdeid", *args], capture_output=True, text=True, cwd=ROOT / "tests")


def test_the_command_prepares_a_review_of_the_samples_and_resumes_it(tmp_path):
    folder = tmp_path / "review"
    done = _itdeid("review", str(ROOT / "samples" / "notes"), "--corrections", str(folder), "--sample", "2",
                   "--random-share", "0.5", "--no-serve")
    assert done.returncode == 0, done.stderr
    design = json.loads((folder / DESIGN).read_text())
    assert design["population"] == 3 and design["risk_notes"] == 1 and design["random_notes"] == 1
    assert [s["stratum"] for s in design["sampled"]] == ["risk", "random"]
    assert design["sampled"][1]["probability"] == pytest.approx(0.5)
    assert "threshold" in design and design["seed"] == 0
    again = _itdeid("review", "--corrections", str(folder), "--no-serve")
    assert again.returncode == 0, again.stderr
    missing = _itdeid("review", "--corrections", str(tmp_path / "none"), "--no-serve")
    assert missing.returncode == 2 and "give the NOTES" in missing.stderr and "Traceback" not in missing.stderr
    notes = ROOT / "samples" / "notes"
    inside = _itdeid("review", str(notes), "--corrections", str(notes / "review"), "--no-serve")
    assert inside.returncode == 2 and "inside the input folder" in inside.stderr


# -- the page in a real browser -----------------------------------------------------------------
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage", "--window-size=1200,900")


@pytest.fixture()
def browser(tmp_path):
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install '.[test]')")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_path = shutil.which("chromedriver")
    if not chromium or not driver_path:
        pytest.skip("no Chromium here: apt-get install chromium chromium-driver (.ci/run does)")
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path / 'profile'}")
    driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


def _select(driver, start, end):
    """Select the note's characters start..end (code points) as a mouse drag would."""
    driver.execute_script("""
        const [a, b] = [arguments[0], arguments[1]];
        function at(offset) {
          for (const el of document.querySelectorAll('#text > *')) {
            const s = Number(el.dataset.start), n = Array.from(el.textContent).length;
            if (offset <= s + n) {
              const units = Array.from(el.textContent).slice(0, offset - s).join('').length;
              return [el.firstChild, units];
            }
          }
        }
        const range = document.createRange();
        range.setStart(...at(a)); range.setEnd(...at(b));
        const sel = window.getSelection(); sel.removeAllRanges(); sel.addRange(range);""", start, end)


def _wait_saved(driver):
    from selenium.webdriver.support.ui import WebDriverWait
    WebDriverWait(driver, 10).until(lambda d: d.find_element("id", "status").text in ("saved",)
                                    or d.find_element("id", "status").text.startswith("not saved"))
    assert driver.find_element("id", "status").text == "saved"


def _marks(driver):
    return [(m.text, m.get_attribute("data-label")) for m in driver.find_elements("css selector", "#text mark")]


def test_a_reviewer_adds_removes_and_retypes_tags_and_finds_them_after_a_reload(browser, served, tmp_path):
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait
    browser.get(served.url)
    WebDriverWait(browser, 15).until(lambda d: d.find_elements("css selector", "#text mark"))
    assert browser.find_element("id", "position").text == "note 1 of 3"
    body = browser.find_element("tag name", "body")
    # a missed name: select part of 'Ivo' and press 1 (PATIENT); the tag grows to the whole word
    ivo = _at(0, "Ivo", "PATIENT")
    _select(browser, ivo.start, ivo.start + 1)
    body.send_keys("1")
    _wait_saved(browser)
    # a false alarm: click 'window' and press Delete
    [window] = [m for m in browser.find_elements("css selector", "#text mark") if m.text == "window"]
    window.click()
    body.send_keys(Keys.DELETE)
    _wait_saved(browser)
    # a wrong class: click 'Quillon' (DOCTOR) and press 1 (PATIENT)... then back to 2 (DOCTOR) is
    # the same path; the third PHI class key checks the mapping
    [first] = [m for m in browser.find_elements("css selector", "#text mark") if m.text == "Quillon"]
    first.click()
    body.send_keys("3")
    _wait_saved(browser)
    expected = [("Quillon", "LOCATION"), ("Brandt", "DOCTOR"), ("Ivo", "PATIENT"), ("Marchetti", "PATIENT")]
    assert _marks(browser) == expected
    # the note is marked reviewed and the page moves on
    body.send_keys(Keys.ENTER)
    WebDriverWait(browser, 10).until(lambda d: d.find_element("id", "position").text == "note 2 of 3")
    assert browser.find_element("id", "progress").text == "1 of 3 reviewed"
    # after a reload, note 1 still holds all three changes
    browser.get(served.url + "#1")
    browser.refresh()
    WebDriverWait(browser, 15).until(lambda d: d.find_element("id", "position").text == "note 1 of 3")
    assert _marks(browser) == expected
    # and so do the files: the corrections read back as gold, the model's spans as they were
    folder = served.store.folder
    [gold] = read_i2b2_2006(folder / CORRECTIONS)
    assert [(NOTES[0].text[s.start:s.end], s.type) for s in gold.spans] == expected
    assert read_i2b2_2006(folder / PREDICTED)[0].spans == PREDICTED_SPANS[0]


def test_a_tag_on_a_note_with_a_character_beyond_16_bits_keeps_python_offsets(browser, served):
    from selenium.webdriver.support.ui import WebDriverWait
    browser.get(served.url + "#3")
    WebDriverWait(browser, 15).until(lambda d: d.find_element("id", "position").text == "note 3 of 3")
    lasix = _at(2, "Lasix", "ID")
    _select(browser, lasix.start, lasix.end)          # after the emoji
    browser.find_element("css selector", "#legend button.ID").click()
    _wait_saved(browser)
    spans = served.store.note(2)["spans"]
    assert [NOTES[2].text[s:e] for s, e, _ in spans] == ["Lasix", "Odile", "Farrant"]
