"""The itdeid command line with pool workers that die on a chosen input, as if killed (kill -9,
the out-of-memory killer): tests/test_batch.py runs it in a subprocess. Pool workers are spawned
and import this script as their ``__main__``, so its replacement of the engine's
``process_units`` runs in them too; the library has no such hook.

``ITDEID_TEST_KILL_ON``: a worker handed a chunk with an input whose file name holds this text
kills itself with SIGKILL before tagging it. ``ITDEID_TEST_KILL_ONCE``: a path; when set, only
the first such worker does (it creates the file), so the input kills a worker once.
"""
import os
import signal
import sys

from itdeid.batch import engines

_process_units = engines.process_units


def _first_time(path: str) -> bool:
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return False
    return True


def process_units(chunk, *args, **kwargs):
    marker = os.environ.get("ITDEID_TEST_KILL_ON")
    if marker and any(marker in os.path.basename(unit.path) for unit in chunk):
        once = os.environ.get("ITDEID_TEST_KILL_ONCE")
        if not once or _first_time(once):
            os.kill(os.getpid(), signal.SIGKILL)
    return _process_units(chunk, *args, **kwargs)


engines.process_units = process_units

if __name__ == "__main__":
    from itdeid.cli import main
    sys.exit(main())
