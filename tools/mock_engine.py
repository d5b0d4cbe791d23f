"""What the engine does with a dynamic resource the mocks cannot leave to Pulumi: run its provider's ``check``.

A :class:`~components.cluster_version.ClusterVersion` decides its version in ``check`` against the last deployment's
inputs, so the mock keeps those per stack run in :data:`CLUSTER_VERSION_STATE` and answers with what ``check``
returned, failing the run where the engine would fail the preview.
"""

from __future__ import annotations

from typing import Any

from pulumi.runtime import mocks as pulumi_mocks

from components.cluster_version import ClusterVersionProvider
from components.config.base import ConfigError

CLUSTER_VERSION_TYPE = "pulumi-python:dynamic/clusters:ClusterVersion"
CLUSTER_VERSION_STATE: dict[str, dict[str, Any]] | None = None
"""The stack's state of each ``ClusterVersion`` (by resource name) across runs. ``None``, the default, is a stack
deployed for the first time on every run; a test that runs a stack twice sets a dict, which each run reads the last
deployment's inputs from and writes its own to."""


class CheckFailed(ConfigError):
    """A dynamic provider's ``check`` refused the inputs: the engine fails the preview with the reason, which names
    the stack key (``key: message``), so the mock reports it as the ``ConfigError`` it words."""

    def __init__(self, key: str, reason: str) -> None:
        super().__init__([(key, reason.removeprefix(f"{key}: "))])


def cluster_version(args: pulumi_mocks.MockResourceArgs) -> dict[str, Any]:
    """What the engine keeps of a ``ClusterVersion``: its inputs as ``check`` returned them."""
    deployed = CLUSTER_VERSION_STATE.get(args.name, {}) if CLUSTER_VERSION_STATE is not None else {}
    checked = ClusterVersionProvider().check(dict(deployed), dict(args.inputs))
    if checked.failures:
        raise CheckFailed(str(args.inputs["key"]), "; ".join(failure.reason for failure in checked.failures))
    if CLUSTER_VERSION_STATE is not None:
        CLUSTER_VERSION_STATE[args.name] = dict(checked.inputs)
    return dict(checked.inputs)
