"""The collector is tuned by ``__main__.py`` under the language host only: never in a process that runs the program
in-process (the tests, ``tools.render``, ``tools.bench``), where a freeze would keep each run's garbage for good."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest
from pulumi.runtime.proto import resource_pb2_grpc

from components import gc_tuning
from tools import mock_runtime, render
from tools.recording import RecordingMonitor


@pytest.fixture
def collector() -> Iterator[tuple[tuple[int, int, int], int]]:
    """CPython's default thresholds, not the tuned ones the suite runs with (tests/conftest.py), so a tuning shows,
    and the frozen count; the suite's thresholds again afterwards."""
    suite = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield gc.get_threshold(), gc.get_freeze_count()
    gc.set_threshold(*suite)


class EngineMonitor(RecordingMonitor, resource_pb2_grpc.ResourceMonitorStub):
    """The recording monitor, seen as the gRPC stub the SDK connects to the engine's monitor under the host."""


def test_a_program_run_in_process_leaves_the_collector_as_it_was(collector):
    thresholds, frozen = collector
    render.run_main("dev", {}, set())
    assert not gc_tuning.under_the_language_host()
    assert gc.get_threshold() == thresholds
    assert gc.get_freeze_count() <= frozen, "nothing more frozen (frozen objects may still be freed)"


def test_under_the_language_host_the_program_freezes_its_imports_and_collects_less_often(collector, monkeypatch):
    _, frozen = collector
    monkeypatch.setattr(mock_runtime, "RecordingMonitor", EngineMonitor)
    render.run_main("dev", {}, set())
    assert gc.get_threshold() == gc_tuning.THRESHOLDS != collector[0]
    assert gc.get_freeze_count() > frozen
