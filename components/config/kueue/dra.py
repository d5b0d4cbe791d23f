"""Dynamic resource allocation in the Kueue manager: ``resources.deviceClassMappings`` and the gates it needs.

A mapping gives the DeviceClasses of ResourceClaims a resource name that ClusterQueues hold quota of
(https://kueue.sigs.k8s.io/docs/tasks/manage/setup_dra/): ``example.com/gpu`` counts devices, a ``counter`` source
counts a partitionable device's counter (``gpu.memory``), a ``capacity`` source a shareable device's capacity. The
manager checks the mappings when it starts (``validateDeviceClassMappings`` in
https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/config/validation.go) and exits on a bad one, so its rules
are checked here, each naming its key under ``kueue.resources``. What differs by minor
(:func:`require_what_the_minor_accepts`): ``sources`` came with 0.18 (0.17 decodes the Configuration strictly and
exits on the unknown field), counters need ``KueueDRAIntegrationPartitionableDevices`` (alpha and off in 0.18, beta
and on in 0.19) and capacities ``KueueDRAIntegrationConsumableCapacity`` (0.19, alpha, off); the mappings themselves
are read only with DRA on: ``DynamicResourceAllocation`` in 0.17 (alpha, off), ``KueueDRAIntegration`` from 0.18
(beta, on), else the manager ignores them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated

from pydantic import Field, StringConstraints, model_validator

from components.config.base import DNS1123_LABEL, DNS1123_SUBDOMAIN, ConfigModel, RuleViolation, key_path, matching
from components.config.kube import LabelKey
from components.config.rules import rule

_VALIDATION_DRA_URL = "https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/config/validation.go#L476"

if TYPE_CHECKING:
    from components.config.kueue.profiles import KueueProfile

DRA_GATES = {"0.17": "DynamicResourceAllocation"}
"""The gate without which the manager ignores ``deviceClassMappings``, by minor; ``KueueDRAIntegration`` otherwise
(https://github.com/kubernetes-sigs/kueue/blob/v0.18.6/pkg/features/kube_features.go deprecates and locks the 0.17
gate)."""
DEFAULT_DRA_GATE = "KueueDRAIntegration"
COUNTER_GATE = "KueueDRAIntegrationPartitionableDevices"
CAPACITY_GATE = "KueueDRAIntegrationConsumableCapacity"
DRA_DOCS = "https://kueue.sigs.k8s.io/docs/tasks/manage/setup_dra/"

DriverName = Annotated[str, StringConstraints(pattern=DNS1123_SUBDOMAIN, max_length=63)]
"""A DRA driver name as ResourceSlices' ``spec.driver`` holds it: a lowercase DNS subdomain of at most 63."""
CapacityName = Annotated[
    str,
    matching(
        r"([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[a-z0-9]([-a-z0-9_]*[a-z0-9])?",
        "a DRA qualified name: an optional DNS subdomain and /, then a C identifier-like name (gpu.example.com/memory)",
    ),
]
"""A DRA ``QualifiedName`` (``resourcev1.QualifiedName``): a capacity dimension such as ``gpu.example.com/memory``."""


class CelSelector(ConfigModel):
    """A CEL expression over a device (``resourcev1.CELDeviceSelector``)."""

    expression: str = Field(min_length=1, max_length=10240)
    """E.g. ``device.driver == 'gpu.example.com'``; the manager compiles it at start (at most 10 KiB: DRA's limit)."""


class DeviceSelector(ConfigModel):
    """Which devices a source counts (``resourcev1.DeviceSelector``)."""

    cel: CelSelector
    """The CEL selector: the only kind DRA has."""


class CounterSource(ConfigModel):
    """Quota in a partitionable device's counter: what a device's ``consumesCounters`` take of it."""

    name: Annotated[str, StringConstraints(pattern=DNS1123_LABEL, max_length=63)]
    """The counter's name in the driver's ResourceSlices (``memory``): a DNS label."""
    driver: DriverName
    """The DRA driver whose ResourceSlices are read."""
    device_selector: DeviceSelector
    """The devices whose counters count, typically one GPU model."""


class CapacitySource(ConfigModel):
    """Quota in a shareable device's capacity dimension (KEP-5075 consumable capacity)."""

    name: CapacityName
    """The capacity dimension (``gpu.example.com/memory``)."""
    driver: DriverName
    """The DRA driver whose ResourceSlices are read."""
    device_selector: DeviceSelector
    """The devices whose capacity counts; only shareable ones."""


class DeviceClassSource(ConfigModel):
    """One accounting source of a mapping: a counter or a capacity, exactly one."""

    counter: CounterSource | None = None
    """Counter-based quota (needs ``featureGates.KueueDRAIntegrationPartitionableDevices``, on by default in 0.19)."""
    capacity: CapacitySource | None = None
    """Capacity-based quota (Kueue 0.19, needs ``featureGates.KueueDRAIntegrationConsumableCapacity: true``)."""

    @model_validator(mode="after")
    @rule("kueue-dra.one-source-type", source=_VALIDATION_DRA_URL)
    def _one_source_type(self) -> DeviceClassSource:
        """A device-class source with exactly one of ``counter`` and ``capacity``, because
        ``validateDeviceClassMappings`` refuses any other: "exactly one source type must be set per entry" (v0.18.6,
        v0.19.2)."""
        if (self.counter is None) == (self.capacity is None):
            given = [name for name in ("counter", "capacity") if getattr(self, name) is not None]
            raise RuleViolation("", given, "exactly one of counter and capacity per source")
        return self


class DeviceClassMapping(ConfigModel):
    """DeviceClasses counted as one resource of ClusterQueue quota.

    https://kueue.sigs.k8s.io/docs/reference/kueue-config.v1beta2/#DeviceClassMapping
    """

    name: LabelKey
    """The resource name ClusterQueues hold quota of (``example.com/gpu``, ``gpu.memory``): a qualified name."""
    device_class_names: list[LabelKey] = Field(min_length=1, max_length=8)
    """The DeviceClasses it stands for, each once (1..8)."""
    sources: list[DeviceClassSource] | None = None
    """How quota is counted: unset counts devices; counter or capacity sources (not both) count those instead (Kueue
    0.18 or newer)."""

    @model_validator(mode="after")
    @rule("kueue-dra.mapping-rules", source=_VALIDATION_DRA_URL)
    def _mapping_rules(self) -> DeviceClassMapping:
        """Each device class once per mapping and no mapping mixing counter and capacity sources, because
        ``validateDeviceClassMappings`` refuses them (same in v0.17.8-v0.19.2 for names and classes; sources from
        0.18)."""
        seen: set[str] = set()
        for i, name in enumerate(self.device_class_names):
            if name in seen:
                raise RuleViolation(key_path("deviceClassNames", i), name, "each device class once per mapping")
            seen.add(name)
        sources = self.sources or []
        if any(s.counter for s in sources) and any(s.capacity for s in sources):
            raise RuleViolation("sources", len(sources), "a mapping cannot mix counter and capacity sources")
        return self

    @property
    def counter_names(self) -> set[str]:
        return {source.counter.name for source in self.sources or [] if source.counter is not None}


@rule("kueue-dra.mappings-apart", source=_VALIDATION_DRA_URL)
def require_mappings_apart(mappings: list[DeviceClassMapping]) -> None:
    """At most 16 mappings, each name once, and a device class in one mapping only, unless every mapping holding it
    counts a different counter (``validateDeviceClassMappings`` in v0.19.2: "device class already mapped to
    resource"; the counter exception is 0.18's and 0.19's). Keys are relative to ``resources``."""
    if len(mappings) > 16:
        raise RuleViolation("deviceClassMappings", len(mappings), "the manager takes at most 16 mappings")
    names: set[str] = set()
    held: dict[str, tuple[str, set[str]]] = {}
    for m, mapping in enumerate(mappings):
        key = key_path("deviceClassMappings", m)
        if mapping.name in names:
            raise RuleViolation(key_path(key, "name"), mapping.name, "each mapping's name once")
        names.add(mapping.name)
        counters = mapping.counter_names
        for d, device_class in enumerate(mapping.device_class_names):
            if device_class not in held:
                held[device_class] = (mapping.name, set(counters))
                continue
            other, other_counters = held[device_class]
            if not counters or not other_counters or counters & other_counters:
                allowed = (
                    f"it is already mapped to {other}; a device class is in two mappings only when each counts a "
                    "different counter"
                )
                raise RuleViolation(key_path(key, "deviceClassNames", d), device_class, allowed)
            other_counters |= counters


def dra_gate(profile: KueueProfile) -> str:
    """The gate the minor reads ``deviceClassMappings`` under."""
    return DRA_GATES.get(profile.minor, DEFAULT_DRA_GATE)


@rule("kueue-dra.what-the-minor-accepts", source=DRA_DOCS)
def require_what_the_minor_accepts(
    mappings: list[DeviceClassMapping], profile: KueueProfile, gates: Mapping[str, bool]
) -> None:
    """Device-class mappings only with the minor's DRA gate on, sources only from 0.18 and each kind of source
    with its gate, because the manager ignores the mappings or exits at start otherwise (module docstring).

    Keys are relative to the ``kueue`` section."""
    if not mappings:
        return
    base = key_path("resources", "deviceClassMappings")
    gate = dra_gate(profile)
    if not gates.get(gate, False):
        allowed = f"Kueue {profile.minor} ignores it unless featureGates.{gate} is true ({DRA_DOCS})"
        raise RuleViolation(base, [mapping.name for mapping in mappings], allowed)
    for m, mapping in enumerate(mappings):
        for s, source in enumerate(mapping.sources or []):
            key = key_path(base, m, "sources", s)
            if profile.minor == "0.17":
                allowed = "sources came with Kueue 0.18: the 0.17 manager exits on the unknown field"
                raise RuleViolation(key_path(base, m, "sources"), len(mapping.sources or []), allowed)
            if source.counter is not None and not gates.get(COUNTER_GATE, False):
                allowed = f"Kueue {profile.minor}'s manager exits on it unless featureGates.{COUNTER_GATE} is true"
                raise RuleViolation(key_path(key, "counter"), source.counter.name, allowed)
            if source.capacity is not None and not gates.get(CAPACITY_GATE, False):
                allowed = f"the manager exits on it unless featureGates.{CAPACITY_GATE} is true"
                if CAPACITY_GATE not in profile.gates.known:
                    allowed = "capacity sources came with Kueue 0.19 (its KueueDRAIntegrationConsumableCapacity gate)"
                raise RuleViolation(key_path(key, "capacity"), source.capacity.name, allowed)
