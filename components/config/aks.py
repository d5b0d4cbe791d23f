"""The ``aks`` section: the AKS cluster, its node pools and the cluster autoscaler that ProvisioningRequests drive.

Defaults reproduce Azure's walkthrough "Provision capacity for Kueue batch jobs with the cluster autoscaler on AKS"
(https://learn.microsoft.com/en-us/azure/aks/configure-kueue-with-cluster-autoscaler; the AKS team's example
manifests: https://github.com/Azure/AKS/tree/master/examples/kueue-and-ray-on-aks): resource group
``kueue-cas-demo`` in ``eastus2``, cluster ``kueue-cas`` with one system node, and one autoscaling user pool
``scalepool`` (``Standard_D4s_v3``, 1..5 nodes) that the Kueue ResourceFlavor selects through the ``agentpool`` label
AKS stamps on every node. Keys and enumerations mirror the ARM API that ``pulumi-azure-native`` 3.x targets: managed
clusters (https://learn.microsoft.com/rest/api/aks/managed-clusters) and agent pools
(https://learn.microsoft.com/rest/api/aks/agent-pools).
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import AfterValidator, Field, field_validator, model_validator

from components.config.aks_network import AksNetworkConfig
from components.config.base import PROJECT, ConfigModel, RuleViolation, key_path, require_unique
from components.config.entra_id import EntraIdConfig
from components.config.kube import TAINT_EFFECTS, Labels, is_label_value, is_qualified_name
from components.versions import KubernetesVersion

AKS_VERSIONS_URL = "https://learn.microsoft.com/azure/aks/supported-kubernetes-versions"
AKS_VERSIONS_CHECKED = "2026-11-30"
AKS_GA_MINORS = ((1, 34), (1, 35), (1, 36))
"""Minors AKS lists as generally available on :data:`AKS_VERSIONS_CHECKED` (:data:`AKS_VERSIONS_URL`). A newer minor
is accepted (AKS itself refuses one it does not offer in the region); an older one needs LTS or is refused."""
AKS_PROVISIONING_REQUESTS_MIN = (1, 33)
"""AKS's managed cluster autoscaler serves ProvisioningRequests from Kubernetes 1.33 on
(https://github.com/Azure/AKS/pull/5867, correcting https://github.com/Azure/AKS/issues/5492). Every minor a new
cluster may use (:data:`AKS_GA_MINORS`, :data:`AKS_LTS_ONLY_MINORS`) is at least this; an existing cluster is checked
at deploy time."""
AKS_LTS_ONLY_MINORS = ((1, 33),)
"""Minors past standard support that AKS still patches under Long-Term Support (Premium tier, ``AKSLongTermSupport``
plan) on :data:`AKS_VERSIONS_CHECKED`: 1.33 since July 2026."""

MAX_POOL_NODES = 1000
"""AKS's per-pool node limit: the upper bound of every node count."""

CRITICAL_ADDONS_TAINT = "CriticalAddonsOnly=true:NoSchedule"
"""The taint AKS documents for a system pool that only runs critical add-ons."""

POOL_LABEL = "agentpool"
"""The label AKS puts on every node, valued with the node's pool name: how a ResourceFlavor or a pod selects a pool."""


def _matching(pattern: str, allowed: str) -> AfterValidator:
    """A string check whose error says what is allowed, in words rather than as a regular expression."""
    compiled = re.compile(pattern)

    def check(value: str) -> str:
        if not compiled.fullmatch(value):
            raise ValueError(allowed)
        return value

    return AfterValidator(check)


def _taint(text: str) -> str:
    key, _, rest = text.partition("=")
    value, _, effect = rest.rpartition(":")
    if not (is_qualified_name(key) and is_label_value(value) and value and effect in TAINT_EFFECTS):
        raise ValueError(f"write a taint as key=value:Effect with Effect one of {', '.join(TAINT_EFFECTS)}")
    return text


def _tags(tags: dict[str, str]) -> dict[str, str]:
    if len(tags) > 50:
        raise ValueError("Azure allows at most 50 tags per resource")
    for key, value in tags.items():
        if not key or len(key) > 512 or re.search(r"[<>%&\\?/]", key) or len(value) > 256:
            raise ValueError(f"tag {key!r}: keys are 1-512 characters without <>%&\\?/, values <= 256 characters")
    return tags


AksTaint = Annotated[str, AfterValidator(_taint)]
"""A node taint as AKS takes it: ``key=value:Effect``."""

Tags = Annotated[dict[str, str], AfterValidator(_tags)]
"""Azure resource tags, within Azure's limits on their number and characters."""

PoolName = Annotated[
    str,
    _matching(r"[a-z][a-z0-9]{0,11}", "AKS pool names are 1-12 lowercase letters or digits, starting with a letter"),
]
VmSize = Annotated[str, _matching(r"Standard_[A-Za-z0-9_]+", "an Azure VM size such as Standard_D4s_v3")]
NodeCount = Annotated[int, Field(ge=0, le=MAX_POOL_NODES)]

Minutes = Annotated[str, _matching(r"\d+m", "an integer number of minutes followed by 'm', e.g. '10m'")]
Seconds = Annotated[str, _matching(r"\d+s?", "an integer number of seconds, e.g. '10' or '10s'")]
Duration = Annotated[str, _matching(r"\d+[smh]", "an integer followed by s, m or h, e.g. '0s'")]
Integer = Annotated[str, _matching(r"\d+", "a non-negative integer written as a string, e.g. '600'")]
BoolString = Annotated[str, _matching(r"true|false", "'true' or 'false' (a string, as AKS wants it)")]
Percentage = Annotated[str, _matching(r"(100|\d{1,2})", "an integer percentage 0-100 written as a string")]
Fraction = Annotated[
    str, _matching(r"0(\.\d+)?|1(\.0+)?", "a fraction between 0 and 1 written as a string, e.g. '0.5'")
]


class ResourceGroupConfig(ConfigModel):
    """The resource group of the cluster: created by this stack, or an existing one looked up by name."""

    name: Annotated[
        str,
        _matching(r"[-\w.()]{0,89}[-\w()]", "1-90 letters, digits, '-', '_', '.', '(' or ')', not ending in '.'"),
    ] = "kueue-cas-demo"
    """The resource group's name (the walkthrough's ``RG=kueue-cas-demo``)."""
    create: bool = True
    """``true`` creates the group; ``false`` deploys into a group that already exists (shared subscriptions often
    forbid creating groups)."""


class AksNodePoolConfig(ConfigModel):
    """What the system pool and the user pools share: the agent pool properties of
    https://learn.microsoft.com/rest/api/aks/agent-pools/create-or-update."""

    name: PoolName
    """The pool's name (ARM ``name``): also the value of the ``agentpool`` label on its nodes."""
    vm_size: VmSize
    """The VM size of every node (ARM ``vmSize``), e.g. ``Standard_D4s_v3``."""
    labels: Labels = Field(default_factory=dict)
    """Kubernetes labels AKS puts on every node of the pool (ARM ``nodeLabels``)."""
    taints: list[AksTaint] = Field(default_factory=list)
    """Taints AKS puts on every node of the pool, as ``key=value:Effect`` (ARM ``nodeTaints``)."""
    availability_zones: list[Literal["1", "2", "3"]] | None = None
    """Zones the pool's nodes spread over (ARM ``availabilityZones``); unset lets Azure choose."""
    max_pods: Annotated[int, Field(ge=10, le=250)] | None = None
    """Pods per node (ARM ``maxPods``); unset keeps AKS's default (250 with Azure CNI overlay)."""
    os_sku: Literal["Ubuntu", "Ubuntu2204", "AzureLinux", "AzureLinux3"] | None = None
    """The node OS (ARM ``osSKU``); Linux only, as the pools run Linux batch pods and Kueue. Unset keeps AKS's
    default, Ubuntu."""


class SystemPoolConfig(AksNodePoolConfig):
    """The inline pool AKS requires; Kueue's controller and the cluster add-ons run here.

    It does not autoscale by default: the walkthrough creates it with ``az aks create --node-count 1``. Setting both
    ``minCount`` and ``maxCount`` turns the autoscaler on for it too.
    """

    name: PoolName = "system"
    """The pool's name (ARM ``name``): also the value of the ``agentpool`` label on its nodes."""
    vm_size: VmSize = "Standard_D4ds_v6"
    """The VM size of every node (ARM ``vmSize``); the default is the system pool size of the AKS example's Terraform
    module."""
    count: Annotated[int, Field(ge=1, le=MAX_POOL_NODES)] = 1
    """Nodes at creation (ARM ``count``); the walkthrough's ``--node-count 1``. A system pool never goes below one
    node."""
    min_count: Annotated[int, Field(ge=1, le=MAX_POOL_NODES)] | None = None
    """With ``maxCount``: the autoscaler's lower bound (ARM ``minCount``); unset keeps the pool at ``count``."""
    max_count: Annotated[int, Field(ge=1, le=MAX_POOL_NODES)] | None = None
    """With ``minCount``: the autoscaler's upper bound (ARM ``maxCount``); unset keeps the pool at ``count``."""
    only_critical_addons: bool = True
    """Taint the pool ``CriticalAddonsOnly=true:NoSchedule`` so batch pods never land on it (Kueue tolerates it)."""

    @property
    def autoscales(self) -> bool:
        return self.min_count is not None

    @property
    def node_taints(self) -> list[str]:
        return [*self.taints, CRITICAL_ADDONS_TAINT] if self.only_critical_addons else list(self.taints)

    @model_validator(mode="after")
    def _autoscaling_bounds(self) -> SystemPoolConfig:
        if (self.min_count is None) != (self.max_count is None):
            missing = "maxCount" if self.max_count is None else "minCount"
            raise RuleViolation(missing, None, "set both minCount and maxCount to autoscale the system pool, or none")
        if self.min_count is not None and self.max_count is not None:
            _check_counts(self.min_count, self.count, self.max_count, "count")
        return self


class UserPoolConfig(AksNodePoolConfig):
    """An autoscaling pool batch jobs run on; a Kueue ResourceFlavor selects it by its ``agentpool`` label.

    Every user pool autoscales: ProvisioningRequests only work through the cluster autoscaler.
    """

    name: PoolName = "scalepool"
    """The pool's name (ARM ``name``): also the value of the ``agentpool`` label a ResourceFlavor selects it by."""
    vm_size: VmSize = "Standard_D4s_v3"
    """The VM size of every node (ARM ``vmSize``); the walkthrough's ``--node-vm-size Standard_D4s_v3``: 4 vCPUs, so
    three 1800m pods need more than one node."""
    min_count: NodeCount = 1
    """The autoscaler's lower bound (ARM ``minCount``); the walkthrough's ``--min-count 1``. 0 also works and costs
    nothing while idle."""
    max_count: Annotated[int, Field(ge=1, le=MAX_POOL_NODES)] = 5
    """The autoscaler's upper bound (ARM ``maxCount``); the walkthrough's ``--max-count 5``. The real ceiling:
    larger requests fail with ``CapacityIsNotFound``."""
    initial_count: NodeCount = 1
    """Nodes at creation (ARM ``count``; the walkthrough's ``--node-count 1``); afterwards the autoscaler owns the
    count."""

    @model_validator(mode="after")
    def _count_bounds(self) -> UserPoolConfig:
        _check_counts(self.min_count, self.initial_count, self.max_count, "initialCount")
        return self


def _minors(minors: tuple[tuple[int, int], ...]) -> str:
    return ", ".join(f"{major}.{minor}" for major, minor in minors)


def _check_counts(minimum: int, current: int, maximum: int, current_key: str) -> None:
    if minimum > maximum:
        raise RuleViolation("minCount", minimum, f"minCount must be <= maxCount ({maximum})")
    if not minimum <= current <= maximum:
        raise RuleViolation(
            current_key, current, f"{current_key} must lie within minCount..maxCount ({minimum}..{maximum})"
        )


class AutoscalerProfileConfig(ConfigModel):
    """Cluster-autoscaler settings, passed as they are to ``ManagedClusterPropertiesAutoScalerProfileArgs``.

    Field names match that class's arguments and the ARM ``autoScalerProfile``
    (https://learn.microsoft.com/rest/api/aks/managed-clusters/create-or-update#autoscalerprofile); values are
    strings in the formats the ARM API documents. Unset keys keep AKS's defaults, which
    https://learn.microsoft.com/azure/aks/cluster-autoscaler#cluster-autoscaler-profile-settings lists. The AKS
    example suggests short scale-down times for demos.
    """

    expander: Literal["least-waste", "most-pods", "priority", "random"] | None = None
    """How the autoscaler picks the pool to grow when several fit (AKS default ``random``)."""
    scan_interval: Seconds | None = None
    """How often the autoscaler re-evaluates the cluster, e.g. ``10s`` (AKS default 10 s)."""
    scale_down_unneeded_time: Minutes | None = None
    """How long a node must be unneeded before it is removed, e.g. ``10m``."""
    scale_down_delay_after_add: Minutes | None = None
    """How long after a scale-up scale-down evaluation resumes, e.g. ``10m``."""
    scale_down_delay_after_delete: Minutes | None = None
    """How long after a node deletion scale-down evaluation resumes; AKS defaults to the scan interval."""
    scale_down_delay_after_failure: Minutes | None = None
    """How long after a failed scale-down evaluation resumes, e.g. ``3m``."""
    scale_down_unready_time: Minutes | None = None
    """How long an unready node must be unneeded before it is removed, e.g. ``20m``."""
    scale_down_utilization_threshold: Fraction | None = None
    """Requested over allocatable resources below which a node counts as unneeded, e.g. ``'0.5'``."""
    max_graceful_termination_sec: Integer | None = None
    """Seconds the autoscaler waits for pods to terminate when it removes a node, e.g. ``'600'``."""
    max_node_provision_time: Minutes | None = None
    """How long the autoscaler waits for a new node to be provisioned, e.g. ``15m``."""
    max_empty_bulk_delete: Integer | None = None
    """Empty nodes the autoscaler removes at once, e.g. ``'10'``."""
    max_total_unready_percentage: Percentage | None = None
    """Unready nodes, in percent of the cluster, above which the autoscaler stops acting, e.g. ``'45'``."""
    ok_total_unready_count: Integer | None = None
    """Unready nodes allowed whatever ``maxTotalUnreadyPercentage`` says, e.g. ``'3'``."""
    new_pod_scale_up_delay: Duration | None = None
    """How young a pending pod may be and still be ignored for scale-up, e.g. ``0s``."""
    balance_similar_node_groups: BoolString | None = None
    """``'true'`` keeps similar pools at similar sizes."""
    skip_nodes_with_local_storage: BoolString | None = None
    """``'true'`` never removes a node whose pods use local storage (emptyDir, hostPath)."""
    skip_nodes_with_system_pods: BoolString | None = None
    """``'true'`` never removes a node running kube-system pods other than DaemonSet pods."""
    daemonset_eviction_for_empty_nodes: bool | None = None
    """Whether DaemonSet pods are gracefully evicted from nodes without other pods before removal."""
    daemonset_eviction_for_occupied_nodes: bool | None = None
    """Whether DaemonSet pods are gracefully evicted from nodes with other pods before removal."""
    ignore_daemonsets_utilization: bool | None = None
    """Whether DaemonSet pods are left out of a node's utilization when deciding scale-down."""


class AksConfig(ConfigModel):
    """An AKS cluster ready for Kueue's ProvisioningRequest admission check (stack key ``elastic-capacity:aks``).

    The keys are those of an ARM managed cluster (https://learn.microsoft.com/rest/api/aks/managed-clusters).
    """

    location: Annotated[str, _matching(r"[a-z0-9]+", "an Azure region name such as eastus2")] = "eastus2"
    """The Azure region of the cluster and its resource group (ARM ``location``); the walkthrough's
    ``LOCATION=eastus2``."""
    resource_group: ResourceGroupConfig = ResourceGroupConfig()
    """The resource group the cluster is created in."""
    cluster_name: Annotated[
        str,
        _matching(
            r"[A-Za-z0-9]([-\w]{0,61}[A-Za-z0-9])?", "1-63 letters, digits, '-' or '_', starting and ending alnum"
        ),
    ] = "kueue-cas"
    """The managed cluster's name (ARM ``resourceName``); the walkthrough's ``CLUSTER=kueue-cas``."""
    dns_prefix: (
        Annotated[
            str,
            _matching(
                r"[A-Za-z0-9]([-A-Za-z0-9]{0,52}[A-Za-z0-9])?", "1-54 letters, digits or '-', alnum at both ends"
            ),
        ]
        | None
    ) = None
    """The API server's DNS name prefix (ARM ``dnsPrefix``); unset uses the cluster name, as ``az aks create``
    does."""
    kubernetes_version: str = "1.35"
    """The Kubernetes version (ARM ``kubernetesVersion``): a minor (``1.35``, AKS picks the newest patch and the
    ``patch`` upgrade channel keeps it current) or an exact patch. AKS's managed cluster autoscaler serves
    ProvisioningRequests from 1.33 on."""
    sku_tier: Literal["Free", "Standard", "Premium"] = "Free"
    """The pricing tier (ARM ``sku.tier``): ``az aks create`` without ``--tier`` (the walkthrough) gives Free;
    choose Standard for the uptime SLA."""
    support_plan: Literal["KubernetesOfficial", "AKSLongTermSupport"] = "KubernetesOfficial"
    """The support plan (ARM ``supportPlan``): ``AKSLongTermSupport`` (with ``skuTier: Premium``) keeps an LTS minor
    such as 1.33 patched past standard support (https://learn.microsoft.com/azure/aks/long-term-support)."""
    entra_id: EntraIdConfig | None = None
    """Sign-in with Entra ID and authorization with Azure RBAC, local accounts off. The identity running Pulumi is
    made "Azure Kubernetes Service RBAC Cluster Admin" of the cluster so the Kubernetes provider can work."""
    system_pool: SystemPoolConfig = SystemPoolConfig()
    """The system pool, inline in the cluster (ARM ``agentPoolProfiles[0]``, mode ``System``)."""
    user_pools: list[UserPoolConfig] = Field(default_factory=lambda: [UserPoolConfig()], min_length=1)
    """Autoscaling pools for batch jobs, each an ARM agent pool of mode ``User``. At least one: without one no
    ProvisioningRequest can ever be satisfied."""
    autoscaler_profile: AutoscalerProfileConfig = AutoscalerProfileConfig()
    """Cluster-autoscaler settings for the whole cluster (ARM ``autoScalerProfile``)."""
    oidc_issuer: bool = True
    """Whether the cluster publishes an OIDC issuer (ARM ``oidcIssuerProfile.enabled``), which workload identity
    federates with."""
    workload_identity: bool = True
    """Workload identity (ARM ``securityProfile.workloadIdentity.enabled``); on by default, as in the AKS example's
    Terraform: jobs reach Azure services without stored secrets."""
    network: AksNetworkConfig = AksNetworkConfig()
    """The cluster network (ARM ``networkProfile``)."""
    upgrade_channel: Literal["rapid", "stable", "patch", "node-image", "none"] = "patch"
    """The cluster auto-upgrade channel (ARM ``autoUpgradeProfile.upgradeChannel``): patch releases only by default,
    so a minor upgrade is a deliberate change of ``kubernetesVersion``."""
    node_os_upgrade_channel: Literal["None", "Unmanaged", "NodeImage", "SecurityPatch"] = "NodeImage"
    """How node OS images are kept current (ARM ``autoUpgradeProfile.nodeOSUpgradeChannel``)."""
    tags: Tags = Field(default_factory=lambda: {"project": PROJECT})
    """Azure tags on the resource group, the cluster and its pools."""
    delete_unreachable: bool = False
    """For ephemeral stacks: let ``pulumi destroy`` drop Kubernetes objects whose cluster is already gone."""

    @property
    def effective_dns_prefix(self) -> str:
        return self.dns_prefix or self.cluster_name

    @field_validator("kubernetes_version")
    @classmethod
    def _aks_version_form(cls, value: str) -> str:
        if not re.fullmatch(r"\d+\.\d+(\.\d+)?", value):
            raise ValueError("write an AKS Kubernetes version as 1.35 or 1.35.2")
        return value

    @property
    def minor(self) -> tuple[int, int]:
        version = KubernetesVersion.parse(self.kubernetes_version)
        return version.major, version.minor

    @model_validator(mode="after")
    def _version_in_support(self) -> AksConfig:
        if self.minor in AKS_GA_MINORS or self.minor > max(AKS_GA_MINORS):
            return self
        supported = f"AKS supports {_minors(AKS_GA_MINORS)} as of {AKS_VERSIONS_CHECKED} ({AKS_VERSIONS_URL})"
        if self.minor not in AKS_LTS_ONLY_MINORS:
            raise RuleViolation(
                "kubernetesVersion", self.kubernetes_version, f"{supported}; LTS: {_minors(AKS_LTS_ONLY_MINORS)}"
            )
        if self.support_plan != "AKSLongTermSupport" or self.sku_tier != "Premium":
            raise RuleViolation(
                "kubernetesVersion",
                self.kubernetes_version,
                f"{supported}; this minor is LTS-only: set supportPlan AKSLongTermSupport and skuTier Premium",
            )
        return self

    @model_validator(mode="after")
    def _unique_pool_names(self) -> AksConfig:
        """The system pool comes first, so only a user pool can ever be the repeat."""
        names = [self.system_pool.name, *(pool.name for pool in self.user_pools)]
        require_unique(names, lambda index: key_path("userPools", index - 1, "name"), "pool names")
        return self

    @model_validator(mode="after")
    def _workload_identity_needs_oidc(self) -> AksConfig:
        if self.workload_identity and not self.oidc_issuer:
            raise RuleViolation("oidcIssuer", False, "workloadIdentity needs the OIDC issuer")
        return self
