"""itdeid.evaluation.report: results files say which code made them."""


def test_code_version_names_the_checkout_itdeid_runs_from_not_the_working_folder(tmp_path, monkeypatch):
    """Run from inside another repository, results files named that repository's commit."""
    import subprocess

    from itdeid.evaluation import report
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t",
                    "commit", "-q", "--allow-empty", "-m", "other"], check=True)
    other = subprocess.run(["git", "-C", str(tmp_path), "rev-parse", "--short", "HEAD"],
                           capture_output=True, text=True, check=True).stdout.strip()
    monkeypatch.chdir(tmp_path)
    version = report.code_version()
    assert f"git {other}" not in version
    if (report._CHECKOUT / ".git").exists():        # a checkout: its own commit
        own = subprocess.run(["git", "-C", str(report._CHECKOUT), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, check=True).stdout.strip()
        assert f"git {own}" in version
    else:                                           # an installed copy has none
        assert "git" not in version


def test_the_checkout_is_the_folder_above_the_package():
    """Wherever report.py sits inside the package, the checkout it names is the one holding
    setup.py beside itdeid/ (an installed copy has none, and is left alone)."""
    from pathlib import Path

    import itdeid
    from itdeid.evaluation import report
    above = Path(itdeid.__file__).resolve().parent.parent
    if (above / "setup.py").is_file():
        assert report._CHECKOUT == above
    else:
        assert report._CHECKOUT == above or not (report._CHECKOUT / "setup.py").exists()
