"""The simulated clouds as one world: Azure (ARM and Azure RBAC), Alibaba Cloud (RAM and ACK RBAC) and the
Kubernetes API servers of their clusters, on one simulated clock, with the identities of
:mod:`tools.world.identities` and who may do what (:mod:`tools.world.roles`).

Authorization is decided as the services decide it, at the moment of the request:

- ARM: the caller's role assignments at the request's scope or above it; an assignment the stack creates takes effect
  0-5 minutes after it is created (https://learn.microsoft.com/azure/aks/manage-azure-rbac: "can take up to five
  minutes"), drawn per assignment from the world's seed;
- an AKS cluster with Entra ID and Azure RBAC: the data action of the request (:func:`tools.world.actions.
  aks_data_action`) against the same assignments, plus Kubernetes RBAC's discovery for anyone signed in and cluster
  admin for members of ``aadProfile.adminGroupObjectIDs``; a cluster with local accounts answers its admin token;
- RAM: the caller's policies; an ACK cluster: its creator is cluster admin, every other RAM identity has the ACK roles
  granted to it (``cs.KubernetesPermission``, or the docs' grants) and nothing else;
- a cluster given by kubeconfig (kind) answers its kubeconfig's user as admin.

Every decision is written to :attr:`World.requests`, allowed or not: :mod:`tools.permissions` reads what the plan
asked of whom from there.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterable, Mapping
from typing import Any

from components import yaml_text
from tools.world import actions, roles
from tools.world.clock import Conductor
from tools.world.identities import IDENTITIES, LOCAL, Identity
from tools.world.kube import ApiError, Cluster

SUBSCRIPTION = "/subscriptions/00000000-0000-0000-0000-000000000000"
"""The subscription every simulated Azure resource is in (the mocks' ids name it)."""
ROLE_PROPAGATION = (0.0, 300.0)
"""Seconds from creating an Azure role assignment until the API server honours it."""
DISCOVERY_PATHS = ("/version", "/api", "/apis", "/openapi/v3")


class Refused(Exception):
    """A cloud refused an operation; the message says who asked, what for, and what it lacked."""

    def __init__(self, who: str, what: str, lacks: str, hint: str = "") -> None:
        super().__init__(f"{who} may not {what}: it lacks {lacks}" + (f" ({hint})" if hint else ""))
        self.who, self.what, self.lacks, self.hint = who, what, lacks, hint


@dataclasses.dataclass(frozen=True)
class Assignment:
    """An Azure role assignment: whose, which role, where, and from when it works."""

    principal: str
    role: roles.AzureRole
    scope: str
    effective_at: float
    name: str = ""
    """The resource that made it (``aks-deployer-cluster-admin``), or the docs' grant."""


@dataclasses.dataclass(frozen=True)
class Request:
    """One authorization decision: who asked which cloud for what, when, and whether it was allowed."""

    at: float
    who: str
    cloud: str
    """``azure``, ``aks-data``, ``alibaba`` or ``kubernetes``."""
    action: str
    """An ARM action, a data action, a RAM action, or ``<verb> <group>/<resource>`` in Kubernetes."""
    allowed: bool
    where: str = ""
    step: str = ""
    """The step that made it (a resource's URN, an invoke's key)."""
    operation: str = ""
    """The operation it was part of: ``up``, ``preview``, ``refresh`` or ``destroy``."""
    lacks: str = ""
    """For a refusal: what was missing, and when a grant on its way arrives."""


class World:
    """Every simulated cloud and cluster; the identity running Pulumi is :attr:`runner`."""

    def __init__(
        self,
        seed: int = 0,
        *,
        role_propagation: tuple[float, float] = ROLE_PROPAGATION,
        transient_rate: float = 0.02,
        observe_only: bool = False,
    ) -> None:
        """``role_propagation`` bounds the delay of every role assignment the stack makes (``(300, 300)``: each takes
        the longest AKS documents); ``transient_rate`` is the share of reads answered 429 or 503; ``observe_only``
        allows everything and only records it (:mod:`tools.permissions`)."""
        self.rng = random.Random(seed)
        self.role_propagation = role_propagation
        self.conductor = Conductor()
        self.transient_rate = transient_rate
        self.observe_only = observe_only
        self.assignments: list[Assignment] = []
        self.groups: dict[str, set[str]] = {}
        """Entra group object id -> member object ids."""
        self.clusters: dict[str, Cluster] = {}
        """By API server URL."""
        self.aks: dict[str, dict[str, Any]] = {}
        """AKS cluster ARM id (lower case) -> its server, whether it uses Azure RBAC, its admin groups."""
        self.ack: dict[str, dict[str, Any]] = {}
        """ACK cluster id -> its server, its creator's RAM id and the ACK roles granted on it."""
        self.requests: list[Request] = []
        self.runner: Identity | None = None
        self.step = ""
        """The step the engine runs outside the clock's processes (for the record)."""
        self.operation = ""
        """The operation the engine runs (for the record)."""
        self.cluster_operations: dict[str, str] = {}
        """AKS cluster name -> the pool or maintenance operation running on it."""
        self.credential_expires: float | None = None
        """When the runner's Kubernetes credential expires for good: ``None`` while its sign-in renews itself
        (kubelogin's workload identity, ack-ram-tool); a cached ``az`` token cannot be renewed."""

    @property
    def now(self) -> float:
        return self.conductor.now

    # --- who is who ---------------------------------------------------------------------------------------------------

    def run_as(self, name: str) -> Identity:
        """Make ``name`` the identity running Pulumi, and give it the docs' grants if it has none yet."""
        identity = IDENTITIES[name] if name != LOCAL else Identity(LOCAL, "", "by hand on kind", ("up", "destroy"))
        self.runner = identity
        if identity.object_id and not any(a.principal == identity.object_id for a in self.assignments):
            for role, scope in identity.azure:
                if scope == "subscription":
                    self.assign(identity.object_id, roles.AZURE_ROLES[role], SUBSCRIPTION, -1.0, f"docs: {role}")
        return identity

    def grant_on_shared(self, identity: Identity, aks_id: str | None, ack_id: str | None) -> None:
        """The docs' grants on the shared clusters, made once those clusters exist."""
        for role, scope in identity.azure:
            if scope == "shared-aks" and aks_id:
                self.assign(identity.object_id, roles.AZURE_ROLES[role], aks_id, -1.0, f"docs: {role} (shared)")
        for role, scope in identity.ack:
            if scope == "shared-ack" and ack_id in self.ack:
                self.ack[ack_id]["grants"].append((identity.ram_uid, role, None))

    def assign(self, principal: str, role: roles.AzureRole, scope: str, effective_at: float, name: str) -> None:
        self.assignments.append(Assignment(principal, role, scope, effective_at, name))

    def principals(self, identity: Identity) -> set[str]:
        return {identity.object_id} | {group for group, members in self.groups.items() if identity.object_id in members}

    # --- Azure ----------------------------------------------------------------------------------------------------

    def azure_roles(self, identity: Identity, scope: str, *, pending: bool = False) -> list[Assignment]:
        """The assignments that apply to ``identity`` at ``scope``: in effect now, or (``pending``) not yet."""
        scope = scope.lower()
        return [
            a
            for a in self.assignments
            if a.principal in self.principals(identity)
            and (scope == a.scope.lower() or scope.startswith(a.scope.lower().rstrip("/") + "/"))
            and ((a.effective_at > self.now) if pending else (a.effective_at <= self.now))
        ]

    def check_arm(self, action: str, scope: str, what: str) -> None:
        """Refuse ``action`` at ``scope`` unless the runner's roles there allow it."""
        if not self.ask_arm(action, scope):
            identity = self._runner()
            raise Refused(identity.name, what, action, f"at {scope}; {self._granted(identity)}")

    def ask_arm(self, action: str, scope: str) -> bool:
        """Whether the runner's roles at ``scope`` allow ``action``, recorded either way (for a call whose refusal the
        program survives)."""
        identity = self._runner()
        allowed = self.observe_only or roles.azure_allows((a.role for a in self.azure_roles(identity, scope)), action)
        self._record(identity.name, "azure", action, allowed, scope, "" if allowed else action)
        return allowed

    def _granted(self, identity: Identity) -> str:
        held = sorted({f"{a.role.name} on {a.scope}" for a in self.assignments if a.principal == identity.object_id})
        return "it holds " + ("; ".join(held) if held else "no Azure role")

    # --- Alibaba Cloud --------------------------------------------------------------------------------------------

    def check_ram(self, ram_actions: Iterable[str], what: str, context: Mapping[str, str] | None = None) -> None:
        identity = self._runner()
        policies = [roles.RAM_POLICIES[name] for name in identity.ram]
        for action in ram_actions:
            allowed = self.observe_only or roles.ram_allows(policies, action, context=dict(context or {}))
            self._record(identity.name, "alibaba", action, allowed, "", "" if allowed else action)
            if not allowed:
                raise Refused(identity.name, what, action, f"its RAM policies: {', '.join(identity.ram) or 'none'}")

    # --- clusters -------------------------------------------------------------------------------------------------

    def add_cluster(self, name: str, server: str, kind: str) -> Cluster:
        cluster = Cluster(
            name, server, kind, lambda: self.now, self.rng, self._authorize_kube, transient_rate=self.transient_rate
        )
        cluster.connect_worker = self._worker_connects
        self.clusters[server] = cluster
        return cluster

    def connect(self, kubeconfig: str) -> Client:
        """What a waiter's ``RestCluster(kubeconfig)`` reaches: the cluster the kubeconfig names, as the identity it
        signs in as (the runner for kubelogin and ack-ram-tool; a token's own account; a plain user as admin)."""
        document = yaml_text.load(kubeconfig)
        context = _named(document.get("contexts"), document.get("current-context")).get("context") or {}
        server = _named(document.get("clusters"), context.get("cluster")).get("cluster", {}).get("server")
        user = _named(document.get("users"), context.get("user")).get("user") or {}
        cluster = self.clusters.get(str(server))
        if cluster is None:
            raise ApiError(503, "ServiceUnavailable", f"no API server answers at {server}")
        if "exec" in user:
            who = self._runner().name
            if self.credential_expires is not None and self.now >= self.credential_expires:
                expired = clock(self.credential_expires)
                raise ApiError(401, "Unauthorized", f"the credential {who} signed in with expired at {expired}")
        elif "token" in user and user["token"] in cluster.tokens:
            namespace, account, _ = cluster.tokens[user["token"]]
            who = f"system:serviceaccount:{namespace}:{account}"
        else:
            who = LOCAL if cluster.kind == "plain" else "cluster-admin"
        return Client(cluster, who)

    def discover(self, kubeconfig: str) -> None:
        """What a Kubernetes provider reads when it is configured, and Chart v4 when it renders: the server's version,
        its API groups and OpenAPI schema. Kubernetes RBAC lets every signed-in identity read them
        (``system:discovery``, https://kubernetes.io/docs/reference/access-authn-authz/rbac/#discovery-roles)."""
        client = self.connect(kubeconfig)
        for path in DISCOVERY_PATHS:
            self._record(client.who, "kubernetes", f"get {path}", True, client.cluster.name)

    def _worker_connects(self, kubeconfig: str) -> float | None:
        """When the worker a MultiKueue kubeconfig names serves Kueue to it: once the worker has issued a token that
        has not expired. The plan's kubeconfig carries the token the mocks issued when the program ran, so the world
        takes any live token its worker issued for the one in it."""
        document = yaml_text.load(kubeconfig)
        server = (document.get("clusters") or [{}])[0].get("cluster", {}).get("server")
        worker = self.clusters.get(str(server))
        if worker is None or worker.kueue is None:
            return None
        if not any(expires > self.now for _, _, expires in worker.tokens.values()):
            return None
        return worker.kueue.webhooks_at

    def _authorize_kube(
        self, cluster: Cluster, who: str, verb: str, group: str, resource: str, namespace: str | None
    ) -> None:
        action = f"{verb} {group or 'core'}/{resource}" + (f" in {namespace}" if namespace else "")
        allowed, lacks = self._kube_allowed(cluster, who, verb, group, resource)
        allowed = allowed or self.observe_only
        self._record(who, "kubernetes", action, allowed, cluster.name, lacks)
        if not allowed:
            raise ApiError(
                403,
                "Forbidden",
                f'{resource} is forbidden: User "{who}" cannot {verb} resource "{resource}" in API group "{group}"'
                + (f' in the namespace "{namespace}"' if namespace else " at the cluster scope"),
                lacks,
            )

    def _kube_allowed(self, cluster: Cluster, who: str, verb: str, group: str, resource: str) -> tuple[bool, str]:
        if cluster.kind == "plain" or who == "cluster-admin":
            return True, ""
        if who.startswith("system:serviceaccount:"):
            return True, ""  # the manager's account on a worker: the stack's own Roles grant it (not modelled)
        identity = IDENTITIES.get(who)
        if identity is None:
            return False, "an identity the world knows"
        if cluster.kind == "ack":
            return self._ack_allowed(cluster, identity, verb, group, resource)
        return self._aks_allowed(cluster, identity, verb, group, resource)

    def _aks_allowed(
        self, cluster: Cluster, identity: Identity, verb: str, group: str, resource: str
    ) -> tuple[bool, str]:
        arm_id, info = next((i, v) for i, v in self.aks.items() if v["server"] == cluster.server)
        if self.principals(identity) & set(info["admin_groups"]):
            return True, ""
        action = actions.aks_data_action(group, resource, verb)
        held = self.azure_roles(identity, arm_id)
        allowed = roles.azure_allows((a.role for a in held), action, data=True)
        self._record(identity.name, "aks-data", action, allowed or self.observe_only, arm_id)
        if allowed:
            return True, ""
        pending = [a for a in self.azure_roles(identity, arm_id, pending=True)]
        coming = [a for a in pending if roles.azure_role_allows(a.role, action, data=True)]
        if coming:
            first = min(coming, key=lambda a: a.effective_at)
            return False, f"{action}: {first.name} ({first.role.name}) takes effect at {clock(first.effective_at)}"
        return False, f"{action} on {arm_id}"

    def _ack_allowed(
        self, cluster: Cluster, identity: Identity, verb: str, group: str, resource: str
    ) -> tuple[bool, str]:
        info = next(v for v in self.ack.values() if v["server"] == cluster.server)
        if identity.ram_uid == info["creator"]:
            return True, ""
        rules = [rule for uid, role, _ in info["grants"] if uid == identity.ram_uid for rule in roles.ACK_ROLES[role]]
        if roles.kube_allows(rules, group, resource, verb):
            return True, ""
        return False, f"an ACK role allowing {verb} on {group or 'core'}/{resource} (it is not the cluster's creator)"

    def _record(self, who: str, cloud: str, action: str, allowed: bool, where: str, lacks: str = "") -> None:
        step = self.conductor.current or self.step
        self.requests.append(Request(self.now, who, cloud, action, allowed, where, step, self.operation, lacks))

    def refusal(self, step: str) -> Request | None:
        """The last request ``step`` was refused, if any."""
        return next((r for r in reversed(self.requests) if r.step == step and not r.allowed), None)

    def _runner(self) -> Identity:
        assert self.runner is not None, "run_as first"
        return self.runner


class Client:
    """:class:`components.waiters.kube_wait.Cluster` on a simulated API server, as one identity."""

    def __init__(self, cluster: Cluster, who: str) -> None:
        self.cluster, self.who = cluster, who

    def get(self, path: str) -> Any:
        return self.cluster.get(self.who, path)

    def list(self, path: str, label_selector: str | None = None) -> list[Any]:
        return self.cluster.list(self.who, path, label_selector)

    def post(self, path: str, body: Any) -> Any:
        return self.cluster.post(self.who, path, body)


def clock(second: float) -> str:
    """A simulated second as ``mm:ss`` from the start of the run."""
    return f"{int(second // 60):02d}:{int(second % 60):02d}"


def _named(entries: Any, name: Any) -> dict[str, Any]:
    return next((entry for entry in entries or () if entry.get("name") == name), {})
