"""Config helpers shared by the tests: stack sections as Pulumi hands them over, and the keys an error names."""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import Any

import pytest
from pydantic import BaseModel, TypeAdapter, ValidationError

from components.config.base import PROJECT, ConfigError, problems_from
from components.config.loader import load_stack_config
from components.config.queues.presets import AKS_WALKTHROUGH, PRESETS
from components.config.stack import StackConfig


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


WALKTHROUGH: dict[str, Any] = {"queues": {"preset": AKS_WALKTHROUGH}}
"""The queues section of the shipped stacks that follow Azure's article: its objects (``queues.preset``)."""
WALKTHROUGH_OBJECTS: dict[str, Any] = PRESETS[AKS_WALKTHROUGH]
"""The same objects written out as lists, for a test to change one of them."""

ON_EXISTING_CLUSTER: dict[str, Any] = {
    "existingCluster": {"source": "kubeconfig", "kubernetesVersion": "1.35"},
    "kubeconfig": "apiVersion: v1\nkind: Config\n",
}
"""The smallest stack with a Kueue target and no cloud: an existing cluster given by kubeconfig (a secret)."""
KUBECONFIG_SECRET = [f"{PROJECT}:kubeconfig"]


def load_on_existing_cluster(**sections: Any) -> StackConfig:
    """Load ``sections`` into a stack whose Kueue target is :data:`ON_EXISTING_CLUSTER`."""
    return load_stack_config(as_config({**ON_EXISTING_CLUSTER, **sections}), KUBECONFIG_SECRET)


def error_keys_on_existing_cluster(**sections: Any) -> list[str]:
    """The keys the loader rejects ``sections`` for, in a stack whose Kueue target is :data:`ON_EXISTING_CLUSTER`."""
    return stack_error_keys({**ON_EXISTING_CLUSTER, **sections}, KUBECONFIG_SECRET)


ARTICLE_SMOKE_TARGET = {"namespace": "cas-kueue-demo", "local_queue": "cas-local-queue", "pool": "scalepool"}
"""Where the article's Job goes (the walkthrough preset's LocalQueue and pool): what the loader targets it to."""
