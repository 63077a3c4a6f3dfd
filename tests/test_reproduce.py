"""experiments/reproduce.py, the one command that rebuilds the cited results: its steps are the
commands the committed results files (and the shipped card) say made them."""
import runpy
from pathlib import Path

import pytest

from helpers import EXPERIMENTS, script_functions

REPO = Path(__file__).resolve().parent.parent
reproduce = script_functions("reproduce.py")

#: The file each step writes, whose '- command:' line names the command that wrote it.
WRITES = {"thresholds": "experiments/results/g-levers/thresholds-recipe-rules.md",
          "errors": "experiments/results/errors-physionet.md",
          "peers": "experiments/results/peers.md",
          "model": "itdeid/models/default/MODEL_CARD.md",
          "bench": "experiments/results/bench-recipe.md"}


def recorded_command(path: Path) -> str:
    line = next(line for line in path.read_text(encoding="utf-8").splitlines()
                if line.startswith("- command: `"))
    return line[len("- command: `"):-1]


@pytest.mark.parametrize("step", WRITES)
def test_each_step_is_the_command_that_wrote_its_committed_file(step):
    import shlex
    commands = dict(reproduce["steps"](reproduce["DEFAULT_CORPUS"], 2))
    path = REPO / WRITES[step]
    if not path.is_file():
        pytest.skip(f"{WRITES[step]} is not in this copy")
    assert recorded_command(path) == shlex.join(commands[step])


def test_dry_run_lists_the_steps_from_the_one_asked(capsys):
    assert reproduce["main"](["--dry-run", "--from", "model"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[:3] for line in lines] == [
        ["itdeid", "train", "--preset"], ["python", "experiments/bench.py", "--corpus"],
        ["python", "experiments/card_scores.py", "itdeid/models/default"]]
    with pytest.raises(SystemExit):
        reproduce["main"](["--dry-run", "--from", "nothing"])


def test_importing_the_script_leaves_sys_path_alone():
    """reproduce.py put the checkout first on sys.path when a test imported it, and the batch
    tests' worker processes then imported itdeid from the source tree (no features/ inside):
    CI's installed copy failed every multi-worker test."""
    import sys
    saved = list(sys.path)
    before = [str(EXPERIMENTS)] + saved         # as python experiments/reproduce.py starts
    sys.path[:] = before
    try:
        runpy.run_path(str(EXPERIMENTS / "reproduce.py"))
        assert sys.path == before
    finally:
        sys.path[:] = saved


def test_the_recipe_rows_tag_as_the_recipe_does():
    """The row whose folds the cited results score is trained at the recipe's target and tags
    with its screen (session 40 moved the screen, and the rows with it)."""
    import sys
    from itdeid.training.recipe import RECIPE
    sys.path.insert(0, str(EXPERIMENTS))
    try:
        import common           # levers.py's rows
    finally:
        sys.path.remove(str(EXPERIMENTS))
    row = common.ROWS[reproduce["RECIPE_TAGGED"]]
    assert common.cache_name(reproduce["RECIPE_TAGGED"]) == f"{reproduce['RECIPE_ROW']}_SCREENS_OOF"
    assert row["target_recall"] == RECIPE["target_recall"] and row["screen"] == RECIPE["screen"]
    assert row.get("screen_rounds") == RECIPE["screen_rounds"]
    assert row["identifiers"] and row["join_gaps"] and row["subject_names"] and row["punctuation"]
