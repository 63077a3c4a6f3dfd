"""The model shipped in the package: present in the installed copy, small, and README's main
command works with it on the shipped sample notes."""
from pathlib import Path

import pytest

from itdeid.cli import main
from itdeid.model_folder.load import load_model
from itdeid.render.outputs import FORMATS, render
from itdeid.resources import default_model_dir

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
NOTES, GOLD = SAMPLES / "notes", SAMPLES / "gold"


def test_default_model_is_installed_with_its_card():
    folder = default_model_dir()
    assert (folder / "ensemble.json").is_file(), f"no default model (the recipe's ensemble) at {folder}"
    card = (folder / "MODEL_CARD.md").read_text(encoding="utf-8")
    assert "## Training data" in card and "GPL 2.0" in card
    size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    assert size < 20 * 2 ** 20                      # issue D: keep it under 20 MB
    assert not list(folder.rglob("*.pkl")) and not list(folder.rglob("*.pickle"))
    assert (folder / "SHA256SUMS").is_file()            # written by itdeid train, checked at load
    load_model(folder)


def test_readme_main_command_on_the_samples(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["deid", str(NOTES), "--out", str(out), "--workers", "1"]) == 0
    names = sorted(p.name for p in out.iterdir() if not p.name.startswith("."))
    assert names == ["clinic-letter.redact.jsonl", "clinic-letter.txt", "discharge-summary.redact.jsonl",
                     "discharge-summary.txt", "nursing-note.redact.jsonl", "nursing-note.txt"]
    redacted = (out / "discharge-summary.txt").read_text(encoding="utf-8")
    assert "[**DATE**]" in redacted and "02/11/2009" not in redacted       # unmistakable PHI is gone
    assert "617-555-0143" not in (out / "nursing-note.txt").read_text(encoding="utf-8")
    assert "3 files done" in capsys.readouterr().out


def test_readme_main_command_replaces_every_gold_phi_of_the_samples(tmp_path):
    """Issue J: the demo shows no PHI. samples/gold holds the sample notes' PHI, annotated by
    hand before the model was trained (never trained on); every letter and digit of every gold
    span must lie inside a span the shipped model replaced (the .redact.jsonl sidecar gives
    their original offsets). A miss is fixed in the model, not in the sample."""
    import json

    from itdeid.formats import read_corpus
    out = tmp_path / "out"
    assert main(["deid", str(NOTES), "--out", str(out), "--workers", "1"]) == 0
    gold = read_corpus(GOLD)
    assert sorted(d.id for d in gold) == ["clinic-letter", "discharge-summary", "nursing-note"]
    left = []
    for doc in gold:
        assert doc.text == (NOTES / f"{doc.id}.txt").read_text(encoding="utf-8")
        covered = set()
        for line in (out / f"{doc.id}.redact.jsonl").read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            covered.update(range(entry["original_start"], entry["original_end"]))
        for span in doc.spans:
            if any(doc.text[i].isalnum() and i not in covered for i in range(span.start, span.end)):
                left.append(f"{doc.id}:{span.start}-{span.end} {span.type}")
    assert not left, f"gold PHI left in the demo's output: {left}"


def _stored_words(value) -> set[str]:
    """Every word of every string (keys included) in a model state, lower case."""
    from itdeid.featurize import tokenize_words
    if isinstance(value, dict):
        return set().union(*map(_stored_words, value), *map(_stored_words, value.values()), set())
    if isinstance(value, list):
        return set().union(*map(_stored_words, value), set())
    return set(tokenize_words(value)) if isinstance(value, str) else set()


def test_default_model_keeps_no_word_that_was_only_phi_in_its_training_notes(physionet_dir):
    """Issue F's rule on the shipped model itself: no word that occurred only inside PHI in the
    preset's training corpus (synthetic records + the PhysioNet split) is stored in it, apart
    from the shipped phrase-suffix list (features/suffixes.json)."""
    import json
    from collections import Counter

    from itdeid.featurize import phrase_suffixes, tokenize_document
    from itdeid.training.presets import preset_corpus

    documents, _, _ = preset_corpus("default", physionet_dir)
    seen, as_phi = Counter(), Counter()
    for td in map(tokenize_document, documents):
        for word, label in zip(td.words, td.labels):
            seen[word] += 1
            as_phi[word] += bool(label)
    shipped = {w for w, _ in phrase_suffixes()}
    only_phi = {w for w, n in seen.items() if as_phi[w] == n and w.isalpha()} - shipped
    stored = set()
    for path in default_model_dir().rglob("*.json"):
        state = json.loads(path.read_text(encoding="utf-8"))
        # feature names and parameters are the code's own words ('roman' numeral), not learned
        # (the loader refuses feature names other than those the parameters give)
        stored |= _stored_words({k: v for k, v in state.items() if k not in ("feature_names", "params")})
    leaked = sorted(stored & only_phi)
    assert not leaked, f"{len(leaked)} words only ever PHI in training are in the shipped model"


def test_default_model_tags_empty_notes_and_no_notes():
    """A batch of empty or blank notes (the context stage had no rows to stack) and no batch."""
    from itdeid.document import Document
    model = load_model(default_model_dir())
    assert model.predict([Document("a", ""), Document("b", " \n ")]) == [[], []]
    assert model.predict([]) == []


def test_readme_python_api_example_runs_and_redacts(capsys):
    """README's 'Python API' block, run as written."""
    import re
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    block = re.search(r"## Python API.*?```python\n(.*?)```", readme, re.S).group(1)
    exec(compile(block, "README.md", "exec"), {})
    printed = capsys.readouterr().out
    assert "[**DOCTOR**]" in printed and "Walker" not in printed and "3/4/2003" not in printed


def test_tag_names_the_installed_model_default(tmp_path, monkeypatch):
    """`itdeid tag` needs a model folder, and a new user had to find the installed one; the
    same word names it to `deid --model` and to `itdeid.load_model`, unless a folder of that
    name is there."""
    import itdeid
    monkeypatch.chdir(tmp_path)
    assert main(["tag", "default", str(NOTES / "nursing-note.txt"), "--out", str(tmp_path / "p.jsonl")]) == 0
    assert (tmp_path / "p.jsonl").read_text().count('"doc"') > 0
    assert main(["deid", str(NOTES / "nursing-note.txt"), "--out", str(tmp_path / "o"), "--model",
                 "default", "--workers", "1"]) == 0
    assert type(itdeid.load_model("default")) is type(itdeid.load_model())
    (tmp_path / "default").mkdir()
    assert main(["deid", str(NOTES / "nursing-note.txt"), "--out", str(tmp_path / "o2"), "--model",
                 "default", "--workers", "1"]) == 2


def test_default_model_tags_a_surname_after_pt_in_any_case():
    """'Pt Murphy tolerating po's': the shipped model found 34-43 % of surnames after 'pt'
    (experiments/results/named-subjects.md); itdeid.passes.subject_names tags those the training
    notes never use as ordinary text, and turned off, the trees alone miss these."""
    from itdeid.document import Document
    model = load_model(default_model_dir())
    notes = [Document(str(i), f"NPN 7a-7p: VSS. {s} tolerating po's. Lungs clear.", [])
             for i, s in enumerate(("Pt Kowalczyk", "pt kowalczyk", "PT KOWALCZYK", "Patient Szymanski"))]
    found = [[n.text[s.start:s.end] for s in spans if s.type == "PATIENT"]
             for n, spans in zip(notes, model.predict(notes))]
    assert found == [["Kowalczyk"], ["kowalczyk"], ["KOWALCZYK"], ["Szymanski"]]
    model.subject_names = False
    assert not all(any(s.type == "PATIENT" for s in spans) for spans in model.predict(notes))


#: A made-up note: the shipped model typed each 'at' HOSPITAL with the name after it, and every
#: format released or marked 'on [**DATE**] [**HOSPITAL**]'.
JOINED = ("He was transferred on March 3 at Mercy Hospital.\n"
          "TRANSFERRED ON MARCH 3 AT MERCY HOSPITAL.\n"
          "Seen 4/2/2019 At Mercy Hospital.\n"
          "Seen on 03/14/2019, at Mercy Hospital.\n")


@pytest.fixture(scope="module")
def joined_note():
    from itdeid.document import Document
    from itdeid.featurize import tokenize_documents
    model = load_model(default_model_dir())
    note = Document("n1", JOINED, [], patient="p1")
    [td] = tokenize_documents([note], gold=False)
    [codes] = model.predict_tokenized([td])
    return note, model.predict([note])[0], {t.start: int(c) for t, c in zip(td.tokens, codes)}


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_function_word_between_a_date_and_a_hospital_stays_in_every_format(joined_note, fmt, tmp_path):
    """Each 'at' keeps its label NONE and stays outside every span, so the released text reads
    'on [**DATE**] at [**HOSPITAL**]' and the annotations mark the date and the hospital alone."""
    import json
    import re

    from itdeid.formats import read_i2b2_2006
    from itdeid.render.surrogate import Surrogates
    note, spans, codes = joined_note
    ats = [m.start() for m in re.finditer(r"\b(?:at|At|AT)\b", JOINED)]
    assert len(ats) == 4 and all(codes[a] == 0 for a in ats)
    files = render(note, spans, fmt, surrogates=Surrogates(b"k" * 32))
    if fmt in ("redact", "surrogate"):
        lines = files[".txt"].decode("utf-8").splitlines()
        phrase = r"\[\*\*{}\*\*\]" if fmt == "redact" else r"(?!{})\S.*"
        date, hospital = phrase.format("DATE"), phrase.format("HOSPITAL")
        for line, pattern in zip(lines, (
                rf"He was transferred on {date} at {hospital}\.", rf"TRANSFERRED ON {date} AT {hospital}\.",
                rf"Seen {date} At {hospital}\.", rf"Seen on {date}, at {hospital}\.")):
            assert re.fullmatch(pattern, line), (fmt, line)
        assert "Mercy" not in lines[0]
        return
    if fmt == "jsonl":
        records = map(json.loads, files[".jsonl"].decode().splitlines())
        found = [(r["start"], r["end"], r["type"]) for r in records]
    elif fmt == "xml":
        (tmp_path / "n1.xml").write_bytes(files[".xml"])
        found = [(s.start, s.end, s.type) for s in read_i2b2_2006(tmp_path / "n1.xml")[0].spans]
    else:
        found = [(int(f[1].split()[1]), int(f[1].split()[-1]), f[1].split()[0])
                 for f in (line.split("\t") for line in files[".ann"].decode().splitlines())]
    assert not [a for a in ats for start, end, _ in found if start <= a < end], fmt
    assert sorted(kind for *_, kind in found) == ["DATE"] * 4 + ["HOSPITAL"] * 4
