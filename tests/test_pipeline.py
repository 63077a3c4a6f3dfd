"""The declared pipeline: README's copy of the list equals `itdeid pipeline`'s, every pass name is
unique, an unknown name is refused, and the shipped model runs every pass."""
import re
from pathlib import Path

import pytest

from itdeid.cli import main
from itdeid.pipeline import PASSES, check_skip, describe, group_names, pass_names, switches

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_lists_the_pipeline_as_itdeid_pipeline_prints_it(capsys):
    found = re.search(r"<!-- itdeid pipeline: begin -->\n```\n(.*?)```\n<!-- itdeid pipeline: end -->",
                      README.read_text(encoding="utf-8"), re.S)
    assert found, "README has no generated pipeline section"
    assert main(["pipeline"]) == 0
    printed = capsys.readouterr().out
    assert printed == describe()
    assert found.group(1) == printed, "README's pipeline list differs from `itdeid pipeline`: paste its output"


def test_pass_and_group_names_are_unique():
    names = pass_names()
    assert len(names) == len(set(names))
    assert len(group_names()) == len(set(group_names()))
    shared = set(names) & set(group_names())
    # a group and its only pass may share a name; no other overlap
    assert all(len(g.passes) == 1 and g.passes[0].name == g.name for g in PASSES if g.name in shared)


def test_an_unknown_pass_name_is_refused_with_the_known_ones(capsys):
    with pytest.raises(ValueError, match="capitalized_gaps"):
        check_skip(["no_such_pass"])
    assert main(["pipeline", "--skip-pass", "no_such_pass"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no_such_pass" in err


def test_the_shipped_model_runs_every_pass_but_its_presets_and_a_skipped_one_shows_off(capsys):
    from itdeid.training.presets import PRESETS
    preset_off = PRESETS["default"]["skip_passes"]
    assert main(["pipeline", "--model", "default", "--skip-pass", "regions"]) == 0
    out = capsys.readouterr().out
    assert out.count("[on]  ") == len(pass_names()) - 1 - len(preset_off)
    assert "[off] regions:" in out and all(f"[off] {name}:" in out for name in preset_off)


def test_a_model_keeps_the_passes_it_was_trained_to_skip_and_writes_none_otherwise(tmp_path):
    import json

    from helpers import tiny_corpus
    from itdeid.model_folder.load import load_model
    from itdeid.estimators.model import TokenModel
    docs = tiny_corpus(20)
    TokenModel(n_estimators=3, n_jobs=1, identifiers=True, skip_passes=("plain_shapes",)).fit(docs).save(tmp_path / "a")
    TokenModel(n_estimators=3, n_jobs=1, identifiers=True).fit(docs).save(tmp_path / "b")
    assert json.loads((tmp_path / "a" / "model.json").read_text())["params"]["skip_passes"] == ["plain_shapes"]
    assert "skip_passes" not in json.loads((tmp_path / "b" / "model.json").read_text())["params"]
    loaded = load_model(tmp_path / "a")
    assert loaded.skip_passes == ("plain_shapes",)
    state = [(p.name, on) for _, p, on in switches(loaded)]
    assert ("plain_shapes", False) in state and ("propagation", True) in state


def test_train_refuses_an_unknown_pass_before_reading_the_corpus(tmp_path, capsys):
    assert main(["train", str(tmp_path / "no-corpus"), "--out", str(tmp_path / "m"),
                 "--skip-pass", "no_such_pass"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--skip-pass" in err and "no_such_pass" in err
