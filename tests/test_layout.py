"""The package's shape: a handful of modules at the top, the rest in packages by role."""
from pathlib import Path

import itdeid

TOP = {"__init__", "__main__", "errors", "document", "resources", "pipeline"}


def test_only_the_modules_a_reader_needs_first_sit_at_the_top():
    here = Path(itdeid.__file__).resolve().parent
    assert {p.stem for p in here.glob("*.py")} == TOP
