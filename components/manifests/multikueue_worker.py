"""What an ACK worker of a MultiKueue burst set-up holds, as plain dicts and config models.

A worker needs Kueue serving ``kueue.x-k8s.io/v1beta2`` (the manager's version), the burst namespace and LocalQueue
under the manager's names, a ClusterQueue on an ACS flavor, and an identity for the manager: a ServiceAccount whose
long-lived token the manager holds as a kubeconfig
(https://kueue.sigs.k8s.io/docs/tasks/manage/setup_multikueue/, and its script
https://github.com/kubernetes-sigs/kueue/blob/v0.17.8/site/static/examples/multikueue/create-multikueue-kubeconfig.sh).
"""

from __future__ import annotations

import base64
import binascii
import urllib.parse
from collections.abc import Mapping
from typing import Any

import yaml

from components.config.kueue import KueueConfig
from components.config.multikueue import VIRTUAL_NODE_LABEL, VIRTUAL_NODE_TAINT, MultiKueueConfig, WorkerConfig
from components.manifests.queues import API_GROUP

Manifest = dict[str, Any]

ACS_FLAVOR = "acs-virtual-node"
"""The workers' one ResourceFlavor: ACK's virtual node, whose pods run on ACS."""
WORKER_FRAMEWORKS = ["batch/job"]
"""MultiKueue's burst queue takes batch Jobs only; an integration the worker lacks the CRD of would leave the
manager's MultiKueueCluster inactive (``WATCHER_FRAMEWORKS`` in components/config/multikueue_rules.py)."""
TOKEN_SECRET_TYPE = "kubernetes.io/service-account-token"
SERVICE_ACCOUNT_ANNOTATION = "kubernetes.io/service-account.name"
"""The annotation the token controller fills a Secret of :data:`TOKEN_SECRET_TYPE` from
(https://kubernetes.io/docs/concepts/configuration/secret/#serviceaccount-token-secrets)."""
RBAC_API_VERSION = "rbac.authorization.k8s.io/v1"

MANAGER_RULES: list[dict[str, list[str]]] = [
    {
        "apiGroups": ["batch"],
        "resources": ["jobs"],
        "verbs": ["create", "delete", "get", "list", "patch", "update", "watch"],
    },
    {"apiGroups": ["batch"], "resources": ["jobs/status"], "verbs": ["get"]},
    {
        "apiGroups": [API_GROUP],
        "resources": ["workloads"],
        "verbs": ["create", "delete", "get", "list", "patch", "update", "watch"],
    },
    {"apiGroups": [API_GROUP], "resources": ["workloads/status"], "verbs": ["get", "patch", "update"]},
]
"""What the manager does on a worker for batch Jobs: Kueue's script grants create, delete, get, list and watch on
Jobs and Workloads, ``get`` on ``jobs/status``, ``get``/``patch``/``update`` on ``workloads/status``. Kueue 0.17's
controller also updates remote Workloads (https://github.com/kubernetes-sigs/kueue/pull/13692), so Workloads get
``update`` and ``patch``; Jobs get them too, so a path that changes a remote Job after creation (elastic Jobs,
https://github.com/kubernetes-sigs/kueue/pull/6445) is not refused. Nothing else: no Secrets, pods or other kinds."""


def worker_queues(burst: MultiKueueConfig, worker: WorkerConfig) -> dict[str, Any]:
    """The ``queues`` input of one worker (camelCase, for ``QueuesConfig.model_validate``).

    MultiKueue looks the copied Workload's namespace and LocalQueue up by the manager's names; the ClusterQueue may be
    named anything and reuses the manager's. The flavor gives admitted pods the virtual node's label and toleration;
    it cannot give them the ``alibabacloud.com/acs`` pod label, which the Job template must carry already
    (``ACS_POD_LABEL`` in components/config/multikueue.py). No ProvisioningRequest check: ACS has no autoscaler.
    """
    label_key, label_value = VIRTUAL_NODE_LABEL
    taint_key, taint_value, taint_effect = VIRTUAL_NODE_TAINT
    toleration = {"key": taint_key, "operator": "Equal", "value": taint_value, "effect": taint_effect}
    quota = [{"name": "cpu", "nominalQuota": worker.quota.cpu}, {"name": "memory", "nominalQuota": worker.quota.memory}]
    return {
        "namespaces": [burst.namespace],
        "resourceFlavors": [{"name": ACS_FLAVOR, "nodeLabels": {label_key: label_value}, "tolerations": [toleration]}],
        "provisioningChecks": [],
        "clusterQueues": [
            {
                "name": burst.cluster_queue,
                "namespaceSelector": {},
                "resourceGroups": [
                    {"coveredResources": ["cpu", "memory"], "flavors": [{"name": ACS_FLAVOR, "resources": quota}]}
                ],
            }
        ],
        "localQueues": [{"name": burst.local_queue, "namespace": burst.namespace, "clusterQueue": burst.cluster_queue}],
    }


_SHARED_WITH_MANAGER = {
    "chart_repository",
    "chart_version",
    "namespace",
    "release_name",
    "image_repository",
    "readiness_gate",
    "managed_jobs_namespace_selector",
}
"""What a worker's Kueue copies from the manager's: the same release (MultiKueue speaks one API version on both
sides), the same sources and names, and the same managed-namespaces selector, so the namespace labels mean the same."""


def worker_kueue(manager: KueueConfig, worker: WorkerConfig | None = None) -> KueueConfig:
    """The worker's Kueue: the manager's release and sources, but one replica of a plain batch/job Kueue.

    ``nodeSelector: {}`` because ACK's ECS nodes carry no AKS system-pool label, and no tolerations, so neither the
    manager nor the readiness gate lands on the tainted virtual node (Kueue's webhook must run on a real node). No
    fair sharing, resource transformations, feature gates or ``multiKueue`` block: a worker only admits what the
    manager dispatched. Validated anew, so every rule of :class:`KueueConfig` holds for the result.
    """
    shared = manager.model_dump(by_alias=True, include=_SHARED_WITH_MANAGER, exclude_none=True, mode="json")
    sources = {}
    if worker is not None:  # a mirror the worker's region reaches, e.g. an ACR copy of registry.k8s.io's image
        overrides = {"chartRepository": worker.chart_repository, "imageRepository": worker.image_repository}
        sources = {key: value for key, value in overrides.items() if value is not None}
    return KueueConfig.model_validate(
        {
            **shared,
            **sources,
            "frameworks": list(WORKER_FRAMEWORKS),
            "nodeSelector": {},
            "tolerations": [],
            "replicas": 1,
        }
    )


def manager_identity(burst: MultiKueueConfig) -> str:
    """The ServiceAccount, ClusterRole and ClusterRoleBinding name: one per origin, so managers sharing a worker
    (distinct origins, as MultiKueue requires) never share an identity."""
    return f"{burst.origin}-multikueue"


def token_secret_name(burst: MultiKueueConfig) -> str:
    """Carries ``tokenRotation``: a new value is a new name, which pulumi-kubernetes can only apply by replacing the
    Secret (``.metadata.name`` forces replacement), i.e. by minting a new token."""
    return f"{manager_identity(burst)}-token-{burst.token_rotation}"


def service_account(burst: MultiKueueConfig, namespace: str) -> Manifest:
    """The manager's identity on the worker, in Kueue's namespace as in Kueue's script."""
    return {
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": {"name": manager_identity(burst), "namespace": namespace},
    }


def cluster_role(burst: MultiKueueConfig) -> Manifest:
    """Cluster-wide, because MultiKueue creates Jobs and Workloads in whichever namespace the manager's Job is in."""
    rules = [{key: list(values) for key, values in rule.items()} for rule in MANAGER_RULES]
    return {
        "apiVersion": RBAC_API_VERSION,
        "kind": "ClusterRole",
        "metadata": {"name": manager_identity(burst)},
        "rules": rules,
    }


def cluster_role_binding(burst: MultiKueueConfig, namespace: str) -> Manifest:
    """Grants :func:`cluster_role` to :func:`service_account`, and nothing else."""
    name = manager_identity(burst)
    return {
        "apiVersion": RBAC_API_VERSION,
        "kind": "ClusterRoleBinding",
        "metadata": {"name": name},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name},
        "subjects": [{"kind": "ServiceAccount", "name": name, "namespace": namespace}],
    }


def token_secret(burst: MultiKueueConfig, namespace: str) -> Manifest:
    """A long-lived token: MultiKueue keeps the kubeconfig it is given, so a bound token that expires would cut the
    worker off. The token controller fills ``data`` (``token``, ``ca.crt``, ``namespace``) once the ServiceAccount
    exists, and deletes a Secret whose ServiceAccount is missing
    (https://kubernetes.io/docs/reference/access-authn-authz/service-accounts-admin/#token-controller);
    deleting the Secret revokes the token."""
    metadata = {
        "name": token_secret_name(burst),
        "namespace": namespace,
        "annotations": {SERVICE_ACCOUNT_ANNOTATION: manager_identity(burst)},
    }
    return {"apiVersion": "v1", "kind": "Secret", "type": TOKEN_SECRET_TYPE, "metadata": metadata}


def token_kubeconfig(server: str, ca_data: str, token: str, name: str) -> str:
    """The kubeconfig (YAML) a MultiKueueCluster accepts: an https ``server``, inline ``certificate-authority-data``
    and a bearer ``token``. MultiKueue refuses exec plugins, auth providers, ``tokenFile``, CA file paths,
    ``insecure-skip-tls-verify`` and basic auth (``validateKubeconfig`` in
    https://github.com/kubernetes-sigs/kueue/blob/v0.17.8/pkg/controller/admissionchecks/multikueue/multikueuecluster.go),
    so none is ever written. ``server`` is ACK's endpoint as ``AckClusterHandle.api_server_endpoint`` gives it
    (``https://<host>:6443``). Errors name the server, never the token."""
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
    return yaml.safe_dump(config, sort_keys=False)


def kubeconfig_from_token_secret(server: str, data: Mapping[str, str] | None, name: str) -> str:
    """:func:`token_kubeconfig` from a token Secret's ``data``: ``token`` is base64 like every Secret value and is
    decoded, ``ca.crt`` is already what ``certificate-authority-data`` holds (base64 PEM). pulumi-kubernetes returns
    the Secret only once the token controller filled ``data`` (``untilCoreV1SecretInitialized`` in
    https://github.com/pulumi/pulumi-kubernetes/blob/master/provider/pkg/await/awaiters.go), so an empty one here
    is an error, not a race."""
    token, ca_data = (data or {}).get("token"), (data or {}).get("ca.crt")
    if not token or not ca_data:
        raise ValueError(f"the token Secret for {name!r} has no data.token and data.ca.crt: no token was issued")
    try:
        decoded = base64.b64decode(token, validate=True).decode()
    except (binascii.Error, UnicodeDecodeError) as error:
        raise ValueError(f"the token Secret for {name!r} holds no base64 data.token") from error
    return token_kubeconfig(server, ca_data, decoded, name)
