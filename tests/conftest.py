"""Shared test fixtures: the location of ../shared and small helpers."""
import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("ITDEID_SHARED", REPO.parent / "shared"))
PHYSIONET = SHARED / "corpora" / "physionet-deid"


@pytest.fixture(scope="session")
def physionet_dir() -> Path:
    """The shared PhysioNet deid developer split; skips the test where it is absent."""
    if not (PHYSIONET / "id.text").is_file() or not (PHYSIONET / "id-phi.phrase").is_file():
        pytest.skip(f"PhysioNet deid split not found at {PHYSIONET} "
                    "(set ITDEID_SHARED to the folder holding corpora/physionet-deid)")
    return PHYSIONET
