"""itdeid.batch.progress: a bar on a terminal, a plain line now and then elsewhere, never going back."""
import io
import re

from itdeid.batch.progress import Progress


class Terminal(io.StringIO):
    def isatty(self):
        return True


def _shares(text):
    return [int(x) for x in re.findall(r"\((\d+)%\)", text)]


def test_a_log_gets_plain_lines_that_never_go_back():
    log = io.StringIO()
    shown = Progress(1000, "itdeid deid", unit="B", items=2, stream=log, every=0)
    shown.partial("chunk", 300)
    shown.partial("chunk", 600)
    shown.drop("chunk")             # its files are counted done next: no step back meanwhile
    shown.done(500)
    shown.partial("next", 250)
    shown.done(500)
    shown.close()
    lines = log.getvalue().splitlines()
    assert all(line.startswith("itdeid deid: ") for line in lines)
    assert _shares(log.getvalue()) == sorted(_shares(log.getvalue()))
    assert _shares(lines[0]) == [30] and _shares(lines[-1]) == [100]
    assert "2 of 2 files" in lines[-1] and "1.00kB of 1.00kB" in lines[-1]
    assert len(lines) == len(set(lines))        # a line only when something changed


def test_lines_are_spaced_in_time_and_a_quick_run_writes_none():
    log = io.StringIO()
    shown = Progress(100, "itdeid tag", unit="char", stream=log, every=3600)
    for _ in range(10):
        shown.done(10, items=0)
    shown.close()
    assert log.getvalue() == ""


def test_characters_without_item_counts():
    log = io.StringIO()
    shown = Progress(2_000_000, "itdeid tag", unit="char", stream=log, every=0)
    shown.done(1_000_000, items=0)
    shown.close()
    first = log.getvalue().splitlines()[0]
    assert first.startswith("itdeid tag: 1.00M chars of 2.00M chars (50%), ")
    assert "notes" not in log.getvalue() and "files" not in log.getvalue()


def test_a_terminal_gets_a_bar_and_disabled_shows_nothing():
    screen = Terminal()
    shown = Progress(1000, "itdeid deid", unit="B", items=1, stream=screen, every=0)
    shown.partial(0, 400)
    shown.drop(0)
    shown.done(1000)
    shown.close()
    assert "itdeid deid" in screen.getvalue() and "100%" in screen.getvalue()
    assert "1 of 1 files" in screen.getvalue()
    quiet = Terminal()
    off = Progress(1000, "itdeid deid", stream=quiet, every=0, enabled=False)
    off.done(1000)
    off.close()
    assert quiet.getvalue() == ""
