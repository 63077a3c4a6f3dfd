"""Where a batch's inputs are processed: in this process, a local process pool, or Dask. Each
engine takes the units to do and yields a :class:`~itdeid.batch.unit.UnitResult` a unit, in
completion order; the caller writes them.

Parallelism. ``workers`` processes (default: all cores), each loading the model once and tagging
on one thread, with at most two inputs a worker in flight, so memory does not grow with the
number of files; ``workers=1`` runs in this process. ``engine="dask"`` sends inputs to a Dask
cluster (``scheduler``, else a local one): its workers need itdeid installed, read the inputs by
absolute path (so they must see the same file system) and receive the surrogate key with each
task; results come back to this process to be written, so outputs are the same as with the
local engine.
"""
from __future__ import annotations

import logging
import multiprocessing
import os
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Iterator

from itdeid.errors import UserError
from itdeid.batch.inputs import Unit
from itdeid.batch.unit import UnitResult, process_unit
from itdeid.batch.settings import Settings, load_tagger

#: Where the inputs are processed.
ENGINES = ("local", "dask")

_WORKER_STATE: dict = {}


def _init_worker(settings: Settings) -> None:
    """Pool worker start: one thread a worker (so N workers do not each take every core; the
    learners predict on one thread anyway), and the model loaded once."""
    os.environ["OMP_NUM_THREADS"] = "1"
    _WORKER_STATE["tagger"] = load_tagger(settings)
    _WORKER_STATE["settings"] = settings


def _work(unit: Unit) -> UnitResult:
    return process_unit(unit, _WORKER_STATE["settings"], *_WORKER_STATE["tagger"])


def run_inline(units: Iterator[Unit], settings: Settings, tagger) -> Iterator[UnitResult]:
    """The units one after the other in this process, with the already loaded ``tagger``."""
    for unit in units:
        yield process_unit(unit, settings, *tagger)


_DIED = "the worker process ended abruptly (out of memory?); rerun to retry"


def run_pool(units: Iterator[Unit], settings: Settings, workers: int) -> Iterator[UnitResult]:
    """A process pool with at most two units a worker in flight (memory stays flat however many
    files). A dead worker fails the units in flight (a rerun retries them) and the pool is
    restarted; three deaths in a row stop the batch."""
    context = multiprocessing.get_context("spawn")     # no fork of a process with threads

    def start():
        return ProcessPoolExecutor(workers, mp_context=context, initializer=_init_worker,
                                   initargs=(settings,))

    executor, pending, breaks = start(), {}, 0
    try:
        while True:
            while len(pending) < 2 * workers:
                unit = next(units, None)
                if unit is None:
                    break
                pending[executor.submit(_work, unit)] = unit
            if not pending:
                return
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            broken = []
            for future in done:
                unit = pending.pop(future)
                try:
                    result = future.result()
                except BrokenProcessPool:
                    broken.append(unit)
                    continue
                breaks = 0
                yield result
            if broken:
                breaks += 1
                if breaks >= 3:
                    raise UserError("worker processes died three times in a row without "
                                    "finishing an input (out of memory?); try fewer --workers")
                broken += list(pending.values())
                pending.clear()
                executor.shutdown(wait=False, cancel_futures=True)
                executor = start()
                for unit in broken:
                    yield UnitResult(unit, error=_DIED)
    finally:
        executor.shutdown(wait=True, cancel_futures=True)


_DASK_CACHE: dict = {}


def _dask_work(unit: Unit, settings: Settings) -> UnitResult:
    """A Dask task: the model is loaded once a worker process (cached by its settings)."""
    key = (settings.model_dir, settings.model_sha256, settings.vote, settings.key)
    if key not in _DASK_CACHE:
        _DASK_CACHE[key] = load_tagger(settings)
    return process_unit(unit, settings, *_DASK_CACHE[key])


def import_distributed():
    """``dask.distributed``, or a :class:`UserError` naming the extra that installs it."""
    try:
        import distributed
    except ImportError:
        raise UserError("--engine dask needs dask.distributed: pip install 'itdeid[dask]'") from None
    return distributed


def run_dask(units: Iterator[Unit], settings: Settings, workers: int,
             scheduler: str | None) -> Iterator[UnitResult]:
    """The same units on a Dask cluster (``scheduler``, else a local one of ``workers``
    single-threaded workers), at most two units a worker in flight."""
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
        while True:
            while len(pending) < slots:
                unit = next(units, None)
                if unit is None:
                    break
                pending[client.submit(_dask_work, unit, settings, pure=False)] = unit
            if not pending:
                return
            done = distributed.wait(list(pending), return_when="FIRST_COMPLETED").done
            for future in done:
                unit = pending.pop(future)
                try:
                    result = future.result()
                except Exception as error:  # noqa: BLE001 - a lost worker fails its unit only
                    result = UnitResult(unit, error=f"Dask task failed: {type(error).__name__}")
                yield result
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
