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


class TaintConfig(Taint):
    """A node-pool taint: the core taint, whose ``effect`` may be left out here."""

    effect: TaintEffect = "NoSchedule"
    """Always sent to ACK, so an unset effect never depends on a server-side default."""


class AckNodePoolConfig(ConfigModel):
    """ECS nodes for system components and workloads that do not go to ACS. ACK managed Pro runs CoreDNS as a
    Deployment on worker nodes (https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/configure-dns-resolution)
    and virtual nodes are tainted against it, so a cluster with only virtual nodes has no cluster DNS. The virtual-node
    addon and the workloads wait for the pool.

    ``minSize < maxSize`` enables autoscaling; equal sizes give a fixed pool of ``desiredSize`` nodes.
    """

    name: DnsLabel
    """The pool's name in ACK (``node_pool_name``); it is also part of the Pulumi resource name."""
    instance_types: list[str] = Field(min_length=1, max_length=10)
    """ECS instance types such as ``ecs.g7.large``, each once; tried in order when stock runs out."""
    min_size: int = Field(0, ge=0, le=1000)
    """Fewest nodes; below ``maxSize`` it turns on the pool's autoscaling (``scaling_config.min_size``)."""
    max_size: int = Field(ge=0, le=1000)
    """Most nodes; equal to ``minSize`` gives a fixed pool (``scaling_config.max_size``)."""
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
        """The GPU families of ``instanceTypes`` (``ecs.gn*``, ``ecs.ebmgn*``), on which ACK installs the NVIDIA
        driver and device plugin itself (https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/create-an-ack-managed-cluster-with-gpu-accelerated-nodes)."""
        return [t for t in self.instance_types if re.match(r"ecs\.(ebm)?gn", t)]

    @property
    def autoscaling(self) -> bool:
        """Whether the pool scales between ``minSize`` and ``maxSize``."""
        return self.min_size < self.max_size

    @property
    def initial_size(self) -> int:
        """The node count the pool is created with."""
        return self.min_size if self.desired_size is None else self.desired_size

    @model_validator(mode="after")
    @rule("ack-node-pool.sizes-ordered")
    def _sizes_ordered(self) -> AckNodePoolConfig:
        if self.min_size > self.max_size:
            raise RuleViolation("minSize", self.min_size, f"it must not exceed maxSize {self.max_size}")
        if not self.min_size <= self.initial_size <= self.max_size:
            raise RuleViolation(
                "desiredSize", self.desired_size, f"it must lie in minSize..maxSize ({self.min_size}..{self.max_size})"
            )
        require_unique(self.instance_types, lambda i: key_path("instanceTypes", i), "instance types")
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
