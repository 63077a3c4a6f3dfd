"""The ``itdeid`` command line: a thin layer over the library, one module a command.

Each command module defines ``add_parser(subparsers)`` (arguments and help) and ``run(args)``
(a call into the library, then printing). Failures the user can fix are raised as
:class:`itdeid.errors.UserError` and printed as one line with exit status 2, never a traceback.
SIGTERM (what batch schedulers and ``kill`` send) stops a command as Ctrl-C does, so a batch
ends its workers and keeps its manifest; it exits with status 143.
"""
from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
import threading
from contextlib import contextmanager

from itdeid import __version__
from itdeid.errors import UserError, printable

#: Command modules under itdeid.cli, in the order ``itdeid --help`` lists them.
COMMANDS = ("deid", "review", "adapt", "report", "synth", "stats", "evaluate", "train", "tag", "cv", "pipeline")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or of ``command`` alone: then only its module is imported.
    Every command's parser imported scikit-learn, pandas and the training code, some two
    seconds before a batch began, which ``itdeid deid``'s parent process, whose workers load
    the model, never uses."""
    parser = argparse.ArgumentParser(
        prog="itdeid",
        description="De-identify clinical notes: read corpora, train and apply the boosted-tree "
                    "PHI tagger, evaluate predictions.")
    parser.add_argument("--version", action="version", version=f"itdeid {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS if command is None else (command,):
        module = importlib.import_module(f"itdeid.cli.{name}")
        module.add_parser(subparsers)
    return parser


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the program is, as SIGINT raises KeyboardInterrupt."""


#: xgboost's functions that its C code calls back (ctypes): an exception raised inside one is
#: not caught there ("Exception ignored on calling ctypes callback") and the C side went on
#: with a half-built matrix, corrupting the heap (a SIGTERM while training aborted with 134).
_XGBOOST_CALLBACKS = frozenset(("_next_wrapper", "_reset_wrapper", "_log_callback"))
#: How long a stop that arrived inside such a callback waits before it is raised again.
RETRY_SECONDS = 0.05


def _inside_a_callback(frame) -> bool:
    while frame is not None:
        code = frame.f_code
        if code.co_name in _XGBOOST_CALLBACKS and f"{os.sep}xgboost{os.sep}" in code.co_filename:
            return True
        frame = frame.f_back
    return False


def _stop(signum, frame):
    """SIGTERM raises :class:`Terminated`, SIGINT KeyboardInterrupt, but never inside a C
    library's callback: there the signal is sent again a moment later."""
    if _inside_a_callback(frame):
        threading.Timer(RETRY_SECONDS, os.kill, (os.getpid(), signum)).start()
        return
    raise Terminated if signum == signal.SIGTERM else KeyboardInterrupt


@contextmanager
def _stops_as_interrupts():
    """SIGTERM and SIGINT handled by :func:`_stop` while the command runs (from the main thread
    only, where Python handles signals; SIGINT only where Python's own handler has it, so a
    background job that ignores it still does). Left to its default SIGTERM ended the process
    where it stood: worker pools went unshut and Python warned of leaked semaphores."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    handled = [signal.SIGTERM] + ([signal.SIGINT] if signal.getsignal(signal.SIGINT)
                                  is signal.default_int_handler else [])
    previous = {signum: signal.signal(signum, _stop) for signum in handled}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    # a command's own arguments need its parser only; anything else (no command, --help,
    # --version, a mistyped command) gets every command's, to list them
    parser = build_parser(argv[0]) if argv and argv[0] in COMMANDS else build_parser()
    args = parser.parse_args(argv)
    try:
        with _stops_as_interrupts():
            return args.run(args) or 0
    except UserError as error:
        print(f"itdeid {args.command}: error: {printable(str(error))}", file=sys.stderr)
        return 2
    except Terminated:
        print(f"itdeid {args.command}: stopped by SIGTERM", file=sys.stderr)
        return 128 + signal.SIGTERM
    except KeyboardInterrupt:
        print(f"itdeid {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 1
    except OSError as error:
        # a file the command reads or writes (an output path that is a folder, a missing
        # parent, no permission): its path and the system's reason, never a traceback
        where = f"{error.filename}: " if error.filename else ""
        print(printable(f"itdeid {args.command}: error: {where}{error.strerror or type(error).__name__}"),
              file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
