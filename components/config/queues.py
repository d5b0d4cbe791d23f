"""The ``queues`` section: the Kueue objects that turn quota into ProvisioningRequest-gated admission.

Keys mirror the Kueue ``v1beta2`` field names, so a reader of Kueue's docs recognises
every key. The defaults reproduce the seed's ``40-autoscale-queue.yaml`` object for object:
namespace ``cas-kueue-demo``, ResourceFlavor ``scalepool``, ProvisioningRequestConfig ``cas-provreq-config``,
AdmissionCheck ``cas-provisioning``, ClusterQueue ``cas-cluster-queue`` and LocalQueue ``cas-local-queue``. Each
list key replaces its default as a whole, so overriding ``clusterQueues`` alone keeps the seed's flavor, check and
local queue (and the rules below say so when a name no longer resolves).

The rules are the ones Kueue's CRDs (CEL) and webhooks enforce at admission time, checked here so that a bad queue
fails ``pulumi preview`` with the key that is wrong instead of failing ``pulumi up`` halfway through.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, StringConstraints, model_validator

from components.config.base import DNS1123_SUBDOMAIN, ConfigModel, DnsLabel, DnsSubdomain, RuleViolation, key_path
from components.config.kube import LabelKey, Labels, LabelSelector, Quantity, Taint, Toleration, quantity_value

PROVISIONING_CONTROLLER = "kueue.x-k8s.io/provisioning-request"
"""The AdmissionCheck controller that turns a reserved Workload into a ProvisioningRequest."""

BUILTIN_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")
"""Namespaces every cluster already has: the stack cannot create them, and must never delete them."""

ResourceName = LabelKey
"""A resource name such as ``cpu``, ``memory`` or ``nvidia.com/gpu``: a qualified name, like a label key."""
LocalQueueName = Annotated[str, StringConstraints(pattern=DNS1123_SUBDOMAIN, max_length=63)]
"""A LocalQueue name: an object name that Jobs also carry as the ``kueue.x-k8s.io/queue-name`` label value (≤ 63)."""
ParameterValue = Annotated[str, StringConstraints(max_length=255)]
ConfigName = DnsLabel
"""A ProvisioningRequestConfig name: the AdmissionCheck's ``parameters.name`` only accepts a DNS-1123 label."""


def _refuse_v1beta1_keys(data: Any, renamed: dict[str, str]) -> Any:
    """Name the ``v1beta2`` replacement of a key copied from a ``v1beta1`` manifest."""
    if isinstance(data, dict):
        for old, hint in renamed.items():
            if old in data:
                raise RuleViolation(old, data[old], f"it is a Kueue v1beta1 field; {hint}")
    return data


class ResourceFlavorConfig(ConfigModel):
    """A ResourceFlavor: which nodes a quota is for. On AKS, ``agentpool: <pool>`` selects one autoscaling pool."""

    name: DnsSubdomain
    node_labels: Labels = Field(default_factory=dict, max_length=8)
    node_taints: list[Taint] | None = Field(default=None, max_length=8)
    """Taints the flavor's nodes carry; workloads admitted on the flavor must tolerate them."""
    tolerations: list[Toleration] | None = Field(default=None, max_length=8)
    """Tolerations Kueue injects into the pods it admits on the flavor."""


class RetryStrategy(ConfigModel):
    """How often Kueue recreates a failed ProvisioningRequest; unset fields keep Kueue's 3 / 60 s / 1800 s."""

    backoff_limit_count: int | None = Field(default=None, ge=0)
    backoff_base_seconds: int | None = Field(default=None, ge=1)
    backoff_max_seconds: int | None = Field(default=None, ge=1)


class ProvisioningCheckConfig(ConfigModel):
    """One ProvisioningRequest gate: an AdmissionCheck ``name`` plus the ProvisioningRequestConfig ``configName``."""

    name: DnsSubdomain
    config_name: ConfigName
    provisioning_class_name: DnsSubdomain = "best-effort-atomic-scale-up.autoscaling.x-k8s.io"
    """The seed's class: the autoscaler adds all requested nodes in one atomic increase."""
    managed_resources: list[ResourceName] | None = Field(default=None, max_length=100)
    """Only pod sets requesting one of these go into the ProvisioningRequest; unset means every resource."""
    retry_strategy: RetryStrategy | None = None
    parameters: dict[str, Annotated[str, StringConstraints(max_length=255)]] | None = Field(
        default=None, max_length=100
    )

    @model_validator(mode="before")
    @classmethod
    def _no_v1beta1_fields(cls, data: Any) -> Any:
        return _refuse_v1beta1_keys(data, {"retryDelayMinutes": "v1beta2 removed it; use retryStrategy"})


class ResourceQuota(ConfigModel):
    name: ResourceName
    nominal_quota: Quantity
    borrowing_limit: Quantity | None = None
    lending_limit: Quantity | None = None


class FlavorQuotas(ConfigModel):
    name: DnsSubdomain
    resources: list[ResourceQuota] = Field(min_length=1, max_length=64)


class ResourceGroup(ConfigModel):
    """Resources whose quota is assigned together: each flavor lists every covered resource, in the same order."""

    covered_resources: list[ResourceName] = Field(min_length=1, max_length=64)
    flavors: list[FlavorQuotas] = Field(min_length=1, max_length=64)

    @model_validator(mode="after")
    def _flavors_list_the_covered_resources(self) -> ResourceGroup:
        """Kueue's CRD counts the resources; its webhook then matches them to ``coveredResources`` by position."""
        for i, flavor in enumerate(self.flavors):
            names = [resource.name for resource in flavor.resources]
            if len(names) != len(self.covered_resources):
                allowed = f"list exactly the covered resources {self.covered_resources}"
                raise RuleViolation(key_path("flavors", i, "resources"), names, allowed)
            for j, (name, covered) in enumerate(zip(names, self.covered_resources, strict=True)):
                if name != covered:
                    allowed = f"resources follow coveredResources in order; position {j} is {covered!r}"
                    raise RuleViolation(key_path("flavors", i, "resources", j, "name"), name, allowed)
        return self


def _check_resource_groups(groups: list[ResourceGroup], parent_key: str, parent_name: str | None) -> None:
    """Rules shared by ClusterQueues and Cohorts: unique resources and flavors, limits only below a parent cohort."""
    seen_resources: set[str] = set()
    seen_flavors: set[str] = set()
    for g, group in enumerate(groups):
        for r, resource in enumerate(group.covered_resources):
            if resource in seen_resources:
                key = key_path("resourceGroups", g, "coveredResources", r)
                raise RuleViolation(key, resource, "each resource belongs to one resource group")
            seen_resources.add(resource)
        for f, flavor in enumerate(group.flavors):
            if flavor.name in seen_flavors:
                key = key_path("resourceGroups", g, "flavors", f, "name")
                raise RuleViolation(key, flavor.name, "each flavor appears in one resource group")
            seen_flavors.add(flavor.name)
            for r, quota in enumerate(flavor.resources):
                for field, limit in (("borrowingLimit", quota.borrowing_limit), ("lendingLimit", quota.lending_limit)):
                    if limit is not None and parent_name is None:
                        key = key_path("resourceGroups", g, "flavors", f, "resources", r, field)
                        raise RuleViolation(key, limit, f"limits only apply within a cohort: set {parent_key}")


class BorrowWithinCohort(ConfigModel):
    policy: Literal["Never", "LowerPriority"] | None = None
    max_priority_threshold: int | None = None


class Preemption(ConfigModel):
    """Which workloads a pending workload may preempt; unset fields keep Kueue's ``Never``."""

    reclaim_within_cohort: Literal["Never", "LowerPriority", "Any"] | None = None
    within_cluster_queue: Literal["Never", "LowerPriority", "LowerOrNewerEqualPriority"] | None = None
    borrow_within_cohort: BorrowWithinCohort | None = None

    @model_validator(mode="after")
    def _borrowing_preemption_needs_reclaim(self) -> Preemption:
        """The ClusterQueue CRD's CEL rule, with Kueue's defaults applied to unset fields."""
        borrow_policy = self.borrow_within_cohort.policy if self.borrow_within_cohort else None
        if (self.reclaim_within_cohort or "Never") == "Never" and (borrow_policy or "Never") != "Never":
            allowed = "preempting to borrow needs reclaimWithinCohort other than Never"
            raise RuleViolation("borrowWithinCohort.policy", borrow_policy, allowed)
        return self


class FlavorFungibility(ConfigModel):
    """Whether Kueue tries the next flavor before borrowing or preempting."""

    when_can_borrow: Literal["MayStopSearch", "TryNextFlavor"] | None = None
    when_can_preempt: Literal["MayStopSearch", "TryNextFlavor"] | None = None
    preference: Literal["BorrowingOverPreemption", "PreemptionOverBorrowing"] | None = None

    @model_validator(mode="after")
    def _preference_needs_try_next_flavor(self) -> FlavorFungibility:
        """The CRD's CEL rule, with Kueue's defaults (MayStopSearch / TryNextFlavor) applied to unset fields."""
        borrow = self.when_can_borrow or "MayStopSearch"
        preempt = self.when_can_preempt or "TryNextFlavor"
        if self.preference is not None and (borrow, preempt) != ("TryNextFlavor", "TryNextFlavor"):
            allowed = "preference needs whenCanBorrow and whenCanPreempt both TryNextFlavor"
            raise RuleViolation("preference", self.preference, allowed)
        return self


class AdmissionCheckRef(ConfigModel):
    name: DnsSubdomain
    on_flavors: list[DnsSubdomain] | None = Field(default=None, max_length=64)
    """The flavors the check gates; unset gates every flavor of the queue."""


class AdmissionChecksStrategy(ConfigModel):
    admission_checks: list[AdmissionCheckRef] = Field(min_length=1, max_length=64)

    @model_validator(mode="after")
    def _each_check_once(self) -> AdmissionChecksStrategy:
        names = [check.name for check in self.admission_checks]
        for i, name in enumerate(names):
            if name in names[:i]:
                raise RuleViolation(key_path("admissionChecks", i, "name"), name, "list each admission check once")
        return self


class CohortConfig(ConfigModel):
    """An explicit Cohort: a parent for cohort trees, or quota that the ClusterQueues in it share."""

    name: DnsSubdomain
    parent_name: DnsSubdomain | None = None
    resource_groups: list[ResourceGroup] | None = Field(default=None, max_length=16)

    @model_validator(mode="after")
    def _resource_group_rules(self) -> CohortConfig:
        _check_resource_groups(self.resource_groups or [], "parentName", self.parent_name)
        return self


class ClusterQueueConfig(ConfigModel):
    """A ClusterQueue: the quota per flavor and the admission checks every admitted workload passes first."""

    name: DnsSubdomain
    namespace_selector: LabelSelector = LabelSelector()
    """``{}`` admits from every namespace, as the seed does; Kueue reads an absent selector as *no* namespace."""
    queueing_strategy: Literal["StrictFIFO", "BestEffortFIFO"] = "BestEffortFIFO"
    """The seed's strategy: a workload that does not fit does not block smaller ones behind it."""
    cohort_name: DnsSubdomain | None = None
    preemption: Preemption | None = None
    flavor_fungibility: FlavorFungibility | None = None
    resource_groups: list[ResourceGroup] = Field(min_length=1, max_length=16)
    admission_checks_strategy: AdmissionChecksStrategy | None = None

    @model_validator(mode="before")
    @classmethod
    def _no_v1beta1_fields(cls, data: Any) -> Any:
        return _refuse_v1beta1_keys(
            data,
            {
                "cohort": "v1beta2 renamed it cohortName",
                "admissionChecks": "v1beta2 moved it to admissionChecksStrategy.admissionChecks[{name, onFlavors}]",
            },
        )

    @model_validator(mode="after")
    def _resource_group_rules(self) -> ClusterQueueConfig:
        _check_resource_groups(self.resource_groups, "cohortName", self.cohort_name)
        for g, group in enumerate(self.resource_groups):
            for f, flavor in enumerate(group.flavors):
                for r, quota in enumerate(flavor.resources):
                    lending = quota.lending_limit
                    if lending is not None and quantity_value(lending) > quantity_value(quota.nominal_quota):
                        key = key_path("resourceGroups", g, "flavors", f, "resources", r, "lendingLimit")
                        raise RuleViolation(key, lending, f"it cannot exceed nominalQuota {quota.nominal_quota}")
        return self

    @property
    def flavor_names(self) -> list[str]:
        return [flavor.name for group in self.resource_groups for flavor in group.flavors]

    def covered_resources(self, flavors: list[str] | None) -> set[str]:
        """Resources of the groups holding ``flavors`` (every group when ``None``): what a check on them can see."""
        return {
            resource
            for group in self.resource_groups
            if flavors is None or any(flavor.name in flavors for flavor in group.flavors)
            for resource in group.covered_resources
        }


class LocalQueueConfig(ConfigModel):
    """A LocalQueue: the namespaced name Jobs put in their ``kueue.x-k8s.io/queue-name`` label."""

    name: LocalQueueName
    namespace: DnsLabel
    cluster_queue: DnsSubdomain


SEED_NAMESPACE = "cas-kueue-demo"
"""The seed's manifest creates its own namespace rather than reusing the Ray modules' ``ray``."""

SEED_RESOURCE_FLAVOR = ResourceFlavorConfig(name="scalepool", node_labels={"agentpool": "scalepool"})
"""Nodes AKS labels ``agentpool=scalepool``: exactly the autoscaling pool the seed adds."""

SEED_PROVISIONING_CHECK = ProvisioningCheckConfig(
    name="cas-provisioning", config_name="cas-provreq-config", managed_resources=["cpu"]
)
"""The seed's gate: pod sets requesting CPU go into one atomic ProvisioningRequest before admission."""

SEED_CLUSTER_QUEUE = ClusterQueueConfig(
    name="cas-cluster-queue",
    resource_groups=[
        ResourceGroup(
            covered_resources=["cpu", "memory"],
            flavors=[
                FlavorQuotas(
                    name="scalepool",
                    resources=[
                        ResourceQuota(name="cpu", nominal_quota="100"),
                        ResourceQuota(name="memory", nominal_quota="200Gi"),
                    ],
                )
            ],
        )
    ],
    admission_checks_strategy=AdmissionChecksStrategy(
        admission_checks=[AdmissionCheckRef(name="cas-provisioning", on_flavors=["scalepool"])]
    ),
)
"""Quota set generously, as the seed explains, so the pool's ``maxCount`` rather than Kueue caps the scale-up."""

SEED_LOCAL_QUEUE = LocalQueueConfig(name="cas-local-queue", namespace=SEED_NAMESPACE, cluster_queue="cas-cluster-queue")


class WaitUntilActiveConfig(ConfigModel):
    """How ``pulumi up`` proves the queues can admit: it waits until Kueue reports every AdmissionCheck and
    ClusterQueue ``Active``."""

    timeout_seconds: int = Field(default=600, ge=30, le=3600)
    """How long to wait; Kueue marks a reconciled object Active within seconds."""
    on_inactive: Literal["fail", "warn"] = "fail"
    """``warn`` finishes ``up`` with a warning that names the inactive objects, and skips the readiness gate's
    ProvisioningRequest CRD check, for a cluster whose autoscaler will only serve ProvisioningRequests later; Jobs in
    those queues wait until then."""


class QueuesConfig(ConfigModel):
    """Every Kueue object the stack creates; the defaults are the seed's autoscale queue."""

    namespaces: list[DnsLabel] = Field(default_factory=lambda: [SEED_NAMESPACE])
    """Namespaces the stack creates for its LocalQueues."""
    resource_flavors: list[ResourceFlavorConfig] = Field(default_factory=lambda: [SEED_RESOURCE_FLAVOR])
    provisioning_checks: list[ProvisioningCheckConfig] = Field(default_factory=lambda: [SEED_PROVISIONING_CHECK])
    cohorts: list[CohortConfig] = Field(default_factory=list)
    """Explicit Cohorts; ClusterQueues naming a cohort without one still share quota (Kueue creates it implicitly)."""
    cluster_queues: list[ClusterQueueConfig] = Field(default_factory=lambda: [SEED_CLUSTER_QUEUE])
    local_queues: list[LocalQueueConfig] = Field(default_factory=lambda: [SEED_LOCAL_QUEUE])
    wait_until_active: WaitUntilActiveConfig = WaitUntilActiveConfig()

    @property
    def uses_provisioning_requests(self) -> bool:
        """Whether any ProvisioningRequest admission check is configured (Kueue then needs the CRD at start-up)."""
        return bool(self.provisioning_checks)

    @model_validator(mode="after")
    def _namespaces_are_new(self) -> QueuesConfig:
        for i, namespace in enumerate(self.namespaces):
            if namespace in BUILTIN_NAMESPACES:
                allowed = f"the stack creates (and on destroy deletes) its namespaces; not one of {BUILTIN_NAMESPACES}"
                raise RuleViolation(key_path("namespaces", i), namespace, allowed)
        return self

    @model_validator(mode="after")
    def _names_are_unique(self) -> QueuesConfig:
        kinds: list[tuple[str, str | None, list[str]]] = [
            ("namespaces", None, self.namespaces),
            ("resourceFlavors", "name", [f.name for f in self.resource_flavors]),
            ("provisioningChecks", "name", [c.name for c in self.provisioning_checks]),
            ("provisioningChecks", "configName", [c.config_name for c in self.provisioning_checks]),
            ("cohorts", "name", [c.name for c in self.cohorts]),
            ("clusterQueues", "name", [q.name for q in self.cluster_queues]),
            ("localQueues", "name", [f"{q.namespace}/{q.name}" for q in self.local_queues]),
        ]
        for section, field, names in kinds:
            for i, name in enumerate(names):
                if name in names[:i]:
                    raise RuleViolation(key_path(section, i, field or ""), name, f"it is already used in {section}")
        return self

    @model_validator(mode="after")
    def _flavors_are_configured(self) -> QueuesConfig:
        flavors = [flavor.name for flavor in self.resource_flavors]
        owners = [("cohorts", i, c.resource_groups or []) for i, c in enumerate(self.cohorts)]
        owners += [("clusterQueues", i, q.resource_groups) for i, q in enumerate(self.cluster_queues)]
        for section, i, groups in owners:
            for g, group in enumerate(groups):
                for f, flavor in enumerate(group.flavors):
                    if flavor.name not in flavors:
                        key = key_path(section, i, "resourceGroups", g, "flavors", f, "name")
                        raise RuleViolation(key, flavor.name, f"it must be one of resourceFlavors {flavors}")
        return self

    @model_validator(mode="after")
    def _admission_checks_resolve(self) -> QueuesConfig:
        checks = [check.name for check in self.provisioning_checks]
        for i, queue in enumerate(self.cluster_queues):
            strategy = queue.admission_checks_strategy
            for c, ref in enumerate(strategy.admission_checks if strategy else []):
                key = key_path("clusterQueues", i, "admissionChecksStrategy", "admissionChecks", c)
                if ref.name not in checks:
                    raise RuleViolation(
                        key_path(key, "name"), ref.name, f"it must be one of provisioningChecks {checks}"
                    )
                for o, flavor in enumerate(ref.on_flavors or []):
                    if flavor not in queue.flavor_names:
                        allowed = f"since Kueue 0.17.1 it must be a flavor of this queue {queue.flavor_names}"
                        raise RuleViolation(key_path(key, "onFlavors", o), flavor, allowed)
        return self

    @model_validator(mode="after")
    def _local_queues_resolve(self) -> QueuesConfig:
        queues = [queue.name for queue in self.cluster_queues]
        for i, local in enumerate(self.local_queues):
            if local.cluster_queue not in queues:
                key = key_path("localQueues", i, "clusterQueue")
                raise RuleViolation(key, local.cluster_queue, f"it must be one of clusterQueues {queues}")
            if local.namespace not in self.namespaces:
                key = key_path("localQueues", i, "namespace")
                raise RuleViolation(key, local.namespace, f"it must be one of namespaces {self.namespaces}")
        return self

    @model_validator(mode="after")
    def _cohort_tree_has_no_cycle(self) -> QueuesConfig:
        parents = {cohort.name: cohort.parent_name for cohort in self.cohorts}
        for i, cohort in enumerate(self.cohorts):
            seen, current = {cohort.name}, cohort.parent_name
            while current in parents:
                if current in seen:
                    raise RuleViolation(key_path("cohorts", i, "parentName"), cohort.parent_name, "cohorts form a tree")
                seen.add(current)
                current = parents[current]
        return self

    @model_validator(mode="after")
    def _managed_resources_are_covered(self) -> QueuesConfig:
        """A managed resource no gated flavor covers never reaches a ProvisioningRequest: the gate would be a no-op."""
        for c, check in enumerate(self.provisioning_checks):
            for queue in self.cluster_queues:
                strategy = queue.admission_checks_strategy
                for ref in strategy.admission_checks if strategy else []:
                    if ref.name != check.name:
                        continue
                    covered = queue.covered_resources(ref.on_flavors)
                    for r, resource in enumerate(check.managed_resources or []):
                        if resource not in covered:
                            allowed = f"ClusterQueue {queue.name!r} gates flavors covering only {sorted(covered)}"
                            raise RuleViolation(
                                key_path("provisioningChecks", c, "managedResources", r), resource, allowed
                            )
        return self
