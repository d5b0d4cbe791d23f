"""The documented ordering requirements of the Alibaba Cloud half: the network, the node pool and the ACK Virtual
Node every ACS pod and ACK-hosted Kueue needs (see :mod:`tools.bench_rules` for what a requirement is)."""

from __future__ import annotations

from tools.bench_plan import (
    CHART,
    JOB,
    Context,
    Requirement,
    Resource,
    inputs,
    is_addon,
    is_queued_job,
    provider_urn,
    same_parent,
)


def _pods_on_ack_nodes(r: Resource, d: Resource, ctx: Context) -> bool:
    """A chart or an awaited workload whose pods (not ACS pods) need the cluster's ECS nodes to become ready."""
    runs_pods = r["type"] == CHART or (r["type"] == JOB and not is_queued_job(r))
    provider = ctx.resource(provider_urn(r))
    same_cluster = provider is not None and same_parent(provider, d)
    return runs_pods and d["type"] == "alicloud:cs/nodePool:NodePool" and same_cluster


def _snat_after_association(r: Resource, d: Resource, _: Context) -> bool:
    return (
        r["type"] == "alicloud:vpc/snatEntry:SnatEntry"
        and d["type"] == "alicloud:ecs/eipAssociation:EipAssociation"
        and same_parent(r, d)
    )


def _ack_cluster_after_snat(r: Resource, d: Resource, _: Context) -> bool:
    own_nat = inputs(r).get("newNatGateway") is False
    return (
        r["type"] == "alicloud:cs/managedKubernetes:ManagedKubernetes"
        and own_nat
        and d["type"] == "alicloud:vpc/snatEntry:SnatEntry"
        and same_parent(r, d)
    )


def _virtual_node_after_pool(r: Resource, d: Resource, _: Context) -> bool:
    return is_addon(r, "ack-virtual-node") and d["type"] == "alicloud:cs/nodePool:NodePool" and same_parent(r, d)


def _acs_pods_after_virtual_node(r: Resource, d: Resource, ctx: Context) -> bool:
    provider = ctx.resource(provider_urn(r))
    same_cluster = provider is not None and same_parent(provider, d)
    acs = r["type"] in (
        "kubernetes:apps/v1:Deployment",
        "kubernetes:scheduling.alibabacloud.com/v1alpha1:ResourcePolicy",
    )
    return acs and is_addon(d, "ack-virtual-node") and same_cluster


def _pods_after_resource_policy(r: Resource, d: Resource, _: Context) -> bool:
    policy = d["type"] == "kubernetes:scheduling.alibabacloud.com/v1alpha1:ResourcePolicy"
    return r["type"] == "kubernetes:apps/v1:Deployment" and policy and same_parent(r, d)


ACK_REQUIREMENTS: tuple[Requirement, ...] = (
    Requirement(
        "ack-nodes",
        "a Helm chart or awaited Job on an ACK cluster after that cluster's node pool",
        "their pods run on ECS nodes, and Pulumi waits for them to be ready",
        "https://www.pulumi.com/registry/packages/kubernetes/api-docs/helm/v4/chart/",
        _pods_on_ack_nodes,
    ),
    Requirement(
        "snat-eip",
        "a SNAT entry after the EIP's association with its NAT gateway",
        "a SNAT entry's IP must be an EIP associated with the NAT gateway",
        "https://www.alibabacloud.com/help/en/nat-gateway/developer-reference/api-vpc-2016-04-28-createsnatentry",
        _snat_after_association,
    ),
    Requirement(
        "cluster-egress",
        "an ACK cluster without ACK's own SNAT (newNatGateway false) after the SNAT entries of its vSwitches",
        "without ACK's own SNAT the VPC must already give the nodes Internet access",
        "https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/create-an-ack-managed-cluster",
        _ack_cluster_after_snat,
    ),
    Requirement(
        "addon-nodes",
        "the ack-virtual-node addon after its cluster's node pool",
        "the addon's controller and CoreDNS run as pods on ECS nodes",
        "https://www.alibabacloud.com/help/tc/cs/user-guide/access-acs-computing-power-in-an-ack-cluster",
        _virtual_node_after_pool,
    ),
    Requirement(
        "virtual-node",
        "an ACS Deployment or ResourcePolicy after its own cluster's ack-virtual-node addon",
        "ACS pods are scheduled onto the virtual node; pods created before it never reach ACS, and ACK documents "
        "ResourcePolicy scheduling to ACS only with it installed",
        "https://www.alibabacloud.com/help/tc/cs/user-guide/access-acs-computing-power-in-an-ack-cluster",
        _acs_pods_after_virtual_node,
    ),
    Requirement(
        "resource-policy",
        "a Deployment after the ResourcePolicy that schedules it",
        "a policy only affects pods created after it",
        "https://www.alibabacloud.com/help/en/cs/user-guide/custom-resource-priority-scheduling",
        _pods_after_resource_policy,
    ),
)
"""The Alibaba Cloud half's orderings, in the order the benchmark prints them."""
