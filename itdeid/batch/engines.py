"""Where a batch's inputs are processed: in this process, a local process pool, or Dask. Each
engine takes the units to do and yields a :class:`~itdeid.batch.unit.UnitResult` a unit, in
completion order; the caller writes them.

Chunks. Inputs travel in chunks of consecutive files (at most :data:`CHUNK_FILES` files and
about :data:`CHUNK_BYTES` bytes), whose notes a worker tags in one call
(:func:`~itdeid.batch.unit.process_units`): a folder of short notes is then as fast as one long
file. Each file still gets its own result, outputs, manifest entry and error. A bigger call
shares more of its word lookups (a batch looks each distinct word up once) but holds more in
memory, and a run split into few chunks leaves workers idle while the last ones finish and loses
more to a kill: so a run gets chunks of :func:`chunk_files` files, at least
:data:`CHUNKS_A_WORKER` a worker where its files allow.

Parallelism. ``workers`` processes (default: all cores), each loading the model once and tagging
on one thread, with at most two chunks a worker in flight, so memory does not grow with the
number of files; ``workers=1`` runs in this process. Pool workers exit when this process dies, however it dies
(:func:`_exit_with_parent`). ``engine="dask"`` sends inputs to a Dask
cluster (``scheduler``, else a local one): its workers need itdeid installed, read the inputs by
absolute path (so they must see the same file system) and receive the surrogate key with each
task; results come back to this process to be written, so outputs are the same as with the
local engine.

Progress. Given a :class:`~itdeid.batch.progress.Progress`, an engine reports each chunk in flight
as a partial amount (bytes of its inputs tagged so far, :func:`process_units`) and drops it
once the chunk's results are back (the caller then counts its files done), so a bar moves
within a long file. Pool workers send their amounts back on a queue the parent reads between
waits (every :data:`PROGRESS_POLL_SECONDS`); Dask tasks send none (the bar moves as files
finish).
"""
from __future__ import annotations

import itertools
import logging
import multiprocessing
import os
import queue
import sys
from collections import deque
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Iterator

from itdeid.errors import UserError
from itdeid.batch.inputs import Unit
from itdeid.batch.settings import Settings, load_tagger
from itdeid.batch.tagging import LONG_NOTE_CHARS
from itdeid.batch.unit import UnitResult, process_units

#: Where the inputs are processed.
ENGINES = ("local", "dask")

#: Most files in a chunk. A chunk's notes share their tagging calls, and with the screen the
#: calls' fixed work (the later members' and the stage's tree calls on the few tokens the screen
#: passes, each distinct word of the call looked up) is a large share, so bigger chunks tag
#: faster for a little more memory; 128 takes most of the gain of 256 for less memory
#: (``experiments/results/chunk-sizes.md``).
CHUNK_FILES = 128
#: Fewest files in a chunk (unless :data:`CHUNK_FILES` is fewer).
MIN_CHUNK_FILES = 16
#: Chunks a worker gets at least, where the run's files allow (chunks of no fewer than
#: :data:`MIN_CHUNK_FILES` files): the tail where one worker finishes alone is then short.
CHUNKS_A_WORKER = 8
#: A chunk is closed once its files hold this many bytes (a single larger file is a chunk).
CHUNK_BYTES = LONG_NOTE_CHARS

#: Seconds the parent of a process pool waits for a chunk before reading workers' progress.
PROGRESS_POLL_SECONDS = 1.0

_WORKER_STATE: dict = {}


def chunk_files(n_files: int, workers: int) -> int:
    """Files a chunk of a run of ``n_files`` inputs on ``workers`` workers: :data:`CHUNK_FILES`,
    or fewer so that each worker gets :data:`CHUNKS_A_WORKER` chunks, but no fewer than
    :data:`MIN_CHUNK_FILES` files."""
    wanted = -(-max(n_files, 1) // (CHUNKS_A_WORKER * max(workers, 1)))
    return min(CHUNK_FILES, max(MIN_CHUNK_FILES, wanted))


def chunks(units: Iterator[Unit], max_files: int | None = None,
           max_bytes: int | None = None) -> Iterator[list[Unit]]:
    """Consecutive units in lists of at most ``max_files`` files and about ``max_bytes`` bytes
    (default :data:`CHUNK_FILES`, :data:`CHUNK_BYTES`; sizes from the file system, and a file
    that cannot be sized counts 0 and fails when read)."""
    max_files, max_bytes = max_files or CHUNK_FILES, max_bytes or CHUNK_BYTES
    chunk: list[Unit] = []
    size = 0
    for unit in units:
        try:
            unit_size = os.stat(unit.path).st_size
        except OSError:
            unit_size = 0
        if chunk and (len(chunk) >= max_files or size + unit_size > max_bytes):
            yield chunk
            chunk, size = [], 0
        chunk.append(unit)
        size += unit_size
    if chunk:
        yield chunk


#: Seconds between two checks of the watchdog that ends an orphaned worker.
ORPHAN_CHECK_SECONDS = 1.0


def _exit_with_parent(parent: int) -> None:
    """End this worker when the process that started it dies (``kill -9`` of ``itdeid deid``
    leaves nobody to shut the pool down, and each worker holds a model, some 240 MB). On Linux
    the kernel sends SIGKILL (``prctl(PR_SET_PDEATHSIG)``); everywhere, a daemon thread checks
    that the parent is still ours and exits otherwise (also covering a parent that died before
    the prctl call). Workers write nothing, so nothing is lost."""
    import signal
    import sys
    import threading
    import time
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            libc = ctypes.CDLL(None, use_errno=True)
            pr_set_pdeathsig = 1
            libc.prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass            # the watchdog below still works
    if os.getppid() != parent:
        os._exit(1)

    def watch():
        while os.getppid() == parent:
            time.sleep(ORPHAN_CHECK_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="itdeid-orphan-watchdog", daemon=True).start()


def _init_worker(settings: Settings, parent: int | None = None, progress=None) -> None:
    """Pool worker start: exit with the parent process (:func:`_exit_with_parent`), one thread
    a worker (so N workers do not each take every core; the learners predict on one thread
    anyway), the model loaded once, and the queue that takes its progress to the parent
    (``progress``, or None), which is never waited for at exit (progress may be lost, never
    block a worker).

    A model that cannot be loaded is not raised here: a pool whose initializer raises prints a
    traceback from every worker and breaks. It is kept and raised by the first chunk
    (:func:`_work`), which ends the run with that one message. The parent no longer loads the
    model to check it before starting the pool: that load, as long as a worker's, came before
    any worker started and lengthened every pool run by it."""
    if parent is not None:
        _exit_with_parent(parent)
    os.environ["OMP_NUM_THREADS"] = "1"
    try:
        _WORKER_STATE["tagger"] = load_tagger(settings)
    except UserError as error:
        # a plain UserError with the same message: a subclass with its own __init__ arguments
        # (FormatError) would not unpickle in the parent
        _WORKER_STATE["failed"] = UserError(str(error))
    _WORKER_STATE["settings"] = settings
    if progress is not None:
        progress.cancel_join_thread()
    _WORKER_STATE["progress"] = progress


def _work(chunk: list[Unit], key: int) -> list[UnitResult]:
    if "failed" in _WORKER_STATE:
        raise _WORKER_STATE["failed"]
    sent = _WORKER_STATE.get("progress")
    tell = None if sent is None else (lambda amount: sent.put((key, amount)))
    return process_units(chunk, _WORKER_STATE["settings"], *_WORKER_STATE["tagger"], progress=tell)


def run_inline(units: Iterator[Unit], settings: Settings, tagger,
               progress=None, max_files: int | None = None) -> Iterator[UnitResult]:
    """The units chunk after chunk (of at most ``max_files`` files) in this process, with the
    already loaded ``tagger``."""
    for key, chunk in enumerate(chunks(units, max_files)):
        tell = None if progress is None else (lambda amount, key=key: progress.partial(key, amount))
        results = process_units(chunk, settings, *tagger, progress=tell)
        if progress is not None:
            progress.drop(key)
        yield from results


def _read_progress(sent, progress, finished: set) -> None:
    """Hand the amounts the workers sent to ``progress``, but for chunks already finished."""
    while True:
        try:
            key, amount = sent.get_nowait()
        except (queue.Empty, OSError, ValueError):
            return
        if key not in finished:
            progress.partial(key, amount)


#: Why an input failed that a worker process died on twice, the second time with no other input
#: in flight (:func:`run_pool`).
_DIED = ("the worker process died while processing it (killed, or out of memory?), also when "
         "retried alone")
#: Breaks of the pool in a row, no input finished between them, that stop the batch: a pool
#: that cannot keep its workers alive (out of memory) rather than an input that kills one,
#: which breaks it three times at most (in its chunk, retried beside others, retried alone).
MAX_BREAKS = 4


#: The warning filter handed to multiprocessing's resource tracker (a process of its own that
#: outlives a killed itdeid): it frees the pool's semaphores either way, and said so in a
#: warning a user cannot act on.
_TRACKER_FILTER = "ignore:resource_tracker:UserWarning"


def _quiet_resource_tracker() -> None:
    """Start multiprocessing's resource tracker with its clean-up warning filtered: when itdeid
    is killed (kill -9, out of memory) the tracker frees the semaphores the pool's queues held,
    and without the filter prints "There appear to be N leaked semaphore objects" beneath the
    run's own lines. The tracker takes its ``-W`` options from ``sys.warnoptions`` when it is
    started, so the filter goes there first."""
    if _TRACKER_FILTER not in sys.warnoptions:
        sys.warnoptions.append(_TRACKER_FILTER)
    from multiprocessing import resource_tracker
    resource_tracker.ensure_running()


def run_pool(units: Iterator[Unit], settings: Settings, workers: int,
             progress=None, max_files: int | None = None) -> Iterator[UnitResult]:
    """A process pool with at most two chunks (of at most ``max_files`` files) a worker in flight
    (memory stays flat however many files).

    A worker that dies (killed, out of memory) breaks the pool, and every chunk in flight fails
    with no word of which input it was on. The pool is then shut down and started afresh, and
    those inputs are retried, each alone in its chunk, before any new chunk. An input in flight
    at a second break is retried once more with nothing else in flight, and fails
    (:data:`_DIED`) only if the pool breaks then too: so one input that kills its worker fails
    alone, and a worker killed once from outside fails nothing. :data:`MAX_BREAKS` breaks in a row
    stop the batch."""
    context = multiprocessing.get_context("spawn")     # no fork of a process with threads
    _quiet_resource_tracker()
    sent = None

    def start():
        nonlocal sent
        if progress is not None:
            # a fresh queue a pool: a worker killed while writing may leave the old one locked
            if sent is not None:
                sent.close()
            sent = context.Queue()
        return ProcessPoolExecutor(workers, mp_context=context, initializer=_init_worker,
                                   initargs=(settings, os.getpid(), sent))

    executor, pending, keys, breaks = start(), {}, {}, 0
    finished: set[int] = set()
    numbers = itertools.count()
    todo = chunks(units, max_files)
    again: deque[Unit] = deque()        # in flight at one break: retried one a chunk
    alone: deque[Unit] = deque()        # in flight at two: retried with nothing else in flight
    strikes: dict[str, int] = {}        # breaks each input was in flight at
    refused: list[Unit] | None = None   # a new chunk that a pool broken since the wait refused

    def next_chunk() -> tuple[list[Unit] | None, deque | None]:
        """The next chunk to send and the queue it came from (None for a new chunk)."""
        if alone:
            return (None, None) if pending else ([alone[0]], alone)
        if len(pending) >= 2 * workers:
            return None, None
        if again:
            return [again[0]], again
        return (refused, None) if refused is not None else (next(todo, None), None)

    try:
        while True:
            broke = False
            while True:
                chunk, source = next_chunk()
                if chunk is None:
                    break
                key = next(numbers)
                try:
                    future = executor.submit(_work, chunk, key)
                except BrokenProcessPool:       # it broke since the last wait: not sent
                    refused = chunk if source is None else refused
                    broke = True
                    break
                if source is not None:
                    source.popleft()
                elif chunk is refused:
                    refused = None
                pending[future], keys[future] = chunk, key
            if not pending and not broke:
                return
            if not broke:
                done, _ = wait(pending, return_when=FIRST_COMPLETED,
                               timeout=None if progress is None else PROGRESS_POLL_SECONDS)
                if progress is not None:
                    _read_progress(sent, progress, finished)
                broke = any(isinstance(future.exception(), BrokenProcessPool) for future in done)
                if not broke:
                    for future in done:
                        del pending[future]
                        _finished(keys.pop(future), finished, progress)
                        breaks = 0
                        yield from future.result()
                    continue
            # the pool is broken: shut it down (every future is then settled), keep the
            # results that came back, retry the inputs that were in flight, start a new one
            breaks += 1
            if breaks >= MAX_BREAKS:
                raise UserError(f"worker processes died {MAX_BREAKS} times in a row without "
                                "finishing an input (out of memory?); try fewer --workers")
            executor.shutdown(wait=True)
            in_flight = []
            for future, chunk in pending.items():
                _finished(keys[future], finished, progress)
                if future.done() and not future.cancelled() and future.exception() is None:
                    breaks = 0
                    yield from future.result()
                else:
                    in_flight += chunk
            pending.clear()
            keys.clear()
            executor = start()
            for unit in in_flight:
                strikes[unit.path] = strikes.get(unit.path, 0) + 1
                if strikes[unit.path] < 2:
                    again.append(unit)
                elif len(in_flight) > 1:
                    alone.append(unit)
                else:
                    yield UnitResult(unit, error=_DIED)
    except BaseException:
        # interrupted (Ctrl-C, SIGTERM) or stopped by the caller (--strict): the chunks in
        # flight would be thrown away, so their workers are ended rather than waited for (an
        # interrupt once waited seconds for results it then dropped)
        _end_workers(executor)
        raise
    finally:
        executor.shutdown(wait=True, cancel_futures=True)
        if sent is not None:
            sent.close()


def _finished(key: int, finished: set, progress) -> None:
    """Chunk ``key`` is back: its progress is dropped, and later amounts for it ignored."""
    finished.add(key)
    if progress is not None:
        progress.drop(key)


def _end_workers(executor: ProcessPoolExecutor) -> None:
    """Kill the pool's worker processes (Python 3.14's ``kill_workers``; before it, the pool's
    own table of them, which every version since 3.8 keeps). Workers write nothing, so
    nothing is lost; the inputs they held are not in the manifest and a rerun does them."""
    kill = getattr(executor, "kill_workers", None)
    if kill is not None:
        kill()
        return
    for process in list((getattr(executor, "_processes", None) or {}).values()):
        try:
            process.kill()
        except (OSError, ValueError):     # already gone, or closed
            pass


_DASK_CACHE: dict = {}


def _dask_work(chunk: list[Unit], settings: Settings) -> list[UnitResult]:
    """A Dask task: the model is loaded once a worker process (cached by its settings)."""
    key = (settings.model_dir, settings.model_sha256, settings.vote, settings.key)
    if key not in _DASK_CACHE:
        _DASK_CACHE[key] = load_tagger(settings)
    return process_units(chunk, settings, *_DASK_CACHE[key])


def import_distributed():
    """``dask.distributed``, or a :class:`UserError` naming the extra that installs it."""
    try:
        import distributed
    except ImportError:
        raise UserError("--engine dask needs dask.distributed: pip install 'itdeid[dask]'") from None
    return distributed


def run_dask(units: Iterator[Unit], settings: Settings, workers: int,
             scheduler: str | None, max_files: int | None = None) -> Iterator[UnitResult]:
    """The same units on a Dask cluster (``scheduler``, else a local one of ``workers``
    single-threaded workers), at most two chunks (of at most ``max_files`` files) a worker in
    flight."""
    distributed = import_distributed()
    cluster = None
    try:
        if scheduler:
            client = distributed.Client(scheduler)
        else:
            # one worker: threads in this process (in-process transport); more: processes
            # listening on loopback only
            where = {"processes": True, "host": "127.0.0.1"} if workers > 1 else {"processes": False}
            cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1,
                                               dashboard_address=None, silence_logs=logging.ERROR,
                                               **where)
            client = distributed.Client(cluster)
    except OSError as error:
        raise UserError(f"cannot reach the Dask scheduler {scheduler}: {error}") from None
    try:
        slots = 2 * max(1, len(client.scheduler_info().get("workers", {})) or workers)
        pending: dict = {}
        todo = chunks(units, max_files)
        while True:
            while len(pending) < slots:
                chunk = next(todo, None)
                if chunk is None:
                    break
                pending[client.submit(_dask_work, chunk, settings, pure=False)] = chunk
            if not pending:
                return
            done = distributed.wait(list(pending), return_when="FIRST_COMPLETED").done
            for future in done:
                chunk = pending.pop(future)
                try:
                    results = future.result()
                except Exception as error:  # noqa: BLE001 - a lost worker fails its chunk only
                    results = [UnitResult(unit, error=f"Dask task failed: {type(error).__name__}")
                               for unit in chunk]
                yield from results
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
