"""gazetteers/build.py rebuilds the word lists; from an installed copy it must not rewrite the
lists the installed model reads (it did: a user 'rebuilding' with other package versions
changed the model's input in place)."""
import pytest

from itdeid.gazetteers import build


def test_an_installed_copy_is_not_rewritten_without_out(tmp_path, monkeypatch, capsys):
    installed = tmp_path / "site-packages" / "itdeid" / "gazetteers"
    installed.mkdir(parents=True)
    monkeypatch.setattr(build, "HERE", installed)
    monkeypatch.setattr(build, "build_names", lambda: pytest.fail("began writing"))
    with pytest.raises(SystemExit) as stop:
        build.main([])
    assert stop.value.code == 2
    assert "pass --out DIR" in capsys.readouterr().err
    assert not list(installed.iterdir())


class Stop(Exception):
    """Ends a build after its first list: the other sources (the gazetteers extra) are not needed."""


def test_out_is_where_the_lists_go(tmp_path, monkeypatch):
    monkeypatch.setattr(build, "OUT", build.OUT)            # main sets it; restore it after
    path = None

    def names():
        nonlocal path
        path = build._write("first_names.tsv", "a test", ["Ann\tF\t1"], header="name\tsex\tweight")
        raise Stop
    monkeypatch.setattr(build, "build_names", names)
    with pytest.raises(Stop):
        build.main(["--out", str(tmp_path / "lists")])
    assert path == tmp_path / "lists" / "first_names.tsv" and path.read_text().endswith("Ann\tF\t1\n")
