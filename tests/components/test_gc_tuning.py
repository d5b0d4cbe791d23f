"""The collector is tuned by ``__main__.py`` under the language host only: never in a process that runs the program
in-process (the tests, ``tools.render``, ``tools.bench``), where a freeze would keep each run's garbage for good.
The suite tunes its own processes (tests/conftest.py): thresholds from their start, the freeze after collection."""

from __future__ import annotations

import gc
import subprocess
import sys
from collections.abc import Iterator

import pytest
from pulumi.runtime.proto import resource_pb2_grpc

from components import gc_tuning
from tests.support import PROJECT_ROOT
from tools import mock_runtime, render
from tools.recording import RecordingMonitor

WHILE_COLLECTED = gc.get_threshold()
"""The collector's thresholds as pytest imported this module, during collection."""


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


def test_the_suite_collects_less_often_already_while_it_collects_its_tests():
    assert WHILE_COLLECTED == gc_tuning.THRESHOLDS


def test_the_tuning_module_loads_without_the_sdk_as_the_xdist_controller_does():
    probe = "import sys, components.gc_tuning; print(sorted(m for m in sys.modules if m.split('.')[0] == 'pulumi'))"
    loaded = subprocess.run([sys.executable, "-c", probe], cwd=PROJECT_ROOT, capture_output=True, text=True, check=True)
    assert loaded.stdout.strip() == "[]"
