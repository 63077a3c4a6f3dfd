"""Progress of a long run, on stderr: a bar on a terminal, a plain line now and then in a log.

A single 20 MB note takes minutes, so progress is counted in the amount of text done (bytes of
input files for ``itdeid deid``, characters of notes for ``itdeid tag``), moving within a file
as its pieces are tagged, not only once a file is done. On a terminal it is a tqdm bar; on a
stderr that is not one (a log file, a batch scheduler's capture), tqdm would either print
nothing or flood the log, so instead a line is written every :data:`LOG_EVERY_SECONDS`
seconds, e.g. ``itdeid deid: 4.20 MB of 20.0 MB (21%), 0 of 1 files, 35 s``. Lines name
amounts and counts only, never a note's text nor a file's name (with ``--rename`` the names
themselves may be PHI).

Work in flight is reported as a *partial* amount under a key of the caller's choosing (a chunk
of files in a worker): :meth:`Progress.partial` sets how much of it is done, :meth:`Progress.drop`
forgets it once its files are counted done with :meth:`Progress.done`. The position shown never
goes back, so a retry or the moment between dropping a chunk and counting its files done does
not make the bar jump back and forth.
"""
from __future__ import annotations

import sys
import time
from typing import Hashable, TextIO

#: Seconds between two progress lines on a stderr that is not a terminal.
LOG_EVERY_SECONDS = 30.0


def _size(amount: float, unit: str) -> str:
    from tqdm import tqdm
    if unit == "B":
        return tqdm.format_sizeof(amount, "B", 1000)
    return f"{tqdm.format_sizeof(amount, '', 1000)} {unit}s"


class Progress:
    """``total`` of ``unit`` (``"B"``: bytes, else a word such as ``"char"``) to do, in
    ``items`` items (counted done as ``item_name``, e.g. files; None: not counted), shown on
    ``stream`` (stderr) as ``desc``; nothing at all unless ``enabled``."""

    def __init__(self, total: float, desc: str, unit: str = "B", items: int | None = None,
                 item_name: str = "files", enabled: bool = True, stream: TextIO | None = None,
                 every: float | None = None):
        self.total, self.items, self.desc, self.unit = max(0.0, total), items, desc, unit
        self.item_name = item_name
        self.stream = stream if stream is not None else sys.stderr
        self.every = LOG_EVERY_SECONDS if every is None else every
        self.finished = 0.0         # amount of the items done
        self.items_done = 0
        self.partials: dict[Hashable, float] = {}
        self.shown = 0.0
        self.started = self.last_line = time.monotonic()
        self.lines = 0
        self.last_where = ""
        self.bar = None
        self.enabled = enabled
        if enabled and _is_terminal(self.stream):
            from tqdm import tqdm
            self.bar = tqdm(total=self.total, desc=desc, file=self.stream, unit=unit,
                            unit_scale=True, unit_divisor=1000, dynamic_ncols=True)

    # -- what the caller reports -----------------------------------------------------------
    def partial(self, key: Hashable, amount: float) -> None:
        """Work in flight under ``key`` has done ``amount`` (not added up: the latest wins)."""
        self.partials[key] = max(self.partials.get(key, 0.0), amount)
        self._show()

    def drop(self, key: Hashable) -> None:
        """Forget the work in flight under ``key`` (its items are about to be counted done)."""
        self.partials.pop(key, None)

    def done(self, amount: float, items: int = 1) -> None:
        """``amount`` more is done, finishing ``items`` items."""
        self.finished += amount
        self.items_done += items
        self._show()

    def close(self) -> None:
        """The last word: the bar closed, or a final line where progress lines were written."""
        if self.bar is not None:
            self.bar.n = min(self.total, max(self.shown, self.finished))
            if self.items is not None:
                self.bar.set_postfix_str(self._items(), refresh=False)
            self.bar.close()
            self.bar = None
        elif self.enabled and self.lines:
            self.shown = max(self.shown, min(self.total, self.finished))
            if self._where() != self.last_where:
                self._line()

    # -- showing -----------------------------------------------------------------------------
    def _position(self) -> float:
        return min(self.total, self.finished + sum(self.partials.values()))

    def _items(self) -> str:
        return f"{self.items_done} of {self.items} {self.item_name}"

    def _where(self) -> str:
        share = f" ({100 * self.shown / self.total:.0f}%)" if self.total else ""
        items = f", {self._items()}" if self.items is not None else ""
        return f"{_size(self.shown, self.unit)} of {_size(self.total, self.unit)}{share}{items}"

    def _show(self) -> None:
        if not self.enabled:
            return
        self.shown = max(self.shown, self._position())
        if self.bar is not None:
            if self.items is not None:
                self.bar.set_postfix_str(self._items(), refresh=False)
            self.bar.update(self.shown - self.bar.n)
        elif (time.monotonic() - self.last_line >= self.every
              and self._where() != self.last_where):
            self._line()

    def _line(self) -> None:
        elapsed = time.monotonic() - self.started
        left = ""
        if 0.01 * self.total <= self.shown < self.total and elapsed >= 5:
            left = f", about {_duration(elapsed * (self.total - self.shown) / self.shown)} left"
        self.last_where = self._where()
        print(f"{self.desc}: {self.last_where}, {_duration(elapsed)}{left}", file=self.stream,
              flush=True)
        self.last_line = time.monotonic()
        self.lines += 1


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
