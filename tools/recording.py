"""What one run of the program registered, as the engine would see it, and the monitor that records it.

The recording monitor keeps what the default mock monitor drops: parent, provider, dependencies, ``ignore_changes``,
``replace_on_changes``, ``delete_before_replace``, ``custom_timeouts``, ``aliases``, ``protect`` and secrecy.
"""

from __future__ import annotations

import dataclasses
import heapq
from collections.abc import Callable
from typing import Any

import pulumi
from pulumi.runtime import known_types, rpc
from pulumi.runtime import mocks as pulumi_mocks

REDACTED = "[secret]"
UNKNOWN = "[unknown]"
"""What a recording shows for a value only ``pulumi up`` knows: an input, id or stack output during preview."""


@dataclasses.dataclass(frozen=True)
class Registration:
    """One resource as the program registered it."""

    urn: str
    id: str
    """The id the engine answered: empty for components, :data:`UNKNOWN` for a resource created during preview."""
    type: str
    name: str
    custom: bool
    remote: bool
    parent: str | None
    provider: str | None
    providers: dict[str, str]
    dependencies: tuple[str, ...]
    property_dependencies: dict[str, tuple[str, ...]]
    ignore_changes: tuple[str, ...]
    replace_on_changes: tuple[str, ...]
    delete_before_replace: bool
    raw_inputs: dict[str, Any]
    """Inputs as sent on the wire, secret values still wrapped (see :func:`redact` and :func:`unwrap`)."""
    custom_timeouts: dict[str, str] = dataclasses.field(default_factory=dict)
    """The ``custom_timeouts`` that are set, by operation: ``{"create": "90m"}``."""
    aliases: tuple[str, ...] = ()
    """The URNs the resource may have had before, as the engine resolves its ``aliases``."""
    protect: bool = False
    """Pulumi's ``protect``, as the engine sees it (a child inherits its parent's unless it sets its own)."""
    additional_secret_outputs: tuple[str, ...] = ()
    """Outputs the engine keeps secret although the provider does not mark them (a dynamic provider's token)."""

    @property
    def inputs(self) -> dict[str, Any]:
        """Inputs with secrets unwrapped: what the provider would receive."""
        return unwrap(self.raw_inputs)

    @property
    def redacted_inputs(self) -> dict[str, Any]:
        """Inputs with every secret replaced by ``[secret]``: safe to print or write to disk."""
        return redact(self.raw_inputs)

    def is_secret(self, key: str) -> bool:
        return rpc.is_rpc_secret(self.raw_inputs.get(key))

    @property
    def all_dependencies(self) -> set[str]:
        """Explicit ``depends_on`` plus dependencies that flow through inputs."""
        deps = set(self.dependencies)
        for urns in self.property_dependencies.values():
            deps.update(urns)
        return deps


def unwrap(value: Any) -> Any:
    """Plain values: secrets unwrapped, unknowns as :data:`UNKNOWN`, whole numbers back to ints (the wire carries
    every number as a double)."""
    return _plain(value, lambda secret: unwrap(rpc.unwrap_rpc_secret(secret)))


def redact(value: Any) -> Any:
    """Like :func:`unwrap`, but every secret becomes ``[secret]``."""
    return _plain(value, lambda _: REDACTED)


def _plain(value: Any, secret: Callable[[Any], Any]) -> Any:
    """Walk a wire value, turning each secret into ``secret(value)``."""
    if known_types.is_unknown(value):
        return UNKNOWN
    if rpc.is_rpc_secret(value):
        return secret(value)
    if isinstance(value, dict):
        return {k: _plain(v, secret) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v, secret) for v in value]
    return _whole_number(value)


def _whole_number(value: Any) -> Any:
    return int(value) if isinstance(value, float) and value.is_integer() else value


class RecordingMonitor(pulumi_mocks.MockMonitor):
    """The mock monitor, keeping every registration request with its engine options."""

    def __init__(self, mocks: pulumi.runtime.Mocks) -> None:
        super().__init__(mocks)
        self.registrations: list[Registration] = []

    def RegisterResource(self, request):  # noqa: N802 - gRPC method name
        response = super().RegisterResource(request)
        if request.type != "pulumi:pulumi:Stack":
            self.registrations.append(
                Registration(
                    urn=response.urn,
                    id=UNKNOWN if request.custom and response.id in ("", rpc.UNKNOWN) else response.id,
                    type=request.type,
                    name=request.name,
                    custom=request.custom,
                    remote=request.remote,
                    parent=request.parent or None,
                    provider=request.provider or None,
                    providers=dict(request.providers),
                    dependencies=tuple(request.dependencies),
                    property_dependencies={k: tuple(v.urns) for k, v in request.propertyDependencies.items()},
                    ignore_changes=tuple(request.ignoreChanges),
                    replace_on_changes=tuple(request.replaceOnChanges),
                    delete_before_replace=request.deleteBeforeReplace,
                    raw_inputs=rpc.deserialize_properties(request.object, keep_internal=True),
                    custom_timeouts={
                        operation: timeout
                        for operation in ("create", "update", "delete")
                        if (timeout := getattr(request.customTimeouts, operation))
                    },
                    aliases=tuple(_alias_urn(alias, request) for alias in request.aliases),
                    protect=request.protect,
                    additional_secret_outputs=tuple(request.additionalSecretOutputs),
                )
            )
        return response


def _alias_urn(alias: Any, request: Any) -> str:
    """The URN an alias names: as given, or built from its spec, whose unset parts are the resource's own.

    As the engine builds it: a parent's type chain prefixes the type, the root stack's does not.
    """
    if alias.urn:
        return str(alias.urn)
    spec = alias.spec
    parent = "" if spec.noParent else spec.parentUrn or request.parent
    chain = parent.split("::")[2].removeprefix("pulumi:pulumi:Stack").removeprefix("$") if parent else ""
    type_ = f"{chain}${spec.type or request.type}" if chain else spec.type or request.type
    stack, project = spec.stack or pulumi.get_stack(), spec.project or pulumi.get_project()
    return f"urn:pulumi:{stack}::{project}::{type_}::{spec.name or request.name}"


def engine_order(registrations: list[Registration]) -> list[Registration]:
    """The registrations with every parent, provider and dependency before what needs it, ties in URN order.

    The monitor answers registrations on the SDK's thread pool, in whatever order they finish; this order is the
    same on every run of the same program, so a plan written from it diffs only where the program changed."""
    by_urn = {r.urn: r for r in registrations}
    needs = {
        r.urn: {u for u in (*r.all_dependencies, r.parent, (r.provider or "").rsplit("::", 1)[0]) if u in by_urn}
        for r in registrations
    }
    ordered: list[Registration] = []
    ready = sorted(urn for urn, wanted in needs.items() if not wanted)
    needed_by: dict[str, list[str]] = {}
    for urn, wanted in needs.items():
        for dependency in wanted:
            needed_by.setdefault(dependency, []).append(urn)
    while ready:
        urn = heapq.heappop(ready)
        ordered.append(by_urn[urn])
        for dependent in needed_by.get(urn, ()):
            needs[dependent].discard(urn)
            if not needs[dependent]:
                heapq.heappush(ready, dependent)
    return ordered


@dataclasses.dataclass
class Recording:
    """Everything one program run registered, with helpers to query it."""

    registrations: list[Registration]
    outputs: dict[str, Any]
    secret_outputs: set[str]
    invokes: list[pulumi_mocks.MockCallArgs]
    """Every invoke (function call) the program made, with its token, arguments and provider."""

    def by_type(self, type_: str) -> list[Registration]:
        return [r for r in self.registrations if r.type == type_]

    def one(self, type_: str, name: str | None = None) -> Registration:
        found = [r for r in self.by_type(type_) if name is None or r.name == name]
        if len(found) != 1:
            raise LookupError(f"expected one {type_} named {name!r}, found {[r.name for r in found]}")
        return found[0]

    def named(self, name: str) -> Registration:
        found = [r for r in self.registrations if r.name == name]
        if len(found) != 1:
            raise LookupError(f"expected one resource named {name!r}, found {len(found)}")
        return found[0]

    def by_urn(self, urn: str) -> Registration:
        return next(r for r in self.registrations if r.urn == urn)

    def provider_of(self, registration: Registration) -> Registration | None:
        """The provider resource a custom resource was registered with (``provider`` is ``urn::id``)."""
        if not registration.provider:
            return None
        return self.by_urn(registration.provider.rsplit("::", 1)[0])

    def depends_on(self, dependent: Registration, dependency: Registration) -> bool:
        """True if ``dependent`` waits for ``dependency`` through any chain of dependencies, providers or parents.

        A component's dependency is inherited by its children, and depending on a component means depending on
        all of its children, so both parent links count.
        """
        children: dict[str, list[str]] = {}
        for r in self.registrations:
            if r.parent:
                children.setdefault(r.parent, []).append(r.urn)
        seen: set[str] = set()
        stack = [dependent.urn]
        while stack:
            urn = stack.pop()
            if urn in seen:
                continue
            seen.add(urn)
            registration = self.by_urn(urn) if any(r.urn == urn for r in self.registrations) else None
            if registration is None:
                continue
            nexts = set(registration.all_dependencies)
            if registration.provider:
                nexts.add(registration.provider.rsplit("::", 1)[0])
            if registration.parent:
                nexts.add(registration.parent)
            for dep in list(nexts):
                nexts.update(children.get(dep, []) if dep != registration.parent else [])
            if dependency.urn in nexts:
                return True
            stack.extend(nexts)
        return False

    def kubernetes_objects(self) -> list[Registration]:
        """Every Kubernetes object the program creates itself: not providers, not a Helm chart's contents."""
        return [
            r for r in self.registrations if r.custom and r.type.startswith("kubernetes:") and "helm.sh" not in r.type
        ]
