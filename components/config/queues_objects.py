"""The Kueue objects of the ``queues`` section, one model per kind, each with the rules Kueue checks on it alone.

Keys mirror the Kueue ``v1beta2`` API (https://kueue.sigs.k8s.io/docs/reference/kueue.v1beta2/), so a reader of
Kueue's docs recognises every key and the manifest builders are plain dumps. Each rule below names where Kueue
enforces it at admission time: a CEL rule (``x-kubernetes-validations``) or a schema limit of the Kueue 0.17.8 CRD,
or Kueue's validating webhook. Checking them here makes a bad queue fail ``pulumi preview`` with the key that is
wrong instead of failing ``pulumi up`` halfway through, and a Kueue upgrade becomes a diff of those CRDs and webhooks
against the rules cited here:

- ResourceFlavor CRD: https://github.com/kubernetes-sigs/kueue/blob/v0.17.8/config/components/crd/bases/kueue.x-k8s.io_resourceflavors.yaml
- ProvisioningRequestConfig CRD: https://github.com/kubernetes-sigs/kueue/blob/v0.17.8/config/components/crd/bases/kueue.x-k8s.io_provisioningrequestconfigs.yaml
- AdmissionCheck CRD: https://github.com/kubernetes-sigs/kueue/blob/v0.17.8/config/components/crd/bases/kueue.x-k8s.io_admissionchecks.yaml
- ClusterQueue CRD: https://github.com/kubernetes-sigs/kueue/blob/v0.17.8/config/components/crd/bases/kueue.x-k8s.io_clusterqueues.yaml
- Cohort CRD: https://github.com/kubernetes-sigs/kueue/blob/v0.17.8/config/components/crd/bases/kueue.x-k8s.io_cohorts.yaml
- LocalQueue CRD: https://github.com/kubernetes-sigs/kueue/blob/v0.17.8/config/components/crd/bases/kueue.x-k8s.io_localqueues.yaml
- ClusterQueue and Cohort webhooks: https://github.com/kubernetes-sigs/kueue/blob/v0.17.8/pkg/webhooks/clusterqueue_webhook.go
  and https://github.com/kubernetes-sigs/kueue/blob/v0.17.8/pkg/webhooks/cohort_webhook.go

The ResourceFlavor CRD's CEL rules on taints and tolerations live with :class:`~components.config.kube.Toleration`
and :data:`~components.config.kube.TaintEffect`; the resource groups ClusterQueues and Cohorts both hold, with their
rules, are in :mod:`components.config.queues_quota`. Rules between objects (names resolve, names are unique) are in
:mod:`components.config.queues_rules`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, StringConstraints, model_validator

from components.config.base import (
    DNS1123_SUBDOMAIN,
    ConfigModel,
    DnsLabel,
    DnsSubdomain,
    RuleViolation,
    key_path,
    require_unique,
)
from components.config.kube import Labels, LabelSelector, Taint, Toleration, quantity_value
from components.config.queues_quota import (
    ResourceGroup,
    ResourceName,
    require_groups_apart,
    require_limits_within_a_cohort,
)

PROVISIONING_CONTROLLER = "kueue.x-k8s.io/provisioning-request"
"""The AdmissionCheck controller that turns a reserved Workload into a ProvisioningRequest."""

LocalQueueName = Annotated[str, StringConstraints(pattern=DNS1123_SUBDOMAIN, max_length=63)]
"""A LocalQueue name: an object name that Jobs also carry as the ``kueue.x-k8s.io/queue-name`` label value (≤ 63)."""
ParameterValue = Annotated[str, StringConstraints(max_length=255)]
"""A ProvisioningRequest parameter value: ProvisioningRequestConfig CRD ``spec.parameters`` values have
``maxLength: 255``."""
ConfigName = DnsLabel
"""A ProvisioningRequestConfig name: AdmissionCheck CRD ``spec.parameters.name`` only takes a DNS-1123 label (≤ 63)."""


def _refuse_v1beta1_keys(data: Any, renamed: dict[str, str]) -> Any:
    """Name the ``v1beta2`` replacement of a key copied from a ``v1beta1`` manifest."""
    if isinstance(data, dict):
        for old, hint in renamed.items():
            if old in data:
                raise RuleViolation(old, data[old], f"it is a Kueue v1beta1 field; {hint}")
    return data


class ResourceFlavorConfig(ConfigModel):
    """A ResourceFlavor: which nodes a quota is for. On AKS, ``agentpool: <pool>`` selects one autoscaling pool.

    https://kueue.sigs.k8s.io/docs/reference/kueue.v1beta2/#kueue-x-k8s-io-v1beta2-ResourceFlavorSpec
    """

    name: DnsSubdomain
    """The ResourceFlavor's name, which ClusterQueues and Cohorts list their quota under."""
    node_labels: Labels = Field(default_factory=dict, max_length=8)
    """Labels of the flavor's nodes; Kueue adds them to the admitted pods' node selector (``spec.nodeLabels``, at most
    8: the CRD's ``maxProperties``)."""
    node_taints: list[Taint] | None = Field(default=None, max_length=8)
    """Taints the flavor's nodes carry; workloads admitted on the flavor must tolerate them (``spec.nodeTaints``, at
    most 8)."""
    tolerations: list[Toleration] | None = Field(default=None, max_length=8)
    """Tolerations Kueue injects into the pods it admits on the flavor (``spec.tolerations``, at most 8)."""


class RetryStrategy(ConfigModel):
    """How often Kueue recreates a failed ProvisioningRequest; unset fields keep Kueue's 3 / 60 s / 1800 s.

    https://kueue.sigs.k8s.io/docs/reference/kueue.v1beta2/#kueue-x-k8s-io-v1beta2-ProvisioningRequestRetryStrategy
    """

    backoff_limit_count: int | None = Field(default=None, ge=0)
    """Requeues of a Workload whose ProvisioningRequest failed, after which Kueue deactivates it (Kueue's default
    3)."""
    backoff_base_seconds: int | None = Field(default=None, ge=1)
    """The first retry's delay, doubled on each retry (Kueue's default 60)."""
    backoff_max_seconds: int | None = Field(default=None, ge=1)
    """The longest delay between retries (Kueue's default 1800)."""


class ProvisioningCheckConfig(ConfigModel):
    """One ProvisioningRequest gate: an AdmissionCheck ``name`` plus the ProvisioningRequestConfig ``configName``.

    https://kueue.sigs.k8s.io/docs/reference/kueue.v1beta2/#kueue-x-k8s-io-v1beta2-ProvisioningRequestConfigSpec
    """

    name: DnsSubdomain
    """The AdmissionCheck's name, which ClusterQueues list in ``admissionChecksStrategy``."""
    config_name: ConfigName
    """The ProvisioningRequestConfig's name, which the AdmissionCheck's ``parameters`` point at."""
    provisioning_class_name: DnsSubdomain = "best-effort-atomic-scale-up.autoscaling.x-k8s.io"
    """The ProvisioningRequest class (``spec.provisioningClassName``); the article's class: the autoscaler adds all
    requested nodes in one atomic increase."""
    managed_resources: list[ResourceName] | None = Field(default=None, max_length=100)
    """Only pod sets requesting one of these go into the ProvisioningRequest; unset means every resource
    (``spec.managedResources``, at most 100: the CRD's ``maxItems``)."""
    retry_strategy: RetryStrategy | None = None
    """How Kueue retries a failed ProvisioningRequest (``spec.retryStrategy``); unset keeps Kueue's defaults."""
    parameters: dict[str, ParameterValue] | None = Field(default=None, max_length=100)
    """Parameters passed to the ProvisioningRequest class (``spec.parameters``, at most 100, each value at most 255
    characters: the CRD's limits)."""

    @model_validator(mode="before")
    @classmethod
    def _no_v1beta1_fields(cls, data: Any) -> Any:
        return _refuse_v1beta1_keys(data, {"retryDelayMinutes": "v1beta2 removed it; use retryStrategy"})


class BorrowWithinCohort(ConfigModel):
    """Whether a workload that must borrow may preempt to do so.

    https://kueue.sigs.k8s.io/docs/reference/kueue.v1beta2/#kueue-x-k8s-io-v1beta2-BorrowWithinCohort
    """

    policy: Literal["Never", "LowerPriority"] | None = None
    """``LowerPriority`` lets it preempt lower-priority workloads of the cohort; unset keeps Kueue's ``Never``."""
    max_priority_threshold: int | None = None
    """Only workloads up to this priority may be preempted; unset means any lower priority."""


class Preemption(ConfigModel):
    """Which workloads a pending workload may preempt; unset fields keep Kueue's ``Never``.

    https://kueue.sigs.k8s.io/docs/reference/kueue.v1beta2/#kueue-x-k8s-io-v1beta2-ClusterQueuePreemption
    """

    reclaim_within_cohort: Literal["Never", "LowerPriority", "Any"] | None = None
    """Whether it may preempt workloads of other queues in the cohort that borrow this queue's quota."""
    within_cluster_queue: Literal["Never", "LowerPriority", "LowerOrNewerEqualPriority"] | None = None
    """Whether it may preempt workloads of its own queue."""
    borrow_within_cohort: BorrowWithinCohort | None = None
    """Whether it may preempt to borrow quota in the cohort."""

    @model_validator(mode="after")
    def _borrowing_preemption_needs_reclaim(self) -> Preemption:
        """CEL on ClusterQueue ``spec.preemption`` ("reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never",
        https://github.com/kubernetes-sigs/kueue/blob/v0.17.8/config/components/crd/bases/kueue.x-k8s.io_clusterqueues.yaml),
        also ``validatePreemption`` in
        https://github.com/kubernetes-sigs/kueue/blob/v0.17.8/pkg/webhooks/clusterqueue_webhook.go, with the CRD's
        defaults (``Never``) for unset fields."""
        borrow_policy = self.borrow_within_cohort.policy if self.borrow_within_cohort else None
        if (self.reclaim_within_cohort or "Never") == "Never" and (borrow_policy or "Never") != "Never":
            allowed = "preempting to borrow needs reclaimWithinCohort other than Never"
            raise RuleViolation("borrowWithinCohort.policy", borrow_policy, allowed)
        return self


class FlavorFungibility(ConfigModel):
    """Whether Kueue tries the next flavor before borrowing or preempting.

    https://kueue.sigs.k8s.io/docs/reference/kueue.v1beta2/#kueue-x-k8s-io-v1beta2-FlavorFungibility
    """

    when_can_borrow: Literal["MayStopSearch", "TryNextFlavor"] | None = None
    """What Kueue does when a flavor fits by borrowing; unset keeps ``MayStopSearch``."""
    when_can_preempt: Literal["MayStopSearch", "TryNextFlavor"] | None = None
    """What Kueue does when a flavor fits by preempting; unset keeps ``TryNextFlavor``."""
    preference: Literal["BorrowingOverPreemption", "PreemptionOverBorrowing"] | None = None
    """Which of borrowing and preemption Kueue prefers when both fit; needs both fields above ``TryNextFlavor``."""

    @model_validator(mode="after")
    def _preference_needs_try_next_flavor(self) -> FlavorFungibility:
        """CEL on ClusterQueue ``spec.flavorFungibility`` ("preference can only be set when both whenCanBorrow and
        whenCanPreempt are TryNextFlavor",
        https://github.com/kubernetes-sigs/kueue/blob/v0.17.8/config/components/crd/bases/kueue.x-k8s.io_clusterqueues.yaml),
        also ``validateFlavorFungibility`` in
        https://github.com/kubernetes-sigs/kueue/blob/v0.17.8/pkg/webhooks/clusterqueue_webhook.go, with the CRD's
        defaults (``MayStopSearch`` / ``TryNextFlavor``) for unset fields."""
        borrow = self.when_can_borrow or "MayStopSearch"
        preempt = self.when_can_preempt or "TryNextFlavor"
        if self.preference is not None and (borrow, preempt) != ("TryNextFlavor", "TryNextFlavor"):
            allowed = "preference needs whenCanBorrow and whenCanPreempt both TryNextFlavor"
            raise RuleViolation("preference", self.preference, allowed)
        return self


class AdmissionCheckRef(ConfigModel):
    """An AdmissionCheck a ClusterQueue requires, optionally for some of its flavors only.

    https://kueue.sigs.k8s.io/docs/reference/kueue.v1beta2/#kueue-x-k8s-io-v1beta2-AdmissionCheckStrategyRule
    """

    name: DnsSubdomain
    """The AdmissionCheck: the ``name`` of one of ``queues.provisioningChecks``."""
    on_flavors: list[DnsSubdomain] | None = Field(default=None, max_length=64)
    """The flavors the check gates; unset gates every flavor of the queue (at most 64: the CRD's ``maxItems``)."""


class AdmissionChecksStrategy(ConfigModel):
    """The AdmissionChecks every workload of a ClusterQueue passes before admission.

    https://kueue.sigs.k8s.io/docs/reference/kueue.v1beta2/#kueue-x-k8s-io-v1beta2-AdmissionChecksStrategy
    """

    admission_checks: list[AdmissionCheckRef] = Field(min_length=1, max_length=64)
    """The checks, each listed once (1..64: the CRD's limits)."""

    @model_validator(mode="after")
    def _each_check_once(self) -> AdmissionChecksStrategy:
        """Schema of ClusterQueue ``spec.admissionChecksStrategy.admissionChecks``
        (https://github.com/kubernetes-sigs/kueue/blob/v0.17.8/config/components/crd/bases/kueue.x-k8s.io_clusterqueues.yaml):
        a list map keyed by ``name`` (``x-kubernetes-list-type: map``), so the API server refuses a name listed
        twice."""
        names = [check.name for check in self.admission_checks]
        require_unique(names, lambda i: key_path("admissionChecks", i, "name"), "admission checks")
        return self


class CohortConfig(ConfigModel):
    """An explicit Cohort: a parent for cohort trees, or quota that the ClusterQueues in it share.

    https://kueue.sigs.k8s.io/docs/reference/kueue.v1beta2/#kueue-x-k8s-io-v1beta2-CohortSpec
    """

    name: DnsSubdomain
    """The Cohort's name, which ClusterQueues name in ``cohortName`` and Cohorts in ``parentName``."""
    parent_name: DnsSubdomain | None = None
    """The parent Cohort in a cohort tree; unset makes this Cohort a root."""
    resource_groups: list[ResourceGroup] | None = Field(default=None, max_length=16)
    """Quota the Cohort adds to what its ClusterQueues share (at most 16 groups: the CRD's ``maxItems``)."""

    @model_validator(mode="after")
    def _resource_group_rules(self) -> CohortConfig:
        """``validateCohort`` in https://github.com/kubernetes-sigs/kueue/blob/v0.17.8/pkg/webhooks/cohort_webhook.go:
        groups apart, and limits only below a parent."""
        require_groups_apart(self.resource_groups or [])
        require_limits_within_a_cohort(self.resource_groups or [], "parentName", self.parent_name)
        return self


class ClusterQueueConfig(ConfigModel):
    """A ClusterQueue: the quota per flavor and the admission checks every admitted workload passes first.

    https://kueue.sigs.k8s.io/docs/reference/kueue.v1beta2/#kueue-x-k8s-io-v1beta2-ClusterQueueSpec
    """

    name: DnsSubdomain
    """The ClusterQueue's name, which LocalQueues point at."""
    namespace_selector: LabelSelector = LabelSelector()
    """Namespaces whose LocalQueues may submit to it. ``{}`` admits from every namespace, as the article does; Kueue
    reads an absent selector as *no* namespace."""
    queueing_strategy: Literal["StrictFIFO", "BestEffortFIFO"] = "BestEffortFIFO"
    """The article's strategy: a workload that does not fit does not block smaller ones behind it."""
    cohort_name: DnsSubdomain | None = None
    """The Cohort whose ClusterQueues share unused quota; it need not be one of ``queues.cohorts`` (Kueue then
    creates it implicitly)."""
    preemption: Preemption | None = None
    """Which workloads a pending workload may preempt; unset keeps Kueue's ``Never`` everywhere."""
    flavor_fungibility: FlavorFungibility | None = None
    """How Kueue moves on to the next flavor; unset keeps Kueue's defaults."""
    resource_groups: list[ResourceGroup] = Field(min_length=1, max_length=16)
    """The quota, per group of resources assigned together (1..16: the CRD's limits)."""
    admission_checks_strategy: AdmissionChecksStrategy | None = None
    """The AdmissionChecks (here: ProvisioningRequest gates) a workload passes before admission."""

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
        """``validateResourceGroups`` in
        https://github.com/kubernetes-sigs/kueue/blob/v0.17.8/pkg/webhooks/clusterqueue_webhook.go: groups apart, limits
        only within a cohort, and ``validateLendingLimit`` there: a ``lendingLimit`` never above the ``nominalQuota`` it
        lends from."""
        require_groups_apart(self.resource_groups)
        require_limits_within_a_cohort(self.resource_groups, "cohortName", self.cohort_name)
        for g, group in enumerate(self.resource_groups):
            for f, flavor in enumerate(group.flavors):
                for r, quota in enumerate(flavor.resources):
                    lending = quota.lending_limit
                    if lending is not None and quantity_value(lending) > quantity_value(quota.nominal_quota):
                        key = key_path("resourceGroups", g, "flavors", f, "resources", r, "lendingLimit")
                        raise RuleViolation(key, lending, f"it cannot exceed nominalQuota {quota.nominal_quota}")
        return self

    @model_validator(mode="after")
    def _checks_gate_only_this_queues_flavors(self) -> ClusterQueueConfig:
        """``validateAdmissionCheckOnFlavors`` in
        https://github.com/kubernetes-sigs/kueue/blob/v0.17.8/pkg/webhooks/clusterqueue_webhook.go (enforced since Kueue
        0.17.1): every ``onFlavors`` entry is a flavor of this queue."""
        strategy = self.admission_checks_strategy
        for c, ref in enumerate(strategy.admission_checks if strategy else []):
            for o, flavor in enumerate(ref.on_flavors or []):
                if flavor not in self.flavor_names:
                    key = key_path("admissionChecksStrategy", "admissionChecks", c, "onFlavors", o)
                    allowed = f"since Kueue 0.17.1 it must be a flavor of this queue {self.flavor_names}"
                    raise RuleViolation(key, flavor, allowed)
        return self

    @property
    def flavor_names(self) -> list[str]:
        return [name for group in self.resource_groups for name in group.flavor_names]

    def covered_resources(self, flavors: list[str] | None) -> set[str]:
        """Resources of the groups holding ``flavors`` (every group when ``None``): what a check on them can see."""
        return {
            resource
            for group in self.resource_groups
            if flavors is None or any(name in flavors for name in group.flavor_names)
            for resource in group.covered_resources
        }


class LocalQueueConfig(ConfigModel):
    """A LocalQueue: the namespaced name Jobs put in their ``kueue.x-k8s.io/queue-name`` label.

    https://kueue.sigs.k8s.io/docs/reference/kueue.v1beta2/#kueue-x-k8s-io-v1beta2-LocalQueueSpec
    """

    name: LocalQueueName
    """The LocalQueue's name: the value of the ``kueue.x-k8s.io/queue-name`` label on Jobs (so at most 63)."""
    namespace: DnsLabel
    """The namespace it lives in: one of ``queues.namespaces``."""
    cluster_queue: DnsSubdomain
    """The ClusterQueue it submits to: the ``name`` of one of ``queues.clusterQueues``."""
