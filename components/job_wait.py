"""Wait for a Kueue-managed Job to complete, and say why when it does not.

pulumi-kubernetes' own Job await only knows "not complete yet"; a Job that Kueue keeps suspended would time out
without a hint. This waiter also reads the Job's pods, its Workload and that Workload's ProvisioningRequest and turns
what it finds into a diagnosis (:func:`diagnose`, pure) naming the likely cause and the commands that confirm it.
Pod problems (an image that cannot be pulled, a pod no node fits) come first: they are the cause whatever the
autoscaler does.

The provider is shipped by value (:mod:`components.dynamic_by_value`): this module imports nothing from the project
but the modules listed in :data:`SHIPPED_MODULES`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import pulumi
from pulumi.dynamic import CreateResult

from components.dynamic_by_value import WaitProvider
from components.kube_wait import (
    KUEUE_API_PATH,
    PROVISIONING_REQUEST_CRD,
    Cluster,
    Conditions,
    RestCluster,
    condition,
    explained,
    is_not_found,
    is_true,
    poll,
)

SHIPPED_MODULES = ("components.dynamic_by_value", "components.kube_wait", "components.job_wait")
"""Everything the provider process needs of this project, dependencies first."""

AKS_PROVISIONING_REQUESTS = (
    "On AKS the managed cluster autoscaler serves ProvisioningRequests from Kubernetes 1.33 on "
    "(https://github.com/Azure/AKS/pull/5867); below 1.33, or in a region the feature has not reached yet, the "
    "ProvisioningRequest CRD is missing and nothing acts on the requests"
)
GENERIC_PROVISIONING_REQUESTS = (
    "The cluster needs a cluster autoscaler that serves ProvisioningRequests, with the "
    f"{PROVISIONING_REQUEST_CRD} CRD installed "
    "(https://kubernetes.io/docs/concepts/cluster-administration/cluster-autoscaling/)"
)
WAITING_PROBLEMS = ("ErrImagePull", "ImagePullBackOff", "InvalidImageName", "CreateContainerConfigError")
"""Container waiting reasons that never resolve by themselves."""


@dataclasses.dataclass(frozen=True)
class JobObservation:
    """What one poll saw: the Job's ``status``, its pods' problems, and the conditions of its Workload and newest
    ProvisioningRequest.

    ``None`` means the object does not exist (yet); ``[]`` means it exists without conditions.
    """

    job_status: Mapping[str, Any]
    workload_conditions: Conditions | None = None
    provreq_conditions: Conditions | None = None
    pod_problems: tuple[str, ...] = ()


class JobIncompleteError(Exception):
    """The Job failed or did not complete in time; the message is the diagnosis."""


def pod_problems(pods: Sequence[Mapping[str, Any]]) -> tuple[str, ...]:
    """One line per pod that cannot make progress on its own: an unpullable image, or no node that fits it."""
    problems = []
    for pod in pods:
        name = pod.get("metadata", {}).get("name", "?")
        status = pod.get("status") or {}
        scheduled = condition(status.get("conditions"), "PodScheduled")
        if scheduled is not None and scheduled.get("status") == "False" and scheduled.get("reason") == "Unschedulable":
            problems.append(f"pod {name} is unschedulable{explained(scheduled)}")
        for container in status.get("initContainerStatuses", []) + status.get("containerStatuses", []):
            waiting = (container.get("state") or {}).get("waiting") or {}
            if waiting.get("reason") in WAITING_PROBLEMS:
                problems.append(f"pod {name} container {container.get('name')}{explained(waiting)}")
    return tuple(problems)


def job_outcome(job_status: Mapping[str, Any]) -> str | None:
    """``"Complete"`` or ``"Failed"`` once the Job has finished, else ``None``."""
    conditions = job_status.get("conditions")
    return next((t for t in ("Complete", "Failed") if is_true(conditions, t)), None)


def diagnose(seen: JobObservation, *, namespace: str, name: str) -> str:
    """Explain the state of Job ``namespace/name``: what happened, the likely cause, and what to check."""
    job = f"Job {namespace}/{name}"
    status = seen.job_status
    conditions = status.get("conditions")
    succeeded, failed, active = (int(status.get(k) or 0) for k in ("succeeded", "failed", "active"))
    outcome = job_outcome(status)
    describe = f"kubectl -n {namespace} describe pods -l batch.kubernetes.io/job-name={name}"
    if outcome == "Complete":
        return f"{job} completed: {succeeded} pod(s) succeeded."
    if outcome == "Failed":
        return (
            f"{job} failed{explained(condition(conditions, 'Failed'))}: {failed} pod(s) failed. "
            f"Check: kubectl -n {namespace} logs job/{name}; {describe}"
        )
    if seen.pod_problems:
        return f"{job} cannot make progress: {'; '.join(seen.pod_problems)}. Check: {describe}"
    suspended = is_true(conditions, "Suspended") or not status.get("startTime")
    if not suspended:
        return (
            f"{job} was admitted and started but did not complete in time: {active} active, {succeeded} succeeded, "
            f"{failed} failed pod(s). Pods may be Pending on nodes that are not Ready yet. "
            f"Check: kubectl -n {namespace} get pods -l batch.kubernetes.io/job-name={name} -o wide; kubectl get nodes"
        )
    return f"{job} is still suspended: Kueue has not admitted it. " + _why_not_admitted(seen, namespace)


def _why_not_admitted(seen: JobObservation, namespace: str) -> str:
    workload, provreq = seen.workload_conditions, seen.provreq_conditions
    check_provreq = (
        f"Check: kubectl -n {namespace} get provisioningrequest -o yaml (status.conditions); "
        f"kubectl get crd {PROVISIONING_REQUEST_CRD}"
    )
    if workload is None:
        return (
            "Kueue created no Workload for it. Check that its kueue.x-k8s.io/queue-name label names a LocalQueue "
            f"(kubectl -n {namespace} get localqueue) and that kueue.managedJobsNamespaceSelector matches namespace "
            f"{namespace!r}."
        )
    if provreq is None:
        if not is_true(workload, "QuotaReserved"):
            return (
                f"Its Workload has no quota reserved{explained(condition(workload, 'QuotaReserved'))}. If the "
                "ClusterQueue is inactive with reason AdmissionCheckInactive, the ProvisioningRequest CRD did not "
                f"exist when Kueue started. {AKS_PROVISIONING_REQUESTS}. Check: kubectl get clusterqueue -o yaml; "
                f"kubectl get admissioncheck -o yaml; kubectl get crd {PROVISIONING_REQUEST_CRD}"
            )
        return (
            "Kueue reserved quota but created no ProvisioningRequest: its provisioning AdmissionCheck is probably "
            "inactive because the ProvisioningRequest CRD did not exist when Kueue started. "
            f"{AKS_PROVISIONING_REQUESTS}. "
            f"Check: kubectl get admissioncheck -o yaml; kubectl get crd {PROVISIONING_REQUEST_CRD}; "
            "restart kueue-controller-manager once the CRD exists."
        )
    if not provreq:
        return (
            "Its ProvisioningRequest has no conditions: no cluster autoscaler has picked it up. "
            f"{AKS_PROVISIONING_REQUESTS}. {check_provreq}; the node pool must have the cluster autoscaler enabled."
        )
    provisioned = condition(provreq, "Provisioned")
    if is_true(provreq, "Failed"):
        return f"Its ProvisioningRequest failed{explained(condition(provreq, 'Failed'))}. {check_provreq}"
    if provisioned is not None and provisioned.get("status") == "False":
        cause = (
            "the request exceeds the pool's maxCount, or the region has no capacity or quota for the VM size"
            if provisioned.get("reason") == "CapacityIsNotFound"
            else "see the reason"
        )
        return f"The autoscaler could not provision capacity{explained(provisioned)}: {cause}. {check_provreq}"
    if provisioned is not None and provisioned.get("status") == "True":
        return (
            "Capacity was provisioned, but Kueue has not admitted the Workload yet (Provisioned=True does not mean "
            f"the nodes are Ready). Check: kubectl get nodes; kubectl -n {namespace} get workloads -o yaml"
        )
    return (
        f"The autoscaler accepted its ProvisioningRequest but has not provisioned capacity yet"
        f"{explained(condition(provreq, 'Accepted'))}; scale-ups can take minutes: raise smokeJob.timeoutSeconds "
        f"if nodes are still joining. {check_provreq}"
    )


class JobObserver:
    """Reads a Job, its pods, the Workload Kueue made for it and that Workload's newest ProvisioningRequest."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster

    @classmethod
    def from_kubeconfig(cls, kubeconfig: str) -> JobObserver:
        return cls(RestCluster(kubeconfig))

    def observe(self, namespace: str, name: str) -> JobObservation:
        job = self.cluster.get(f"/apis/batch/v1/namespaces/{namespace}/jobs/{name}")
        pods = self.cluster.list(f"/api/v1/namespaces/{namespace}/pods", f"batch.kubernetes.io/job-name={name}")
        workload = self._newest_owned(f"{KUEUE_API_PATH}/namespaces/{namespace}/workloads", job)
        provreq = None
        if workload is not None:
            path = f"/apis/autoscaling.x-k8s.io/v1/namespaces/{namespace}/provisioningrequests"
            provreq = self._newest_owned(path, workload)
        return JobObservation(
            job_status=job.get("status") or {},
            workload_conditions=_conditions_of(workload),
            provreq_conditions=_conditions_of(provreq),
            pod_problems=pod_problems(pods),
        )

    def _newest_owned(self, path: str, owner: Mapping[str, Any]) -> Any:
        try:
            items = self.cluster.list(path)
        except Exception as error:
            if is_not_found(error):  # the CRD is not installed: there are none
                return None
            raise
        uid = owner["metadata"]["uid"]
        owned = [i for i in items if any(o.get("uid") == uid for o in i["metadata"].get("ownerReferences", []))]
        return max(owned, key=lambda i: i["metadata"].get("creationTimestamp", ""), default=None)


def _conditions_of(obj: Mapping[str, Any] | None) -> Conditions | None:
    return None if obj is None else (obj.get("status") or {}).get("conditions") or []


def wait_for_job(
    observer: JobObserver, namespace: str, name: str, timeout_seconds: float, **poll_options: Any
) -> JobObservation:
    """Poll until the Job completes; raise :class:`JobIncompleteError` with the diagnosis when it fails or times out.

    ``poll_options`` go to :func:`components.kube_wait.poll` (a fake clock in tests).
    """
    seen, finished = poll(
        lambda: observer.observe(namespace, name),
        lambda s: job_outcome(s.job_status) is not None,
        timeout_seconds,
        **poll_options,
    )
    if job_outcome(seen.job_status) == "Complete":
        return seen
    waited = "" if finished else f"Waited {timeout_seconds:.0f}s. "
    raise JobIncompleteError(waited + diagnose(seen, namespace=namespace, name=name))


WATCHED_INPUTS = ("jobNamespace", "jobName", "jobUid", "timeoutSeconds")
"""A change to any of these is a different Job (or deadline) to wait for; a rotated kubeconfig is not."""


class JobCompletionProvider(WaitProvider):
    """Creating the resource means: wait until the Job completes."""

    shipped_modules = SHIPPED_MODULES
    watched_inputs = WATCHED_INPUTS

    def create(self, props: dict[str, Any]) -> CreateResult:
        namespace, name = props["jobNamespace"], props["jobName"]
        observer = JobObserver.from_kubeconfig(props["kubeconfig"])
        done = wait_for_job(observer, namespace, name, float(props["timeoutSeconds"]))
        outs = {key: props.get(key) for key in WATCHED_INPUTS}
        return CreateResult(id_=f"{namespace}/{name}", outs={**outs, "succeeded": done.job_status.get("succeeded", 0)})


class JobCompletion(pulumi.dynamic.Resource, module="kueue", name="JobCompletion"):
    """Completes when Job ``job_namespace/job_name`` does; fails with :func:`diagnose`'s explanation otherwise."""

    succeeded: pulumi.Output[int]

    def __init__(
        self,
        resource_name: str,
        *,
        job_namespace: pulumi.Input[str],
        job_name: pulumi.Input[str],
        job_uid: pulumi.Input[str | None],
        timeout_seconds: int,
        kubeconfig: pulumi.Input[str],
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        props = {
            "jobNamespace": job_namespace,
            "jobName": job_name,
            "jobUid": job_uid,
            "timeoutSeconds": timeout_seconds,
            "kubeconfig": pulumi.Output.secret(kubeconfig),
            "succeeded": None,
        }
        super().__init__(JobCompletionProvider(), resource_name, props, opts)
