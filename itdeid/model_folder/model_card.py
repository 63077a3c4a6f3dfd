"""MODEL_CARD.md, written by the command that trains a preset, never by hand.

A model card that someone edits drifts from the model (a hand-edited card can quote the numbers
of other models and settings). So :func:`write_model_card` writes every line from what the run
knows (data, settings, date, machine, commit, training time, size, the scores of *this* model on
the hand-written held-out notes) and from the committed results files it cites (the recipe's
10-fold cross-validation on PhysioNet, its speed, its misses by class), each number copied
with the file it came from, so ``tests/test_model_card.py`` can check that the shipped card
still says what those files say. A results file that is not there (an installed copy, a
foreign checkout) is named as missing rather than guessed.

The held-out scores are the model's *and the code's*: a later change to how spans are cut
moves them with the same model files (a rule dropping spans of punctuation alone changes
the predicted spans of the same model). So the card says which code scored them,
the test scores the shipped model again with the code of the day, and
``experiments/card_scores.py`` rewrites the scored part of the card (held-out scores and the
quoted results files, :func:`scored_lines`) when a change or a rerun of the results moves it on
purpose.
"""
from __future__ import annotations

import datetime as _dt
import re
from pathlib import Path

#: The results files a card cites (paths from the repository root), what each gives, and the
#: command that rebuilds it (in the file itself).
CV_RESULTS = Path("experiments/results/g-levers/thresholds-recipe-rules.md")
SPEED_RESULTS = Path("experiments/results/bench-recipe.md")
ERROR_RESULTS = Path("experiments/results/errors-physionet.md")
HELDOUT = Path("experiments/heldout/handwritten-discharge.xml")

WHAT_IS_KEPT = (
    "What the model files keep of the training notes (the privacy rule: nothing learned from a "
    "PHI occurrence): boosted trees over numeric features; trigger words seen next to PHI, "
    "with information gains counted over their ordinary occurrences; section-heading names "
    "made of such words; words seen 3 or more times and never as PHI; case counts and "
    "lexicon statistics (how often a word was ordinary text, how often its neighbour was PHI) "
    "of the ordinary occurrences of words seen outside PHI; the phrase-suffix list shipped in "
    "features/suffixes.json. A word that was only ever PHI in training is in no file of the "
    "model.")


def results_row(path: Path, first_cells: tuple[str, ...]) -> dict[str, str] | None:
    """The first row of a markdown table in ``path`` whose first cells are ``first_cells``, as
    column -> cell, or None when the file or the row is not there."""
    if not path.is_file():
        return None
    header = None
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("|"):
            header = None                   # a table ends where its lines do
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if header is None:
            header = cells
        elif tuple(cells[:len(first_cells)]) == first_cells and len(cells) == len(header):
            return dict(zip(header, cells))
    return None


def code_of(path: Path) -> str:
    """What a results file's ``- code:`` line says ('code: itdeid 0.1.0, git 1a2ecea'), or that
    it names no code."""
    line = next((line for line in path.read_text(encoding="utf-8").splitlines()
                 if line.startswith("- code:")), None)
    return line[2:] if line else "code not recorded"


def cv_lines(target: float) -> list[str]:
    """The card's cross-validation paragraph: the recipe's row at ``target`` in :data:`CV_RESULTS`."""
    row = results_row(CV_RESULTS, ("0.001", f"{target:.2f}"))
    if row is None:
        return [f"The recipe's 10-fold cross-validation (`{CV_RESULTS}`) was not found beside "
                "this run, so no CV score is quoted."]
    return [f"10-fold cross-validation grouped by patient on the PhysioNet split, out-of-fold, "
            f"the recipe as it tags (its rules after the decisions taken) at its target recall "
            f"{target:.2f} (`{CV_RESULTS}`, "
            f"{code_of(CV_RESULTS)}), percent:", "",
            "| binary token P | binary token R | binary token F | lowest fold R | PHI instances found "
            "| token 8-way F |",
            "|---|---|---|---|---|---|",
            f"| {row['binary P']} | {row['binary R']} | {row.get('binary F', '-')} | "
            f"{row['lowest fold R']} | {row['instances R']} | {row['8-way F']} |"] + by_class_lines(target)


def by_class_lines(target: float) -> list[str]:
    """The per-class section of :data:`CV_RESULTS` at ``target`` (its table and entity-relaxed
    line, as the file gives them), or nothing when the file has none."""
    text = CV_RESULTS.read_text(encoding="utf-8")
    heading = f"## By class at target {target:.2f}"
    if heading not in text:
        return []
    section = text.split(heading, 1)[1].split("\n## ", 1)[0]
    table = [line for line in section.splitlines() if line.startswith("|")]
    relaxed = [line for line in section.splitlines() if line.startswith("Entity relaxed")]
    return (["", "By class (token level, typed; PHI instances found of each class):", ""]
            + table + [""] + relaxed)


def speed_lines() -> list[str]:
    """The card's speed paragraph, from :data:`SPEED_RESULTS` (the recipe's bench run)."""
    one = results_row(SPEED_RESULTS, ("physionet-deid", "full pipeline", "1", "1"))
    two = results_row(SPEED_RESULTS, ("physionet-deid", "full pipeline", "4", "2"))
    peer = results_row(SPEED_RESULTS, ("physionet-deid", "deid.pl 1.1 (peer)", "1", "1"))
    if one is None or two is None:
        return [f"The speed benchmark (`{SPEED_RESULTS}`) was not found beside this run."]
    lines = [f"`itdeid deid` over the PhysioNet notes as one-note files (`{SPEED_RESULTS}`, "
             f"{code_of(SPEED_RESULTS)}; after start-up): "
             f"{one['tokens/s after startup']} tokens/s on one core, "
             f"{two['tokens/s after startup']} on two cores (4 copies of the notes)"]
    if peer is not None:
        lines[0] += (f"; deid.pl 1.1 in the same run: {peer['tokens/s after startup']} tokens/s "
                     "on one core")
    lines[0] += "."
    return lines


def weak_spot_lines() -> list[str]:
    """The card's known weak spots: the recipe's missed PHI instances by class, from
    :data:`ERROR_RESULTS` (counts only)."""
    if not ERROR_RESULTS.is_file():
        return [f"The error analysis (`{ERROR_RESULTS}`) was not found beside this run."]
    text = ERROR_RESULTS.read_text(encoding="utf-8")
    after = text.split("\n## ")[-1]
    summary = re.search(r"(\d+) of (\d+) gold instances missed, (\d+) false alarms", after)
    table = re.search(r"### Missed instances\n\n\| class \| count \|\n\|---\|---\|\n((?:\|.*\|\n)+)", after)
    if summary is None or table is None:
        return [f"`{ERROR_RESULTS}` has no table of missed instances."]
    by_class = ", ".join(f"{c.strip()} {n.strip()}" for c, n in
                         (line.strip("|").split("|") for line in table.group(1).strip().splitlines()))
    return [f"Out of fold on the PhysioNet split (`{ERROR_RESULTS}`, "
            f"{code_of(ERROR_RESULTS)}), the recipe missed "
            f"{summary.group(1)} of {summary.group(2)} gold PHI instances ({by_class}) and "
            f"raised {summary.group(3)} false alarms: it is tuned for recall, so expect "
            "ordinary words tagged as PHI (misspellings, unit names, capitalized words in "
            "all-caps notes), and look hardest at dates written as bare years ('92) and at "
            "multi-word place names."]


def heldout_report(model) -> str | None:
    """The evaluation report of ``model`` on the hand-written held-out notes (:data:`HELDOUT`,
    read from the working folder), or None where they are not there (an installed copy)."""
    if not HELDOUT.is_file():
        return None
    from itdeid.evaluation.evaluate import evaluate
    from itdeid.formats import read_corpus
    gold = read_corpus(HELDOUT)
    predicted = dict(zip((d.id for d in gold), model.predict(gold)))
    return evaluate(gold, predicted).format()


def heldout_lines(report: str | None) -> list[str]:
    """The card's held-out block: ``report`` with the command, date, machine and code that
    scored it (the training command, or ``experiments/card_scores.py`` when the card was
    rescored), so the block says how to score it again."""
    from itdeid.evaluation.report import code_version, command_line, machine
    if not report:
        return ["The held-out notes (`experiments/heldout`) were not found beside this run, so "
                "no held-out score was measured."]
    return [f"This model on the project's 12 hand-written held-out discharge notes (`{HELDOUT}`, "
            "never trained on), token level, percent; scored by `" + command_line() + "`, "
            f"{_dt.datetime.now().astimezone():%Y-%m-%d %H:%M %Z} on {machine()}, with {code_version()}:",
            "", "```", report, "```"]


def scored_lines(heldout: str | None, target: float | None) -> list[str]:
    """The card from its ``## Scores`` heading on: the held-out report (:func:`heldout_lines`),
    and what the cited results files say (cross-validation at ``target``, speed, misses)."""
    lines = ["## Scores", ""] + heldout_lines(heldout)
    if target is not None:
        lines += [""] + cv_lines(target)
    lines += ["", "## Speed", ""] + speed_lines()
    return lines + ["", "## Known weak spots", ""] + weak_spot_lines()


def write_model_card(out: Path, name: str, settings: dict, data: dict, seconds: float,
                     heldout: str | None, target: float | None, code: str | None = None) -> Path:
    """Write ``out/MODEL_CARD.md`` for preset ``name`` trained with ``settings`` on ``data``
    (corpus -> description) in ``seconds``; ``heldout`` is the evaluation report on the
    hand-written held-out notes (None: not found); ``code``: the code version that trained
    (:func:`~itdeid.evaluation.report.code_version` when it started; now by default)."""
    from itdeid.evaluation.report import code_version, command_line, machine

    size = sum(p.stat().st_size for p in Path(out).rglob("*") if p.is_file()) / 2 ** 20
    lines = [f"# itdeid model card: preset `{name}`", "",
             f"- trained: {_dt.datetime.now().astimezone():%Y-%m-%d %H:%M %Z}, in {seconds:.0f} s",
             f"- command: `{command_line()}`", f"- machine: {machine()}", f"- code: {code or code_version()}",
             f"- files: {size:.1f} MiB (JSON and gzip-compressed xgboost UBJSON; nothing runs code "
             "when loaded)", "",
             "## Training data", ""]
    lines += [f"- {corpus}: {text}" for corpus, text in data.items()]
    lines += ["", WHAT_IS_KEPT, "", "## Settings", "", "```"]
    lines += [f"{k} = {v!r}" for k, v in settings.items()]
    lines += ["```", ""] + scored_lines(heldout, target)
    path = Path(out) / "MODEL_CARD.md"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
