"""The ``aks.network`` section: every rule with a passing and a failing case naming the exact key."""

from __future__ import annotations

from typing import Any

import pytest

from components.config.aks import AksConfig
from components.config.aks_network import AksNetworkConfig
from tests.support.config import stack_error_keys


def network(fields: dict[str, Any]) -> dict[str, Any]:
    return {"network": fields}


def test_default_is_azure_cni_overlay_with_aks_defaults_for_the_rest() -> None:
    assert AksNetworkConfig().model_dump(exclude_none=True) == {"plugin": "azure", "plugin_mode": "overlay"}


# (rule, an ``aks`` section that passes, one that breaks it, the key the error must name under ``aks.``)
RULES: list[tuple[str, dict[str, Any], dict[str, Any], str]] = [
    (
        "overlay needs azure",
        network({"plugin": "kubenet", "pluginMode": None}),
        network({"plugin": "kubenet"}),
        "network.pluginMode",
    ),
    (
        "cilium policy needs cilium dataplane",
        network({"dataplane": "cilium", "policy": "cilium"}),
        network({"policy": "cilium"}),
        "network.policy",
    ),
    (
        "pod cidr needs overlay",
        network({"podCidr": "10.244.0.0/16"}),
        network({"pluginMode": None, "podCidr": "10.244.0.0/16"}),
        "network.podCidr",
    ),
    (
        "cidr syntax",
        network({"serviceCidr": "10.1.0.0/16", "dnsServiceIp": "10.1.0.10"}),
        network({"serviceCidr": "10.1.0.1/16", "dnsServiceIp": "10.1.0.10"}),
        "network.serviceCidr",
    ),
    (
        "dns ip with service cidr",
        network({"serviceCidr": "10.1.0.0/16", "dnsServiceIp": "10.1.0.10"}),
        network({"serviceCidr": "10.1.0.0/16"}),
        "network.dnsServiceIp",
    ),
    (
        "dns ip inside service cidr",
        network({"serviceCidr": "10.1.0.0/16", "dnsServiceIp": "10.1.255.254"}),
        network({"serviceCidr": "10.1.0.0/16", "dnsServiceIp": "10.2.0.10"}),
        "network.dnsServiceIp",
    ),
    (
        "pod and service cidrs apart",
        network({"podCidr": "10.244.0.0/16", "serviceCidr": "10.1.0.0/16", "dnsServiceIp": "10.1.0.10"}),
        network({"podCidr": "10.0.0.0/8", "serviceCidr": "10.1.0.0/16", "dnsServiceIp": "10.1.0.10"}),
        "network.serviceCidr",
    ),
    (
        "outbound type",
        network({"outboundType": "managedNATGateway"}),
        network({"outboundType": "nat"}),
        "network.outboundType",
    ),
]


@pytest.mark.parametrize(("good", "bad", "key"), [rule[1:] for rule in RULES], ids=[rule[0] for rule in RULES])
def test_rule(good: dict[str, Any], bad: dict[str, Any], key: str) -> None:
    AksConfig.model_validate(good)
    assert stack_error_keys({"aks": bad}) == [f"elastic-capacity:aks.{key}"]
