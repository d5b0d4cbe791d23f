"""Kueue's Helm values and the objects of its readiness gate, as plain dicts.

The gate is a Job that asks the API server to create a ResourceFlavor and a ClusterQueue with
``kubectl create --dry-run=server``: that runs Kueue's mutating and validating webhooks without persisting anything,
so the Job only completes once those webhooks answer (the probe Kueue's own e2e uses,
https://github.com/kubernetes-sigs/kueue/pull/12016).
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
from typing import Any

import yaml
from pydantic import BaseModel

from components.config.base import PROJECT
from components.config.kueue import KueueConfig
from components.kube_wait import PROVISIONING_REQUEST_CRD
from components.manifests.core import namespace
from components.manifests.queues import API_GROUP, API_VERSION

MANAGER_CONFIG_API_VERSION = "config.kueue.x-k8s.io/v1beta2"
CRD_CHECK_CONTAINER = "check-provisioningrequest-crd"
PROBE_CONTAINER = "webhook-probe"
PROBE_MOUNT = "/probe"
PROBE_FILE = "probe.yaml"
KUBECTL_CACHE = "/tmp/kube-cache"
"""kubectl writes its discovery cache under $HOME by default; the probe's root filesystem is read-only."""
PROBE_USER = 65532
"""A non-root uid: the kubectl image's own user may be root, which ``runAsNonRoot`` alone would refuse."""
CRD_MISSING_EXIT_CODE = 3
"""The CRD check's exit code when the CRD does not exist, and only then: the one failure that fails the gate at
once. Any other failure of the check (API unreachable, RBAC not yet propagated ...) exits 1 and is retried."""
REPLACE_UNREADY = "pulumi.com/replaceUnready"
"""On a Job, makes the next ``pulumi up`` replace it if it is not Complete, instead of awaiting the same failed Job
again (``replaceUnreadyComment`` in pulumi-kubernetes' provider/pkg/gen/additionalComments.go, implemented in
provider/pkg/provider/provider.go ``Diff``: https://github.com/pulumi/pulumi-kubernetes)."""

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
"""The chart's default manager configuration in 0.17 (``managerConfig.controllerManagerConfigYaml`` of
https://github.com/kubernetes-sigs/kueue/blob/v0.17.8/charts/kueue/values.yaml, the same at v0.17.1), minus the parts
this program sets from the stack config."""


def _dump(model: BaseModel) -> dict[str, Any]:
    """A config model as the Kubernetes API spells it: camelCase keys, unset and default-empty fields left out."""
    return model.model_dump(by_alias=True, exclude_none=True, exclude_defaults=True)


def chart_reference(args: KueueConfig) -> tuple[str, str | None]:
    """``(chart, repository)`` for Helm: an OCI reference is the chart itself; an https repository serves ``kueue``."""
    if args.chart_repository.startswith("oci://"):
        return args.chart_repository, None
    return "kueue", args.chart_repository


def manager_config(args: KueueConfig) -> dict[str, Any]:
    """The complete manager Configuration; ``managedJobsNamespaceSelector`` is always present, because the chart only
    gives its Job webhook a namespaceSelector when the key is there (``templates/webhook/manifests.yaml``); the fair
    sharing and resource settings only when set, since their presence is what turns them on."""
    return {
        "apiVersion": MANAGER_CONFIG_API_VERSION,
        "kind": "Configuration",
        **_DEFAULT_MANAGER_CONFIG,
        "managedJobsNamespaceSelector": _dump(args.managed_jobs_namespace_selector),
        "integrations": {"frameworks": list(args.frameworks)},
        **{
            key: settings.model_dump(by_alias=True, exclude_none=True, mode="json")
            for key, settings in (
                ("fairSharing", args.fair_sharing),
                ("admissionFairSharing", args.admission_fair_sharing),
                ("resources", args.resources),
                ("waitForPodsReady", args.wait_for_pods_ready),
                ("objectRetentionPolicies", args.object_retention_policies),
                ("multiKueue", args.multi_kueue),
            )
            if settings is not None
        },
        "metrics": _DEFAULT_MANAGER_CONFIG["metrics"]
        | (args.metrics.model_dump(by_alias=True, exclude_none=True, mode="json") if args.metrics else {}),
    }


def chart_values(args: KueueConfig) -> dict[str, Any]:
    """Always names the manager image's repository, so the registry it comes from is visible and checked."""
    return {
        "controllerManager": {
            "replicas": args.replicas,
            # With a second replica, a node drain may take only one at a time; with one it would block every drain.
            "podDisruptionBudget": {"enabled": args.replicas > 1, "minAvailable": 1},
            "manager": {
                "resources": _dump(args.manager_resources),
                "image": {"repository": args.image_repository},
            },
            "featureGates": [{"name": name, "enabled": on} for name, on in sorted(args.feature_gates.items())],
            "tolerations": [_dump(t) for t in args.tolerations],
            "nodeSelector": dict(args.node_selector),
        },
        "managerConfig": {"controllerManagerConfigYaml": yaml.safe_dump(manager_config(args), sort_keys=False)},
    }


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


def kueue_namespace(args: KueueConfig) -> dict[str, Any]:
    """No labels of its own: ``KueueConfig`` proves the Job webhook skips it from its name label alone."""
    return namespace(args.namespace)


def kueue_fullname(args: KueueConfig) -> str:
    """The chart's ``kueue.fullname``: the release name if it contains ``kueue``, else ``<release>-kueue``."""
    return args.release_name if "kueue" in args.release_name else f"{args.release_name}-kueue"[:63].rstrip("-")


def gate_name(args: KueueConfig) -> str:
    """The name of the gate's ConfigMap, ServiceAccount, ClusterRole and ClusterRoleBinding."""
    return f"{args.release_name}-webhook-probe"


def _labels(args: KueueConfig) -> dict[str, str]:
    return {
        "app.kubernetes.io/name": gate_name(args),
        "app.kubernetes.io/part-of": PROJECT,
        "app.kubernetes.io/version": args.chart_version,
    }


def gate_job_name(args: KueueConfig, *, check_provisioning_request_crd: bool) -> str:
    """``<release>-ready-<chart version>-<digest>``: a new name, hence a new probe run, whenever the install changes.

    The digest covers the chart values, the probe and the CRD check, so a values change that restarts Kueue's pods
    re-runs the gate as well as a chart upgrade does.
    """
    version = re.sub(r"[^a-z0-9]+", "-", args.chart_version.lower()).strip("-")
    identity = json.dumps(
        [args.chart_version, chart_values(args), probe_objects(), check_provisioning_request_crd], sort_keys=True
    )
    digest = hashlib.sha256(identity.encode()).hexdigest()[:8]
    prefix = f"{args.release_name}-ready-{version}"[: 63 - len(digest) - 1].rstrip("-")
    return f"{prefix}-{digest}"


def gate_config_map(args: KueueConfig) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": gate_name(args), "namespace": args.namespace, "labels": _labels(args)},
        "data": {PROBE_FILE: yaml.safe_dump_all(probe_objects(), sort_keys=False)},
    }


def gate_service_account(args: KueueConfig) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": {"name": gate_name(args), "namespace": args.namespace, "labels": _labels(args)},
    }


def gate_cluster_role(args: KueueConfig, *, check_provisioning_request_crd: bool) -> dict[str, Any]:
    """Only what the probe does: create (dry-run) the probed kinds, and read the one CRD it checks."""
    rules: list[dict[str, Any]] = [
        {"apiGroups": [API_GROUP], "resources": ["resourceflavors", "clusterqueues"], "verbs": ["create"]}
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
        "metadata": {"name": gate_name(args), "labels": _labels(args)},
        "rules": rules,
    }


def gate_cluster_role_binding(args: KueueConfig) -> dict[str, Any]:
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRoleBinding",
        "metadata": {"name": gate_name(args), "labels": _labels(args)},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": gate_name(args)},
        "subjects": [{"kind": "ServiceAccount", "name": gate_name(args), "namespace": args.namespace}],
    }


def crd_missing_message(args: KueueConfig) -> str:
    """What the operator reads when the ProvisioningRequest CRD is missing: the gate's termination message."""
    return (
        f"The CRD {PROVISIONING_REQUEST_CRD} does not exist, so Kueue cannot activate the ProvisioningRequest "
        "admission check and the provisioning-gated queues would admit nothing. "
        "On AKS, the managed cluster autoscaler serves ProvisioningRequests from Kubernetes 1.33 on "
        "(https://github.com/Azure/AKS/pull/5867); the CRD reaches AKS regions one by one, so it may not be in this "
        "cluster's region yet. Elsewhere, run a cluster autoscaler with --enable-provisioning-requests "
        "(https://github.com/kubernetes/autoscaler/blob/master/cluster-autoscaler/FAQ.md). "
        f"Check with: kubectl get crd {PROVISIONING_REQUEST_CRD}. "
        "Kueue only sets up its ProvisioningRequest controller if the CRD exists when it starts, so once the CRD is "
        f"there restart it: kubectl -n {args.namespace} rollout restart "
        f"deployment/{kueue_fullname(args)}-controller-manager. Then run pulumi up again; it replaces this Job."
    )


def crd_check_script(args: KueueConfig) -> str:
    """Exit 0 if the CRD exists, :data:`CRD_MISSING_EXIT_CODE` if it does not, 1 on any other error.

    ``--ignore-not-found`` turns "not found" into success with empty output, so the script tells the two apart
    without parsing kubectl's error text, and maps every kubectl failure to 1: a transient error can never produce
    the code that fails the gate at once.
    """
    get = shlex.join(
        [
            "kubectl",
            "get",
            "crd",
            PROVISIONING_REQUEST_CRD,
            "--ignore-not-found",
            "-o",
            "name",
            f"--cache-dir={KUBECTL_CACHE}",
        ]
    )
    return (
        f"found=$({get}) || exit 1\n"
        'if [ -n "$found" ]; then exit 0; fi\n'
        f"echo {shlex.quote(crd_missing_message(args))} >&2\n"
        f"exit {CRD_MISSING_EXIT_CODE}\n"
    )


def _container(name: str, image: str, command: list[str], *, mounts_probe: bool = False) -> dict[str, Any]:
    """A gate container: non-root, read-only root filesystem, and its last log lines as its termination message,
    which the Job's pod status, ``kubectl describe`` and pulumi-kubernetes' Job await report on failure."""
    mounts: list[dict[str, Any]] = [{"name": "tmp", "mountPath": "/tmp"}]
    if mounts_probe:
        mounts.append({"name": "probe", "mountPath": PROBE_MOUNT, "readOnly": True})
    return {
        "name": name,
        "image": image,
        "command": command,
        "resources": {"requests": {"cpu": "10m", "memory": "32Mi"}, "limits": {"memory": "128Mi"}},
        "securityContext": {
            "allowPrivilegeEscalation": False,
            "readOnlyRootFilesystem": True,
            "capabilities": {"drop": ["ALL"]},
        },
        "terminationMessagePolicy": "FallbackToLogsOnError",
        "volumeMounts": mounts,
    }


def _gate_pod_spec(args: KueueConfig, *, check_provisioning_request_crd: bool) -> dict[str, Any]:
    """The probe's pod: non-root, on the nodes Kueue runs on, with the CRD check as its first container if asked."""
    probe_image = args.readiness_gate.probe_image
    probe_command = ["kubectl", "create", "--dry-run=server", "-f", f"{PROBE_MOUNT}/{PROBE_FILE}"]
    containers = [
        _container(PROBE_CONTAINER, probe_image, [*probe_command, f"--cache-dir={KUBECTL_CACHE}"], mounts_probe=True)
    ]
    if check_provisioning_request_crd:
        containers.insert(0, _container(CRD_CHECK_CONTAINER, probe_image, ["bash", "-c", crd_check_script(args)]))
    pod_spec: dict[str, Any] = {
        "serviceAccountName": gate_name(args),
        "restartPolicy": "Never",
        "securityContext": {
            "runAsNonRoot": True,
            "runAsUser": PROBE_USER,
            "runAsGroup": PROBE_USER,
            "seccompProfile": {"type": "RuntimeDefault"},
        },
        "containers": containers,
        "volumes": [
            {"name": "probe", "configMap": {"name": gate_name(args)}},
            {"name": "tmp", "emptyDir": {}},
        ],
    }
    if args.node_selector:
        pod_spec["nodeSelector"] = dict(args.node_selector)
    if args.tolerations:
        pod_spec["tolerations"] = [_dump(t) for t in args.tolerations]
    return pod_spec


CRD_MISSING_FAILS_THE_JOB = {
    "action": "FailJob",
    "onExitCodes": {"containerName": CRD_CHECK_CONTAINER, "operator": "In", "values": [CRD_MISSING_EXIT_CODE]},
}
"""The pod failure policy rule that fails the gate at once when, and only when, the CRD check finds no CRD."""


def gate_job(args: KueueConfig, *, check_provisioning_request_crd: bool) -> dict[str, Any]:
    """The readiness gate: completes once Kueue's webhooks admit a ResourceFlavor and a ClusterQueue.

    Each failed attempt is a failed pod; the Job controller retries with exponential backoff up to
    ``backoffLimit``. With ``check_provisioning_request_crd`` a second container checks the ProvisioningRequest
    CRD, and a pod failure policy fails the whole Job at once only when the CRD is missing
    (:data:`CRD_MISSING_EXIT_CODE`): Kueue only sets up its provisioning controller if the CRD exists when it starts
    (``ServerSupportsProvisioningRequest`` in https://github.com/kubernetes-sigs/kueue/blob/v0.17.8/cmd/kueue/main.go).
    It is a container rather than an init container because pulumi-kubernetes reports the termination messages of
    containers only. :data:`REPLACE_UNREADY` makes a failed gate re-run on the next ``pulumi up``.
    """
    pod_spec = _gate_pod_spec(args, check_provisioning_request_crd=check_provisioning_request_crd)
    spec: dict[str, Any] = {
        "backoffLimit": args.readiness_gate.backoff_limit,
        "activeDeadlineSeconds": args.readiness_gate.timeout_seconds,
        "template": {"metadata": {"labels": _labels(args)}, "spec": pod_spec},
    }
    if check_provisioning_request_crd:
        spec["podFailurePolicy"] = {"rules": [CRD_MISSING_FAILS_THE_JOB]}
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": gate_job_name(args, check_provisioning_request_crd=check_provisioning_request_crd),
            "namespace": args.namespace,
            "labels": _labels(args),
            "annotations": {REPLACE_UNREADY: "true"},
        },
        "spec": spec,
    }
