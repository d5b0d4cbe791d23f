"""The node pools of the ``aks`` section: the inline system pool and the autoscaling user pools, with the labels
and taints AKS puts on their nodes, and the user pools ``aks.preset`` names.

Keys mirror ARM agent pools (https://learn.microsoft.com/rest/api/aks/agent-pools/create-or-update).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, model_validator

from components.config.aks.gpu import GPU_TAINT, MIG_INSTANCES, GpuPoolConfig
from components.config.aks.vm_sizes import VM_SIZES, is_gpu_size
from components.config.base import ConfigModel, RuleViolation, key_path, matching
from components.config.kube import TAINT_EFFECTS, LabelKey, Labels, is_label_value, is_qualified_name
from components.config.rules import rule

_AGENT_POOLS_URL = "https://learn.microsoft.com/rest/api/aks/agent-pools/create-or-update"
_AUTOSCALER_URL = "https://learn.microsoft.com/azure/aks/cluster-autoscaler"
_NVIDIA_GPU_URL = "https://learn.microsoft.com/azure/aks/use-nvidia-gpu#skip-gpu-driver-installation"
_TAINTS_URL = "https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/"
_AKS_LIMITS_URL = "https://learn.microsoft.com/azure/aks/quotas-skus-regions#service-quotas-and-limits"

MAX_POOL_NODES = 1000
"""AKS's per-pool node limit: the upper bound of every node count."""

CRITICAL_ADDONS_TAINT = "CriticalAddonsOnly=true:NoSchedule"
"""The taint AKS documents for a system pool that only runs critical add-ons."""

POOL_LABEL = "agentpool"
"""The label AKS puts on every node, valued with the node's pool name: how a ResourceFlavor or a pod selects a pool."""

SPOT_LABEL = "kubernetes.azure.com/scalesetpriority"
"""The label and taint key AKS puts on every Spot node, valued ``spot``
(https://learn.microsoft.com/azure/aks/spot-node-pool)."""
SPOT_TAINT = f"{SPOT_LABEL}=spot:NoSchedule"
"""The taint AKS adds to every Spot pool. The stack sends it (and the label) itself: AKS stores both in the pool's
``nodeTaints`` and ``nodeLabels`` anyway, so a program that left them out would differ from the pool it reads back
(https://github.com/kubernetes-sigs/cluster-api-provider-azure/issues/3976)."""

WALKTHROUGH_POOL = "scalepool"
"""The autoscaling user pool the walkthrough adds, which its ResourceFlavor selects."""
PoolPresetName = Literal["aks-walkthrough"]
"""The names ``aks.preset`` takes: the keys of :data:`POOL_PRESETS`."""
POOL_PRESETS: dict[str, list[dict[str, Any]]] = {
    "aks-walkthrough": [
        # az aks nodepool add --name scalepool --node-vm-size Standard_D4s_v3 --node-count 1 --min-count 1
        # --max-count 5 --enable-cluster-autoscaler
        {"name": WALKTHROUGH_POOL, "vmSize": "Standard_D4s_v3", "initialCount": 1, "minCount": 1, "maxCount": 5}
    ]
}
"""Every ``aks.preset`` by name, as the ``userPools`` it writes."""


@rule("aks.taint", source=_TAINTS_URL)
def _taint(text: str) -> str:
    """A taint as ``key=value:Effect`` with a known effect, because AKS and the API server refuse any other."""
    key, _, rest = text.partition("=")
    value, _, effect = rest.rpartition(":")
    if not (is_qualified_name(key) and is_label_value(value) and value and effect in TAINT_EFFECTS):
        raise ValueError(f"write a taint as key=value:Effect with Effect one of {', '.join(TAINT_EFFECTS)}")
    return text


AksTaint = Annotated[str, AfterValidator(_taint)]
"""A node taint as AKS takes it: ``key=value:Effect``."""


PoolName = Annotated[
    str,
    matching(r"[a-z][a-z0-9]{0,11}", "AKS pool names are 1-12 lowercase letters or digits, starting with a letter"),
]
VmSize = Annotated[str, matching(r"Standard_[A-Za-z0-9_]+", "an Azure VM size such as Standard_D4s_v3")]
NodeCount = Annotated[int, Field(ge=0, le=MAX_POOL_NODES)]


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
    priority: Literal["Regular", "Spot"] = "Regular"
    """ARM ``scaleSetPriority``: ``Spot`` nodes cost less and Azure may evict them at any time; user pools only."""


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

    @model_validator(mode="after")
    @rule("aks.system-pool-regular")
    def _system_pool_regular(self) -> SystemPoolConfig:
        """AKS refuses a Spot system pool: "a Spot node pool can't be a default or system node pool"
        (https://learn.microsoft.com/azure/aks/spot-node-pool#limitations)."""
        if self.priority != "Regular":
            raise RuleViolation("priority", self.priority, "the system pool must be Regular: put Spot on a user pool")
        return self

    @property
    def node_taints(self) -> list[str]:
        return [*self.taints, CRITICAL_ADDONS_TAINT] if self.only_critical_addons else list(self.taints)

    @model_validator(mode="after")
    @rule("aks.autoscaling-bounds", source=_AUTOSCALER_URL)
    def _autoscaling_bounds(self) -> SystemPoolConfig:
        """A system pool with both or neither of ``minCount`` and ``maxCount``, because AKS autoscales only between
        both."""
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

    name: PoolName = WALKTHROUGH_POOL
    """The pool's name (ARM ``name``): also the value of the ``agentpool`` label a ResourceFlavor selects it by.
    Unset: the walkthrough's ``scalepool``."""
    vm_size: VmSize = "Standard_D4s_v3"
    """The VM size of every node (ARM ``vmSize``), which decides what one pod can request. Unset: the walkthrough's
    ``Standard_D4s_v3`` (4 vCPUs, so three 1800m pods need more than one node)."""
    min_count: NodeCount = 1
    """The autoscaler's lower bound (ARM ``minCount``). 0 also works and costs nothing while idle."""
    max_count: Annotated[int, Field(ge=1, le=MAX_POOL_NODES)] = 5
    """The autoscaler's upper bound (ARM ``maxCount``). The real ceiling: larger requests fail with
    ``CapacityIsNotFound``."""
    initial_count: NodeCount = 1
    """Nodes at creation (ARM ``count``); afterwards the autoscaler owns the count."""
    eviction_policy: Literal["Delete", "Deallocate"] | None = None
    """With ``priority: Spot``, ARM ``scaleSetEvictionPolicy``: what Azure does to an evicted node. Unset: ``Delete``,
    AKS's default, which the autoscaler can replace; ``Deallocate`` keeps the stopped VM (and its disk cost) in the
    pool's count."""
    spot_max_price: float | None = None
    """With ``priority: Spot``, ARM ``spotMaxPrice`` in US dollars an hour, or -1 (unset): pay up to the on-demand
    price and never be evicted for price (https://learn.microsoft.com/azure/aks/spot-node-pool)."""
    gpu: GpuPoolConfig | None = None
    """GPU settings (ARM ``gpuProfile``, ``gpuInstanceProfile``) of a GPU ``vmSize`` (NC, ND ...). Unset on a GPU
    size: AKS's driver, no MIG, the ``sku=gpu:NoSchedule`` taint."""
    extended_resources: list[LabelKey] = Field(default_factory=list)
    """Extended resources the pool's nodes advertise beside the GPUs this program derives from ``vmSize`` and
    ``gpu``: those of a device plugin the stack does not install (HAMi's ``nvidia.com/gpucores``, a vendor's
    ``foo.com/gpu``). Not an ARM field: it tells the queue rules that quota of them on this pool's flavors is real."""

    @property
    def spot(self) -> bool:
        return self.priority == "Spot"

    @property
    def gpu_settings(self) -> GpuPoolConfig | None:
        """The pool's GPU settings, defaults for a GPU size written without any; ``None`` for a CPU pool."""
        return self.gpu if self.gpu is not None else (GpuPoolConfig() if is_gpu_size(self.vm_size) else None)

    @property
    def node_taints(self) -> list[str]:
        """Every taint the pool's nodes carry: the written ones, then AKS's Spot taint; the GPU taint only on a GPU
        pool that writes no taint of its own (so the written taints are the pool's taints)."""
        gpu = self.gpu_settings
        derived = [SPOT_TAINT] * self.spot + [GPU_TAINT] * bool(gpu and gpu.taint and not self.taints)
        return [*self.taints, *(taint for taint in derived if taint not in self.taints)]

    @property
    def node_labels(self) -> dict[str, str]:
        """The labels the pool sends: the written ones and, on Spot, AKS's own ``scalesetpriority`` label."""
        return {**self.labels, **({SPOT_LABEL: "spot"} if self.spot else {})}

    @model_validator(mode="after")
    @rule("aks.count-bounds", source=_AUTOSCALER_URL)
    def _count_bounds(self) -> UserPoolConfig:
        """A user pool's counts keep :func:`_check_counts`, because the autoscaler scales between them."""
        _check_counts(self.min_count, self.initial_count, self.max_count, "initialCount")
        return self

    @model_validator(mode="after")
    @rule("aks.spot-settings-only-on-spot")
    def _spot_settings_only_on_spot(self) -> UserPoolConfig:
        """ARM takes ``scaleSetEvictionPolicy`` and ``spotMaxPrice`` only with ``scaleSetPriority: Spot``, and a max
        price above zero or -1 (https://learn.microsoft.com/rest/api/aks/agent-pools/create-or-update)."""
        for key, value in (("evictionPolicy", self.eviction_policy), ("spotMaxPrice", self.spot_max_price)):
            if value is not None and not self.spot:
                raise RuleViolation(key, value, "only a priority: Spot pool takes it")
        if self.spot_max_price is not None and self.spot_max_price <= 0 and self.spot_max_price != -1:
            raise RuleViolation("spotMaxPrice", self.spot_max_price, "a price above 0 US dollars an hour, or -1")
        return self

    @model_validator(mode="after")
    @rule("aks.gpu-settings-on-a-gpu-size")
    def _gpu_settings_on_a_gpu_size(self) -> UserPoolConfig:
        """``gpu`` needs a GPU size, and MIG an A100, H100 or H200 one
        (https://learn.microsoft.com/azure/aks/gpu-multi-instance): AKS would refuse the pool only at create."""
        if self.gpu is not None and not is_gpu_size(self.vm_size):
            raise RuleViolation("gpu", "set", f"{self.vm_size} has no GPU: use an NC or ND size, or drop gpu")
        profile = self.gpu.instance_profile if self.gpu is not None else None
        size = VM_SIZES.get(self.vm_size)
        if profile is not None and (size is None or not size.mig):
            mig_sizes = ", ".join(name for name, known in VM_SIZES.items() if known.mig)
            allowed = f"MIG needs an A100, H100 or H200 size ({mig_sizes}); {self.vm_size} is not one"
            raise RuleViolation(key_path("gpu", "instanceProfile"), profile, allowed)
        return self

    @model_validator(mode="after")
    @rule("aks.mig-as-the-autoscaler-counts-it")
    def _mig_as_the_autoscaler_counts_it(self) -> UserPoolConfig:
        """MIG only where it is partitioned and counted as the autoscaler counts it. AKS partitions the GPUs with its
        own driver (``gpuInstanceProfile``); with ``driver: None`` the GPU Operator's MIG manager would switch MIG off,
        its default config being ``all-disabled`` (https://github.com/NVIDIA/gpu-operator/blob/v25.10.1/deployments/gpu-operator/values.yaml).
        From zero nodes the cluster autoscaler plans a node with the size's whole GPUs as ``nvidia.com/gpu``
        (``azure_template.go`` in https://github.com/kubernetes/autoscaler), not its MIG instances: a pool keeps a
        node it can learn the real counts from."""
        profile = self.gpu.instance_profile if self.gpu is not None else None
        if profile is None or self.gpu is None:
            return self
        if self.gpu.driver == "None":
            allowed = "MIG is AKS's (gpuInstanceProfile, with its driver): drop instanceProfile or use driver Install"
            raise RuleViolation(key_path("gpu", "instanceProfile"), profile, allowed)
        if self.min_count == 0:
            size = VM_SIZES[self.vm_size]
            allowed = (
                f"a MIG pool keeps a node: from zero the autoscaler plans {size.gpus} whole GPU(s) per node, not "
                f"{size.gpus * MIG_INSTANCES[profile]} {profile} instances; set minCount to 1 or more"
            )
            raise RuleViolation("minCount", 0, allowed)
        return self


@rule("aks.pool-counts", source=_AUTOSCALER_URL)
def _check_counts(minimum: int, current: int, maximum: int, current_key: str) -> None:
    """``minCount`` <= count <= ``maxCount``, because AKS refuses a count outside the bounds."""
    if minimum > maximum:
        raise RuleViolation("minCount", minimum, f"minCount must be <= maxCount ({maximum})")
    if not minimum <= current <= maximum:
        raise RuleViolation(
            current_key, current, f"{current_key} must lie within minCount..maxCount ({minimum}..{maximum})"
        )
