"""The package a checkout builds holds this checkout's files only."""
import subprocess
import sys
from pathlib import Path

import pytest

SETUP = Path(__file__).resolve().parents[1] / "setup.py"


@pytest.mark.skipif(not SETUP.is_file(), reason="no setup.py beside tests/ (not a checkout)")
def test_a_build_leaves_out_files_an_earlier_build_left(tmp_path):
    """pip builds a checkout in place: an old model's files left in build/lib by an earlier
    install were packed beside the new model, whose SHA256SUMS does not list them, and the
    installed default model refused to load."""
    pytest.importorskip("setuptools")
    lib = tmp_path / "lib"
    stale = lib / "itdeid" / "models" / "default" / "deidentifier.json"
    stale.parent.mkdir(parents=True)
    stale.write_text("{}")
    subprocess.run([sys.executable, str(SETUP), "-q", "build_py", "--build-lib", str(lib)],
                   cwd=SETUP.parent, check=True, capture_output=True)
    assert (lib / "itdeid" / "models" / "default" / "SHA256SUMS").is_file()
    assert not stale.exists()
