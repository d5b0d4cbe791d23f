"""Run the program under Pulumi's mock runtime and record everything it registers.

One mock layer serves the tests and ``tools.render``: no CLI, no credentials, no cluster. The mocks return
realistic per-type outputs (ids, names, kubeconfigs) rather than echoing inputs only, and the recording monitor
keeps what the default mock monitor drops: parent, provider, dependencies, ``ignore_changes``,
``replace_on_changes``, ``delete_before_replace``, ``custom_timeouts``, ``aliases`` and secrecy.

``run(..., preview=True)`` answers the way the engine answers ``pulumi preview`` for a stack that does not exist yet,
so a program that only works once values are known fails here rather than in front of a real cloud:

- a custom resource being created gets an empty id (the SDK reads it as unknown) and comes back with its own inputs
  plus every property its provider computes set to unknown, as providers answer a create in preview;
- a provider resource being created gets the engine's unknown id sentinel (``rpc.UNKNOWN``), which the Python SDK
  takes as a *known* string: ``provider.id`` runs its applies with it and provider references carry it;
- a read or import keeps its real answer (the resource exists), and components get no id, in both modes;
- invokes run in both modes. The SDK itself never sends an ``*_output`` invoke whose arguments are unknown, or whose
  resource dependencies have unknown ids, and resolves it to unknown instead: the same outcome as the engine
  declining an invoke that waits on a resource pending creation.

The credential invokes hand out a fresh secret on every call, as AKS and ACK do, so a Kubernetes provider built
from the raw answer gets different inputs on every run; see :func:`aks_user_credentials` and
:func:`ack_cluster_credential`.
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import datetime
import hashlib
import re
import secrets
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import pulumi
import yaml
from pulumi.runtime import known_types, rpc, settings
from pulumi.runtime import mocks as pulumi_mocks
from pulumi.runtime.stack import run_pulumi_func
from pulumi.runtime.sync_await import _sync_await

from components.config.base import PROJECT

REDACTED = "[secret]"
UNKNOWN = "[unknown]"
"""What a recording shows for a value only ``pulumi up`` knows: an input, id or stack output during preview."""

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
"""A fixed, syntactically valid kubeconfig with no real secret in it, for whoever needs one that never changes:
render's stand-in for a ``secure:`` kubeconfig, tests that build a Kubernetes provider by hand. The credential invokes
do not return it (they hand out fresh credentials)."""

_AZURE_SUBSCRIPTION = "/subscriptions/00000000-0000-0000-0000-000000000000"
AZURE_TENANT_ID = "00000000-0000-0000-0000-0000000000aa"
"""The tenant ``getClientConfig`` reports and exec kubeconfigs name."""
AKS_AAD_SERVER_APP = "6dae42f8-4368-4678-94ff-3960e28e3630"
"""The first-party "Azure Kubernetes Service AAD Server" application: every Entra ID token for AKS is issued for it."""
AKS_AAD_CLIENT_APP = "80faf920-1908-4b52-b5ef-a8e7bedfc67a"
"""The first-party "Azure Kubernetes Service AAD Client" application kubelogin signs the user in with."""
EXISTING_AKS_VERSION = "1.35.2"
"""The ``currentKubernetesVersion`` ``getManagedCluster`` reports for a cluster the stack does not create."""
ACK_DEFAULT_CREDENTIAL_MINUTES = 3 * 365 * 24 * 60
"""Lifetime the mock gives an ACK credential requested without ``temporaryDurationMinutes`` (ACK's long default)."""


def _digest(*parts: object) -> str:
    return hashlib.sha256("/".join(map(str, parts)).encode()).hexdigest()


def _pem_data(label: str, seed: str) -> str:
    """A base64 PEM block, the way kubeconfigs carry certificates and keys; not a parseable certificate."""
    body = base64.b64encode(bytes.fromhex(_digest(label, seed)) * 2).decode()
    return base64.b64encode(f"-----BEGIN {label}-----\n{body}\n-----END {label}-----\n".encode()).decode()


def _kubeconfig(cluster: str, server: str, ca_data: str, user_name: str, user: dict[str, Any]) -> str:
    document = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": cluster, "cluster": {"server": server, "certificate-authority-data": ca_data}}],
        "contexts": [{"name": cluster, "context": {"cluster": cluster, "user": user_name}}],
        "current-context": cluster,
        "users": [{"name": user_name, "user": user}],
    }
    return yaml.safe_dump(document, sort_keys=False)


def aks_user_credentials(
    args: Mapping[str, Any], entra_id: bool = True, environment: str = "AzurePublicCloud"
) -> dict[str, Any]:
    """``listManagedClusterUserCredentials``: the cluster's server and CA, and a user that is fresh on every call.

    The server and certificate authority depend on the cluster (resource group + name) only. The default answer
    authenticates with a token that differs on every call, so nothing may assume two calls agree. ``format: exec``
    on an ``entra_id`` cluster returns what AKS returns there: a kubelogin exec user, the same on every call. AKS
    ignores ``format`` for a cluster with local accounts, so without ``entra_id`` the token comes back regardless.
    ``environment`` is the Azure cloud kubelogin signs in to (``AzureChinaCloud`` for a cluster in Azure China).
    """
    group, name = args.get("resourceGroupName"), args.get("resourceName")
    cluster = _digest("aks", group, name)
    user: dict[str, Any]
    if entra_id and args.get("format") == "exec":
        user = {
            "exec": {
                "apiVersion": "client.authentication.k8s.io/v1beta1",
                "command": "kubelogin",
                "args": [
                    "get-token",
                    *("--login", "devicecode"),
                    *("--server-id", AKS_AAD_SERVER_APP),
                    *("--client-id", AKS_AAD_CLIENT_APP),
                    *("--tenant-id", AZURE_TENANT_ID),
                    *("--environment", environment),
                ],
                "env": None,
                "interactiveMode": "IfAvailable",
                "provideClusterInfo": False,
            }
        }
    else:
        user = {"token": secrets.token_hex(32)}
    kubeconfig = _kubeconfig(
        str(name),
        f"https://{name}-{cluster[:8]}.hcp.azmk8s.mock.invalid:443",
        _pem_data("CERTIFICATE", cluster),
        f"clusterUser_{group}_{name}",
        user,
    )
    return {"kubeconfigs": [{"name": "clusterUser", "value": base64.b64encode(kubeconfig.encode()).decode()}]}


def ack_cluster_credential(args: Mapping[str, Any]) -> dict[str, Any]:
    """``getClusterCredential``: a temporary client certificate, fresh on every call, for a stable cluster CA.

    ``certificateAuthorities[0].clusterCert`` (the CA, also the kubeconfig's ``certificate-authority-data``) and the
    server depend on ``clusterId`` only; the client certificate and key, inside ``kubeConfig`` and beside it, and the
    ``expiration`` are new on every call.
    """
    cluster_id = args.get("clusterId")
    minutes = args.get("temporaryDurationMinutes") or ACK_DEFAULT_CREDENTIAL_MINUTES
    cluster_cert = _pem_data("CERTIFICATE", _digest("ack", cluster_id))
    client = secrets.token_hex(16)
    client_cert, client_key = _pem_data("CERTIFICATE", client), _pem_data("RSA PRIVATE KEY", client)
    user_name = f"mock-ram-user-{_digest('ack', cluster_id)[:6]}"
    kubeconfig = _kubeconfig(
        f"kubernetes-{cluster_id}",
        f"https://{_digest('ack', cluster_id)[:8]}.cs.mock.invalid:6443",
        cluster_cert,
        user_name,
        {"client-certificate-data": client_cert, "client-key-data": client_key},
    )
    expires = datetime.datetime.now(datetime.UTC) + datetime.timedelta(minutes=float(minutes))
    return {
        "id": cluster_id,
        "clusterId": cluster_id,
        "kubeConfig": kubeconfig,
        "certificateAuthorities": [{"clusterCert": cluster_cert, "clientCert": client_cert, "clientKey": client_key}],
        "expiration": expires.strftime("%Y-%m-%dT%H:%M:%SZ"),
    }


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
        # The same server the cluster's credential names (see ack_cluster_credential).
        host = _digest("ack", _mock_id(args))[:8]
        return {
            "version": inputs.get("version"),
            "vpcId": "vpc-mock",
            "connections": [
                {
                    "apiServerInternet": f"https://{host}.cs.mock.invalid:6443",
                    "apiServerIntranet": "https://10.1.0.5:6443",
                }
            ],
        }
    if args.typ == "alicloud:cs/kubernetesAddon:KubernetesAddon":
        # The provider reads back the installed version; without one sent, ACK installed its current one.
        name = str(inputs.get("name"))
        return {
            "version": inputs.get("version") or ACK_CURRENT_ADDONS.get(name, ""),
            "required": name == "kube-scheduler",
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


ACK_OFFERED_VERSIONS = ("1.35.0-aliyun.1", "1.35.2-aliyun.1", "1.36.1-aliyun.1")
"""What ``cs.getKubernetesVersion`` lists: illustrative patches of the minors ACK supports at the end of 2026."""
ACK_CURRENT_ADDONS = {"kube-scheduler": "v1.35.0-apsara.6.11.4.77470105", "ack-virtual-node": "v2.17.3"}
"""The version ACK installs of an addon asked for without one: what a ``KubernetesAddon`` reads back then."""
ACK_INSTALLED_ADDONS = {"kube-scheduler": ACK_CURRENT_ADDONS["kube-scheduler"], "ack-virtual-node": ""}
"""What ``cs.getKubernetesAddons`` reports installed in a new Pro cluster: kube-scheduler by default, the virtual node
not yet (an empty ``currentVersion``)."""
ENHANCED_NAT_ZONES = tuple(f"cn-hangzhou-{z}" for z in "ghijk") + tuple(f"cn-beijing-{z}" for z in "ghijkl")
"""What ``vpc.getEnhancedNatAvailableZones`` lists, whatever the region (the mock cannot see the provider's)."""


def _unknown_unless_set(computed: Mapping[str, Any], inputs: Mapping[str, Any]) -> dict[str, Any]:
    """``computed`` as a provider previews a create: what the program set stays, what only the cloud knows is unknown.

    Nested objects merge key by key (``oidcIssuerProfile.enabled`` stays, ``.issuerURL`` becomes unknown).
    """
    previewed: dict[str, Any] = {}
    for key, value in computed.items():
        given = inputs.get(key)
        if isinstance(value, Mapping) and isinstance(given, Mapping):
            previewed[key] = {**given, **_unknown_unless_set(value, given)}
        else:
            previewed[key] = rpc.UNKNOWN if given is None else given
    return previewed


class ProgramMocks(pulumi.runtime.Mocks):
    """Per-type outputs for resources and realistic answers for the invokes the program makes (kept in ``invokes``).

    With ``preview`` the resources being created answer as in ``pulumi preview`` (see the module docstring).
    """

    def __init__(self, preview: bool = False) -> None:
        self.preview = preview
        self.invokes: list[pulumi_mocks.MockCallArgs] = []
        self.aks_clusters: dict[tuple[Any, Any], dict[str, Any]] = {}
        """What the credentials of each AKS cluster the program created (resource group, name) depend on: whether it
        signs in with Entra ID, and its cloud. A cluster the program did not create is taken to be an Entra ID one
        in global Azure."""

    def new_resource(self, args: pulumi_mocks.MockResourceArgs) -> tuple[str, dict]:
        if args.typ == "azure-native:containerservice:ManagedCluster":
            cluster = (args.inputs.get("resourceGroupName"), args.inputs.get("resourceName", args.name))
            profile = args.inputs.get("aadProfile")
            self.aks_clusters[cluster] = {
                "entra_id": isinstance(profile, Mapping) and bool(profile.get("managed")),
                "environment": "AzureChinaCloud"
                if str(args.inputs.get("location")).startswith("china")
                else "AzurePublicCloud",
            }
        if args.custom is False:  # a component: the engine gives it no id (reads come with custom unset)
            return "", dict(args.inputs)
        if self.preview and not args.resource_id:
            if args.typ.startswith("pulumi:providers:"):
                return rpc.UNKNOWN, dict(args.inputs)
            return "", {**args.inputs, **_unknown_unless_set(_computed_outputs(args), args.inputs)}
        return _mock_id(args), {**args.inputs, **_computed_outputs(args)}

    def call(self, args: pulumi_mocks.MockCallArgs) -> tuple[dict, list[tuple[str, str]]]:
        self.invokes.append(args)
        return self._answer(args), []

    def _answer(self, args: pulumi_mocks.MockCallArgs) -> dict:
        if args.token == "azure-native:containerservice:listManagedClusterUserCredentials":
            group, name = args.args.get("resourceGroupName"), args.args.get("resourceName")
            return aks_user_credentials(args.args, **self.aks_clusters.get((group, name), {}))
        if args.token == "azure-native:authorization:getClientConfig":
            return {
                "clientId": "00000000-0000-0000-0000-0000000000cc",
                "objectId": "00000000-0000-0000-0000-0000000000bb",
                "subscriptionId": _AZURE_SUBSCRIPTION.rsplit("/", 1)[-1],
                "tenantId": AZURE_TENANT_ID,
            }
        if args.token == "azure-native:containerservice:getManagedCluster":
            name = args.args.get("resourceName", "existing")
            version = EXISTING_AKS_VERSION
            return {
                "name": name,
                "kubernetesVersion": version.rsplit(".", 1)[0],
                "currentKubernetesVersion": version,
                "location": "eastus2",
                "agentPoolProfiles": [],
            }
        if args.token == "alicloud:cs/getClusterCredential:getClusterCredential":
            return ack_cluster_credential(args.args)
        if args.token == "alicloud:cs/getKubernetesVersion:getKubernetesVersion":
            runtimes = [{"name": "containerd", "version": "1.6.38"}]
            return {**args.args, "metadatas": [{"version": v, "runtimes": runtimes} for v in ACK_OFFERED_VERSIONS]}
        if args.token == "alicloud:cs/getKubernetesAddons:getKubernetesAddons":
            cluster, pattern = args.args.get("clusterId"), re.compile(args.args.get("nameRegex") or "")
            addons = [
                {"name": name, "currentVersion": version, "nextVersion": ACK_CURRENT_ADDONS[name], "currentConfig": ""}
                | {"required": name == "kube-scheduler", "supportedActions": ["Upgrade"]}
                for name, version in ACK_INSTALLED_ADDONS.items()
                if pattern.search(name)
            ]
            return {"clusterId": cluster, "addons": addons, "names": [a["name"] for a in addons], "ids": []}
        if args.token == "alicloud:vpc/getEnhancedNatAvailableZones:getEnhancedNatAvailableZones":
            zones = [{"zoneId": zone, "localName": zone} for zone in ENHANCED_NAT_ZONES]
            return {"id": "enhanced-nat", "zones": zones, "ids": list(ENHANCED_NAT_ZONES)}
        return {}


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
    if known_types.is_unknown(value):
        return UNKNOWN
    if rpc.is_rpc_secret(value):
        return unwrap(rpc.unwrap_rpc_secret(value))
    if isinstance(value, dict):
        return {k: unwrap(v) for k, v in value.items()}
    if isinstance(value, list):
        return [unwrap(v) for v in value]
    return _whole_number(value)


def redact(value: Any) -> Any:
    """Like :func:`unwrap`, but every secret becomes ``[secret]``."""
    if known_types.is_unknown(value):
        return UNKNOWN
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
        mocks = ProgramMocks(preview=preview)
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
    """Each stack output's value, or :data:`UNKNOWN` if any part of it is unknown (as in preview)."""
    root = settings.get_root_resource()
    exported: dict[str, Any] = getattr(root, "outputs", {}) or {}
    values: dict[str, Any] = {}
    secret: set[str] = set()
    for key, value in exported.items():
        output = pulumi.Output.from_input(value)
        values[key] = await output.future() if await output.is_known() else UNKNOWN
        if await output.is_secret():
            secret.add(key)
    return values, secret
