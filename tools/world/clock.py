"""Simulated time for code that blocks: each process is a thread, and only one of them runs at any moment.

The waiters the program ships (:mod:`components.waiters.kube_wait` and the dynamic providers) poll with ``time.sleep``
and ``time.monotonic``. Under :meth:`Conductor.run` both are this conductor's: a ``sleep`` parks the calling process
until the simulated clock reaches its wake-up time, and the conductor then wakes the next process due, earliest first,
ties in the order they were scheduled. Nothing sleeps for real, so a ten-minute rollout takes milliseconds, and a run is
the same every time for the same processes and durations.
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any


class Process:
    """One piece of work on the simulated clock; :attr:`error` is what it raised, if it did."""

    def __init__(self, name: str, work: Callable[[], Any]) -> None:
        self.name = name
        self.work = work
        self.started_at: float | None = None
        self.finished_at: float | None = None
        self.result: Any = None
        self.error: BaseException | None = None
        self._turn = threading.Semaphore(0)
        self._thread: threading.Thread | None = None

    @property
    def done(self) -> bool:
        return self.finished_at is not None


class Conductor:
    """The simulated clock and the processes on it (see the module docstring)."""

    def __init__(self) -> None:
        self.now = 0.0
        self._due: list[tuple[float, int, Process]] = []
        self._order = itertools.count()
        self._current: Process | None = None
        self._yielded = threading.Semaphore(0)

    def start(self, name: str, work: Callable[[], Any], after: float = 0.0) -> Process:
        """Schedule ``work`` to start ``after`` seconds from now."""
        process = Process(name, work)
        heapq.heappush(self._due, (self.now + after, next(self._order), process))
        return process

    @property
    def current(self) -> str:
        """The name of the process running now, or ``""`` outside the processes."""
        return self._current.name if self._current is not None else ""

    def sleep(self, seconds: float) -> None:
        """Park the running process for ``seconds`` of simulated time."""
        process = self._current
        if process is None:
            raise RuntimeError("sleep outside a process of the simulated clock")
        heapq.heappush(self._due, (self.now + max(seconds, 0.0), next(self._order), process))
        self._current = None
        self._yielded.release()
        process._turn.acquire()
        self._current = process

    def run(self, finished: Callable[[Process], None] = lambda process: None) -> None:
        """Run every process to its end, in simulated time, with ``time.sleep`` and ``time.monotonic`` this
        conductor's meanwhile; ``finished`` is called (between two turns) for each process that ends."""
        with self._owning_time():
            while self._due:
                at, _, process = heapq.heappop(self._due)
                self.now = max(self.now, at)
                self._turn(process)
                if process.done:
                    finished(process)

    def _turn(self, process: Process) -> None:
        """Let ``process`` run until it sleeps or finishes."""
        if process._thread is None:
            process.started_at = self.now
            process._thread = threading.Thread(target=self._body, args=(process,), name=process.name, daemon=True)
            self._current = process
            process._thread.start()
        else:
            process._turn.release()
        self._yielded.acquire()

    def _body(self, process: Process) -> None:
        try:
            process.result = process.work()
        except BaseException as error:  # reported on the process, as the engine reports a failed step
            process.error = error
        process.finished_at = self.now
        self._current = None
        self._yielded.release()

    @contextlib.contextmanager
    def _owning_time(self) -> Iterator[None]:
        saved = time.monotonic, time.sleep
        time.monotonic, time.sleep = (lambda: self.now), self.sleep  # type: ignore[assignment]
        try:
            yield
        finally:
            time.monotonic, time.sleep = saved  # type: ignore[assignment]
