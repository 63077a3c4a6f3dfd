"""SIGTERM and SIGINT in the command line: raised as Terminated and KeyboardInterrupt, but
never inside xgboost's ctypes callbacks, where an exception corrupted xgboost's heap (a
SIGTERM while training once aborted with status 134)."""
import os
import signal
import sys

import pytest

import itdeid.cli as cli


def _as_if_in(name: str, filename: str, signum: int):
    """Call cli._stop from a function ``name`` compiled as if from ``filename``."""
    namespace = {"stop": cli._stop, "sys": sys, "signum": signum}
    exec(compile(f"def {name}():\n    stop(signum, sys._getframe())\n", filename, "exec"), namespace)
    namespace[name]()


def test_a_stop_inside_an_xgboost_callback_is_sent_again_later(monkeypatch):
    started = []

    class Timer:
        def __init__(self, seconds, function, args):
            started.append((seconds, function, args))

        def start(self):
            pass

    monkeypatch.setattr(cli.threading, "Timer", Timer)
    callback = os.path.join(os.sep, "lib", "xgboost", "core.py")
    _as_if_in("_next_wrapper", callback, signal.SIGTERM)          # no exception inside
    assert started == [(cli.RETRY_SECONDS, os.kill, (os.getpid(), signal.SIGTERM))]
    with pytest.raises(cli.Terminated):
        _as_if_in("train", callback, signal.SIGTERM)              # xgboost's Python, not a callback
    with pytest.raises(KeyboardInterrupt):
        _as_if_in("_next_wrapper", os.path.join(os.sep, "lib", "other", "x.py"), signal.SIGINT)
