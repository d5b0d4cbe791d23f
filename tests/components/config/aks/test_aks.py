"""The ``aks`` section: the walkthrough's defaults, names per stack, and every rule with a good and a bad case naming
its key."""

from __future__ import annotations

from typing import Any

import pytest

from components.config.aks.aks import AksConfig
from components.config.aks.pools import CRITICAL_ADDONS_TAINT
from components.config.base import ConfigError, RuleViolation
from components.config.loader import load_stack_config
from tests.support.config import as_config, stack_error_keys

MIG_POOL = {"name": "mig", "vmSize": "Standard_ND96isr_H200_v5", "minCount": 1, "initialCount": 1, "maxCount": 2}


def pools(*overrides: dict[str, Any]) -> dict[str, Any]:
    return {"userPools": list(overrides)}


def test_defaults_reproduce_the_walkthrough() -> None:
    aks = load_stack_config(as_config({"aks": {"preset": "aks-walkthrough"}})).aks
    assert aks is not None
    assert (aks.location, aks.resource_group.name, aks.resource_group.create) == ("eastus2", "kueue-cas-demo", True)
    assert (aks.cluster_name, aks.effective_dns_prefix) == ("kueue-cas", "kueue-cas")
    assert aks.system_pool.count == 1 and not aks.system_pool.autoscales
    assert aks.system_pool.node_taints == [CRITICAL_ADDONS_TAINT]
    [pool] = aks.user_pools
    assert (pool.name, pool.vm_size, pool.min_count, pool.initial_count, pool.max_count) == (
        "scalepool",
        "Standard_D4s_v3",
        1,
        1,
        5,
    )
    assert (aks.network.plugin, aks.network.plugin_mode) == ("azure", "overlay")
    assert (aks.upgrade_channel, aks.node_os_upgrade_channel) == ("patch", "NodeImage")
    assert aks.oidc_issuer and aks.workload_identity


def test_secure_defaults_outside_production() -> None:
    """What every stack gets unless it opts out: a NetworkPolicy engine and a window per upgrade channel. Entra ID and
    the Standard tier are production's defaults (``test_environment_rules``); the API server stays reachable."""
    aks = load_stack_config(as_config({"aks": {"preset": "aks-walkthrough"}})).aks
    assert aks is not None
    assert aks.network.effective_policy == "calico"
    assert sorted(aks.maintenance.windows()) == ["aksManagedAutoUpgradeSchedule", "aksManagedNodeOSUpgradeSchedule"]
    assert (aks.sku_tier, aks.entra_id, aks.api_server_access.restricted) == ("Free", None, False)


def test_dns_prefix_and_system_taints_follow_the_config() -> None:
    aks = AksConfig.model_validate(
        {"dnsPrefix": "batch", "systemPool": {"onlyCriticalAddons": False, "taints": ["team=ml:NoSchedule"]}}
    )
    assert aks.effective_dns_prefix == "batch"
    assert aks.system_pool.node_taints == ["team=ml:NoSchedule"]


# (rule, a section that passes, a section that breaks it, the key the error must name under ``aks.``)
RULES: list[tuple[str, dict[str, Any], dict[str, Any], str]] = [
    (
        "min<=max",
        pools({"minCount": 0, "maxCount": 5, "initialCount": 0}),
        pools({"minCount": 6, "maxCount": 5}),
        "userPools[0].minCount",
    ),
    (
        "initial<=max",
        pools({"maxCount": 5, "initialCount": 5}),
        pools({"maxCount": 5, "initialCount": 6}),
        "userPools[0].initialCount",
    ),
    (
        "initial>=min",
        pools({"minCount": 2, "initialCount": 2}),
        pools({"minCount": 2, "initialCount": 1}),
        "userPools[0].initialCount",
    ),
    ("max<=1000", pools({"maxCount": 1000}), pools({"maxCount": 1001}), "userPools[0].maxCount"),
    ("min>=0", pools({"minCount": 0, "initialCount": 0}), pools({"minCount": -1}), "userPools[0].minCount"),
    ("pool name lowercase", pools({"name": "gpu2"}), pools({"name": "ScalePool"}), "userPools[0].name"),
    ("pool name starts with letter", pools({"name": "a1"}), pools({"name": "1pool"}), "userPools[0].name"),
    ("pool name <= 12", pools({"name": "abcdefghijkl"}), pools({"name": "abcdefghijklm"}), "userPools[0].name"),
    (
        "unique user pools",
        pools({"name": "scalepool"}, {"name": "gpupool"}),
        pools({"name": "scalepool"}, {"name": "scalepool"}),
        "userPools[1].name",
    ),
    (
        "user pool not named like the system pool",
        {"systemPool": {"name": "sys"}, **pools({"name": "system"})},
        pools({"name": "system"}),
        "userPools[0].name",
    ),
    ("at least one user pool", pools({}), {"userPools": []}, "userPools"),
    (
        "taint syntax",
        pools({"taints": ["nvidia.com/gpu=present:NoSchedule"]}),
        pools({"taints": ["gpu:NoSchedule"]}),
        "userPools[0].taints[0]",
    ),
    (
        "taint effect",
        pools({"taints": ["spot=true:PreferNoSchedule"]}),
        pools({"taints": ["spot=true:Never"]}),
        "userPools[0].taints[0]",
    ),
    (
        "system taint",
        {"systemPool": {"taints": ["a=b:NoExecute"]}},
        {"systemPool": {"taints": ["a=b"]}},
        "systemPool.taints[0]",
    ),
    (
        "label syntax",
        pools({"labels": {"gpu": "a100-80gb"}}),
        pools({"labels": {"bad key": "x"}}),
        "userPools[0].labels.bad key",
    ),
    ("vm size", pools({"vmSize": "Standard_ND96amsr_A100_v4"}), pools({"vmSize": "D4s_v3"}), "userPools[0].vmSize"),
    ("max pods", pools({"maxPods": 110}), pools({"maxPods": 5}), "userPools[0].maxPods"),
    (
        "zones",
        pools({"availabilityZones": ["1", "2"]}),
        pools({"availabilityZones": ["4"]}),
        "userPools[0].availabilityZones[0]",
    ),
    ("linux os sku", pools({"osSku": "AzureLinux"}), pools({"osSku": "Windows2022"}), "userPools[0].osSku"),
    (
        "a newer minor than the table",
        {"kubernetesVersion": "1.37.1"},
        {"kubernetesVersion": "v1.37"},
        "kubernetesVersion",
    ),
    (
        "kubernetes version syntax",
        {"kubernetesVersion": "1.35.2"},
        {"kubernetesVersion": "1.35.1-aliyun.1"},
        "kubernetesVersion",
    ),
    ("upgrade channel", {"upgradeChannel": "node-image"}, {"upgradeChannel": "weekly"}, "upgradeChannel"),
    ("the stack owns the minor", {"upgradeChannel": "patch"}, {"upgradeChannel": "stable"}, "upgradeChannel"),
    (
        "node os channel",
        {"nodeOsUpgradeChannel": "SecurityPatch"},
        {"nodeOsUpgradeChannel": "nodeimage"},
        "nodeOsUpgradeChannel",
    ),
    ("sku tier", {"skuTier": "Standard"}, {"skuTier": "Basic"}, "skuTier"),
    (
        "system autoscaling needs both bounds",
        {"systemPool": {"minCount": 1, "maxCount": 3}},
        {"systemPool": {"minCount": 1}},
        "systemPool.maxCount",
    ),
    (
        "system count within bounds",
        {"systemPool": {"count": 3, "minCount": 1, "maxCount": 3}},
        {"systemPool": {"count": 4, "minCount": 1, "maxCount": 3}},
        "systemPool.count",
    ),
    ("system pool keeps a node", {"systemPool": {"count": 1}}, {"systemPool": {"count": 0}}, "systemPool.count"),
    (
        "workload identity needs oidc",
        {"oidcIssuer": False, "workloadIdentity": False},
        {"oidcIssuer": False},
        "oidcIssuer",
    ),
    ("cluster name", {"clusterName": "batch_01", "dnsPrefix": "batch-01"}, {"clusterName": "-batch"}, "clusterName"),
    (
        "a cluster name that is the dns prefix passes its rule",
        {"clusterName": "kueue-cas"},
        {"clusterName": "kueue_cas"},
        "clusterName",
    ),
    (
        "a cluster name that is the dns prefix has at most 54 characters",
        {"clusterName": "c" * 63, "dnsPrefix": "c" * 54},
        {"clusterName": "c" * 60},
        "clusterName",
    ),
    ("dns prefix <= 54", {"dnsPrefix": "a" * 54}, {"dnsPrefix": "a" * 55}, "dnsPrefix"),
    (
        "resource group name",
        {"resourceGroup": {"name": "rg.batch(1)", "create": False}},
        {"resourceGroup": {"name": "rg."}},
        "resourceGroup.name",
    ),
    ("location", {"location": "westeurope"}, {"location": "East US 2"}, "location"),
    ("tags", {"tags": {"cost-center": "ml"}}, {"tags": {"a/b": "x"}}, "tags"),
    ("unknown key", {"userPools": [{}]}, {"userPool": [{}]}, "userPool"),
    (
        "no ubuntu 22.04 from kubernetes 1.35",
        {"kubernetesVersion": "1.34", **pools({"osSku": "Ubuntu2204"})},
        {"kubernetesVersion": "1.35", **pools({"osSku": "Ubuntu2204"})},
        "userPools[0].osSku",
    ),
    (
        "mig is partitioned by aks's driver",
        pools({**MIG_POOL, "gpu": {"instanceProfile": "MIG1g"}}),
        pools({**MIG_POOL, "gpu": {"instanceProfile": "MIG1g", "driver": "None"}}),
        "userPools[0].gpu.instanceProfile",
    ),
    (
        "a mig pool keeps a node the autoscaler counts its instances on",
        pools({**MIG_POOL, "gpu": {"instanceProfile": "MIG1g"}}),
        pools({**MIG_POOL, "minCount": 0, "initialCount": 0, "gpu": {"instanceProfile": "MIG1g"}}),
        "userPools[0].minCount",
    ),
    (
        "at most 100 pools, the system pool included",
        pools(*({"name": f"p{i}", "maxCount": 1} for i in range(99))),
        pools(*({"name": f"p{i}", "maxCount": 1} for i in range(100))),
        "userPools[99]",
    ),
    (
        "at most 5000 nodes across the pools",
        pools(*({"name": f"p{i}", "maxCount": 999} for i in range(5))),
        pools(*({"name": f"p{i}", "maxCount": 1000} for i in range(5))),
        "userPools",
    ),
]


@pytest.mark.parametrize(("good", "bad", "key"), [rule[1:] for rule in RULES], ids=[rule[0] for rule in RULES])
def test_rule(good: dict[str, Any], bad: dict[str, Any], key: str) -> None:
    AksConfig.model_validate(good)
    assert stack_error_keys({"aks": bad}) == [f"elastic-capacity:aks.{key}"]


def test_errors_name_the_bad_value_and_what_is_allowed() -> None:
    with pytest.raises(ConfigError) as caught:
        load_stack_config(as_config({"aks": pools({"minCount": 6, "maxCount": 5})}))
    [(_, message)] = caught.value.problems
    assert "6" in message and "maxCount (5)" in message


def test_a_derived_dns_prefix_is_refused_at_the_cluster_name_saying_where_it_comes_from() -> None:
    with pytest.raises(ConfigError) as caught:
        load_stack_config(as_config({"aks": {"preset": "aks-walkthrough", "clusterName": "kueue_cas"}}))
    [(key, message)] = caught.value.problems
    assert key == "elastic-capacity:aks.clusterName"
    assert "'kueue_cas' is not allowed; dnsPrefix is unset, so it is derived from clusterName" in message
    assert "or set dnsPrefix" in message


def test_an_ephemeral_suffix_that_pushes_the_derived_dns_prefix_past_54_names_the_cluster_name() -> None:
    aks = AksConfig.model_validate({"clusterName": "c" * 50})
    assert aks.named_with("-ab").dns_prefix == "c" * 50 + "-ab"
    with pytest.raises(RuleViolation) as caught:
        aks.named_with("-abcdef")
    assert caught.value.key == "clusterName"
    assert "derived from clusterName" in caught.value.allowed and "at most 54 characters" in caught.value.allowed
    with pytest.raises(RuleViolation) as explicit:
        AksConfig.model_validate({"clusterName": "c", "dnsPrefix": "d" * 50}).named_with("-abcdef")
    assert explicit.value.key == "dnsPrefix"


def test_unset_names_derive_from_the_stack_so_two_stacks_never_collide() -> None:
    team_a = load_stack_config(as_config({"aks": {"preset": "aks-walkthrough"}}), stack="team-a").aks
    team_b = load_stack_config(as_config({"aks": {"preset": "aks-walkthrough"}}), stack="team-b").aks
    assert team_a is not None and team_b is not None
    assert (team_a.resource_group.name, team_a.cluster_name, team_a.effective_dns_prefix) == (
        "kueue-cas-team-a-rg",
        "kueue-cas-team-a",
        "kueue-cas-team-a",
    )
    assert (team_b.resource_group.name, team_b.cluster_name) == ("kueue-cas-team-b-rg", "kueue-cas-team-b")


def test_a_stack_name_azure_would_refuse_becomes_a_valid_name_with_room_for_a_suffix() -> None:
    aks = load_stack_config(as_config({"aks": {"preset": "aks-walkthrough"}}), stack="Org.Team_" + "x" * 80).aks
    assert aks is not None and aks.cluster_name.startswith("kueue-cas-org-team-x")
    longest = aks.cluster_name + "-abcdefgh"
    AksConfig.model_validate({"clusterName": longest, "dnsPrefix": longest})


def test_names_the_stack_file_sets_are_kept_whatever_the_stack() -> None:
    aks = load_stack_config(
        as_config({"aks": {"preset": "aks-walkthrough", "resourceGroup": {"name": "rg"}, "clusterName": "c"}}),
        stack="s",
    ).aks
    assert aks is not None and (aks.resource_group.name, aks.cluster_name) == ("rg", "c")
    group_only = load_stack_config(
        as_config({"aks": {"preset": "aks-walkthrough", "resourceGroup": {"create": False, "name": "g"}}}), stack="s"
    )
    assert group_only.aks is not None and group_only.aks.cluster_name == "kueue-cas-s"


def test_named_with_suffixes_the_physical_names_only() -> None:
    aks = AksConfig.model_validate({"resourceGroup": {"name": "rg"}, "clusterName": "c", "dnsPrefix": "d"})
    named = aks.named_with("-pr7")
    assert (named.resource_group.name, named.cluster_name, named.dns_prefix) == ("rg-pr7", "c-pr7", "d-pr7")
    assert [pool.name for pool in named.user_pools] == ["scalepool"], "pool names live inside the cluster"
    assert aks.named_with("") is aks


@pytest.mark.parametrize(
    ("channels", "windows"),
    [
        ({}, ["aksManagedAutoUpgradeSchedule", "aksManagedNodeOSUpgradeSchedule"]),
        ({"upgradeChannel": "none"}, ["aksManagedNodeOSUpgradeSchedule"]),
        ({"nodeOsUpgradeChannel": "None"}, ["aksManagedAutoUpgradeSchedule"]),
        ({"nodeOsUpgradeChannel": "Unmanaged"}, ["aksManagedAutoUpgradeSchedule"]),
        (
            {"nodeOsUpgradeChannel": "SecurityPatch", "maintenance": {"nodeOsUpgrade": None}},
            ["aksManagedAutoUpgradeSchedule"],
        ),
    ],
)
def test_a_window_is_made_only_for_a_channel_that_upgrades_something(channels, windows) -> None:
    assert sorted(AksConfig.model_validate(channels).maintenance_windows()) == windows
