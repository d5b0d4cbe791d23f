"""Shared fixtures: run code under the project's mock runtime, and the shipped stacks rendered once per session.

The program is imported inside the hooks and fixtures that use it: pytest-xdist's controller loads this file too and
runs no test, and every worker started only once it had imported the program (a third of a second).
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from tools.recording import Recording


def pytest_configure(config: pytest.Config) -> None:
    """Collection imports every test module and rewrites its asserts into millions of short-lived AST nodes; at
    CPython's default thresholds they set off collections that rescan everything imported so far, about a quarter of
    each worker's collection time. Every process of the run collects less often from the start."""
    from components import gc_tuning

    gc_tuning.collect_less_often()


def pytest_collection_finish(session: pytest.Session) -> None:
    """The suite runs hundreds of programs in one process: the collector tuned once, as a pulumi up process is, after
    every import and before any test, so no test's garbage is frozen and the same tuning holds for every test."""
    from components import gc_tuning

    gc.collect()
    gc_tuning.tune()


@pytest.fixture(scope="session", autouse=True)
def _program_runs_shared_by_the_workers(tmp_path_factory, worker_id) -> None:
    """Each xdist worker's base temporary directory is a child of the test run's own, so that one holds the runs the
    workers share (:mod:`tests.support.run_cache`); in one process its parent holds every earlier test run too."""
    if worker_id != "master":
        from tests.support import run_cache

        run_cache.SHARED_DIRECTORY = tmp_path_factory.getbasetemp().parent / "program-runs"
        run_cache.SHARED_DIRECTORY.mkdir(exist_ok=True)


@pytest.fixture(autouse=True)
def _no_delete_unreachable_from_the_environment(monkeypatch) -> None:
    """The Kubernetes SDK sends ``PULUMI_K8S_DELETE_UNREACHABLE`` for a provider the program leaves the flag off:
    the tests see what the program sends, whatever the shell running them has set."""
    monkeypatch.delenv("PULUMI_K8S_DELETE_UNREACHABLE", raising=False)


@pytest.fixture
def run_program() -> Callable[..., Recording]:
    """Run a zero-argument function that builds resources, under mocks; return the recording."""

    from tests.support.config import as_config
    from tools import mock_runtime

    def run(program: Callable[[], None], sections: dict[str, Any] | None = None, secret_keys=()) -> Recording:
        return mock_runtime.run(program, as_config(sections or {}), secret_keys=secret_keys)

    return run


@pytest.fixture(scope="session")
def aks() -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """The AKS dev stack as ``tools.render`` renders it: plan.json and its manifests."""
    from tests.support.stacks import AKS_STACK, rendered

    return rendered(AKS_STACK)


@pytest.fixture(scope="session")
def ack() -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """The ACK dev stack as ``tools.render`` renders it: plan.json and its manifests."""
    from tests.support.stacks import ACK_STACK, rendered

    return rendered(ACK_STACK)
