"""The Kueue objects of the ``queues`` section, one model per kind, each with the rules Kueue checks on it alone.

Keys mirror the Kueue ``v1beta2`` API (https://kueue.sigs.k8s.io/docs/reference/kueue.v1beta2/), so a reader of
Kueue's docs recognises every key and the manifest builders are plain dumps. Each rule below names where Kueue
enforces it at admission time: a CEL rule (``x-kubernetes-validations``) or a schema limit of the Kueue CRD, or
Kueue's validating webhook. Checking them here makes a bad queue fail ``pulumi preview`` with the key that is wrong
instead of failing ``pulumi up`` halfway through, and a Kueue upgrade becomes a diff of those CRDs and webhooks
against the rules cited here. Every rule below is the same in v0.17.8, v0.18.6 and v0.19.2 (0.18 adds only the alpha
ClusterQueue ``concurrentAdmissionPolicy`` and its webhook checks, which apply from 0.18 on, the field being refused
below 0.18 by :mod:`components.config.kueue.rules`), so the links are to v0.19.2 and the rules need no Kueue
version:

- ResourceFlavor CRD: https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/config/components/crd/bases/kueue.x-k8s.io_resourceflavors.yaml
- ProvisioningRequestConfig CRD: https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/config/components/crd/bases/kueue.x-k8s.io_provisioningrequestconfigs.yaml
- AdmissionCheck CRD: https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/config/components/crd/bases/kueue.x-k8s.io_admissionchecks.yaml
- ClusterQueue CRD: https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/config/components/crd/bases/kueue.x-k8s.io_clusterqueues.yaml
- Cohort CRD: https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/config/components/crd/bases/kueue.x-k8s.io_cohorts.yaml
- LocalQueue CRD: https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/config/components/crd/bases/kueue.x-k8s.io_localqueues.yaml
- ClusterQueue and Cohort webhooks: https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/webhooks/clusterqueue_webhook.go
  and https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/webhooks/cohort_webhook.go

The ResourceFlavor CRD's CEL rules on taints and tolerations live with :class:`~components.config.kube.Toleration`
and :data:`~components.config.kube.TaintEffect`; the resource groups ClusterQueues and Cohorts both hold, with their
rules, are in :mod:`components.config.queues.quota`. Rules between objects (names resolve, names are unique) are in
:mod:`components.config.queues.rules`.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import AwareDatetime, Field, StringConstraints, field_serializer, model_validator

from components.config.base import (
    DNS1123_SUBDOMAIN,
    ConfigModel,
    DnsLabel,
    DnsSubdomain,
    Int32,
    RuleViolation,
    key_path,
    refuse_renamed_keys,
    require_unique,
)
from components.config.kube import (
    HOSTNAME_LABEL,
    LabelKey,
    Labels,
    LabelSelector,
    Quantity,
    Taint,
    Toleration,
    quantity_value,
)
from components.config.queues.policies import AdmissionScope, ConcurrentAdmissionPolicy, FlavorFungibility, Preemption
from components.config.queues.quota import (
    ResourceGroup,
    require_groups_apart,
    require_limits_within_a_cohort,
    require_totals,
)
from components.config.rules import rule

_CQ_CRD_URL = "https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/config/components/crd/bases/kueue.x-k8s.io_clusterqueues.yaml"
_CQ_TYPES_URL = "https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/apis/kueue/v1beta2/clusterqueue_types.go#L91"
_FAIRSHARING_TYPES_URL = (
    "https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/apis/kueue/v1beta2/fairsharing_types.go#L36"
)
_V1BETA2_REF_URL = "https://kueue.sigs.k8s.io/docs/reference/kueue.v1beta2/"

LocalQueueName = Annotated[str, StringConstraints(pattern=DNS1123_SUBDOMAIN, max_length=63)]
"""A LocalQueue name: an object name that Jobs also carry as the ``kueue.x-k8s.io/queue-name`` label value (≤ 63)."""
StopPolicy = Literal["None", "Hold", "HoldAndDrain"]
"""``Hold`` stops admitting new workloads; ``HoldAndDrain`` also evicts the admitted ones; ``None`` (Kueue's
default) admits."""


@rule("queues-objects.v1beta1-keys", source=_V1BETA2_REF_URL)
def _v1beta1_keys(data: Any, renamed: dict[str, str]) -> Any:
    """No key of Kueue's v1beta1 API, because the objects are written as v1beta2, which renamed or moved it."""
    return refuse_renamed_keys(data, {old: f"it is a Kueue v1beta1 field; {hint}" for old, hint in renamed.items()})


class Labelled(ConfigModel):
    """A queue object that may carry labels: what Kueue's custom metric labels read, and what policy tools select."""

    labels: Labels | None = None
    """Labels on the object's metadata."""


class FairSharing(ConfigModel):
    """A queue's or cohort's share under fair sharing: the weight it competes for unused quota with.

    https://kueue.sigs.k8s.io/docs/reference/kueue.v1beta2/#kueue-x-k8s-io-v1beta2-FairSharing
    """

    weight: Quantity | None = None
    """The weight (a quantity, Kueue's default 1); 0 means the object borrows only what nobody else wants. Between 0
    and 1n it is refused (``validateFairSharing`` in
    https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/webhooks/common.go: it would collapse to 0; same in
    v0.17.8-v0.19.2)."""

    @model_validator(mode="after")
    @rule("queues-objects.weight-does-not-collapse", source=_FAIRSHARING_TYPES_URL)
    def _weight_does_not_collapse(self) -> FairSharing:
        """A fair-sharing weight of 0 or above 1n, because Kueue refuses a positive weight of 10^-9 or less."""
        if self.weight is not None and 0 < quantity_value(self.weight) <= quantity_value("1n"):
            raise RuleViolation("weight", self.weight, "when not 0, the weight must be above 1n (10e-9)")
        return self


class TopologyLevel(ConfigModel):
    """One level of a topology: the node label whose value names the domain at that level."""

    node_label: LabelKey
    """The node label, e.g. ``cloud.provider.com/topology-rack`` or ``kubernetes.io/hostname``."""


class TopologyConfig(ConfigModel):
    """A Topology: the node labels, broadest first, that topology-aware scheduling packs pods by.

    https://kueue.sigs.k8s.io/docs/reference/kueue.v1beta2/#kueue-x-k8s-io-v1beta2-TopologySpec
    """

    name: DnsSubdomain
    """The Topology's name, which ResourceFlavors name in ``topologyName``."""
    levels: list[TopologyLevel] = Field(min_length=1, max_length=16)
    """The levels, broadest first (1..16: the CRD's limits)."""

    @model_validator(mode="after")
    @rule("queues-objects.levels-rules")
    def _levels_rules(self) -> TopologyConfig:
        """CEL on Topology ``spec.levels`` ("must be unique"; "the kubernetes.io/hostname label can only be used at
        the lowest level of topology",
        https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/config/components/crd/bases/kueue.x-k8s.io_topologies.yaml,
        same in v0.17.8-v0.19.2)."""
        labels = [level.node_label for level in self.levels]
        require_unique(labels, lambda i: key_path("levels", i, "nodeLabel"), "topology levels")
        for i, label in enumerate(labels[:-1]):
            if label == HOSTNAME_LABEL:
                raise RuleViolation(key_path("levels", i, "nodeLabel"), label, "it can only be the lowest level")
        return self


class WorkloadPriorityClassConfig(ConfigModel):
    """A WorkloadPriorityClass: a priority for workloads that is Kueue's alone, apart from pod priority.

    https://kueue.sigs.k8s.io/docs/reference/kueue.v1beta2/#kueue-x-k8s-io-v1beta2-WorkloadPriorityClass
    """

    name: DnsSubdomain
    """The class's name, which Jobs carry in the ``kueue.x-k8s.io/priority-class`` label."""
    value: Int32
    """The priority: higher is admitted first and may preempt lower (an int32: the CRD's format)."""
    description: str | None = Field(default=None, max_length=2048)
    """What the class is for (at most 2048 characters: the CRD's limit)."""


class FlavorTaint(Taint):
    """A taint of a ResourceFlavor's nodes: the core ``Taint`` with the time it was added, which the CRD keeps.

    https://kubernetes.io/docs/reference/kubernetes-api/cluster-resources/node-v1/#NodeSpec
    """

    time_added: AwareDatetime | None = None
    """When the taint was added, an RFC 3339 time with its zone (``2025-01-02T03:04:05Z``, the CRD's
    ``format: date-time``); written in UTC to the second, as Kubernetes' ``metav1.Time`` writes it. Kueue copies it
    and reads no time from it."""

    @field_serializer("time_added")
    def _rfc3339(self, value: datetime | None) -> str | None:
        return None if value is None else value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class ResourceFlavorConfig(ConfigModel):
    """A ResourceFlavor: which nodes a quota is for. On AKS, ``agentpool: <pool>`` selects one autoscaling pool.

    https://kueue.sigs.k8s.io/docs/reference/kueue.v1beta2/#kueue-x-k8s-io-v1beta2-ResourceFlavorSpec
    """

    name: DnsSubdomain
    """The ResourceFlavor's name, which ClusterQueues and Cohorts list their quota under."""
    pool: DnsLabel | None = None
    """An ``aks.userPools`` name: the flavor is that pool's nodes, its ``agentpool`` node label and a toleration of
    every taint the pool's nodes carry (AKS's Spot taint, the GPU taint, the written ones) derived from the pool,
    unless ``tolerations`` is written. Not a Kueue field: only the derived ones reach the ResourceFlavor."""
    node_labels: Labels = Field(default_factory=dict, max_length=8)
    """Labels of the flavor's nodes; Kueue adds them to the admitted pods' node selector (``spec.nodeLabels``, at most
    8: the CRD's ``maxProperties``)."""
    node_taints: list[FlavorTaint] | None = Field(default=None, max_length=8)
    """Taints the flavor's nodes carry; workloads admitted on the flavor must tolerate them (``spec.nodeTaints``, at
    most 8)."""
    tolerations: list[Toleration] | None = Field(default=None, max_length=8)
    """Tolerations Kueue injects into the pods it admits on the flavor (``spec.tolerations``, at most 8)."""
    topology_name: DnsSubdomain | None = None
    """The Topology whose levels topology-aware scheduling uses on these nodes: one of ``queues.topologies`` or
    ``queues.external.topologies``. Needs at least one node label."""

    @model_validator(mode="after")
    @rule("queues-objects.taints-unique-by-key-and-effect")
    def _taints_unique_by_key_and_effect(self) -> ResourceFlavorConfig:
        """``validateNodeTaints`` in
        https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/webhooks/resourceflavor_webhook.go: "taints must be
        unique by key and effect pair" (same in v0.17.8-v0.19.2)."""
        pairs = [(taint.key, taint.effect) for taint in self.node_taints or []]
        require_unique(pairs, lambda i: key_path("nodeTaints", i), "taints (by key and effect)")
        return self

    @model_validator(mode="after")
    @rule("queues-objects.topology-needs-node-labels")
    def _topology_needs_node_labels(self) -> ResourceFlavorConfig:
        """CEL on ResourceFlavor ``spec`` ("at least one nodeLabel is required when topology is set",
        https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/config/components/crd/bases/kueue.x-k8s.io_resourceflavors.yaml,
        same in v0.17.8-v0.19.2)."""
        if self.topology_name is not None and not self.node_labels:
            raise RuleViolation("nodeLabels", {}, "a flavor with topologyName needs at least one node label")
        return self


class AdmissionCheckRef(ConfigModel):
    """An AdmissionCheck a ClusterQueue requires, optionally for some of its flavors only.

    https://kueue.sigs.k8s.io/docs/reference/kueue.v1beta2/#kueue-x-k8s-io-v1beta2-AdmissionCheckStrategyRule
    """

    name: DnsSubdomain
    """The AdmissionCheck: one of ``queues.provisioningChecks``, ``queues.admissionChecks`` or
    ``queues.external.admissionChecks``."""
    on_flavors: list[DnsSubdomain] | None = Field(default=None, max_length=64)
    """The flavors the check gates; unset gates every flavor of the queue (a set of at most 64: the CRD's
    limits)."""

    @model_validator(mode="after")
    @rule("queues-objects.flavors-are-a-set", source=_CQ_CRD_URL)
    def _flavors_are_a_set(self) -> AdmissionCheckRef:
        """ClusterQueue CRD ``admissionChecks[].onFlavors`` is ``x-kubernetes-list-type: set`` (same in
        v0.17.8-v0.19.2)."""
        require_unique(self.on_flavors or [], lambda i: key_path("onFlavors", i), "onFlavors entries")
        return self


class AdmissionChecksStrategy(ConfigModel):
    """The AdmissionChecks every workload of a ClusterQueue passes before admission.

    https://kueue.sigs.k8s.io/docs/reference/kueue.v1beta2/#kueue-x-k8s-io-v1beta2-AdmissionChecksStrategy
    """

    admission_checks: list[AdmissionCheckRef] = Field(min_length=1, max_length=64)
    """The checks, each listed once (1..64: the CRD's limits)."""

    @model_validator(mode="after")
    @rule("queues-objects.each-check-once")
    def _each_check_once(self) -> AdmissionChecksStrategy:
        """Schema of ClusterQueue ``spec.admissionChecksStrategy.admissionChecks``
        (https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/config/components/crd/bases/kueue.x-k8s.io_clusterqueues.yaml):
        a list map keyed by ``name`` (``x-kubernetes-list-type: map``), so the API server refuses a name listed
        twice (same in v0.17.8-v0.19.2)."""
        names = [check.name for check in self.admission_checks]
        require_unique(names, lambda i: key_path("admissionChecks", i, "name"), "admission checks")
        return self


class CohortConfig(Labelled):
    """An explicit Cohort: a parent for cohort trees, or quota that the ClusterQueues in it share.

    https://kueue.sigs.k8s.io/docs/reference/kueue.v1beta2/#kueue-x-k8s-io-v1beta2-CohortSpec
    """

    name: DnsSubdomain
    """The Cohort's name, which ClusterQueues name in ``cohortName`` and Cohorts in ``parentName``."""
    parent_name: DnsSubdomain | None = None
    """The parent Cohort in a cohort tree; unset makes this Cohort a root."""
    resource_groups: list[ResourceGroup] | None = Field(default=None, max_length=16)
    """Quota the Cohort adds to what its ClusterQueues share (at most 16 groups: the CRD's ``maxItems``)."""
    fair_sharing: FairSharing | None = None
    """The Cohort's weight among its siblings under fair sharing; needs ``kueue.fairSharing``."""

    @model_validator(mode="after")
    @rule("queues-objects.cohort-resource-group-rules")
    def _resource_group_rules(self) -> CohortConfig:
        """``validateCohort`` in https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/webhooks/cohort_webhook.go
        (same in v0.17.8-v0.19.2): groups apart, and limits only below a parent."""
        require_groups_apart(self.resource_groups or [])
        require_limits_within_a_cohort(self.resource_groups or [], "parentName", self.parent_name)
        return self


class ClusterQueueConfig(Labelled):
    """A ClusterQueue: the quota per flavor and the admission checks every admitted workload passes first.

    https://kueue.sigs.k8s.io/docs/reference/kueue.v1beta2/#kueue-x-k8s-io-v1beta2-ClusterQueueSpec
    """

    name: DnsSubdomain
    """The ClusterQueue's name, which LocalQueues point at."""
    namespace_selector: LabelSelector | None = Field(default_factory=LabelSelector)
    """Namespaces whose LocalQueues may submit to it. The default ``{}`` admits from every namespace, as Azure's
    article and Kueue's examples do; ``null`` leaves the field out, which Kueue reads as *no* namespace: the queue
    admits nothing until a selector is set."""
    queueing_strategy: Literal["StrictFIFO", "BestEffortFIFO"] = "BestEffortFIFO"
    """The article's strategy: a workload that does not fit does not block smaller ones behind it."""
    cohort_name: DnsSubdomain | None = None
    """The Cohort whose ClusterQueues share unused quota; it need not be one of ``queues.cohorts`` (Kueue then
    creates it implicitly)."""
    preemption: Preemption | None = None
    """Which workloads a pending workload may preempt; unset keeps Kueue's ``Never`` everywhere."""
    flavor_fungibility: FlavorFungibility | None = None
    """How Kueue moves on to the next flavor; unset keeps Kueue's defaults."""
    resource_groups: list[ResourceGroup] | None = Field(default=None, max_length=16)
    """The quota, per group of resources assigned together (at most 16: the CRD's limit); unset gives the queue no
    quota of its own (it can still borrow from its cohort)."""
    admission_checks_strategy: AdmissionChecksStrategy | None = None
    """The AdmissionChecks (e.g. ProvisioningRequest gates) a workload passes before admission."""
    stop_policy: StopPolicy | None = None
    """``Hold`` or ``HoldAndDrain`` stops the queue; unset keeps Kueue's ``None`` (admitting)."""
    fair_sharing: FairSharing | None = None
    """The queue's weight in its cohort under fair sharing; needs ``kueue.fairSharing``."""
    admission_scope: AdmissionScope | None = None
    """Orders the queue's workloads by their LocalQueues' recent usage; needs ``kueue.admissionFairSharing``."""
    concurrent_admission_policy: ConcurrentAdmissionPolicy | None = None
    """Workloads try every flavor at once and may migrate to a more preferred one once running
    (https://kueue.sigs.k8s.io/docs/concepts/concurrent_admission/): Kueue 0.18 or newer, with
    ``kueue.featureGates.ConcurrentAdmission: true`` (alpha, off by default). Immutable once the queue exists (the
    webhook refuses a change)."""

    @model_validator(mode="before")
    @classmethod
    @rule("queues-objects.no-v1beta1-fields", source=_CQ_TYPES_URL)
    def _no_v1beta1_fields(cls, data: Any) -> Any:
        """No v1beta1 ``cohort`` or ``admissionChecks`` on a ClusterQueue, because v1beta2 renamed them ``cohortName``
        and ``admissionChecksStrategy``."""
        return _v1beta1_keys(
            data,
            {
                "cohort": "v1beta2 renamed it cohortName",
                "admissionChecks": "v1beta2 moved it to admissionChecksStrategy.admissionChecks[{name, onFlavors}]",
            },
        )

    @model_validator(mode="after")
    @rule("queues-objects.cluster-queue-resource-group-rules")
    def _resource_group_rules(self) -> ClusterQueueConfig:
        """``validateResourceGroups`` in
        https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/webhooks/clusterqueue_webhook.go: groups apart, limits
        only within a cohort, and ``validateLendingLimit`` there: a ``lendingLimit`` never above the ``nominalQuota`` it
        lends from; then the webhook's totals (same in v0.17.8-v0.19.2)."""
        groups = self.resource_groups or []
        require_groups_apart(groups)
        require_limits_within_a_cohort(groups, "cohortName", self.cohort_name)
        require_totals(groups)
        for g, group in enumerate(groups):
            for f, flavor in enumerate(group.flavors):
                for r, quota in enumerate(flavor.resources):
                    lending = quota.lending_limit
                    if lending is not None and quantity_value(lending) > quantity_value(quota.nominal_quota):
                        key = key_path("resourceGroups", g, "flavors", f, "resources", r, "lendingLimit")
                        raise RuleViolation(key, lending, f"it cannot exceed nominalQuota {quota.nominal_quota}")
        return self

    @model_validator(mode="after")
    @rule("queues-objects.checks-gate-only-this-queues-flavors")
    def _checks_gate_only_this_queues_flavors(self) -> ClusterQueueConfig:
        """``validateAdmissionCheckOnFlavors`` in
        https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/webhooks/clusterqueue_webhook.go (enforced since Kueue
        0.17.1, same in v0.17.8-v0.19.2): every ``onFlavors`` entry is a flavor of this queue."""
        strategy = self.admission_checks_strategy
        for c, ref in enumerate(strategy.admission_checks if strategy else []):
            for o, flavor in enumerate(ref.on_flavors or []):
                if flavor not in self.flavor_names:
                    key = key_path("admissionChecksStrategy", "admissionChecks", c, "onFlavors", o)
                    allowed = f"since Kueue 0.17.1 it must be a flavor of this queue {self.flavor_names}"
                    raise RuleViolation(key, flavor, allowed)
        return self

    @model_validator(mode="after")
    @rule("queues-objects.concurrent-admission-rules")
    def _concurrent_admission_rules(self) -> ClusterQueueConfig:
        """``validateConcurrentAdmissionPolicy`` in
        https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/webhooks/clusterqueue_webhook.go (same in v0.18.6),
        which applies with the ``ConcurrentAdmission`` gate on, as the policy needs: one resource group of at most 16
        flavors, a last acceptable flavor of this queue, and no ``StrictFIFO``."""
        policy = self.concurrent_admission_policy
        if policy is None:
            return self
        groups = self.resource_groups or []
        if len(groups) != 1:
            allowed = "concurrentAdmissionPolicy needs exactly one resource group"
            raise RuleViolation("resourceGroups", len(groups), allowed)
        if len(groups[0].flavors) > 16:
            allowed = "concurrentAdmissionPolicy allows at most 16 flavors in its resource group"
            raise RuleViolation("resourceGroups[0].flavors", len(groups[0].flavors), allowed)
        constraints = policy.migration.constraints
        last = constraints.last_acceptable_flavor_name if constraints else None
        if last is not None and last not in self.flavor_names:
            key = "concurrentAdmissionPolicy.migration.constraints.lastAcceptableFlavorName"
            raise RuleViolation(key, last, f"it must be a flavor of this queue {self.flavor_names}")
        if self.queueing_strategy == "StrictFIFO":
            allowed = "concurrentAdmissionPolicy cannot be used with StrictFIFO; use BestEffortFIFO"
            raise RuleViolation("queueingStrategy", self.queueing_strategy, allowed)
        return self

    @property
    def flavor_names(self) -> list[str]:
        return [name for group in self.resource_groups or [] for name in group.flavor_names]

    def covered_resources(self, flavors: list[str] | None) -> set[str]:
        """Resources of the groups holding ``flavors`` (every group when ``None``): what a check on them can see."""
        return {
            resource
            for group in self.resource_groups or []
            if flavors is None or any(name in flavors for name in group.flavor_names)
            for resource in group.covered_resources
        }


class LocalQueueConfig(Labelled):
    """A LocalQueue: the namespaced name Jobs put in their ``kueue.x-k8s.io/queue-name`` label.

    https://kueue.sigs.k8s.io/docs/reference/kueue.v1beta2/#kueue-x-k8s-io-v1beta2-LocalQueueSpec
    """

    name: LocalQueueName
    """The LocalQueue's name: the value of the ``kueue.x-k8s.io/queue-name`` label on Jobs (so at most 63)."""
    namespace: DnsLabel
    """The namespace it lives in: one of ``queues.namespaces`` (created by the stack) or
    ``queues.existingNamespaces``."""
    cluster_queue: DnsSubdomain
    """The ClusterQueue it submits to: one of ``queues.clusterQueues`` or ``queues.external.clusterQueues``
    (immutable once created: the CRD's CEL rule)."""
    stop_policy: StopPolicy | None = None
    """``Hold`` or ``HoldAndDrain`` stops the queue; unset keeps Kueue's ``None`` (admitting)."""
    fair_sharing: FairSharing | None = None
    """The queue's weight under admission fair sharing; needs ``kueue.admissionFairSharing``."""
