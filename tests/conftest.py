"""Shared fixtures: run code under the project's mock runtime and get back what it registered."""

from __future__ import annotations

import json
from collections.abc import Callable, Collection
from typing import Any

import pytest
from pydantic import BaseModel, TypeAdapter, ValidationError

from components.config.base import PROJECT, ConfigError, problems_from
from components.config.stack import load_stack_config
from tools import mock_runtime


def as_config(sections: dict[str, Any]) -> dict[str, str]:
    """``{"aks": {...}}`` -> ``{"elastic-capacity:aks": "<json>"}``: the shape Pulumi hands the program."""
    return {
        f"{PROJECT}:{key}": value if isinstance(value, str) else json.dumps(value) for key, value in sections.items()
    }


def stack_error_keys(sections: dict[str, Any], secret_keys: Collection[str] = ()) -> list[str]:
    """The full keys the stack loader rejects these sections for; its message must stay one line."""
    with pytest.raises(ConfigError) as caught:
        load_stack_config(as_config(sections), secret_keys)
    assert "\n" not in str(caught.value), "a config error is one line"
    return caught.value.keys


def model_error_keys(model: type[BaseModel] | TypeAdapter, data: Any, prefix: str = "") -> list[str]:
    """The keys (under ``prefix``) that validating ``data`` against a model or type adapter rejects."""
    with pytest.raises(ValidationError) as caught:
        if isinstance(model, TypeAdapter):
            model.validate_python(data)
        else:
            model.model_validate(data)
    return [key for key, _ in problems_from(caught.value, prefix)]


@pytest.fixture
def run_program() -> Callable[..., mock_runtime.Recording]:
    """Run a zero-argument function that builds resources, under mocks; return the recording."""

    def run(
        program: Callable[[], None], sections: dict[str, Any] | None = None, secret_keys=()
    ) -> mock_runtime.Recording:
        return mock_runtime.run(program, as_config(sections or {}), secret_keys=secret_keys)

    return run
