"""The ``queues`` section: the Kueue objects that turn quota into ProvisioningRequest-gated admission.

The defaults reproduce the queue manifest of Azure's article
(https://learn.microsoft.com/en-us/azure/aks/configure-kueue-with-cluster-autoscaler) object for object: namespace
``cas-kueue-demo``, ResourceFlavor ``scalepool``, ProvisioningRequestConfig ``cas-provreq-config``, AdmissionCheck
``cas-provisioning``, ClusterQueue ``cas-cluster-queue`` and LocalQueue ``cas-local-queue``. Each list key replaces
its default as a whole, so overriding ``clusterQueues`` alone keeps the article's flavor, check and local queue (and
the rules say so when a name no longer resolves).

The object models and the rules Kueue checks on each object are in :mod:`components.config.queues_objects`; the
rules between objects are in :mod:`components.config.queues_rules`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from components.config import queues_naming, queues_rules
from components.config.aks import POOL_LABEL
from components.config.base import ConfigModel, DnsLabel
from components.config.queues_objects import (
    AdmissionCheckRef,
    AdmissionChecksStrategy,
    ClusterQueueConfig,
    CohortConfig,
    LocalQueueConfig,
    ProvisioningCheckConfig,
    ResourceFlavorConfig,
)
from components.config.queues_quota import FlavorQuotas, ResourceGroup, ResourceQuota

DEFAULT_NAMESPACE = "cas-kueue-demo"
"""The article's queue manifest creates its own namespace rather than reusing the Ray example's ``ray``."""

DEFAULT_RESOURCE_FLAVOR = ResourceFlavorConfig(name="scalepool", node_labels={POOL_LABEL: "scalepool"})
"""Nodes AKS labels ``agentpool=scalepool``: exactly the autoscaling pool the article adds."""

DEFAULT_PROVISIONING_CHECK = ProvisioningCheckConfig(
    name="cas-provisioning", config_name="cas-provreq-config", managed_resources=["cpu"]
)
"""The article's gate: pod sets requesting CPU go into one atomic ProvisioningRequest before admission."""

DEFAULT_CLUSTER_QUEUE = ClusterQueueConfig(
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
"""Quota set generously, as the article explains, so the pool's ``maxCount`` rather than Kueue caps the scale-up."""

DEFAULT_LOCAL_QUEUE = LocalQueueConfig(
    name="cas-local-queue", namespace=DEFAULT_NAMESPACE, cluster_queue="cas-cluster-queue"
)
"""The article's LocalQueue, in its namespace."""


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
    """Every Kueue object the stack creates; the defaults are the article's autoscale queue."""

    namespaces: list[DnsLabel] = Field(default_factory=lambda: [DEFAULT_NAMESPACE])
    """Namespaces the stack creates for its LocalQueues."""
    resource_flavors: list[ResourceFlavorConfig] = Field(default_factory=lambda: [DEFAULT_RESOURCE_FLAVOR])
    """The ResourceFlavors: which nodes each quota is for."""
    provisioning_checks: list[ProvisioningCheckConfig] = Field(default_factory=lambda: [DEFAULT_PROVISIONING_CHECK])
    """ProvisioningRequest gates, each an AdmissionCheck with its ProvisioningRequestConfig; none means no queue
    waits for the autoscaler."""
    cohorts: list[CohortConfig] = Field(default_factory=list)
    """Explicit Cohorts; ClusterQueues naming a cohort without one still share quota (Kueue creates it implicitly)."""
    cluster_queues: list[ClusterQueueConfig] = Field(default_factory=lambda: [DEFAULT_CLUSTER_QUEUE])
    """The ClusterQueues: quota per flavor, and the checks a workload passes before admission."""
    local_queues: list[LocalQueueConfig] = Field(default_factory=lambda: [DEFAULT_LOCAL_QUEUE])
    """The LocalQueues Jobs are submitted to, each in one of ``namespaces``."""
    wait_until_active: WaitUntilActiveConfig = WaitUntilActiveConfig()
    """How ``pulumi up`` proves the queues can admit before it finishes."""

    def named_with(self, suffix: str) -> QueuesConfig:
        """These objects with ``suffix`` on every name and reference (:mod:`components.config.queues_naming`)."""
        return queues_naming.with_name_suffix(self, suffix)

    @property
    def uses_provisioning_requests(self) -> bool:
        """Whether any ProvisioningRequest admission check is configured (Kueue then needs the CRD at start-up)."""
        return bool(self.provisioning_checks)

    @model_validator(mode="after")
    def _names(self) -> QueuesConfig:
        queues_rules.require_new_namespaces(self)
        queues_rules.require_unique_names(self)
        return self

    @model_validator(mode="after")
    def _references_resolve(self) -> QueuesConfig:
        queues_rules.require_configured_flavors(self)
        queues_rules.require_configured_checks(self)
        queues_rules.require_local_queue_targets(self)
        return self

    @model_validator(mode="after")
    def _cohorts_form_a_tree(self) -> QueuesConfig:
        queues_rules.require_cohort_tree(self)
        return self

    @model_validator(mode="after")
    def _checks_see_their_resources(self) -> QueuesConfig:
        queues_rules.require_managed_resources_covered(self)
        return self
