"""ACS workloads on ACK Pro clusters: one entry of ``ack.workloads`` and its rules.

The rules come from ACK's "Use ACS computing power in ACK Pro clusters"
(https://www.alibabacloud.com/help/tc/cs/user-guide/access-acs-computing-power-in-an-ack-cluster) and the ACS pod
overview (https://www.alibabacloud.com/help/en/cs/user-guide/acs-pod-instance-overview); each fails before any
resource is registered, naming the key to change. The vocabulary (label keys, classes, QoS) lives here once; the
manifest builders in ``components/manifests/acs.py`` import it. Rules that need the workload's cluster live with the
section root, :class:`components.config.ack.ack.AckConfig`.
"""

from __future__ import annotations

import functools
from decimal import Decimal
from typing import Annotated, Literal

from packaging.version import Version
from pydantic import Field, StringConstraints, model_validator

from components.config.ack import acs_annotations, acs_sizing
from components.config.base import (
    ConfigModel,
    DnsLabel,
    DnsSubdomain,
    MisplacedKey,
    RuleViolation,
    key_path,
    require_unique,
)
from components.config.kube import LabelKey, Labels, LabelValue, PositiveQuantity, quantity_value
from components.config.rules import rule
from components.config.versions import (
    SCHEDULER_MIN_ACS_UNIT,
    SCHEDULER_MIN_GPU,
    SCHEDULER_MIN_GPU_HPN,
    SCHEDULER_MIN_MULTIPLE_ACS_UNITS,
    VIRTUAL_NODE_MIN,
    VIRTUAL_NODE_MIN_GPU_HPN,
    SchedulerNeed,
    SchedulerVersion,
    table_minimum,
)

_ACS_POD_URL = "https://www.alibabacloud.com/help/en/cs/user-guide/acs-pod-instance-overview"
_PRIORITY_URL = "https://www.alibabacloud.com/help/en/cs/user-guide/custom-resource-priority-scheduling"
_VN_SCHEDULING_URL = "https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/comparison-and-introduction-of-virtual-node-scheduling-scheme-ack"

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

GPU_PREREQUISITES = {
    "gpu": "ACS GPU in ACK is an invitational preview: without access granted by a ticket its pods stay Pending",
    "gpu-hpn": "GPU-HPN pods run only on a purchased GPU-HPN capacity reservation associated with the cluster; "
    "without one they stay Pending",
}
"""Why a GPU Deployment may never become ready, per class
(https://www.alibabacloud.com/help/en/ack/distributed-cloud-container-platform-for-kubernetes/user-guide/schedule-pods-to-run-on-acs-using-virtual-nodes)."""
SIZING_DOC = "https://www.alibabacloud.com/help/en/cs/user-guide/acs-pod-instance-overview"
"""Where ACS documents how it rounds a pod's cpu and memory up to a spec."""

CPU_CLASSES = ("general-purpose", "performance")
"""The classes ACS sizes by its CPU/memory spec table (``components.config.ack.acs_sizing``)."""

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

GPU_SCHEDULER_TABLES: dict[str, dict[str, SchedulerVersion]] = {
    "gpu": SCHEDULER_MIN_GPU,
    "gpu-hpn": SCHEDULER_MIN_GPU_HPN,
}
"""The minimum kube-scheduler per cluster minor, for each GPU compute class."""

DEFAULT_READY_MINUTES = 10
"""pulumi-kubernetes' own Deployment await: long enough for CPU pods on ACS."""


class PvcVolumeConfig(ConfigModel):
    """A PersistentVolumeClaim mounted into the container.

    The claim's StorageClass binding mode must be stated: ACK forbids ``WaitForFirstConsumer`` classes (its
    cloud-disk classes) with the pod-label scheduling method, and the program cannot look the class up offline.
    """

    name: DnsLabel
    """Volume name inside the pod, unique within the workload."""
    claim_name: DnsSubdomain
    """The PersistentVolumeClaim in the workload's namespace; it must exist already (``persistentVolumeClaim.
    claimName``, https://kubernetes.io/docs/reference/kubernetes-api/config-and-storage-resources/volume/)."""
    mount_path: Annotated[str, StringConstraints(pattern=r"^/")]
    """Absolute path in the container where the volume is mounted (``volumeMounts[].mountPath``)."""
    binding_mode: Literal["Immediate", "WaitForFirstConsumer"]
    """``volumeBindingMode`` of the claim's StorageClass."""
    read_only: bool = False
    """Mount the volume read-only (sets ``readOnly`` on both the volume and the mount)."""


class PolicyUnitConfig(ConfigModel):
    """One unit of the ResourcePolicy, tried in list order on scale-out
    (https://www.alibabacloud.com/help/en/cs/user-guide/custom-resource-priority-scheduling).

    Only ``acs`` and ``ecs`` units: ``eci`` would send the pods to ECI, and ``elastic`` is deprecated.
    """

    resource: Literal["acs", "ecs"] = "acs"
    """Where this unit places pods: ``acs`` on ACS compute through the virtual node, ``ecs`` on the cluster's ECS
    nodes selected by ``nodeSelector``."""
    compute_qos: ComputeQos | None = None
    """The compute QoS of the pods an ``acs`` unit places; the workload's ``computeQos`` when unset. Best-effort
    first, then default, is the fallback the ACS docs recommend for best-effort capacity. Both are valid for every
    class that can use a policy (``gpu-hpn``, the only default-only class, is scheduled by node-selector)."""
    pod_labels: Labels = Field(default_factory=dict)
    """Extra labels the scheduler adds to pods placed by this unit (class, QoS and model come from the workload)."""
    pod_annotations: dict[LabelKey, str] = Field(default_factory=dict)
    """Extra annotations the scheduler adds to pods placed by this unit."""
    node_selector: Labels = Field(default_factory=dict)
    """``ecs`` units only: the node labels of the ECS nodes, e.g. ``alibabacloud.com/nodepool-id``."""
    max: Annotated[int, Field(ge=0)] | None = None
    """Pods this unit may hold; unset means unbounded."""

    @model_validator(mode="after")
    @rule("acs.fields-match-resource", source=_PRIORITY_URL)
    def _fields_match_resource(self) -> PolicyUnitConfig:
        """A ResourcePolicy unit with the fields of its resource only (``computeQos`` for acs, ``nodeSelector`` for
        ecs), because a unit of another resource has no such field."""
        if self.resource != "acs" and self.compute_qos is not None:
            raise RuleViolation("computeQos", self.compute_qos, "only acs units take a compute QoS")
        if self.resource != "ecs" and self.node_selector:
            raise RuleViolation("nodeSelector", self.node_selector, "only ecs units select nodes")
        return self


class ResourcePolicyConfig(ConfigModel):
    """The ResourcePolicy of a workload with ``scheduling: resource-policy``."""

    name: DnsSubdomain | None = None
    """The ResourcePolicy's name; defaults to the workload's name, as in ACK's ``dep-rp-demo`` example."""
    units: Annotated[list[PolicyUnitConfig], Field(min_length=1)] | None = None
    """The units, tried in order; defaults to one ``acs`` unit carrying the workload's class, QoS and GPU model
    (ACK's example policy)."""


class AcsWorkloadConfig(ConfigModel):
    """One Deployment running on ACS compute through an ACK Pro cluster's virtual node."""

    name: DnsLabel
    """The Deployment's name, unique in its namespace of its cluster."""
    namespace: DnsLabel = "default"
    """The namespace of the Deployment and its ResourcePolicy. ``default`` (ACK's examples) is used as it is; any
    other namespace is created by this stack, once per cluster for all the workloads in it, and deleted with it."""
    cluster: str
    """Name of an ``ack.clusters`` entry."""
    replicas: Annotated[int, Field(ge=0)] = 1
    """Pods the Deployment runs (``spec.replicas``,
    https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/deployment-v1/)."""
    image: Annotated[str, StringConstraints(min_length=1)]
    """The container image; ACS pods pull it through the VPC's NAT egress, or from a registry inside the VPC."""
    command: list[str] | None = None
    """The container's entrypoint, replacing the image's ``ENTRYPOINT`` (``command``,
    https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/pod-v1/#entrypoint)."""
    args: list[str] | None = None
    """Arguments to the entrypoint, replacing the image's ``CMD`` (``args``, same page as ``command``)."""
    app_label: DnsLabel | None = None
    """Value of the ``app`` label the Deployment selects on; defaults to ``name``."""
    container_name: DnsLabel | None = None
    """The container's name; defaults to the app label, as in most of ACK's examples."""
    compute_class: ComputeClass = "general-purpose"
    """The ACS compute class of the pods (pod label ``alibabacloud.com/compute-class``,
    https://www.alibabacloud.com/help/en/cs/user-guide/acs-pod-instance-overview); ``general-purpose`` is ACS's
    default when a pod names none."""
    compute_qos: ComputeQos = "default"
    """The ACS compute QoS of the pods (pod label ``alibabacloud.com/compute-qos``): ``default``, ACS's own
    default, or ``best-effort``, cheaper capacity that ACS may reclaim; ``gpu-hpn`` allows only ``default``."""
    gpu_model_series: LabelValue | None = None
    """GPU card as ACS names it, e.g. ``T4`` or ``GN8IS`` (L20); another value than the documented ones is a
    warning. Required for ``gpu``; for ``gpu-hpn`` it selects the reserved nodes' card."""
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
    """PersistentVolumeClaims mounted into the container, each with a unique ``name``."""
    ready_timeout_minutes: Annotated[int, Field(ge=1, le=720)] = DEFAULT_READY_MINUTES
    """How long ``pulumi up`` waits for the Deployment to become ready before failing. GPU classes often need more
    (large images); without ACS GPU access (an invitational preview) or a GPU-HPN capacity reservation they never
    become ready."""

    @property
    def app(self) -> str:
        """The ``app`` label value: ``appLabel``, else ``name``."""
        return self.app_label or self.name

    @property
    def container(self) -> str:
        """The container's name: ``containerName``, else the app label."""
        return self.container_name or self.app

    @property
    def policy_name(self) -> str:
        """The ResourcePolicy's name: ``resourcePolicy.name``, else the workload's name."""
        configured = self.resource_policy.name if self.resource_policy else None
        return configured or self.name

    @property
    def policy_units(self) -> list[PolicyUnitConfig]:
        """The ResourcePolicy's units: the configured ones, or ACK's example single ``acs`` unit."""
        configured = self.resource_policy.units if self.resource_policy else None
        return list(configured) if configured else [PolicyUnitConfig()]

    @property
    def is_gpu(self) -> bool:
        """GPU classes are sized per card; the others by ACS's CPU/memory spec table."""
        return self.compute_class not in CPU_CLASSES

    @property
    def virtual_node_minimum(self) -> Version:
        """The ack-virtual-node this workload needs: GPU-HPN needs a newer one than the other classes."""
        return VIRTUAL_NODE_MIN_GPU_HPN if self.compute_class == "gpu-hpn" else VIRTUAL_NODE_MIN

    def scheduler_needs(self, minor: str, who: str) -> list[SchedulerNeed]:
        """The kube-scheduler this workload needs on a cluster of Kubernetes ``minor``, each need naming ``who``:
        its GPU class's row for that minor (none below the table, which the section's rules refuse), and the
        feature level of its ResourcePolicy's ``acs`` units."""
        needs = []
        row = table_minimum(GPU_SCHEDULER_TABLES[self.compute_class], minor) if self.is_gpu else None
        if row is not None:
            needs.append(SchedulerNeed(who, row.ack, row))
        acs_units = sum(unit.resource == "acs" for unit in self.policy_units)
        if self.scheduling == "resource-policy" and acs_units:
            level = SCHEDULER_MIN_MULTIPLE_ACS_UNITS if acs_units > 1 else SCHEDULER_MIN_ACS_UNIT
            needs.append(SchedulerNeed(f"{who} with {acs_units} acs ResourcePolicy unit(s)", level))
        return needs

    @functools.cached_property
    def billed_spec(self) -> acs_sizing.BilledSpec | None:
        """The spec ACS bills each pod as; ``None`` for GPU classes. Computed once, while validating."""
        return None if self.is_gpu else acs_sizing.billed_spec(self.cpu, self.memory)

    def warnings(self) -> list[tuple[str, str]]:
        """``(key, message)``, the key relative to the workload, when it may never become ready (a GPU class's
        prerequisite) or ACS bills more than it asked for: known from the stack file, so said before deploying."""
        workload = f"{self.namespace}/{self.name}"
        found = []
        if self.compute_class in GPU_PREREQUISITES:
            found.append(
                (
                    "computeClass",
                    f"{workload}: {GPU_PREREQUISITES[self.compute_class]}, and `pulumi up` fails after "
                    f"readyTimeoutMinutes ({self.ready_timeout_minutes})",
                )
            )
        spec = self.billed_spec
        if spec is not None and spec.rounded_up:
            found.append(
                (
                    "",
                    f"ACS bills each pod of {workload} as {spec.text}: it rounds cpu {self.cpu} / memory "
                    f"{self.memory} up to the nearest ACS spec ({SIZING_DOC})",
                )
            )
        return found

    @model_validator(mode="after")
    @rule("acs.class-and-qos", source=_ACS_POD_URL)
    def _class_and_qos(self) -> AcsWorkloadConfig:
        """A compute QoS the compute class offers, because ACS runs gpu-hpn pods at the default QoS only."""
        allowed_qos = QOS_BY_CLASS[self.compute_class]
        if self.compute_qos not in allowed_qos:
            raise RuleViolation(
                "computeQos", self.compute_qos, f"compute class {self.compute_class} allows {', '.join(allowed_qos)}"
            )
        return self

    @model_validator(mode="after")
    @rule("acs.gpu-fields", source=_ACS_POD_URL)
    def _gpu_fields(self) -> AcsWorkloadConfig:
        """GPU fields on the gpu classes only, a model series and count for ``gpu``, and cpu and memory for every GPU
        pod, because ACS places GPU pods by model and ACK needs them Guaranteed."""
        gpu_fields = (("gpuModelSeries", self.gpu_model_series), ("gpu", self.gpu))
        if not self.is_gpu:
            for key, value in gpu_fields:
                if value is not None:
                    raise RuleViolation(
                        key, value, f"only the gpu and gpu-hpn classes take it, not {self.compute_class}"
                    )
            return self
        if self.compute_class == "gpu":
            for key, value in gpu_fields:
                if value is None:
                    raise RuleViolation(key, None, "compute class gpu needs gpuModelSeries (e.g. T4) and a gpu count")
        for key, value in (("cpu", self.cpu), ("memory", self.memory)):
            if value is None:
                raise RuleViolation(
                    key, None, "GPU pods in ACK must be Guaranteed (requests == limits): set cpu and memory"
                )
        return self

    @model_validator(mode="after")
    @rule("acs.fits-an-acs-spec", source=_ACS_POD_URL)
    def _fits_an_acs_spec(self) -> AcsWorkloadConfig:
        """A CPU pod must fit a spec ACS offers; this also computes :attr:`billed_spec` once and for all."""
        try:
            _ = self.billed_spec
        except ValueError as exc:
            too_many_cpus = self.cpu is not None and _quantity(self.cpu) > acs_sizing.CPU_STEPS[-1]
            key, value = ("cpu", self.cpu) if too_many_cpus else ("memory", self.memory)
            raise RuleViolation(key, value, str(exc)) from None
        return self

    @model_validator(mode="after")
    @rule("acs.scheduling-rules", source=_VN_SCHEDULING_URL)
    def _scheduling_rules(self) -> AcsWorkloadConfig:
        """A scheduling method the workload can use (node-selector for gpu-hpn, ``resourcePolicy`` only with
        resource-policy, no WaitForFirstConsumer volume with pod-label) and each volume name once, because the virtual
        node supports no other combination."""
        if self.compute_class == "gpu-hpn" and self.scheduling != "node-selector":
            raise RuleViolation(
                "scheduling", self.scheduling, "gpu-hpn pods reach their reserved nodes by node-selector only"
            )
        if self.resource_policy is not None and self.scheduling != "resource-policy":
            raise MisplacedKey("resourcePolicy", "only used with scheduling: resource-policy")
        if self.scheduling == "pod-label":
            for index, volume in enumerate(self.volumes):
                if volume.binding_mode == "WaitForFirstConsumer":
                    raise RuleViolation(
                        "scheduling",
                        self.scheduling,
                        f"volumes[{index}] ({volume.claim_name}) has a WaitForFirstConsumer StorageClass, which the "
                        "pod-label method does not support; use node-selector or resource-policy",
                    )
        require_unique([v.name for v in self.volumes], lambda i: key_path("volumes", i, "name"), "volume names")
        return self

    @model_validator(mode="after")
    @rule("acs.label-rules", source=_VN_SCHEDULING_URL)
    def _label_rules(self) -> AcsWorkloadConfig:
        """Labels and annotations of a workload and its policy units without the keys the program sets or that divert
        pods to ECI, and only annotations ACS applies to the class."""
        _refuse_reserved("labels", self.labels)
        _refuse_eci("annotations", self.annotations)
        acs_annotations.check("annotations", self.annotations, self.compute_class)
        for index, unit in enumerate(self.policy_units):
            unit_key = key_path("resourcePolicy", "units", index)
            _refuse_reserved(key_path(unit_key, "podLabels"), unit.pod_labels)
            _refuse_eci(key_path(unit_key, "podAnnotations"), unit.pod_annotations)
            acs_annotations.check(key_path(unit_key, "podAnnotations"), unit.pod_annotations, self.compute_class)
        return self


def _quantity(text: str) -> Decimal:
    """A validated quantity's value in cores or bytes."""
    value: Decimal = quantity_value(text)
    return value


@rule("acs.refuse-eci", source=_VN_SCHEDULING_URL)
def _refuse_eci(key: str, mapping: dict[str, str]) -> None:
    """No ``alibabacloud.com/eci`` label or annotation, because the virtual node then runs the pod on ECI instead of
    ACS."""
    if ECI_LABEL in mapping:
        raise RuleViolation(key_path(key, ECI_LABEL), mapping[ECI_LABEL], "it sends pods to ECI instead of ACS")


@rule("acs.refuse-reserved", source=_ACS_POD_URL)
def _refuse_reserved(key: str, labels: dict[str, str]) -> None:
    """No label key the workload sets itself (app, compute class and QoS, GPU model, ACS), because a second value would
    contradict the one ACS schedules by."""
    _refuse_eci(key, labels)
    for label in RESERVED_LABELS:
        if label in labels:
            raise RuleViolation(
                key_path(key, label),
                labels[label],
                "the workload sets this label from appLabel, computeClass, computeQos, gpuModelSeries and scheduling; "
                "class and QoS labels must never reach a selector",
            )
