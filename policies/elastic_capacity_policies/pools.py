"""Autoscaling pools have a lower bound no higher than their upper bound.

AKS: the inline ``agentPoolProfiles`` of a ``ManagedCluster`` and each ``AgentPool`` resource with
``enableAutoScaling`` (https://learn.microsoft.com/azure/aks/cluster-autoscaler); ACK: the ``scalingConfig`` of a
``cs.NodePool`` (https://registry.terraform.io/providers/aliyun/alicloud/latest/docs/resources/cs_node_pool).
"""

from __future__ import annotations

from typing import Any

from pulumi_policy import EnforcementLevel, ReportViolation, ResourceValidationArgs, ResourceValidationPolicy

from elastic_capacity_policies.aks import MANAGED_CLUSTER
from elastic_capacity_policies.facts import mapping, number, sequence

AGENT_POOL = "azure-native:containerservice:AgentPool"
ACK_NODE_POOL = "alicloud:cs/nodePool:NodePool"

AKS_AUTOSCALER_URL = "https://learn.microsoft.com/azure/aks/cluster-autoscaler"
ACK_NODE_POOL_URL = "https://registry.terraform.io/providers/aliyun/alicloud/latest/docs/resources/cs_node_pool"

_AKS = ("minCount", "maxCount")


def _bounds(where: str, low: Any, high: Any, keys: tuple[str, str], *, required: bool) -> str | None:
    """What is wrong with an autoscaling pool's bounds, or ``None``."""
    if not isinstance(low, int | float) or not isinstance(high, int | float):
        if not required:
            return None
        return f"{where} autoscales but does not set both {keys[0]} and {keys[1]} (it has {low!r} and {high!r})."
    if low > high:
        return (
            f"{where} autoscales with {keys[0]} {number(low)} above {keys[1]} {number(high)}: "
            f"{keys[0]} must not exceed {keys[1]}."
        )
    return None


def _problems(args: ResourceValidationArgs) -> list[str]:
    props = args.props
    if args.resource_type == MANAGED_CLUSTER:
        problems = []
        for index, profile in enumerate(sequence(props.get("agentPoolProfiles"))):
            pool = mapping(profile)
            if pool.get("enableAutoScaling") is True:
                where = f"AKS cluster {args.name!r} agentPoolProfiles[{index}] ({pool.get('name')!r})"
                problems.append(_bounds(where, pool.get("minCount"), pool.get("maxCount"), _AKS, required=True))
        return [p for p in problems if p]
    if args.resource_type == AGENT_POOL and props.get("enableAutoScaling") is True:
        where = f"AKS agent pool {props.get('agentPoolName') or args.name!r}"
        problem = _bounds(where, props.get("minCount"), props.get("maxCount"), _AKS, required=True)
        return [problem] if problem else []
    if args.resource_type == ACK_NODE_POOL:
        scaling = mapping(props.get("scalingConfig"))
        if scaling and scaling.get("enable") is not False:
            where = f"ACK node pool {props.get('nodePoolName') or args.name!r}"
            low, high = scaling.get("minSize"), scaling.get("maxSize")
            problem = _bounds(where, low, high, ("scalingConfig.minSize", "scalingConfig.maxSize"), required=False)
            return [problem] if problem else []
    return []


def validate_pool_bounds(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    for problem in _problems(args):
        report_violation(problem, None)


POOL_BOUNDS = ResourceValidationPolicy(
    name="autoscaling-pool-bounds",
    description=(
        "An autoscaling node pool's minimum is not above its maximum: AKS's cluster autoscaler needs "
        f"minCount <= maxCount on every pool with enableAutoScaling ({AKS_AUTOSCALER_URL}), and an ACK node pool's "
        f"scalingConfig needs minSize <= maxSize ({ACK_NODE_POOL_URL}); the cloud refuses the pool otherwise, after "
        "a preview that looked fine."
    ),
    validate=validate_pool_bounds,
    enforcement_level=EnforcementLevel.MANDATORY,
    url=AKS_AUTOSCALER_URL,
)

POLICIES = [POOL_BOUNDS]
