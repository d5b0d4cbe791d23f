"""A cluster's network under Pulumi mocks: a new VPC with vSwitches, Enhanced NAT, EIP and SNAT, or existing
vSwitches as they are; the NAT zone is checked against the region before the NAT's vSwitch exists."""

from __future__ import annotations

from typing import Any

import pulumi
import pytest
from pulumi_alicloud import Provider as AlicloudProvider

from components.alicloud.ack_network import ack_network
from components.config.ack.network import AckNetworkConfig
from components.config.deploy.checks import AckReport
from tests.support.ack import (
    EIP_ASSOCIATION_TYPE,
    EIP_TYPE,
    EXISTING,
    KEY,
    NAT_TYPE,
    NAT_ZONES_INVOKE,
    NETWORK_TYPES,
    NEW_VPC,
    SNAT_TYPE,
    SWITCH_TYPE,
    VPC_TYPE,
    failed_run,
    invokes,
)
from tools import mock_cloud, mock_runtime
from tools.recording import Recording

TAGS = {"project": "elastic-capacity", "team": "batch"}


def program_for(network: dict[str, Any], physical_name: str | None = None):
    """Build the network of cluster ``ack-demo`` under a component, on a cn-hangzhou provider, as the cluster does;
    export the vSwitch ids it hands to the cluster and the URNs of the SNAT entries the cluster waits for."""

    def program() -> None:
        parent = pulumi.ComponentResource("test:index:Cluster", "ack-demo")
        region = AlicloudProvider("region", region="cn-hangzhou", opts=pulumi.ResourceOptions(parent=parent))
        opts = pulumi.ResourceOptions(parent=parent, provider=region)
        config = AckNetworkConfig.model_validate(network)
        built = ack_network("ack-demo", config, TAGS, opts, AckReport(KEY), physical_name=physical_name)
        pulumi.export("vswitchIds", built.vswitch_ids)
        pulumi.export("podVswitchIds", built.pod_vswitch_ids)
        pulumi.export("snatEntries", [entry.urn for entry in built.snat_entries])

    return program


@pytest.fixture(scope="module")
def new_vpc() -> Recording:
    return mock_runtime.run(program_for(NEW_VPC), {})


def test_every_resource_is_a_tagged_child_on_the_region_provider(new_vpc):
    parent = new_vpc.one("test:index:Cluster").urn
    resources = [r for r in new_vpc.registrations if r.type in NETWORK_TYPES]
    assert {r.type for r in resources} == set(NETWORK_TYPES)
    assert {r.parent for r in resources} == {parent}
    assert {new_vpc.provider_of(r).name for r in resources} == {"region"}
    tagged = [r for r in resources if r.type not in (EIP_ASSOCIATION_TYPE, SNAT_TYPE)]
    assert all(r.inputs["tags"] == TAGS for r in tagged)


def test_a_node_and_a_pod_vswitch_per_zone_in_the_new_vpc(new_vpc):
    vpc = new_vpc.one(VPC_TYPE, "ack-demo-vpc")
    assert (vpc.inputs["vpcName"], vpc.inputs["cidrBlock"]) == ("ack-demo", "10.0.0.0/8")
    switches = {s.name: s for s in new_vpc.by_type(SWITCH_TYPE)}
    expected = {
        "ack-demo-node-cn-hangzhou-k": ("cn-hangzhou-k", "10.1.0.0/16"),
        "ack-demo-pod-cn-hangzhou-k": ("cn-hangzhou-k", "10.4.0.0/16"),
        "ack-demo-node-cn-hangzhou-j": ("cn-hangzhou-j", "10.2.0.0/16"),
        "ack-demo-pod-cn-hangzhou-j": ("cn-hangzhou-j", "10.5.0.0/16"),
    }
    assert {name: (s.inputs["zoneId"], s.inputs["cidrBlock"]) for name, s in switches.items()} == expected
    assert all(s.inputs["vswitchName"] == name for name, s in switches.items())
    assert all(set(s.property_dependencies["vpcId"]) == {vpc.urn} for s in switches.values())
    ids = {s.name: s.id for s in switches.values()}
    assert new_vpc.outputs["vswitchIds"] == [ids["ack-demo-node-cn-hangzhou-k"], ids["ack-demo-node-cn-hangzhou-j"]]
    assert new_vpc.outputs["podVswitchIds"] == [ids["ack-demo-pod-cn-hangzhou-k"], ids["ack-demo-pod-cn-hangzhou-j"]]


def test_nat_gateway_eip_and_snat_give_every_vswitch_egress(new_vpc):
    nat = new_vpc.one(NAT_TYPE)
    assert (nat.inputs["natType"], nat.inputs["paymentType"], nat.inputs["networkType"]) == (
        "Enhanced",
        "PayAsYouGo",
        "internet",
    )
    assert set(nat.property_dependencies["vswitchId"]) == {new_vpc.named("ack-demo-node-cn-hangzhou-k").urn}
    eip = new_vpc.one(EIP_TYPE)
    assert (eip.inputs["bandwidth"], eip.inputs["internetChargeType"]) == ("10", "PayByTraffic")
    association = new_vpc.one(EIP_ASSOCIATION_TYPE)
    assert association.inputs["instanceType"] == "Nat"
    assert set(association.property_dependencies["allocationId"]) == {eip.urn}
    assert set(association.property_dependencies["instanceId"]) == {nat.urn}

    switches = new_vpc.by_type(SWITCH_TYPE)
    entries = new_vpc.by_type(SNAT_TYPE)
    sources = [urn for entry in entries for urn in entry.property_dependencies["sourceVswitchId"]]
    assert sorted(sources) == sorted(s.urn for s in switches), "one SNAT entry per vSwitch"
    for entry in entries:
        assert association.urn in entry.dependencies, "an entry made before the association has no public IP"
        assert set(entry.property_dependencies["snatTableId"]) == {nat.urn}
        assert set(entry.property_dependencies["snatIp"]) == {eip.urn}
    assert sorted(new_vpc.outputs["snatEntries"]) == sorted(e.urn for e in entries), "what the cluster waits for"


def test_the_eip_takes_the_configured_bandwidth_and_charge_type(run_program):
    network = {**NEW_VPC, "natBandwidth": 300, "eipInternetChargeType": "PayByBandwidth"}
    eip = run_program(program_for(network)).one(EIP_TYPE)
    assert (eip.inputs["bandwidth"], eip.inputs["internetChargeType"]) == ("300", "PayByBandwidth")


def test_the_first_zone_is_checked_for_enhanced_nat_on_the_region_provider(new_vpc):
    [call] = invokes(new_vpc, NAT_ZONES_INVOKE)
    assert call.args == {}
    assert call.provider.rsplit("::", 1)[0] == new_vpc.one("pulumi:providers:alicloud").urn


def test_a_first_zone_without_enhanced_nat_fails_before_its_vswitch_exists(monkeypatch):
    """The vSwitch that would hold the NAT gateway takes its zone from the check, so it is never created in vain."""
    monkeypatch.setattr(mock_cloud, "ENHANCED_NAT_ZONES", ("cn-hangzhou-j", "cn-hangzhou-h"))
    error, registered = failed_run(monkeypatch, program_for(NEW_VPC))
    assert error.keys == [f"{KEY}.network.zones[0].zoneId"]
    assert "'cn-hangzhou-k'" in str(error) and "cn-hangzhou-j" in str(error)
    names = {r.name for r in registered}
    assert "ack-demo-vpc" in names
    assert not names & {"ack-demo-node-cn-hangzhou-k", "ack-demo-nat"}


def test_existing_vswitches_register_nothing_and_check_no_nat_zone(run_program):
    recording = run_program(program_for(EXISTING))
    assert [r for r in recording.registrations if r.type in NETWORK_TYPES] == []
    assert invokes(recording, NAT_ZONES_INVOKE) == []
    assert recording.outputs["vswitchIds"] == ["vsw-node1", "vsw-node2"]
    assert recording.outputs["podVswitchIds"] == ["vsw-pod1", "vsw-pod2"]
    assert recording.outputs["snatEntries"] == []


def test_names_in_alibaba_cloud_carry_the_physical_name_and_pulumi_names_stay(run_program):
    """An ephemeral stack's suffix reaches every named network resource, while URNs keep the component's name."""
    recording = run_program(program_for(NEW_VPC, physical_name="ack-demo-pr7"))
    names = {
        r.name: r.inputs.get("vpcName") or r.inputs.get("vswitchName") or r.inputs.get("natGatewayName")
        for r in recording.registrations
        if r.type in (VPC_TYPE, SWITCH_TYPE, NAT_TYPE)
    }
    names[recording.one(EIP_TYPE).name] = recording.one(EIP_TYPE).inputs["addressName"]
    assert names == {
        "ack-demo-vpc": "ack-demo-pr7",
        "ack-demo-node-cn-hangzhou-k": "ack-demo-pr7-node-cn-hangzhou-k",
        "ack-demo-pod-cn-hangzhou-k": "ack-demo-pr7-pod-cn-hangzhou-k",
        "ack-demo-node-cn-hangzhou-j": "ack-demo-pr7-node-cn-hangzhou-j",
        "ack-demo-pod-cn-hangzhou-j": "ack-demo-pr7-pod-cn-hangzhou-j",
        "ack-demo-nat": "ack-demo-pr7",
        "ack-demo-nat-eip": "ack-demo-pr7-nat",
    }
