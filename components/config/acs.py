"""ACS workloads on ACK Pro clusters: the ``elastic-capacity:ack`` section and its rules.

The rules come from ACK's "Use ACS computing power in ACK Pro clusters"
(https://www.alibabacloud.com/help/tc/cs/user-guide/access-acs-computing-power-in-an-ack-cluster) and the ACS pod
overview (https://www.alibabacloud.com/help/en/cs/user-guide/acs-pod-instance-overview); each fails before any
resource is registered, naming the key to change. What the workloads need of their cluster's addons is collected
here too (:meth:`AckConfig.needs`), for the deploy-time check of the installed versions. The vocabulary (label keys,
classes, QoS) lives here once; the manifest builders in ``components/manifests/acs.py`` import it.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StringConstraints, model_validator

from components.acs_sizing import CPU_STEPS, billed_spec
from components.config.ack import AckClusterConfig
from components.config.base import PROJECT, ConfigModel, DnsLabel, DnsSubdomain, RuleViolation, key_path
from components.config.kube import LabelKey, Labels, LabelValue, PositiveQuantity, quantity_value
from components.versions import (
    SCHEDULER_MIN_ACS_UNIT,
    SCHEDULER_MIN_GPU,
    SCHEDULER_MIN_GPU_HPN,
    SCHEDULER_MIN_MULTIPLE_ACS_UNITS,
    VIRTUAL_NODE_MIN,
    VIRTUAL_NODE_MIN_GPU_HPN,
    ClusterNeeds,
    SchedulerNeed,
    VirtualNodeNeed,
    table_minimum,
)

SECTION = f"{PROJECT}:ack"
"""The stack key of this section; deploy-time errors and warnings name keys under it."""

APP_LABEL = "app"
"""The one selector key: ACK's ACS examples select on ``app`` only."""

COMPUTE_CLASS_LABEL = "alibabacloud.com/compute-class"
COMPUTE_QOS_LABEL = "alibabacloud.com/compute-qos"
GPU_MODEL_SERIES_LABEL = "alibabacloud.com/gpu-model-series"
ACS_LABEL = "alibabacloud.com/acs"
"""Pod label ``"true"``: the pod-label scheduling method."""
ECI_LABEL = "alibabacloud.com/eci"
"""Highest-priority virtual-node label; it sends the pod to ECI instead of ACS
(https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/comparison-and-introduction-of-virtual-node-scheduling-scheme-ack)."""
CPU_VENDOR_LABEL = "alibabacloud.com/cpu-vendor"
"""Rewritten by ACS; like class and QoS it must never be in a selector (ACS pod overview)."""

RESERVED_LABELS = (
    APP_LABEL,
    COMPUTE_CLASS_LABEL,
    COMPUTE_QOS_LABEL,
    CPU_VENDOR_LABEL,
    GPU_MODEL_SERIES_LABEL,
    ACS_LABEL,
)
"""Label keys the builders own; users set them through ``appLabel``, ``computeClass``, ``computeQos`` …"""

ComputeClass = Literal["general-purpose", "performance", "gpu", "gpu-hpn"]
ComputeQos = Literal["default", "best-effort"]
SchedulingMethod = Literal["node-selector", "pod-label", "resource-policy"]

CPU_CLASSES = ("general-purpose", "performance")
"""The classes ACS sizes by its CPU/memory spec table (``components.acs_sizing``)."""

QOS_BY_CLASS: dict[str, tuple[str, ...]] = {
    "general-purpose": ("default", "best-effort"),
    "performance": ("default", "best-effort"),
    "gpu": ("default", "best-effort"),
    "gpu-hpn": ("default",),
}
"""Valid compute class x QoS combinations (ACS pod overview)."""

GPU_MODEL_SERIES = ("A10", "G28Ti", "G49E", "G59", "GN8IS", "GU8TEF", "GU8TF", "GX8SF", "L20N", "L20NE", "P16EN", "T4")
"""``alibabacloud.com/gpu-model-series`` values ACS documents: the card types of its GPU driver table
(https://www.alibabacloud.com/help/en/cs/user-guide/list-of-gpu-driver-versions-supported-by-acs), where L20 is
listed as ``L20(GN8IS)`` and L20X as ``L20X(GX8SF)``; ACK's own GPU example writes L20 as ``GN8IS``. ACS answers
the full list only by ticket, so another value is a warning, not an error."""

DEFAULT_READY_MINUTES = 10
"""pulumi-kubernetes' own Deployment await: long enough for CPU pods on ACS."""


class PvcVolumeConfig(ConfigModel):
    """A PersistentVolumeClaim mounted into the container.

    The claim's StorageClass binding mode must be stated: ACK forbids ``WaitForFirstConsumer`` classes (its
    cloud-disk classes) with the pod-label scheduling method, and the program cannot look the class up offline.
    """

    name: DnsLabel
    """Volume name inside the pod."""
    claim_name: DnsSubdomain
    mount_path: Annotated[str, StringConstraints(pattern=r"^/")]
    binding_mode: Literal["Immediate", "WaitForFirstConsumer"]
    """``volumeBindingMode`` of the claim's StorageClass."""
    read_only: bool = False


class PolicyUnitConfig(ConfigModel):
    """One unit of the ResourcePolicy, tried in list order on scale-out
    (https://www.alibabacloud.com/help/en/cs/user-guide/custom-resource-priority-scheduling).

    Only ``acs`` and ``ecs`` units: ``eci`` would send the pods to ECI, and ``elastic`` is deprecated.
    """

    resource: Literal["acs", "ecs"] = "acs"
    compute_qos: ComputeQos | None = None
    """``acs`` units only; the workload's ``computeQos`` when unset. Best-effort first, then default, is the
    fallback the ACS docs recommend for best-effort capacity. Both are valid for every class that can use a
    policy (``gpu-hpn``, the only default-only class, is scheduled by node-selector)."""
    pod_labels: Labels = Field(default_factory=dict)
    """Extra labels the scheduler adds to pods placed by this unit (class, QoS and model come from the workload)."""
    pod_annotations: dict[LabelKey, str] = Field(default_factory=dict)
    node_selector: Labels = Field(default_factory=dict)
    """``ecs`` units only: the node labels of the ECS nodes, e.g. ``alibabacloud.com/nodepool-id``."""
    max: Annotated[int, Field(ge=0)] | None = None
    """Pods this unit may hold; unset means unbounded."""

    @model_validator(mode="after")
    def _fields_match_resource(self) -> PolicyUnitConfig:
        if self.resource != "acs" and self.compute_qos is not None:
            raise RuleViolation("computeQos", self.compute_qos, "only acs units take a compute QoS")
        if self.resource != "ecs" and self.node_selector:
            raise RuleViolation("nodeSelector", self.node_selector, "only ecs units select nodes")
        return self


class ResourcePolicyConfig(ConfigModel):
    """The ResourcePolicy of a workload with ``scheduling: resource-policy``."""

    name: DnsSubdomain | None = None
    """Defaults to the workload's name, as in ACK's ``dep-rp-demo`` example."""
    units: Annotated[list[PolicyUnitConfig], Field(min_length=1)] | None = None
    """Defaults to one ``acs`` unit carrying the workload's class, QoS and GPU model (ACK's example policy)."""


class AcsWorkloadConfig(ConfigModel):
    """One Deployment running on ACS compute through an ACK Pro cluster's virtual node."""

    name: DnsLabel
    namespace: DnsLabel = "default"
    """ACK's examples deploy into ``default``; the fleet creates any other namespace once per cluster."""
    cluster: str
    """Name of an ``ack.clusters`` entry."""
    replicas: Annotated[int, Field(ge=0)] = 1
    image: Annotated[str, StringConstraints(min_length=1)]
    command: list[str] | None = None
    args: list[str] | None = None
    app_label: DnsLabel | None = None
    """Value of the ``app`` label the Deployment selects on; defaults to ``name`` (see :attr:`app`)."""
    container_name: DnsLabel | None = None
    """Defaults to the app label, as in most of ACK's examples (see :attr:`container`)."""
    compute_class: ComputeClass = "general-purpose"
    """ACS's default class when a pod names none."""
    compute_qos: ComputeQos = "default"
    """ACS's default QoS; ``gpu-hpn`` allows only this one."""
    gpu_model_series: LabelValue | None = None
    """GPU card as ACS names it, e.g. ``T4`` or ``GN8IS`` (L20); see :data:`GPU_MODEL_SERIES`. Required for
    ``gpu``; for ``gpu-hpn`` it selects the reserved nodes' card."""
    scheduling: SchedulingMethod = "node-selector"
    """How pods reach the virtual node. ``node-selector`` is ACK's first method and the one that works with cloud
    disks and with GPU-HPN; ``pod-label`` cannot use WaitForFirstConsumer volumes."""
    cpu: PositiveQuantity | None = None
    """vCPU per pod, written as both request and limit (ACK's examples are all requests == limits)."""
    memory: PositiveQuantity | None = None
    """Memory per pod, written as both request and limit."""
    gpu: Annotated[int, Field(ge=1)] | None = None
    """GPUs per pod; required for ``gpu``, optional for ``gpu-hpn``."""
    gpu_resource_name: LabelKey = "nvidia.com/gpu"
    """Device resource name; ACK's examples use ``nvidia.com/gpu`` and ask for the real card's name otherwise."""
    labels: Labels = Field(default_factory=dict)
    """Extra pod labels. Class, QoS, model, ``app`` and ``alibabacloud.com/acs`` come from the fields above."""
    annotations: dict[LabelKey, str] = Field(default_factory=dict)
    """Extra pod annotations, e.g. ``alibabacloud.com/cpu-vendors``."""
    resource_policy: ResourcePolicyConfig | None = None
    """Options of the ResourcePolicy; only with ``scheduling: resource-policy`` (which works without it)."""
    volumes: list[PvcVolumeConfig] = Field(default_factory=list)
    ready_timeout_minutes: Annotated[int, Field(ge=1, le=720)] = DEFAULT_READY_MINUTES
    """How long ``pulumi up`` waits for the Deployment to become ready before failing. GPU classes often need more
    (large images); without ACS GPU access (an invitational preview) or a GPU-HPN capacity reservation they never
    become ready."""

    @property
    def app(self) -> str:
        return self.app_label or self.name

    @property
    def container(self) -> str:
        return self.container_name or self.app

    @property
    def policy_name(self) -> str:
        configured = self.resource_policy.name if self.resource_policy else None
        return configured or self.name

    @property
    def policy_units(self) -> list[PolicyUnitConfig]:
        """The ResourcePolicy's units: the configured ones, or ACK's example single ``acs`` unit."""
        configured = self.resource_policy.units if self.resource_policy else None
        return list(configured) if configured else [PolicyUnitConfig()]

    @property
    def is_gpu(self) -> bool:
        return self.compute_class not in CPU_CLASSES

    @model_validator(mode="after")
    def _class_rules(self) -> AcsWorkloadConfig:
        allowed_qos = QOS_BY_CLASS[self.compute_class]
        if self.compute_qos not in allowed_qos:
            raise RuleViolation(
                "computeQos", self.compute_qos, f"compute class {self.compute_class} allows {', '.join(allowed_qos)}"
            )
        if self.compute_class == "gpu":
            for key, value in (("gpuModelSeries", self.gpu_model_series), ("gpu", self.gpu)):
                if value is None:
                    raise RuleViolation(key, None, "compute class gpu needs gpuModelSeries (e.g. T4) and a gpu count")
        if self.is_gpu:
            for key, value in (("cpu", self.cpu), ("memory", self.memory)):
                if value is None:
                    raise RuleViolation(
                        key, None, "GPU pods in ACK must be Guaranteed (requests == limits): set cpu and memory"
                    )
        else:
            for key, value in (("gpuModelSeries", self.gpu_model_series), ("gpu", self.gpu)):
                if value is not None:
                    raise RuleViolation(
                        key, value, f"only the gpu and gpu-hpn classes take it, not {self.compute_class}"
                    )
            try:
                billed_spec(self.cpu, self.memory)
            except ValueError as exc:
                too_many_cpus = self.cpu is not None and quantity_value(self.cpu) > CPU_STEPS[-1]
                key, value = ("cpu", self.cpu) if too_many_cpus else ("memory", self.memory)
                raise RuleViolation(key, value, str(exc)) from None
        if self.compute_class == "gpu-hpn" and self.scheduling != "node-selector":
            raise RuleViolation(
                "scheduling",
                self.scheduling,
                "gpu-hpn pods reach their reserved nodes by node-selector only",
            )
        return self

    @model_validator(mode="after")
    def _scheduling_rules(self) -> AcsWorkloadConfig:
        if self.resource_policy is not None and self.scheduling != "resource-policy":
            raise RuleViolation("resourcePolicy", "set", "only used with scheduling: resource-policy")
        if self.scheduling == "pod-label":
            for index, volume in enumerate(self.volumes):
                if volume.binding_mode == "WaitForFirstConsumer":
                    raise RuleViolation(
                        "scheduling",
                        self.scheduling,
                        f"volumes[{index}] ({volume.claim_name}) has a WaitForFirstConsumer StorageClass, which the "
                        "pod-label method does not support; use node-selector or resource-policy",
                    )
        names = [volume.name for volume in self.volumes]
        for index, name in enumerate(names):
            if name in names[:index]:
                raise RuleViolation(key_path("volumes", index, "name"), name, "volume names must be unique")
        return self

    @model_validator(mode="after")
    def _label_rules(self) -> AcsWorkloadConfig:
        _refuse_reserved("labels", self.labels)
        _refuse_eci("annotations", self.annotations)
        for index, unit in enumerate(self.policy_units):
            unit_key = key_path("resourcePolicy", "units", index)
            _refuse_reserved(key_path(unit_key, "podLabels"), unit.pod_labels)
            _refuse_eci(key_path(unit_key, "podAnnotations"), unit.pod_annotations)
        return self


def _refuse_eci(key: str, mapping: dict[str, str]) -> None:
    if ECI_LABEL in mapping:
        raise RuleViolation(key_path(key, ECI_LABEL), mapping[ECI_LABEL], "it sends pods to ECI instead of ACS")


def _refuse_reserved(key: str, labels: dict[str, str]) -> None:
    _refuse_eci(key, labels)
    for label in RESERVED_LABELS:
        if label in labels:
            raise RuleViolation(
                key_path(key, label),
                labels[label],
                "the workload sets this label from appLabel, computeClass, computeQos, gpuModelSeries and scheduling; "
                "class and QoS labels must never reach a selector",
            )


class AckConfig(ConfigModel):
    """ACK Pro clusters and the ACS workloads they run (stack key ``elastic-capacity:ack``)."""

    clusters: Annotated[list[AckClusterConfig], Field(min_length=1)]
    workloads: list[AcsWorkloadConfig] = Field(default_factory=list)

    def cluster_key(self, index: int) -> str:
        """The full stack key of ``clusters[index]``, which deploy-time errors extend."""
        return key_path(SECTION, "clusters", index)

    def workloads_on(self, cluster: str) -> list[AcsWorkloadConfig]:
        """The workloads that run on the cluster named ``cluster``."""
        return [workload for workload in self.workloads if workload.cluster == cluster]

    @model_validator(mode="after")
    def _names_resolve(self) -> AckConfig:
        clusters = [cluster.name for cluster in self.clusters]
        for index, name in enumerate(clusters):
            if name in clusters[:index]:
                raise RuleViolation(key_path("clusters", index, "name"), name, "cluster names must be unique")
        seen: dict[str, set[tuple[str, str, str]]] = {"name": set(), "appLabel": set(), "resourcePolicy.name": set()}
        for index, workload in enumerate(self.workloads):
            if workload.cluster not in clusters:
                raise RuleViolation(key_path("workloads", index, "cluster"), workload.cluster, f"one of {clusters}")
            names = {"name": workload.name, "appLabel": workload.app}
            if workload.scheduling == "resource-policy":
                names["resourcePolicy.name"] = workload.policy_name
            for key, value in names.items():
                scope = (workload.cluster, workload.namespace, value)
                if scope in seen[key]:
                    raise RuleViolation(
                        key_path("workloads", index, key),
                        value,
                        f"it must be unique in namespace {workload.namespace} of cluster {workload.cluster}",
                    )
                seen[key].add(scope)
        return self

    def needs(self, cluster: AckClusterConfig) -> ClusterNeeds:
        """What the workloads on ``cluster`` need of its ack-virtual-node and kube-scheduler.

        The config rules below hold pinned versions to these; ``components/ack_checks.py`` holds ACK's installed
        versions to them at deploy time. A GPU minor below its table has no need here: the rules refuse it.
        """
        virtual_node = VirtualNodeNeed(VIRTUAL_NODE_MIN, "ACS on Kubernetes 1.26 or later")
        scheduler: list[SchedulerNeed] = []
        for index, workload in enumerate(self.workloads):
            if workload.cluster != cluster.name:
                continue
            who = f"ack.workloads[{index}] ({workload.name}, {workload.compute_class})"
            if workload.compute_class == "gpu-hpn" and virtual_node.minimum < VIRTUAL_NODE_MIN_GPU_HPN:
                virtual_node = VirtualNodeNeed(VIRTUAL_NODE_MIN_GPU_HPN, who)
            row = table_minimum(_GPU_TABLES[workload.compute_class], cluster.minor_version) if workload.is_gpu else None
            if row is not None:
                scheduler.append(SchedulerNeed(who, row.ack, row))
            acs_units = sum(unit.resource == "acs" for unit in workload.policy_units)
            if workload.scheduling == "resource-policy" and acs_units:
                level = SCHEDULER_MIN_MULTIPLE_ACS_UNITS if acs_units > 1 else SCHEDULER_MIN_ACS_UNIT
                scheduler.append(SchedulerNeed(f"{who} with {acs_units} acs ResourcePolicy unit(s)", level))
        return ClusterNeeds(tuple(scheduler), virtual_node)

    def warnings(self) -> list[tuple[str, str]]:
        """``(key, message)`` for settings that may be right but usually are not; the fleet logs them as warnings."""
        found = []
        for index, workload in enumerate(self.workloads):
            model = workload.gpu_model_series
            if model is not None and model not in GPU_MODEL_SERIES:
                found.append(
                    (
                        key_path(SECTION, "workloads", index, "gpuModelSeries"),
                        f"{model!r} is not a GPU model series ACS documents ({', '.join(GPU_MODEL_SERIES)}); pods "
                        "asking for a model ACS does not offer stay Pending. Confirm the value with Alibaba Cloud.",
                    )
                )
        for index, cluster in enumerate(self.clusters):
            if cluster.node_pool is None:
                found.append(
                    (
                        key_path(SECTION, "clusters", index, "nodePool"),
                        "no ECS node pool: ACK runs CoreDNS on worker nodes and virtual nodes do not take it, so "
                        "pods get no cluster DNS. Add a small pool (2 nodes) unless something else provides one.",
                    )
                )
        return found

    @model_validator(mode="after")
    def _clusters_support_their_workloads(self) -> AckConfig:
        for cluster_index, cluster in enumerate(self.clusters):
            cluster_key = key_path("clusters", cluster_index)
            for index, workload in enumerate(self.workloads):
                if workload.cluster == cluster.name and workload.is_gpu:
                    _require_table_minor(cluster_key, cluster, index, workload)
            _require_pins_meet(cluster_key, cluster, self.needs(cluster))
        return self


_GPU_TABLES = {"gpu": SCHEDULER_MIN_GPU, "gpu-hpn": SCHEDULER_MIN_GPU_HPN}


def _require_table_minor(cluster_key: str, cluster: AckClusterConfig, index: int, workload: AcsWorkloadConfig) -> None:
    """A GPU class needs a cluster minor its kube-scheduler table covers; newer minors use the newest row."""
    table = _GPU_TABLES[workload.compute_class]
    if table_minimum(table, cluster.minor_version) is None:
        oldest = min(table, key=lambda minor: tuple(int(part) for part in minor.split(".")))
        raise RuleViolation(
            key_path(cluster_key, "kubernetesVersion"),
            cluster.kubernetes_version,
            f"ack.workloads[{index}] ({workload.name}, {workload.compute_class}) needs Kubernetes {oldest} or later: "
            f"ACK lists no kube-scheduler for {workload.compute_class} before it",
        )


def _require_pins_meet(cluster_key: str, cluster: AckClusterConfig, needs: ClusterNeeds) -> None:
    """A pinned (floor) version must already meet every need: a pin below it could only install too old a version."""
    pinned_node = cluster.virtual_node.version
    if pinned_node is not None and not needs.virtual_node.met_by(pinned_node):
        raise RuleViolation(
            key_path(cluster_key, "virtualNode", "version"),
            pinned_node,
            f"{needs.virtual_node.reason} needs ack-virtual-node v{needs.virtual_node.minimum} or later",
        )
    pinned_scheduler = cluster.scheduler.parsed if cluster.scheduler is not None else None
    if pinned_scheduler is None:
        return
    for need in needs.scheduler:
        if not need.met_by(pinned_scheduler):
            raise RuleViolation(
                key_path(cluster_key, "scheduler", "version"),
                pinned_scheduler.text,
                f"{need.reason} needs kube-scheduler {need.text} or later",
            )
