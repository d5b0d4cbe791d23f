"""Pulumi transforms as the engine runs them, for mock runs (the mock monitor records but never runs them).

The SDK sends each resource's own ``transforms`` as callbacks; the engine runs, for every resource, its own and then
each ancestor's, the children of packaged components such as Chart v4 included
(https://www.pulumi.com/docs/iac/concepts/resources/options/transforms/).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pulumi
import pytest
from pulumi.runtime import settings

from tools.recording import Recording, RecordingMonitor

Transforms = dict[str, list[Callable[[pulumi.ResourceTransformArgs], Any]]]


def record_transforms(monkeypatch: pytest.MonkeyPatch) -> Transforms:
    """URN -> the transform functions registered with that resource, filled in by every mock run that follows."""
    recorded: Transforms = {}
    register = RecordingMonitor.RegisterResource

    def recording(self: RecordingMonitor, request: Any) -> Any:
        response = register(self, request)
        servicer = settings.SETTINGS.callbacks
        by_token = {token: fn for fn, token in servicer._transforms.items()} if servicer else {}
        recorded[response.urn] = [by_token[callback.token] for callback in request.transforms]
        return response

    monkeypatch.setattr(RecordingMonitor, "RegisterResource", recording)
    return recorded


def as_transformed(
    recording: Recording, transforms: Transforms, urn: str, type_: str, name: str, props: dict[str, Any]
) -> dict[str, Any]:
    """``props`` of a custom resource ``type_`` registered at ``urn`` (or as a child of it), after every transform
    of that resource and its ancestors."""
    registered = {r.urn: r for r in recording.registrations}
    current = registered.get(urn)
    while current is not None:
        for transform in transforms.get(current.urn, []):
            result = transform(pulumi.ResourceTransformArgs(True, type_, name, props, pulumi.ResourceOptions()))
            props = result.props if result is not None else props
        current = registered.get(current.parent or "")  # the root stack is not recorded
    return props
