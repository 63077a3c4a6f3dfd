"""itdeid.synth.nursing: ICU nursing progress notes (issue H): exact spans, determinism, the
note's casing, measurements shaped like dates that are not PHI, relatives as PATIENT, staff as
DOCTOR, misspellings that never touch PHI, the generate() share and the CLI flag."""
import random
import re

import pytest

from itdeid.cli import main
from itdeid.formats import read_corpus
from itdeid.synth import generate
from itdeid.synth.nursing import NursingNote, cased, misspell
from itdeid.synth.render import assemble
from itdeid.synth.sources import lexicon
from itdeid.synth.world import World


@pytest.fixture(scope="module")
def notes():
    return generate(200, seed=21, nursing=1.0)


def _notes(n: int, seed: int):
    """``n`` NursingNotes of one world, as ``generate`` draws them (not built)."""
    rng = random.Random(seed)
    world = World(rng, n)
    return [NursingNote(world, patient, index, rng) for patient, index in world.patients(n)]


def _inside(doc, start: int, end: int) -> bool:
    return any(s.start < end and start < s.end for s in doc.spans)


def test_spans_exact_and_disjoint(notes):
    assert sum(len(d.spans) for d in notes) > 150
    for doc in notes:
        doc.check_spans()
        for span in doc.spans:
            piece = doc.text[span.start:span.end]
            assert piece and piece == piece.strip(), (doc.id, piece)
        assert "[ report_end ]" not in doc.text


def test_deterministic_and_default_unchanged():
    a = generate(30, seed=5, nursing=0.5)
    b = generate(30, seed=5, nursing=0.5)
    c = generate(30, seed=6, nursing=0.5)
    assert [(d.id, d.text, d.spans) for d in a] == [(d.id, d.text, d.spans) for d in b]
    assert [d.text for d in a] != [d.text for d in c]
    # the share 0 spends no draw: the corpus is the one generate() always wrote
    assert [d.text for d in generate(12, seed=3, nursing=0.0)] == [d.text for d in generate(12, seed=3)]
    with pytest.raises(ValueError):
        generate(3, nursing=1.5)


def test_share_of_nursing_notes():
    docs = generate(200, seed=8, nursing=0.3)
    nursing = sum("[ report_end ]" not in d.text for d in docs) / len(docs)
    assert 0.2 <= nursing <= 0.4, nursing


def test_casing_follows_the_note_phi_included():
    built = [(note, assemble(note.build())) for note in _notes(200, 9)]
    shares = {c: sum(n.casing == c for n, _ in built) / len(built) for c in ("upper", "lower", "mixed")}
    assert 0.38 <= shares["upper"] <= 0.62 and 0.15 <= shares["lower"] <= 0.35, shares
    for note, (text, spans) in built:
        if note.casing == "upper":
            assert text == text.upper()
        elif note.casing == "lower":
            assert text == text.lower()
    assert any(text != text.upper() and text != text.lower()
               for note, (text, _) in built if note.casing == "mixed")
    assert cased([("Dr ", None), ("Smith", "DOCTOR")], "upper") == [("DR ", None), ("SMITH", "DOCTOR")]


def test_measurements_shaped_like_dates_are_not_phi(notes):
    shapes = {
        "ventilator": r"\b(?:PS|PSV|CPAP\+PS) \d+/\d+(?:/\d+%)?|\bA/C \d+x\d+/\d+/\d+%",
        "pain": r"\bpain \d+/10\b",
        "culture": r"\b(?:cx|bc) \d/\d\b",
        "abg": r"\babg 7\.\d\d/\d+/\d+",
        "range": r"\b(?:sbp|hr) \d+-\d+s?\b",
    }
    for name, shape in shapes.items():
        found = [(doc, m) for doc in notes for m in re.finditer(shape, doc.text, re.IGNORECASE)]
        assert len(found) >= 5, name
        for doc, m in found:
            assert not _inside(doc, m.start(), m.end()), (name, m.group())
    assert sum(len(re.findall(r"\b\d+/\d+/\d+%", d.text)) for d in notes) >= 20   # 'PS 10/5/50%'


def test_relatives_are_patient_and_staff_are_doctor(notes):
    """Relatives' names are PATIENT (i2b2 2006: family members are PATIENT; PhysioNet's
    RelativeProxyName), staff names after a title or role DOCTOR; the word before is outside."""
    relations = "|".join(sorted(map(re.escape, lexicon().nursing["relations"]), key=len, reverse=True))
    relative = re.compile(rf"(?i)\b(?:{relations}) $")
    titled = re.compile(r"(?i)\b(?:dr\.?|np|pa|rn|resident|fellow) $")
    by_relation = by_title = 0
    for doc in notes:
        for span in doc.spans:
            before = doc.text[max(0, span.start - 20):span.start]
            if relative.search(before):
                by_relation += 1
                assert span.type == "PATIENT", (doc.id, doc.text[span.start:span.end])
            if titled.search(before):
                by_title += 1
                assert span.type == "DOCTOR", (doc.id, doc.text[span.start:span.end])
    assert by_relation >= 20 and by_title >= 30, (by_relation, by_title)



def test_patient_named_after_pt_or_a_title():
    """Asked for (``named``), some notes name the patient by last name after 'pt', 'patient' or a
    title ('Pt Murphy afebrile', 'MRS MURPHY REFUSED AM MEDS'), the span the name alone,
    PATIENT, in the note's casing; the subject word stays outside. Not asked for, no draw is
    spent: the corpus is the one generate() wrote before."""
    # the subject opening a sentence ('... in to see pt. J. Doe RN' is a signature)
    subject = re.compile(r"(?i)(?:^|[.;,:-] ?|\n)(?:pt\.?|patient|mrs?\.?|ms\.?) $")
    named = set()
    for doc in generate(200, seed=21, nursing=1.0, named=0.5):
        for span in doc.spans:
            if subject.search(doc.text[max(0, span.start - 10):span.start]):
                assert span.type == "PATIENT", (doc.id, doc.text[span.start:span.end])
                named.add(doc.text[max(0, span.start - 10):span.start].split()[-1].lower())
    assert {"pt", "patient"} <= named and named & {"mr", "mr.", "mrs", "mrs.", "ms", "ms."}, named
    assert [d.text for d in generate(20, seed=4, nursing=1.0, named=0.0)] == \
        [d.text for d in generate(20, seed=4, nursing=1.0)]
    with pytest.raises(ValueError):
        generate(3, nursing=1.0, named=2.0)

def test_header_dates_and_history_years_are_date(notes):
    titles = lexicon().nursing["titles"]
    header_dates = years = 0
    for doc in notes:
        first = doc.text.split("\n", 1)[0]
        if any(t.lower() in first.lower() for t in titles):
            for m in re.finditer(r"\b\d{1,2}/\d{1,2}(?:/\d\d)?\b", first):
                header_dates += 1
                assert any(s.type == "DATE" and (s.start, s.end) == m.span() for s in doc.spans)
        for m in re.finditer(r"\b(?:MI|CABG|CVA|PE|DVT|TKR|THR|AVR|PPM) '(\d\d)\b", doc.text, re.I):
            years += 1
            assert any(s.type == "DATE" and (s.start, s.end) == m.span(1) for s in doc.spans)
    assert header_dates >= 5 and years >= 3, (header_dates, years)


def test_misspellings_never_touch_phi():
    pieces = [("patient resting comfortably, daughter ", None), ("Elizabeth", "PATIENT"),
              (" visited, ", None), ("Bartholomew", "DOCTOR"), (" notified", None)]
    wrong, changed = misspell(pieces, random.Random(0), 4)
    assert len(changed) == 4 and [p for p in wrong if p[1]] == [p for p in pieces if p[1]]
    assert [p[0] for p in wrong if not p[1]] != [p[0] for p in pieces if not p[1]]
    misspelled = 0
    for note in _notes(150, 13):
        draft = note.draft()
        final = note.finish(draft)
        assert len(final) == len(draft)
        for (text, cls), (done, cls2) in zip(cased(draft, note.casing), final):
            assert cls == cls2 and (cls is None or text == done)
        misspelled += len(note.misspelled)
    assert misspelled >= 60


def test_names_and_places_come_from_the_world():
    rng = random.Random(17)
    world = World(rng, 60)
    staff_docs = places = 0
    for patient, index in world.patients(60):
        note = NursingNote(world, patient, index, rng)
        text, spans = assemble(note.build())
        names = {s.type: set() for s in spans}
        for s in spans:
            names[s.type].add(text[s.start:s.end].lower())
        doctors = {d.last.lower() for d in patient.attendings + [patient.pcp]}
        staff_docs += bool(doctors & names.get("DOCTOR", set()))
        hospitals = {n.lower() for h in world.hospitals for n in (h.name, h.partial, h.short)}
        hospitals |= {f.lower() for f in world.facilities}
        places += len(names.get("HOSPITAL", set()) & hospitals)
        assert names.get("HOSPITAL", set()) <= hospitals
    assert staff_docs >= 5 and places >= 5


def test_age_over_89_only_is_phi():
    note = _notes(1, 0)[0]
    note.age = 93
    assert note.slot("age") == [("93", "AGE")]
    note.age = 71
    assert note.slot("age") == [("71", None)]


def test_cli_nursing_share(tmp_path, capsys):
    path = str(tmp_path / "n.xml")
    assert main(["synth", "--records", "12", "--seed", "2", "--nursing-share", "1",
                 "--out", path]) == 0
    docs = read_corpus(path)
    assert len(docs) == 12 and not any("[ report_end ]" in d.text for d in docs)
    assert main(["synth", "--records", "5", "--nursing-share", "1.5", "--out", path]) == 2
    assert "--nursing-share" in capsys.readouterr().err
