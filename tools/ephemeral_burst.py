"""The ephemeral runner's burst smoke check: a Job submitted to the MultiKueue manager's burst LocalQueue, followed to
a worker and back.

With ``multiKueue.smokeJob.enabled`` the runner submits :func:`components.manifests.multikueue.burst_smoke_job` to the
manager (:func:`submission`), then reads the manager and every worker (:class:`Burst`) until each step of
:class:`BurstJob` has passed: admitted on the manager, its copy admitted on one worker, its pods running there on ACS
(the ``alibabacloud.com/instance-id`` annotation ACS sets on its instances, an ``acs-`` id), its status synced back
to the manager's Job, the worker's copies deleted. The Job's way passes through states that do not last (the worker's
copy and its pods are deleted once the Job completes), so each step counts once it has been seen (:func:`latched`).
Kueue's side of this: https://kueue.sigs.k8s.io/docs/concepts/multikueue/.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any, Protocol, runtime_checkable

from components.config.multikueue.multikueue import MultiKueueConfig
from components.manifests.multikueue import MANAGED_BY, burst_smoke_job
from components.waiters.job_wait import job_outcome
from components.waiters.kube_wait import (
    KUEUE_API_PATH,
    Cluster,
    RestCluster,
    condition,
    explained,
    is_not_found,
    is_true,
    poll,
)

INSTANCE_ID_ANNOTATION = "alibabacloud.com/instance-id"
"""ACS writes the id of the instance that runs the pod here."""
ACS_INSTANCE_PREFIX = "acs-"
"""How an ACS instance id starts (``alibabacloud.com/instance-id: acs-2ze008giupcyaqbxxxxx`` in
https://www.alibabacloud.com/help/tc/cs/user-guide/access-acs-computing-power-in-an-ack-cluster, which says this
annotation confirms an ACS pod): the key alone could also be written for an ECI pod, so the prefix is what proves
ACS."""


def acs_instance_problem(pod: Mapping[str, Any]) -> str | None:
    """Why ``pod`` is not shown to run on an ACS instance, or ``None`` when its instance id is an ACS one."""
    instance = str((pod.get("metadata", {}).get("annotations") or {}).get(INSTANCE_ID_ANNOTATION) or "")
    if not instance:
        return f"has no {INSTANCE_ID_ANNOTATION} annotation (not an ACS instance)"
    if not instance.startswith(ACS_INSTANCE_PREFIX):
        return f"runs on instance {instance!r}, not an ACS one ({ACS_INSTANCE_PREFIX}...)"
    return None


DELETION_TIMEOUT_SECONDS = 300.0
"""How long :func:`submission` waits for an earlier check's Job to go before it gives up."""

Verdict = tuple[bool, str]
Evaluate = Callable[[Cluster], Verdict]


@runtime_checkable
class WritableCluster(Cluster, Protocol):
    """A :class:`Cluster` the runner may also write to: only to submit the burst smoke Job."""

    def create(self, path: str, body: Mapping[str, Any]) -> Any: ...

    def delete(self, path: str) -> None: ...


class RestWriter(RestCluster):
    """:class:`WritableCluster` over the official Kubernetes client: the runner's own."""

    def _send(self, method: str, path: str, body: Mapping[str, Any]) -> Any:
        return self.api_client.call_api(
            path,
            method,
            body=dict(body),
            header_params={"Accept": "application/json", "Content-Type": "application/json"},
            response_types_map={200: "object", 201: "object", 202: "object"},
            auth_settings=["BearerToken"],
            _return_http_data_only=True,
        )

    def create(self, path: str, body: Mapping[str, Any]) -> Any:
        return self._send("POST", path, body)

    def delete(self, path: str) -> None:
        """In the background, with what it owns: a Job's own default would orphan its Workload."""
        self._send("DELETE", path, {"propagationPolicy": "Background"})


@dataclasses.dataclass(frozen=True)
class Burst:
    """The manager, read as a :class:`Cluster`, and the workers the burst steps read besides, by ACK cluster name."""

    manager: Cluster
    workers: Mapping[str, Cluster]
    unreachable: Mapping[str, str] = dataclasses.field(default_factory=dict)
    """Why a worker cannot be read: its kubeconfig is missing or does not load."""

    def get(self, path: str) -> Any:
        return self.manager.get(path)

    def list(self, path: str, label_selector: str | None = None) -> list[Any]:
        return self.manager.list(path, label_selector)


def with_workers(manager: Cluster, kubeconfigs: Mapping[str, str | None], connect: Callable[[str], Cluster]) -> Burst:
    """The manager and every worker that can be read; a worker that cannot is named with why."""
    workers, unreachable = {}, {}
    for name, kubeconfig in kubeconfigs.items():
        try:
            if kubeconfig is None:
                raise LookupError(f"output ackKubeconfigs has no entry {name!r}")
            workers[name] = connect(kubeconfig)
        except Exception as error:
            unreachable[name] = f"cannot read it ({type(error).__name__}: {error})"
    return Burst(manager, workers, unreachable)


def exists(cluster: Cluster, path: str) -> bool:
    try:
        cluster.get(path)
    except Exception as error:
        if is_not_found(error):
            return False
        raise
    return True


def latched(evaluate: Evaluate) -> Evaluate:
    """``evaluate``, passing for good once it has passed."""
    passed: list[Verdict] = []

    def once(cluster: Cluster) -> Verdict:
        verdict = passed[0] if passed else evaluate(cluster)
        passed[:] = [verdict] if verdict[0] else []
        return verdict

    return once


def submission(burst: MultiKueueConfig) -> Callable[..., None]:
    """Submit the burst smoke Job to the manager, once an earlier check's Job of that name is gone; ``poll_options``
    go to :func:`components.waiters.kube_wait.poll`."""
    jobs = f"/apis/batch/v1/namespaces/{burst.namespace}/jobs"
    path = f"{jobs}/{burst.smoke_job.name}"

    def submit(cluster: Cluster, **poll_options: Any) -> None:
        if not isinstance(cluster, WritableCluster):
            raise TypeError("the runner's client cannot create objects")
        if exists(cluster, path):
            cluster.delete(path)
            _, gone = poll(
                lambda: exists(cluster, path), lambda found: not found, DELETION_TIMEOUT_SECONDS, **poll_options
            )
            if not gone:
                raise TimeoutError(f"the earlier Job {burst.namespace}/{burst.smoke_job.name} is still being deleted")
        cluster.create(jobs, burst_smoke_job(burst))

    return submit


def _conditions(obj: Mapping[str, Any]) -> Any:
    return (obj.get("status") or {}).get("conditions")


def _workers(cluster: Cluster) -> Burst:
    return cluster if isinstance(cluster, Burst) else Burst(cluster, {})


class BurstJob:
    """The burst smoke Job's steps, each read from the manager (and the workers, given a :class:`Burst`)."""

    def __init__(self, burst: MultiKueueConfig) -> None:
        self.namespace, self.name = burst.namespace, burst.smoke_job.name
        self.where = f"{self.namespace}/{self.name}"
        self.job_path = f"/apis/batch/v1/namespaces/{self.namespace}/jobs/{self.name}"
        self.workloads = f"{KUEUE_API_PATH}/namespaces/{self.namespace}/workloads"
        self.by_cluster_name = {
            burst.worker_cluster_name(w): str(w.cluster) for w in burst.workers if w.source == "ack"
        }

    def steps(self) -> list[tuple[str, Evaluate]]:
        where = self.where
        return [
            (f"Burst Job {where} admitted on the manager (QuotaReserved, Admitted)", self.admitted),
            (f"Copy of burst Job {where} admitted on one worker", self.copy_admitted),
            (f"Pods of burst Job {where} ran on ACS ({INSTANCE_ID_ANNOTATION})", self.ran_on_acs),
            (f"Burst Job {where} status synced back to the manager (Complete)", self.synced),
            (f"Remote objects of burst Job {where} cleaned up on every worker", self.cleaned_up),
        ]

    def job(self, cluster: Cluster) -> Mapping[str, Any]:
        if not exists(cluster, self.job_path):
            raise LookupError(f"Job {self.where} does not exist on the manager")
        return cluster.get(self.job_path)

    def workload(self, cluster: Cluster) -> Mapping[str, Any]:
        """The manager's Workload of the Job (owned by it); a worker's copy has the same name."""
        uid = self.job(cluster)["metadata"]["uid"]
        owned = [
            w
            for w in cluster.list(self.workloads)
            if uid in {o.get("uid") for o in w["metadata"].get("ownerReferences", [])}
        ]
        if not owned:
            raise LookupError("Kueue created no Workload for the Job on the manager")
        return owned[0]

    def admitted(self, cluster: Cluster) -> Verdict:
        conditions = _conditions(self.workload(cluster))
        missing = [t for t in ("QuotaReserved", "Admitted") if not is_true(conditions, t)]
        ok = not missing or is_true(conditions, "Finished")
        return ok, "" if ok else f"{missing[0]} is not True{explained(condition(conditions, missing[0]))}"

    def copy_admitted(self, cluster: Cluster) -> Verdict:
        burst, local = _workers(cluster), self.workload(cluster)
        path = f"{self.workloads}/{local['metadata']['name']}"
        seen = [f"{worker}: {why}" for worker, why in burst.unreachable.items()]
        for worker, remote in burst.workers.items():
            copy = remote.get(path) if exists(remote, path) else None
            if copy is not None and is_true(_conditions(copy), "Admitted"):
                return True, f"admitted on {worker}"
            reserved = "" if copy is None else explained(condition(_conditions(copy), "QuotaReserved"))
            seen.append(f"{worker}: {'no copy' if copy is None else 'not admitted'}{reserved}")
        assigned = self.by_cluster_name.get((local.get("status") or {}).get("clusterName", ""))
        if assigned:  # the copy is gone once the Job finished; the manager's Workload says where it ran
            return True, f"admitted on {assigned} (status.clusterName of the manager's Workload)"
        return False, "; ".join(seen)

    def ran_on_acs(self, cluster: Cluster) -> Verdict:
        burst, ran = _workers(cluster), []
        problems = [f"{worker}: {why}" for worker, why in burst.unreachable.items()]
        for worker, remote in burst.workers.items():
            pods = remote.list(f"/api/v1/namespaces/{self.namespace}/pods", f"batch.kubernetes.io/job-name={self.name}")
            for pod in pods:
                name, phase = pod["metadata"]["name"], (pod.get("status") or {}).get("phase")
                instance = (pod["metadata"].get("annotations") or {}).get(INSTANCE_ID_ANNOTATION)
                if phase not in ("Running", "Succeeded"):
                    problems.append(f"{worker}: pod {name} is {phase or 'without a phase'}")
                elif (problem := acs_instance_problem(pod)) is not None:
                    problems.append(f"{worker}: pod {name} {problem}")
                else:
                    ran.append(f"{name} on {worker} as {instance}")
        ok = bool(ran) and len(problems) == len(burst.unreachable)
        return ok, ", ".join(ran) if ok else "; ".join(problems) or "no pod of the Job on any worker"

    def synced(self, cluster: Cluster) -> Verdict:
        """Complete on the manager, whose own Job controller leaves a MultiKueue Job alone: only the copy's status,
        synced back, can have completed it."""
        job = self.job(cluster)
        managed_by, status = (job.get("spec") or {}).get("managedBy"), job.get("status") or {}
        if managed_by != MANAGED_BY:
            return False, f"spec.managedBy is {managed_by!r}, not {MANAGED_BY}: the manager did not hand it to a worker"
        return job_outcome(status) == "Complete", f"{job_outcome(status) or 'not finished'} on the manager"

    def cleaned_up(self, cluster: Cluster) -> Verdict:
        burst = _workers(cluster)
        if job_outcome(self.job(burst).get("status") or {}) != "Complete":
            return False, "the Job has not completed on the manager yet"
        copy = f"{self.workloads}/{self.workload(burst)['metadata']['name']}"
        left = [f"{worker}: not checked ({why})" for worker, why in burst.unreachable.items()]
        for worker, remote in burst.workers.items():
            left += [
                f"{kind} on {worker}"
                for kind, path in (("Job", self.job_path), ("Workload", copy))
                if exists(remote, path)
            ]
        return not left, f"still there: {'; '.join(left)}" if left else ""
