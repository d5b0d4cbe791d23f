"""Wait for a Kueue-managed Job to complete, and say why when it does not.

pulumi-kubernetes' own Job await only knows "not complete yet". This waiter reads the Job, its pods, Workload and
ProvisioningRequest (:class:`JobObserver`) and tells (:func:`diagnose`, pure) the likely cause and the commands that
confirm it, by the strings Kueue and the autoscaler set (``kueue/<path>``: https://github.com/kubernetes-sigs/kueue/tree/v0.19.2,
the same at v0.17.8 and v0.18.6 unless said; ``autoscaler/<path>``: https://github.com/kubernetes/autoscaler/tree/cluster-autoscaler-1.35.2/cluster-autoscaler).
tests/cases/why/states.yaml records each state; ``python -m tools.why`` prints the diagnosis for any Job. Shipped by
value (:mod:`components.waiters.dynamic_by_value`): it imports nothing of the project but :data:`SHIPPED_MODULES`.
"""

from __future__ import annotations

import dataclasses
import datetime
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pulumi
from pulumi.dynamic import CreateResult

from components.manifests.labels import QUEUE_NAME_LABEL
from components.waiters.dynamic_by_value import WaitProvider, reading
from components.waiters.kube_wait import (
    KUEUE_API_PATH,
    PROVISIONING_REQUEST_CRD,
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

SHIPPED_MODULES = (
    "components.waiters.dynamic_by_value",
    "components.manifests.labels",
    "components.waiters.kube_wait",
    __name__,
)
"""Everything the provider process needs of this project, dependencies first."""

AKS_PROVISIONING_REQUESTS = (
    "On AKS the managed cluster autoscaler serves ProvisioningRequests from Kubernetes 1.33 on "
    "(https://github.com/Azure/AKS/pull/5867); below 1.33, or in a region the feature has not reached yet, the "
    "ProvisioningRequest CRD is missing and nothing acts on the requests"
)
GENERIC_PROVISIONING_REQUESTS = (
    f"The cluster needs a cluster autoscaler that serves ProvisioningRequests, with the {PROVISIONING_REQUEST_CRD} CRD "
    "installed (https://kubernetes.io/docs/concepts/cluster-administration/cluster-autoscaling/)"
)
WAITING_PROBLEMS = ("ErrImagePull", "ImagePullBackOff", "InvalidImageName", "CreateContainerConfigError")
"""Container waiting reasons that never resolve by themselves."""
JOB_UID_LABEL = "kueue.x-k8s.io/job-uid"
"""Kueue's label on a Job's Workload beside its ownerReference (kueue/pkg/controller/constants/constants.go)."""
PROVISIONING, MULTIKUEUE = "kueue.x-k8s.io/provisioning-request", "kueue.x-k8s.io/multikueue"
"""The ``spec.controllerName`` of Kueue's own two checks (kueue/apis/kueue/v1beta2/multikueue_types.go)."""
CHECK_INACTIVE = "the check is not active"
"""On a check with no ProvisioningRequestConfig (kueue/pkg/controller/admissionchecks/provisioning/constants.go)."""
CONSUMES = (
    "autoscaling.x-k8s.io/consume-provisioning-request",
    "cluster-autoscaler.kubernetes.io/consume-provisioning-request",
)
"""The annotation naming the ProvisioningRequest a pod consumes (and its old name): the autoscaler leaves such a pod
out of every scale-up (autoscaler/processors/provreq/pods_filter.go)."""
SCALE_UP_EVENTS = ("TriggeredScaleUp", "NotTriggerScaleUp")
"""The autoscaler's events on a pending pod (autoscaler/processors/status/eventing_scale_up_processor.go)."""
NODE_PROVISION_SECONDS = 15 * 60
"""How long a new node counts as coming up: the autoscaler's ``--max-node-provision-time`` (autoscaler/FAQ.md)."""
NEVER_FITS = {
    r"resource (?P<resource>[^\s,;]+) unavailable in ClusterQueue": "{queue} has no quota for {resource}: add it to "
    "a resource group of the ClusterQueue (a flavor with nominalQuota), or drop the request from the Job",
    r"insufficient quota for (?P<resource>[^\s,;]+) in flavor (?P<flavor>[^\s,;]+), previously considered "
    r"podsets requests \([^)]*\) \+ current podset request \((?P<request>[^)]*)\) > maximum capacity "
    r"\((?P<capacity>[^)]*)\)": "it asks {request} {resource} in flavor {flavor}, more than the {capacity} {queue} "
    "can ever have there (nominal quota plus what its cohort may lend): raise that quota or borrowingLimit, or lower "
    "the Job's requests",
    r"flavor (?P<flavor>[^\s,;]+) doesn't match node affinity": "the Job's nodeSelector or affinity matches no "
    "nodeLabels of flavor {flavor}: change the Job's selector, or the flavor's spec.nodeLabels",
    r"untolerated taint \{(?P<taint>[^}]*)\} in flavor (?P<flavor>[^\s,;]+)": "the Job does not tolerate taint "
    "{taint} of flavor {flavor}: add that toleration to the Job, or to the flavor's spec.tolerations",
    r"flavor (?P<flavor>[^\s,;]+) not found": "ResourceFlavor {flavor} does not exist: create it",
}
"""The flavor assigner's reasons that waiting never cures, and what to change (a taint prints as Go prints structs,
``{key value effect <nil>}``; kueue/pkg/scheduler/flavorassigner/flavorassigner.go)."""
NO_FIT_REASONS = {
    "NoMatchingFlavor": "no flavor of {queue} matches the Job's resources, nodeSelector or tolerations",
    "ExceedsMaxQuota": "it asks more than {queue} can ever have (nominal quota plus what its cohort may lend)",
}
"""The same told by ``QuotaReserved`` reasons with gate UnadmittedWorkloadsObservability (0.18 alpha, 0.19 off), even
when the message says only "Bypassed scheduling evaluation …" (kueue/pkg/controller/core/workload_controller.go)."""
INADMISSIBLE = {
    r"(LocalQueue|ClusterQueue) \S+ (doesn't exist|not found)": "create that queue, or point the Job's {label} label "
    "at one that exists. Check: kubectl -n {namespace} get localqueue; kubectl get clusterqueue",
    r"LocalQueue \S+ is inactive": "the LocalQueue has a spec.stopPolicy, or its ClusterQueue is inactive. "
    "Check: kubectl -n {namespace} get localqueue -o yaml (spec.stopPolicy, status.conditions)",
    r"ClusterQueue \S+ is inactive": "its Active condition says why: Stopped (spec.stopPolicy), FlavorNotFound, "
    "AdmissionCheckNotFound, or AdmissionCheckInactive, which for a provisioning check means the ProvisioningRequest "
    "CRD did not exist when Kueue started. {aks}. Check: kubectl get clusterqueue -o yaml; kubectl get admissioncheck "
    f"-o yaml; kubectl get crd {PROVISIONING_REQUEST_CRD}",
    r"namespace doesn't match ClusterQueue selector": "the spec.namespaceSelector of {queue} does not match namespace "
    "{namespace}: label the namespace, or widen the selector. Check: kubectl get namespace {namespace} --show-labels",
    r"resources validation failed|resources didn't satisfy LimitRange": "fix the Job's container resources (a request "
    "above its limit), or the namespace's LimitRange. Check: kubectl -n {namespace} get limitrange -o yaml",
    r"waiting for all admitted workloads to be in PodsReady": "waitForPodsReady.blockAdmission admits nothing new "
    "until the pods of the admitted workloads are all ready. Check: kubectl get workloads -A",
    r"Admission is gated by": "Kueue admits it once the gates of its kueue.x-k8s.io/admission-gated-by annotation open",
}
"""``QuotaReserved=False`` messages naming a cause other than quota (kueue/pkg/controller/core/workload_controller.go,
kueue/pkg/scheduler/scheduler.go, kueue/pkg/workload/resources.go; 0.17.8 capitalizes "Workload namespace")."""
PREEMPTING = r"Pending the preemption of \d+|will fit after these preemptions complete|Preempting \d+ workload"
"""The scheduler's messages while the preemptions it issued are under way (kueue/pkg/scheduler/scheduler.go)."""
PREEMPTIONS_END = (
    "Kueue evicts lower-priority workloads or takes back lent quota, and reserves quota once they are gone"
)
QUOTA_FREES = "Kueue admits it once its ClusterQueue, with what its cohort lends, has that much unused quota, as "
QUOTA_FREES += "running workloads finish or when nominalQuota is raised"
RETRY_CAUSES = {
    "Retrying after booking expired": "the autoscaler's 10-minute booking of the capacity it provisioned ran out "
    "before Kueue admitted the Workload",
    "Retrying after failure": "the autoscaler failed the ProvisioningRequest",
}
"""Why a provisioning check is Retry (kueue/pkg/controller/admissionchecks/provisioning/controller.go; the booking's
``defaultReservationTime``, autoscaler/processors/provreq/processor.go)."""
REACTIVATE = "; once the cause is fixed, reactivate it: kubectl -n {0} patch workload {1} --type=merge -p "
REACTIVATE += '\'{{"spec":{{"active":true}}}}\''
"""The one remedy for a Workload Kueue deactivated: its eviction reset every check to Pending, so it is queued afresh
and files a new ProvisioningRequest (``resetChecksOnEviction`` in kueue/pkg/workload/evict/evict.go)."""
EVICTIONS = {
    "Preempted": "a workload of higher priority, or its cohort reclaiming lent quota, took its place; it is requeued "
    "and admitted again once quota frees",
    "PodsReadyTimeout": "its pods were not all ready within waitForPodsReady's timeout (on by default from Kueue "
    "0.19: 30 minutes); it is requeued after a backoff",
    "AdmissionCheck": "an admission check asked for a retry: Kueue deleted the Workload's ProvisioningRequests with "
    "the eviction (from Kueue 0.17.7, gate CleanupProvisioningRequestsOnEviction) and files attempt retryCount + 1 "
    "once the check's requeueAfterSeconds have passed and quota is reserved again",
    "ClusterQueueStopped": "its ClusterQueue has a spec.stopPolicy; clear it to let the Workload run",
    "LocalQueueStopped": "its LocalQueue has a spec.stopPolicy; clear it to let the Workload run",
    "NodeFailures": "a node it ran on failed (topology-aware scheduling); it is requeued",
    "DeactivatedDueToAdmissionCheck": "an admission check rejected it, so Kueue set spec.active to false",
    "DeactivatedDueToRequeuingLimitExceeded": "it was requeued more often than waitForPodsReady's "
    "requeuingStrategy.backoffLimitCount allows, its pods never all ready, so Kueue set spec.active to false",
    "DeactivatedDueToMaximumExecutionTimeExceeded": "it ran longer than its kueue.x-k8s.io/max-exec-time-seconds "
    "label allows, so Kueue set spec.active to false",
    "Deactivated": "its spec.active was set to false (kubectl kueue stop workload)",
}
"""What an ``Evicted=True`` reason means (kueue/apis/kueue/v1beta2/workload_types.go); Kueue's deactivation names its
cause after ``DueTo`` (kueue/pkg/workload/patching/patching.go) and waits for :data:`REACTIVATE`."""
NO_CAPACITY = {
    "CapacityIsNotFound": "the request exceeds the pool's maxCount, or the region has no capacity or quota for the "
    "VM size",
    "FailedToCheckCapacity": "the autoscaler could not simulate the scale-up and tries again on its next loop",
}
"""Why the autoscaler says ``Provisioned=False`` (autoscaler/provisioningrequest/besteffortatomic)."""
PENDING_CHECKS = {
    CHECK_INACTIVE: ", but its provisioning check {said} files no ProvisioningRequest: the ProvisioningRequestConfig "
    "{config} it names does not exist; create it. Check: {show_check}; kubectl get provisioningrequestconfig",
    "Error creating": ", but its provisioning check {said} could not create the ProvisioningRequest. "
    "Check: kubectl -n kueue-system logs deployment/kueue-controller-manager",
    PROVISIONING: ", but its provisioning check {said} has no ProvisioningRequest yet: Kueue files one within seconds; "
    "if none comes, Kueue's provisioning controller is not running, as when the ProvisioningRequest CRD did not exist "
    f"when Kueue started. {{aks}}. Check: kubectl get crd {PROVISIONING_REQUEST_CRD}; restart kueue-controller-manager "
    "once the CRD exists.",
    MULTIKUEUE: "; its MultiKueue check {said} dispatches the Workload to the worker clusters, and Kueue admits it "
    "here once a worker takes it. Check: {show_workload} (status.nominatedClusterNames); kubectl get multikueuecluster",
    "": " and waits for its admission check {said}{by} to be Ready. Check: {show_check} (spec.controllerName); "
    "{show_workload} (status.admissionChecks)",
}
"""What a pending check waits for, after "Kueue reserved quota": by the provisioning controller's own messages
(kueue/pkg/controller/admissionchecks/provisioning/controller.go), else by its AdmissionCheck's controller."""


@dataclasses.dataclass(frozen=True)
class JobObservation:
    """What one poll saw: the Job's ``status`` and queue label, its pods, its Workload's conditions and admission checks
    (with their AdmissionChecks' ``spec``), its newest ProvisioningRequest's conditions; while no quota is reserved,
    its ClusterQueue; while a pod is unschedulable, the autoscaler's events on it and the nodes. ``None`` means the
    object (or the label) does not exist (yet); ``[]`` means it exists without conditions."""

    job_status: Mapping[str, Any]
    workload_conditions: Conditions | None = None
    provreq_conditions: Conditions | None = None
    pods: tuple[Mapping[str, Any], ...] = ()
    queue_name: str | None = None
    admission_checks: tuple[Mapping[str, Any], ...] = ()
    workload_name: str = ""
    provreq_name: str = ""
    check_specs: Mapping[str, Mapping[str, Any]] = dataclasses.field(default_factory=dict)
    cluster_queue: str = ""
    events: tuple[Mapping[str, Any], ...] = ()
    nodes: tuple[Mapping[str, Any], ...] = ()
    observed_at: datetime.datetime | None = None


class JobIncompleteError(Exception):
    """The Job failed or did not complete in time; the message is the diagnosis."""


def pod_problems(pods: Sequence[Mapping[str, Any]]) -> tuple[str, ...]:
    """One line per container that cannot start on its own: an unpullable image, a bad config."""
    problems = []
    for pod in pods:
        status = pod.get("status") or {}
        for container in status.get("initContainerStatuses", []) + status.get("containerStatuses", []):
            waiting = (container.get("state") or {}).get("waiting") or {}
            if waiting.get("reason") in WAITING_PROBLEMS:
                problems.append(f"pod {_name(pod)} container {container.get('name')}{explained(waiting)}")
    return tuple(problems)


def unschedulable(pods: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The pods the scheduler found no node for (``PodScheduled=False``, ``Unschedulable``)."""
    return [p for p in pods if (_scheduled(p) or {}).get("reason") == "Unschedulable" and _scheduled(p, "False")]


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
    if problems := pod_problems(seen.pods):
        return f"{job} cannot make progress: {'; '.join(problems)}. Check: kubectl -n {namespace} describe {pods}"
    if seen.workload_conditions is None and seen.queue_name is None:
        return (
            f"{job} is not managed by Kueue: it has no {QUEUE_NAME_LABEL} label and Kueue made no Workload for it, so "
            f"Kueue neither queues nor admits it. To queue it, submit it with that label naming a LocalQueue "
            f"(kubectl -n {namespace} get localqueue)."
        )
    started = not (is_true(conditions, "Suspended") or not status.get("startTime"))
    if rejected := _checks(seen, "Rejected"):  # Kueue deactivates the Workload, which resets it to Pending
        lost = is_true(seen.provreq_conditions, "CapacityRevoked")
        said = (
            f"its admission check {rejected} rejected it{' (its provisioner revoked the capacity)' if lost else ''}, "
            f"so Kueue deactivates the Workload and stops the Job{REACTIVATE.format(namespace, seen.workload_name)}. "
            f"Check: {_show(namespace, 'workload', seen.workload_name)} (status.admissionChecks)"
        )
        return f"{job} was admitted, but {said}" if started else f"{job} is still suspended: {said}"
    if not started:
        return f"{job} is still suspended: Kueue has not admitted it. " + _why_not_admitted(seen, namespace)
    counts = f"{active} active ({ready} ready), {succeeded} succeeded, {failed} failed pod(s)"
    if stuck := unschedulable(seen.pods):
        return _why_unschedulable(seen, stuck, job, f"kubectl -n {namespace} describe {pods}")
    if ready:
        return f"{job} is running: {counts}. Follow it: kubectl -n {namespace} logs -f job/{name}"
    return (
        f"{job} was admitted and started, but none of its pods is ready: {counts}. Pods may be Pending on nodes "
        f"that are not Ready yet. Check: kubectl -n {namespace} get {pods} -o wide; kubectl get nodes"
    )


def _why_unschedulable(seen: JobObservation, stuck: list[Mapping[str, Any]], job: str, describe: str) -> str:
    """Pods no node fits: waiting for a scale-up if evidence says nodes come and none says they will not."""
    said = "; ".join(f"pod {_name(p)} is unschedulable{explained(_scheduled(p))}" for p in stuck)
    verdicts = [verdict for verdict in (_scale_up(seen, pod) for pod in stuck) if verdict]
    blocked = next((why for waits, why in verdicts if not waits), None)
    coming = next((why for waits, why in verdicts if waits), None)
    if blocked or not coming:
        return f"{job} cannot make progress: {said}{f'; {blocked}' if blocked else ''}. Check: {describe}"
    return (
        f"{job} was admitted and started, and waits for new nodes: {said}, while {coming}. The scheduler places "
        f"its pods once the nodes are Ready. Check: kubectl get nodes; {describe}"
    )


def _scale_up(seen: JobObservation, pod: Mapping[str, Any]) -> tuple[bool, str] | None:
    """Whether nodes come for ``pod`` (True) or not (False), and the evidence; ``None`` when nothing tells."""
    annotations = pod.get("metadata", {}).get("annotations") or {}
    request = next((annotations[key] for key in CONSUMES if key in annotations), None)
    if request and request == seen.provreq_name:
        true = {c.get("type"): c for c in seen.provreq_conditions or () if c.get("status") == "True"}
        if expired := true.get("BookingExpired"):
            return False, f"the booking of {request} ran out{explained(expired)}, and the autoscaler scales up for " + (
                "no pod that consumes a ProvisioningRequest: Kueue files a new one once waitForPodsReady evicts it"
            )
        if provisioned := true.get("Provisioned"):
            return True, f"the nodes of ProvisioningRequest {request} come up{explained(provisioned)}"
    mine = [e for e in seen.events if e.get("involvedObject", {}).get("name") == _name(pod)]
    if event := max(mine, key=lambda e: _time(e.get("lastTimestamp") or e.get("eventTime")), default=None):
        added = event.get("reason") == "TriggeredScaleUp"
        return added, f"the autoscaler {'adds nodes' if added else 'adds no node'} for it{explained(event)}"
    selector = ((pod.get("spec") or {}).get("nodeSelector") or {}).items()
    for node in seen.nodes:
        meta, conditions = node.get("metadata") or {}, (node.get("status") or {}).get("conditions")
        age = ((seen.observed_at or _time(None)) - _time(meta.get("creationTimestamp"))).total_seconds()
        if age < NODE_PROVISION_SECONDS and all((meta.get("labels") or {}).get(k) == v for k, v in selector):
            state = "Ready" if is_true(conditions, "Ready") else "not Ready yet"
            return True, f"node {meta.get('name')} comes up ({state}, {age / 60:.0f} min old)"
    return None


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
    if is_true(workload, "Finished"):  # FailedToStart: a check's podSetUpdates conflict with the Job's pod template
        finished = explained(condition(workload, "Finished"))
        return f"Kueue marked its Workload finished{finished}, so it never starts the Job: fix it, then resubmit it."
    if is_true(workload, "Evicted"):
        reason = str((evicted := condition(workload, "Evicted") or {}).get("reason"))
        meaning = EVICTIONS.get(reason) or next((m for r, m in EVICTIONS.items() if reason.startswith(r)), "")
        remedy = REACTIVATE.format(namespace, seen.workload_name) if reason.startswith("Deactivated") else ""
        return (
            f"Kueue evicted its Workload{explained(evicted)}: {meaning or 'see the reason'}"
            f"{_retry_cause(str(evicted.get('message')))}{remedy}. Check: {show_workload} (status.conditions)"
        )
    if is_true(provreq, "Failed"):
        provisioned = condition(provreq, "Provisioned") or {}
        before = f" after the autoscaler could not provision capacity{_no_capacity(provisioned)}"
        return (
            f"Its ProvisioningRequest failed{explained(condition(provreq, 'Failed'))}"
            f"{before if provisioned.get('status') == 'False' else ''}; Kueue tries again after a backoff, up to "
            f"retryStrategy.backoffLimitCount times. {check_provreq}"
        )
    if retry := _checks(seen, "Retry"):
        return (
            f"Its admission check {retry} asked for a retry{_retry_cause(retry)}: Kueue releases its quota and "
            f"requeues it after a backoff. Check: {show_workload} (status.admissionChecks)"
        )
    if not is_true(workload, "QuotaReserved"):
        return _why_no_quota(seen, namespace)
    if provreq is not None:
        return _why_not_provisioned(provreq, check_provreq, show_workload)
    return "Kueue reserved quota" + _why_checks_pending(seen, show_workload)


def _why_no_quota(seen: JobObservation, namespace: str) -> str:
    """Why the Workload holds no quota, by the message Kueue gives, and by its reason where the gate
    UnadmittedWorkloadsObservability makes reasons granular."""
    reserved = condition(seen.workload_conditions, "QuotaReserved")
    if reserved is None:
        return "Kueue's scheduler has not tried its Workload yet (no QuotaReserved condition); it does within seconds."
    message, reason, why = str(reserved.get("message") or ""), str(reserved.get("reason") or ""), explained(reserved)
    cq = seen.cluster_queue
    queue = f"ClusterQueue {cq}" if cq else f"the ClusterQueue of LocalQueue {seen.queue_name}"
    said = next((m for p, m in INADMISSIBLE.items() if re.search(p, message, re.IGNORECASE)), "")
    if said:
        said = said.format(label=QUEUE_NAME_LABEL, namespace=namespace, queue=queue, aks=AKS_PROVISIONING_REQUESTS)
        return f"Its Workload has no quota reserved{why}: {said}"
    show_cq = f"kubectl get clusterqueue{f' {cq}' if cq else ''} -o yaml"
    granular = NO_FIT_REASONS.get(reason, "").format(queue=queue)
    if causes := _never_fits(message, queue) or [cause for cause in (granular,) if cause]:
        return (
            f"Its Workload can never be admitted as configured{why}: {'; '.join(causes)}. Kueue keeps it pending "
            f"until {queue} or the Job changes. Check: {show_cq} (spec.resourceGroups); kubectl get resourceflavor"
        )
    visibility = f"/apis/visibility.kueue.x-k8s.io/v1beta2/namespaces/{namespace}/localqueues/{seen.queue_name}"
    position = f"; its place in the queue: kubectl get --raw {visibility}/pendingworkloads" if seen.queue_name else ""
    preempting = re.search(PREEMPTING, message) or reason == "WaitingForPreemptedWorkloads"
    waits, then = ("the preemptions it set off", PREEMPTIONS_END) if preempting else ("quota", QUOTA_FREES)
    return f"Its Workload waits for {waits}{why}: {then}. Check: {show_cq} (status.flavorsUsage){position}"


def _never_fits(message: str, queue: str) -> list[str]:
    """What keeps the Workload from ever fitting, if every reason the flavor assigner gave is one of
    :data:`NEVER_FITS`; else nothing (some flavor may fit once quota frees)."""
    causes, rest = [], re.sub(r"couldn't assign flavors to pod set \S+: ", "", message)
    for pattern, remedy in NEVER_FITS.items():
        for match in re.finditer(pattern, rest):
            fields = match.groupdict()
            if "taint" in fields:
                key, value, effect = [*fields["taint"].split(" "), "", ""][:3]
                fields["taint"] = f"{key}={value}:{effect}" if value else f"{key}:{effect}"
            causes.append(remedy.format(queue=queue, **fields))
        rest = re.sub(pattern, "", rest)
    return list(dict.fromkeys(causes)) if causes and not re.sub(r"[\s,;.]", "", rest) else []


def _why_checks_pending(seen: JobObservation, show_workload: str) -> str:
    """With quota reserved and no ProvisioningRequest: what the first check not Ready waits for, by Kueue's own
    messages and its AdmissionCheck's controller (:data:`PENDING_CHECKS`)."""
    waiting = [c for c in seen.admission_checks if c.get("state") != "Ready"]
    if not waiting:
        ready = "; ".join(f"{c.get('name')!r} ({c.get('message')})" for c in seen.admission_checks)
        ready = f" and every admission check is Ready: {ready}" if ready else ""
        return f"{ready}; it admits the Workload and starts the Job within seconds. Check: {show_workload}"
    name, message = str(waiting[0].get("name")), str(waiting[0].get("message") or "")
    spec = seen.check_specs.get(name) or {}
    controller = str(spec.get("controllerName") or "")
    said = f"{name!r}" + (f" ({message})" if message else "")
    key = next((k for k in (CHECK_INACTIVE, "Error creating") if message.startswith(k)), "")
    by, config = f" of controller {controller}" if controller else "", (spec.get("parameters") or {}).get("name")
    text = PENDING_CHECKS[key or (controller if controller in PENDING_CHECKS else "")]
    show_check, aks = f"kubectl get admissioncheck {name} -o yaml", AKS_PROVISIONING_REQUESTS
    return text.format(said=said, by=by, config=config, show_check=show_check, show_workload=show_workload, aks=aks)


def _why_not_provisioned(provreq: Conditions, check_provreq: str, show_workload: str) -> str:
    """What the autoscaler has made of the Workload's ProvisioningRequest, which has not failed."""
    if not provreq:
        return (
            "Its ProvisioningRequest has no conditions: no cluster autoscaler has picked it up. "
            f"{AKS_PROVISIONING_REQUESTS}. {check_provreq}; the node pool must have the cluster autoscaler enabled."
        )
    if (expired := condition(provreq, "BookingExpired") or {}).get("status") == "True":  # the check's Retry next
        return f"Its booking of provisioned capacity ran out{explained(expired)}; Kueue retries. {check_provreq}"
    provisioned = condition(provreq, "Provisioned") or {}
    if provisioned.get("status") == "False":
        return f"The autoscaler could not provision capacity{_no_capacity(provisioned)}. {check_provreq}"
    if provisioned.get("status") == "True":
        return f"Capacity was provisioned{explained(provisioned)}; Kueue admits the Workload next. {check_provreq}"
    said = "The autoscaler accepted its ProvisioningRequest but has not provisioned capacity yet"
    return f"{said}{explained(condition(provreq, 'Accepted'))}; scale-ups can take minutes. {check_provreq}"


def _no_capacity(provisioned: Mapping[str, Any]) -> str:
    """`` (reason: message): the likely cause`` of a ``Provisioned=False`` condition."""
    return f"{explained(provisioned)}: {NO_CAPACITY.get(str(provisioned.get('reason')), 'see the reason')}"


def _retry_cause(message: str) -> str:
    """`` (because <cause>)`` for a provisioning check's retry message, quoted in ``message``, else nothing."""
    return next((f" (because {cause})" for start, cause in RETRY_CAUSES.items() if start in message), "")


def _checks(seen: JobObservation, state: str) -> str:
    """The Workload's admission checks in ``state``, each with its message: ``'cas-provisioning' (why)``."""
    found = [c for c in seen.admission_checks if c.get("state") == state]
    return "; ".join(f"{c.get('name')!r}" + (f" ({c['message']})" if c.get("message") else "") for c in found)


def _show(namespace: str, kind: str, name: str) -> str:
    """The ``kubectl get`` that shows the object (or, its name unknown, the namespace's objects of the kind)."""
    return f"kubectl -n {namespace} get {kind} {name} -o yaml" if name else f"kubectl -n {namespace} get {kind} -o yaml"


def _name(obj: Mapping[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("name", "?"))


def _scheduled(pod: Mapping[str, Any], status: str | None = None) -> Mapping[str, Any] | None:
    found = condition((pod.get("status") or {}).get("conditions"), "PodScheduled")
    return found if status is None or (found or {}).get("status") == status else None


def _time(stamp: Any) -> datetime.datetime:
    """An API timestamp (RFC 3339), or the epoch for one that is missing."""
    return datetime.datetime.fromisoformat(str(stamp)) if stamp else datetime.datetime.fromtimestamp(0, datetime.UTC)


class JobObserver:
    """Reads what :class:`JobObservation` holds; the reads a state calls for are optional: one refused (403) or
    missing (404) leaves its part empty, as docs/why.md's read-only Role grants no cluster-scoped read."""

    def __init__(self, cluster: Cluster, clock: Callable[[], datetime.datetime] | None = None) -> None:
        self.cluster = cluster
        self.clock = clock or (lambda: datetime.datetime.now(datetime.UTC))

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
        status = (workload or {}).get("status") or {}
        checks = tuple(status.get("admissionChecks") or ())
        queue_name = (job["metadata"].get("labels") or {}).get(QUEUE_NAME_LABEL)
        local_queue: Any = {}
        if workload is not None and not is_true(status.get("conditions"), "QuotaReserved"):
            queue = (workload.get("spec") or {}).get("queueName") or queue_name
            local_queue = self._optional("get", f"{KUEUE_API_PATH}/namespaces/{namespace}/localqueues/{queue}")
        stuck = {_name(pod) for pod in unschedulable(pods)}
        listed = self._optional("list", f"/api/v1/namespaces/{namespace}/events") if stuck else None
        events = [event for event in listed or () if event.get("reason") in SCALE_UP_EVENTS]
        specs = {c["name"]: self._optional("get", f"{KUEUE_API_PATH}/admissionchecks/{c['name']}") for c in checks}
        return JobObservation(
            job_status=job.get("status") or {},
            workload_conditions=_conditions_of(workload),
            provreq_conditions=_conditions_of(provreq),
            pods=tuple(pods),
            queue_name=queue_name,
            admission_checks=checks,
            workload_name=(workload or {}).get("metadata", {}).get("name", ""),
            provreq_name=(provreq or {}).get("metadata", {}).get("name", ""),
            check_specs={check: found.get("spec") or {} for check, found in specs.items() if found},
            cluster_queue=str(((local_queue or {}).get("spec") or {}).get("clusterQueue") or ""),
            events=tuple(event for event in events if event["involvedObject"].get("name") in stuck),
            nodes=tuple((self._optional("list", "/api/v1/nodes") if stuck else None) or ()),
            observed_at=self.clock(),
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

    def _optional(self, verb: str, path: str) -> Any:
        """``get`` or ``list`` ``path``, or ``None`` when it is missing or the reader may not read it."""
        try:
            return self.cluster.get(path) if verb == "get" else self.cluster.list(path)
        except Exception as error:
            if getattr(error, "status", None) in (403, 404):
                return None
            raise


def _conditions_of(obj: Mapping[str, Any] | None) -> Conditions | None:
    return None if obj is None else (obj.get("status") or {}).get("conditions") or []


def wait_for_job(
    observer: JobObserver, namespace: str, name: str, timeout_seconds: float, **poll_options: Any
) -> JobObservation:
    """Poll until the Job completes; raise :class:`JobIncompleteError` with the diagnosis when it fails or times out.

    ``poll_options`` go to :func:`components.waiters.kube_wait.poll` (a fake clock in tests).
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
