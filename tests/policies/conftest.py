"""The policy pack under test, imported as Pulumi imports it, and the shipped stacks as the policy engine hands them
to it: every stack in ``stacks/`` run once per session under the mock runtime as ``pulumi preview`` (what CI runs the
pack with), each registration turned into the arguments a policy receives.

Pulumi runs the pack with ``policies/`` first on ``sys.path`` (``runpy.run_path`` of the folder), so its package is
imported as ``elastic_capacity_policies``; this file puts the same folder on the path before any test module loads.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from pulumi.runtime import known_types, rpc
from pulumi_policy import (
    PolicyCustomTimeouts,
    PolicyProviderResource,
    PolicyResource,
    PolicyResourceOptions,
    ResourceValidationArgs,
    StackValidationArgs,
)
from pulumi_policy.deserialize import SPECIAL_SECRET_SIG, SPECIAL_SIG_KEY, deserialize_properties
from pulumi_policy.proxy import unknown_checking_proxy

from tests.support import PROJECT_ROOT
from tests.support.stacks import STACKS, recorded
from tools import render
from tools.recording import Recording, Registration

PACK_DIR = PROJECT_ROOT / "policies"
if str(PACK_DIR) not in sys.path:
    sys.path.insert(0, str(PACK_DIR))


def wire(value: Any) -> Any:
    """A recorded input as the engine sends it to a policy pack (``MarshalProperties`` with unknowns and secrets
    kept): an unknown as the unknown sentinel, a secret as a secret-signature object, every number a double."""
    if known_types.is_unknown(value):
        return rpc.UNKNOWN
    if rpc.is_rpc_secret(value):
        return {SPECIAL_SIG_KEY: SPECIAL_SECRET_SIG, "value": wire(rpc.unwrap_rpc_secret(value))}
    if isinstance(value, dict):
        return {key: wire(item) for key, item in value.items()}
    if isinstance(value, list):
        return [wire(item) for item in value]
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return value


def _seconds(timeout: str | None) -> float:
    """A custom timeout such as ``"1h30m"`` in seconds, as the engine sends it."""
    units = {"h": 3600, "m": 60, "s": 1}
    return sum(float(amount) * units[unit] for amount, unit in re.findall(r"([\d.]+)([hms])", timeout or ""))


class Engine:
    """Hands recorded registrations to policies the way the engine and the policy SDK's ``Analyze`` and
    ``AnalyzeStack`` do: properties decoded by the SDK's ``deserialize_properties`` and wrapped in its
    unknown-checking proxy, options, provider, parent and dependencies filled in from the recording."""

    def __init__(self, recordings: dict[str, Recording], stack_files: dict[str, Path]) -> None:
        self.recordings = recordings
        self.stack_files = stack_files

    def stack(self, name: str) -> Recording:
        return self.recordings[name]

    def recording_of(self, registration: Registration) -> Recording:
        return next(r for r in self.recordings.values() if any(x is registration for x in r.registrations))

    def config(self, name: str) -> dict[str, str]:
        """The stack file's config as the CLI passes it to a policy pack in ``PULUMI_CONFIG``."""
        return render.read_stack_file(self.stack_files[name])[1]

    @staticmethod
    def wire(registration: Registration) -> dict[str, Any]:
        """The registration's properties as the engine sends them to a policy pack (see :func:`wire`)."""
        return wire(registration.raw_inputs)

    def props(self, registration: Registration) -> dict[str, Any]:
        """A fresh, editable copy of the registration's properties as the policy SDK decodes them."""
        return deserialize_properties(self.wire(registration))

    def options(self, registration: Registration) -> PolicyResourceOptions:
        timeouts = registration.custom_timeouts
        return PolicyResourceOptions(
            protect=registration.protect,
            ignore_changes=list(registration.ignore_changes),
            delete_before_replace=registration.delete_before_replace,
            aliases=list(registration.aliases),
            custom_timeouts=PolicyCustomTimeouts(
                *(_seconds(timeouts.get(op)) for op in ("create", "update", "delete"))
            ),
            additional_secret_outputs=[],
            parent=registration.parent,
        )

    def provider(self, recording: Recording, registration: Registration) -> PolicyProviderResource | None:
        if not registration.provider:
            return None
        urn = registration.provider.rsplit("::", 1)[0]
        found = next((r for r in recording.registrations if r.urn == urn), None)
        props = self.props(found) if found else {}
        type_, name = urn.split("::")[2].rsplit("$", 1)[-1], urn.rsplit("::", 1)[-1]
        return PolicyProviderResource(type_, unknown_checking_proxy(props), urn, name)

    def resource_args(
        self,
        registration: Registration,
        props: Mapping[str, Any] | None = None,
        *,
        recording: Recording | None = None,
        stack_tags: Mapping[str, str] | None = None,
    ) -> ResourceValidationArgs:
        """What ``Analyze`` passes a resource policy for ``registration`` of ``recording`` (a shipped stack's unless
        given), with ``props`` instead of its own properties."""
        recording = recording or self.recording_of(registration)
        return ResourceValidationArgs(
            registration.type,
            unknown_checking_proxy(dict(self.props(registration) if props is None else props)),
            registration.urn,
            registration.name,
            self.options(registration),
            self.provider(recording, registration),
            None,
            dict(stack_tags or {}),
        )

    def stack_args(
        self,
        recording: Recording,
        props: Mapping[str, Mapping[str, Any]] | None = None,
        *,
        stack_tags: Mapping[str, str] | None = None,
    ) -> StackValidationArgs:
        """What ``AnalyzeStack`` passes a stack policy: every resource, with ``props[urn]`` replacing its own."""
        edits = props or {}
        resources = {
            r.urn: PolicyResource(
                r.type,
                unknown_checking_proxy(dict(edits[r.urn]) if r.urn in edits else self.props(r)),
                r.urn,
                r.name,
                self.options(r),
                self.provider(recording, r),
                None,
                [],
                {},
            )
            for r in recording.registrations
        }
        for r in recording.registrations:
            resource = resources[r.urn]
            resource.parent = resources.get(r.parent or "")
            resource.dependencies = [resources[urn] for urn in r.dependencies if urn in resources]
            resource.property_dependencies = {
                key: [resources[urn] for urn in urns if urn in resources]
                for key, urns in r.property_dependencies.items()
            }
        return StackValidationArgs(list(resources.values()), None, dict(stack_tags or {}))

    @staticmethod
    def violations(policy: Any, args: ResourceValidationArgs | StackValidationArgs) -> list[tuple[str, str | None]]:
        """Every ``(message, urn)`` the policy's ``validate`` reports; the pack's policies are synchronous."""
        found: list[tuple[str, str | None]] = []
        result = policy.validate(args, lambda message, urn=None: found.append((message, urn)))
        assert result is None
        return found

    def messages(self, policy: Any, args: ResourceValidationArgs | StackValidationArgs) -> list[str]:
        return [message for message, _ in self.violations(policy, args)]


def stack_name(path: Path) -> str:
    return path.name.removeprefix("Pulumi.").removesuffix(".yaml")


@pytest.fixture(scope="session")
def engine() -> Engine:
    """Every shipped stack, run once as ``pulumi preview`` would run it, ready to hand to the policies."""
    files = {stack_name(path): path for path in STACKS}
    return Engine({name: recorded(path, preview=True) for name, path in files.items()}, files)
