"""The model shipped in the package: present in the installed copy, small, and README's main
command works with it on the shipped sample notes."""
from pathlib import Path

from itdeid.cli import main
from itdeid.deidentifier import load_model
from itdeid.resources import default_model_dir

SAMPLES = Path(__file__).resolve().parent.parent / "samples"


def test_default_model_is_installed_with_its_card():
    folder = default_model_dir()
    assert (folder / "deidentifier.json").is_file(), f"no default model at {folder}"
    card = (folder / "MODEL_CARD.md").read_text(encoding="utf-8")
    assert "## Training data" in card and "GPL 2.0" in card
    size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    assert size < 20 * 2 ** 20                      # issue D: keep it under 20 MB
    assert not list(folder.rglob("*.pkl")) and not list(folder.rglob("*.pickle"))
    load_model(folder)


def test_readme_main_command_on_the_samples(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["deid", str(SAMPLES), "--out", str(out), "--workers", "1"]) == 0
    names = sorted(p.name for p in out.iterdir() if not p.name.startswith("."))
    assert names == ["clinic-letter.redact.jsonl", "clinic-letter.txt", "discharge-summary.redact.jsonl",
                     "discharge-summary.txt", "nursing-note.redact.jsonl", "nursing-note.txt"]
    redacted = (out / "discharge-summary.txt").read_text(encoding="utf-8")
    assert "[**DATE**]" in redacted and "02/11/2009" not in redacted       # unmistakable PHI is gone
    assert "617-555-0143" not in (out / "nursing-note.txt").read_text(encoding="utf-8")
    assert "3 files done" in capsys.readouterr().out
