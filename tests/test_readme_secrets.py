"""README's first command must not leave the secret key (or a rename map) where ``git add -A``
would commit it: the command's output folder lies outside the checkout, and the checkout's
.gitignore covers the secret files wherever a user points ``--out`` inside it."""
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from itdeid.batch.rename import MAP_SUFFIX
from itdeid.batch.settings import default_key_path

REPO = Path(__file__).resolve().parents[1]


def _main_command() -> list[str]:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    line = next(m.group(0) for m in re.finditer(r"^.*itdeid deid .*$", readme, re.M))
    words = shlex.split(line.split("&&")[-1])
    return words


def _ignored(path: Path) -> bool:
    """What git says of a path inside the checkout (``git check-ignore`` exits 0 when ignored)."""
    run = subprocess.run(["git", "-C", str(REPO), "check-ignore", "-q", "--no-index", str(path)],
                         capture_output=True)
    return run.returncode == 0


def _git_checkout() -> None:
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("not a git checkout with git on PATH: nothing could commit the key here")


def test_readme_main_command_keeps_its_key_out_of_the_checkout():
    _git_checkout()
    words = _main_command()
    out = Path(words[words.index("--out") + 1].rstrip("/")).expanduser()
    out = out if out.is_absolute() else REPO / out
    for secret in (default_key_path(out), out.with_name(out.name + MAP_SUFFIX)):
        inside = secret.resolve().is_relative_to(REPO.resolve())
        assert not inside or _ignored(secret), f"README's command writes {secret} into the checkout, unignored"


@pytest.mark.parametrize("name", ["out.itdeid-key", "deid.itdeid-key", "results/run.itdeid-key",
                                  "out.itdeid-rename-map.csv"])
def test_gitignore_covers_secret_files_anywhere_in_the_checkout(name):
    _git_checkout()
    assert _ignored(REPO / name), f".gitignore does not cover {name}"
