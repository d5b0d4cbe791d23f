"""What the engine does with a dynamic resource the mocks cannot leave to Pulumi: run its provider's ``check``.

A version pin (:mod:`components.waiters.version_pin`: a cluster's Kubernetes version, Kueue's chart version) decides its
version in ``check`` against the last deployment's inputs, so the mock keeps those per stack run in
:data:`VERSION_PIN_STATE` and answers with what ``check`` returned, failing the run where the engine would fail the
preview.
"""

from __future__ import annotations

from typing import Any

from pulumi.runtime import mocks as pulumi_mocks

from components.config.base import ConfigError
from components.waiters.version_pin import CLUSTER_PIN, KUEUE_PIN, VersionPinProvider

VERSION_PIN_TYPES: dict[str, VersionPinProvider] = {
    "pulumi-python:dynamic/clusters:ClusterVersion": CLUSTER_PIN,
    "pulumi-python:dynamic/kueue:KueueVersion": KUEUE_PIN,
}
"""Each pin's resource type and the provider the program registers it with."""
VERSION_PIN_STATE: dict[tuple[str, str], dict[str, Any]] | None = None
"""The stack's state of each pin (by type and resource name) across runs. ``None``, the default, is a stack deployed
for the first time on every run; a test that runs a stack twice sets a dict, which each run reads the last
deployment's inputs from and writes its own to."""


class CheckFailed(ConfigError):
    """A dynamic provider's ``check`` refused the inputs: the engine fails the preview with the reason, which names
    the stack key (``key: message``), so the mock reports it as the ``ConfigError`` it words."""

    def __init__(self, key: str, reason: str) -> None:
        super().__init__([(key, reason.removeprefix(f"{key}: "))])


def version_pin(args: pulumi_mocks.MockResourceArgs) -> dict[str, Any]:
    """What the engine keeps of a pin: its inputs as ``check`` returned them."""
    state = (args.typ, args.name)
    deployed = VERSION_PIN_STATE.get(state, {}) if VERSION_PIN_STATE is not None else {}
    checked = VERSION_PIN_TYPES[args.typ].check(dict(deployed), dict(args.inputs))
    if checked.failures:
        raise CheckFailed(str(args.inputs["key"]), "; ".join(failure.reason for failure in checked.failures))
    if VERSION_PIN_STATE is not None:
        VERSION_PIN_STATE[state] = dict(checked.inputs)
    return dict(checked.inputs)
