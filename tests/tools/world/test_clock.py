"""The simulated clock: processes that block run one at a time, in simulated time, and take no real time."""

from __future__ import annotations

import time

import pytest

from tools.world.clock import Conductor


def test_processes_wake_in_simulated_time_order_and_ties_in_the_order_they_were_scheduled():
    conductor, seen = Conductor(), []

    def worker(name: str, naps: list[float]) -> None:
        for nap in naps:
            time.sleep(nap)
            seen.append((name, time.monotonic()))

    conductor.start("a", lambda: worker("a", [30, 30]))
    conductor.start("b", lambda: worker("b", [45, 15]))
    conductor.start("c", lambda: worker("c", [60]), after=0)
    started = time.perf_counter()
    conductor.run()
    assert time.perf_counter() - started < 5
    assert seen == [("a", 30), ("b", 45), ("c", 60), ("a", 60), ("b", 60)]  # c slept for 60 first
    assert conductor.now == 60


def test_the_time_module_is_the_conductors_only_while_it_runs():
    conductor, clocks = Conductor(), []
    real_sleep = time.sleep
    conductor.start("one", lambda: clocks.append(time.monotonic()), after=600)
    conductor.run()
    assert clocks == [600] and time.sleep is real_sleep


def test_a_process_that_raises_is_done_with_its_error_and_the_others_run_on():
    conductor, finished = Conductor(), []

    def fails() -> None:
        time.sleep(5)
        raise ValueError("refused")

    conductor.start("fails", fails)
    conductor.start("runs", lambda: time.sleep(10))
    conductor.run(finished.append)
    assert [(p.name, p.finished_at, type(p.error).__name__ if p.error else None) for p in finished] == [
        ("fails", 5, "ValueError"),
        ("runs", 10, None),
    ]


def test_a_process_may_start_another_and_sleep_outside_a_process_is_refused():
    conductor, order = Conductor(), []

    def parent() -> None:
        time.sleep(1)
        conductor.start("child", lambda: order.append(("child", time.monotonic())), after=2)
        order.append(("parent", time.monotonic()))

    conductor.start("parent", parent)
    conductor.run()
    assert order == [("parent", 1), ("child", 3)]
    with pytest.raises(RuntimeError, match="outside a process"):
        conductor.sleep(1)
