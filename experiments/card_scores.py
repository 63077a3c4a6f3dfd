"""Score a model folder on the hand-written held-out notes again and rewrite its card's scored
part: the held-out report and what the results files it cites say now (cross-validation,
speed, misses). What the training command wrote above ``## Scores`` is left as it is.

    python experiments/card_scores.py itdeid/models/default

Run from the repository root (the held-out notes and the results files are read from there)
after a change that moves the shipped model's output on purpose, or after the cited results were
rerun (experiments/reproduce.py ends with it): tests/test_model_card.py scores the shipped model
with the code of the day, and checks the card quotes the results files as they are.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from itdeid.model_folder import model_card
from itdeid import load_model

from common import run_script


def rescore(folder: Path, model) -> Path:
    """Score ``model`` (loaded from ``folder``) on the held-out notes again and rewrite
    ``folder``'s card from its ``## Scores`` heading on (:func:`itdeid.model_folder.model_card.scored_lines`,
    the cited results files as they are now), leaving what the training wrote above it as it is.
    (Moved from itdeid.model_folder.model_card: only this script calls it.)"""
    path = Path(folder) / "MODEL_CARD.md"
    head, heading, _ = path.read_text(encoding="utf-8").partition("\n## Scores\n")
    if not heading:
        raise ValueError(f"{path}: no '## Scores' section to rewrite")
    lines = model_card.scored_lines(model_card.heldout_report(model), getattr(model, "target_recall", None))
    path.write_text(head + "\n" + "\n".join(lines) + "\n", encoding="utf-8")
    return path


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", type=Path, help="a model folder with a MODEL_CARD.md")
    args = parser.parse_args(argv)
    if not model_card.HELDOUT.is_file():
        parser.error(f"{model_card.HELDOUT}: not here; run from the repository root")
    if not (args.model / "MODEL_CARD.md").is_file():
        parser.error(f"{args.model}: no MODEL_CARD.md")
    print(rescore(args.model, load_model(args.model)))
    return 0


if __name__ == "__main__":
    run_script(main, "card_scores.py")
