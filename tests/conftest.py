"""Shared fixtures: run code under the project's mock runtime and get back what it registered."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.support.config import as_config
from tools import mock_runtime
from tools.recording import Recording


@pytest.fixture
def run_program() -> Callable[..., Recording]:
    """Run a zero-argument function that builds resources, under mocks; return the recording."""

    def run(program: Callable[[], None], sections: dict[str, Any] | None = None, secret_keys=()) -> Recording:
        return mock_runtime.run(program, as_config(sections or {}), secret_keys=secret_keys)

    return run
