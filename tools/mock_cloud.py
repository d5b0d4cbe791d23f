"""What the mocked clouds answer: realistic ids and computed outputs per resource type, and the invokes' answers.

The mocks return per-type outputs (ids, names, kubeconfigs) rather than echoing inputs only. In preview
(``ProgramMocks(preview=True)``) they answer the way the engine answers ``pulumi preview`` for a stack that does not
exist yet:

- a custom resource being created gets an empty id (the SDK reads it as unknown) and comes back with its own inputs
  plus every property its provider computes set to unknown, as providers answer a create in preview;
- a provider resource being created gets the engine's unknown id sentinel (``rpc.UNKNOWN``), which the Python SDK
  takes as a *known* string: ``provider.id`` runs its applies with it and provider references carry it;
- a read or import keeps its real answer (the resource exists), and components get no id, in both modes;
- invokes run in both modes. The SDK itself never sends an ``*_output`` invoke whose arguments are unknown, and
  resolves it to unknown instead: the same outcome as the engine declining an invoke that waits on a resource pending
  creation.

The credential invokes hand out a fresh secret on every call, as AKS and ACK do, so a Kubernetes provider built from
the raw answer gets different inputs on every run; see :func:`aks_user_credentials` and :func:`ack_cluster_credential`.
The vendor state the invokes report (``ACK_OFFERED_VERSIONS``, ``ACK_INSTALLED_ADDONS``, ``ENHANCED_NAT_ZONES``,
``EXISTING_AKS_VERSION`` ...) lives in module globals that tests monkeypatch.

A version pin (:mod:`components.waiters.version_pin`) is answered as the engine answers it: its provider's ``check``
runs against the last deployment's inputs (:mod:`tools.mock_engine`), and a failed check fails the run.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime
import hashlib
import json
import re
import secrets
from collections.abc import Mapping
from typing import Any

import pulumi
from pulumi.runtime import mocks as pulumi_mocks
from pulumi.runtime import rpc

from components import yaml_text
from tools import mock_engine

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
EXISTING_AKS_VERSION, EXISTING_AKS_LOCATION = "1.35.2", "eastus2"
"""The ``currentKubernetesVersion`` and ``location`` ``getManagedCluster`` reports for a cluster the stack does not
create."""
ACK_DEFAULT_CREDENTIAL_MINUTES = 3 * 365 * 24 * 60
"""Lifetime the mock gives an ACK credential requested without ``temporaryDurationMinutes`` (ACK's long default)."""


@dataclasses.dataclass(frozen=True)
class Signer:
    """Who the mocked azure-native provider signs in as: what ``getClientConfig`` and ``getClientToken`` answer."""

    object_id: str = "00000000-0000-0000-0000-0000000000bb"
    client_id: str = "00000000-0000-0000-0000-0000000000cc"
    kind: str = "ServicePrincipal"
    """``ServicePrincipal`` (an application: CI, a managed identity) or ``User`` (a person after ``az login``)."""

    def arm_token(self) -> str:
        """An unsigned JWT with the claims Entra ID puts in an ARM access token for this kind of identity: a
        user's carries delegated scopes (``scp``), an application's does not."""
        claims: dict[str, Any] = {"aud": "https://management.azure.com/", "oid": self.object_id, "tid": AZURE_TENANT_ID}
        claims |= {"scp": "user_impersonation"} if self.kind == "User" else {"appid": self.client_id, "idtyp": "app"}
        return ".".join(_base64url(part) for part in ({"alg": "none", "typ": "JWT"}, claims)) + "."


DEPLOYER = Signer()
"""The default signer: the CI deployer (an application)."""


def _base64url(part: Mapping[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(part).encode()).decode().rstrip("=")


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
    return yaml_text.dump(document)


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


def secret_uid(resource_name: str, metadata: Mapping[str, Any]) -> str:
    """The uid the mocked API server gives a Secret: the same for the same resource and object name."""
    return _digest("uid", resource_name, metadata.get("namespace"), metadata.get("name"))[:36]


MOCK_NOW = datetime.datetime(2026, 12, 1, tzinfo=datetime.UTC)
"""When the mocked TokenRequest API says it issued a token."""


def service_account_token(inputs: Mapping[str, Any]) -> dict[str, str]:
    """What the TokenRequest API answers a :class:`~components.waiters.worker_token.WorkerToken` with, as its outputs: a
    token per account and anchor (a rotated anchor gets a new one), issued at :data:`MOCK_NOW` for the lifetime
    asked."""
    anchor = inputs.get("anchor") or {}
    seed = _digest("token", inputs.get("namespace"), inputs.get("serviceAccount"), anchor.get("uid"))
    token = f"eyJhbGciOiJSUzI1NiJ9.{seed[:32]}.mock"
    expires = MOCK_NOW + datetime.timedelta(seconds=int(inputs.get("expirationSeconds") or 0))
    return {"token": token, "issuedAt": MOCK_NOW.isoformat(), "expiresAt": expires.isoformat()}


def is_worker_token(args: pulumi_mocks.MockResourceArgs) -> bool:
    """A dynamic :class:`~components.waiters.worker_token.WorkerToken` (the mocks see dynamic resources by their
    inputs)."""
    return args.typ == "pulumi-python:dynamic/multikueue:WorkerToken"


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
    if args.typ == "kubernetes:core/v1:Secret":
        # The API server gives every object a uid; the program binds worker tokens to a Secret's.
        metadata = inputs.get("metadata") or {}
        return {"metadata": {**metadata, "uid": secret_uid(args.name, metadata)}}
    if is_worker_token(args):
        return service_account_token(inputs)
    if args.typ == "alicloud:cs/managedKubernetes:ManagedKubernetes":
        # The same server the cluster's credential names (see ack_cluster_credential). Read stores CurrentVersion:
        # the version sent once ACK has upgraded to it, or the newer one a cluster of that name already ran.
        host = _digest("ack", _mock_id(args))[:8]
        running = ACK_RUNNING_CLUSTERS.get(str(inputs.get("name")), {}).get("currentVersion")
        return {
            "version": max(filter(None, (inputs.get("version"), running)), key=_ack_order, default=None),
            "vpcId": "vpc-mock",
            "connections": [
                {
                    "apiServerInternet": f"https://{host}.cs.mock.invalid:6443",
                    "apiServerIntranet": "https://10.1.0.5:6443",
                }
            ],
        }
    if args.typ == "alicloud:cs/kubernetesAddon:KubernetesAddon":
        # The provider reads back the installed version; without one sent, an addon ACK had installed keeps its
        # version (Create adopts it) and a new one gets ACK's current version.
        name = str(inputs.get("name"))
        return {
            "version": inputs.get("version") or ACK_INSTALLED_ADDONS.get(name) or ACK_CURRENT_ADDONS.get(name, ""),
            "required": name == "kube-scheduler",
        }
    if args.typ == "alicloud:vpc/natGateway:NatGateway":
        return {"snatTableIds": f"stb-{args.name}", "forwardTableIds": f"ftb-{args.name}"}
    if args.typ == "alicloud:ecs/eipAddress:EipAddress":
        return {"ipAddress": "198.51.100.10"}
    return {}


def _ack_order(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", version))


def ack_running_cluster(name: str, version: str, vswitches: int = 2) -> dict[str, Any]:
    """One entry of ``cs.getClusters``' list: a running ACK Pro cluster ``name`` on ``version`` with ``vswitches``
    control-plane vSwitches, its id the one the mocks give the cluster ``ack-<name>-cluster``."""
    cluster_id = f"managedkubernetes-ack-{name}-cluster"
    return {
        "clusterId": cluster_id,
        "id": cluster_id,
        "clusterName": name,
        "clusterSpec": "ack.pro.small",
        "clusterType": "ManagedKubernetes",
        "currentVersion": version,
        "state": "running",
        "vswitchIds": [f"vsw-{index}" for index in range(vswitches)],
    }


def _mock_id(args: pulumi_mocks.MockResourceArgs) -> str:
    if args.typ.startswith("azure-native:"):
        return _azure_id(args)
    if args.typ == "alicloud:cs/kubernetesPermission:KubernetesPermission":
        return str(args.inputs.get("uid"))  # the provider's id is the RAM identity's id
    if args.typ.startswith("alicloud:"):
        return f"{args.typ.rsplit(':', 1)[-1].lower()}-{args.name}"
    if args.typ.startswith("kubernetes:") and args.custom:
        meta = args.inputs.get("metadata") or {}
        namespace = meta.get("namespace")
        return f"{namespace}/{meta.get('name', args.name)}" if namespace else str(meta.get("name", args.name))
    return f"{args.name}-id"


AKS_OFFERED_VERSIONS = {
    "1.33": ("AKSLongTermSupport",),
    "1.34": ("AKSLongTermSupport",),
    "1.35": ("KubernetesOfficial", "AKSLongTermSupport"),
    "1.36": ("KubernetesOfficial", "AKSLongTermSupport"),
    "1.37": ("KubernetesOfficial", "AKSLongTermSupport"),
}
"""What ARM's "List Kubernetes versions" answers for any location: AKS's calendar on 2026-12-01, 1.33 and 1.34 under
Long-Term Support only."""


def aks_catalogue(_token: str, _subscription_id: str, _location: str) -> dict[str, tuple[str, ...]]:
    """``components.azure.aks_catalogue.LOOKUP`` under the mocks."""
    return dict(AKS_OFFERED_VERSIONS)


ACK_OFFERED_VERSIONS = ("1.35.0-aliyun.1", "1.35.2-aliyun.1", "1.36.1-aliyun.1")
"""What ``cs.getKubernetesVersion`` lists: illustrative patches of the minors ACK supports at the end of 2026."""
ACK_CURRENT_ADDONS = {"kube-scheduler": "v1.35.0-apsara.6.11.4.77470105", "ack-virtual-node": "v2.17.3"}
"""The version ACK installs of an addon asked for without one: what a ``KubernetesAddon`` reads back then."""
ACK_INSTALLED_ADDONS = {"kube-scheduler": ACK_CURRENT_ADDONS["kube-scheduler"], "ack-virtual-node": ""}
"""What ``cs.getKubernetesAddons`` reports installed in a new Pro cluster: kube-scheduler by default, the virtual node
not yet (an empty ``currentVersion``)."""
ACK_EXISTING_ADDONS = dict(ACK_CURRENT_ADDONS)
"""What ``cs.getKubernetesAddons`` reports in a cluster the program did not create: both at ACK's current version."""
ACK_RUNNING_CLUSTERS: dict[str, dict[str, Any]] = {}
"""What ``cs.getClusters`` lists for a cluster name: none by default (the stack has created nothing yet); a test
puts :func:`ack_running_cluster` there for a cluster that runs, whose ``version`` the provider then reads back."""
ACK_EXISTING_VERSION = "1.35.2-aliyun.1"
"""The ``currentVersion`` ``cs.getClusters`` reports for a cluster; its ``clusterSpec`` is ``ack.pro.small``."""
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

    With ``preview`` the resources being created answer as in ``pulumi preview`` (see the module docstring); the
    Azure invokes answer for ``signer``.
    """

    def __init__(self, preview: bool = False, signer: Signer = DEPLOYER) -> None:
        self.preview = preview
        self.signer = signer
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
        if args.typ in mock_engine.VERSION_PIN_TYPES:
            return str(args.inputs.get("key")), mock_engine.version_pin(args)
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
                "clientId": self.signer.client_id,
                "objectId": self.signer.object_id,
                "subscriptionId": _AZURE_SUBSCRIPTION.rsplit("/", 1)[-1],
                "tenantId": AZURE_TENANT_ID,
            }
        if args.token == "azure-native:authorization:getClientToken":
            return {"token": self.signer.arm_token()}
        if args.token == "azure-native:containerservice:getManagedCluster":
            name = args.args.get("resourceName", "existing")
            version = EXISTING_AKS_VERSION
            return {
                "name": name,
                "kubernetesVersion": version.rsplit(".", 1)[0],
                "currentKubernetesVersion": version,
                "location": EXISTING_AKS_LOCATION,
                "agentPoolProfiles": [],
            }
        if args.token == "alicloud:cs/getClusterCredential:getClusterCredential":
            return ack_cluster_credential(args.args)
        if args.token == "alicloud:cs/getKubernetesVersion:getKubernetesVersion":
            runtimes = [{"name": "containerd", "version": "1.6.38"}]
            return {**args.args, "metadatas": [{"version": v, "runtimes": runtimes} for v in ACK_OFFERED_VERSIONS]}
        if args.token == "alicloud:cs/getKubernetesAddons:getKubernetesAddons":
            cluster, pattern = args.args.get("clusterId"), re.compile(args.args.get("nameRegex") or "")
            created = str(cluster).startswith("managedkubernetes-")
            addons = [
                {"name": name, "currentVersion": version, "nextVersion": ACK_CURRENT_ADDONS[name], "currentConfig": ""}
                | {"required": name == "kube-scheduler", "supportedActions": ["Upgrade"]}
                for name, version in (ACK_INSTALLED_ADDONS if created else ACK_EXISTING_ADDONS).items()
                if pattern.search(name)
            ]
            return {"clusterId": cluster, "addons": addons, "names": [a["name"] for a in addons], "ids": []}
        if args.token == "alicloud:cs/getClusters:getClusters" and "clusterName" in args.args:
            named = ACK_RUNNING_CLUSTERS.get(str(args.args["clusterName"]))
            return {"clusters": [named] if named else [], "ids": [named["clusterId"]] if named else []}
        if args.token == "alicloud:cs/getClusters:getClusters":
            cluster = args.args.get("clusterId")
            found = {"clusterId": cluster, "id": cluster, "clusterName": f"mock-{cluster}", "state": "running"}
            found |= {"clusterSpec": "ack.pro.small", "clusterType": "ManagedKubernetes"}
            return {"clusters": [found | {"currentVersion": ACK_EXISTING_VERSION}], "ids": [cluster]}
        if args.token == "alicloud:vpc/getEnhancedNatAvailableZones:getEnhancedNatAvailableZones":
            zones = [{"zoneId": zone, "localName": zone} for zone in ENHANCED_NAT_ZONES]
            return {"id": "enhanced-nat", "zones": zones, "ids": list(ENHANCED_NAT_ZONES)}
        return {}
