"""Score a model folder on the hand-written held-out notes again and rewrite its card's held-out
block (the rest of the card is left as the training command wrote it).

    python experiments/card_scores.py itdeid/models/default

Run from the repository root (the held-out notes are read from experiments/heldout) after a
change that moves the shipped model's output on purpose: tests/test_model_card.py scores the
shipped model with the code of the day and fails while its card quotes another code's scores.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from itdeid import model_card                                   # noqa: E402
from itdeid.deidentifier import load_model                      # noqa: E402
from itdeid.errors import run_script  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", type=Path, help="a model folder with a MODEL_CARD.md")
    args = parser.parse_args(argv)
    if not model_card.HELDOUT.is_file():
        parser.error(f"{model_card.HELDOUT}: not here; run from the repository root")
    if not (args.model / "MODEL_CARD.md").is_file():
        parser.error(f"{args.model}: no MODEL_CARD.md")
    print(model_card.rescore(args.model, load_model(args.model)))
    return 0


if __name__ == "__main__":
    run_script(main, "card_scores.py")
