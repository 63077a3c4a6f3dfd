"""The shipped MODEL_CARD.md was written by the command that trained the model (itdeid.model_folder.model_card)
and still says what the results files it cites say (issue J)."""
from pathlib import Path

import pytest

from itdeid.model_folder import model_card
from itdeid.model_folder.load import load_model
from itdeid.training.recipe import RECIPE
from itdeid.evaluation.report import machine
from itdeid.resources import default_model_dir

from helpers import script_functions

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def card(monkeypatch):
    monkeypatch.chdir(REPO)                      # the results files are cited from the checkout
    return (default_model_dir() / "MODEL_CARD.md").read_text(encoding="utf-8")


def test_card_quotes_the_cited_results_files_as_they_are_now(card):
    for part in (model_card.cv_lines(RECIPE["target_recall"]), model_card.speed_lines(),
                 model_card.weak_spot_lines()):
        assert "not found" not in part[0] and "has no table" not in part[0]
        assert "\n".join(part) in card, f"the card no longer matches {part[0][:80]}..."


def test_card_quotes_the_held_out_scores_the_code_of_the_day_gives(card):
    """The shipped model scored again now: a change that moves its output must rescore the card
    (``python experiments/card_scores.py itdeid/models/default``), or the card misleads."""
    report = model_card.heldout_report(load_model(default_model_dir()))
    assert report is not None
    assert f"```\n{report}\n```" in card, (
        "the shipped card's held-out scores are not what this code gives: "
        "run python experiments/card_scores.py itdeid/models/default")


def test_rescore_rewrites_the_scored_part_alone(tmp_path, monkeypatch):
    """experiments/card_scores.py's rescore."""
    rescore = script_functions("card_scores.py")["rescore"]
    monkeypatch.chdir(REPO)
    monkeypatch.setattr(model_card, "heldout_report", lambda model: "NEW REPORT")
    card = tmp_path / "MODEL_CARD.md"
    head = "# card\n\n- trained: then\n\n## Settings\n\nkept\n"
    card.write_text(head + "\n## Scores\n\nOLD REPORT\n\n## Speed\n\nold speed\n")
    rescore(tmp_path, model=type("M", (), {"target_recall": RECIPE["target_recall"]})())
    text = card.read_text()
    assert text.startswith(head + "\n## Scores\n") and "OLD" not in text and "old speed" not in text
    assert "```\nNEW REPORT\n```" in text and "scored by `" in text and "with itdeid " in text
    assert " on " + machine() + ", with itdeid " in text     # the block names how and where
    for part in (model_card.cv_lines(RECIPE["target_recall"]), model_card.speed_lines(),
                 model_card.weak_spot_lines()):
        assert "\n".join(part) in text
    card.write_text("# card without scores\n")
    with pytest.raises(ValueError, match="no '## Scores' section"):
        rescore(tmp_path, model=None)


def test_card_says_how_it_was_made(card):
    for line in ("- trained:", "- command: `itdeid train --preset default", "- machine:", "- code: itdeid",
                 "## Training data", "GPL 2.0", "## Settings", "learned threshold", "## Scores",
                 "held-out", "## Speed", "## Known weak spots"):
        assert line in card, line
    assert "with uncommitted changes" not in card       # trained from a committed state


def test_results_rows_are_read_from_their_tables(tmp_path):
    path = tmp_path / "r.md"
    path.write_text("# t\n\n| a | b | c |\n|---|---|---|\n| x | 1 | 2 |\n| y | 3 | 4 |\n\n"
                    "| a | b |\n|---|---|\n| y | 9 |\n")
    assert model_card.results_row(path, ("y",)) == {"a": "y", "b": "3", "c": "4"}
    assert model_card.results_row(path, ("z",)) is None
    assert model_card.results_row(tmp_path / "none.md", ("y",)) is None
