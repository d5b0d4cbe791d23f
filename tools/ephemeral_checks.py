"""The verification steps of an ephemeral environment, read from the clusters it created.

Each step is a :class:`Probe`: a name a person recognises (``ClusterQueue cas-cluster-queue Active``) and a pure
function from a :class:`~components.waiters.kube_wait.Cluster` to ``(ok, detail)``. Which probes a stack gets follows
from its validated configuration and its outputs:

* ``kubeconfig`` (the cluster Kueue runs on): every AdmissionCheck and ClusterQueue ``Active``; the smoke Job
  completed with all its completions; its Workload admitted; its ProvisioningRequest ``Provisioned``; its pods ran on
  nodes of the pool the autoscaler grew (the ``kubectl`` checks of Azure's walkthrough,
  https://learn.microsoft.com/en-us/azure/aks/configure-kueue-with-cluster-autoscaler).
* ``ackKubeconfigs`` (one per ACK cluster, new or existing): every pod of each ACS workload ``Running`` on a virtual
  node with the ``alibabacloud.com/instance-id`` annotation ACS sets on its instances
  (https://www.alibabacloud.com/help/tc/cs/user-guide/access-acs-computing-power-in-an-ack-cluster).
* ``multiKueue`` (the manager's ``kubeconfig``, the workers' ``ackKubeconfigs``): every MultiKueueCluster, the
  MultiKueue AdmissionCheck and the burst ClusterQueue ``Active``; with ``multiKueue.smokeJob.enabled`` the runner
  submits the burst Job to the manager and follows it: admitted there, its copy admitted on one worker, its pods on
  ACS there, its status synced back, the worker's objects cleaned up. Those steps pass through states that do not
  last (the worker's copy and pods are deleted once the Job completes), so each counts once it has been seen.

:func:`run_probes` polls a cluster's probes together until all pass or the deadline (the bounded retries of
:func:`components.waiters.kube_wait.poll`); an API error counts as "not yet" and is shown if it persists.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from components.config.ack.acs import APP_LABEL, AcsWorkloadConfig
from components.config.aks.pools import POOL_LABEL
from components.config.multikueue.multikueue import MultiKueueConfig
from components.config.multikueue.workers import dispatching_cluster_queues, dispatching_queues, multikueue_checks
from components.config.queues.queues import QueuesConfig
from components.config.stack import StackConfig
from components.waiters.job_wait import JobObservation, JobObserver, job_outcome
from components.waiters.kube_wait import (
    KUEUE_API_PATH,
    Cluster,
    condition,
    explained,
    is_not_found,
    is_true,
    poll,
    why_inactive,
)
from tools.ephemeral_burst import (
    INSTANCE_ID_ANNOTATION,
    BurstJob,
    acs_instance_problem,
    latched,
    submission,
    with_workers,
)

VIRTUAL_NODE_LABELS = (("type", "virtual-kubelet"), ("alibabacloud.com/node-type", "reserved"))
"""Labels of the nodes ACS pods may run on: every virtual node, and the reserved nodes of a GPU-HPN reservation."""

Verdict = tuple[bool, str]


@dataclasses.dataclass(frozen=True)
class Probe:
    """One verification step on one cluster: its printed name and what it checks."""

    name: str
    evaluate: Callable[[Cluster], Verdict]


@dataclasses.dataclass(frozen=True)
class Condition:
    """The outcome of a probe: ``ok``, and otherwise why not."""

    name: str
    ok: bool
    detail: str = ""

    def line(self) -> str:
        return (
            f"ok      {self.name}" if self.ok else f"FAILED  {self.name}" + (f": {self.detail}" if self.detail else "")
        )


def _safely(probe: Probe, cluster: Cluster) -> Verdict:
    try:
        return probe.evaluate(cluster)
    except Exception as error:  # an API error is "not yet": the poll retries it until the deadline
        return False, f"{type(error).__name__}: {error}"


def run_probes(
    probes: Sequence[Probe], cluster: Cluster, timeout_seconds: float, **poll_options: Any
) -> list[Condition]:
    """Evaluate ``probes`` until all pass or ``timeout_seconds`` pass; one :class:`Condition` per probe, in order."""
    if not probes:
        return []
    seen, _ = poll(
        lambda: [_safely(probe, cluster) for probe in probes],
        lambda verdicts: all(ok for ok, _ in verdicts),
        timeout_seconds,
        **poll_options,
    )
    return [Condition(probe.name, ok, detail) for probe, (ok, detail) in zip(probes, seen, strict=True)]


def _active(kind: str, plural: str, name: str) -> Probe:
    def evaluate(cluster: Cluster) -> Verdict:
        try:
            found = cluster.get(f"{KUEUE_API_PATH}/{plural}/{name}")
        except Exception as error:
            if is_not_found(error):
                return False, "does not exist"
            raise
        active = condition((found.get("status") or {}).get("conditions"), "Active")
        if active is None:
            return False, "no Active condition: no controller has reconciled it"
        detail = f"Active={active.get('status')}{explained(active)}{why_inactive(kind, active)}"
        return active.get("status") == "True", detail

    return Probe(f"{kind} {name} Active", evaluate)


def _job_probes(config: StackConfig) -> list[Probe]:
    job = config.smoke_job
    hint = "" if job.enabled else " (smokeJob.enabled is false in this stack: nothing submits the Job)"
    namespace = job.namespace
    if namespace is None:  # disabled, and the stack has no single LocalQueue to submit it to
        return [Probe(f"Job {job.name} complete", lambda _cluster: (False, f"no namespace to look in{hint}"))]
    where = f"{namespace}/{job.name}"

    def observe(cluster: Cluster) -> JobObservation:
        try:
            return JobObserver(cluster).observe(namespace, job.name)
        except Exception as error:
            if is_not_found(error):
                raise LookupError(f"Job {where} does not exist{hint}") from None
            raise

    def completed(cluster: Cluster) -> Verdict:
        status = observe(cluster).job_status
        succeeded = int(status.get("succeeded") or 0)
        done = job_outcome(status) == "Complete" and succeeded >= job.completions
        return done, f"{job_outcome(status) or 'not finished'}, {succeeded}/{job.completions} succeeded"

    def admitted(cluster: Cluster) -> Verdict:
        conditions = observe(cluster).workload_conditions
        if conditions is None:
            return False, "Kueue created no Workload for the Job"
        ok = is_true(conditions, "Admitted") or is_true(conditions, "Finished")
        return ok, "" if ok else f"not admitted{explained(condition(conditions, 'QuotaReserved'))}"

    def provisioned(cluster: Cluster) -> Verdict:
        conditions = observe(cluster).provreq_conditions
        if conditions is None:
            return False, "no ProvisioningRequest for the Job's Workload"
        found = condition(conditions, "Provisioned")
        ok = found is not None and found.get("status") == "True"
        return ok, "" if ok else f"Provisioned={found.get('status') if found else 'absent'}{explained(found)}"

    probes = [
        Probe(f"Job {where} complete {job.completions}/{job.completions}", completed),
        Probe(f"Workload of Job {where} admitted", admitted),
    ]
    # Only queues with a provisioning check make ProvisioningRequests; only a Job that selects a pool has one to check.
    if config.queues.uses_provisioning_requests:
        probes.append(Probe(f"ProvisioningRequest of Job {where} Provisioned", provisioned))
    if job.pool:
        ran_on_pool = _ran_on_pool(namespace, job.name, job.pool)
        probes.append(Probe(f"Pods of Job {where} ran on nodes of pool {job.pool}", ran_on_pool))
    return probes


def _ran_on_pool(namespace: str, name: str, pool: str) -> Callable[[Cluster], Verdict]:
    def evaluate(cluster: Cluster) -> Verdict:
        pods = cluster.list(f"/api/v1/namespaces/{namespace}/pods", f"batch.kubernetes.io/job-name={name}")
        nodes = sorted({p.get("spec", {}).get("nodeName") for p in pods if p.get("spec", {}).get("nodeName")})
        if not nodes:
            return False, "no pod of the Job was scheduled"
        elsewhere = [node for node in nodes if _node_labels(cluster, node).get(POOL_LABEL, pool) != pool]
        return not elsewhere, f"on nodes not in pool {pool}: {elsewhere}" if elsewhere else ""

    return evaluate


def _node_labels(cluster: Cluster, node: str) -> Mapping[str, str]:
    """The node's labels; ``{}`` once the autoscaler has removed it (the pod's record of the node remains)."""
    try:
        return cluster.get(f"/api/v1/nodes/{node}").get("metadata", {}).get("labels") or {}
    except Exception as error:
        if is_not_found(error):
            return {}
        raise


def kueue_probes(config: StackConfig) -> list[Probe]:
    """The Kueue half's steps: the queue objects Active, then the smoke Job's way through the provisioning gate."""
    probes = [_active("AdmissionCheck", "admissionchecks", c.name) for c in config.queues.all_admission_checks]
    probes += [_active("ClusterQueue", "clusterqueues", q.name) for q in config.queues.cluster_queues]
    return probes + _job_probes(config)


def _pod_problem(cluster: Cluster, pod: Mapping[str, Any]) -> str | None:
    name = pod.get("metadata", {}).get("name", "?")
    phase = (pod.get("status") or {}).get("phase")
    if phase != "Running":
        return f"{name} is {phase or 'without a phase'}"
    node = (pod.get("spec") or {}).get("nodeName", "")
    labels = _node_labels(cluster, node)
    if not any(labels.get(key) == value for key, value in VIRTUAL_NODE_LABELS):
        return f"{name} runs on {node}, not a virtual node"
    problem = acs_instance_problem(pod)
    return None if problem is None else f"{name} {problem}"


def acs_probe(workload: AcsWorkloadConfig) -> Probe:
    """Every pod of the workload Running on a virtual node, as an ACS instance, and as many as it has replicas."""

    def evaluate(cluster: Cluster) -> Verdict:
        pods = cluster.list(f"/api/v1/namespaces/{workload.namespace}/pods", f"{APP_LABEL}={workload.app}")
        problems = [p for p in (_pod_problem(cluster, pod) for pod in pods) if p]
        if len(pods) < workload.replicas:
            problems.insert(0, f"{len(pods)}/{workload.replicas} pods exist")
        return not problems, "; ".join(problems)

    where = f"{workload.cluster}/{workload.namespace}/{workload.name}"
    return Probe(
        f"ACS {where}: {workload.replicas} pod(s) Running on virtual nodes with {INSTANCE_ID_ANNOTATION}", evaluate
    )


def acs_probes(config: StackConfig) -> dict[str, list[Probe]]:
    """The ACK half's steps, per ACK cluster name: the stack's own clusters and the existing ones it deploys onto
    (whose kubeconfigs ``ackKubeconfigs`` holds too, and whose workloads' namespaces carry the stack's suffix)."""
    names = [c.name for c in config.ack.clusters] + [c.name for c in config.ack.existing_clusters] if config.ack else []
    probes: dict[str, list[Probe]] = {name: [] for name in names}
    for workload in config.ack.workloads if config.ack else []:
        probes[workload.cluster].append(acs_probe(workload))
    return probes


def burst_probes(burst: MultiKueueConfig, queues: QueuesConfig) -> list[Probe]:
    """The burst set-up on the manager: every worker connected, the MultiKueue checks and their queues Active; then,
    opted in, the burst smoke Job's way to a worker and back, each step latched (:mod:`tools.ephemeral_burst`)."""
    checks = multikueue_checks(dispatching_queues(burst, queues))
    probes = [_active("MultiKueueCluster", "multikueueclusters", burst.worker_cluster_name(w)) for w in burst.workers]
    probes += [_active("AdmissionCheck", "admissionchecks", check) for check in checks]
    probes += [_active("ClusterQueue", "clusterqueues", queue) for queue in dispatching_cluster_queues(burst, queues)]
    steps = BurstJob(burst).steps() if burst.smoke_job.enabled else []
    return probes + [Probe(name, latched(evaluate)) for name, evaluate in steps]


@dataclasses.dataclass(frozen=True)
class ClusterChecks:
    """The probes of one cluster and the kubeconfig (from the stack's outputs) to read it with."""

    cluster: str
    kubeconfig: str | None
    probes: list[Probe]
    missing: str = ""
    """Why ``kubeconfig`` is ``None``: which output lacks it."""
    workers: Mapping[str, str | None] | None = None
    """The burst set-up's workers' kubeconfigs, by ACK cluster name: the probes then read a
    :class:`~tools.ephemeral_burst.Burst`."""
    submit: Callable[..., None] | None = None
    """What to submit to the cluster before polling (the burst smoke Job)."""


def plan_checks(config: StackConfig, outputs: Mapping[str, Any]) -> list[ClusterChecks]:
    """Which probes run on which cluster, from the stack's configuration and its outputs."""
    plans = []
    if config.kueue_target is not None:
        kubeconfig = outputs.get("kubeconfig")
        plans.append(ClusterChecks("Kueue cluster", kubeconfig or None, kueue_probes(config), "no output kubeconfig"))
    ack_kubeconfigs = outputs.get("ackKubeconfigs") or {}
    for cluster, probes in acs_probes(config).items():
        missing = f"output ackKubeconfigs has no entry {cluster!r}"
        plans.append(ClusterChecks(f"ACK {cluster}", ack_kubeconfigs.get(cluster) or None, probes, missing))
    if config.multi_kueue is not None:
        burst = config.multi_kueue
        workers = {str(w.cluster): ack_kubeconfigs.get(w.cluster) or None for w in burst.workers if w.source == "ack"}
        submit = submission(burst) if burst.smoke_job.enabled else None
        kubeconfig = outputs.get("kubeconfig") or None
        plans.append(
            ClusterChecks(
                "MultiKueue manager",
                kubeconfig,
                burst_probes(burst, config.queues),
                "no output kubeconfig",
                workers,
                submit,
            )
        )
    return plans


def check_all(
    plans: Sequence[ClusterChecks],
    connect: Callable[[str], Cluster],
    timeout_seconds: float,
    **poll_options: Any,
) -> list[Condition]:
    """Every probe's outcome, cluster by cluster; a cluster that cannot be reached fails each of its probes."""
    if not plans:
        return [Condition("the stack has a cluster to check", False, "no Kueue target and no ACK clusters")]
    conditions: list[Condition] = []
    for plan in plans:
        if plan.kubeconfig is None:
            conditions += [Condition(p.name, False, f"{plan.cluster}: {plan.missing}") for p in plan.probes]
            continue
        try:
            cluster = connect(plan.kubeconfig)
        except Exception as error:
            detail = f"{plan.cluster}: cannot load its kubeconfig ({type(error).__name__}: {error})"
            conditions += [Condition(p.name, False, detail) for p in plan.probes]
            continue
        try:
            if plan.submit is not None:
                plan.submit(cluster, **poll_options)
        except Exception as error:
            detail = f"{plan.cluster}: cannot submit the burst smoke Job ({type(error).__name__}: {error})"
            conditions += [Condition(p.name, False, detail) for p in plan.probes]
            continue
        if plan.workers is not None:
            cluster = with_workers(cluster, plan.workers, connect)
        conditions += run_probes(plan.probes, cluster, timeout_seconds, **poll_options)
    return conditions
