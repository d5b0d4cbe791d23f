"""The ECS node pool of one ACK cluster (``ack.clusters[].nodePool``): where CoreDNS and the addons' own pods run.

Each field mirrors an argument of the provider's ``cs.NodePool``
(https://registry.terraform.io/providers/aliyun/alicloud/latest/docs/resources/cs_node_pool).
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import Field, model_validator

from components.config.base import ConfigModel, DnsLabel, RuleViolation, key_path, matching, require_unique
from components.config.kube import Labels, Taint, TaintEffect
from components.config.rules import rule

_TF_POOL_URL = "https://registry.terraform.io/providers/aliyun/alicloud/latest/docs/resources/cs_kubernetes_node_pool"


class TaintConfig(Taint):
    """A node-pool taint: the core taint, whose ``effect`` may be left out here."""

    effect: TaintEffect = "NoSchedule"
    """Always sent to ACK, so an unset effect never depends on a server-side default."""


GPU_FAMILY = re.compile(r"^ecs\.(ebm|scc)?[sv]?gn\d")
"""ECS's NVIDIA GPU families: ``gn`` (compute), ``vgn`` and ``sgn`` (GRID vGPU, dedicated and shared), their bare
metal ``ebmgn`` and SCC ``sccgn`` forms (https://help.aliyun.com/en/egs/instance-naming-conventions)."""


class AckNodePoolConfig(ConfigModel):
    """ECS nodes for what does not go to ACS: the cluster's system pool (``nodePool``), where CoreDNS runs, or one of
    its ``userPools``. ACK managed Pro runs CoreDNS as a Deployment on worker nodes
    (https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/configure-dns-resolution)
    and virtual nodes are tainted against it, so a cluster with only virtual nodes has no cluster DNS.

    A pool is fixed at ``maxSize`` nodes unless ``minSize`` is below it, which turns on the pool's autoscaling.
    """

    name: DnsLabel
    """The pool's name in ACK (``node_pool_name``); it is also part of the Pulumi resource name."""
    instance_types: list[str] = Field(min_length=1, max_length=10)
    """ECS instance types such as ``ecs.g7.large``, each once; tried in order when stock runs out."""
    min_size: int | None = Field(None, ge=0, le=1000)
    """Fewest nodes; below ``maxSize`` it turns on the pool's autoscaling (``scaling_config.min_size``), which only
    a user pool may. Unset: ``maxSize``, a fixed pool: an autoscaled pool's nodes carry ACK's ``k8s.aliyun.com=true``
    label, which keeps CoreDNS off them, and scale only once the cluster's node scaling is on."""
    max_size: int = Field(ge=0, le=1000)
    """Most nodes (``scaling_config.max_size``); the size of a fixed pool."""
    desired_size: int | None = None
    """Initial node count; defaults to ``minSize``. With autoscaling the autoscaler owns it afterwards."""
    system_disk_category: Literal["cloud_essd", "cloud_auto", "cloud_ssd", "cloud_efficiency"] = "cloud_essd"
    """The disk type of each node's system disk (``system_disk_category``)."""
    system_disk_size: int = Field(120, ge=20, le=2048)
    """Size of each node's system disk in GiB: room for the container images of the node's pods."""
    labels: Labels = Field(default_factory=dict)
    """Kubernetes labels ACK puts on every node of the pool."""
    taints: list[TaintConfig] = Field(default_factory=list)
    """Taints ACK puts on every node of the pool, keeping pods that do not tolerate them off it."""
    spot_strategy: Literal["NoSpot", "SpotWithPriceLimit", "SpotAsPriceGo"] = "NoSpot"
    """ECS preemptible instances (``spot_strategy``): ``SpotAsPriceGo`` bids the market price, up to pay-as-you-go;
    ``SpotWithPriceLimit`` caps each instance type at its ``spotPriceLimits`` entry. ECS reclaims spot instances
    with about five minutes' notice (https://www.alibabacloud.com/help/en/ecs/user-guide/spot-instances)."""
    spot_price_limits: dict[str, Annotated[str, matching(r"\d+(\.\d+)?", "an hourly price such as '0.62'")]] = Field(
        default_factory=dict
    )
    """With ``SpotWithPriceLimit``: the highest hourly price per instance type of ``instanceTypes``
    (``spot_price_limit[].instance_type`` and ``price_limit``), one for each."""

    @property
    def gpu_instance_types(self) -> list[str]:
        """The NVIDIA GPU families of ``instanceTypes`` (:data:`GPU_FAMILY`), on which ACK installs the driver and
        device plugin itself (https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/create-an-ack-managed-cluster-with-gpu-accelerated-nodes)."""
        return [t for t in self.instance_types if GPU_FAMILY.match(t)]

    @property
    def minimum(self) -> int:
        """The fewest nodes: ``minSize``, or ``maxSize`` when it is unset."""
        return self.max_size if self.min_size is None else self.min_size

    @property
    def autoscaling(self) -> bool:
        """Whether the pool scales between ``minSize`` and ``maxSize``."""
        return self.minimum < self.max_size

    @property
    def initial_size(self) -> int:
        """The node count the pool is created with."""
        return self.minimum if self.desired_size is None else self.desired_size

    @property
    def scaling_type(self) -> Literal["cpu", "gpu", "spot"]:
        """ACK's class of the pool's instances (``scaling_config.type``: ``cpu``, ``gpu``, ``gpushare`` or ``spot``),
        which its autoscaler plans with: ``spot`` for preemptible instances, as the provider's Spot autoscaling
        example sets it, ``gpu`` for GPU families, else ``cpu``
        (https://registry.terraform.io/providers/aliyun/alicloud/latest/docs/resources/cs_kubernetes_node_pool)."""
        if self.spot_strategy != "NoSpot":
            return "spot"
        return "gpu" if self.gpu_instance_types else "cpu"

    @model_validator(mode="after")
    @rule("ack-node-pool.sizes-ordered", source=_TF_POOL_URL)
    def _sizes_ordered(self) -> AckNodePoolConfig:
        """``minSize`` <= ``desiredSize`` <= ``maxSize`` and each instance type once, because the node pool's scaling
        group refuses sizes out of order."""
        if self.minimum > self.max_size:
            raise RuleViolation("minSize", self.min_size, f"it must not exceed maxSize {self.max_size}")
        if not self.minimum <= self.initial_size <= self.max_size:
            raise RuleViolation(
                "desiredSize", self.desired_size, f"it must lie in minSize..maxSize ({self.minimum}..{self.max_size})"
            )
        require_unique(self.instance_types, lambda i: key_path("instanceTypes", i), "instance types")
        return self

    @model_validator(mode="after")
    @rule("ack-node-pool.one-kind-of-instance", source=_TF_POOL_URL)
    def _one_kind_of_instance(self) -> AckNodePoolConfig:
        """A pool's instance types are all GPU families or none: ACK picks among them by stock, so whether a node
        has a GPU would depend on which type was in stock, and its autoscaler plans a pool as one ``type``."""
        gpus = self.gpu_instance_types
        if gpus and len(gpus) < len(self.instance_types):
            cpus = [t for t in self.instance_types if t not in gpus]
            raise RuleViolation(
                "instanceTypes", self.instance_types, f"GPU types {gpus} or CPU types {cpus}, in separate pools"
            )
        return self

    @model_validator(mode="after")
    @rule("ack-node-pool.spot-price-limits")
    def _spot_price_limits(self) -> AckNodePoolConfig:
        """The provider sends ``spot_price_limit`` only with ``SpotWithPriceLimit``, and ECS then needs a limit for
        every instance type (``spot_strategy`` of
        https://registry.terraform.io/providers/aliyun/alicloud/latest/docs/resources/cs_kubernetes_node_pool)."""
        limited = self.spot_strategy == "SpotWithPriceLimit"
        if self.spot_price_limits and not limited:
            raise RuleViolation(
                "spotPriceLimits", list(self.spot_price_limits), "only with spotStrategy SpotWithPriceLimit"
            )
        for name in self.spot_price_limits:
            if name not in self.instance_types:
                raise RuleViolation(
                    key_path("spotPriceLimits", name), name, f"one of instanceTypes {self.instance_types}"
                )
        missing = [t for t in self.instance_types if limited and t not in self.spot_price_limits]
        if missing:
            raise RuleViolation("spotPriceLimits", sorted(self.spot_price_limits), f"give a limit for {missing}")
        return self
