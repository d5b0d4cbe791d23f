"""The objects of Kueue's readiness gate, as plain dicts.

The gate is a Job that asks the API server to create a ResourceFlavor and a ClusterQueue with
``kubectl create --dry-run=server``: that runs Kueue's mutating and validating webhooks without persisting anything,
so the Job only completes once those webhooks answer (the probe Kueue's own e2e uses,
https://github.com/kubernetes-sigs/kueue/pull/12016). The wait for the ProvisioningRequest CRD before the chart is
:mod:`components.waiters.crd_wait`.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from components import yaml_text
from components.config.base import PROJECT
from components.config.kueue.kueue import KueueConfig
from components.manifests.kueue_install import chart_values
from components.manifests.queues import API_GROUP, API_VERSION

PROBE_CONTAINER = "webhook-probe"
PROBE_MOUNT = "/probe"
PROBE_FILE = "probe.yaml"
KUBECTL_CACHE = "/tmp/kube-cache"
"""kubectl writes its discovery cache under $HOME by default; the probe's root filesystem is read-only."""
PROBE_USER = 65532
"""A non-root uid: the kubectl image's own user may be root, which ``runAsNonRoot`` alone would refuse."""
REPLACE_UNREADY = "pulumi.com/replaceUnready"
"""On a Job, makes the next ``pulumi up`` replace it if it is not Complete, instead of awaiting the same failed Job
again (``replaceUnreadyComment`` in pulumi-kubernetes' provider/pkg/gen/additionalComments.go, implemented in
provider/pkg/provider/provider.go ``Diff``: https://github.com/pulumi/pulumi-kubernetes)."""


def probe_objects() -> list[dict[str, Any]]:
    """The objects whose webhooks race Kueue's startup (``mresourceflavor.kb.io``, ``mclusterqueue.kb.io``).

    ``generateName`` keeps the dry-run from ever colliding with a real object.
    """
    flavor = "webhook-probe"
    return [
        {
            "apiVersion": API_VERSION,
            "kind": "ResourceFlavor",
            "metadata": {"generateName": "webhook-probe-"},
            "spec": {},
        },
        {
            "apiVersion": API_VERSION,
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


def gate_name(args: KueueConfig) -> str:
    """The name of the gate's ConfigMap, ServiceAccount, ClusterRole and ClusterRoleBinding."""
    return f"{args.release_name}-webhook-probe"


def _labels(args: KueueConfig) -> dict[str, str]:
    return {
        "app.kubernetes.io/name": gate_name(args),
        "app.kubernetes.io/part-of": PROJECT,
        "app.kubernetes.io/version": args.installed_version,
    }


def gate_job_name(args: KueueConfig) -> str:
    """``<release>-ready-<chart version>-<digest>``, within the 63 characters of a label value: a new name, hence a
    new probe run, whenever the install changes.

    The digest covers the chart values and the probe, so a values change that restarts Kueue's pods re-runs the gate
    as well as a chart upgrade does.
    """
    version = re.sub(r"[^a-z0-9]+", "-", args.installed_version.lower()).strip("-")
    identity = json.dumps([args.installed_version, chart_values(args), probe_objects()], sort_keys=True)
    digest = hashlib.sha256(identity.encode()).hexdigest()[:8]
    prefix = f"{args.release_name}-ready-{version}"[: 63 - len(digest) - 1].rstrip("-")
    return f"{prefix}-{digest}"


def gate_config_map(args: KueueConfig) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": gate_name(args), "namespace": args.namespace, "labels": _labels(args)},
        "data": {PROBE_FILE: yaml_text.dump_all(probe_objects())},
    }


def gate_service_account(args: KueueConfig) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": {"name": gate_name(args), "namespace": args.namespace, "labels": _labels(args)},
    }


def gate_cluster_role(args: KueueConfig) -> dict[str, Any]:
    """Only what the gate does: create (dry-run) the probed kinds."""
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "metadata": {"name": gate_name(args), "labels": _labels(args)},
        "rules": [{"apiGroups": [API_GROUP], "resources": ["resourceflavors", "clusterqueues"], "verbs": ["create"]}],
    }


def gate_cluster_role_binding(args: KueueConfig) -> dict[str, Any]:
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRoleBinding",
        "metadata": {"name": gate_name(args), "labels": _labels(args)},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": gate_name(args)},
        "subjects": [{"kind": "ServiceAccount", "name": gate_name(args), "namespace": args.namespace}],
    }


def _probe_container(probe_image: str) -> dict[str, Any]:
    """kubectl alone, no shell (the official image is distroless): non-root, read-only root filesystem, and its last
    log lines as its termination message, which the Job's pod status, ``kubectl describe`` and pulumi-kubernetes' Job
    await report on failure."""
    return {
        "name": PROBE_CONTAINER,
        "image": probe_image,
        "command": [
            "kubectl",
            "create",
            "--dry-run=server",
            "-f",
            f"{PROBE_MOUNT}/{PROBE_FILE}",
            f"--cache-dir={KUBECTL_CACHE}",
        ],
        "resources": {"requests": {"cpu": "10m", "memory": "32Mi"}, "limits": {"memory": "128Mi"}},
        "securityContext": {
            "allowPrivilegeEscalation": False,
            "readOnlyRootFilesystem": True,
            "capabilities": {"drop": ["ALL"]},
        },
        "terminationMessagePolicy": "FallbackToLogsOnError",
        "volumeMounts": [
            {"name": "tmp", "mountPath": "/tmp"},
            {"name": "probe", "mountPath": PROBE_MOUNT, "readOnly": True},
        ],
    }


def _pod_spec(args: KueueConfig, probe_image: str) -> dict[str, Any]:
    """The gate's pod: non-root, as the gate's ServiceAccount, on the nodes Kueue runs on (the manager's tolerations
    and node selector in the chart values)."""
    manager = chart_values(args)["controllerManager"]
    pod_spec: dict[str, Any] = {
        "serviceAccountName": gate_name(args),
        "restartPolicy": "Never",
        "securityContext": {
            "runAsNonRoot": True,
            "runAsUser": PROBE_USER,
            "runAsGroup": PROBE_USER,
            "seccompProfile": {"type": "RuntimeDefault"},
        },
        "containers": [_probe_container(probe_image)],
        "volumes": [{"name": "probe", "configMap": {"name": gate_name(args)}}, {"name": "tmp", "emptyDir": {}}],
    }
    if manager["nodeSelector"]:
        pod_spec["nodeSelector"] = manager["nodeSelector"]
    if manager["tolerations"]:
        pod_spec["tolerations"] = manager["tolerations"]
    return pod_spec


def job_metadata(args: KueueConfig) -> dict[str, Any]:
    """The gate Job's metadata: :data:`REPLACE_UNREADY` makes a failed one run again on the next ``pulumi up``."""
    return {
        "name": gate_job_name(args),
        "namespace": args.namespace,
        "labels": _labels(args),
        "annotations": {REPLACE_UNREADY: "true"},
    }


def gate_job(args: KueueConfig, probe_image: str) -> dict[str, Any]:
    """The readiness gate: completes once Kueue's webhooks admit a ResourceFlavor and a ClusterQueue.

    Each failed attempt is a failed pod; the Job controller retries with exponential backoff up to ``backoffLimit``.
    ``probe_image`` is the kubectl of the cluster's minor: a new one changes ``.spec.template``, which
    pulumi-kubernetes replaces the Job for (provider/pkg/provider/diff.go), so the gate runs again after a cluster
    upgrade.
    """
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": job_metadata(args),
        "spec": {
            "backoffLimit": args.readiness_gate.backoff_limit,
            "activeDeadlineSeconds": args.readiness_gate.timeout_seconds,
            "template": {"metadata": {"labels": _labels(args)}, "spec": _pod_spec(args, probe_image)},
        },
    }
