"""How a ClusterQueue chooses among workloads and flavors: preemption, flavor fungibility, admission scope, concurrent
admission.

Keys mirror the Kueue ``v1beta2`` API; each rule names the CEL rule of the ClusterQueue CRD
(https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/config/components/crd/bases/kueue.x-k8s.io_clusterqueues.yaml)
and the webhook function (https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/webhooks/clusterqueue_webhook.go)
that enforce it; both are the same in v0.17.8, v0.18.6 and v0.19.2 (concurrent admission, which Kueue 0.18 added: in
v0.18.6 and v0.19.2).
"""

from __future__ import annotations

from typing import Literal

from pydantic import model_validator

from components.config.base import ConfigModel, DnsSubdomain, Int32, RuleViolation
from components.config.rules import rule


class BorrowWithinCohort(ConfigModel):
    """Whether a workload that must borrow may preempt to do so.

    https://kueue.sigs.k8s.io/docs/reference/kueue.v1beta2/#kueue-x-k8s-io-v1beta2-BorrowWithinCohort
    """

    policy: Literal["Never", "LowerPriority"] | None = None
    """``LowerPriority`` lets it preempt lower-priority workloads of the cohort; unset keeps Kueue's ``Never``."""
    max_priority_threshold: Int32 | None = None
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
    @rule("queues-policies.borrowing-preemption-needs-reclaim")
    def _borrowing_preemption_needs_reclaim(self) -> Preemption:
        """CEL on ClusterQueue ``spec.preemption`` ("reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never",
        https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/config/components/crd/bases/kueue.x-k8s.io_clusterqueues.yaml),
        also ``validatePreemption`` in
        https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/webhooks/clusterqueue_webhook.go, with the CRD's
        defaults (``Never``) for unset fields; same in v0.17.8-v0.19.2."""
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
    @rule("queues-policies.preference-needs-try-next-flavor")
    def _preference_needs_try_next_flavor(self) -> FlavorFungibility:
        """CEL on ClusterQueue ``spec.flavorFungibility`` ("preference can only be set when both whenCanBorrow and
        whenCanPreempt are TryNextFlavor",
        https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/config/components/crd/bases/kueue.x-k8s.io_clusterqueues.yaml),
        also ``validateFlavorFungibility`` in
        https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/webhooks/clusterqueue_webhook.go, with the CRD's
        defaults (``MayStopSearch`` / ``TryNextFlavor``) for unset fields; same in v0.17.8-v0.19.2."""
        borrow = self.when_can_borrow or "MayStopSearch"
        preempt = self.when_can_preempt or "TryNextFlavor"
        if self.preference is not None and (borrow, preempt) != ("TryNextFlavor", "TryNextFlavor"):
            allowed = "preference needs whenCanBorrow and whenCanPreempt both TryNextFlavor"
            raise RuleViolation("preference", self.preference, allowed)
        return self


class AdmissionScope(ConfigModel):
    """How a ClusterQueue orders workloads of different LocalQueues.

    https://kueue.sigs.k8s.io/docs/reference/kueue.v1beta2/#kueue-x-k8s-io-v1beta2-AdmissionScope
    """

    admission_mode: Literal["UsageBasedAdmissionFairSharing", "NoAdmissionFairSharing"]
    """``UsageBasedAdmissionFairSharing`` admits first from the LocalQueues that used least lately."""


class MigrationConstraints(ConfigModel):
    """How far a workload admitted under a concurrent admission policy may migrate.

    https://kueue.sigs.k8s.io/docs/reference/kueue.v1beta2/#kueue-x-k8s-io-v1beta2-ConcurrentAdmissionMigrationConstraints
    """

    last_acceptable_flavor_name: DnsSubdomain | None = None
    """The least preferred flavor (in the queue's flavor order) it may still migrate to; unset: any flavor more
    preferred than the one it runs on. It must be a flavor of the queue (``validateConcurrentAdmissionPolicy``)."""


class Migration(ConfigModel):
    """Whether a running workload moves to a more preferred flavor when capacity appears there."""

    mode: Literal["TryPreferredFlavors", "RetainFirstAdmission"]
    """``TryPreferredFlavors`` keeps trying the more preferred flavors after admission and migrates;
    ``RetainFirstAdmission`` stays on the first flavor admitted (the CRD requires the field)."""
    constraints: MigrationConstraints | None = None
    """Limits on the migration; only with mode ``TryPreferredFlavors`` (``validateConcurrentAdmissionPolicy``)."""

    @model_validator(mode="after")
    @rule("queues-policies.constraints-only-when-migrating")
    def _constraints_only_when_migrating(self) -> Migration:
        """``validateConcurrentAdmissionPolicy`` in
        https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/webhooks/clusterqueue_webhook.go ("may only be set
        when migration.mode is TryPreferredFlavors"; same in v0.18.6)."""
        if self.constraints is not None and self.mode != "TryPreferredFlavors":
            raise RuleViolation("constraints", _dumped(self.constraints), "only mode TryPreferredFlavors takes them")
        return self


class ConcurrentAdmissionPolicy(ConfigModel):
    """Workloads pursue every flavor of the queue at once, start on the first that admits them and may migrate to a
    more preferred one later (Kueue 0.18+, alpha gate ``ConcurrentAdmission``).

    https://kueue.sigs.k8s.io/docs/concepts/concurrent_admission/
    """

    migration: Migration
    """How admitted workloads migrate (the CRD requires the field)."""


def _dumped(model: ConfigModel) -> object:
    return model.model_dump(by_alias=True, exclude_none=True, mode="json")
