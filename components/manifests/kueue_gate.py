"""The objects of Kueue's readiness gate, as plain dicts.

The gate is a Job that asks the API server to create a ResourceFlavor and a ClusterQueue with
``kubectl create --dry-run=server``: that runs Kueue's mutating and validating webhooks without persisting anything,
so the Job only completes once those webhooks answer (the probe Kueue's own e2e uses,
https://github.com/kubernetes-sigs/kueue/pull/12016). When the queues use a ProvisioningRequest check, a second Job of
the gate runs before the chart and waits for the ProvisioningRequest CRD.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
from typing import Any

import yaml

from components.config.base import PROJECT
from components.config.kueue import KueueConfig
from components.kube_wait import PROVISIONING_REQUEST_CRD
from components.manifests.kueue_install import chart_values, kueue_fullname
from components.manifests.queues import API_GROUP, API_VERSION

CRD_CHECK_CONTAINER = "check-provisioningrequest-crd"
CRD_WAIT_CONTAINER = "wait-for-provisioningrequest-crd"
CRD_WAIT_DEADLINE = "DEADLINE_SECONDS"
"""The CRD wait's environment variable holding ``readinessGate.crdTimeoutSeconds``: the script's own deadline."""
CRD_WAIT_START_SECONDS = 60
"""What the CRD wait's ``activeDeadlineSeconds`` allows beyond the script's deadline for the pod to be scheduled and
its image pulled: the script's deadline, which prints what to do, fires first."""
CRD_WAIT_RETRY_SECONDS = 5
"""The pause before the CRD wait tries again after a kubectl error (API unreachable, RBAC not yet in effect)."""
PROBE_CONTAINER = "webhook-probe"
PROBE_MOUNT = "/probe"
PROBE_FILE = "probe.yaml"
KUBECTL_CACHE = "/tmp/kube-cache"
"""kubectl writes its discovery cache under $HOME by default; the probe's root filesystem is read-only."""
PROBE_USER = 65532
"""A non-root uid: the kubectl image's own user may be root, which ``runAsNonRoot`` alone would refuse."""
CRD_MISSING_EXIT_CODE = 3
"""The exit code of the CRD check when the CRD does not exist, and of the CRD wait when its deadline passed, and only
then: the one failure that fails the Job at once. Any other failure of the check (API unreachable, RBAC not yet
propagated ...) exits 1 and is retried; the wait retries it itself until its deadline."""
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


def _install_job_name(args: KueueConfig, purpose: str, *, check_provisioning_request_crd: bool) -> str:
    """``<release>-<purpose>-<chart version>-<digest>``, within the 63 characters of a label value."""
    version = re.sub(r"[^a-z0-9]+", "-", args.installed_version.lower()).strip("-")
    identity = json.dumps(
        [args.installed_version, chart_values(args), probe_objects(), check_provisioning_request_crd], sort_keys=True
    )
    digest = hashlib.sha256(identity.encode()).hexdigest()[:8]
    prefix = f"{args.release_name}-{purpose}-{version}"[: 63 - len(digest) - 1].rstrip("-")
    return f"{prefix}-{digest}"


def gate_job_name(args: KueueConfig, *, check_provisioning_request_crd: bool) -> str:
    """``<release>-ready-<chart version>-<digest>``: a new name, hence a new probe run, whenever the install changes.

    The digest covers the chart values, the probe and the CRD check, so a values change that restarts Kueue's pods
    re-runs the gate as well as a chart upgrade does.
    """
    return _install_job_name(args, "ready", check_provisioning_request_crd=check_provisioning_request_crd)


def crd_wait_job_name(args: KueueConfig) -> str:
    """``<release>-wait-crd-<chart version>-<digest>``, the gate's digest: every change of the install that restarts
    Kueue waits for the CRD again before the chart changes, and an unchanged install keeps its Complete Job."""
    return _install_job_name(args, "wait-crd", check_provisioning_request_crd=True)


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
    """Only what the gate's Jobs do: create (dry-run) the probed kinds, and read and watch the one CRD they check.

    ``kubectl wait`` gets the CRD by name, then lists and watches it with the field selector ``metadata.name=<CRD>``
    (https://github.com/kubernetes/kubectl/blob/v0.33.4/pkg/cmd/wait/condition.go); the API server authorizes such a
    list or watch as a request for that one name (``NewRequestInfo`` in
    https://github.com/kubernetes/apiserver/blob/v0.33.0/pkg/endpoints/request/requestinfo.go), so ``resourceNames``
    holds for all three verbs and no other CRD can be read.
    """
    rules: list[dict[str, Any]] = [
        {"apiGroups": [API_GROUP], "resources": ["resourceflavors", "clusterqueues"], "verbs": ["create"]}
    ]
    if check_provisioning_request_crd:
        rules.append(
            {
                "apiGroups": ["apiextensions.k8s.io"],
                "resources": ["customresourcedefinitions"],
                "resourceNames": [PROVISIONING_REQUEST_CRD],
                "verbs": ["get", "list", "watch"],
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


_WHERE_THE_CRD_COMES_FROM = (
    "On AKS, the managed cluster autoscaler serves ProvisioningRequests from Kubernetes 1.33 on "
    "(https://github.com/Azure/AKS/pull/5867); the CRD reaches AKS regions one by one, so it may not be in this "
    "cluster's region yet. Elsewhere, run a cluster autoscaler with --enable-provisioning-requests "
    "(https://github.com/kubernetes/autoscaler/blob/master/cluster-autoscaler/FAQ.md). "
    f"Check with: kubectl get crd {PROVISIONING_REQUEST_CRD}."
)


def crd_missing_message(args: KueueConfig) -> str:
    """What the operator reads when the ProvisioningRequest CRD is missing after the chart: the gate's termination
    message. Kueue has started without it, so the remedy includes a restart."""
    return (
        f"The CRD {PROVISIONING_REQUEST_CRD} does not exist, so Kueue cannot activate the ProvisioningRequest "
        f"admission check and the provisioning-gated queues would admit nothing. {_WHERE_THE_CRD_COMES_FROM} "
        "Kueue only sets up its ProvisioningRequest controller if the CRD exists when it starts, so once the CRD is "
        f"there restart it: kubectl -n {args.namespace} rollout restart "
        f"deployment/{kueue_fullname(args)}-controller-manager. Then run pulumi up again; it replaces this Job."
    )


def crd_timeout_message() -> str:
    """What the operator reads when the CRD wait's deadline passes: its termination message. The chart waits for the
    Job, so Kueue has not started (or restarted) without the CRD, and no restart is needed."""
    return (
        f"The CRD {PROVISIONING_REQUEST_CRD} was not created and Established within "
        "kueue.readinessGate.crdTimeoutSeconds, so Kueue is not installed (or upgraded) yet: it sets up its "
        f"ProvisioningRequest controller only if the CRD exists when it starts. {_WHERE_THE_CRD_COMES_FROM} "
        "Once the CRD is there, run pulumi up again; it replaces this Job and installs Kueue. To install Kueue "
        "without the CRD, set queues.waitUntilActive.onInactive: warn."
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


def crd_wait_script() -> str:
    """Exit 0 once the CRD exists and is Established; :data:`CRD_MISSING_EXIT_CODE` with
    :func:`crd_timeout_message` once ``$DEADLINE_SECONDS`` have passed.

    ``kubectl wait --for=create`` (kubectl 1.31 on) polls the CRD by name, and ``--for=condition=Established`` then
    watches it (https://github.com/kubernetes/kubectl/blob/v0.33.4/pkg/cmd/wait/wait.go). Established, not merely
    created: Kueue looks the kind up through discovery, which lists a CRD only once it is Established
    (https://github.com/kubernetes/apiextensions-apiserver/blob/v0.33.0/pkg/apiserver/customresource_discovery_controller.go).
    A kubectl error is retried within the deadline, so only the deadline produces the code that fails the Job, and its
    message is the last thing in the log. A progress line per attempt lands in the pod's log.
    """
    flags = f"--cache-dir={KUBECTL_CACHE}"
    crd = shlex.quote(f"crd/{PROVISIONING_REQUEST_CRD}")
    return (
        f"deadline=$((SECONDS + {CRD_WAIT_DEADLINE}))\n"
        'remaining() { echo "$(( deadline - SECONDS > 1 ? deadline - SECONDS : 1 ))s"; }\n'
        f'echo "Waiting up to ${{{CRD_WAIT_DEADLINE}}} s for the CRD {PROVISIONING_REQUEST_CRD} to be created and '
        'Established."\n'
        'while [ "$SECONDS" -lt "$deadline" ]; do\n'
        f'  if kubectl wait --for=create {crd} --timeout="$(remaining)" {flags} &&\n'
        f'    kubectl wait --for=condition=Established {crd} --timeout="$(remaining)" {flags}; then\n'
        "    exit 0\n"
        "  fi\n"
        "  left=$((deadline - SECONDS))\n"
        '  echo "Not there yet; ${left} s left."\n'
        f'  sleep "$(( left < {CRD_WAIT_RETRY_SECONDS} ? (left > 0 ? left : 0) : {CRD_WAIT_RETRY_SECONDS} ))"\n'
        "done\n"
        f"echo {shlex.quote(crd_timeout_message())} >&2\n"
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


def _pod_spec(args: KueueConfig, containers: list[dict[str, Any]], *, mounts_probe: bool) -> dict[str, Any]:
    """A gate pod: non-root, as the gate's ServiceAccount, on the nodes Kueue runs on (the manager's tolerations and
    node selector in the chart values)."""
    manager = chart_values(args)["controllerManager"]
    volumes: list[dict[str, Any]] = [{"name": "tmp", "emptyDir": {}}]
    if mounts_probe:
        volumes.insert(0, {"name": "probe", "configMap": {"name": gate_name(args)}})
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
        "volumes": volumes,
    }
    if manager["nodeSelector"]:
        pod_spec["nodeSelector"] = manager["nodeSelector"]
    if manager["tolerations"]:
        pod_spec["tolerations"] = manager["tolerations"]
    return pod_spec


def _gate_pod_spec(args: KueueConfig, probe_image: str, *, check_provisioning_request_crd: bool) -> dict[str, Any]:
    """The probe's pod, with the CRD check as its first container if asked."""
    probe_command = ["kubectl", "create", "--dry-run=server", "-f", f"{PROBE_MOUNT}/{PROBE_FILE}"]
    containers = [
        _container(PROBE_CONTAINER, probe_image, [*probe_command, f"--cache-dir={KUBECTL_CACHE}"], mounts_probe=True)
    ]
    if check_provisioning_request_crd:
        containers.insert(0, _container(CRD_CHECK_CONTAINER, probe_image, ["bash", "-c", crd_check_script(args)]))
    return _pod_spec(args, containers, mounts_probe=True)


def crd_missing_fails_the_job(container: str) -> dict[str, Any]:
    """The pod failure policy rule that fails a Job at once when, and only when, ``container`` exits
    :data:`CRD_MISSING_EXIT_CODE`: the CRD is missing, a failure no retry of the pod can fix."""
    return {
        "action": "FailJob",
        "onExitCodes": {"containerName": container, "operator": "In", "values": [CRD_MISSING_EXIT_CODE]},
    }


def job_metadata(args: KueueConfig, name: str) -> dict[str, Any]:
    """A gate Job's metadata: :data:`REPLACE_UNREADY` makes a failed one run again on the next ``pulumi up``."""
    return {
        "name": name,
        "namespace": args.namespace,
        "labels": _labels(args),
        "annotations": {REPLACE_UNREADY: "true"},
    }


def _job(args: KueueConfig, name: str, spec: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": job_metadata(args, name), "spec": spec}


def crd_wait_deadline(args: KueueConfig) -> int:
    """The CRD wait's ``activeDeadlineSeconds``: the script's deadline and the time its pod needs to start."""
    return args.readiness_gate.crd_timeout_seconds + CRD_WAIT_START_SECONDS


def crd_wait_job(args: KueueConfig, probe_image: str) -> dict[str, Any]:
    """The Job the chart waits for when the queues use a ProvisioningRequest check: it completes once the
    ProvisioningRequest CRD is Established, and fails at once, saying what to do, when
    ``readinessGate.crdTimeoutSeconds`` pass first (:func:`crd_wait_script`).

    Kueue sets up its provisioning controller only if the CRD exists when it starts
    (``ServerSupportsProvisioningRequest`` in https://github.com/kubernetes-sigs/kueue/blob/v0.17.8/cmd/kueue/main.go),
    so the chart must not start before.
    A Job, not a dynamic waiter, because pulumi-kubernetes reports a Job's progress while it awaits it and its
    containers' termination messages when it fails (provider/pkg/await/job.go in
    https://github.com/pulumi/pulumi-kubernetes); it runs in Kueue's namespace, which exists before the chart.
    """
    gate = args.readiness_gate
    wait = _container(CRD_WAIT_CONTAINER, probe_image, ["bash", "-c", crd_wait_script()])
    wait["env"] = [{"name": CRD_WAIT_DEADLINE, "value": str(gate.crd_timeout_seconds)}]
    spec = {
        "backoffLimit": gate.backoff_limit,
        "activeDeadlineSeconds": crd_wait_deadline(args),
        "podFailurePolicy": {"rules": [crd_missing_fails_the_job(CRD_WAIT_CONTAINER)]},
        "template": {"metadata": {"labels": _labels(args)}, "spec": _pod_spec(args, [wait], mounts_probe=False)},
    }
    return _job(args, crd_wait_job_name(args), spec)


def gate_job(args: KueueConfig, probe_image: str, *, check_provisioning_request_crd: bool) -> dict[str, Any]:
    """The readiness gate: completes once Kueue's webhooks admit a ResourceFlavor and a ClusterQueue.

    Each failed attempt is a failed pod; the Job controller retries with exponential backoff up to
    ``backoffLimit``. With ``check_provisioning_request_crd`` a second container checks the ProvisioningRequest
    CRD, and a pod failure policy fails the whole Job at once only when the CRD is missing
    (:data:`CRD_MISSING_EXIT_CODE`): Kueue only sets up its provisioning controller if the CRD exists when it starts
    (``ServerSupportsProvisioningRequest`` in https://github.com/kubernetes-sigs/kueue/blob/v0.17.8/cmd/kueue/main.go).
    It is a container rather than an init container because pulumi-kubernetes reports the termination messages of
    containers only. :data:`REPLACE_UNREADY` makes a failed gate re-run on the next ``pulumi up``. ``probe_image`` is
    the kubectl of the cluster's minor: a new one changes ``.spec.template``, which pulumi-kubernetes replaces the Job
    for (provider/pkg/provider/diff.go), so the gate runs again after a cluster upgrade.
    """
    pod_spec = _gate_pod_spec(args, probe_image, check_provisioning_request_crd=check_provisioning_request_crd)
    spec: dict[str, Any] = {
        "backoffLimit": args.readiness_gate.backoff_limit,
        "activeDeadlineSeconds": args.readiness_gate.timeout_seconds,
        "template": {"metadata": {"labels": _labels(args)}, "spec": pod_spec},
    }
    if check_provisioning_request_crd:
        spec["podFailurePolicy"] = {"rules": [crd_missing_fails_the_job(CRD_CHECK_CONTAINER)]}
    return _job(args, gate_job_name(args, check_provisioning_request_crd=check_provisioning_request_crd), spec)
