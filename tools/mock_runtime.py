"""Run the program under Pulumi's mock runtime and record everything it registers.

One mock layer serves the tests and ``tools.render``: no CLI, no credentials, no cluster. The mocks return
realistic per-type outputs (ids, names, kubeconfigs) rather than echoing inputs only, and the recording monitor
keeps what the default mock monitor drops: parent, provider, dependencies, ``ignore_changes`` and secrecy.
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import pulumi
from pulumi.runtime import mocks as pulumi_mocks
from pulumi.runtime import rpc, settings
from pulumi.runtime.stack import run_pulumi_func
from pulumi.runtime.sync_await import _sync_await

from components.config.base import PROJECT

REDACTED = "[secret]"

FAKE_KUBECONFIG = """apiVersion: v1
kind: Config
clusters:
- name: mock
  cluster: {server: "https://mock.invalid:443", certificate-authority-data: "bW9jaw=="}
contexts:
- name: mock
  context: {cluster: mock, user: mock}
current-context: mock
users:
- name: mock
  user: {token: mock-token}
"""
"""What every mocked credential invoke returns: a syntactically valid kubeconfig with no real secret in it."""

_AZURE_SUBSCRIPTION = "/subscriptions/00000000-0000-0000-0000-000000000000"


def _azure_id(args: pulumi_mocks.MockResourceArgs) -> str:
    rg = args.inputs.get("resourceGroupName", "rg")
    kinds = {
        "azure-native:resources:ResourceGroup": f"{_AZURE_SUBSCRIPTION}/resourceGroups/{rg}",
        "azure-native:containerservice:ManagedCluster": f"{_AZURE_SUBSCRIPTION}/resourceGroups/{rg}/providers/"
        f"Microsoft.ContainerService/managedClusters/{args.inputs.get('resourceName', args.name)}",
        "azure-native:containerservice:AgentPool": f"{_AZURE_SUBSCRIPTION}/resourceGroups/{rg}/providers/"
        f"Microsoft.ContainerService/managedClusters/{args.inputs.get('resourceName')}/agentPools/"
        f"{args.inputs.get('agentPoolName', args.name)}",
    }
    return kinds.get(args.typ, f"{_AZURE_SUBSCRIPTION}/resourceGroups/{rg}/providers/mock/{args.name}")


def _computed_outputs(args: pulumi_mocks.MockResourceArgs) -> dict[str, Any]:
    """Outputs a real provider would compute, per resource type."""
    inputs = args.inputs
    if args.typ == "azure-native:resources:ResourceGroup":
        return {"name": inputs.get("resourceGroupName", args.name)}
    if args.typ == "azure-native:containerservice:ManagedCluster":
        name = inputs.get("resourceName", args.name)
        return {
            "name": name,
            "fqdn": f"{name}-dns.hcp.{inputs.get('location', 'eastus2')}.azmk8s.io",
            "oidcIssuerProfile": {**inputs.get("oidcIssuerProfile", {}), "issuerURL": "https://oidc.mock.invalid/"},
            "provisioningState": "Succeeded",
        }
    if args.typ == "azure-native:containerservice:AgentPool":
        return {"name": inputs.get("agentPoolName", args.name), "provisioningState": "Succeeded"}
    if args.typ == "alicloud:cs/managedKubernetes:ManagedKubernetes":
        return {
            "version": inputs.get("version"),
            "vpcId": "vpc-mock",
            "connections": [{"apiServerInternet": "https://ack.mock.invalid:6443"}],
        }
    if args.typ == "alicloud:vpc/natGateway:NatGateway":
        return {"snatTableIds": f"stb-{args.name}", "forwardTableIds": f"ftb-{args.name}"}
    if args.typ == "alicloud:ecs/eipAddress:EipAddress":
        return {"ipAddress": "198.51.100.10"}
    return {}


def _mock_id(args: pulumi_mocks.MockResourceArgs) -> str:
    if args.typ.startswith("azure-native:"):
        return _azure_id(args)
    if args.typ.startswith("alicloud:"):
        return f"{args.typ.rsplit(':', 1)[-1].lower()}-{args.name}"
    if args.typ.startswith("kubernetes:") and args.custom:
        meta = args.inputs.get("metadata") or {}
        namespace = meta.get("namespace")
        return f"{namespace}/{meta.get('name', args.name)}" if namespace else str(meta.get("name", args.name))
    return f"{args.name}-id"


_ZONE_INVOKES = (
    "alicloud:index/getZones:getZones",
    "alicloud:vpc/getEnhancedNatAvailableZones:getEnhancedNatAvailableZones",
)


class ProgramMocks(pulumi.runtime.Mocks):
    """Per-type outputs for resources and realistic answers for the invokes the program makes (kept in ``invokes``)."""

    def __init__(self) -> None:
        self.invokes: list[pulumi_mocks.MockCallArgs] = []

    def new_resource(self, args: pulumi_mocks.MockResourceArgs) -> tuple[str, dict]:
        return _mock_id(args), {**args.inputs, **_computed_outputs(args)}

    def call(self, args: pulumi_mocks.MockCallArgs) -> tuple[dict, list[tuple[str, str]]]:
        self.invokes.append(args)
        return self._answer(args), []

    def _answer(self, args: pulumi_mocks.MockCallArgs) -> dict:
        if args.token == "azure-native:containerservice:listManagedClusterUserCredentials":
            encoded = base64.b64encode(FAKE_KUBECONFIG.encode()).decode()
            return {"kubeconfigs": [{"name": "clusterUser", "value": encoded}]}
        if args.token == "azure-native:containerservice:getManagedCluster":
            name = args.args.get("resourceName", "existing")
            return {"name": name, "kubernetesVersion": "1.33", "location": "eastus2", "agentPoolProfiles": []}
        if args.token == "alicloud:cs/getClusterCredential:getClusterCredential":
            return {"kubeConfig": FAKE_KUBECONFIG, "clusterId": args.args.get("clusterId"), "expiration": "2099-01-01"}
        if args.token in _ZONE_INVOKES:
            zones = [{"id": z, "zoneId": z} for z in ("zone-a", "zone-b")]
            return {"zones": zones, "ids": [z["id"] for z in zones]}
        return {}


@dataclasses.dataclass(frozen=True)
class Registration:
    """One resource as the program registered it."""

    urn: str
    id: str
    """The id the mocks gave the resource (empty for components)."""
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
    raw_inputs: dict[str, Any]
    """Inputs as sent on the wire, secret values still wrapped (see :func:`redact` and :func:`unwrap`)."""

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
    """Plain values: secrets unwrapped, and whole numbers back to ints (the wire carries every number as a double)."""
    if rpc.is_rpc_secret(value):
        return unwrap(rpc.unwrap_rpc_secret(value))
    if isinstance(value, dict):
        return {k: unwrap(v) for k, v in value.items()}
    if isinstance(value, list):
        return [unwrap(v) for v in value]
    return _whole_number(value)


def redact(value: Any) -> Any:
    """Like :func:`unwrap`, but every secret becomes ``[secret]``."""
    if rpc.is_rpc_secret(value):
        return REDACTED
    if isinstance(value, dict):
        return {k: redact(v) for k, v in value.items()}
    if isinstance(value, list):
        return [redact(v) for v in value]
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
                    id=response.id,
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
                    raw_inputs=rpc.deserialize_properties(request.object, keep_internal=True),
                )
            )
        return response


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

    def kubernetes_objects(self) -> list[dict[str, Any]]:
        """Every Kubernetes object the program creates itself (not a Helm chart's contents), secrets unwrapped."""
        return [
            r.inputs
            for r in self.registrations
            if r.custom and r.type.startswith("kubernetes:") and "helm.sh" not in r.type
        ]


def run(
    program: Callable[[], None],
    config: Mapping[str, str],
    secret_keys: Iterable[str] = (),
    stack: str = "dev",
    preview: bool = False,
) -> Recording:
    """Run ``program`` under the mock runtime with the given ``project:key`` config and return what it registered.

    Each run starts from a fresh event loop, root stack and config, so runs never leak into each other.
    Exceptions raised by the program (a ``ConfigError`` above all) propagate unchanged.
    """
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        settings.reset_options(project=PROJECT, stack=stack, preview=preview)
        mocks = ProgramMocks()
        monitor = RecordingMonitor(mocks)
        pulumi.runtime.set_mocks(mocks, project=PROJECT, stack=stack, preview=preview, monitor=monitor)
        pulumi.runtime.set_all_config(dict(config), secret_keys=list(secret_keys))
        settings.SETTINGS.rpc_manager.clear()
        settings.SETTINGS.outputs.clear()
        _sync_await(run_pulumi_func(program))
        outputs, secret_outputs = _sync_await(_resolve_stack_outputs())
    finally:
        asyncio.set_event_loop(None)
        loop.close()
    return Recording(monitor.registrations, outputs, secret_outputs, mocks.invokes)


async def _resolve_stack_outputs() -> tuple[dict[str, Any], set[str]]:
    root = settings.get_root_resource()
    exported: dict[str, Any] = getattr(root, "outputs", {}) or {}
    values: dict[str, Any] = {}
    secret: set[str] = set()
    for key, value in exported.items():
        output = pulumi.Output.from_input(value)
        values[key] = await output.future()
        if await output.is_secret():
            secret.add(key)
    return values, secret
