"""Rules of ``ack.clusters[].network``: exactly one complete mode, vSwitch CIDRs that fit the VPC, each naming the
exact key. (That zones lie in the cluster's region is a rule of the cluster, in ``test_ack``.)"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from components.config.ack.network import AckNetworkConfig
from tests.support.ack import EXISTING, NEW_VPC, ZONE_J, ZONE_K
from tests.support.config import model_error_keys


def error_keys(network: dict[str, Any]) -> list[str]:
    return model_error_keys(AckNetworkConfig, network, "network")


def message(network: dict[str, Any]) -> str:
    with pytest.raises(ValidationError) as caught:
        AckNetworkConfig.model_validate(network)
    return str(caught.value)


def test_new_vpc_mode():
    network = AckNetworkConfig.model_validate(NEW_VPC)
    assert network.creates_vpc
    assert [z.zone_id for z in network.zones] == ["cn-hangzhou-k", "cn-hangzhou-j"]
    assert (network.nat_bandwidth, network.eip_internet_charge_type) == (10, "PayByTraffic")
    assert (network.vswitch_ids, network.pod_vswitch_ids) == ([], [])


def test_existing_network_mode():
    network = AckNetworkConfig.model_validate(EXISTING)
    assert not network.creates_vpc
    assert network.pod_vswitch_ids == ["vsw-pod1", "vsw-pod2"]


@pytest.mark.parametrize(
    ("network", "key"),
    [
        ({**NEW_VPC, "vswitchIds": ["vsw-node1"]}, "network.vswitchIds"),
        ({"natBandwidth": 20, "podVswitchIds": ["vsw-pod1"]}, "network.podVswitchIds"),
        ({}, "network"),
        ({"zones": [ZONE_K]}, "network.vpcCidr"),
        ({"vpcCidr": "10.0.0.0/8"}, "network.zones"),
        ({"vpcCidr": "10.0.0.0/8", "zones": []}, "network.zones"),
        ({"vswitchIds": ["vsw-node1"]}, "network.podVswitchIds"),
        ({"vswitchIds": ["vsw-a"], "podVswitchIds": ["vsw-a"]}, "network.podVswitchIds[0]"),
        ({"vswitchIds": ["subnet-1"], "podVswitchIds": ["vsw-b"]}, "network.vswitchIds[0]"),
    ],
)
def test_network_is_exactly_one_complete_mode(network, key):
    assert error_keys(network) == [key]


def test_mixed_modes_say_which_keys_describe_the_new_vpc_and_never_quote_a_placeholder():
    text = message({**NEW_VPC, "vswitchIds": ["vsw-node1"]})
    assert "['vpcCidr', 'zones'] describe a new VPC" in text
    assert "'set'" not in text
    assert "{} is not allowed" in message({}), "an empty network is quoted as the empty mapping it is"


@pytest.mark.parametrize(
    ("zones", "key"),
    [
        ([{**ZONE_K, "nodeCidr": "172.16.0.0/16"}], "network.zones[0].nodeCidr"),
        ([ZONE_K, {**ZONE_J, "nodeCidr": "10.1.128.0/20"}], "network.zones[1].nodeCidr"),
        ([{**ZONE_K, "podCidr": "10.1.0.0/16"}], "network.zones[0].podCidr"),
        ([{**ZONE_K, "podCidr": "10.4.0.0/30"}], "network.zones[0].podCidr"),
        ([{**ZONE_K, "nodeCidr": "10.0.0.0/15"}], "network.zones[0].nodeCidr"),
        ([ZONE_K, {**ZONE_J, "zoneId": "cn-hangzhou-k"}], "network.zones[1].zoneId"),
    ],
)
def test_zones_fit_the_vpc_and_appear_once(zones, key):
    assert error_keys({"vpcCidr": "10.0.0.0/8", "zones": zones}) == [key]


def test_a_repeated_zone_is_named_by_its_own_key():
    assert "zone ids must be unique" in message({"vpcCidr": "10.0.0.0/8", "zones": [ZONE_K, ZONE_K]})


def test_vpc_cidr_is_private():
    private = {"zoneId": "cn-hangzhou-k", "nodeCidr": "172.16.0.0/20", "podCidr": "172.17.0.0/16"}
    AckNetworkConfig.model_validate({"vpcCidr": "172.16.0.0/12", "zones": [private]})
    assert error_keys({"vpcCidr": "8.0.0.0/8", "zones": [ZONE_K]}) == ["network.vpcCidr"]


@pytest.mark.parametrize(("charge", "limit"), [("PayByTraffic", 200), ("PayByBandwidth", 500)])
def test_nat_bandwidth_limit_depends_on_the_charge_type(charge, limit):
    network = {**NEW_VPC, "eipInternetChargeType": charge}
    assert AckNetworkConfig.model_validate({**network, "natBandwidth": limit}).nat_bandwidth == limit
    assert error_keys({**network, "natBandwidth": limit + 1}) == ["network.natBandwidth"]
