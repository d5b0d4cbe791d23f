"""The ``aks.network`` and ``aks.apiServerAccess`` sections: the engine chosen for each dataplane, and every rule
with a passing and a failing case naming the exact key."""

from __future__ import annotations

from typing import Any

import pytest

from components.config.aks.aks import AksConfig
from components.config.aks.network import MAX_AUTHORIZED_RANGES, AksNetworkConfig, ApiServerAccessConfig
from components.config.base import ConfigError
from components.config.loader import load_stack_config
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


def test_the_api_server_is_open_by_default_and_restricted_by_ranges() -> None:
    default = ApiServerAccessConfig()
    assert (default.authorized_ip_ranges, default.private_cluster, default.allow_unrestricted) == ([], False, False)
    assert not default.restricted
    assert ApiServerAccessConfig.model_validate({"authorizedIpRanges": ["20.30.40.0/24"]}).restricted


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
        access({"authorizedIpRanges": ["20.30.40.0/24", "52.10.20.30/32"]}),
        access({"authorizedIpRanges": ["20.30.40.0/24", "52.10.20.30/24"]}),
        "apiServerAccess.authorizedIpRanges[1]",
    ),
    (
        "authorized ranges are not documentation ranges",
        access({"authorizedIpRanges": ["20.30.40.0/24"]}),
        access({"authorizedIpRanges": ["20.30.40.0/24", "203.0.113.0/24"]}),
        "apiServerAccess.authorizedIpRanges[1]",
    ),
    (
        "at most 200 ranges",
        access({"authorizedIpRanges": [f"10.0.{i}.0/24" for i in range(MAX_AUTHORIZED_RANGES)]}),
        access({"authorizedIpRanges": [f"10.{i // 256}.{i % 256}.0/24" for i in range(MAX_AUTHORIZED_RANGES + 1)]}),
        "apiServerAccess.authorizedIpRanges",
    ),
    (
        "no private cluster without a network to run pulumi in",
        access({"privateCluster": False}),
        access({"privateCluster": True}),
        "apiServerAccess.privateCluster",
    ),
    (
        "unrestricted only when nothing restricts",
        access({"allowUnrestricted": True}),
        access({"allowUnrestricted": True, "authorizedIpRanges": ["20.30.40.0/24"]}),
        "apiServerAccess.allowUnrestricted",
    ),
    (
        "the cilium dataplane needs azure cni, not kubenet",
        network({"plugin": "azure", "pluginMode": None, "dataplane": "cilium"}),  # node subnet
        network({"plugin": "kubenet", "pluginMode": None, "dataplane": "cilium"}),
        "network.dataplane",
    ),
    (
        "the cilium dataplane needs azure cni, not a cni of your own",
        network({"dataplane": "cilium"}),
        network({"plugin": "none", "pluginMode": None, "dataplane": "cilium"}),
        "network.dataplane",
    ),
    (
        "azure network policy manager needs azure cni",
        network({"plugin": "kubenet", "pluginMode": None, "policy": "calico"}),
        network({"plugin": "kubenet", "pluginMode": None, "policy": "azure"}),
        "network.policy",
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
        (access({"allowUnrestricted": True, "authorizedIpRanges": ["20.30.40.0/24"]}), "remove allowUnrestricted"),
        (
            network({"plugin": "kubenet", "pluginMode": None, "dataplane": "cilium"}),
            "'cilium' is not allowed; the Cilium dataplane is Azure CNI Powered by Cilium: it needs plugin 'azure'",
        ),
        (
            network({"plugin": "kubenet", "pluginMode": None, "policy": "azure"}),
            "'azure' is not allowed; Azure Network Policy Manager needs plugin 'azure'",
        ),
    ],
)
def test_each_rule_names_the_value_and_what_is_allowed(section: dict[str, Any], says: str) -> None:
    with pytest.raises(ConfigError, match=says):
        load_stack_config(as_config({"aks": section}))


@pytest.mark.parametrize(
    "documentation",
    ["192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24", "203.0.113.7/32", "198.51.100.128/25"],
)
def test_a_documentation_range_is_refused_as_one_no_runner_sends_from(documentation: str) -> None:
    """RFC 5737's TEST-NET blocks are never routed: no ``pulumi`` could reach an API server restricted to them."""
    with pytest.raises(ConfigError) as caught:
        load_stack_config(as_config({"aks": access({"authorizedIpRanges": [documentation]})}))
    [(key, message)] = caught.value.problems
    assert key == "elastic-capacity:aks.apiServerAccess.authorizedIpRanges[0]"
    assert f"'{documentation}' is not allowed" in message and "is a documentation range (RFC 5737)" in message
    assert "use the egress range of whatever runs pulumi" in message


@pytest.mark.parametrize("wider", ["0.0.0.0/0", "203.0.112.0/23", "198.0.0.0/8"])
def test_a_range_that_contains_a_documentation_range_still_admits_real_addresses(wider: str) -> None:
    assert ApiServerAccessConfig.model_validate({"authorizedIpRanges": [wider]}).authorized_ip_ranges == [wider]


def test_ipv6_ranges_such_as_rfc_3849s_documentation_prefix_are_refused_as_not_ipv4() -> None:
    keys = stack_error_keys({"aks": access({"authorizedIpRanges": ["2001:db8::/32"]})})
    assert keys == ["elastic-capacity:aks.apiServerAccess.authorizedIpRanges[0]"]


def test_a_private_cluster_is_refused_saying_why_and_what_to_use_instead() -> None:
    with pytest.raises(ConfigError) as caught:
        load_stack_config(as_config({"aks": access({"privateCluster": True})}))
    [(key, message)] = caught.value.problems
    assert key == "elastic-capacity:aks.apiServerAccess.privateCluster"
    assert "this program creates no VNet and takes no subnet" in message
    assert (
        "restrict it with authorizedIpRanges" in message
        and "https://learn.microsoft.com/azure/aks/private-clusters" in message
    )
