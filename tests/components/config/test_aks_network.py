"""The ``aks.network`` and ``aks.apiServerAccess`` sections: the engine chosen for each dataplane, and every rule
with a passing and a failing case naming the exact key."""

from __future__ import annotations

from typing import Any

import pytest

from components.config.aks import AksConfig
from components.config.aks_network import MAX_AUTHORIZED_RANGES, AksNetworkConfig, ApiServerAccessConfig
from components.config.base import ConfigError
from components.config.stack import load_stack_config
from tests.support.config import as_config, stack_error_keys


def network(fields: dict[str, Any]) -> dict[str, Any]:
    return {"network": fields}


def test_default_is_azure_cni_overlay_with_aks_defaults_for_the_rest() -> None:
    assert AksNetworkConfig().model_dump(exclude_none=True) == {"plugin": "azure", "plugin_mode": "overlay"}


@pytest.mark.parametrize(
    ("fields", "engine"),
    [
        ({}, "calico"),  # Azure CNI overlay
        ({"dataplane": "cilium"}, "cilium"),  # the only engine of the Cilium dataplane
        ({"dataplane": "azure"}, "calico"),
        ({"plugin": "kubenet", "pluginMode": None}, "calico"),
        ({"plugin": "none", "pluginMode": None}, None),  # a CNI of your own brings its own policy engine
        ({"policy": "none"}, "none"),  # the opt-out
        ({"policy": "azure"}, "azure"),
    ],
)
def test_a_network_policy_engine_is_on_unless_opted_out(fields: dict[str, Any], engine: str | None) -> None:
    assert AksNetworkConfig.model_validate(fields).effective_policy == engine


def test_the_api_server_is_open_by_default_and_restricted_by_ranges_or_a_private_endpoint() -> None:
    default = ApiServerAccessConfig()
    assert (default.authorized_ip_ranges, default.private_cluster, default.allow_unrestricted) == ([], False, False)
    assert not default.restricted
    assert ApiServerAccessConfig.model_validate({"authorizedIpRanges": ["203.0.113.0/24"]}).restricted
    assert ApiServerAccessConfig.model_validate({"privateCluster": True}).restricted


def access(fields: dict[str, Any]) -> dict[str, Any]:
    return {"apiServerAccess": fields}


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
        "no other engine on the cilium dataplane",
        network({"dataplane": "cilium", "policy": "cilium"}),
        network({"dataplane": "cilium", "policy": "calico"}),
        "network.policy",
    ),
    (
        "the cilium dataplane always enforces policy",
        network({"dataplane": "cilium"}),
        network({"dataplane": "cilium", "policy": "none"}),
        "network.policy",
    ),
    (
        "no aks engine without an aks cni",
        network({"plugin": "none", "pluginMode": None, "policy": "none"}),
        network({"plugin": "none", "pluginMode": None, "policy": "calico"}),
        "network.policy",
    ),
    (
        "authorized ranges are networks",
        access({"authorizedIpRanges": ["203.0.113.0/24", "198.51.100.7/32"]}),
        access({"authorizedIpRanges": ["203.0.113.0/24", "198.51.100.7/24"]}),
        "apiServerAccess.authorizedIpRanges[1]",
    ),
    (
        "at most 200 ranges",
        access({"authorizedIpRanges": [f"10.0.{i}.0/24" for i in range(MAX_AUTHORIZED_RANGES)]}),
        access({"authorizedIpRanges": [f"10.{i // 256}.{i % 256}.0/24" for i in range(MAX_AUTHORIZED_RANGES + 1)]}),
        "apiServerAccess.authorizedIpRanges",
    ),
    (
        "ranges or a private endpoint",
        access({"privateCluster": True}),
        access({"privateCluster": True, "authorizedIpRanges": ["203.0.113.0/24"]}),
        "apiServerAccess.authorizedIpRanges",
    ),
    (
        "unrestricted only when nothing restricts",
        access({"allowUnrestricted": True}),
        access({"allowUnrestricted": True, "privateCluster": True}),
        "apiServerAccess.allowUnrestricted",
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


@pytest.mark.parametrize(
    ("section", "says"),
    [
        (
            network({"dataplane": "cilium", "policy": "calico"}),
            "'calico' is not allowed; the Cilium dataplane enforces",
        ),
        (network({"plugin": "none", "pluginMode": None, "policy": "azure"}), "'azure' is not allowed; plugin 'none'"),
        (access({"privateCluster": True, "authorizedIpRanges": ["203.0.113.0/24"]}), "a private cluster has no"),
        (access({"allowUnrestricted": True, "authorizedIpRanges": ["203.0.113.0/24"]}), "remove allowUnrestricted"),
    ],
)
def test_each_rule_names_the_value_and_what_is_allowed(section: dict[str, Any], says: str) -> None:
    with pytest.raises(ConfigError, match=says):
        load_stack_config(as_config({"aks": section}))
