"""experiments/peers.py's pure helpers: deid.pl's input records and .phi output (in
experiments/common.py, which bench.py shares), Philter's masked runs and their joining, span
merging. Offline and fast: no peer runs here."""
from pathlib import Path

import pytest

from itdeid.document import Document, Span

from helpers import script_functions

peers = script_functions("peers.py")
common = script_functions("common.py")
worker = script_functions("peer_worker.py")


def test_merge_spans_merges_overlaps_keeps_touching_apart():
    merge = peers["merge_spans"]
    assert merge([(5, 9, "PERSON"), (0, 3, None), (7, 12, "DATE_TIME"), (12, 14, None)]) == \
        [(0, 3), (5, 12), (12, 14)]
    assert merge([(4, 4), (1, 2), (1, 2)]) == [(1, 2)]
    assert merge([]) == []


def test_join_runs_across_punctuation_inside_a_word_only():
    join = peers["join_runs"]
    text = "Seen 03/04/2019 by Smith,John at 555-1234 x9 and Ward 4 b"
    date = text.index("03")
    runs = [(date, date + 2), (date + 3, date + 5), (date + 6, date + 10)]
    assert join(text, runs) == [(date, date + 10)]
    name = text.index("Smith")
    assert join(text, [(name, name + 5), (name + 6, name + 10)]) == [(name, name + 10)]
    phone = text.index("555")
    # a space between runs is not inside a word; neither is an unmasked letter or digit
    x9 = text.index("x9")
    assert join(text, [(phone, phone + 3), (phone + 4, phone + 8), (x9 + 1, x9 + 2)]) == \
        [(phone, phone + 8), (x9 + 1, x9 + 2)]
    ward = text.index("4 b")
    assert join(text, [(ward, ward + 1), (ward + 2, ward + 3)]) == [(ward, ward + 1), (ward + 2, ward + 3)]
    assert join("ab-cd", [(0, 1), (4, 5)]) == [(0, 1), (4, 5)]   # 'b' and 'c' were kept
    assert join("ab", [(0, 1), (0, 2)]) == [(0, 2)]


def test_masked_runs_skip_the_notes_own_asterisks():
    masked_runs = worker["masked_runs"]
    text = "Pt Ann ** seen 1/2"
    masked = "Pt *** ** seen */*"
    assert masked_runs(text, masked) == [(3, 6), (15, 16), (17, 18)]
    assert peers["join_runs"](text, masked_runs(text, masked)) == [(3, 6), (15, 18)]
    assert masked_runs("ab", "**") == [(0, 2)]
    assert masked_runs("", "") == []


PHI = """
Patient 1\tNote 1
0\t0\t5
12\t12\t20

Patient 1\tNote 2
Patient 3\tNote 1
4\t4\t9
7\t7\t7
"""


def test_parse_deid_phi():
    found = common["parse_deid_phi"](PHI)
    assert found == {("1", "1"): [(0, 5), (12, 20)], ("1", "2"): [], ("3", "1"): [(4, 9)]}


@pytest.mark.parametrize("bad", ["0\t0\t5\n", "Patient 1\tNote 1\n3 4\n", "Patient 1\tNote 1\na b c\n"])
def test_parse_deid_phi_refuses_other_lines_without_quoting_them(bad):
    with pytest.raises(ValueError, match=r"line \d+ of deid.pl's .phi file") as caught:
        common["parse_deid_phi"](bad)
    assert "a b c" not in str(caught.value)


def docs():
    return [Document("12-1", "Seen by Dr Ames.\nHome 1/2.\n", patient="12"),
            Document("12-2", "No newline at end", patient="12"),
            Document("30-1", "Caf\u00e9 \u2013 ok\r\n", patient="30")]


def test_deid_records_keep_physionet_ids_and_offsets():
    documents = docs()
    assert common["keeps_physionet_ids"](documents)
    records, keys = common["deid_records"](documents, keep_ids=True)
    assert keys == {("12", "1"): "12-1", ("12", "2"): "12-2", ("30", "1"): "30-1"}
    # read back by itdeid's own PhysioNet reader: same offsets (the added newline aside)
    from itdeid.formats import read_physionet
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "id.text"
        path.write_bytes(records.encode("latin-1"))
        back = read_physionet(path)
    assert [d.id for d in back] == ["12-1", "12-2", "30-1"]
    assert back[0].text == documents[0].text
    assert back[1].text == documents[1].text + "\n"
    assert back[2].text == "Caf\u00e9 ? ok\r\n" and len(back[2].text) == len(documents[2].text)


def test_deid_records_renumber_other_corpora():
    documents = [Document("a.txt", "one\n", patient="p"), Document("b.txt", "two\n"),
                 Document("c.txt", "three\n", patient="p")]
    assert not common["keeps_physionet_ids"](documents)
    assert not common["keeps_physionet_ids"]([Document("1-2", "x", patient="3")])
    records, keys = common["deid_records"](documents, keep_ids=False)
    assert keys == {("1", "1"): "a.txt", ("2", "2"): "b.txt", ("1", "3"): "c.txt"}
    assert records.startswith("START_OF_RECORD=1||||1||||\none\n||||END_OF_RECORD\n")
    with pytest.raises(ValueError, match="record marker"):
        common["deid_records"]([Document("x", "a\n||||END_OF_RECORD\n")], keep_ids=False)


def test_deid_spans_clip_to_the_note_and_refuse_unknown_records():
    documents = docs()
    _, keys = common["deid_records"](documents, keep_ids=True)
    lengths = {d.id: len(d.text) for d in documents}
    phi = "Patient 12\tNote 2\n0\t0\t2\n11\t11\t18\n17\t17\t18\n"
    spans = common["deid_spans"](phi, keys, lengths)
    assert spans == {"12-1": [], "12-2": [(0, 2), (11, 17)], "30-1": []}
    with pytest.raises(ValueError, match="not given"):
        common["deid_spans"]("Patient 99\tNote 1\n", keys, lengths)


def test_parse_peers():
    assert peers["parse_peers"]("deid, philter:200,presidio", 30) == \
        [("deid", 30), ("philter", 200), ("presidio", 30)]
    assert peers["parse_peers"]("deid:0", 0) == [("deid", None)]
    with pytest.raises(ValueError, match="unknown peer"):
        peers["parse_peers"]("scrubber", 0)


def test_category_blind_scores():
    doc = Document("1-1", "Seen by Dr Ames on 1/2 today", [Span(11, 15, "DOCTOR"), Span(19, 22, "DATE")])
    s = peers["scores"]([doc], {"1-1": [(11, 15), (23, 28)]})
    assert s["binary"]["r"] == 0.5 and s["binary"]["p"] == 0.5
    assert s["instances"]["tp"] == 1 and s["instances"]["n_gold"] == 2
    assert s["by_class"]["DOCTOR"]["r"] == 1.0 and s["by_class"]["DATE"]["r"] == 0.0
    assert s["token_8way"] is None
    typed = peers["scores"]([doc], {"1-1": [Span(11, 15, "DOCTOR")]}, typed=True)
    assert typed["token_8way"]["p"] == 1.0


def test_predictions_of_another_corpus_are_refused(tmp_path):
    """They were scored 0.00 everywhere, exit 0 (itdeid evaluate refuses the same pair)."""
    from itdeid.formats import write_i2b2_2006, write_jsonl_spans
    write_i2b2_2006([Document("a1", "Seen by Dr. Smith.", [Span(12, 17, "DOCTOR")])], tmp_path / "a.xml")
    write_jsonl_spans([Document("b1", "Seen by Dr. Jones.", [Span(12, 17, "DOCTOR")])], tmp_path / "b.jsonl")
    with pytest.raises(SystemExit, match=r"b.jsonl: predictions for 1 document\(s\) not in .*a.xml \(first 'b1'\)"):
        peers["main"](["--corpus", str(tmp_path / "a.xml"), "--peers", "", "--itdeid-predictions",
                       str(tmp_path / "b.jsonl"), "--out", str(tmp_path / "peers.md")])
