"""Wait for a Kueue-managed Job to complete, and say why when it does not.

pulumi-kubernetes' own Job await only knows "not complete yet"; a Job that Kueue keeps suspended would time out
without a hint. This waiter also reads the Job's Workload and ProvisioningRequest and turns what it finds into a
diagnosis (:func:`diagnose`, pure) naming the likely cause and the commands that confirm it. Above all: AKS's
managed cluster autoscaler may not serve ProvisioningRequests (Azure/AKS#5492, reference aks-kueue.md §3.4).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

import pulumi
import yaml
from pulumi.dynamic import CreateResult, DiffResult, ResourceProvider

Conditions = Sequence[Mapping[str, Any]]

PROVISIONING_REQUEST_CRD = "provisioningrequests.autoscaling.x-k8s.io"
AKS_PROVISIONING_REQUESTS = (
    "AKS's managed cluster autoscaler only acts on ProvisioningRequests where AKS enables it; the AKS team said in "
    "2026-02 it is 'not currently enabled or supported' and cannot be switched on (https://github.com/Azure/AKS/issues/5492)"
)


@dataclasses.dataclass(frozen=True)
class JobObservation:
    """What one poll saw: the Job's ``status``, and the conditions of its Workload and newest ProvisioningRequest.

    ``None`` means the object does not exist (yet); ``[]`` means it exists without conditions.
    """

    job_status: Mapping[str, Any]
    workload_conditions: Conditions | None
    provreq_conditions: Conditions | None


class JobIncompleteError(Exception):
    """The Job failed or did not complete in time; the message is the diagnosis."""


def _condition(conditions: Conditions | None, type_: str) -> Mapping[str, Any] | None:
    return next((c for c in conditions or () if c.get("type") == type_), None)


def _is_true(conditions: Conditions | None, type_: str) -> bool:
    found = _condition(conditions, type_)
    return found is not None and found.get("status") == "True"


def _explained(condition: Mapping[str, Any] | None) -> str:
    if condition is None:
        return ""
    parts = [str(condition[k]) for k in ("reason", "message") if condition.get(k)]
    return f" ({': '.join(parts)})" if parts else ""


def job_outcome(job_status: Mapping[str, Any]) -> str | None:
    """``"Complete"`` or ``"Failed"`` once the Job has finished, else ``None``."""
    conditions = job_status.get("conditions")
    return next((t for t in ("Complete", "Failed") if _is_true(conditions, t)), None)


def diagnose(
    job_status: Mapping[str, Any],
    workload_conditions: Conditions | None,
    provreq_conditions: Conditions | None,
    *,
    namespace: str,
    name: str,
) -> str:
    """Explain the state of Job ``namespace/name``: what happened, the likely cause, and what to check."""
    job = f"Job {namespace}/{name}"
    conditions = job_status.get("conditions")
    succeeded, failed, active = (int(job_status.get(k) or 0) for k in ("succeeded", "failed", "active"))
    outcome = job_outcome(job_status)
    if outcome == "Complete":
        return f"{job} completed: {succeeded} pod(s) succeeded."
    if outcome == "Failed":
        return (
            f"{job} failed{_explained(_condition(conditions, 'Failed'))}: {failed} pod(s) failed. "
            f"Check: kubectl -n {namespace} logs job/{name}; kubectl -n {namespace} describe pods -l job-name={name}"
        )
    suspended = _is_true(conditions, "Suspended") or not job_status.get("startTime")
    if not suspended:
        return (
            f"{job} was admitted and started but did not complete in time: {active} active, {succeeded} succeeded, "
            f"{failed} failed pod(s). Pods may be Pending on nodes that are not Ready yet. "
            f"Check: kubectl -n {namespace} get pods -l job-name={name} -o wide; kubectl get nodes"
        )
    return f"{job} is still suspended: Kueue has not admitted it. " + _why_not_admitted(
        workload_conditions, provreq_conditions, namespace
    )


def _why_not_admitted(workload: Conditions | None, provreq: Conditions | None, namespace: str) -> str:
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
        if not _is_true(workload, "QuotaReserved"):
            return (
                f"Its Workload has no quota reserved{_explained(_condition(workload, 'QuotaReserved'))}. If the "
                "ClusterQueue is inactive with reason AdmissionCheckInactive, the ProvisioningRequest CRD did not "
                f"exist when Kueue started: {AKS_PROVISIONING_REQUESTS}. Check: kubectl get clusterqueue -o yaml; "
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
    provisioned = _condition(provreq, "Provisioned")
    if _is_true(provreq, "Failed"):
        return f"Its ProvisioningRequest failed{_explained(_condition(provreq, 'Failed'))}. {check_provreq}"
    if provisioned is not None and provisioned.get("status") == "False":
        cause = (
            "the request exceeds the pool's maxCount, or the region has no capacity or quota for the VM size"
            if provisioned.get("reason") == "CapacityIsNotFound"
            else "see the reason"
        )
        return f"The autoscaler could not provision capacity{_explained(provisioned)}: {cause}. {check_provreq}"
    if provisioned is not None and provisioned.get("status") == "True":
        return (
            "Capacity was provisioned, but Kueue has not admitted the Workload yet (Provisioned=True does not mean "
            f"the nodes are Ready). Check: kubectl get nodes; kubectl -n {namespace} get workloads -o yaml"
        )
    return (
        f"The autoscaler accepted its ProvisioningRequest but has not provisioned capacity yet"
        f"{_explained(_condition(provreq, 'Accepted'))}; scale-ups can take minutes: raise smokeJob.timeoutSeconds "
        f"if nodes are still joining. {check_provreq}"
    )


class CustomObjects(Protocol):
    """The two calls of ``kubernetes.client.CustomObjectsApi`` the observer makes (fakes implement them in tests)."""

    def get_namespaced_custom_object(self, group: str, version: str, namespace: str, plural: str, name: str) -> Any: ...

    def list_namespaced_custom_object(self, group: str, version: str, namespace: str, plural: str) -> Any: ...


class JobObserver:
    """Reads a Job, the Workload Kueue made for it and that Workload's newest ProvisioningRequest."""

    def __init__(self, api: CustomObjects) -> None:
        self._api = api

    @classmethod
    def from_kubeconfig(cls, kubeconfig: str) -> JobObserver:
        from kubernetes import client, config

        api_client = config.new_client_from_config_dict(yaml.safe_load(kubeconfig), persist_config=False)
        return cls(client.CustomObjectsApi(api_client))

    def observe(self, namespace: str, name: str) -> JobObservation:
        job = self._api.get_namespaced_custom_object("batch", "v1", namespace, "jobs", name)
        workload = self._newest_owned(namespace, "kueue.x-k8s.io", "v1beta2", "workloads", job["metadata"]["uid"])
        provreq = None
        if workload is not None:
            owner = workload["metadata"]["uid"]
            provreq = self._newest_owned(namespace, "autoscaling.x-k8s.io", "v1", "provisioningrequests", owner)
        return JobObservation(
            job_status=job.get("status") or {},
            workload_conditions=None if workload is None else (workload.get("status") or {}).get("conditions") or [],
            provreq_conditions=None if provreq is None else (provreq.get("status") or {}).get("conditions") or [],
        )

    def _newest_owned(self, namespace: str, group: str, version: str, plural: str, owner_uid: str) -> Any:
        try:
            items = self._api.list_namespaced_custom_object(group, version, namespace, plural)["items"]
        except Exception as error:
            if getattr(error, "status", None) == 404:  # the CRD is not installed: there are none
                return None
            raise
        owned = [i for i in items if any(o.get("uid") == owner_uid for o in i["metadata"].get("ownerReferences", []))]
        return max(owned, key=lambda i: i["metadata"].get("creationTimestamp", ""), default=None)


class Observer(Protocol):
    def observe(self, namespace: str, name: str) -> JobObservation: ...


def wait_for_job(
    observer: Observer,
    namespace: str,
    name: str,
    timeout_seconds: float,
    *,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
    interval_seconds: float = 10.0,
) -> JobObservation:
    """Poll until the Job completes; raise :class:`JobIncompleteError` with the diagnosis when it fails or times out."""
    deadline = clock() + timeout_seconds
    while True:
        seen = observer.observe(namespace, name)
        outcome = job_outcome(seen.job_status)
        if outcome == "Complete":
            return seen
        if outcome == "Failed" or clock() >= deadline:
            waited = "" if outcome else f"Waited {timeout_seconds:.0f}s. "
            raise JobIncompleteError(
                waited
                + diagnose(
                    seen.job_status, seen.workload_conditions, seen.provreq_conditions, namespace=namespace, name=name
                )
            )
        sleep(min(interval_seconds, max(deadline - clock(), 0.0)))


WATCHED_INPUTS = ("jobNamespace", "jobName", "jobUid", "timeoutSeconds")
"""A change to any of these is a different Job (or deadline) to wait for; a rotated kubeconfig is not."""


class JobCompletionProvider(ResourceProvider):
    """Creating the resource means: wait until the Job completes. Deleting it deletes nothing."""

    def create(self, props: dict[str, Any]) -> CreateResult:
        namespace, name = props["jobNamespace"], props["jobName"]
        observer = JobObserver.from_kubeconfig(props["kubeconfig"])
        done = wait_for_job(observer, namespace, name, float(props["timeoutSeconds"]))
        outs = {key: props.get(key) for key in WATCHED_INPUTS}
        return CreateResult(id_=f"{namespace}/{name}", outs={**outs, "succeeded": done.job_status.get("succeeded", 0)})

    def diff(self, _id: str, _olds: dict[str, Any], _news: dict[str, Any]) -> DiffResult:
        replaces = [key for key in WATCHED_INPUTS if _olds.get(key) != _news.get(key)]
        return DiffResult(changes=bool(replaces), replaces=replaces, delete_before_replace=True)


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
