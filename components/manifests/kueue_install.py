"""Kueue's Helm values and the objects of its readiness gate, as plain dicts.

The gate is a Job that asks the API server to create a ResourceFlavor and a ClusterQueue with
``kubectl create --dry-run=server``: that runs Kueue's mutating and validating webhooks without persisting anything,
so the Job only completes once those webhooks answer (the probe Kueue's own e2e uses, kueue PR #12016).
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

import yaml
from pydantic import BaseModel

from components.config.base import PROJECT
from components.config.kueue import KueueConfig

MANAGER_CONFIG_API_VERSION = "config.kueue.x-k8s.io/v1beta2"
PROVISIONING_REQUEST_CRD = "provisioningrequests.autoscaling.x-k8s.io"
CRD_CHECK_CONTAINER = "check-provisioningrequest-crd"
PROBE_CONTAINER = "webhook-probe"
PROBE_MOUNT = "/probe"
PROBE_FILE = "probe.yaml"
KUBECTL_CACHE = "/tmp/kube-cache"
"""kubectl writes its discovery cache under $HOME by default; the probe's root filesystem is read-only."""
PROBE_USER = 65532
"""A non-root uid: the kubectl image's own user may be root, which ``runAsNonRoot`` alone would refuse."""

_DEFAULT_MANAGER_CONFIG: dict[str, Any] = {
    "health": {"healthProbeBindAddress": ":8081"},
    "metrics": {"bindAddress": ":8443"},
    "webhook": {"port": 9443},
    "leaderElection": {"leaderElect": True, "resourceName": "c1f6bfd2.kueue.x-k8s.io"},
    "controller": {
        "groupKindConcurrency": {
            "Job.batch": 5,
            "Pod": 5,
            "Workload.kueue.x-k8s.io": 5,
            "LocalQueue.kueue.x-k8s.io": 1,
            "ClusterQueue.kueue.x-k8s.io": 1,
            "ResourceFlavor.kueue.x-k8s.io": 1,
        }
    },
    "clientConnection": {"qps": 50, "burst": 100},
}
"""The chart's default manager configuration at 0.17.1 (reference kueue-chart-values-v0.17.1.yaml), minus the parts
this program sets from the stack config."""


def _dump(model: BaseModel) -> dict[str, Any]:
    """A config model as the Kubernetes API spells it: camelCase keys, unset and default-empty fields left out."""
    return model.model_dump(by_alias=True, exclude_none=True, exclude_defaults=True)


def chart_reference(config: KueueConfig) -> tuple[str, str | None]:
    """``(chart, repository)`` for Helm: an OCI reference is the chart itself; an https repository serves ``kueue``."""
    if config.chart_repository.startswith("oci://"):
        return config.chart_repository, None
    return "kueue", config.chart_repository


def manager_config(config: KueueConfig) -> dict[str, Any]:
    """The complete manager Configuration; ``managedJobsNamespaceSelector`` is always present (reference §0.7)."""
    return {
        "apiVersion": MANAGER_CONFIG_API_VERSION,
        "kind": "Configuration",
        **_DEFAULT_MANAGER_CONFIG,
        "managedJobsNamespaceSelector": _dump(config.managed_jobs_namespace_selector),
        "integrations": {"frameworks": list(config.frameworks)},
    }


def chart_values(config: KueueConfig) -> dict[str, Any]:
    manager: dict[str, Any] = {"resources": _dump(config.manager_resources)}
    if config.image_repository:
        manager["image"] = {"repository": config.image_repository}
    return {
        "controllerManager": {
            "replicas": config.replicas,
            "manager": manager,
            "featureGates": [{"name": name, "enabled": on} for name, on in sorted(config.feature_gates.items())],
            "tolerations": [_dump(t) for t in config.tolerations],
            "nodeSelector": dict(config.node_selector),
        },
        "managerConfig": {"controllerManagerConfigYaml": yaml.safe_dump(manager_config(config), sort_keys=False)},
    }


def probe_objects() -> list[dict[str, Any]]:
    """The objects whose webhooks race Kueue's startup (``mresourceflavor.kb.io``, ``mclusterqueue.kb.io``).

    ``generateName`` keeps the dry-run from ever colliding with a real object.
    """
    flavor = "webhook-probe"
    return [
        {
            "apiVersion": "kueue.x-k8s.io/v1beta2",
            "kind": "ResourceFlavor",
            "metadata": {"generateName": "webhook-probe-"},
            "spec": {},
        },
        {
            "apiVersion": "kueue.x-k8s.io/v1beta2",
            "kind": "ClusterQueue",
            "metadata": {"generateName": "webhook-probe-"},
            "spec": {
                "namespaceSelector": {},
                "resourceGroups": [
                    {
                        "coveredResources": ["cpu"],
                        "flavors": [{"name": flavor, "resources": [{"name": "cpu", "nominalQuota": 0}]}],
                    }
                ],
            },
        },
    ]


def kueue_namespace(config: KueueConfig) -> dict[str, Any]:
    """No labels of its own: ``KueueConfig`` proves the Job webhook skips it from its name label alone."""
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": config.namespace}}


def gate_name(config: KueueConfig) -> str:
    """The name of the gate's ConfigMap, ServiceAccount, ClusterRole and ClusterRoleBinding."""
    return f"{config.release_name}-webhook-probe"


def _labels(config: KueueConfig) -> dict[str, str]:
    return {
        "app.kubernetes.io/name": gate_name(config),
        "app.kubernetes.io/part-of": PROJECT,
        "app.kubernetes.io/version": config.chart_version,
    }


def gate_job_name(config: KueueConfig, check_provisioning_request_crd: bool) -> str:
    """``<release>-ready-<chart version>-<digest>``: a new name, hence a new probe run, whenever the install changes.

    The digest covers the chart values, the probe and the CRD check, so a values change that restarts Kueue's pods
    re-runs the gate as well as a chart upgrade does.
    """
    version = re.sub(r"[^a-z0-9]+", "-", config.chart_version.lower()).strip("-")
    identity = json.dumps(
        [config.chart_version, chart_values(config), probe_objects(), check_provisioning_request_crd], sort_keys=True
    )
    digest = hashlib.sha256(identity.encode()).hexdigest()[:8]
    prefix = f"{config.release_name}-ready-{version}"[: 63 - len(digest) - 1].rstrip("-")
    return f"{prefix}-{digest}"


def gate_config_map(config: KueueConfig) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": gate_name(config), "namespace": config.namespace, "labels": _labels(config)},
        "data": {PROBE_FILE: yaml.safe_dump_all(probe_objects(), sort_keys=False)},
    }


def gate_service_account(config: KueueConfig) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": {"name": gate_name(config), "namespace": config.namespace, "labels": _labels(config)},
    }


def gate_cluster_role(config: KueueConfig, check_provisioning_request_crd: bool) -> dict[str, Any]:
    """Only what the probe does: create (dry-run) the probed kinds, and read the one CRD it checks."""
    rules: list[dict[str, Any]] = [
        {"apiGroups": ["kueue.x-k8s.io"], "resources": ["resourceflavors", "clusterqueues"], "verbs": ["create"]}
    ]
    if check_provisioning_request_crd:
        rules.append(
            {
                "apiGroups": ["apiextensions.k8s.io"],
                "resources": ["customresourcedefinitions"],
                "resourceNames": [PROVISIONING_REQUEST_CRD],
                "verbs": ["get"],
            }
        )
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "metadata": {"name": gate_name(config), "labels": _labels(config)},
        "rules": rules,
    }


def gate_cluster_role_binding(config: KueueConfig) -> dict[str, Any]:
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRoleBinding",
        "metadata": {"name": gate_name(config), "labels": _labels(config)},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": gate_name(config)},
        "subjects": [{"kind": "ServiceAccount", "name": gate_name(config), "namespace": config.namespace}],
    }


def _kubectl(name: str, image: str, args: list[str], *, mounts_probe: bool = False) -> dict[str, Any]:
    mounts: list[dict[str, Any]] = [{"name": "tmp", "mountPath": "/tmp"}]
    if mounts_probe:
        mounts.append({"name": "probe", "mountPath": PROBE_MOUNT, "readOnly": True})
    return {
        "name": name,
        "image": image,
        "command": ["kubectl"],
        "args": [*args, f"--cache-dir={KUBECTL_CACHE}"],
        "resources": {"requests": {"cpu": "10m", "memory": "32Mi"}, "limits": {"memory": "128Mi"}},
        "securityContext": {
            "allowPrivilegeEscalation": False,
            "readOnlyRootFilesystem": True,
            "capabilities": {"drop": ["ALL"]},
        },
        "volumeMounts": mounts,
    }


def gate_job(config: KueueConfig, check_provisioning_request_crd: bool) -> dict[str, Any]:
    """The readiness gate: completes once Kueue's webhooks admit a ResourceFlavor and a ClusterQueue.

    Each failed attempt is a failed pod; the Job controller retries with exponential backoff up to
    ``backoffLimit``. With ``check_provisioning_request_crd`` an init container first checks the
    ProvisioningRequest CRD and a pod failure policy fails the whole Job at once when it is missing: Kueue only
    sets up its provisioning controller if the CRD exists when it starts (reference aks-kueue.md §0.3, §3.3).
    """
    gate = config.readiness_gate
    probe = _kubectl(
        PROBE_CONTAINER,
        gate.probe_image,
        ["create", "--dry-run=server", "-f", f"{PROBE_MOUNT}/{PROBE_FILE}"],
        mounts_probe=True,
    )
    pod_spec: dict[str, Any] = {
        "serviceAccountName": gate_name(config),
        "restartPolicy": "Never",
        "securityContext": {
            "runAsNonRoot": True,
            "runAsUser": PROBE_USER,
            "runAsGroup": PROBE_USER,
            "seccompProfile": {"type": "RuntimeDefault"},
        },
        "containers": [probe],
        "volumes": [
            {"name": "probe", "configMap": {"name": gate_name(config)}},
            {"name": "tmp", "emptyDir": {}},
        ],
    }
    if config.node_selector:
        pod_spec["nodeSelector"] = dict(config.node_selector)
    if config.tolerations:
        pod_spec["tolerations"] = [_dump(t) for t in config.tolerations]
    spec: dict[str, Any] = {
        "backoffLimit": gate.backoff_limit,
        "activeDeadlineSeconds": gate.timeout_seconds,
        "template": {"metadata": {"labels": _labels(config)}, "spec": pod_spec},
    }
    if check_provisioning_request_crd:
        pod_spec["initContainers"] = [
            _kubectl(CRD_CHECK_CONTAINER, gate.probe_image, ["get", "crd", PROVISIONING_REQUEST_CRD])
        ]
        spec["podFailurePolicy"] = {
            "rules": [
                {
                    "action": "FailJob",
                    "onExitCodes": {"containerName": CRD_CHECK_CONTAINER, "operator": "NotIn", "values": [0]},
                }
            ]
        }
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": gate_job_name(config, check_provisioning_request_crd),
            "namespace": config.namespace,
            "labels": _labels(config),
        },
        "spec": spec,
    }
