"""The network of one ACK cluster: a new VPC with Enhanced NAT egress, or vSwitches that already exist.

Pods pulling public images, ACS pods included, need NAT egress
(https://www.alibabacloud.com/help/en/cs/user-guide/acs-pod-instance-overview). The layout follows the VPC of
https://github.com/alibabacloud-automation/terraform-alicloud-managed-kubernetes: node and Terway pod vSwitches per
zone, one Enhanced NAT gateway in the first zone's node vSwitch, an EIP, and one SNAT entry per vSwitch.
"""

from __future__ import annotations

import dataclasses

import pulumi
from pulumi_alicloud import ecs, vpc

from components.alicloud import ack_checks
from components.config.ack.network import AckNetworkConfig
from components.config.deploy.checks import AckReport


@dataclasses.dataclass(frozen=True)
class AckNetwork:
    """The vSwitches a cluster uses, and what it must wait for before its nodes and pods have egress."""

    vswitch_ids: list[pulumi.Input[str]]
    pod_vswitch_ids: list[pulumi.Input[str]]
    snat_entries: list[vpc.SnatEntry]
    """What the cluster waits for: nodes and pods have egress once these exist (none for existing vSwitches)."""


def ack_network(
    name: str,
    args: AckNetworkConfig,
    tags: dict[str, str],
    opts: pulumi.ResourceOptions,
    report: AckReport,
    *,
    physical_name: str | None = None,
) -> AckNetwork:
    """The cluster's network: a new VPC with NAT egress, or the configured vSwitches as they are.

    The resources are registered with ``opts`` (the cluster component as parent, its region provider) rather than
    under a component of their own, so they keep the names and URNs they always had. Their names in Alibaba Cloud
    start with ``physical_name`` (``name`` with the stack's ``environment.nameSuffix``), their Pulumi names with
    ``name``.
    """
    if not args.creates_vpc:
        return AckNetwork(list(args.vswitch_ids), list(args.pod_vswitch_ids), [])
    names = _Names(name, physical_name or name)
    network_vpc = vpc.Network(
        f"{name}-vpc", vpc_name=names.physical, cidr_block=str(args.vpc_cidr), tags=tags, opts=opts
    )
    nat_zone = _enhanced_nat_zone(args, opts, report)
    switches = _vswitches(names, args, network_vpc, nat_zone, tags, opts)
    return AckNetwork(
        [switch.id for switch in switches["node"]],
        [switch.id for switch in switches["pod"]],
        _nat_egress(names, args, network_vpc, switches, tags, opts),
    )


@dataclasses.dataclass(frozen=True)
class _Names:
    """The prefix of the resources' Pulumi names, and of their names in Alibaba Cloud."""

    logical: str
    physical: str


def _vswitches(
    names: _Names,
    args: AckNetworkConfig,
    network_vpc: vpc.Network,
    nat_zone: pulumi.Output[str],
    tags: dict[str, str],
    opts: pulumi.ResourceOptions,
) -> dict[str, list[vpc.Switch]]:
    """A node and a pod vSwitch per zone, by role, in zone order."""
    switches: dict[str, list[vpc.Switch]] = {"node": [], "pod": []}
    for index, zone in enumerate(args.zones):
        for role, cidr in (("node", zone.node_cidr), ("pod", zone.pod_cidr)):
            hosts_nat = index == 0 and role == "node"
            switches[role].append(
                vpc.Switch(
                    f"{names.logical}-{role}-{zone.zone_id}",
                    vswitch_name=f"{names.physical}-{role}-{zone.zone_id}",
                    vpc_id=network_vpc.id,
                    cidr_block=str(cidr),
                    # The NAT gateway's vSwitch is created only once its zone is known to offer Enhanced NAT.
                    zone_id=nat_zone if hosts_nat else zone.zone_id,
                    tags=tags,
                    opts=opts,
                )
            )
    return switches


def _nat_egress(
    names: _Names,
    args: AckNetworkConfig,
    network_vpc: vpc.Network,
    switches: dict[str, list[vpc.Switch]],
    tags: dict[str, str],
    opts: pulumi.ResourceOptions,
) -> list[vpc.SnatEntry]:
    """An Enhanced NAT gateway in the first node vSwitch, its EIP, and one SNAT entry per vSwitch."""
    name = names.logical
    nat = vpc.NatGateway(
        f"{name}-nat",
        vpc_id=network_vpc.id,
        nat_gateway_name=names.physical,
        nat_type="Enhanced",
        payment_type="PayAsYouGo",
        network_type="internet",
        vswitch_id=switches["node"][0].id,
        tags=tags,
        opts=opts,
    )
    eip = ecs.EipAddress(
        f"{name}-nat-eip",
        address_name=f"{names.physical}-nat",
        bandwidth=str(args.nat_bandwidth),
        internet_charge_type=args.eip_internet_charge_type,
        payment_type="PayAsYouGo",
        tags=tags,
        opts=opts,
    )
    association = ecs.EipAssociation(
        f"{name}-nat-eip-association", allocation_id=eip.id, instance_id=nat.id, instance_type="Nat", opts=opts
    )
    # Every vSwitch gets SNAT through the EIP; an entry made before the association would have no public IP.
    after_association = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=[association]))
    return [
        vpc.SnatEntry(
            f"{name}-snat-{role}-{zone.zone_id}",
            snat_table_id=nat.snat_table_ids,
            source_vswitch_id=switch.id,
            snat_ip=eip.ip_address,
            opts=after_association,
        )
        for role, role_switches in switches.items()
        for zone, switch in zip(args.zones, role_switches, strict=True)
    ]


def _enhanced_nat_zone(args: AckNetworkConfig, opts: pulumi.ResourceOptions, report: AckReport) -> pulumi.Output[str]:
    """The first zone, once the region provider confirms it offers Enhanced NAT gateways."""
    zone = args.zones[0].zone_id
    offered = vpc.get_enhanced_nat_available_zones_output(
        opts=pulumi.InvokeOutputOptions(parent=opts.parent, provider=opts.provider)
    )
    return offered.zones.apply(lambda zones: ack_checks.enhanced_nat_zone(report, zone, [z.zone_id for z in zones]))
