"""itdeid.evaluation.evaluate and ``itdeid evaluate`` against counts worked out by hand.

The fixture (token unit; tokens split at every gold and predicted span edge):

Document A "John Smith was seen by Dr. Kay Jones on 3/12/2005 at Mercy Hospital."
  gold  PATIENT John Smith | DOCTOR Kay Jones | DATE 3/12/2005 | HOSPITAL Mercy Hospital
  pred  PATIENT John Smith | PATIENT Kay Jones (class confusion) | DATE 3/12/200 (end off by 1:
        a boundary error, relaxed match only) | nothing for the hospital (missed span)
  16 tokens (3/12/2005 -> 3/12/200 + 5): 11 correct; gold PHI 8, predicted PHI 5, 8-way TP 3.
Document B "Call 555-1234, age 45. MRN 889900 today."
  gold  PHONE 555-1234 | AGE 45 | ID 889900
  pred  LOCATION Call (false positive) | PHONE 555-1234 | AGE 45 | ID 889 (end off by 3: neither
        strict nor relaxed)
  11 tokens (889900 -> 889 + 900): 9 correct; gold PHI 4, predicted PHI 4, 8-way TP 3.
"""
import importlib.util
import json

import pytest

import itdeid.cli
from itdeid.document import LABELS, Document, Span
from itdeid.errors import UserError
from itdeid.evaluation.evaluate import HIPAA_CLASSES, SUMMARY_MEASURES, evaluate
from itdeid.formats import write_i2b2_2006, write_jsonl_spans

TEXT_A = "John Smith was seen by Dr. Kay Jones on 3/12/2005 at Mercy Hospital."
TEXT_B = "Call 555-1234, age 45. MRN 889900 today."


def gold_docs():
    return [
        Document("A", TEXT_A, [Span(0, 10, "PATIENT"), Span(27, 36, "DOCTOR"),
                               Span(40, 49, "DATE"), Span(53, 67, "HOSPITAL")]),
        Document("B", TEXT_B, [Span(5, 13, "PHONE"), Span(19, 21, "AGE"), Span(27, 33, "ID")]),
    ]


def predictions():
    return {
        "A": [Span(0, 10, "PATIENT"), Span(27, 36, "PATIENT"), Span(40, 48, "DATE")],
        "B": [Span(0, 4, "LOCATION"), Span(5, 13, "PHONE"), Span(19, 21, "AGE"),
              Span(27, 30, "ID")],
    }


def prf(p, r):
    return p, r, 2 * p * r / (p + r) if p + r else 0.0


def table_row(table, name):
    """The cells of the first printed row ``name`` (the score rows come before the confusion
    matrix): P, R, F in percent, then counts."""
    rows = [line.split() for line in table.splitlines() if line.split()[:1] == [name]]
    assert rows, name
    return rows[0][1:]


def assert_prf(score, p, r, f=None):
    f = prf(p, r)[2] if f is None else f
    assert (score["p"], score["r"], score["f"]) == pytest.approx((p, r, f), abs=1e-12)


@pytest.fixture(scope="module")
def result():
    return evaluate(gold_docs(), predictions()).to_dict()


def test_token_9way_and_8way(result):
    s = result["summary"]
    assert list(s) == list(SUMMARY_MEASURES)
    assert_prf(s["token_9way"], 20 / 27, 20 / 27, 20 / 27)
    assert (s["token_9way"]["tp"], s["token_9way"]["n_gold"]) == (20, 27)
    assert_prf(s["token_8way"], 6 / 9, 6 / 12, 4 / 7)
    assert (s["token_8way"]["tp"], s["token_8way"]["n_pred"], s["token_8way"]["n_gold"]) == (6, 9, 12)
    # per document 8-way: A P=3/5 R=3/8 F=6/13; B P=R=F=3/4
    assert_prf(s["token_8way_macro"], (3 / 5 + 3 / 4) / 2, (3 / 8 + 3 / 4) / 2, (6 / 13 + 3 / 4) / 2)
    # binary: PHI tokens predicted PHI of any class: A John Smith Kay Jones 3/12/200, B 555-1234 45 889
    assert_prf(s["binary_token"], 8 / 9, 8 / 12, 16 / 21)


def test_per_class_and_confusion(result):
    pc = result["per_class"]
    assert list(pc) == list(LABELS)
    assert_prf(pc["NONE"], 14 / 18, 14 / 15)
    assert_prf(pc["PATIENT"], 2 / 4, 1.0)
    assert_prf(pc["DOCTOR"], 0.0, 0.0, 0.0)     # 0 predicted, 2 gold: P is 0/0 -> 0
    assert_prf(pc["LOCATION"], 0.0, 0.0, 0.0)   # 1 predicted, 0 gold: R is 0/0 -> 0
    assert_prf(pc["HOSPITAL"], 0.0, 0.0, 0.0)
    for label in ("DATE", "ID"):
        assert_prf(pc[label], 1.0, 0.5)
    for label in ("PHONE", "AGE"):
        assert_prf(pc[label], 1.0, 1.0, 1.0)
    assert (pc["PATIENT"]["tp"], pc["PATIENT"]["n_pred"], pc["PATIENT"]["n_gold"]) == (2, 4, 2)
    # entity scores per class: the DATE span matches only relaxed
    assert pc["DATE"]["entity_strict"]["tp"] == 0 and pc["DATE"]["entity_relaxed"]["tp"] == 1

    conf = result["confusion"]
    assert conf["labels"] == list(LABELS)
    m = {(g, p): conf["matrix"][i][j] for i, g in enumerate(LABELS) for j, p in enumerate(LABELS)}
    expected = {("NONE", "NONE"): 14, ("NONE", "LOCATION"): 1, ("PATIENT", "PATIENT"): 2,
                ("DOCTOR", "PATIENT"): 2, ("HOSPITAL", "NONE"): 2, ("DATE", "DATE"): 1,
                ("DATE", "NONE"): 1, ("ID", "ID"): 1, ("ID", "NONE"): 1, ("PHONE", "PHONE"): 1,
                ("AGE", "AGE"): 1}
    assert {k: v for k, v in m.items() if v} == expected


def test_confusion_frame_is_table_2_layout():
    frame = evaluate(gold_docs(), predictions()).confusion
    assert list(frame.index) == list(LABELS) and list(frame.columns) == list(LABELS)
    assert frame.loc["DOCTOR", "PATIENT"] == 2 and frame.loc["PATIENT", "DOCTOR"] == 0
    assert frame.loc["NONE", "LOCATION"] == 1


def test_entity_strict_relaxed_and_macro(result):
    s = result["summary"]
    # strict: A PATIENT John Smith; B PHONE, AGE. Relaxed adds DATE (end off by 1), not ID (off by 3)
    assert_prf(s["entity_strict"], 3 / 7, 3 / 7)
    assert_prf(s["entity_relaxed"], 4 / 7, 4 / 7)
    assert (s["entity_strict"]["tp"], s["entity_strict"]["n_pred"], s["entity_strict"]["n_gold"]) == (3, 7, 7)
    # per document strict: A P=1/3 R=1/4 F=2/7; B P=1/2 R=2/3 F=4/7
    assert_prf(s["entity_strict_macro"], (1 / 3 + 1 / 2) / 2, (1 / 4 + 2 / 3) / 2, 3 / 7)
    # per document relaxed: A P=2/3 R=1/2 F=4/7; B as strict
    assert_prf(s["entity_relaxed_macro"], 7 / 12, 7 / 12, 4 / 7)
    assert s["entity_strict_macro"]["documents"] == 2


def test_hipaa_subset(result):
    assert "DOCTOR" not in HIPAA_CLASSES and "HOSPITAL" not in HIPAA_CLASSES
    assert len(HIPAA_CLASSES) == 6
    s = result["summary"]
    # DOCTOR and HOSPITAL count as NONE: the 2 DOCTOR tokens predicted PATIENT become false
    # positives, the missed hospital no longer counts. TP 6, predicted 9, gold 8.
    assert_prf(s["hipaa_token"], 6 / 9, 6 / 8, 12 / 17)
    # spans: gold 5 (A PATIENT, DATE; B 3), predicted 7 (Kay Jones is PATIENT)
    assert_prf(s["hipaa_entity_strict"], 3 / 7, 3 / 5, 0.5)
    assert_prf(s["hipaa_entity_relaxed"], 4 / 7, 4 / 5, 2 / 3)


def test_counts_and_json_serializable(result):
    c = result["counts"]
    assert c["documents"] == 2 and c["tokens"] == 27 and c["unit"] == "token"
    assert c["gold_tokens"]["HOSPITAL"] == 2 and c["predicted_tokens"]["PATIENT"] == 4
    assert sum(c["gold_spans"].values()) == 7 and sum(c["predicted_spans"].values()) == 7
    assert json.loads(json.dumps(result)) == result


def test_whitespace_unit_differs_from_token_unit():
    s = evaluate(gold_docs(), predictions(), unit="whitespace").to_dict()["summary"]
    # 20 whitespace tokens; '3/12/2005' is DATE in both (8 of 9 characters predicted DATE),
    # 'Hospital.' is HOSPITAL (8 of 9), '889900' ties 3 ID / 3 NONE -> the leftmost, ID.
    # Wrong: Kay, Jones, Mercy, Hospital., Call.
    assert_prf(s["token_9way"], 15 / 20, 15 / 20, 15 / 20)
    assert_prf(s["token_8way"], 6 / 9, 6 / 10, 12 / 19)
    assert evaluate(gold_docs(), predictions(), unit="token").to_dict()["summary"]["token_9way"]["f"] \
        == pytest.approx(20 / 27)
    # entity scores do not depend on the unit
    assert_prf(s["entity_relaxed"], 4 / 7, 4 / 7)


def test_whitespace_tie_goes_to_leftmost_label():
    doc = Document("T", "abcd efgh", [Span(0, 2, "ID"), Span(7, 9, "AGE")])
    result = evaluate([doc], {"T": []}, unit="whitespace").to_dict()
    # 'abcd': ID ID NONE NONE -> ID; 'efgh': NONE NONE AGE AGE -> NONE
    assert result["counts"]["gold_tokens"] == {**{label: 0 for label in LABELS}, "NONE": 1, "ID": 1}
    # the same spans under the token unit split both words
    token = evaluate([doc], {"T": []}, unit="token").to_dict()
    assert token["counts"]["tokens"] == 4


def test_perfect_prediction_scores_one():
    gold = gold_docs()
    s = evaluate(gold, {d.id: list(d.spans) for d in gold}).to_dict()["summary"]
    for name, score in s.items():
        assert (score["p"], score["r"], score["f"]) == (1.0, 1.0, 1.0), name


def test_missing_document_predicts_nothing_and_empty_document_scores_one():
    gold = gold_docs() + [Document("C", "Nothing to see here.", [])]
    pred = {"A": predictions()["A"], "C": []}  # B missing: counts as predicting nothing; C has no PHI
    result = evaluate(gold, pred)
    s = result.to_dict()["summary"]
    # B without predictions is tokenized at gold edges only: 889900 stays one token, 3 gold PHI
    assert s["token_8way"]["tp"] == 3 and s["token_8way"]["n_pred"] == 5 and s["token_8way"]["n_gold"] == 11
    # macro strict: A P=1/3 R=1/4; B P=0 (nothing predicted, 3 gold) R=0; C 0/0 -> P=R=F=1
    assert_prf(s["entity_strict_macro"], (1 / 3 + 0 + 1) / 3, (1 / 4 + 0 + 1) / 3, (2 / 7 + 0 + 1) / 3)
    assert result.to_dict()["counts"]["documents_without_predictions"] == 1


def test_errors_name_document_and_offsets():
    with pytest.raises(UserError, match="'Z'"):
        evaluate(gold_docs(), {**predictions(), "Z": []})
    with pytest.raises(UserError, match=r"'B'.*60-70"):
        evaluate(gold_docs(), {"B": [Span(60, 70, "DATE")]})
    with pytest.raises(UserError, match="unit"):
        evaluate(gold_docs(), predictions(), unit="word")


def test_frame_csv_format(tmp_path):
    scores = evaluate(gold_docs(), predictions())
    frame = scores.to_frame()
    assert list(frame.columns[:4]) == ["measure", "p", "r", "f"]
    assert list(frame["measure"][:len(SUMMARY_MEASURES)]) == list(SUMMARY_MEASURES)
    assert "class DOCTOR" in set(frame["measure"])
    row = frame.set_index("measure").loc["token_8way"]
    assert row["f"] == pytest.approx(4 / 7) and row["tp"] == 6
    scores.write_csv(tmp_path / "s.csv")
    assert (tmp_path / "s.csv").read_text().splitlines()[0].startswith("measure,p,r,f")
    scores.write_json(tmp_path / "s.json")
    assert json.loads((tmp_path / "s.json").read_text()) == scores.to_dict()
    table = scores.format()
    assert table_row(table, "token_8way") == ["66.67", "50.00", "57.14", "6", "9", "12"]
    assert table_row(table, "token_8way_macro") == ["67.50", "56.25", "60.58"]
    assert table_row(table, "DOCTOR") == ["0.00", "0.00", "0.00", "0", "0", "2"]
    assert table_row(table, "HOSPITAL")[:3] == ["0.00", "0.00", "0.00"]


@pytest.fixture
def cli_main(monkeypatch):
    """``itdeid.cli.main``, registering only the command modules that exist yet."""
    present = tuple(name for name in itdeid.cli.COMMANDS
                    if importlib.util.find_spec(f"itdeid.cli.{name}") is not None)
    monkeypatch.setattr(itdeid.cli, "COMMANDS", present)
    return itdeid.cli.main


def test_cli(tmp_path, capsys, cli_main):
    gold, pred, out = tmp_path / "gold.xml", tmp_path / "pred.jsonl", tmp_path / "scores.json"
    write_i2b2_2006(gold_docs(), gold)
    p = predictions()
    write_jsonl_spans([Document(d.id, d.text, p[d.id]) for d in gold_docs()], pred)
    assert cli_main(["evaluate", str(gold), str(pred), "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert table_row(printed, "token_9way") == ["74.07", "74.07", "74.07", "20", "27", "27"]
    assert table_row(printed, "token_8way") == ["66.67", "50.00", "57.14", "6", "9", "12"]
    assert table_row(printed, "entity_strict") == ["42.86", "42.86", "42.86", "3", "7", "7"]
    assert table_row(printed, "entity_relaxed") == ["57.14", "57.14", "57.14", "4", "7", "7"]
    assert table_row(printed, "hipaa_token") == ["66.67", "75.00", "70.59", "6", "9", "8"]
    data = json.loads(out.read_text())
    assert data["summary"]["token_8way"]["f"] == pytest.approx(4 / 7)
    assert data["summary"]["entity_strict"]["tp"] == 3

    assert cli_main(["evaluate", str(gold), str(pred), "--unit", "whitespace"]) == 0
    assert table_row(capsys.readouterr().out, "token_9way")[:3] == ["75.00", "75.00", "75.00"]


def test_cli_unknown_document_exits_2(tmp_path, capsys, cli_main):
    gold, pred = tmp_path / "gold.xml", tmp_path / "pred.jsonl"
    write_i2b2_2006(gold_docs(), gold)
    write_jsonl_spans([Document("nope", "x" * 20, [Span(0, 3, "DATE")])], pred)
    assert cli_main(["evaluate", str(gold), str(pred)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'nope'" in err and "Traceback" not in err


def test_phi_instances_count_any_overlap_whatever_the_class():
    # three gold names: one found exactly, one found as the wrong class with a token too few,
    # one missed; one prediction overlaps nothing
    text = "Mr John Smith saw Dr Ann Lee and Bob at noon today"
    gold = [Document("d", text, [Span(3, 13, "PATIENT"), Span(21, 28, "DOCTOR"), Span(33, 36, "PATIENT")])]
    predicted = {"d": [Span(3, 13, "PATIENT"), Span(21, 24, "PATIENT"), Span(40, 44, "DATE")]}
    result = evaluate(gold, predicted)
    s = result.to_dict()["summary"]["phi_instances"]
    assert (s["tp"], s["n_gold"], s["n_pred"]) == (2, 3, 3)
    assert s["r"] == pytest.approx(2 / 3) and s["p"] == pytest.approx(2 / 3)
    per_class = result.per_class()
    assert per_class["PATIENT"]["instances"]["r"] == pytest.approx(1 / 2)
    assert per_class["DOCTOR"]["instances"]["r"] == 1.0
    # nothing predicted: recall and precision 0 (not the 0/0 rule's 1)
    empty = evaluate(gold, {"d": []}).to_dict()["summary"]["phi_instances"]
    assert (empty["p"], empty["r"]) == (0.0, 0.0)


def test_evaluate_says_what_predictions_it_takes():
    """model.predict returns a list; evaluate takes id -> spans: a clear error, not a TypeError."""
    from itdeid.document import Document, Span
    from itdeid.errors import UserError
    gold = [Document("a", "Seen by Quimby", [Span(8, 14, "PATIENT")])]
    for predicted in ([[Span(8, 14, "PATIENT")]], {"a": [(8, 14, "PATIENT")]}):
        with pytest.raises(UserError, match="map each document id"):
            evaluate(gold, predicted)


def test_per_class_instances_have_their_own_precision():
    from itdeid.document import Document, Span
    gold = [Document("a", "Seen by Quimby on 3/4 at Mercy", [Span(8, 14, "PATIENT"), Span(18, 21, "DATE")])]
    predicted = {"a": [Span(8, 14, "PATIENT"), Span(25, 30, "PATIENT")]}
    rows = evaluate(gold, predicted).per_class()
    assert rows["PATIENT"]["instances"] == {"p": 0.5, "r": 1.0, "f": 2 / 3, "tp": 1, "n_pred": 2, "n_gold": 1}
    assert rows["DATE"]["instances"]["r"] == 0.0 and rows["DATE"]["instances"]["n_pred"] == 0


def test_score_files_are_written_into_a_new_folder(tmp_path):
    """`evaluate --json nd/e.json` failed on the missing folder that tag and synth create."""
    from itdeid.document import Document, Span
    from itdeid.evaluation.evaluate import evaluate
    gold = [Document("a", "Dr Bo", [Span(3, 5, "DOCTOR")])]
    scores = evaluate(gold, {"a": [Span(3, 5, "DOCTOR")]})
    scores.write_json(tmp_path / "new" / "e.json")
    scores.write_csv(tmp_path / "new2" / "e.csv")
    assert (tmp_path / "new" / "e.json").is_file() and (tmp_path / "new2" / "e.csv").is_file()


def test_cli_refuses_plain_text_as_gold_and_warns_of_gold_without_phi(tmp_path, capsys, cli_main):
    """A brat folder read as plain text was scored as gold with no PHI, exit 0."""
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.txt").write_text("Seen by Dr. Smith.\n")
    (tmp_path / "notes" / "a.ann").write_text("T1\tDOCTOR 12 17\tSmith\n")
    pred = tmp_path / "pred.jsonl"
    write_jsonl_spans([Document("a", "Seen by Dr. Smith.\n", [Span(12, 17, "DOCTOR")])], pred)
    assert cli_main(["evaluate", str(tmp_path / "notes"), str(pred)]) == 2
    assert "read as plain text, which holds no gold annotations" in capsys.readouterr().err
    write_i2b2_2006([Document("a", "Seen by Dr. Smith.\n", [])], tmp_path / "nophi.xml")
    assert cli_main(["evaluate", str(tmp_path / "nophi.xml"), str(pred)]) == 0
    assert "hold no PHI span: every predicted span counts as a false alarm" in capsys.readouterr().err
