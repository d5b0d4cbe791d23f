"""ACS workloads on ACK Pro clusters: the ``elastic-capacity:ack`` section and its rules.

Every rule here comes from seed 004 (ACK Pro with ACS compute) or reference ack-acs.md section 3, and fails before
any resource is registered, naming the key to change. The vocabulary (label keys, classes, QoS) lives here once;
the manifest builders in ``components/manifests/acs.py`` import it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Literal

from pydantic import Field, StringConstraints, model_validator

from components.acs_sizing import CPU_STEPS, billed_spec
from components.config.ack import AckClusterConfig
from components.config.base import ConfigModel, DnsLabel, DnsSubdomain, RuleViolation, key_path
from components.config.kube import LabelKey, Labels, LabelValue, PositiveQuantity, quantity_value
from components.versions import (
    SCHEDULER_MIN_ACS_UNIT,
    SCHEDULER_MIN_GPU,
    SCHEDULER_MIN_GPU_HPN,
    SCHEDULER_MIN_MULTIPLE_ACS_UNITS,
    VIRTUAL_NODE_MIN_GPU_HPN,
    SchedulerVersion,
    addon_version,
)

APP_LABEL = "app"
"""The one selector key: the seed's Deployments select on ``app`` only."""

COMPUTE_CLASS_LABEL = "alibabacloud.com/compute-class"
COMPUTE_QOS_LABEL = "alibabacloud.com/compute-qos"
GPU_MODEL_SERIES_LABEL = "alibabacloud.com/gpu-model-series"
ACS_LABEL = "alibabacloud.com/acs"
"""Pod label ``"true"``: the seed's pod-label scheduling method."""
ECI_LABEL = "alibabacloud.com/eci"
"""Highest-priority virtual-node label; it sends the pod to ECI instead of ACS (reference 3.3)."""
CPU_VENDOR_LABEL = "alibabacloud.com/cpu-vendor"
"""Rewritten by ACS; like class and QoS it must never be in a selector (reference section 0, fact 6)."""

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
"""Valid compute class x QoS combinations (reference 3.2, from the ACS pod overview)."""


class PvcVolumeConfig(ConfigModel):
    """A PersistentVolumeClaim mounted into the container.

    The claim's StorageClass binding mode must be stated: the seed forbids ``WaitForFirstConsumer`` classes (ACK's
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
    """One unit of the ResourcePolicy, tried in list order on scale-out (reference 3.5).

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
    """Defaults to the workload's name, as in the seed's ``dep-rp-demo``."""
    units: Annotated[list[PolicyUnitConfig], Field(min_length=1)] | None = None
    """Defaults to one ``acs`` unit carrying the workload's class, QoS and GPU model (the seed's policy)."""


class AcsWorkloadConfig(ConfigModel):
    """One Deployment running on ACS compute through an ACK Pro cluster's virtual node (seed 004)."""

    name: DnsLabel
    namespace: DnsLabel = "default"
    """The seed deploys into ``default``. Another namespace must exist; this program does not create it."""
    cluster: str
    """Name of an ``ack.clusters`` entry."""
    replicas: Annotated[int, Field(ge=0)] = 1
    image: Annotated[str, StringConstraints(min_length=1)]
    command: list[str] | None = None
    args: list[str] | None = None
    app_label: DnsLabel | None = None
    """Value of the ``app`` label the Deployment selects on; defaults to ``name`` (see :attr:`app`)."""
    container_name: DnsLabel | None = None
    """Defaults to the app label, as in most seed examples (see :attr:`container`)."""
    compute_class: ComputeClass = "general-purpose"
    """ACS's default class when a pod names none (seed 004)."""
    compute_qos: ComputeQos = "default"
    """ACS's default QoS (seed 004); ``gpu-hpn`` allows only this one."""
    gpu_model_series: LabelValue | None = None
    """GPU card, e.g. ``T4``. Required for ``gpu``; for ``gpu-hpn`` it selects the reserved nodes' card."""
    scheduling: SchedulingMethod = "node-selector"
    """How pods reach the virtual node. ``node-selector`` is the seed's first method and the one that works with
    cloud disks and with GPU-HPN; ``pod-label`` cannot use WaitForFirstConsumer volumes."""
    cpu: PositiveQuantity | None = None
    """vCPU per pod, written as both request and limit (the seed's examples are all requests == limits)."""
    memory: PositiveQuantity | None = None
    """Memory per pod, written as both request and limit."""
    gpu: Annotated[int, Field(ge=1)] | None = None
    """GPUs per pod; required for ``gpu``, optional for ``gpu-hpn``."""
    gpu_resource_name: LabelKey = "nvidia.com/gpu"
    """Device resource name; the seed uses ``nvidia.com/gpu`` and asks for the real card's name otherwise."""
    labels: Labels = Field(default_factory=dict)
    """Extra pod labels. Class, QoS, model, ``app`` and ``alibabacloud.com/acs`` come from the fields above."""
    annotations: dict[LabelKey, str] = Field(default_factory=dict)
    """Extra pod annotations, e.g. ``alibabacloud.com/cpu-vendors``."""
    resource_policy: ResourcePolicyConfig | None = None
    """Options of the ResourcePolicy; only with ``scheduling: resource-policy`` (which works without it)."""
    volumes: list[PvcVolumeConfig] = Field(default_factory=list)

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
        """The ResourcePolicy's units: the configured ones, or the seed's single ``acs`` unit."""
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
                "gpu-hpn pods reach their reserved nodes by node-selector only (seed 004)",
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
                        "pod-label method does not support (seed 004); use node-selector or resource-policy",
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
                "class and QoS labels must never reach a selector (reference ack-acs.md section 0)",
            )


class AckConfig(ConfigModel):
    """ACK Pro clusters and the ACS workloads they run (stack key ``elastic-capacity:ack``)."""

    clusters: Annotated[list[AckClusterConfig], Field(min_length=1)]
    workloads: list[AcsWorkloadConfig] = Field(default_factory=list)

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

    @model_validator(mode="after")
    def _clusters_support_their_workloads(self) -> AckConfig:
        for cluster_index, cluster in enumerate(self.clusters):
            for index, workload in enumerate(self.workloads):
                if workload.cluster == cluster.name:
                    _check_versions(cluster_index, cluster, index, workload)
        return self


def _check_versions(cluster_index: int, cluster: AckClusterConfig, index: int, workload: AcsWorkloadConfig) -> None:
    """The virtual-node and kube-scheduler versions ``workload`` needs of its cluster (seed 004, reference 3.6).

    The virtual-node minimum of every ACS workload is a field rule of ``virtualNode.version``; only GPU-HPN asks more.
    """
    cluster_key = key_path("clusters", cluster_index)
    who = f"ack.workloads[{index}] ({workload.name}, {workload.compute_class})"
    if workload.compute_class == "gpu-hpn" and addon_version(cluster.virtual_node.version) < VIRTUAL_NODE_MIN_GPU_HPN:
        raise RuleViolation(
            key_path(cluster_key, "virtualNode", "version"),
            cluster.virtual_node.version,
            f"{who} needs ack-virtual-node v{VIRTUAL_NODE_MIN_GPU_HPN} or later (seed 004)",
        )
    if workload.is_gpu:
        table = SCHEDULER_MIN_GPU if workload.compute_class == "gpu" else SCHEDULER_MIN_GPU_HPN
        minor = cluster.minor_version
        if minor not in table:
            raise RuleViolation(
                key_path(cluster_key, "kubernetesVersion"),
                cluster.kubernetes_version,
                f"{who}: seed 004 names no kube-scheduler for {workload.compute_class} on Kubernetes {minor}; "
                f"it lists {sorted(table)}",
            )
        _require_scheduler(cluster_key, cluster, who, table[minor].text, lambda s: s.satisfies(table[minor]))
    acs_units = sum(unit.resource == "acs" for unit in workload.policy_units)
    if workload.scheduling == "resource-policy" and acs_units:
        minimum = SCHEDULER_MIN_MULTIPLE_ACS_UNITS if acs_units > 1 else SCHEDULER_MIN_ACS_UNIT
        _require_scheduler(
            cluster_key,
            cluster,
            f"{who} with {acs_units} acs ResourcePolicy unit(s)",
            f"feature level {minimum} (the x.y.z after -aliyun)",
            lambda s: s.ack >= minimum,
        )


def _require_scheduler(
    cluster_key: str, cluster: AckClusterConfig, who: str, minimum: str, ok: Callable[[SchedulerVersion], bool]
) -> None:
    if cluster.scheduler is None:
        raise RuleViolation(
            key_path(cluster_key, "scheduler"), None, f"{who} needs kube-scheduler {minimum} or later: pin its version"
        )
    if not ok(cluster.scheduler.parsed):
        raise RuleViolation(
            key_path(cluster_key, "scheduler", "version"),
            cluster.scheduler.version,
            f"{who} needs kube-scheduler {minimum} or later",
        )
