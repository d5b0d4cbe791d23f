"""The ``aks`` section: the AKS cluster, its node pools and the cluster autoscaler that ProvisioningRequests drive.

Defaults reproduce Azure's walkthrough "Provision capacity for Kueue batch jobs with the cluster autoscaler on AKS"
(https://learn.microsoft.com/en-us/azure/aks/configure-kueue-with-cluster-autoscaler; the AKS team's example
manifests: https://github.com/Azure/AKS/tree/master/examples/kueue-and-ray-on-aks): ``eastus2`` and one system node.
Its autoscaling user pool ``scalepool`` (``Standard_D4s_v3``, 1..5 nodes), which the Kueue ResourceFlavor selects
through the ``agentpool`` label AKS stamps on every node, is no silent default: a stack writes ``userPools`` or names
it with ``preset: aks-walkthrough`` (:data:`POOL_PRESETS`). The walkthrough's fixed names (resource group
``kueue-cas-demo``, cluster ``kueue-cas``) would make a second stack in the same subscription fail, because
azure-native does not adopt a resource that exists (https://github.com/pulumi/pulumi-azure-native/pull/303): unset
names derive from the stack name instead (:func:`default_names`). Keys and enumerations mirror the ARM API that
``pulumi-azure-native`` 3.x targets: managed clusters (https://learn.microsoft.com/rest/api/aks/managed-clusters) and
agent pools (https://learn.microsoft.com/rest/api/aks/agent-pools).
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, ValidationInfo, field_validator, model_validator

from components.config.aks.autoscaler import AutoscalerProfileConfig
from components.config.aks.entra_id import EntraIdConfig
from components.config.aks.gpu import NvidiaConfig
from components.config.aks.maintenance import (
    AUTO_UPGRADE_SCHEDULE,
    NODE_OS_UPGRADE_SCHEDULE,
    AksMaintenanceConfig,
    MaintenanceWindowConfig,
)
from components.config.aks.network import AksNetworkConfig, ApiServerAccessConfig
from components.config.aks.pools import POOL_PRESETS, PoolPresetName, SystemPoolConfig, UserPoolConfig
from components.config.base import (
    PROJECT,
    ConfigModel,
    MisplacedKey,
    MissingKey,
    RuleViolation,
    key_path,
    matching,
    require_unique,
)
from components.config.environment import SUFFIX_MAX, stack_slug, suffixed, validating_resolved
from components.config.rules import rule
from components.config.versions import KubernetesVersion

_AGENT_POOLS_URL = "https://learn.microsoft.com/rest/api/aks/agent-pools/create-or-update"
KUBERNETES_VERSION_KEY = f"{PROJECT}:aks.kubernetesVersion"
API_SERVER_ACCESS_KEY = f"{PROJECT}:aks.apiServerAccess"
"""The keys the deploy-time version pin and access waiter name, from Pulumi's provider process where no config is
loaded."""
_KUEUE_WALKTHROUGH_URL = "https://learn.microsoft.com/azure/aks/configure-kueue-with-cluster-autoscaler"
_AKS_LIMITS_URL = "https://learn.microsoft.com/azure/aks/quotas-skus-regions#service-quotas-and-limits"
_AKS_VERSIONS_URL = "https://learn.microsoft.com/azure/aks/supported-kubernetes-versions"
_AUTOSCALER_URL = "https://learn.microsoft.com/azure/aks/cluster-autoscaler"
_AUTO_UPGRADE_URL = "https://learn.microsoft.com/azure/aks/auto-upgrade-cluster"
_AZURE_TAGS_URL = "https://learn.microsoft.com/azure/azure-resource-manager/management/tag-resources"
_MANAGED_CLUSTERS_URL = "https://learn.microsoft.com/rest/api/aks/managed-clusters/create-or-update"
_NVIDIA_GPU_URL = "https://learn.microsoft.com/azure/aks/use-nvidia-gpu#skip-gpu-driver-installation"
_TAINTS_URL = "https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/"
_WORKLOAD_IDENTITY_URL = "https://learn.microsoft.com/azure/aks/workload-identity-deploy-cluster"

UBUNTU_2204_LAST_MINOR_NEXT = (1, 35)
"""The first Kubernetes minor AKS runs no Ubuntu 22.04 nodes for."""
MAX_POOLS, MAX_CLUSTER_NODES, DEFAULT_CLUSTER_NODES = 100, 5000, 1000
"""AKS's limits per cluster: node pools, nodes across all pools, and the node quota a cluster has until support
raises it (https://learn.microsoft.com/azure/aks/quotas-skus-regions#service-quotas-and-limits)."""

WALKTHROUGH_NAMES = ("kueue-cas-demo", "kueue-cas")
"""The walkthrough's ``RG=kueue-cas-demo`` and ``CLUSTER=kueue-cas``: the names of a section validated outside any
stack (a stack always derives its own)."""
NAME_PREFIX = "kueue-cas"
RESOURCE_GROUP_MAX, CLUSTER_NAME_MAX, DNS_PREFIX_MAX = 90, 63, 54
"""ARM's limits for a resource group name, a managed cluster name and its DNS prefix."""
DNS_PREFIX = r"[A-Za-z0-9]([-A-Za-z0-9]{0,52}[A-Za-z0-9])?"
DNS_PREFIX_RULE = "1-54 letters, digits or '-', alnum at both ends"
"""ARM's rule for ``dnsPrefix`` (https://learn.microsoft.com/rest/api/aks/managed-clusters/create-or-update): stricter
than the cluster name's, which also takes ``_`` and 63 characters."""


def default_names(stack: str | None) -> tuple[str, str]:
    """``(resource group, cluster)`` for a stack whose file names neither: ``kueue-cas-<stack>-rg`` and
    ``kueue-cas-<stack>``, the stack name made a valid name (:func:`~components.config.environment.stack_slug`).

    The cluster name is also the default DNS prefix, so it stays short enough for one (54) with room for any
    ``environment.nameSuffix``. Without a stack (a section validated on its own) they are the walkthrough's.
    """
    if not stack:
        return WALKTHROUGH_NAMES
    room = DNS_PREFIX_MAX - SUFFIX_MAX - len(NAME_PREFIX) - 1
    cluster = f"{NAME_PREFIX}-{stack_slug(stack, room)}"
    return f"{cluster}-rg", cluster


@rule("aks.tags", source=_AZURE_TAGS_URL)
def _tags(tags: dict[str, str]) -> dict[str, str]:
    r"""At most 50 tags, keys of 1-512 characters without ``<>%&\?/`` and values of up to 256, because Azure refuses
    others."""
    if len(tags) > 50:
        raise ValueError("Azure allows at most 50 tags per resource")
    for key, value in tags.items():
        if not key or len(key) > 512 or re.search(r"[<>%&\\?/]", key) or len(value) > 256:
            raise ValueError(f"tag {key!r}: keys are 1-512 characters without <>%&\\?/, values <= 256 characters")
    return tags


Tags = Annotated[dict[str, str], AfterValidator(_tags)]
"""Azure resource tags, within Azure's limits on their number and characters."""


class ResourceGroupConfig(ConfigModel):
    """The resource group of the cluster: created by this stack, or an existing one looked up by name."""

    name: Annotated[
        str,
        matching(r"[-\w.()]{0,89}[-\w()]", "1-90 letters, digits, '-', '_', '.', '(' or ')', not ending in '.'"),
    ] = Field(default=None)  # type: ignore[assignment]  # never None once validated: see AksConfig._names_from_the_stack
    """The resource group's name. Unset: ``kueue-cas-<stack>-rg``, from the Pulumi stack name, so stacks sharing a
    subscription never collide (the walkthrough's ``RG=kueue-cas-demo`` was one fixed name)."""
    create: bool = True
    """``true`` creates the group; ``false`` deploys into a group that already exists (shared subscriptions often
    forbid creating groups)."""


class AksConfig(ConfigModel):
    """An AKS cluster ready for Kueue's ProvisioningRequest admission check (stack key ``elastic-capacity:aks``).

    The keys are those of an ARM managed cluster (https://learn.microsoft.com/rest/api/aks/managed-clusters).
    """

    location: Annotated[str, matching(r"[a-z0-9]+", "an Azure region name such as eastus2")] = "eastus2"
    """The Azure region of the cluster and its resource group (ARM ``location``); the walkthrough's
    ``LOCATION=eastus2``."""
    resource_group: ResourceGroupConfig = Field(default_factory=ResourceGroupConfig)
    """The resource group the cluster is created in."""
    cluster_name: Annotated[
        str,
        matching(
            r"[A-Za-z0-9]([-\w]{0,61}[A-Za-z0-9])?", "1-63 letters, digits, '-' or '_', starting and ending alnum"
        ),
    ] = Field(default=None)  # type: ignore[assignment]  # never None once validated: see _names_from_the_stack
    """The managed cluster's name (ARM ``resourceName``). Unset: ``kueue-cas-<stack>``, from the Pulumi stack name
    (the walkthrough's ``CLUSTER=kueue-cas`` was one fixed name), short enough to be the DNS prefix too. Without
    ``dnsPrefix`` it is the DNS prefix, so it must also pass that rule: no ``_``, at most 54 characters."""
    dns_prefix: Annotated[str, matching(DNS_PREFIX, DNS_PREFIX_RULE)] | None = None
    """The API server's DNS name prefix (ARM ``dnsPrefix``); unset uses the cluster name, which must then pass the
    DNS prefix rule too (``az aks create`` would instead build one from the name, group and subscription)."""
    kubernetes_version: str = "1.35"
    """The Kubernetes version (ARM ``kubernetesVersion``): a minor (``1.35``, AKS picks the newest patch and the
    ``patch`` upgrade channel keeps it current) or an exact patch, checked against AKS's catalogue for the location
    when the cluster is created (``components/azure/aks_catalogue.py``) and held after that until this key changes, one
    minor at a time (``components/waiters/version_pin.py``). AKS's managed cluster autoscaler serves
    ProvisioningRequests from 1.33 on."""
    sku_tier: Literal["Free", "Standard", "Premium"] = "Free"
    """The pricing tier (ARM ``sku.tier``): ``az aks create`` without ``--tier`` (the walkthrough) gives Free.
    Unset with ``environment.kind: production``: Standard, the tier with the uptime SLA and the control plane sized
    for production (https://learn.microsoft.com/azure/aks/free-standard-pricing-tiers); an explicit ``Free`` opts
    out."""
    support_plan: Literal["KubernetesOfficial", "AKSLongTermSupport"] = "KubernetesOfficial"
    """The support plan (ARM ``supportPlan``): ``AKSLongTermSupport`` (with ``skuTier: Premium``) keeps an LTS minor
    such as 1.33 patched past standard support (https://learn.microsoft.com/azure/aks/long-term-support)."""
    entra_id: EntraIdConfig | None = None
    """Sign-in with Entra ID and authorization with Azure RBAC, local accounts off. The identity running Pulumi is
    made "Azure Kubernetes Service RBAC Cluster Admin" of the cluster so the Kubernetes provider can work. Unset with
    ``environment.kind: production``: on with its defaults; an explicit ``null`` opts out (local accounts with a
    static admin credential)."""
    api_server_access: ApiServerAccessConfig = Field(default_factory=ApiServerAccessConfig)
    """Who may reach the API server: authorized IP ranges (ARM ``apiServerAccessProfile``; a private cluster is
    refused)."""
    system_pool: SystemPoolConfig = Field(default_factory=SystemPoolConfig)
    """The system pool, inline in the cluster (ARM ``agentPoolProfiles[0]``, mode ``System``)."""
    preset: PoolPresetName | None = None
    """Named user pools instead of ``userPools``: ``aks-walkthrough`` writes the walkthrough's ``scalepool``
    (``Standard_D4s_v3``, 1 node at creation, autoscaling 1..5). Either this or ``userPools``, never both."""
    user_pools: list[UserPoolConfig] = Field(min_length=1)
    """Autoscaling pools for batch jobs, each an ARM agent pool of mode ``User``. At least one: without one no
    ProvisioningRequest can ever be satisfied. Written, or the pools of ``preset``."""
    nvidia: NvidiaConfig = Field(default_factory=NvidiaConfig)
    """The NVIDIA device plugin or GPU Operator the stack installs by Helm when a user pool has GPUs."""
    autoscaler_profile: AutoscalerProfileConfig = Field(default_factory=AutoscalerProfileConfig)
    """Cluster-autoscaler settings for the whole cluster (ARM ``autoScalerProfile``)."""
    oidc_issuer: bool = True
    """Whether the cluster publishes an OIDC issuer (ARM ``oidcIssuerProfile.enabled``), which workload identity
    federates with."""
    workload_identity: bool = True
    """Workload identity (ARM ``securityProfile.workloadIdentity.enabled``); on by default, as in the AKS example's
    Terraform: jobs reach Azure services without stored secrets."""
    network: AksNetworkConfig = Field(default_factory=AksNetworkConfig)
    """The cluster network (ARM ``networkProfile``)."""
    upgrade_channel: Literal["patch", "node-image", "none"] = "patch"
    """The cluster auto-upgrade channel (ARM ``autoUpgradeProfile.upgradeChannel``): patch releases only by default,
    so a minor upgrade is a deliberate change of ``kubernetesVersion``. ``rapid`` and ``stable``, which move the minor
    themselves, are refused: the next ``up`` would send the stack's older minor, a downgrade ARM refuses."""
    node_os_upgrade_channel: Literal["None", "Unmanaged", "NodeImage", "SecurityPatch"] = "NodeImage"
    """How node OS images are kept current (ARM ``autoUpgradeProfile.nodeOSUpgradeChannel``)."""
    maintenance: AksMaintenanceConfig = Field(default_factory=AksMaintenanceConfig)
    """When AKS may apply what the two upgrade channels pick: a weekly window each by default."""
    tags: Tags = Field(default_factory=lambda: {"project": PROJECT})
    """Azure tags on the resource group, the cluster and its pools."""
    delete_unreachable: bool = False
    """Let ``pulumi destroy`` and ``refresh`` drop Kubernetes objects from the state when their cluster is
    unreachable (https://github.com/pulumi/pulumi-kubernetes/pull/2489). Unset: true with ``environment.kind:
    ephemeral`` (which refuses false), false otherwise; ``production`` refuses true, as a network blip during
    ``refresh`` would then forget the whole Kueue install. False is not sent to the provider, so
    ``PULUMI_K8S_DELETE_UNREACHABLE=true``, the remedy the provider's own error names, still works once the cluster
    is gone."""

    @property
    def effective_dns_prefix(self) -> str:
        return self.dns_prefix or self.cluster_name

    def maintenance_windows(self) -> dict[str, MaintenanceWindowConfig]:
        """The windows of the channels that upgrade anything, by ARM configuration name: none for ``upgradeChannel:
        none``, none for ``nodeOsUpgradeChannel`` ``None`` or ``Unmanaged`` (the OS patches itself, unscheduled)."""
        idle = {AUTO_UPGRADE_SCHEDULE: self.upgrade_channel == "none"}
        idle[NODE_OS_UPGRADE_SCHEDULE] = self.node_os_upgrade_channel in ("None", "Unmanaged")
        return {name: window for name, window in self.maintenance.windows().items() if not idle[name]}

    @model_validator(mode="before")
    @classmethod
    @rule("aks.user-pools-or-preset", source=_KUEUE_WALKTHROUGH_URL)
    def _user_pools_or_preset(cls, data: Any, info: ValidationInfo) -> Any:
        """A stack writes its user pools or names a preset of them, never both: the cluster's pools are what its
        file says, not the walkthrough's by omission, and a pool written beside a preset would replace the preset's
        without a word. A section validated outside any stack gets the walkthrough's, as it gets its names."""
        if not isinstance(data, dict) or validating_resolved(info):
            return data
        written = "userPools" in data or "user_pools" in data
        preset = data.get("preset")
        if preset is None and not written:
            if (info.context or {}).get("stack") is None:
                return {**data, "userPools": POOL_PRESETS["aks-walkthrough"]}
            allowed = (
                "write the autoscaling pools batch jobs run on, or aks.preset: aks-walkthrough for the walkthrough's"
            )
            raise MissingKey("userPools", f"{allowed} scalepool (Standard_D4s_v3, 1..5 nodes)")
        if isinstance(preset, str) and preset in POOL_PRESETS:
            if written:
                raise MisplacedKey("userPools", f"aks.preset {preset!r} writes the user pools: drop one of the two")
            return {**data, "userPools": POOL_PRESETS[preset]}
        return data

    @model_validator(mode="before")
    @classmethod
    def _names_from_the_stack(cls, data: Any, info: ValidationInfo) -> Any:
        """Fill the names the stack file leaves out with the ones :func:`default_names` derives from the stack."""
        if not isinstance(data, dict):
            return data
        group_name, cluster_name = default_names((info.context or {}).get("stack"))
        data = dict(data)
        if data.get("clusterName", data.get("cluster_name")) is None:
            data.pop("cluster_name", None)
            data["clusterName"] = cluster_name
        group_key = "resource_group" if "resource_group" in data else "resourceGroup"
        group = data.get(group_key, {})
        if isinstance(group, dict) and group.get("name") is None:
            data[group_key] = {**group, "name": group_name}
        return data

    def named_with(self, suffix: str) -> AksConfig:
        """This cluster with ``suffix`` on its physical names: the resource group (only one it creates), the cluster
        and the DNS prefix. Raises :class:`RuleViolation` for a name that would grow past ARM's limit."""
        if not suffix:
            return self
        group = self.resource_group
        if group.create:
            group = group.model_copy(
                update={"name": suffixed("resourceGroup.name", group.name, suffix, RESOURCE_GROUP_MAX)}
            )
        return self.model_copy(
            update={
                "resource_group": group,
                "cluster_name": suffixed("clusterName", self.cluster_name, suffix, CLUSTER_NAME_MAX),
                "dns_prefix": self._suffixed_dns_prefix(suffix),
            }
        )

    def _suffixed_dns_prefix(self, suffix: str) -> str:
        """The DNS prefix with ``suffix``; a derived one is refused at ``clusterName``, saying where its shorter limit
        comes from (the suffix keeps it within :data:`DNS_PREFIX_RULE` otherwise: ``-`` and lowercase alnum)."""
        if self.dns_prefix:
            return suffixed("dnsPrefix", self.dns_prefix, suffix, DNS_PREFIX_MAX)
        try:
            return suffixed("clusterName", self.cluster_name, suffix, DNS_PREFIX_MAX)
        except RuleViolation as violation:
            because = f"dnsPrefix is unset, so it is derived from clusterName: {violation.allowed}, or set dnsPrefix"
            raise RuleViolation(violation.key, violation.value, because) from None

    @model_validator(mode="after")
    @rule("aks.cluster-name-is-a-dns-prefix-when-it-is-one", source=_MANAGED_CLUSTERS_URL)
    def _cluster_name_is_a_dns_prefix_when_it_is_one(self) -> AksConfig:
        """ARM refuses a bad ``dnsPrefix`` at create, after the resource group exists: the derived one is the cluster
        name, so the error names the key the user wrote."""
        if self.dns_prefix is None and not re.fullmatch(DNS_PREFIX, self.cluster_name):
            raise RuleViolation(
                "clusterName",
                self.cluster_name,
                f"dnsPrefix is unset, so it is derived from clusterName and must be {DNS_PREFIX_RULE}: "
                "choose such a clusterName or set dnsPrefix",
            )
        return self

    @field_validator("upgrade_channel", mode="before")
    @classmethod
    @rule("aks.the-stack-owns-the-minor", source=_AUTO_UPGRADE_URL)
    def _the_stack_owns_the_minor(cls, value: object) -> object:
        """No ``rapid`` or ``stable`` upgrade channel, because it moves the minor and the next ``up`` is a downgrade."""
        if value in ("rapid", "stable"):
            raise ValueError(
                f"{value!r} moves the cluster's minor without the stack, whose next up would send its older "
                "kubernetesVersion, a downgrade ARM refuses: use patch or node-image, and raise kubernetesVersion to "
                "upgrade"
            )
        return value

    @field_validator("kubernetes_version")
    @classmethod
    @rule("aks.aks-version-form", source=_AKS_VERSIONS_URL)
    def _aks_version_form(cls, value: str) -> str:
        """An AKS version ``1.35`` or ``1.35.2``, because ARM takes no other."""
        if not re.fullmatch(r"\d+\.\d+(\.\d+)?", value):
            raise ValueError("write an AKS Kubernetes version as 1.35 or 1.35.2")
        return value

    @property
    def minor(self) -> tuple[int, int]:
        version = KubernetesVersion.parse(self.kubernetes_version)
        return version.major, version.minor

    @model_validator(mode="after")
    @rule("aks.unique-pool-names", source=_AGENT_POOLS_URL)
    def _unique_pool_names(self) -> AksConfig:
        """Pool names unique in the cluster, because an agent pool's name is its id in ARM; the system pool comes first,
        so only a user pool can be the repeat."""
        names = [self.system_pool.name, *(pool.name for pool in self.user_pools)]
        require_unique(names, lambda index: key_path("userPools", index - 1, "name"), "pool names")
        return self

    @model_validator(mode="after")
    @rule("aks.os-sku-of-the-version")
    def _os_sku_of_the_version(self) -> AksConfig:
        """Ubuntu 22.04 ends with Kubernetes 1.34 on AKS; from 1.35 ``Ubuntu`` is 24.04
        (https://learn.microsoft.com/azure/aks/upgrade-os-version)."""
        if self.minor < UBUNTU_2204_LAST_MINOR_NEXT:
            return self
        pools = [
            ("systemPool", self.system_pool),
            *((key_path("userPools", i), p) for i, p in enumerate(self.user_pools)),
        ]
        for key, pool in pools:
            if pool.os_sku == "Ubuntu2204":
                allowed = f"AKS has no Ubuntu 22.04 nodes for Kubernetes {self.kubernetes_version}: use Ubuntu (24.04)"
                raise RuleViolation(key_path(key, "osSku"), pool.os_sku, allowed)
        return self

    @model_validator(mode="after")
    @rule("aks.cluster-limits", source=_AKS_LIMITS_URL)
    def _cluster_limits(self) -> AksConfig:
        """AKS's own per-cluster limits, refused here rather than by ARM once the cluster and some pools exist."""
        if 1 + len(self.user_pools) > MAX_POOLS:
            allowed = f"AKS allows {MAX_POOLS} node pools per cluster, the system pool included"
            raise RuleViolation(key_path("userPools", MAX_POOLS - 1), len(self.user_pools), allowed)
        if self.most_nodes > MAX_CLUSTER_NODES:
            allowed = f"AKS allows {MAX_CLUSTER_NODES} nodes per cluster across its pools (the pools' maxCount add up)"
            raise RuleViolation("userPools", self.most_nodes, allowed)
        return self

    @property
    def most_nodes(self) -> int:
        """The nodes the cluster can grow to: every pool at its upper bound."""
        system = self.system_pool
        return max(system.count, system.max_count or 0) + sum(pool.max_count for pool in self.user_pools)

    @property
    def gpu_driver(self) -> str | None:
        """``Install`` or ``None`` of the GPU pools (one for all: :meth:`_one_gpu_driver`); ``None`` without any."""
        return next((gpu.driver for pool in self.user_pools if (gpu := pool.gpu_settings)), None)

    @model_validator(mode="after")
    @rule("aks.one-gpu-driver", source=_NVIDIA_GPU_URL)
    def _one_gpu_driver(self) -> AksConfig:
        """The device plugin (for AKS's driver) and the GPU Operator (its own driver) would both advertise the GPUs of
        a node they share, so all GPU pools of a cluster use one driver setting."""
        first = self.gpu_driver
        for index, pool in enumerate(self.user_pools):
            gpu = pool.gpu_settings
            if gpu is not None and gpu.driver != first:
                allowed = f"every GPU pool of the cluster uses one driver; the first uses {first}"
                raise RuleViolation(key_path("userPools", index, "gpu", "driver"), gpu.driver, allowed)
        return self

    @model_validator(mode="after")
    @rule("aks.workload-identity-needs-oidc", source=_WORKLOAD_IDENTITY_URL)
    def _workload_identity_needs_oidc(self) -> AksConfig:
        """Workload identity only with the OIDC issuer, because AKS federates its tokens through the issuer."""
        if self.workload_identity and not self.oidc_issuer:
            raise RuleViolation("oidcIssuer", False, "workloadIdentity needs the OIDC issuer")
        return self
