"""Quota as ClusterQueues and Cohorts both hold it: resource groups of flavors, each with a quota per resource.

Keys mirror the Kueue ``v1beta2`` API (https://kueue.sigs.k8s.io/docs/reference/kueue.v1beta2/#kueue-x-k8s-io-v1beta2-ResourceGroup).
Each rule names where Kueue enforces it at admission time, so a Kueue upgrade is a diff of these against the code.
Every rule below is the same in v0.17.8, v0.18.6 and v0.19.2 (the CRDs' resource-group CEL rule and limits, and the
webhook functions), so the links are to v0.19.2:

- ClusterQueue CRD: https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/config/components/crd/bases/kueue.x-k8s.io_clusterqueues.yaml
- Cohort CRD: https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/config/components/crd/bases/kueue.x-k8s.io_cohorts.yaml
- the webhooks both share: https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/webhooks/clusterqueue_webhook.go
  (``validateResourceGroups``, ``validateFlavorQuotas``, ``validateLimit``), called for Cohorts from
  https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/webhooks/cohort_webhook.go
"""

from __future__ import annotations

from pydantic import Field, model_validator

from components.config.base import ConfigModel, DnsSubdomain, RuleViolation, key_path, require_unique
from components.config.kube import LabelKey, Quantity
from components.config.rules import rule

ResourceName = LabelKey
"""A resource name such as ``cpu``, ``memory`` or ``nvidia.com/gpu``: a qualified name, like a label key (the
ClusterQueue webhook's ``validateResourceName``)."""


class ResourceQuota(ConfigModel):
    """The quota of one resource in one flavor.

    https://kueue.sigs.k8s.io/docs/reference/kueue.v1beta2/#kueue-x-k8s-io-v1beta2-ResourceQuota
    """

    name: ResourceName
    """The resource, at the same position as in the group's ``coveredResources``."""
    nominal_quota: Quantity
    """What the queue (or cohort) may use of the resource in this flavor; never negative (the webhook's
    ``validateResourceQuantity``)."""
    borrowing_limit: Quantity | None = None
    """The most a ClusterQueue may borrow from its cohort beyond ``nominalQuota``; unset means no limit. Only within
    a cohort."""
    lending_limit: Quantity | None = None
    """The most of ``nominalQuota`` the cohort may borrow; unset means all of it. Only within a cohort."""


class FlavorQuotas(ConfigModel):
    """The quotas of one flavor in a resource group.

    https://kueue.sigs.k8s.io/docs/reference/kueue.v1beta2/#kueue-x-k8s-io-v1beta2-FlavorQuotas
    """

    name: DnsSubdomain
    """The ResourceFlavor the quotas are for: one of ``queues.resourceFlavors``."""
    resources: list[ResourceQuota] = Field(min_length=1, max_length=64)
    """One quota per covered resource, in ``coveredResources`` order (1..64: the CRD's limits)."""


class ResourceGroup(ConfigModel):
    """Resources whose quota is assigned together: each flavor lists every covered resource, in the same order.

    https://kueue.sigs.k8s.io/docs/reference/kueue.v1beta2/#kueue-x-k8s-io-v1beta2-ResourceGroup
    """

    covered_resources: list[ResourceName] = Field(min_length=1, max_length=64)
    """The resources the group assigns quota for (1..64: the CRD's limits)."""
    flavors: list[FlavorQuotas] = Field(min_length=1, max_length=64)
    """The flavors Kueue tries in this order, each with its quotas (1..64: the CRD's limits)."""

    @model_validator(mode="after")
    @rule("queues-quota.flavors-list-the-covered-resources")
    def _flavors_list_the_covered_resources(self) -> ResourceGroup:
        """CEL on ClusterQueue and Cohort ``spec.resourceGroups[]`` ("flavors must have the same number of resources as
        the coveredResources",
        https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/config/components/crd/bases/kueue.x-k8s.io_clusterqueues.yaml
        and
        https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/config/components/crd/bases/kueue.x-k8s.io_cohorts.yaml),
        then ``validateFlavorQuotas`` in
        https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/webhooks/clusterqueue_webhook.go, which matches them
        to ``coveredResources`` by position ("must match the name in coveredResources"); same in v0.17.8-v0.19.2."""
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

    @property
    def flavor_names(self) -> list[str]:
        return [flavor.name for flavor in self.flavors]


@rule("queues-quota.groups-apart")
def require_groups_apart(groups: list[ResourceGroup]) -> None:
    """``validateResourceGroups`` in
    https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/webhooks/clusterqueue_webhook.go (ClusterQueue and Cohort
    alike, same in v0.17.8-v0.19.2): a resource belongs to one group, and a flavor appears in one group."""
    resources = [
        (key_path("resourceGroups", g, "coveredResources", r), resource)
        for g, group in enumerate(groups)
        for r, resource in enumerate(group.covered_resources)
    ]
    require_unique([name for _, name in resources], lambda i: resources[i][0], "covered resources across groups")
    flavors = [
        (key_path("resourceGroups", g, "flavors", f, "name"), flavor.name)
        for g, group in enumerate(groups)
        for f, flavor in enumerate(group.flavors)
    ]
    require_unique([name for _, name in flavors], lambda i: flavors[i][0], "flavors across groups")


@rule("queues-quota.limits-within-a-cohort")
def require_limits_within_a_cohort(groups: list[ResourceGroup], parent_key: str, parent_name: str | None) -> None:
    """``validateLimit`` in https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/webhooks/clusterqueue_webhook.go:
    ``borrowingLimit`` and ``lendingLimit`` need a cohort (a ClusterQueue's ``cohortName``, a Cohort's ``parentName``);
    for ``borrowingLimit`` on a ClusterQueue also CEL on ClusterQueue ``spec`` ("borrowingLimit must be nil when cohort
    is empty",
    https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/config/components/crd/bases/kueue.x-k8s.io_clusterqueues.yaml;
    same in v0.17.8-v0.19.2)."""
    if parent_name is not None:
        return
    for g, group in enumerate(groups):
        for f, flavor in enumerate(group.flavors):
            for r, quota in enumerate(flavor.resources):
                for field, limit in (("borrowingLimit", quota.borrowing_limit), ("lendingLimit", quota.lending_limit)):
                    if limit is not None:
                        key = key_path("resourceGroups", g, "flavors", f, "resources", r, field)
                        raise RuleViolation(key, limit, f"limits only apply within a cohort: set {parent_key}")


TOTAL_FLAVORS, TOTAL_COVERED_RESOURCES, FLAVOR_RESOURCES_PER_GROUP = 256, 256, 512


@rule("queues-quota.totals")
def require_totals(groups: list[ResourceGroup]) -> None:
    """``validateTotalFlavors``, ``validateTotalCoveredResources`` and ``validateFlavorResourceCombinations`` in
    https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/webhooks/clusterqueue_webhook.go: a ClusterQueue holds at
    most 256 flavors and 256 covered resources in all, and each group at most 512 flavor-resource quotas
    (same in v0.17.8-v0.19.2)."""
    flavors = sum(len(group.flavors) for group in groups)
    if flavors > TOTAL_FLAVORS:
        raise RuleViolation("resourceGroups", f"{flavors} flavors", f"at most {TOTAL_FLAVORS} across all groups")
    resources = sum(len(group.covered_resources) for group in groups)
    if resources > TOTAL_COVERED_RESOURCES:
        allowed = f"at most {TOTAL_COVERED_RESOURCES} across all groups"
        raise RuleViolation("resourceGroups", f"{resources} covered resources", allowed)
    for g, group in enumerate(groups):
        quotas = sum(len(flavor.resources) for flavor in group.flavors)
        if quotas > FLAVOR_RESOURCES_PER_GROUP:
            allowed = f"at most {FLAVOR_RESOURCES_PER_GROUP} per group"
            raise RuleViolation(key_path("resourceGroups", g), f"{quotas} flavor-resource quotas", allowed)
