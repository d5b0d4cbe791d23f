"""The ``queues`` section: the Kueue objects that turn quota into ProvisioningRequest-gated admission.

A stack gets exactly the objects it writes: every list is empty unless written, so a section left out creates no
queue object (Kueue alone). ``preset: aks-walkthrough`` writes the queue manifest of Azure's article
(https://learn.microsoft.com/en-us/azure/aks/configure-kueue-with-cluster-autoscaler) instead, as a whole: the
presets and why one is refused beside written objects are in :mod:`components.config.queues.presets`.

The object models and the rules Kueue checks on each object are in :mod:`components.config.queues.objects`; the
rules between objects are in :mod:`components.config.queues.rules`.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from components.config.base import ConfigModel, DnsLabel, DnsSubdomain
from components.config.environment import stack_file_only
from components.config.kube import LabelKey
from components.config.queues import naming as queues_naming
from components.config.queues import presets as queues_presets
from components.config.queues import rules as queues_rules
from components.config.queues.checks import (
    AdmissionCheckConfig,
    ProvisioningCheckConfig,
    ProvisioningRequestConfigConfig,
)
from components.config.queues.multikueue import MultiKueueClusterObject, MultiKueueConfigObject
from components.config.queues.objects import (
    ClusterQueueConfig,
    CohortConfig,
    LocalQueueConfig,
    ResourceFlavorConfig,
    TopologyConfig,
    WorkloadPriorityClassConfig,
)
from components.config.rules import rule

_AKS_KUEUE_URL = "https://learn.microsoft.com/en-us/azure/aks/configure-kueue-with-cluster-autoscaler"
_CLUSTER_QUEUE_URL = (
    "https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/site/content/en/docs/concepts/cluster_queue.md"
)
_K8S_NAMES_URL = "https://kubernetes.io/docs/concepts/overview/working-with-objects/names/"
_V1BETA2_REF_URL = "https://kueue.sigs.k8s.io/docs/reference/kueue.v1beta2/"


class WaitUntilActiveConfig(ConfigModel):
    """How ``pulumi up`` proves the queues can admit: it waits until Kueue reports every AdmissionCheck and
    ClusterQueue ``Active``."""

    timeout_seconds: int = Field(default=600, ge=30, le=3600)
    """How long to wait; Kueue marks a reconciled object Active within seconds."""
    on_inactive: Literal["fail", "warn"] = "fail"
    """``warn`` finishes ``up`` with a warning that names the inactive objects, and installs Kueue without waiting for
    the ProvisioningRequest CRD, for a cluster whose autoscaler will only serve ProvisioningRequests later; Jobs in
    those queues wait until then."""


class ExternalObjects(ConfigModel):
    """Kueue objects made outside this stack (by another stack, a platform chart, by hand) that its objects name.

    Kueue accepts a reference to a missing object and leaves the referring queue inactive, so a typo would only show
    as Jobs that never start; names listed here are the ones the stack may refer to without creating them.
    """

    resource_flavors: list[DnsSubdomain] = Field(default_factory=list)
    """ResourceFlavors ClusterQueues and Cohorts may give quota to."""
    admission_checks: list[DnsSubdomain] = Field(default_factory=list)
    """AdmissionChecks ClusterQueues may require."""
    provisioning_request_configs: list[DnsLabel] = Field(default_factory=list)
    """ProvisioningRequestConfigs AdmissionChecks may point at."""
    topologies: list[DnsSubdomain] = Field(default_factory=list)
    """Topologies ResourceFlavors may name."""
    cluster_queues: list[DnsSubdomain] = Field(default_factory=list)
    """ClusterQueues LocalQueues may submit to."""
    multi_kueue_clusters: list[DnsSubdomain] = Field(default_factory=list)
    """MultiKueueClusters MultiKueueConfigs may list (e.g. those of the ``multiKueue`` section)."""
    extended_resources: list[LabelKey] = Field(default_factory=list)
    """Extended resources that nodes the stack does not manage advertise (an existing cluster's pools, a device
    plugin installed elsewhere), such as ``foo.com/gpu``: quota of them is accepted on a stack with ``aks``, whose
    own pools do not advertise them. Not a Kueue object: a declaration for the queue rules."""


class QueueLints(ConfigModel):
    """Checks stricter than Kueue, which accepts each of these mistakes and then admits nothing (or gates nothing).
    Each is on by default; ``false`` opts out, e.g. for a set-up whose missing piece another tool adds later."""

    cohort_tree: bool = True
    """Cohorts' ``parentName`` chains form no cycle: Kueue accepts a cycle but disables every member of it,
    ClusterQueues included, until it is removed."""
    managed_resources_covered: bool = True
    """Every ``managedResources`` entry of a ProvisioningRequest gate is covered by a flavor it gates: otherwise no
    pod set ever goes into a ProvisioningRequest and the gate is a no-op."""
    local_queue_namespace_selected: bool = True
    """A LocalQueue's ClusterQueue selects the LocalQueue's namespace (``namespaceSelector`` unset selects none),
    where the selector can be evaluated from the namespace's name: otherwise the queue admits nothing."""
    managed_namespaces: bool = True
    """Kueue's ``managedJobsNamespaceSelector`` selects every LocalQueue's namespace: Jobs in a namespace Kueue's
    webhook skips are never suspended, so they bypass the queue."""


class QueuesConfig(ConfigModel):
    """Every Kueue object the stack creates: the lists it writes, or the objects of ``preset``."""

    preset: queues_presets.PresetName | None = None
    """A named set of queue objects instead of the lists below: ``aks-walkthrough`` is the queue manifest of Azure's
    article (https://learn.microsoft.com/en-us/azure/aks/configure-kueue-with-cluster-autoscaler): namespace
    ``cas-kueue-demo``, ResourceFlavor ``scalepool`` (nodes of the pool ``scalepool``), the ProvisioningRequest gate
    ``cas-provisioning``, ClusterQueue ``cas-cluster-queue`` and LocalQueue ``cas-local-queue``. Only
    ``waitUntilActive`` and ``lints`` may be written beside it (docs/kueue-api.md#the-aks-walkthrough-preset says why
    and has its objects written out); unset, the stack gets the objects it writes and no other."""
    namespaces: list[DnsLabel] = Field(default_factory=list)
    """Namespaces the stack creates for its LocalQueues (and deletes on destroy)."""
    existing_namespaces: list[DnsLabel] = Field(default_factory=list)
    """Namespaces that exist already (``default`` as in Kueue's examples, or a team's own) where LocalQueues may
    live too; the stack never creates or deletes them."""
    topologies: list[TopologyConfig] = Field(default_factory=list)
    """Topologies for topology-aware scheduling, named by ResourceFlavors' ``topologyName``."""
    resource_flavors: list[ResourceFlavorConfig] = Field(default_factory=list)
    """The ResourceFlavors: which nodes each quota is for."""
    workload_priority_classes: list[WorkloadPriorityClassConfig] = Field(default_factory=list)
    """Priorities Jobs pick with the ``kueue.x-k8s.io/priority-class`` label."""
    provisioning_checks: list[ProvisioningCheckConfig] = Field(default_factory=list)
    """ProvisioningRequest gates, each an AdmissionCheck run by Kueue's ProvisioningRequest controller with its own
    ProvisioningRequestConfig; none means no queue waits for the autoscaler."""
    provisioning_request_configs: list[ProvisioningRequestConfigConfig] = Field(default_factory=list)
    """ProvisioningRequestConfigs on their own, for ``admissionChecks`` to point at."""
    admission_checks: list[AdmissionCheckConfig] = Field(default_factory=list)
    """AdmissionChecks of any controller, with the object their parameters are in."""
    external: ExternalObjects = Field(default_factory=ExternalObjects)
    """Objects made outside this stack that its objects may name."""
    cohorts: list[CohortConfig] = Field(default_factory=list)
    """Explicit Cohorts; ClusterQueues naming a cohort without one still share quota (Kueue creates it implicitly)."""
    cluster_queues: list[ClusterQueueConfig] = Field(default_factory=list)
    """The ClusterQueues: quota per flavor, and the checks a workload passes before admission."""
    local_queues: list[LocalQueueConfig] = Field(default_factory=list)
    """The LocalQueues Jobs are submitted to, each in one of ``namespaces`` or ``existingNamespaces``."""
    multi_kueue_configs: list[MultiKueueConfigObject] = Field(default_factory=list)
    """MultiKueueConfigs, for MultiKueue AdmissionChecks of ``admissionChecks`` to name (a manager whose workers'
    kubeconfigs are provided outside the stack; the ``multiKueue`` section builds a whole burst set-up instead)."""
    multi_kueue_clusters: list[MultiKueueClusterObject] = Field(default_factory=list)
    """MultiKueueClusters, each reading a kubeconfig the user provides (a Secret in Kueue's namespace or a file on the
    manager's pod) or a ClusterProfile."""
    wait_until_active: WaitUntilActiveConfig = Field(default_factory=WaitUntilActiveConfig)
    """How ``pulumi up`` proves the queues can admit before it finishes."""
    lints: QueueLints = Field(default_factory=QueueLints)
    """Checks stricter than Kueue's own, each on by default and documented with why; set one ``false`` to opt
    out."""

    def named_with(self, suffix: str) -> QueuesConfig:
        """These objects with ``suffix`` on every name and reference (:mod:`components.config.queues.naming`)."""
        return queues_naming.with_name_suffix(self, suffix)

    @property
    def all_admission_checks(self) -> list[AdmissionCheckConfig]:
        """Every AdmissionCheck the stack creates: those of ``provisioningChecks``, then ``admissionChecks``."""
        return [check.admission_check() for check in self.provisioning_checks] + list(self.admission_checks)

    @property
    def all_provisioning_request_configs(self) -> list[ProvisioningRequestConfigConfig]:
        """Every ProvisioningRequestConfig the stack creates: those of ``provisioningChecks``, then the others."""
        pairs = [check.provisioning_request_config() for check in self.provisioning_checks]
        return pairs + list(self.provisioning_request_configs)

    @property
    def all_namespaces(self) -> list[str]:
        """Where LocalQueues may live: the namespaces the stack creates, then the existing ones."""
        return [*self.namespaces, *self.existing_namespaces]

    @property
    def uses_provisioning_requests(self) -> bool:
        """Whether any AdmissionCheck runs on Kueue's ProvisioningRequest controller (Kueue then needs the CRD at
        start-up)."""
        return any(check.runs_provisioning_requests for check in self.all_admission_checks)

    @property
    def needs_provisioning_crd_at_start(self) -> bool:
        """Whether Kueue must find the ProvisioningRequest CRD when it starts, so its install waits for it: a stack
        that accepts inactive checks (``waitUntilActive.onInactive: warn``) neither waits for it nor fails without
        it."""
        return self.uses_provisioning_requests and self.wait_until_active.on_inactive == "fail"

    @stack_file_only("queues.preset-objects", source=_AKS_KUEUE_URL)
    def _preset_objects(cls, data: Any) -> Any:
        """No queue object beside a ``preset``, because the preset writes every queue object itself; the resolved tree
        (validated again) holds them written out already."""
        return queues_presets.with_preset_objects(data, cls.model_fields)

    @model_validator(mode="after")
    @rule("queues.names", source=_K8S_NAMES_URL)
    def _names(self) -> QueuesConfig:
        """Namespaces the stack may create and one object per kind and name, because the API server keeps one and
        ``destroy`` deletes what the stack created."""
        queues_rules.require_new_namespaces(self)
        queues_rules.require_unique_names(self)
        return self

    @model_validator(mode="after")
    @rule("queues.references-resolve", source=_V1BETA2_REF_URL)
    def _references_resolve(self) -> QueuesConfig:
        """Every flavor, topology, check, config, ClusterQueue and MultiKueue cluster a queue object names exists,
        because Kueue leaves an object with a missing reference inactive."""
        queues_rules.require_configured_flavors(self)
        queues_rules.require_configured_topologies(self)
        queues_rules.require_configured_checks(self)
        queues_rules.require_configured_provisioning_configs(self)
        queues_rules.require_local_queue_targets(self)
        queues_rules.require_configured_multikueue_clusters(self)
        return self

    @model_validator(mode="after")
    @rule("queues.lints", source=_CLUSTER_QUEUE_URL)
    def _lints(self) -> QueuesConfig:
        """The lints the ``queues.lints`` switches leave on (cohort tree, covered managed resources, selected LocalQueue
        namespaces), because each catches a queue Kueue accepts but never admits through."""
        if self.lints.cohort_tree:
            queues_rules.require_cohort_tree(self)
        if self.lints.managed_resources_covered:
            queues_rules.require_managed_resources_covered(self)
        if self.lints.local_queue_namespace_selected:
            queues_rules.require_local_queue_namespaces_selected(self)
        return self
