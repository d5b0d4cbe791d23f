"""What the stack builds for each MultiKueue worker, resolved from the validated config as plain values.

MultiKueue looks a copied Workload's namespace and LocalQueue up on the worker by the manager's names, so every burst
LocalQueue of the manager (:func:`burst_local_queues`) is mirrored on every worker the stack sets up. An ACK worker
gets them on a ClusterQueue of an ACS flavor (ACK's virtual node) and, unless the cluster runs its own, a Kueue of
the manager's release; an AKS worker gets them on a ClusterQueue it already has. Each such worker gets the manager's
identity, allowed exactly the kinds the manager's integrations dispatch (:mod:`components.config.multikueue.adapters`).
A ``kubeconfig`` worker gets nothing: its kubeconfig is MultiKueue's credential as it is. The plans are built while
the config loads (``multikueue_rules.check``), so a mistake in a derived config is refused naming the worker's key.
The manager's own burst queue objects (``burstQueue: true``) are queue objects too (:func:`burst_queues`), validated
by the queue rules and rendered by the queue builders like the workers'.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from components.config.aks.existing_cluster import ExistingClusterConfig
from components.config.base import RuleViolation, key_path, problems_from
from components.config.kueue import cluster as kueue_cluster
from components.config.kueue import gates as kueue_gates
from components.config.kueue.kueue import KueueConfig
from components.config.kueue.registries import is_mainland_china_region
from components.config.multikueue.adapters import MULTIKUEUE_ADAPTERS, WatchedKind, gate_reads, watched_frameworks
from components.config.multikueue.multikueue import (
    BURST_FLAVOR,
    MULTIKUEUE_CONTROLLER,
    VIRTUAL_NODE_LABEL,
    VIRTUAL_NODE_TAINT,
    AcsPlacement,
    MultiKueueConfig,
    WorkerConfig,
)
from components.config.queues.checks import API_GROUP, MULTIKUEUE_CONFIG_KIND
from components.config.queues.queues import QueuesConfig
from components.config.versions import SCHEDULER_MIN_ACS_UNIT, ClusterNeeds, SchedulerNeed

if TYPE_CHECKING:
    from components.config.ack.ack import AckConfig
    from components.config.stack import StackConfig

MULTIKUEUE_WORKER_POD_LABEL = ("kueue.x-k8s.io/multikueue-worker-workload-pod", "true")
"""The label a Kueue 0.18 or later worker puts on every pod of a Workload MultiKueue copied there (one with the
origin label): ``MultiKueueWorkerWorkloadPodLabel``/``Value`` in
https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/apis/kueue/v1beta2/multikueue_types.go (also at v0.18.6), set
in ``getPodSetsInfoFromStatus``,
https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/controller/jobframework/reconciler.go#L1758-L1760."""
PODSET_LABEL = "kueue.x-k8s.io/podset"
"""The label every Kueue puts on the pods of an admitted pod set, valued with the pod set's name (``PodSetLabel`` in
https://github.com/kubernetes-sigs/kueue/blob/v0.17.8/pkg/constants/constants.go, set in ``getPodSetsInfoFromStatus``,
https://github.com/kubernetes-sigs/kueue/blob/v0.17.8/pkg/controller/jobframework/reconciler.go#L1580)."""
BATCH_JOB_POD_SET = "main"
"""The one pod set of a batch Job (``DefaultPodSetName`` in
https://github.com/kubernetes-sigs/kueue/blob/v0.17.8/apis/kueue/v1beta2/constants.go)."""
FIRST_MINOR_WITH_WORKER_POD_LABEL = (0, 18)

WORKER_KUEUE_FRAMEWORKS = ("batch/job",)
"""The integrations of a Kueue the stack installs on a worker: the only kind every ACK cluster has a controller and
CRD for."""

_SHARED_WITH_MANAGER = {
    "chart_repository",
    "chart_version",
    "namespace",
    "release_name",
    "image_repository",
    "readiness_gate",
    "managed_jobs_namespace_selector",
}
"""What a worker's Kueue copies from the manager's: the same release (MultiKueue speaks one API version on both
sides), the same sources and names, and the same managed-namespaces selector, so the namespace labels mean the same."""


@dataclasses.dataclass(frozen=True)
class BurstQueue:
    """A LocalQueue of the manager whose ClusterQueue dispatches to the workers, and whether the stack creates its
    namespace (on the manager, and so on the workers) or the namespace exists already (``default``)."""

    namespace: str
    name: str
    creates_namespace: bool


@dataclasses.dataclass(frozen=True)
class WorkerPlan:
    """One worker as the components build it."""

    key: str
    """The worker's config key, ``multiKueue.workers[<i>]``, for messages."""
    worker: WorkerConfig
    cluster_name: str
    """The MultiKueueCluster on the manager."""
    secret_name: str
    """The manager's Secret holding the worker's kubeconfig."""
    kueue: KueueConfig | None
    """The Kueue the stack installs on the worker; ``None`` when the worker runs its own (or is not set up here)."""
    identity_namespace: str
    """Where the manager's ServiceAccount lives on the worker: Kueue's namespace."""
    queues: QueuesConfig | None
    """The queue objects the stack creates on the worker; ``None`` for a ``kubeconfig`` worker."""
    namespace_labels: dict[str, str]
    """Labels on the burst namespaces the stack creates there, so the worker's Kueue manages their Jobs."""
    burst_namespaces: tuple[str, ...]
    """Every namespace burst Jobs land in on the worker: where the manager's identity may write."""
    watched: tuple[WatchedKind, ...]
    """The kinds the manager dispatches and watches there (besides Workloads)."""
    gate_reads: tuple[WatchedKind, ...]
    """What the manager's feature gates make it list and watch there besides (ClusterQueues and LocalQueues with
    ``MultiKueueManagerQuotaAutomation``): read-only and cluster-wide, only while such a gate is on."""
    acs: AcsPlacement | None
    """ACK workers: the ACS compute every pod in the burst namespaces gets (a ResourcePolicy each)."""
    burst_pod_selector: dict[str, str]
    """The labels every burst pod on the worker carries, which its ResourcePolicies select by
    (:func:`burst_pod_selector`)."""
    aks: ExistingClusterConfig | None
    """AKS workers: the cluster the stack reaches them through."""
    probe_image: str | None
    """The image of the readiness gate of the Kueue the stack installs there: its kubectl follows the minor of the
    worker's ACK cluster."""

    @property
    def label(self) -> str:
        """How the stack's resource names tell this worker apart: its ACK cluster, AKS cluster or worker name."""
        return str(self.worker.cluster or self.worker.cluster_name or self.worker.name)

    @property
    def sets_up(self) -> bool:
        """Whether the stack creates anything on the worker (not for a ``kubeconfig`` worker)."""
        return self.queues is not None


def burst_pod_selector(kueue_version: str) -> dict[str, str]:
    """A label every burst pod carries on a worker running Kueue ``kueue_version`` (the manager's release: MultiKueue
    speaks one API on both sides): :data:`MULTIKUEUE_WORKER_POD_LABEL` from Kueue 0.18, which marks exactly the pods
    of MultiKueue's copies; on 0.17, ``kueue.x-k8s.io/podset: main``, which Kueue puts on every pod of an admitted
    batch Job. A ResourcePolicy's ``selector`` is a map of labels (no ``Exists``), so 0.17 needs the pod set's name,
    and ``multikueue.burst-pods-selectable`` refuses other kinds there."""
    if kueue_cluster.minor_of(kueue_version) >= FIRST_MINOR_WITH_WORKER_POD_LABEL:
        key, value = MULTIKUEUE_WORKER_POD_LABEL
        return {key: value}
    return {PODSET_LABEL: BATCH_JOB_POD_SET}


def multikueue_checks(queues: QueuesConfig) -> list[str]:
    """The AdmissionChecks of ``queues`` that MultiKueue runs."""
    return [check.name for check in queues.all_admission_checks if check.controller_name == MULTIKUEUE_CONTROLLER]


_QUEUE_KEYS = (
    ("namespaces[0]", "namespace"),
    ("localQueues[0].namespace", "namespace"),
    ("localQueues[0].clusterQueue", "clusterQueue"),
    ("localQueues[0]", "localQueue"),
    ("clusterQueues[0].resourceGroups[0].flavors[0].resources[0]", "quota.cpu"),
    ("clusterQueues[0].resourceGroups[0].flavors[0].resources[1]", "quota.memory"),
    ("clusterQueues[0].admissionChecksStrategy", "admissionCheck"),
    ("clusterQueues[0]", "clusterQueue"),
    ("admissionChecks[0].parameters", "configName"),
    ("admissionChecks[0]", "admissionCheck"),
)
"""Which ``multiKueue`` key each field of :func:`burst_queues` comes from, so a queue rule it breaks names that key
(first match; ``configName`` is ``admissionCheck`` when unset)."""


def burst_queues(burst: MultiKueueConfig) -> QueuesConfig:
    """The manager's burst queue objects of ``burstQueue: true`` as queue objects, which the queue rules validate and
    the queue builders render: the burst namespace, an empty ResourceFlavor (:data:`BURST_FLAVOR`, as in Kueue's own
    MultiKueue examples: the workers' flavors decide placement), the MultiKueue AdmissionCheck naming the
    MultiKueueConfig, the burst ClusterQueue and its LocalQueue. None with ``burstQueue: false``: the ``queues``
    section holds them.

    The ClusterQueue has exactly one admission check, the MultiKueue one, for every flavor (Kueue refuses one limited
    by ``onFlavors``: ``MultiKueueAdmissionCheckAppliedPerFlavor``), is open to every namespace, in Kueue's default
    order (written out, as on the stack's other ClusterQueues); its quota is what the manager lets out at once, about
    the sum of the workers' quotas. Built from the section's resolved names (an ephemeral stack's carry its suffix
    already, :meth:`MultiKueueConfig.named_with`). A queue rule broken is a :class:`RuleViolation` at the
    ``multiKueue`` key it comes from.
    """
    if not burst.burst_queue:
        return QueuesConfig()
    quota = [{"name": "cpu", "nominalQuota": burst.quota.cpu}, {"name": "memory", "nominalQuota": burst.quota.memory}]
    parameters = {"apiGroup": API_GROUP, "kind": MULTIKUEUE_CONFIG_KIND, "name": burst.multikueue_config}
    objects = {
        "namespaces": [burst.namespace],
        "resourceFlavors": [{"name": BURST_FLAVOR}],
        "admissionChecks": [
            {"name": burst.admission_check, "controllerName": MULTIKUEUE_CONTROLLER, "parameters": parameters}
        ],
        "clusterQueues": [
            {
                "name": burst.cluster_queue,
                "namespaceSelector": {},
                "queueingStrategy": "BestEffortFIFO",
                "resourceGroups": [
                    {"coveredResources": ["cpu", "memory"], "flavors": [{"name": BURST_FLAVOR, "resources": quota}]}
                ],
                "admissionChecksStrategy": {"admissionChecks": [{"name": burst.admission_check}]},
            }
        ],
        "localQueues": [{"name": burst.local_queue, "namespace": burst.namespace, "clusterQueue": burst.cluster_queue}],
    }
    try:
        return QueuesConfig.model_validate(objects)
    except ValidationError as error:
        problem = problems_from(error, "", root=QueuesConfig)[0]
        field = next(field for path, field in (*_QUEUE_KEYS, ("", "")) if problem.key.startswith(path))
        if field == "configName" and burst.config_name is None:
            field = "admissionCheck"
        value: Any = burst.model_dump(by_alias=True, mode="json") if field else None
        for step in field.split(".") if field else ():
            value = value.get(step) if isinstance(value, dict) else None
        allowed = problem.message.partition(" is not allowed; ")[2] or problem.message
        raise RuleViolation(
            key_path("multiKueue", field) if field else "multiKueue",
            value,
            f"the burst set-up's {problem.key} breaks a queue rule: {allowed}",
            rule=problem.rule,
        ) from None


def dispatching_queues(burst: MultiKueueConfig, queues: QueuesConfig) -> QueuesConfig:
    """The manager's queue objects that hold the MultiKueue checks: the burst set-up's (:func:`burst_queues`), or the
    ``queues`` section with ``burstQueue: false``."""
    return burst_queues(burst) if burst.burst_queue else queues


def dispatching_cluster_queues(burst: MultiKueueConfig, queues: QueuesConfig) -> list[str]:
    """The manager's ClusterQueues with a MultiKueue check: the burst one, or those of the ``queues`` section."""
    dispatching = dispatching_queues(burst, queues)
    checks = set(multikueue_checks(dispatching))
    return [
        queue.name
        for queue in dispatching.cluster_queues
        if queue.admission_checks_strategy is not None
        and any(ref.name in checks for ref in queue.admission_checks_strategy.admission_checks)
    ]


def burst_local_queues(burst: MultiKueueConfig, queues: QueuesConfig) -> list[BurstQueue]:
    """Every LocalQueue of the manager whose Jobs MultiKueue dispatches."""
    dispatching = dispatching_queues(burst, queues)
    cluster_queues = set(dispatching_cluster_queues(burst, queues))
    return [
        BurstQueue(local.namespace, local.name, creates_namespace=local.namespace in dispatching.namespaces)
        for local in dispatching.local_queues
        if local.cluster_queue in cluster_queues
    ]


def installs_kueue(worker: WorkerConfig, ack: AckConfig | None) -> bool:
    """``installKueue``, or its default: true on an ACK cluster the stack creates, false anywhere else."""
    if worker.source != "ack":
        return False
    if worker.install_kueue is not None:
        return worker.install_kueue
    return ack is not None and worker.cluster in {cluster.name for cluster in ack.clusters}


def served_frameworks(worker: WorkerConfig, ack: AckConfig | None) -> tuple[str, ...]:
    """The integrations the worker's Kueue serves: batch/job where the stack installs it, else what it declares."""
    if installs_kueue(worker, ack) or worker.frameworks is None:
        return WORKER_KUEUE_FRAMEWORKS
    return tuple(worker.frameworks)


def ack_cluster_version(worker: WorkerConfig, ack: AckConfig | None) -> tuple[str, str] | None:
    """``(key, version)`` of the ``kubernetesVersion`` of the ACK cluster (new or existing) an ``ack`` worker names."""
    if worker.source != "ack" or ack is None:
        return None
    for index, cluster in enumerate(ack.clusters):
        if cluster.name == worker.cluster:
            return key_path("ack.clusters", index, "kubernetesVersion"), cluster.kubernetes_version
    for index, existing in enumerate(ack.existing_clusters):
        if existing.name == worker.cluster:
            return key_path("ack.existingClusters", index, "kubernetesVersion"), existing.kubernetes_version
    return None


MAINLAND_CHINA_GATE_SECONDS = 1200
"""The least readiness-gate deadline (``activeDeadlineSeconds`` and Pulumi's await) of a worker in mainland China:
its images come through a mirror that syncs a missing image from its source on first pull and is "very crowded"
outside 01:00-07:00 Beijing time (https://github.com/DaoCloud/public-image-mirror#readme), while Kueue's Deployment
and the gate pull at once; 600 s, the default, leaves a cold mirror little room."""


def worker_kueue(manager: KueueConfig, worker: WorkerConfig, *, mainland_china: bool = False) -> KueueConfig:
    """The worker's Kueue: the manager's release and sources (or the worker's mirrors), one replica of a plain
    batch/job Kueue.

    In mainland China (``mainland_china``) the readiness gate waits at least :data:`MAINLAND_CHINA_GATE_SECONDS`.
    ``nodeSelector: {}`` because ACK's ECS nodes carry no AKS system-pool label, and no tolerations, so neither the
    manager nor the readiness gate lands on the tainted virtual node (Kueue's webhook must run on a real node). No
    fair sharing, resource transformations, feature gates or ``multiKueue`` block: a worker only admits what the
    manager dispatched. Validated anew, so every rule of :class:`KueueConfig` holds for the result.
    """
    shared = manager.model_dump(by_alias=True, include=_SHARED_WITH_MANAGER, exclude_none=True, mode="json")
    overrides = {"chartRepository": worker.chart_repository, "imageRepository": worker.image_repository}
    sources: dict[str, Any] = {key: value for key, value in overrides.items() if value is not None}
    gate = dict(shared.get("readinessGate", {}))
    if worker.probe_image is not None:
        gate["probeImage"] = worker.probe_image
    if mainland_china:
        gate["timeoutSeconds"] = max(manager.readiness_gate.timeout_seconds, MAINLAND_CHINA_GATE_SECONDS)
    if gate != shared.get("readinessGate", {}):
        sources["readinessGate"] = gate
    return KueueConfig.model_validate(
        {
            **shared,
            **sources,
            "frameworks": list(WORKER_KUEUE_FRAMEWORKS),
            "nodeSelector": {},
            "tolerations": [],
            "replicas": 1,
        }
    )


def worker_queues(burst: MultiKueueConfig, worker: WorkerConfig, local_queues: list[BurstQueue]) -> QueuesConfig:
    """The queue objects on one worker: the burst LocalQueues under the manager's names, in the same namespaces.

    On ACK they submit to a ClusterQueue (the manager's burst ClusterQueue's name) of one ACS flavor, which gives
    admitted pods the virtual node's label and toleration; the ResourcePolicy of each namespace sends them to ACS.
    On AKS they submit to the worker's own ``clusterQueue``. No ProvisioningRequest check: MultiKueue admits on the
    worker what the worker's own checks admit.
    """
    created = sorted({q.namespace for q in local_queues if q.creates_namespace})
    existing = sorted({q.namespace for q in local_queues if not q.creates_namespace})
    if worker.source == "aks":
        assert worker.cluster_queue is not None  # WorkerConfig requires it for aks
        target, flavors, cluster_queues = worker.cluster_queue, [], []
        external = {"clusterQueues": [worker.cluster_queue]}
    else:
        label_key, label_value = VIRTUAL_NODE_LABEL
        taint_key, taint_value, taint_effect = VIRTUAL_NODE_TAINT
        toleration = {"key": taint_key, "operator": "Equal", "value": taint_value, "effect": taint_effect}
        quota = [
            {"name": "cpu", "nominalQuota": worker.quota.cpu},
            {"name": "memory", "nominalQuota": worker.quota.memory},
        ]
        target, external = burst.cluster_queue, {}
        flavors = [{"name": burst.acs_flavor, "nodeLabels": {label_key: label_value}, "tolerations": [toleration]}]
        cluster_queues = [
            {
                "name": burst.cluster_queue,
                "namespaceSelector": {},
                "resourceGroups": [
                    {"coveredResources": ["cpu", "memory"], "flavors": [{"name": burst.acs_flavor, "resources": quota}]}
                ],
            }
        ]
    return QueuesConfig.model_validate(
        {
            "namespaces": created,
            "existingNamespaces": existing,
            "resourceFlavors": flavors,
            "provisioningChecks": [],
            "clusterQueues": cluster_queues,
            "localQueues": [{"name": q.name, "namespace": q.namespace, "clusterQueue": target} for q in local_queues],
            "external": external,
        }
    )


def worker_plans(config: StackConfig) -> list[WorkerPlan]:
    """Every worker of the stack's ``multiKueue`` section, as :class:`WorkerPlan`; none without the section."""
    burst = config.multi_kueue
    if burst is None:
        return []
    local_queues = burst_local_queues(burst, config.queues)
    watched = tuple(MULTIKUEUE_ADAPTERS[f] for f in watched_frameworks(config.kueue.frameworks))
    reads = gate_reads(kueue_gates.effective(config.kueue.feature_gates, config.kueue.profile))
    plans = []
    for index, worker in enumerate(burst.workers):
        in_china = is_mainland_china_region(region) if (region := worker_region(config, worker)) else False
        kueue = (
            worker_kueue(config.kueue, worker, mainland_china=in_china) if installs_kueue(worker, config.ack) else None
        )
        version = ack_cluster_version(worker, config.ack)
        probe_image = kueue.readiness_gate.image_for(kueue_cluster.minor_of(version[1])) if kueue and version else None
        sets_up = worker.source != "kubeconfig"
        plans.append(
            WorkerPlan(
                key=key_path("multiKueue.workers", index),
                worker=worker,
                cluster_name=burst.worker_cluster_name(worker),
                secret_name=burst.worker_secret_name(worker),
                kueue=kueue,
                identity_namespace=(kueue or config.kueue).namespace,
                queues=worker_queues(burst, worker, local_queues) if sets_up else None,
                namespace_labels=(kueue or config.kueue).managed_namespace_labels,
                burst_namespaces=tuple(sorted({q.namespace for q in local_queues})),
                watched=watched,
                gate_reads=reads,
                acs=worker.acs if worker.source == "ack" else None,
                burst_pod_selector=burst_pod_selector((kueue or config.kueue).chart_version),
                aks=_existing_aks(worker),
                probe_image=probe_image,
            )
        )
    return plans


def worker_region(config: StackConfig, worker: WorkerConfig) -> str | None:
    """The Alibaba Cloud region of an ``ack`` worker's cluster (new or existing); ``None`` for any other worker."""
    ack = config.ack
    if ack is None or worker.source != "ack":
        return None
    regions = {c.name: c.region for c in ack.clusters} | {c.name: c.region for c in ack.existing_clusters}
    return regions.get(str(worker.cluster))


def _existing_aks(worker: WorkerConfig) -> ExistingClusterConfig | None:
    if worker.source != "aks":
        return None
    return ExistingClusterConfig(
        source="aks",
        resource_group_name=worker.resource_group_name,
        cluster_name=worker.cluster_name,
        kubelogin=worker.kubelogin,
    )


def with_worker_needs(needs: ClusterNeeds, config: StackConfig, cluster: str) -> ClusterNeeds:
    """``needs`` of the ACK cluster ``cluster`` plus what its burst ResourcePolicies need of kube-scheduler: one
    ``acs`` unit (https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/configure-priority-based-resource-scheduling)."""
    extra = tuple(
        SchedulerNeed(f"{plan.key} (burst pods on ACS by ResourcePolicy)", SCHEDULER_MIN_ACS_UNIT)
        for plan in worker_plans(config)
        if plan.acs is not None and plan.worker.cluster == cluster
    )
    return ClusterNeeds((*needs.scheduler, *extra), needs.virtual_node) if extra else needs
