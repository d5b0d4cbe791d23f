"""Kueue manager settings that queue objects depend on: fair sharing, admission fair sharing, resource transformations.

They go into the manager's Configuration (``config.kueue.x-k8s.io/v1beta2``,
https://kueue.sigs.k8s.io/docs/reference/kueue-config.v1beta2/). Kueue validates it only when the manager starts
(https://github.com/kubernetes-sigs/kueue/blob/v0.17.8/pkg/config/validation.go): a bad value is a crash-looping
manager after ``helm upgrade``, not an error at apply time, so every rule of that file for these keys is checked here.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Annotated, Literal

from pydantic import Field, model_validator

from components.config.base import ConfigModel, RuleViolation, key_path, matching, require_unique
from components.config.kube import Quantity
from components.config.queues_quota import ResourceName

PreemptionStrategy = Literal["LessThanOrEqualToFinalShare", "LessThanInitialShare"]
VALID_STRATEGY_SETS: tuple[tuple[str, ...], ...] = (
    ("LessThanOrEqualToFinalShare",),
    ("LessThanInitialShare",),
    ("LessThanOrEqualToFinalShare", "LessThanInitialShare"),
)
"""``validStrategySets`` of ``validateFairSharing`` in the manager's config validation."""

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
    def _a_valid_strategy_set(self) -> FairSharingSettings:
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
    def _positive_interval_and_weights(self) -> AdmissionFairSharingSettings:
        """``validateAdmissionFairSharing`` in the manager's config validation."""
        interval = self.usage_sampling_interval
        if interval is not None and duration_seconds(interval) <= 0:
            raise RuleViolation("usageSamplingInterval", interval, "it must be greater than 0")
        for resource, weight in (self.resource_weights or {}).items():
            if weight < 0:
                raise RuleViolation(key_path("resourceWeights", resource), weight, "weights are never negative")
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

    exclude_resource_prefixes: list[str] | None = None
    """Resources whose name starts with one of these are not counted against quota."""
    transformations: list[ResourceTransformation] | None = None
    """Transformations, at most one per input resource."""

    @model_validator(mode="after")
    def _one_transformation_per_input(self) -> ResourcesSettings:
        """``validateResourceTransformations`` in the manager's config validation."""
        inputs = [t.input for t in self.transformations or []]
        require_unique(inputs, lambda i: key_path("transformations", i, "input"), "transformation inputs")
        return self
