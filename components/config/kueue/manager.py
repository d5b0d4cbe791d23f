"""Kueue manager settings that queue objects depend on: fair sharing, admission fair sharing, resource transformations.

They go into the manager's Configuration (``config.kueue.x-k8s.io/v1beta2``,
https://kueue.sigs.k8s.io/docs/reference/kueue-config.v1beta2/). Kueue validates it only when the manager starts
(https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/config/validation.go): a bad value is a crash-looping
manager after ``helm upgrade``, not an error at apply time, so every rule of that file for these keys is checked here.
Each rule cites its function there; those functions are the same in v0.17.8, v0.18.6 and v0.19.2 but where a rule
says otherwise, and the rules that differ by minor read the installed minor's :class:`KueueProfile`
(:func:`require_what_the_minor_accepts`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import Field, model_validator

from components.config.base import ConfigModel, Int32, RuleViolation, key_path, matching, require_unique
from components.config.kube import QUALIFIED_NAME_RULE, LabelKey, Quantity, is_qualified_name
from components.config.kueue import dra as kueue_dra
from components.config.kueue.dra import DeviceClassMapping
from components.config.queues.quota import ResourceName
from components.config.rules import rule

_VALIDATION_AFS_URL = "https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/config/validation.go#L430"
_VALIDATION_FAIR_SHARING_URL = "https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/config/validation.go#L407"
_VALIDATION_LABELS_URL = "https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/config/validation.go#L810"
_VALIDATION_TRANSFORMATIONS_URL = "https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/config/validation.go#L454"

if TYPE_CHECKING:
    from components.config.kueue.kueue import KueueConfig
    from components.config.kueue.profiles import KueueProfile

VALIDATION_V0_19_2 = "https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/config/validation.go"

PreemptionStrategy = Literal["LessThanOrEqualToFinalShare", "LessThanInitialShare"]
VALID_STRATEGY_SETS: tuple[tuple[str, ...], ...] = (
    ("LessThanOrEqualToFinalShare",),
    ("LessThanInitialShare",),
    ("LessThanOrEqualToFinalShare", "LessThanInitialShare"),
)
"""``validStrategySets`` of ``validateFairSharing`` in the manager's config validation (same in v0.17.8-v0.19.2)."""

_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)")
_UNIT_SECONDS = {
    "ns": Decimal("1e-9"),
    "us": Decimal("1e-6"),
    "µs": Decimal("1e-6"),
    "ms": Decimal("1e-3"),
    "s": Decimal(1),
    "m": Decimal(60),
    "h": Decimal(3600),
}
GoDuration = Annotated[
    str,
    matching(r"0|(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+", "a Go duration such as 5m, 168h or 1h30m (no sign)"),
]
"""A ``metav1.Duration`` as the manager parses it (``time.ParseDuration``), without a sign."""


def duration_seconds(text: str) -> Decimal:
    """The length of a :data:`GoDuration` in seconds."""
    return sum((Decimal(n) * _UNIT_SECONDS[unit] for n, unit in _DURATION_PART.findall(text)), Decimal(0))


def _both_strategies() -> list[PreemptionStrategy]:
    return ["LessThanOrEqualToFinalShare", "LessThanInitialShare"]


class FairSharingSettings(ConfigModel):
    """Fair sharing among ClusterQueues and Cohorts of a cohort tree: their ``fairSharing.weight`` counts only with it.

    https://kueue.sigs.k8s.io/docs/concepts/fair_sharing/
    """

    preemption_strategies: list[PreemptionStrategy] = Field(default_factory=_both_strategies)
    """Which preemptions fair sharing may make, tried in order; Kueue accepts exactly one of
    ``[LessThanOrEqualToFinalShare]``, ``[LessThanInitialShare]`` or both in that order. Kueue requires the list (its
    manager exits on ``fairSharing: {}``); here it defaults to both, which Kueue's docs recommend."""

    @model_validator(mode="after")
    @rule("kueue-manager.a-valid-strategy-set", source=_VALIDATION_FAIR_SHARING_URL)
    def _a_valid_strategy_set(self) -> FairSharingSettings:
        """Fair-sharing preemption strategies in one of the orders Kueue accepts, because its manager refuses to start
        with any other."""
        if tuple(self.preemption_strategies) not in VALID_STRATEGY_SETS:
            allowed = f"one of {[list(s) for s in VALID_STRATEGY_SETS]}"
            raise RuleViolation("preemptionStrategies", self.preemption_strategies, allowed)
        return self


class AdmissionFairSharingSettings(ConfigModel):
    """Admission fair sharing: a ClusterQueue with ``admissionScope`` admits first from the LocalQueues that used
    least lately, by their ``fairSharing.weight``.

    https://kueue.sigs.k8s.io/docs/concepts/admission_fair_sharing/
    """

    usage_half_life_time: GoDuration
    """After how long past usage counts half; ``0s`` forgets it at once."""
    usage_sampling_interval: GoDuration | None = None
    """How often Kueue samples usage; unset keeps Kueue's 5m; must be above 0."""
    resource_weights: dict[ResourceName, float] | None = None
    """How much each resource weighs in a LocalQueue's usage; unset resources weigh 1; never negative."""

    @model_validator(mode="after")
    @rule("kueue-manager.positive-interval-and-weights", source=_VALIDATION_AFS_URL)
    def _positive_interval_and_weights(self) -> AdmissionFairSharingSettings:
        """A positive usage sampling interval and no negative resource weight, because ``validateAdmissionFairSharing``
        refuses the manager's config otherwise (same in v0.17.8-v0.19.2)."""
        interval = self.usage_sampling_interval
        if interval is not None and duration_seconds(interval) <= 0:
            raise RuleViolation("usageSamplingInterval", interval, "it must be greater than 0")
        for resource, weight in (self.resource_weights or {}).items():
            if weight < 0:
                # Kueue's field path: afsResourceWeightsPath.Key(resource), admissionFairSharing.resourceWeights[cpu].
                raise RuleViolation(f"resourceWeights[{resource}]", weight, "a resource weight is never negative")
        return self


class ResourceTransformation(ConfigModel):
    """How Kueue turns one resource a pod requests into others before quota is counted, e.g. each cpu into one
    ``cpu_credits`` that a second resource group caps across flavors.

    https://kueue.sigs.k8s.io/docs/reference/kueue-config.v1beta2/#ResourceTransformation
    """

    input: ResourceName
    """The requested resource."""
    strategy: Literal["Retain", "Replace"] | None = None
    """``Retain`` keeps the input next to its outputs; ``Replace`` removes it (Kueue's default ``Retain``)."""
    multiply_by: ResourceName | None = None
    """A second requested resource the outputs are multiplied by, e.g. a GPU slice count."""
    outputs: dict[ResourceName, Quantity] | None = None
    """Each output resource and how much of it one unit of the input counts as."""


class ResourcesSettings(ConfigModel):
    """Which requested resources Kueue counts, and how it transforms them
    (https://kueue.sigs.k8s.io/docs/reference/kueue-config.v1beta2/#Resources)."""

    quota_check_strategy: Literal["BlockUndeclared", "IgnoreUndeclared"] | None = None
    """``IgnoreUndeclared`` admits a workload's resources no ClusterQueue covers without quota (not with
    ``excludeResourcePrefixes``); unset keeps Kueue's ``BlockUndeclared``. Kueue 0.18 or newer, with the
    ``QuotaCheckStrategy`` gate (alpha and off in 0.18, beta and on in 0.19:
    https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/site/content/en/docs/tasks/manage/administer_cluster_quotas.md)."""
    exclude_resource_prefixes: list[str] | None = None
    """Resources whose name starts with one of these are not counted against quota."""
    transformations: list[ResourceTransformation] | None = None
    """Transformations, at most one per input resource."""
    device_class_mappings: list[DeviceClassMapping] | None = None
    """DeviceClasses of dynamic resource allocation counted as a quota resource each
    (https://kueue.sigs.k8s.io/docs/tasks/manage/setup_dra/); needs DRA on (``featureGates.KueueDRAIntegration``, on
    by default from 0.18; ``DynamicResourceAllocation: true`` in 0.17). A mapping's ``name`` is a resource
    ClusterQueues may hold quota of on a stack whose pools do not advertise it."""

    @model_validator(mode="after")
    @rule("kueue-manager.one-transformation-per-input", source=_VALIDATION_TRANSFORMATIONS_URL)
    def _one_transformation_per_input(self) -> ResourcesSettings:
        """One resource transformation per input, device-class mappings apart and no excluded prefixes with
        ``IgnoreUndeclared``, because ``validateResourceTransformations`` and its neighbours refuse the manager's
        config otherwise (same in v0.17.8-v0.19.2)."""
        inputs = [t.input for t in self.transformations or []]
        require_unique(inputs, lambda i: key_path("transformations", i, "input"), "transformation inputs")
        kueue_dra.require_mappings_apart(self.device_class_mappings or [])
        if self.quota_check_strategy == "IgnoreUndeclared" and self.exclude_resource_prefixes:
            # validateQuotaCheckStrategy in the manager's config validation (v0.18.6, v0.19.2).
            allowed = "excludeResourcePrefixes is not allowed with IgnoreUndeclared (it counts only covered resources)"
            raise RuleViolation("quotaCheckStrategy", self.quota_check_strategy, allowed)
        return self


class RequeuingStrategy(ConfigModel):
    """When and how often Kueue requeues a workload evicted for not getting its pods ready in time."""

    timestamp: Literal["Eviction", "Creation"] | None = None
    """Which time orders the requeued workload in its queue (Kueue's default ``Eviction``)."""
    backoff_limit_count: Int32 | None = Field(default=None, ge=0)
    """Requeues before Kueue deactivates the workload; unset requeues forever."""
    backoff_base_seconds: Int32 | None = Field(default=None, ge=0)
    """The first requeue's delay, doubled each time (Kueue's default 60)."""
    backoff_max_seconds: Int32 | None = Field(default=None, ge=0)
    """The longest delay between requeues (Kueue's default 3600)."""


class WaitForPodsReadySettings(ConfigModel):
    """Evict (and requeue) an admitted workload whose pods are not all ready in time, so a half-scheduled job does
    not hold quota (https://kueue.sigs.k8s.io/docs/tasks/manage/setup_wait_for_pods_ready/). Setting it turns it on:
    v1beta2 has no ``enable``."""

    timeout: GoDuration
    """How long after admission the pods may take to become ready (a sign is refused: the manager refuses a negative
    one). ``0s`` is what Kueue reads it as:
    0.17 and 0.18 exit on it (``validateWaitForPodsReady``: "timeout: Required value"), so it is refused there; 0.19
    replaces it with its default 30m before validating (``SetDefaults_Configuration`` in
    https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/apis/config/v1beta2/defaults.go), and an unset
    ``recoveryTimeout`` with it, so it is accepted there with a warning saying so."""
    block_admission: bool | None = None
    """Admit nothing else until the workload's pods are ready (Kueue's default false)."""
    recovery_timeout: GoDuration | None = None
    """How long pods that were ready may stay not ready before eviction (Kueue's default: ``timeout``; 0s turns it
    off)."""
    requeuing_strategy: RequeuingStrategy | None = None
    """How evicted workloads are requeued."""

    @property
    def timeout_is_zero(self) -> bool:
        return duration_seconds(self.timeout) == 0


class WorkloadRetention(ConfigModel):
    """How long Kueue keeps Workload objects it is done with."""

    after_finished: GoDuration | None = None
    """Delete a finished Workload this long after it finished; unset keeps it."""
    after_deactivated_by_kueue: GoDuration | None = None
    """Delete the Job of a Workload Kueue deactivated this long after; unset keeps it."""


class ObjectRetentionPolicies(ConfigModel):
    """What Kueue garbage-collects (https://kueue.sigs.k8s.io/docs/tasks/manage/setup_object_retention_policy/)."""

    workloads: WorkloadRetention | None = None
    """Retention of Workloads."""


class CustomMetricLabel(ConfigModel):
    """A Prometheus label ``custom_<name>`` on Kueue's queue metrics, its value read from a label or annotation of the
    queue object (https://kueue.sigs.k8s.io/docs/tasks/manage/observability/configure_custom_metric_labels/). Up to
    0.18 each label is on the ClusterQueue, LocalQueue and Cohort metrics, read from each object; from 0.19 a label
    has one ``sourceKind`` (Kueue's default ``ClusterQueue``), and ``Workload`` labels name their ``trackedValues``
    (``ControllerMetricsCustomLabel`` in
    https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/apis/config/v1beta2/configuration_types.go)."""

    name: Annotated[
        str, matching(r"[a-zA-Z][a-zA-Z0-9_]*", "a Prometheus label name: a letter, then letters, digits, _")
    ]
    """The label's name after ``custom_``; also the object label read when no source key is given."""
    source_label_key: LabelKey | None = None
    """The object label to read instead of ``name``."""
    source_annotation_key: LabelKey | None = None
    """The object annotation to read instead; not with ``sourceLabelKey``."""
    source_kind: Literal["ClusterQueue", "LocalQueue", "Cohort", "Workload"] | None = None
    """Kueue 0.19 or newer: the kind whose objects the value is read from (Kueue's default ``ClusterQueue``);
    ``Workload`` reads it from each workload, which Kueue copies from its job, onto
    ``kueue_admitted_active_workloads``."""
    tracked_values: list[str] | None = None
    """Kueue 0.19 or newer: the values reported as they are, each once; any other is reported as
    ``kueue.x-k8s.io/_UNTRACKED_VALUE_``. Required for ``Workload`` (1 to 12), at most 16 otherwise (none: any
    value)."""

    @model_validator(mode="after")
    @rule("kueue-manager.one-source", source=_VALIDATION_LABELS_URL)
    def _one_source(self) -> CustomMetricLabel:
        """A custom metric label with at most one source key (a label-key name without one), distinct tracked values
        within the limits, because ``validateCustomLabels`` refuses the manager's config otherwise (these two
        checks are the same in v0.17.8-v0.19.2; 0.19's limit on the number of labels is in
        :func:`require_what_the_minor_accepts`)."""
        if self.source_label_key is not None and self.source_annotation_key is not None:
            allowed = "sourceLabelKey and sourceAnnotationKey are mutually exclusive"
            raise RuleViolation("sourceAnnotationKey", self.source_annotation_key, allowed)
        if self.source_label_key is None and self.source_annotation_key is None and not is_qualified_name(self.name):
            raise RuleViolation(
                "name", self.name, f"without a source key it is read as a label key: {QUALIFIED_NAME_RULE}"
            )
        values = self.tracked_values or []
        require_unique(values, lambda i: key_path("trackedValues", i), "tracked values")
        if self.source_kind == "Workload" and not 1 <= len(values) <= 12:
            allowed = "a Workload label needs 1 to 12 trackedValues (validateCustomLabels, v0.19.2)"
            raise RuleViolation("trackedValues", values, allowed)
        if self.source_kind != "Workload" and len(values) > 16:
            raise RuleViolation(
                "trackedValues", len(values), "at most 16 trackedValues (validateCustomLabels, v0.19.2)"
            )
        return self


class MetricsSettings(ConfigModel):
    """Custom labels on Kueue's metrics and its ClusterQueue quota gauges; the rest of the manager's ``metrics``
    stays the chart's."""

    custom_labels: list[CustomMetricLabel] = Field(default_factory=list)
    """The labels, each name once; they need ``featureGates.CustomMetricLabels: true``."""
    enable_cluster_queue_resources: bool | None = None
    """Report each ClusterQueue's nominal quota, usage and reservations (``kueue_cluster_queue_nominal_quota`` ...),
    which the dashboard's quota panels read; unset is Kueue's off, and a ``monitoring`` section makes it true
    unless written here."""

    @model_validator(mode="after")
    @rule("kueue-manager.each-name-once", source=_VALIDATION_LABELS_URL)
    def _each_name_once(self) -> MetricsSettings:
        """Each custom metric label name once, because Kueue's manager refuses to start with a repeated one."""
        names = [label.name for label in self.custom_labels]
        require_unique(names, lambda i: key_path("customLabels", i, "name"), "custom label names")
        return self


class MultiKueueManagerSettings(ConfigModel):
    """The manager Configuration's ``multiKueue`` block
    (https://kueue.sigs.k8s.io/docs/reference/kueue-config.v1beta2/#MultiKueue); derived from the top-level
    ``multiKueue`` section, never written under ``kueue``."""

    gc_interval: GoDuration
    """``multiKueue.gcInterval``: from ``multiKueue.gcInterval``."""
    origin: str
    """``multiKueue.origin``: from ``multiKueue.origin``."""
    worker_lost_timeout: GoDuration
    """``multiKueue.workerLostTimeout``: from ``multiKueue.workerLostTimeout``."""
    dispatcher_name: str
    """``multiKueue.dispatcherName``: from ``multiKueue.dispatcher``."""


QUOTA_CHECK_STRATEGY = "QuotaCheckStrategy"
WORKLOAD_LABELS_MAX, CUSTOM_LABELS_TOTAL_MAX = 2, 20
"""``maxCustomLabelsPerSourceKind[Workload]`` and ``maxCustomLabels`` of v0.19.2's config validation."""
DISABLE_WAIT_FOR_PODS_READY = "DisableWaitForPodsReady"
"""The gate, new in 0.19, under which the manager skips ``waitForPodsReady`` altogether (``Enabled`` in
https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/util/waitforpodsready/waitforpodsready.go)."""


@rule("kueue-manager.what-the-minor-accepts", source=_VALIDATION_LABELS_URL)
def require_what_the_minor_accepts(kueue: KueueConfig, profile: KueueProfile, gates: Mapping[str, bool]) -> None:
    """The manager-setting rules that differ by minor, read from ``profile`` and the effective ``gates``: raise
    :class:`RuleViolation` with the key relative to the ``kueue`` section.

    - ``validateCustomLabels`` (v0.19.2, :data:`VALIDATION_V0_19_2`) takes at most 6 labels per source kind (2 of
      ``Workload``, 20 in all), ``sourceKind`` and ``trackedValues`` being 0.19's; v0.17.8 and v0.18.6 take any
      number (:attr:`KueueProfile.custom_labels_max`).
    - ``resources.quotaCheckStrategy`` from 0.18, behind its gate ``QuotaCheckStrategy``.
    - ``resources.deviceClassMappings`` and their gates
      (:func:`components.config.kueue.dra.require_what_the_minor_accepts`).
    - A ``waitForPodsReady.timeout`` of 0 stops the manager of 0.17 and 0.18; 0.19 reads it as 30m
      (:func:`warnings` says so).
    - A ``waitForPodsReady`` block is ignored while the minor's ``DisableWaitForPodsReady`` gate is on (a gate of
      0.19 only: earlier gate tables do not know it).
    """
    labels = kueue.metrics.custom_labels if kueue.metrics is not None else []
    most = profile.custom_labels_max
    if most is None:
        for i, label in enumerate(labels):
            for field, value in (("sourceKind", label.source_kind), ("trackedValues", label.tracked_values)):
                if value is not None:
                    allowed = f"it came with Kueue 0.19: the {profile.minor} manager exits on the unknown field"
                    raise RuleViolation(key_path("metrics.customLabels", i, field), value, allowed)
    else:
        limits = {"Workload": WORKLOAD_LABELS_MAX}
        kinds = [label.source_kind or "ClusterQueue" for label in labels]
        for kind in sorted(set(kinds)):
            limit = limits.get(kind, most)
            if kinds.count(kind) > limit:
                allowed = (
                    f"Kueue {profile.minor}'s manager exits with more than {limit} labels of sourceKind {kind} "
                    f"(validateCustomLabels in {VALIDATION_V0_19_2}; unset is ClusterQueue)"
                )
                raise RuleViolation("metrics.customLabels", [label.name for label in labels], allowed)
        if len(labels) > CUSTOM_LABELS_TOTAL_MAX:
            allowed = f"the manager takes at most {CUSTOM_LABELS_TOTAL_MAX} custom labels in all"
            raise RuleViolation("metrics.customLabels", len(labels), allowed)
    strategy = kueue.resources.quota_check_strategy if kueue.resources is not None else None
    if strategy is not None and profile.minor == "0.17":
        allowed = "it came with Kueue 0.18: the 0.17 manager exits on the unknown field"
        raise RuleViolation("resources.quotaCheckStrategy", strategy, allowed)
    if strategy is not None and not gates.get(QUOTA_CHECK_STRATEGY, False):
        allowed = f"Kueue {profile.minor} ignores it unless featureGates.{QUOTA_CHECK_STRATEGY} is true"
        raise RuleViolation("resources.quotaCheckStrategy", strategy, allowed)
    mappings = kueue.resources.device_class_mappings if kueue.resources is not None else None
    kueue_dra.require_what_the_minor_accepts(mappings or [], profile, gates)
    wait = kueue.wait_for_pods_ready
    if wait is not None and wait.timeout_is_zero and profile.wait_for_pods_ready_default is None:
        allowed = (
            f"Kueue {profile.minor}'s manager exits on a 0 timeout (validateWaitForPodsReady: timeout Required value; "
            "only 0.19 reads 0 as its default 30m): write the timeout, e.g. 30m"
        )
        raise RuleViolation("waitForPodsReady.timeout", wait.timeout, allowed)
    if kueue.wait_for_pods_ready is not None and gates.get(DISABLE_WAIT_FOR_PODS_READY, False):
        allowed = (
            f"Kueue {profile.minor} ignores it while featureGates.{DISABLE_WAIT_FOR_PODS_READY} is true: set the gate "
            "false, or drop waitForPodsReady"
        )
        settings = kueue.wait_for_pods_ready.model_dump(by_alias=True, exclude_none=True)
        raise RuleViolation("waitForPodsReady", settings, allowed)


def warnings(kueue: KueueConfig) -> list[tuple[str, str]]:
    """``(key under kueue, message)`` for manager settings Kueue accepts as something other than what they say."""
    wait = kueue.wait_for_pods_ready
    if not kueue.install or wait is None or not wait.timeout_is_zero:
        return []
    default = kueue.profile.wait_for_pods_ready_default
    also = "" if wait.recovery_timeout is not None else ", and the unset recoveryTimeout with it"
    message = (
        f"Kueue {kueue.profile.minor} reads timeout {wait.timeout} as its default {default}{also} "
        "(SetDefaults_Configuration in https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/apis/config/v1beta2/"
        f"defaults.go): write {default} to say so"
    )
    return [("waitForPodsReady.timeout", message)]
