"""itdeid train / tag / cv on small corpora written in the shared formats."""
import json
import re

import pytest

from itdeid.cli import main
from itdeid.formats import read_corpus, read_jsonl_spans, write_i2b2_2006, write_physionet

from helpers import tiny_corpus


def _physionet_corpus(tmp_path):
    docs = tiny_corpus(24, seed=2)
    for k, d in enumerate(docs):           # PhysioNet ids: <patient>-<note>
        d.id, d.patient = f"{k // 2 + 1}-{k % 2 + 1}", str(k // 2 + 1)
        d.spans = [s for s in d.spans if s.type != "HOSPITAL"]   # PhysioNet has no HOSPITAL class
    write_physionet(docs, tmp_path / "id.text")
    return docs


def test_train_then_tag_physionet_jsonl(tmp_path, capsys):
    docs = _physionet_corpus(tmp_path)
    # the recipe's trees; its synthetic records and threads left out to keep the test quick
    assert main(["train", str(tmp_path / "id.text"), "--out", str(tmp_path / "model"),
                 "--synthetic", "0", "--n-jobs", "1"]) == 0
    assert main(["tag", str(tmp_path / "model"), str(tmp_path / "id.text"),
                 "--out", str(tmp_path / "pred.jsonl")]) == 0
    lines = [json.loads(x) for x in (tmp_path / "pred.jsonl").read_text().splitlines()]
    assert lines and set(lines[0]) >= {"doc", "start", "end", "type"}
    texts = {d.id: d.text for d in docs}
    assert {x["doc"] for x in lines} <= set(texts)
    assert all(x["doc"].count("-") == 1 for x in lines)
    # offsets index the note text: most predicted DOCTOR spans are the training doctors' names
    predicted = read_jsonl_spans(tmp_path / "pred.jsonl")
    gold = {(d.id, s.start, s.end) for d in docs for s in d.spans}
    hits = sum((doc, s.start, s.end) in gold for doc, spans in predicted.items() for s in spans)
    assert hits / sum(map(len, predicted.values())) > 0.8
    assert "saved to" in capsys.readouterr().out


def test_tag_writes_i2b2_xml(tmp_path):
    docs = tiny_corpus(20, seed=3)
    write_i2b2_2006(docs, tmp_path / "train.xml")
    main(["train", str(tmp_path / "train.xml"), "--out", str(tmp_path / "m"), "--learner", "tree",
          "--synthetic", "0"])
    main(["tag", str(tmp_path / "m"), str(tmp_path / "train.xml"), "--out", str(tmp_path / "pred.xml")])
    tagged = read_corpus(tmp_path / "pred.xml")
    assert [d.id for d in tagged] == [d.id for d in docs]
    assert [d.text for d in tagged] == [d.text for d in docs]
    assert sum(len(d.spans) for d in tagged) > 0


def test_cv_writes_results(tmp_path, capsys):
    docs = tiny_corpus(20, seed=4)
    write_i2b2_2006(docs, tmp_path / "c.xml")
    out = tmp_path / "cv"
    assert main(["cv", str(tmp_path / "c.xml"), "--folds", "2", "--rows", "BASELINE,C4.5",
                 "--out", str(out)]) == 0
    text = (out / "results.md").read_text()
    assert "| BASELINE |" in text and "| C4.5 |" in text and "- machine:" in text
    assert (out / "results.csv").exists() and (out / "predictions-C4.5.jsonl").exists()
    (out / "notes.txt").write_text("mine")
    # a rerun replaces the earlier run's files (they passed for its results), nothing else
    assert main(["cv", str(tmp_path / "c.xml"), "--folds", "2", "--rows", "BASELINE", "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt", "predictions-BASELINE.jsonl", "results.csv",
                                                      "results.md", "scores-BASELINE.json"]
    assert "removed the 6 result files of an earlier run" in capsys.readouterr().err
    assert main(["cv", str(tmp_path / "c.xml"), "--rows", " , ", "--out", str(out)]) == 2
    assert "--rows names no row" in capsys.readouterr().err


def test_bad_model_folder_is_one_line_error(tmp_path, capsys):
    (tmp_path / "in.txt").write_text("hello", encoding="utf-8")
    assert main(["tag", str(tmp_path), str(tmp_path / "in.txt"), "--out", str(tmp_path / "p.jsonl")]) == 2
    err = capsys.readouterr().err
    assert "not a model folder" in err and "Traceback" not in err


def test_train_system_then_tag(tmp_path):
    docs = tiny_corpus(16, seed=8)
    write_i2b2_2006(docs, tmp_path / "train.xml")
    assert main(["train", str(tmp_path / "train.xml"), "--out", str(tmp_path / "sys"), "--system",
                 "--iterations", "1", "--n-estimators", "5", "--n-jobs", "1"]) == 0
    assert (tmp_path / "sys" / "deidentifier.json").exists()
    assert main(["tag", str(tmp_path / "sys"), str(tmp_path / "train.xml"), "--out", str(tmp_path / "p.jsonl")]) == 0
    assert read_jsonl_spans(tmp_path / "p.jsonl")


def test_train_with_the_recall_features_and_resubstitution(tmp_path):
    docs = tiny_corpus(16, seed=5)
    write_i2b2_2006(docs, tmp_path / "train.xml")
    assert main(["train", str(tmp_path / "train.xml"), "--out", str(tmp_path / "m"), "--features",
                 "recall", "--resubstitutions", "1", "--previous", "gold", "--n-estimators", "5",
                 "--n-jobs", "1", "--members", "0", "--no-context-pass"]) == 0
    saved = json.loads((tmp_path / "m" / "model.json").read_text())
    assert {"casing", "census", "lexicon"} <= set(saved["params"]["groups"])
    assert saved["params"]["resubstitutions"] == 1
    assert main(["train", str(tmp_path / "train.xml"), "--out", str(tmp_path / "s"), "--system",
                 "--resubstitutions", "1", "--no-context-pass"]) == 2
    # a single model's context pass cannot (the ensemble's stacked stage can)
    assert main(["train", str(tmp_path / "train.xml"), "--out", str(tmp_path / "c"),
                 "--members", "0", "--resubstitutions", "1", "--context-pass"]) == 2


def test_train_without_options_trains_the_recipe(tmp_path, capsys):
    from itdeid.training.recipe import MEMBER, RECIPE
    docs = tiny_corpus(16, seed=5)
    write_i2b2_2006(docs, tmp_path / "train.xml")
    assert main(["train", str(tmp_path / "train.xml"), "--out", str(tmp_path / "m"),
                 "--n-estimators", "5", "--n-jobs", "1"]) == 0
    # the recipe's synthetic records were added to the corpus's 16 notes
    assert f"on 16 documents and {RECIPE['synthetic']} synthetic records" in capsys.readouterr().out
    state = json.loads((tmp_path / "m" / "ensemble.json").read_text())
    assert len(state["members"]) == RECIPE["members"] and state["threshold"] is not None
    assert state["params"]["target_recall"] == RECIPE["target_recall"]
    assert state["params"]["identifiers"] == RECIPE["identifiers"]
    assert state["params"]["context_pass"] == RECIPE["context_pass"]
    stages = (1 if RECIPE["stage_refit"] else RECIPE["members"]) if RECIPE["context_pass"] else 0
    assert len(state["stage"]) == stages
    assert state["params"]["stage_refit"] == RECIPE["stage_refit"]
    assert state["params"]["screen"] == RECIPE["screen"]
    assert state["params"]["screen_rounds"] == RECIPE["screen_rounds"]
    saved = json.loads((tmp_path / "m" / "member-0" / "model.json").read_text())
    for name, value in MEMBER.items():
        if name == "n_estimators":   # given on the command line above, to keep the test quick
            assert saved["params"][name] == 5
            continue
        expected = list(value) if isinstance(value, tuple) else value
        assert saved["params"][name] == expected, name
    assert main(["train", str(tmp_path / "train.xml"), "--out", str(tmp_path / "p"), "--features",
                 "paper", "--members", "0", "--resubstitutions", "0", "--no-context-pass", "--argmax",
                 "--no-identifiers", "--n-estimators", "5", "--n-jobs", "1"]) == 0
    assert "synthetic" not in capsys.readouterr().out   # the paper's model: the corpus alone
    paper = json.loads((tmp_path / "p" / "model.json").read_text())
    assert paper["threshold"] is None and paper["params"]["previous"] == "oof"
    assert paper["params"]["two_step"] is False          # the paper's nine-class learner
    # and the learner's own trees, not the recipe's
    assert paper["params"]["max_depth"] is None and paper["params"]["learning_rate"] is None
    assert not paper["params"]["context_pass"] and not paper["params"]["identifiers"]


def test_train_members_writes_an_ensemble_that_tags(tmp_path):
    docs = tiny_corpus(16, seed=5)
    write_i2b2_2006(docs, tmp_path / "train.xml")
    assert main(["train", str(tmp_path / "train.xml"), "--out", str(tmp_path / "e"), "--members", "3",
                 "--no-context-pass", "--resubstitutions", "1", "--n-estimators", "5",
                 "--n-jobs", "1", "--synthetic", "0"]) == 0
    state = json.loads((tmp_path / "e" / "ensemble.json").read_text())
    assert state["members"] == ["member-0", "member-1", "member-2"] and state["threshold"] is not None
    member = json.loads((tmp_path / "e" / "member-0" / "model.json").read_text())
    assert member["params"]["previous"] == "none" and member["params"]["resubstitutions"] == 1
    assert main(["tag", str(tmp_path / "e"), str(tmp_path / "train.xml"),
                 "--out", str(tmp_path / "tagged.jsonl")]) == 0
    assert (tmp_path / "tagged.jsonl").read_text().strip()
    # with --members, --context-pass stacks the ensemble's context stage
    assert main(["train", str(tmp_path / "train.xml"), "--out", str(tmp_path / "x"), "--members", "2",
                 "--context-pass", "--n-estimators", "5", "--n-jobs", "1", "--synthetic", "0"]) == 0
    assert len(json.loads((tmp_path / "x" / "ensemble.json").read_text())["stage"]) == 1   # refitted
    assert main(["train", str(tmp_path / "train.xml"), "--out", str(tmp_path / "z"), "--members", "2",
                 "--no-stage-refit", "--screen", "0", "--n-estimators", "5", "--n-jobs", "1",
                 "--synthetic", "0"]) == 0
    state = json.loads((tmp_path / "z" / "ensemble.json").read_text())
    assert len(state["stage"]) == 2 and state["params"]["screen"] is None
    assert state["params"]["screen_rounds"] is None          # no screen: no first look either
    # a screen needs members without the previous-class feature; a bad one is a usage error
    assert main(["train", str(tmp_path / "train.xml"), "--out", str(tmp_path / "w"), "--members", "2",
                 "--previous", "oof", "--screen", "0.001"]) == 2
    assert main(["train", str(tmp_path / "train.xml"), "--out", str(tmp_path / "w"), "--members", "2",
                 "--screen", "1.5"]) == 2
    for rounds in (["--screen", "0", "--screen-rounds", "5"], ["--screen-rounds", "-1"]):
        assert main(["train", str(tmp_path / "train.xml"), "--out", str(tmp_path / "w"), "--members", "2",
                     *rounds]) == 2
    assert main(["train", str(tmp_path / "train.xml"), "--out", str(tmp_path / "y"),
                 "--members", "1", "--no-context-pass"]) == 2


def test_tag_cuts_a_long_note_and_shows_progress_in_a_log(tmp_path, monkeypatch, capsys):
    """A note longer than the piece size is tagged in pieces, with progress lines by
    characters on a stderr that is not a terminal (no text in them); spans index the note."""
    from itdeid.text import pieces
    from itdeid.batch import progress
    from itdeid.estimators.model import TokenModel
    TokenModel(n_estimators=5, n_jobs=1).fit(tiny_corpus(30)).save(tmp_path / "m")
    docs = tiny_corpus(40, seed=6)
    text = "\n".join(d.text for d in docs)
    (tmp_path / "long.txt").write_text(text, encoding="utf-8")
    monkeypatch.setattr(pieces, "PIECE_CHARS", 5_000)
    monkeypatch.setattr(progress, "LOG_EVERY_SECONDS", 0.0)
    assert main(["tag", str(tmp_path / "m"), str(tmp_path / "long.txt"),
                 "--out", str(tmp_path / "pred.jsonl")]) == 0
    err = capsys.readouterr().err
    shares = [int(x) for x in re.findall(r"itdeid tag: .*\((\d+)%\)", err)]
    assert len(shares) >= 3 and 0 < shares[0] < 100 and shares[-1] == 100
    phi = {w for d in docs for s in d.spans for w in d.text[s.start:s.end].split() if len(w) > 2}
    assert not phi & set(re.findall(r"\w+", err))
    predicted = read_jsonl_spans(tmp_path / "pred.jsonl")
    spans = next(iter(predicted.values()))
    gold = {(s.start + text.index(d.text), s.end + text.index(d.text)) for d in docs
            for s in d.spans}
    assert sum((s.start, s.end) in gold for s in spans) / len(spans) > 0.8


def test_train_with_synthetic_records_chooses_the_threshold_on_the_corpus_alone(tmp_path, monkeypatch, capsys):
    from itdeid.estimators.ensemble import InnerEnsemble
    seen = {}
    original = InnerEnsemble.fit_tokenized

    def spy(self, docs, calibrate_on=None):
        seen["ids"], seen["flags"] = [td.document.id for td in docs], list(calibrate_on)
        return original(self, docs, calibrate_on)

    monkeypatch.setattr(InnerEnsemble, "fit_tokenized", spy)
    docs = tiny_corpus(12, seed=5)
    write_i2b2_2006(docs, tmp_path / "train.xml")
    assert main(["train", str(tmp_path / "train.xml"), "--out", str(tmp_path / "m"), "--members", "2",
                 "--synthetic", "4", "--two-step", "--n-estimators", "5", "--n-jobs", "1"]) == 0
    assert len(seen["ids"]) == 16 and seen["flags"] == [True] * 12 + [False] * 4
    assert all(i.startswith("synthetic:") for i in seen["ids"][12:])
    member = json.loads((tmp_path / "m" / "member-0" / "model.json").read_text())
    assert member["params"]["two_step"] is True
    capsys.readouterr()
    assert main(["train", str(tmp_path / "train.xml"), "--out", str(tmp_path / "x"), "--members", "0",
                 "--synthetic", "4"]) == 2
    assert "--synthetic needs the ensemble (--members 2 or more)" in capsys.readouterr().err
    assert main(["train", str(tmp_path / "train.xml"), "--out", str(tmp_path / "x"),
                 "--synthetic", "4", "--synthetic-nursing", "1.5"]) == 2
    assert main(["train", str(tmp_path / "train.xml"), "--out", str(tmp_path / "x"),
                 "--synthetic", "4", "--synthetic-named", "-0.1"]) == 2
    assert "--synthetic-named must be between 0 and 1" in capsys.readouterr().err


def test_train_window_reaches_the_members_and_a_negative_one_is_refused(tmp_path):
    docs = tiny_corpus(12, seed=5)
    write_i2b2_2006(docs, tmp_path / "train.xml")
    assert main(["train", str(tmp_path / "train.xml"), "--out", str(tmp_path / "m"), "--members", "2",
                 "--window", "1", "--n-estimators", "5", "--n-jobs", "1"]) == 0
    member = json.loads((tmp_path / "m" / "member-0" / "model.json").read_text())
    assert member["params"]["window"] == 1
    names = member["feature_names"]
    assert any(n.endswith("@+1") for n in names) and not any(n.endswith("@+2") for n in names)
    assert main(["train", str(tmp_path / "train.xml"), "--out", str(tmp_path / "x"), "--window", "-1"]) == 2


def test_train_typer_settings_reach_the_members_with_the_recipe_default_and_bad_ones_are_refused(tmp_path, capsys):
    from itdeid.training.recipe import MEMBER
    docs = tiny_corpus(12, seed=5)
    write_i2b2_2006(docs, tmp_path / "train.xml")
    assert main(["train", str(tmp_path / "train.xml"), "--out", str(tmp_path / "m"), "--members", "2",
                 "--n-estimators", "5", "--synthetic", "0", "--n-jobs", "1"]) == 0
    params = json.loads((tmp_path / "m" / "member-0" / "model.json").read_text())["params"]
    assert (params["typer_estimators"], params["typer_learning_rate"]) == (
        MEMBER["typer_estimators"], MEMBER["typer_learning_rate"])
    assert main(["train", str(tmp_path / "train.xml"), "--out", str(tmp_path / "n"), "--members", "2",
                 "--n-estimators", "5", "--synthetic", "0", "--n-jobs", "1", "--typer-estimators", "3",
                 "--typer-learning-rate", "0.5"]) == 0
    params = json.loads((tmp_path / "n" / "member-0" / "model.json").read_text())["params"]
    assert (params["typer_estimators"], params["typer_learning_rate"]) == (3, 0.5)
    capsys.readouterr()
    for bad in (["--typer-estimators", "0"], ["--typer-learning-rate", "1.5"]):
        assert main(["train", str(tmp_path / "train.xml"), "--out", str(tmp_path / "x"), *bad]) == 2
        assert bad[0] in capsys.readouterr().err



@pytest.mark.parametrize("options,named", [
    (["--members", "0", "--screen", "0.01"], "--screen"),
    (["--members", "0", "--screen-rounds", "50"], "--screen-rounds"),
    (["--members", "0", "--draws", "2"], "--draws"),
    (["--members", "0", "--no-stage-refit"], "--no-stage-refit"),
    (["--members", "0", "--no-subject-names"], "--no-subject-names"),
    (["--no-context-pass", "--no-stage-refit"], "--no-stage-refit"),
    (["--iterations", "1"], "--iterations"),
    (["--vote", "recall_first"], "--vote"),
    (["--system", "--screen", "0.01"], "--screen"),
    (["--system", "--trigger", "phrase"], "--trigger"),
    (["--members", "0", "--typer-estimators", "5"], "--typer-estimators"),
    (["--no-two-step", "--typer-learning-rate", "0.5"], "--typer-learning-rate"),
    (["--synthetic", "0", "--synthetic-nursing", "0.2"], "--synthetic-nursing"),
    (["--synthetic", "0", "--synthetic-named", "0.2"], "--synthetic-named"),
    (["--argmax", "--target-recall", "0.9"], "--target-recall"),
    (["--physionet", "elsewhere"], "--physionet"),
    (["--members", "0", "--learner", "tree", "--n-estimators", "50"], "--n-estimators"),
    (["--members", "0", "--learner", "adaboost", "--learning-rate", "0.5"], "--learning-rate"),
])
def test_train_refuses_options_the_model_it_trains_would_not_read(tmp_path, capsys, options, named):
    _physionet_corpus(tmp_path)
    assert main(["train", str(tmp_path / "id.text"), "--out", str(tmp_path / "model"), *options]) == 2
    err = capsys.readouterr().err
    assert named in err and "would be ignored" in err and "Traceback" not in err
    assert not (tmp_path / "model").exists()


def test_cv_refuses_rows_beside_a_single_learner_row(tmp_path, capsys):
    _physionet_corpus(tmp_path)
    assert main(["cv", str(tmp_path / "id.text"), "--rows", "CRF", "--learner", "tree",
                 "--out", str(tmp_path / "cv")]) == 2
    assert "--rows would be ignored" in capsys.readouterr().err
    assert not (tmp_path / "cv").exists()


def test_train_and_cv_refuse_a_corpus_with_no_phi_annotation(tmp_path, capsys):
    """A corpus read with no annotation (plain text, a BRAT folder, an XML corpus stripped of its
    tags) is refused before training: the model would learn that nothing is PHI and keep every
    word of the notes as ordinary text."""
    (tmp_path / "brat").mkdir()
    (tmp_path / "brat" / "a.txt").write_text("Seen by Dr Zorblatt on 3/4.\n")
    (tmp_path / "brat" / "a.ann").write_text("T1\tDOCTOR 11 19\tZorblatt\n")
    docs = tiny_corpus(6, seed=4)
    for d in docs:
        d.spans = []
    write_i2b2_2006(docs, tmp_path / "none.xml")
    for corpus, said in ((tmp_path / "brat", "read as text"), (tmp_path / "none.xml", "read as i2b2-2006")):
        assert main(["train", str(corpus), "--out", str(tmp_path / "m"), "--members", "0"]) == 2
        err = capsys.readouterr().err
        assert said in err and "hold no PHI annotation" in err and "Zorblatt" not in err
        assert not (tmp_path / "m").exists()
        assert main(["cv", str(corpus), "--folds", "2", "--rows", "BASELINE", "--out", str(tmp_path / "cv")]) == 2
        assert "hold no PHI annotation" in capsys.readouterr().err


def test_cv_and_train_turn_bad_counts_into_one_line_errors(tmp_path, capsys):
    docs = tiny_corpus(8, seed=5)
    write_i2b2_2006(docs, tmp_path / "c.xml")
    patients = len({d.patient or d.id for d in docs})
    for options, said in ((["--folds", str(patients + 1)], "cannot fill"), (["--folds", "1"], "at least 2 folds"),
                          (["--folds", "2", "--negative-rate", "0"], "negative_rate")):
        assert main(["cv", str(tmp_path / "c.xml"), "--rows", "XGB_TOKEN", "--out", str(tmp_path / "cv"),
                     *options]) == 2
        assert said in capsys.readouterr().err
    write_i2b2_2006(docs[:1], tmp_path / "one.xml")
    assert main(["train", str(tmp_path / "one.xml"), "--out", str(tmp_path / "m"), "--members", "0"]) == 2
    assert "cannot be split for the inner cross-validation" in capsys.readouterr().err


def test_train_replaces_an_old_model_whole_and_refuses_other_folders(tmp_path, capsys):
    """A model of another kind in --out is replaced whole (its files used to stay, and loading
    picked the old kind); a folder of other files or a file is refused before training."""
    docs = tiny_corpus(12, seed=7)
    write_i2b2_2006(docs, tmp_path / "c.xml")
    out = tmp_path / "model"
    out.mkdir()
    (out / "deidentifier.json").write_text("{}")        # an old system model's state
    (out / "itr0-token").mkdir()
    assert main(["train", str(tmp_path / "c.xml"), "--out", str(out), "--members", "0",
                 "--no-context-pass", "--n-estimators", "3", "--n-jobs", "1"]) == 0
    assert not (out / "deidentifier.json").exists() and not (out / "itr0-token").exists()
    assert (out / "model.json").is_file()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".model.")]
    assert main(["tag", str(out), str(tmp_path / "c.xml"), "--out", str(tmp_path / "p.jsonl")]) == 0
    capsys.readouterr()
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.txt").write_text("x")
    for bad, said in ((tmp_path / "notes", "is not a model folder"), (tmp_path / "c.xml", "is not a folder")):
        assert main(["train", str(tmp_path / "c.xml"), "--out", str(bad), "--members", "0"]) == 2
        assert said in capsys.readouterr().err
    assert (tmp_path / "notes" / "a.txt").read_text() == "x"


def test_an_output_path_that_cannot_be_written_is_one_line_error(tmp_path, capsys):
    docs = tiny_corpus(12, seed=7)
    write_i2b2_2006(docs, tmp_path / "c.xml")
    assert main(["stats", str(tmp_path / "c.xml"), "--json", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("itdeid stats: error: ") and str(tmp_path) in err and "Traceback" not in err


def test_evaluate_refuses_predictions_made_on_another_text(tmp_path, capsys):
    docs = tiny_corpus(4, seed=8)
    write_i2b2_2006(docs, tmp_path / "gold.xml")
    assert main(["evaluate", str(tmp_path / "gold.xml"), str(tmp_path / "gold.xml")]) == 0
    docs[1].text = "XX" + docs[1].text[2:]
    write_i2b2_2006(docs, tmp_path / "pred.xml")
    capsys.readouterr()
    assert main(["evaluate", str(tmp_path / "gold.xml"), str(tmp_path / "pred.xml")]) == 2
    assert f"the text of document {docs[1].id} differs" in capsys.readouterr().err


def test_evaluate_refuses_plain_notes_as_predictions(tmp_path, capsys):
    """A folder of plain notes (or a --format brat output, whose .ann files are not read) given
    as predictions was scored as predicting nothing, every score 0, with status 0."""
    docs = tiny_corpus(3, seed=8)
    write_i2b2_2006(docs, tmp_path / "gold.xml")
    (tmp_path / "notes").mkdir()
    for doc in docs:
        (tmp_path / "notes" / f"{doc.id}.txt").write_text(doc.text)
    assert main(["evaluate", str(tmp_path / "gold.xml"), str(tmp_path / "notes")]) == 2
    err = capsys.readouterr().err
    assert "holds no predictions" in err and str(tmp_path / "notes") in err


def test_a_span_file_is_no_corpus_and_synth_writes_none(tmp_path, capsys):
    """synth --format jsonl wrote spans without their notes, and stats read such a file as one
    plain-text note of JSON."""
    import subprocess
    import sys
    spans = tmp_path / "p.jsonl"
    spans.write_text('{"doc": "a", "start": 0, "end": 3, "type": "DATE"}\n')
    assert main(["stats", str(spans)]) == 2
    assert "not a corpus" in capsys.readouterr().err
    (tmp_path / "n.ann").write_text("T1\tDATE 0 3\tabc\n")
    assert main(["evaluate", str(tmp_path / "n.ann"), str(spans)]) == 2
    assert "BRAT .ann files are written for review" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["synth", "--records", "2", "--out", str(tmp_path / "s.jsonl"), "--format", "jsonl"])
    assert not (tmp_path / "s.jsonl").exists()
    ran = subprocess.run([sys.executable, "-m", "itdeid", "--version"], capture_output=True, text=True)
    assert ran.returncode == 0 and ran.stdout.startswith("itdeid ")


def test_tag_refuses_to_write_over_its_input(tmp_path, capsys):
    """`tag M corpus.xml --out corpus.xml` replaced a gold corpus with predictions."""
    docs = tiny_corpus(4, seed=3)
    write_i2b2_2006(docs, tmp_path / "c.xml")
    before = (tmp_path / "c.xml").read_bytes()
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.txt").write_text("Seen by Dr. Walker .\n")
    for given, out, said in (("c.xml", "c.xml", "the input or inside the input folder"),
                             ("notes", "notes/p.jsonl", "the input or inside the input folder"),
                             ("c.xml", "notes", "a folder")):
        assert main(["tag", "unused-model", str(tmp_path / given), "--out", str(tmp_path / out)]) == 2
        assert said in capsys.readouterr().err
    assert (tmp_path / "c.xml").read_bytes() == before


def test_stats_and_evaluate_write_their_files_before_the_table(tmp_path, monkeypatch):
    """'itdeid stats C --json F | head' wrote no F: the table went first, and the reader that
    closed the pipe ended the run before the file was written."""
    import builtins
    docs = tiny_corpus(3, seed=8)
    write_i2b2_2006(docs, tmp_path / "gold.xml")

    def closed_pipe(*args, **kwargs):
        raise BrokenPipeError
    monkeypatch.setattr(builtins, "print", closed_pipe)
    for argv in (["stats", str(tmp_path / "gold.xml"), "--json", str(tmp_path / "s.json")],
                 ["evaluate", str(tmp_path / "gold.xml"), str(tmp_path / "gold.xml"),
                  "--json", str(tmp_path / "e.json"), "--csv", str(tmp_path / "e.csv")]):
        try:
            main(argv)
        except (BrokenPipeError, SystemExit):
            pass
    assert all((tmp_path / name).stat().st_size for name in ("s.json", "e.json", "e.csv"))


def test_a_predicted_span_past_the_note_names_its_file(tmp_path, capsys):
    docs = tiny_corpus(2, seed=8)
    write_i2b2_2006(docs, tmp_path / "gold.xml")
    spans = tmp_path / "pred.jsonl"
    spans.write_text(f'{{"doc": "{docs[0].id}", "start": 3, "end": 99999, "type": "DATE"}}\n')
    assert main(["evaluate", str(tmp_path / "gold.xml"), str(spans)]) == 2
    err = capsys.readouterr().err
    assert str(spans) in err and "ends past the gold note's text" in err


def test_a_corpus_whose_notes_name_no_patient_is_said_to_be(tmp_path, caplog):
    """A black-box test: an i2b2 2006 file without PATIENT attributes counted every note as its
    own patient, and train and cv said nothing while their folds mixed a patient's notes."""
    docs = tiny_corpus(6, seed=4)
    write_i2b2_2006(docs, tmp_path / "with.xml")
    for d in docs:
        d.patient = None
    write_i2b2_2006(docs, tmp_path / "without.xml")
    for name, said in (("with.xml", False), ("without.xml", True)):
        caplog.clear()
        assert main(["cv", str(tmp_path / name), "--folds", "2", "--rows", "BASELINE",
                     "--out", str(tmp_path / f"cv-{name}")]) == 0
        assert ("no note names its patient" in caplog.text) is said
