"""Shared test fixtures: the location of ../shared and small helpers."""
import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("ITDEID_SHARED", REPO.parent / "shared"))
PHYSIONET = SHARED / "corpora" / "physionet-deid"


def _physionet_present() -> bool:
    return (PHYSIONET / "id.text").is_file() and (PHYSIONET / "id-phi.phrase").is_file()


def pytest_report_header(config):
    """One line at the top of every run: whether the PhysioNet tests can run, and where they looked."""
    if _physionet_present():
        return f"PhysioNet deid split: {PHYSIONET}"
    return (f"PhysioNet deid split: absent at {PHYSIONET}; its tests are skipped "
            "(set ITDEID_SHARED to the folder holding corpora/physionet-deid)")


@pytest.fixture(scope="session")
def physionet_dir() -> Path:
    """The shared PhysioNet deid developer split; skips the test where it is absent."""
    if not _physionet_present():
        pytest.skip(f"PhysioNet deid split not found at {PHYSIONET} "
                    "(set ITDEID_SHARED to the folder holding corpora/physionet-deid)")
    return PHYSIONET
