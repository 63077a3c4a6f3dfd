"""Tampered model folders: one line naming the file, exit status 2, never a traceback (issue F,
defect 8), through the library and through ``itdeid tag`` and ``itdeid deid``."""
import json
import shutil

import pytest

from itdeid.cli import main
from itdeid.estimators.deidentifier import Deidentifier
from itdeid.model_folder.load import load_model
from itdeid.errors import UserError
from itdeid.estimators.model import TokenModel

from helpers import tiny_corpus

PARAMS = dict(n_estimators=5, n_jobs=1, previous="gold", trigger_min_count=2)


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """A TokenModel folder and a Deidentifier folder, saved once."""
    root = tmp_path_factory.mktemp("models")
    docs = tiny_corpus(16, seed=4)
    TokenModel(**PARAMS).fit(docs).save(root / "token")
    Deidentifier(iterations=1, harvest="gold", min_heading_tokens=3, model_params=PARAMS).fit(docs).save(root / "system")
    return root


def _tampered(saved, tmp_path, kind: str, filename: str, change):
    folder = tmp_path / kind
    shutil.copytree(saved / kind, folder)
    path = folder / filename
    state = json.loads(path.read_text())
    change(state)
    path.write_text(json.dumps(state))
    return folder, path


TOKEN_MODEL_DAMAGE = {
    "n_estimators of the wrong type": lambda s: s["params"].update(n_estimators="many"),
    "window as a string": lambda s: s["params"].update(window="2"),
    "unknown parameter": lambda s: s["params"].update(exec="rm -rf /"),
    "unknown trigger variant": lambda s: s["params"].update(trigger=5),
    "unknown previous": lambda s: s["params"].update(previous="psychic"),
    "groups not a list": lambda s: s["params"].update(groups="basic"),
    "extractor missing": lambda s: s.pop("extractor"),
    "suffixes as a list": lambda s: s["extractor"].update(suffixes=["hospital"]),
    "suffix class out of range": lambda s: s["extractor"].update(suffixes={"hospital": 42}),
    "suffix class as a bool": lambda s: s["extractor"].update(suffixes={"hospital": True}),
    "trigger class out of range": lambda s: s["extractor"]["triggers"]["left"].update({"99": []}),
    "malformed trigger": lambda s: s["extractor"]["triggers"]["left"].update({"1": [[["x"], 0.1]]}),
    "case counts of the wrong type": lambda s: s["extractor"]["case_counts"].update(lower={"a": "b"}),
    "feature names changed": lambda s: s["feature_names"].pop(),
    "learner classes out of range": lambda s: s["learner"].update(classes=[0, 12]),
    "learner file elsewhere": lambda s: s["learner"].update(file="../../learner.ubj"),
    "learner params of the wrong type": lambda s: s["learner"]["params"].update(max_depth="deep"),
    # loaded, these once redacted nothing or everything without a word
    "learner classes without non-PHI": lambda s: s["learner"].update(
        classes=[c + 1 for c in s["learner"]["classes"]]),
    "learner replaced by a NaN prior": lambda s: s.update(learner={
        "params": s["learner"]["params"], "classes": list(range(9)), "prior": [float("nan")] * 9}),
    "learner replaced by a prior not summing to 1": lambda s: s.update(learner={
        "params": s["learner"]["params"], "classes": list(range(9)), "prior": [0.5] * 9}),
    "threshold entry dropped": lambda s: s.pop("threshold"),
    "threshold without a target recall": lambda s: s.update(threshold=0.2),
    # these loaded and then failed every note with a math or overflow error naming no file
    "negative case counts": lambda s: [d.__setitem__(k, -5) for d in s["extractor"]["case_counts"].values()
                                       for k in d],
    "case count past int64": lambda s: [d.__setitem__(k, 10 ** 30) for d in s["extractor"]["case_counts"].values()
                                        for k in d],
    "trigger offset outside the window": lambda s: s["extractor"]["triggers"]["left"].update(
        {"1": [[[0, "dr"], 0.1]]}),
    "trigger gain NaN": lambda s: s["extractor"]["triggers"]["left"].update({"1": [[[-1, "dr"], float("nan")]]}),
    "trigger min_count NaN": lambda s: s["extractor"]["triggers"].update(min_count=float("nan")),
    # entries itdeid never writes: each loaded, and a large one cost every worker its memory
    "unknown entry": lambda s: s.update(padding="x" * 1000),
    "unknown extractor entry": lambda s: s["extractor"].update(padding=["x"] * 1000),
    "unknown case counts entry": lambda s: s["extractor"]["case_counts"].update(padding={}),
    "unknown trigger lists entry": lambda s: s["extractor"]["triggers"].update(padding=1),
    "unknown learner entry": lambda s: s["learner"].update(padding="x"),
}


@pytest.mark.parametrize("damage", TOKEN_MODEL_DAMAGE, ids=list(TOKEN_MODEL_DAMAGE))
def test_tampered_token_model_is_one_error_naming_the_file(saved, tmp_path, damage):
    folder, path = _tampered(saved, tmp_path, "token", "model.json", TOKEN_MODEL_DAMAGE[damage])
    with pytest.raises(UserError) as error:
        TokenModel.load(folder)
    assert str(folder) in str(error.value) and "\n" not in str(error.value)


SYSTEM_DAMAGE = {
    "iterations as a string": lambda s: s["params"].update(iterations="1"),
    "unknown vote": lambda s: s["params"].update(vote="dictator"),
    "model params of the wrong type": lambda s: s["params"].update(model_params={"n_estimators": "x"}),
    "unknown trigger": lambda s: s["params"].update(triggers=["token", "magic"]),
    "headings not names": lambda s: s.update(headings=[1, 2]),
    "more iterations than models": lambda s: s["params"].update(iterations=3),
    "one trigger model under two_of_three": lambda s: s["params"].update(triggers=["token"]),
}


@pytest.mark.parametrize("damage", SYSTEM_DAMAGE, ids=list(SYSTEM_DAMAGE))
def test_tampered_system_is_one_error_naming_the_file(saved, tmp_path, damage):
    folder, path = _tampered(saved, tmp_path, "system", "deidentifier.json", SYSTEM_DAMAGE[damage])
    with pytest.raises(UserError) as error:
        load_model(folder)
    assert str(folder) in str(error.value) and "\n" not in str(error.value)


def test_system_with_a_swapped_member_model_is_refused(saved, tmp_path):
    folder = tmp_path / "system"
    shutil.copytree(saved / "system", folder)
    shutil.rmtree(folder / "itr1-token")
    shutil.copytree(folder / "itr0-token", folder / "itr1-token")
    with pytest.raises(UserError, match="itr1-token"):
        load_model(folder)


@pytest.mark.parametrize("command", ["tag", "deid"])
@pytest.mark.parametrize("damage", ["truncated learner", "bad parameter"])
def test_commands_report_a_damaged_model_in_one_line(saved, tmp_path, capsys, command, damage):
    folder = tmp_path / "model"
    shutil.copytree(saved / "token", folder)
    if damage == "truncated learner":
        ubj = folder / "learner.ubj.gz"
        ubj.write_bytes(ubj.read_bytes()[:100])
    else:
        state = json.loads((folder / "model.json").read_text())
        state["params"]["window"] = [2]
        (folder / "model.json").write_text(json.dumps(state))
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.txt").write_text("Seen by Dr. Walker on 3/4/2003 .\n")
    if command == "tag":
        argv = ["tag", str(folder), str(notes / "a.txt"), "--out", str(tmp_path / "p.jsonl")]
    else:
        argv = ["deid", str(notes), "--out", str(tmp_path / "out"), "--model", str(folder),
                "--workers", "1"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and str(folder) in err
    assert len([line for line in err.splitlines() if "error" in line]) == 1


@pytest.mark.parametrize("key, value", [("learner", "tree"), ("trigger", "ngram")])
def test_params_that_disagree_with_the_saved_learner_or_triggers_are_refused(tmp_path, key, value):
    """get_params must describe the model that tags: an edited name the files do not back is damage."""
    import json
    from itdeid.errors import UserError
    from itdeid.estimators.model import TokenModel
    from itdeid.synth import generate
    TokenModel(n_estimators=3, n_jobs=1).fit(generate(6, seed=1)).save(tmp_path / "m")
    state = json.loads((tmp_path / "m" / "model.json").read_text())
    state["params"][key] = value
    (tmp_path / "m" / "model.json").write_text(json.dumps(state))
    with pytest.raises(UserError, match=f"params.{key}"):
        TokenModel.load(tmp_path / "m")


def test_deid_refuses_two_of_three_over_a_system_of_two_trigger_models(saved, tmp_path, capsys):
    def two_recall_first(state):
        state["params"].update(triggers=state["params"]["triggers"][:2], vote="recall_first")
    folder, _ = _tampered(saved, tmp_path, "system", "deidentifier.json", two_recall_first)
    assert len(load_model(folder).triggers) == 2
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.txt").write_text("Seen by Dr. Walker on 3/4/2003 .\n")
    argv = ["deid", str(notes), "--out", str(tmp_path / "out"), "--model", str(folder), "--workers", "1"]
    assert main(argv + ["--vote", "two_of_three"]) == 2
    assert "two_of_three needs three trigger models" in capsys.readouterr().err
    assert main(argv) == 0


def test_an_xgboost_file_giving_nan_is_refused_at_load(saved, tmp_path):
    """A NaN base score (or leaf) loads in xgboost, and every token's P(PHI) was NaN: no PHI."""
    import gzip
    import xgboost
    folder = tmp_path / "token"
    shutil.copytree(saved / "token", folder)
    path = folder / "learner.ubj.gz"
    booster = xgboost.Booster()
    booster.load_model(bytearray(gzip.decompress(path.read_bytes())))
    state = json.loads(booster.save_raw("json"))
    state["learner"]["learner_model_param"]["base_score"] = "NaN"
    booster = xgboost.Booster()
    booster.load_model(bytearray(json.dumps(state).encode()))
    path.write_bytes(gzip.compress(booster.save_raw("ubj")))
    with pytest.raises(UserError, match="learner.ubj.gz: damaged xgboost model"):
        TokenModel.load(folder)


def test_answers_that_are_no_distribution_stop_the_run_naming_the_file():
    import numpy as np
    from itdeid.estimators.learners import checked_distribution
    good = np.full((2, 9), 1 / 9, dtype=np.float32)
    assert checked_distribution(good, "m") is good
    for bad in (np.full((2, 9), np.nan), np.zeros((2, 9)), np.full((2, 9), 1.0)):
        with pytest.raises(UserError, match="^m/learner.ubj.gz: damaged model"):
            checked_distribution(bad, "m/learner.ubj.gz")


def test_a_tree_file_with_a_leaf_of_no_weight_is_refused(tmp_path):
    from itdeid.estimators.plain_trees import PlainTrees
    data = {"kind": "PlainTrees", "format": 1, "n_classes": 2, "n_features": 1, "weights": None,
            "trees": [{"children_left": [1, -1, -1], "children_right": [2, -1, -1], "feature": [0, 0, 0],
                       "threshold": [0.5, 0, 0], "value": [[1, 1], [0, 0], [1, 0]]}]}
    with pytest.raises(UserError, match="a leaf of no class weight"):
        PlainTrees.from_json(data, tmp_path / "learner.json")


ENSEMBLE_DAMAGE = {
    "threshold null": lambda s: s.update(threshold=None),
    "threshold entry dropped": lambda s: s.pop("threshold"),
    "a member left out": lambda s: s.update(members=s["members"][1:]),
    "a member twice": lambda s: s.update(members=[s["members"][0]] * 2),
    "more members than trained": lambda s: s.update(members=[f"member-{k}" for k in range(40)]),
    "unknown entry": lambda s: s.update(padding="x" * 1000),
}


@pytest.fixture(scope="module")
def saved_ensemble(tmp_path_factory):
    from itdeid.estimators.ensemble import InnerEnsemble
    folder = tmp_path_factory.mktemp("ensemble") / "ensemble"
    InnerEnsemble(TokenModel(n_estimators=3, n_jobs=1, previous="none"), folds=2,
                  target_recall=0.9).fit(tiny_corpus(12, seed=4)).save(folder)
    return folder


@pytest.mark.parametrize("damage", ENSEMBLE_DAMAGE, ids=list(ENSEMBLE_DAMAGE))
def test_tampered_ensemble_is_one_error_naming_the_file(saved_ensemble, tmp_path, damage):
    """Each of these loaded and tagged otherwise: at argmax (far fewer names found) or with
    members the threshold was not learned for."""
    folder = tmp_path / "ensemble"
    shutil.copytree(saved_ensemble, folder)
    path = folder / "ensemble.json"
    state = json.loads(path.read_text())
    ENSEMBLE_DAMAGE[damage](state)
    path.write_text(json.dumps(state))
    with pytest.raises(UserError) as error:
        load_model(folder)
    assert str(path) in str(error.value) and "\n" not in str(error.value)


def test_a_member_folder_linked_from_outside_is_refused(saved_ensemble, tmp_path):
    folder = tmp_path / "ensemble"
    shutil.copytree(saved_ensemble, folder)
    shutil.move(folder / "member-1", tmp_path / "elsewhere")
    (folder / "member-1").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(UserError, match="member-1: a link out of the model folder"):
        load_model(folder)


def test_model_state_files_are_read_within_limits(tmp_path):
    from itdeid.model_folder.model_files import read_json_file
    path = tmp_path / "model.json"
    path.write_text('{"kind": "TokenModel"}')
    with pytest.raises(UserError, match="model.json: 22 bytes, over the 10 bytes a model file may "
                                        "have; not a model file"):
        read_json_file(path, limit=10)
    path.write_bytes(b'{"kind": "\xff"}')
    with pytest.raises(UserError, match="model.json: cannot read \\(not UTF-8 text\\)"):
        read_json_file(path)


def test_a_model_path_that_is_a_file_says_so(saved, tmp_path, capsys):
    (tmp_path / "model").write_text("x")
    with pytest.raises(UserError, match="model: not a folder; give the model's folder"):
        load_model(tmp_path / "model")


def test_a_saved_lexicon_holds_counts_only():
    from itdeid.featurize.lexicon import Lexicon
    row = [0] * 17
    assert Lexicon.from_dict({"tokens": 3, "table": {"foley": row}}).tokens == 3
    for bad in ({"tokens": -1, "table": {}}, {"tokens": True, "table": {}},
                {"tokens": 3, "table": {"foley": [10 ** 30] + row[1:]}},
                {"tokens": 3, "table": {"foley": row, "ativan": [True] + row[1:]}},
                {"tokens": 3, "table": {"foley": row, "ativan": row[:-1] + [-1]}},
                {"tokens": 3, "table": {"foley": row, "ativan": row[:-1] + [1.0]}},
                {"tokens": 3, "table": {"foley": row, "ativan": row[:-1]}},
                {"tokens": 3, "table": {"foley": row, "ativan": "x" * 17}}):
        with pytest.raises(ValueError, match="lexicon"):
            Lexicon.from_dict(bad)


def _with_digests(saved_ensemble, tmp_path):
    """A copy of the ensemble folder written as ``itdeid train`` writes one (model_out.replacing)."""
    from itdeid.model_folder.model_out import replacing
    folder = tmp_path / "ensemble"
    with replacing(folder) as fresh:
        shutil.copytree(saved_ensemble, fresh, dirs_exist_ok=True)
        (fresh / "MODEL_CARD.md").write_text("# card\n")
    return folder


def test_a_trained_folder_lists_its_files_digests_as_sha256sum_does(saved_ensemble, tmp_path):
    import subprocess
    folder = _with_digests(saved_ensemble, tmp_path)
    lines = (folder / "SHA256SUMS").read_text().splitlines()
    assert "member-1/model.json" in {line.split("  ", 1)[1] for line in lines}
    assert not any(line.endswith(("MODEL_CARD.md", "SHA256SUMS")) for line in lines)
    if shutil.which("sha256sum"):
        assert subprocess.run(["sha256sum", "--quiet", "-c", "SHA256SUMS"], cwd=folder).returncode == 0
    (folder / "MODEL_CARD.md").write_text("# rescored card\n")      # documentation: not listed
    load_model(folder)


@pytest.mark.parametrize("damage", ["member from another model", "file missing", "line outside",
                                    "line removed"])
def test_a_folder_that_differs_from_its_digests_is_refused_naming_the_file(saved_ensemble, tmp_path,
                                                                         damage):
    """Each of these is a well-formed model that loaded and tagged with trees other than the
    card's: a member copied from another training, an interrupted copy."""
    folder = _with_digests(saved_ensemble, tmp_path)
    member = folder / "member-1" / "model.json"
    if damage == "member from another model":
        member.write_text(member.read_text() + " ")     # still the same model: loads without the list
        expected = f"{member}: differs from its digest"
    elif damage == "file missing":
        member.unlink()
        expected = f"{member}: listed in SHA256SUMS but missing"
    elif damage == "line outside":
        with open(folder / "SHA256SUMS", "a") as handle:
            handle.write("0" * 64 + "  ../elsewhere.json\n")
        expected = f"{folder / 'SHA256SUMS'}:6: not a line"
    else:                   # the file then went unchecked
        listed = folder / "SHA256SUMS"
        listed.write_text("".join(line for line in listed.read_text().splitlines(keepends=True)
                                  if not line.endswith("member-1/model.json\n")))
        expected = f"{member}: a model file SHA256SUMS does not list"
    with pytest.raises(UserError, match="^" + expected.replace("(", r"\(")) as error:
        load_model(folder)
    assert "\n" not in str(error.value)
    (folder / "SHA256SUMS").unlink()        # a folder without digests loads as before
    if damage == "member from another model":
        load_model(folder)


@pytest.mark.parametrize("command", ["deid", "tag"])
def test_the_summary_names_the_model_its_digests_and_threshold_and_warns_without_digests(
        saved_ensemble, tmp_path, capsys, command):
    """Deleting SHA256SUMS turned the check off without a word, and an edited threshold then
    ran silently."""
    folder = _with_digests(saved_ensemble, tmp_path)
    listed = len((folder / "SHA256SUMS").read_text().splitlines())
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.txt").write_text("Seen by Dr. Walker on 3/4/2003 .\n")

    def run(out: str):
        argv = (["deid", str(notes), "--out", str(tmp_path / out), "--model", str(folder),
                 "--workers", "1"] if command == "deid" else
                ["tag", str(folder), str(notes / "a.txt"), "--out", str(tmp_path / f"{out}.jsonl")])
        assert main(argv) == 0
        return capsys.readouterr()

    learned = json.loads((folder / "ensemble.json").read_text())["threshold"]
    shown = run("checked")
    assert (f"model: {folder} (checked: {listed} files match SHA256SUMS); threshold "
            f"{learned:.4g} (the model's own)") in shown.out.splitlines()
    assert "SHA256SUMS" not in shown.err
    (folder / "SHA256SUMS").unlink()
    state = json.loads((folder / "ensemble.json").read_text())
    state["threshold"] = 0.9999
    (folder / "ensemble.json").write_text(json.dumps(state))
    shown = run("unchecked")
    assert (f"model: {folder} (NOT checked: no SHA256SUMS); threshold 0.9999 (the model's own)"
            in shown.out.splitlines())
    warnings = [line for line in shown.err.splitlines() if "no SHA256SUMS" in line]
    assert len(warnings) == 1 and "warning" in warnings[0] and str(folder) in warnings[0]


def test_digests_are_read_as_sha256sum_reads_them(saved_ensemble, tmp_path):
    """A trailing blank line, upper-case digests, a byte-order mark or a comment (each passing
    sha256sum -c), and JSON converted to CRLF line ends (git autocrlf) were refused; an empty
    list (a copy cut short) or a folder in its place turned the check off."""
    folder = _with_digests(saved_ensemble, tmp_path)
    listed = folder / "SHA256SUMS"
    original = listed.read_text()
    for variant in (original + "\n", original.upper().replace("  MEMBER", "  member").replace(
            "  ENSEMBLE.JSON", "  ensemble.json").replace("/MODEL.JSON", "/model.json")
            .replace("/LEARNER.UBJ.GZ", "/learner.ubj.gz").replace("/DETECTOR/", "/detector/")
            .replace("/TYPER/", "/typer/").replace("  CONTEXT-", "  context-"),
            "\ufeff" + original, "# written by itdeid train\n" + original):
        listed.write_text(variant, encoding="utf-8")
        load_model(folder)
    listed.write_text(original)
    from itdeid.model_folder import model_digests
    state = folder / "ensemble.json"
    state.write_text(json.dumps(json.loads(state.read_text()), indent=1))    # lines to convert
    model_digests.write(folder)
    state.write_bytes(state.read_bytes().replace(b"\n", b"\r\n"))
    load_model(folder)                                  # only line ends changed: the same model
    for damage in ("empty", "folder"):
        listed.unlink()
        listed.write_text("") if damage == "empty" else listed.mkdir()
        with pytest.raises(UserError, match="SHA256SUMS: (lists no file|cannot read)"):
            load_model(folder)
        if damage == "folder":
            listed.rmdir()


def _default_copy(tmp_path):
    """A copy of the shipped model folder without its SHA256SUMS (which would refuse an edit)."""
    from itdeid.resources import default_model_dir
    folder = tmp_path / "model"
    shutil.copytree(default_model_dir(), folder)
    (folder / "SHA256SUMS").unlink()
    return folder


def _deid_error(tmp_path, capsys, folder) -> str:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.txt").write_text("Seen by Dr. Walker on 3/4/2003 .\n")
    argv = ["deid", str(notes), "--out", str(tmp_path / "out"), "--model", str(folder),
            "--workers", "1"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if "error" in line]
    assert "Traceback" not in err and len(errors) == 1
    return errors[0]


def test_deid_refuses_a_model_file_with_an_entry_itdeid_never_writes(tmp_path, capsys):
    """A member's model.json padded with an unknown entry loaded, and every worker held it."""
    folder = _default_copy(tmp_path)
    member = folder / "member-2" / "model.json"
    state = json.loads(member.read_text())
    state["comment"] = "x" * 100_000
    member.write_text(json.dumps(state))
    line = _deid_error(tmp_path, capsys, folder)
    assert f"{member}: unknown entry 'comment' in the file" in line and "xxx" not in line


@pytest.mark.parametrize("name", ["member-0/model.json", "member-0/detector/learner.ubj.gz"])
def test_deid_refuses_a_model_file_over_the_size_cap_before_reading_it(tmp_path, capsys,
                                                                       monkeypatch, name):
    """Model files were read up to 256 MiB each (the shipped ones are under 1 MB); the file
    here is sparse, and opening it at all would fail the test."""
    import builtins
    import pathlib
    folder = _default_copy(tmp_path)
    path = folder / name
    with open(path, "r+b") as handle:
        handle.truncate(65 << 20)
    real_open, real_read = builtins.open, pathlib.Path.read_bytes

    def guarded_open(file, *args, **kwargs):
        assert str(file) != str(path), "the oversized file was opened"
        return real_open(file, *args, **kwargs)

    def guarded_read(self):
        assert self != path, "the oversized file was read"
        return real_read(self)
    monkeypatch.setattr(builtins, "open", guarded_open)
    monkeypatch.setattr(pathlib.Path, "read_bytes", guarded_read)
    line = _deid_error(tmp_path, capsys, folder)
    assert f"{path}: 65.0 MiB, over the 64.0 MiB a model file may have" in line
