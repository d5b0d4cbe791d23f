"""What a MultiKueue worker holds for the manager, as plain dicts: its identity, what that identity may do, the ACS
placement of burst pods, and the kubeconfig the manager connects with.

The identity is a ServiceAccount in Kueue's namespace with the least MultiKueue works with
(https://kueue.sigs.k8s.io/docs/tasks/manage/setup_multikueue/, whose script
https://github.com/kubernetes-sigs/kueue/blob/v0.17.8/site/static/examples/multikueue/create-multikueue-kubeconfig.sh
grants the same verbs cluster-wide): ``list``/``watch`` cluster-wide on Workloads and on the kind of each integration
the manager dispatches, because MultiKueue's watches span every namespace (``establishWatch`` in
https://github.com/kubernetes-sigs/kueue/blob/v0.17.8/pkg/controller/admissionchecks/multikueue/multikueuecluster.go),
and every write only in the burst namespaces, where the copies are made. Its token is a bound, expiring token
(:mod:`components.waiters.worker_token`) tied to an anchor Secret: deleting the anchor revokes it.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Mapping, Sequence
from typing import Any

from components import yaml_text
from components.config.ack.acs import COMPUTE_CLASS_LABEL, COMPUTE_QOS_LABEL
from components.config.multikueue.adapters import WORKLOADS, WatchedKind
from components.config.multikueue.multikueue import AcsPlacement, MultiKueueConfig
from components.manifests.acs import RESOURCE_POLICY_API_VERSION

Manifest = dict[str, Any]

RBAC_API_VERSION = "rbac.authorization.k8s.io/v1"
WRITE_VERBS = ["create", "delete", "get", "patch", "update"]
"""What MultiKueue does to its copies in a burst namespace: creates, reads, deletes and updates them (Kueue 0.17
updates remote Workloads, https://github.com/kubernetes-sigs/kueue/pull/13692; ``patch``/``update`` on the job kinds
keep a path that changes a remote Job after creation, https://github.com/kubernetes-sigs/kueue/pull/6445, from being
refused)."""
READ_VERBS = ["list", "watch"]
"""MultiKueue's cluster-wide watches (with the origin label as selector)."""


def manager_identity(burst: MultiKueueConfig) -> str:
    """The ServiceAccount, roles and bindings' name: one per origin, so managers sharing a worker (distinct origins,
    as MultiKueue requires) never share an identity."""
    return f"{burst.origin}-multikueue"


def service_account(burst: MultiKueueConfig, namespace: str) -> Manifest:
    """The manager's identity on the worker, in Kueue's namespace as in Kueue's script; it mounts no token."""
    return {
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": {"name": manager_identity(burst), "namespace": namespace},
        "automountServiceAccountToken": False,
    }


def _status(kind: WatchedKind) -> str:
    return f"{kind.resource}/status"


def cluster_role(
    burst: MultiKueueConfig, watched: Sequence[WatchedKind], gate_reads: Sequence[WatchedKind] = ()
) -> Manifest:
    """Read-only and cluster-wide: the watches MultiKueue opens on every worker, and those the manager's feature gates
    add (``gate_reads``, :data:`~components.config.multikueue.adapters.GATE_READS`), nothing else."""
    kinds = [WORKLOADS, *watched, *(kind for kind in gate_reads if kind not in watched)]
    rules = [{"apiGroups": [kind.api_group], "resources": [kind.resource], "verbs": list(READ_VERBS)} for kind in kinds]
    return {
        "apiVersion": RBAC_API_VERSION,
        "kind": "ClusterRole",
        "metadata": {"name": manager_identity(burst)},
        "rules": rules,
    }


def role(burst: MultiKueueConfig, namespace: str, watched: Sequence[WatchedKind]) -> Manifest:
    """The writes, in one burst namespace: the copies of the dispatched kinds and their Workloads, and their
    status (read for the job kinds, as Kueue's script; written for Workloads, whose status MultiKueue syncs)."""
    rules = [
        {"apiGroups": [kind.api_group], "resources": [kind.resource], "verbs": list(WRITE_VERBS)} for kind in watched
    ]
    rules += [{"apiGroups": [kind.api_group], "resources": [_status(kind)], "verbs": ["get"]} for kind in watched]
    rules += [
        {"apiGroups": [WORKLOADS.api_group], "resources": [WORKLOADS.resource], "verbs": list(WRITE_VERBS)},
        {"apiGroups": [WORKLOADS.api_group], "resources": [_status(WORKLOADS)], "verbs": ["get", "patch", "update"]},
    ]
    metadata = {"name": manager_identity(burst), "namespace": namespace}
    return {"apiVersion": RBAC_API_VERSION, "kind": "Role", "metadata": metadata, "rules": rules}


def _subjects(burst: MultiKueueConfig, identity_namespace: str) -> list[dict[str, str]]:
    return [{"kind": "ServiceAccount", "name": manager_identity(burst), "namespace": identity_namespace}]


def cluster_role_binding(burst: MultiKueueConfig, identity_namespace: str) -> Manifest:
    """Grants :func:`cluster_role` to :func:`service_account`, and nothing else."""
    name = manager_identity(burst)
    return {
        "apiVersion": RBAC_API_VERSION,
        "kind": "ClusterRoleBinding",
        "metadata": {"name": name},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name},
        "subjects": _subjects(burst, identity_namespace),
    }


def role_binding(burst: MultiKueueConfig, namespace: str, identity_namespace: str) -> Manifest:
    """Grants :func:`role` of ``namespace`` to :func:`service_account`."""
    name = manager_identity(burst)
    return {
        "apiVersion": RBAC_API_VERSION,
        "kind": "RoleBinding",
        "metadata": {"name": name, "namespace": namespace},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": name},
        "subjects": _subjects(burst, identity_namespace),
    }


def token_anchor(burst: MultiKueueConfig, namespace: str) -> Manifest:
    """The object the manager's token is bound to: an empty Secret named after ``tokenRotation``. A new rotation is a
    new anchor (a new token bound to it), and deleting the old anchor revokes the old token
    (https://kubernetes.io/docs/reference/access-authn-authz/service-accounts-admin/#bound-service-account-token-volume)."""
    name = f"{manager_identity(burst)}-anchor-{burst.token_rotation}"
    return {"apiVersion": "v1", "kind": "Secret", "type": "Opaque", "metadata": {"name": name, "namespace": namespace}}


def acs_resource_policy(
    burst: MultiKueueConfig, namespace: str, placement: AcsPlacement, selector: Mapping[str, str]
) -> Manifest:
    """Every burst pod of a namespace on ACS, never ECI: a ResourcePolicy selecting the pods by ``selector``, a label
    the worker's Kueue puts on each of them (``WorkerPlan.burst_pod_selector``), with one ``acs`` unit that gives them
    the compute class and QoS labels (ACK's custom priority-based scheduling,
    https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/configure-priority-based-resource-scheduling).
    The selector is never empty: ACK documents no meaning for an empty one. A Job needs no ACS label of its own; the
    ACS flavor's node selector and toleration still keep its pods off the ECS nodes."""
    if not selector:
        raise ValueError(f"ResourcePolicy in {namespace!r}: the selector must name a label every burst pod carries")
    unit = {
        "resource": "acs",
        "podLabels": {COMPUTE_CLASS_LABEL: placement.compute_class, COMPUTE_QOS_LABEL: placement.compute_qos},
    }
    return {
        "apiVersion": RESOURCE_POLICY_API_VERSION,
        "kind": "ResourcePolicy",
        "metadata": {"name": f"{manager_identity(burst)}-acs", "namespace": namespace},
        "spec": {"selector": dict(selector), "units": [unit]},
    }


def cluster_endpoint(kubeconfig: str) -> tuple[str, str]:
    """The server and ``certificate-authority-data`` of a kubeconfig's current cluster: the endpoint and CA the
    program itself reaches the worker with, so the manager's kubeconfig trusts exactly what was proven to work."""
    document: Any = yaml_text.load(kubeconfig)
    clusters = {entry["name"]: entry["cluster"] for entry in document.get("clusters") or []}
    contexts = {entry["name"]: entry["context"] for entry in document.get("contexts") or []}
    current = (contexts.get(document.get("current-context")) or {}).get("cluster")
    cluster: dict[str, Any] = clusters[current] if current in clusters else next(iter(clusters.values()), {})
    return str(cluster.get("server") or ""), str(cluster.get("certificate-authority-data") or "")


def token_kubeconfig(server: str, ca_data: str, token: str, name: str) -> str:
    """The kubeconfig (YAML) a MultiKueueCluster accepts: an https ``server``, inline ``certificate-authority-data``
    and a bearer ``token``. MultiKueue refuses exec plugins, auth providers, ``tokenFile``, CA file paths,
    ``insecure-skip-tls-verify`` and basic auth (``validateKubeconfig`` in
    https://github.com/kubernetes-sigs/kueue/blob/v0.17.8/pkg/controller/admissionchecks/multikueue/multikueuecluster.go),
    so none is ever written. Errors name the server, never the token."""
    parts = urllib.parse.urlsplit(server)
    if parts.scheme != "https" or not parts.hostname:
        raise ValueError(f"worker API server {server!r}: MultiKueue needs an https://<host>[:port] endpoint")
    if not (ca_data and token and name):
        raise ValueError(f"worker API server {server!r}: the kubeconfig needs a CA, a token and a name")
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": name, "cluster": {"server": server, "certificate-authority-data": ca_data}}],
        "users": [{"name": name, "user": {"token": token}}],
        "contexts": [{"name": name, "context": {"cluster": name, "user": name}}],
        "current-context": name,
    }
    return yaml_text.dump(config)


def manager_kubeconfig(worker_kubeconfig: str, token: str, name: str) -> str:
    """:func:`token_kubeconfig` at the endpoint and with the CA of ``worker_kubeconfig``."""
    server, ca_data = cluster_endpoint(worker_kubeconfig)
    return token_kubeconfig(server, ca_data, token, name)
