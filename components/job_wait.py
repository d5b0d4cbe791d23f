"""Wait for a Kueue-managed Job to complete, and say why when it does not.

pulumi-kubernetes' own Job await only knows "not complete yet"; a Job that Kueue keeps suspended would time out
without a hint. This waiter also reads the Job's pods, its Workload and that Workload's ProvisioningRequest and turns
what it finds into a diagnosis (:func:`diagnose`, pure) naming the likely cause and the commands that confirm it.
Pod problems (an image that cannot be pulled, a pod no node fits) come first: they are the cause whatever the
autoscaler does. ``python -m tools.why`` prints the same diagnosis for any Job, from the same observation.

The provider is shipped by value (:mod:`components.dynamic_by_value`): this module imports nothing from the project
but the modules listed in :data:`SHIPPED_MODULES`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import pulumi
from pulumi.dynamic import CreateResult

from components.dynamic_by_value import WaitProvider, reading
from components.kube_wait import (
    KUEUE_API_PATH,
    PROVISIONING_REQUEST_CRD,
    QUEUE_NAME_LABEL,
    Cluster,
    ClusterReader,
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
JOB_UID_LABEL = "kueue.x-k8s.io/job-uid"
"""Kueue labels a Job's Workload with the Job's UID beside its controller ownerReference (``JobUIDLabel`` in
https://github.com/kubernetes-sigs/kueue/blob/v0.17.8/pkg/controller/constants/constants.go, the same through 0.19)."""
EVICTIONS = {
    "Preempted": "a workload of higher priority, or its cohort reclaiming lent quota, took its place; it is requeued "
    "and admitted again once quota frees",
    "PodsReadyTimeout": "its pods were not all ready within waitForPodsReady's timeout (on by default from Kueue "
    "0.19); it is requeued after a backoff",
    "AdmissionCheck": "an admission check asked for a retry: Kueue deleted the Workload's ProvisioningRequests with "
    "the eviction (from Kueue 0.17.7, gate CleanupProvisioningRequestsOnEviction) and files attempt retryCount + 1 "
    "once the check's requeueAfterSeconds have passed and quota is reserved again",
    "ClusterQueueStopped": "its ClusterQueue has a spec.stopPolicy; clear it to let the Workload run",
    "LocalQueueStopped": "its LocalQueue has a spec.stopPolicy; clear it to let the Workload run",
    "Deactivated": "the Workload is deactivated (spec.active: false) and is not requeued until that is set to true",
}
"""What an ``Evicted=True`` reason means (``WorkloadEvictedBy*`` in
https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/apis/kueue/v1beta2/workload_types.go); a deactivation's reason
carries its cause after the prefix (``DeactivatedDueToAdmissionCheck``). An eviction resets every check to Pending,
counting a retry in ``retryCount``, and deletes the Workload's ProvisioningRequests
(``resetChecksOnEviction`` in https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/workload/evict/evict.go;
``Reconcile`` in
https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/controller/admissionchecks/provisioning/controller.go);
the next request is named after ``retryCount``."""


@dataclasses.dataclass(frozen=True)
class JobObservation:
    """What one poll saw: the Job's ``status`` and queue label, its pods' problems, the conditions and admission checks
    of its Workload, and the conditions of that Workload's newest ProvisioningRequest.

    ``None`` means the object (or the label) does not exist (yet); ``[]`` means it exists without conditions.
    """

    job_status: Mapping[str, Any]
    workload_conditions: Conditions | None = None
    provreq_conditions: Conditions | None = None
    pod_problems: tuple[str, ...] = ()
    queue_name: str | None = None
    admission_checks: tuple[Mapping[str, Any], ...] = ()
    """The Workload's ``status.admissionChecks``: ``name``, ``state`` (Pending, Ready, Retry, Rejected), ``message``."""
    workload_name: str = ""
    provreq_name: str = ""


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
    """Explain the state of Job ``namespace/name`` in one line: what happened or what it waits for, and what to
    check."""
    job = f"Job {namespace}/{name}"
    status = seen.job_status
    conditions = status.get("conditions")
    succeeded, failed, active, ready = (int(status.get(k) or 0) for k in ("succeeded", "failed", "active", "ready"))
    outcome = job_outcome(status)
    pods = f"pods -l batch.kubernetes.io/job-name={name}"
    if outcome == "Complete":
        return f"{job} completed: {succeeded} pod(s) succeeded."
    if outcome == "Failed":
        return (
            f"{job} failed{explained(condition(conditions, 'Failed'))}: {failed} pod(s) failed. "
            f"Check: kubectl -n {namespace} logs job/{name}; kubectl -n {namespace} describe {pods}"
        )
    if seen.pod_problems:
        return (
            f"{job} cannot make progress: {'; '.join(seen.pod_problems)}. Check: kubectl -n {namespace} describe {pods}"
        )
    if seen.workload_conditions is None and seen.queue_name is None:
        return (
            f"{job} is not managed by Kueue: it has no {QUEUE_NAME_LABEL} label and Kueue made no Workload for it, so "
            f"Kueue neither queues nor admits it. To queue it, submit it with that label naming a LocalQueue "
            f"(kubectl -n {namespace} get localqueue)."
        )
    counts = f"{active} active ({ready} ready), {succeeded} succeeded, {failed} failed pod(s)"
    if not (is_true(conditions, "Suspended") or not status.get("startTime")):
        if ready:
            return f"{job} is running: {counts}. Follow it: kubectl -n {namespace} logs -f job/{name}"
        return (
            f"{job} was admitted and started, but none of its pods is ready: {counts}. Pods may be Pending on nodes "
            f"that are not Ready yet. Check: kubectl -n {namespace} get {pods} -o wide; kubectl get nodes"
        )
    return f"{job} is still suspended: Kueue has not admitted it. " + _why_not_admitted(seen, namespace)


def _why_not_admitted(seen: JobObservation, namespace: str) -> str:
    workload, provreq = seen.workload_conditions, seen.provreq_conditions
    if workload is None:
        return (
            f"Kueue created no Workload for it. Check that LocalQueue {seen.queue_name!r}, which its "
            f"{QUEUE_NAME_LABEL} label names, exists (kubectl -n {namespace} get localqueue) and that "
            f"kueue.managedJobsNamespaceSelector matches namespace {namespace!r}."
        )
    show_workload = _show(namespace, "workload", seen.workload_name)
    check_provreq = f"Check: {_show(namespace, 'provisioningrequest', seen.provreq_name)} (status.conditions)"
    if rejected := _checks(seen, "Rejected"):
        return (
            f"Its admission check {rejected} rejected it, so Kueue deactivated the Workload and does not retry: fix "
            f"the cause, then delete and resubmit the Job. Check: {show_workload} (status.admissionChecks)"
        )
    if is_true(provreq, "Failed"):
        provisioned = condition(provreq, "Provisioned")
        before = "" if provisioned is None or provisioned.get("status") != "False" else _no_capacity(provisioned)
        retried = "; Kueue tries again after a backoff, up to retryStrategy.backoffLimitCount times"
        return (
            f"Its ProvisioningRequest failed{explained(condition(provreq, 'Failed'))}"
            f"{f' after the autoscaler could not provision capacity{before}' if before else ''}"
            f"{retried if seen.admission_checks else ''}. {check_provreq}"
        )
    if retry := _checks(seen, "Retry"):
        return (
            f"Its admission check {retry} asked for a retry: Kueue releases its quota and requeues it after a "
            f"backoff. Check: {show_workload} (status.admissionChecks)"
        )
    evicted = condition(workload, "Evicted")
    if evicted is not None and evicted.get("status") == "True":
        reason = str(evicted.get("reason") or "")
        meaning = next((m for r, m in EVICTIONS.items() if reason.startswith(r)), "see the reason")
        return f"Kueue evicted its Workload{explained(evicted)}: {meaning}. Check: {show_workload} (status.conditions)"
    if not is_true(workload, "QuotaReserved"):
        return _why_no_quota(seen, namespace)
    if provreq is None:
        pending = _checks(seen, "Pending")
        return (
            "Kueue reserved quota but created no ProvisioningRequest"
            f"{f' (admission check {pending})' if pending else ''}"
            ": its provisioning AdmissionCheck is probably inactive because the ProvisioningRequest CRD did not exist "
            f"when Kueue started. {AKS_PROVISIONING_REQUESTS}. "
            f"Check: kubectl get admissioncheck -o yaml; kubectl get crd {PROVISIONING_REQUEST_CRD}; "
            "restart kueue-controller-manager once the CRD exists."
        )
    return _why_not_provisioned(provreq, check_provreq, show_workload)


def _why_no_quota(seen: JobObservation, namespace: str) -> str:
    """Why the Workload holds no quota, by the message Kueue gives (its reasons are granular only with the
    UnadmittedWorkloadsObservability gate, alpha in 0.18.5)."""
    reserved = condition(seen.workload_conditions, "QuotaReserved")
    message, why = str((reserved or {}).get("message") or ""), explained(reserved)
    if "is inactive" in message:
        return (
            f"Its Workload has no quota reserved{why}. If the ClusterQueue is inactive with reason "
            "AdmissionCheckInactive, the ProvisioningRequest CRD did not exist when Kueue started. "
            f"{AKS_PROVISIONING_REQUESTS}. Check: kubectl get clusterqueue -o yaml; "
            f"kubectl get admissioncheck -o yaml; kubectl get crd {PROVISIONING_REQUEST_CRD}"
        )
    if "doesn't exist" in message:
        return (
            f"Its Workload has no quota reserved{why}: create that queue, or point the Job's {QUEUE_NAME_LABEL} "
            f"label at one that exists. Check: kubectl -n {namespace} get localqueue; kubectl get clusterqueue"
        )
    visibility = f"/apis/visibility.kueue.x-k8s.io/v1beta2/namespaces/{namespace}/localqueues/{seen.queue_name}"
    position = f"; its place in the queue: kubectl get --raw {visibility}/pendingworkloads" if seen.queue_name else ""
    return (
        f"Its Workload waits for quota{why}: Kueue admits it once its ClusterQueue, with what its cohort lends, has "
        "that much unused quota, as running workloads finish or when nominalQuota is raised. "
        f"Check: kubectl get clusterqueue -o yaml (status.flavorsUsage){position}"
    )


def _why_not_provisioned(provreq: Conditions, check_provreq: str, show_workload: str) -> str:
    """What the autoscaler has made of the Workload's ProvisioningRequest, which has not failed."""
    if not provreq:
        return (
            "Its ProvisioningRequest has no conditions: no cluster autoscaler has picked it up. "
            f"{AKS_PROVISIONING_REQUESTS}. {check_provreq}; the node pool must have the cluster autoscaler enabled."
        )
    provisioned = condition(provreq, "Provisioned")
    if provisioned is not None and provisioned.get("status") == "False":
        return f"The autoscaler could not provision capacity{_no_capacity(provisioned)}. {check_provreq}"
    if provisioned is not None and provisioned.get("status") == "True":
        return (
            "Capacity was provisioned, but Kueue has not admitted the Workload yet (Provisioned=True does not mean "
            f"the nodes are Ready). Check: kubectl get nodes; {show_workload}"
        )
    return (
        f"The autoscaler accepted its ProvisioningRequest but has not provisioned capacity yet"
        f"{explained(condition(provreq, 'Accepted'))}; scale-ups can take minutes. {check_provreq}"
    )


def _no_capacity(provisioned: Mapping[str, Any]) -> str:
    """`` (reason: message): the likely cause`` of a ``Provisioned=False`` condition."""
    cause = (
        "the request exceeds the pool's maxCount, or the region has no capacity or quota for the VM size"
        if provisioned.get("reason") == "CapacityIsNotFound"
        else "see the reason"
    )
    return f"{explained(provisioned)}: {cause}"


def _checks(seen: JobObservation, state: str) -> str:
    """The Workload's admission checks in ``state``, each with its message: ``'cas-provisioning' (why)``."""
    found = [c for c in seen.admission_checks if c.get("state") == state]
    return "; ".join(f"{c.get('name')!r}" + (f" ({c['message']})" if c.get("message") else "") for c in found)


def _show(namespace: str, kind: str, name: str) -> str:
    """The ``kubectl get`` that shows the object (or, its name unknown, the namespace's objects of the kind)."""
    return f"kubectl -n {namespace} get {kind} {name} -o yaml" if name else f"kubectl -n {namespace} get {kind} -o yaml"


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
        workloads = f"{KUEUE_API_PATH}/namespaces/{namespace}/workloads"
        workload = self._newest_owned(workloads, job, f"{JOB_UID_LABEL}={job['metadata']['uid']}")
        provreq = None
        if workload is not None:
            path = f"/apis/autoscaling.x-k8s.io/v1/namespaces/{namespace}/provisioningrequests"
            provreq = self._newest_owned(path, workload)
        return JobObservation(
            job_status=job.get("status") or {},
            workload_conditions=_conditions_of(workload),
            provreq_conditions=_conditions_of(provreq),
            pod_problems=pod_problems(pods),
            queue_name=(job["metadata"].get("labels") or {}).get(QUEUE_NAME_LABEL),
            admission_checks=tuple(((workload or {}).get("status") or {}).get("admissionChecks") or ()),
            workload_name=(workload or {}).get("metadata", {}).get("name", ""),
            provreq_name=(provreq or {}).get("metadata", {}).get("name", ""),
        )

    def _newest_owned(self, path: str, owner: Mapping[str, Any], label_selector: str | None = None) -> Any:
        try:
            items = self.cluster.list(path, label_selector)
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
    waited = "" if finished else f"Waited {timeout_seconds:.0f}s (smokeJob.timeoutSeconds). "
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
        reader: ClusterReader,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        props = {
            "jobNamespace": job_namespace,
            "jobName": job_name,
            "jobUid": job_uid,
            "timeoutSeconds": timeout_seconds,
            "kubeconfig": pulumi.Output.secret(reader.kubeconfig),
            "succeeded": None,
        }
        super().__init__(JobCompletionProvider(), resource_name, props, reading(reader, opts))
