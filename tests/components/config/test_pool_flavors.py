"""Flavors that are AKS pools: the label and tolerations they derive, what they must agree with, and the Spot
warnings."""

from __future__ import annotations

from typing import Any

import pytest

from components.config.base import ConfigError
from components.config.loader import load_stack_config
from components.config.pool_flavors import EVICTION
from components.manifests.queues import resource_flavor
from tests.support.config import as_config, stack_error_keys

SPOT = {"name": "cpuspot", "vmSize": "Standard_D4s_v3", "priority": "Spot", "minCount": 0, "initialCount": 0}
CPU = {"name": "cpu", "vmSize": "Standard_D4s_v3", "minCount": 0, "initialCount": 0}
GPU = {"name": "gpu", "vmSize": "Standard_NC24ads_A100_v4", "minCount": 0, "initialCount": 0, "maxCount": 2}

SPOT_TOLERATION = {"key": "kubernetes.azure.com/scalesetpriority", "operator": "Exists"}


def quota(flavor: str, gpus: str = "0") -> dict[str, Any]:
    return {
        "name": flavor,
        "resources": [{"name": "cpu", "nominalQuota": "8"}, {"name": "nvidia.com/gpu", "nominalQuota": gpus}],
    }


def stack(
    pools: list[dict[str, Any]], flavors: list[dict[str, Any]], groups: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    queue = {"name": "team", "resourceGroups": groups} if groups else None
    return {
        "aks": {"userPools": pools},
        "queues": {"resourceFlavors": flavors, "clusterQueues": [queue] if queue else []},
    }


def load(sections: dict[str, Any]):
    return load_stack_config(as_config(sections), stack="dev")


def test_a_flavor_naming_a_pool_gets_its_label_and_a_toleration_of_each_of_its_taints():
    pools = [SPOT, {**GPU, "taints": ["team=ml:NoExecute", "soft=yes:PreferNoSchedule"]}]
    config = load(stack(pools, [{"name": "spot", "pool": "cpuspot"}, {"name": "gpu", "pool": "gpu"}]))
    spot, gpu = (resource_flavor(f)["spec"] for f in config.queues.resource_flavors)
    assert spot == {
        "nodeLabels": {"agentpool": "cpuspot"},
        "tolerations": [
            {
                "key": "kubernetes.azure.com/scalesetpriority",
                "operator": "Equal",
                "value": "spot",
                "effect": "NoSchedule",
            }
        ],
    }, "the taint AKS adds to Spot nodes, never written by the user; pool itself is not a Kueue field"
    assert gpu["tolerations"] == [{"key": "team", "operator": "Equal", "value": "ml", "effect": "NoExecute"}], (
        "PreferNoSchedule keeps no pod off a node: nothing to tolerate"
    )


def test_a_gpu_pool_gets_the_taints_it_writes_and_the_gpu_taint_only_when_it_writes_none():
    nvidia = "nvidia.com/gpu=present:NoSchedule"
    written = load(stack([{**GPU, "taints": [nvidia]}], [{"name": "gpu", "pool": "gpu"}]))
    assert written.aks.user_pools[0].node_taints == [nvidia], "a deployed pool would be replaced by an added taint"
    assert [t["key"] for t in resource_flavor(written.queues.resource_flavors[0])["spec"]["tolerations"]] == [
        "nvidia.com/gpu"
    ]
    unwritten = load(stack([GPU], [{"name": "gpu", "pool": "gpu"}]))
    assert unwritten.aks.user_pools[0].node_taints == ["sku=gpu:NoSchedule"]


def test_written_tolerations_are_kept_and_must_tolerate_the_pool():
    written = [{"key": "kubernetes.azure.com/scalesetpriority", "operator": "Exists"}]
    config = load(stack([SPOT], [{"name": "spot", "pool": "cpuspot", "tolerations": written}]))
    assert resource_flavor(config.queues.resource_flavors[0])["spec"]["tolerations"] == [written[0]]
    bad = stack([SPOT], [{"name": "spot", "pool": "cpuspot", "tolerations": [{"key": "sku", "operator": "Exists"}]}])
    assert stack_error_keys(bad) == ["elastic-capacity:queues.resourceFlavors[0].tolerations"]


@pytest.mark.parametrize(
    ("flavor", "key"),
    [
        ({"name": "spot", "nodeLabels": {"agentpool": "cpuspot"}}, "queues.resourceFlavors[0].tolerations"),
        ({"name": "spot", "pool": "nope"}, "queues.resourceFlavors[0].pool"),
        (
            {"name": "spot", "pool": "cpuspot", "nodeLabels": {"agentpool": "cpu"}},
            "queues.resourceFlavors[0].nodeLabels.agentpool",
        ),
    ],
)
def test_a_flavor_that_cannot_land_on_its_pool_is_refused_at_its_key(flavor, key):
    assert stack_error_keys(stack([SPOT, CPU], [flavor])) == [f"elastic-capacity:{key}"]


def test_a_taint_listed_as_a_flavor_node_taint_is_left_to_the_workloads():
    taint = {"key": "kubernetes.azure.com/scalesetpriority", "value": "spot", "effect": "NoSchedule"}
    load(stack([SPOT], [{"name": "spot", "nodeLabels": {"agentpool": "cpuspot"}, "nodeTaints": [taint]}]))


def test_gpu_quota_needs_a_pool_that_advertises_the_resource():
    flavors = [{"name": "spot", "pool": "cpuspot"}, {"name": "gpu", "pool": "gpu"}]
    group = {"coveredResources": ["cpu", "nvidia.com/gpu"], "flavors": [quota("spot"), quota("gpu", "1")]}
    load(stack([SPOT, GPU], flavors, [group]))
    key = "elastic-capacity:queues.clusterQueues[0].resourceGroups[0].coveredResources[1]"
    assert stack_error_keys(stack([SPOT], flavors[:1], [{**group, "flavors": [quota("spot", "1")]}])) == [key], "none"


def test_quota_0_of_an_extended_resource_no_pool_advertises_is_accepted():
    """docs/capacity.md: only quota above 0 asks a node for the resource; Kueue's groups list every covered resource
    on every flavor, at 0 where the flavor has none."""
    group = {"coveredResources": ["cpu", "nvidia.com/gpu"], "flavors": [quota("spot", "0")]}
    load(stack([SPOT], [{"name": "spot", "pool": "cpuspot"}], [group]))


FOO_GPU = {"coveredResources": ["cpu", "foo.com/gpu"], "flavors": [{"name": "cpu", "resources": [
    {"name": "cpu", "nominalQuota": "8"}, {"name": "foo.com/gpu", "nominalQuota": "4"}]}]}  # fmt: skip
"""The ``foo.com/gpu`` ClusterQueue of Kueue's concepts/cluster_queue.md (v0.19.2): a resource of a device plugin."""


def test_quota_of_an_extended_resource_no_pool_advertises_is_refused_naming_every_key_that_declares_it():
    with pytest.raises(ConfigError) as caught:
        load(stack([CPU], [{"name": "cpu", "pool": "cpu"}], [FOO_GPU]))
    assert caught.value.keys == ["elastic-capacity:queues.clusterQueues[0].resourceGroups[0].coveredResources[1]"]
    for key in ("kueue.resources.transformations[].outputs", "kueue.resources.deviceClassMappings[].name",
                "aks.userPools[].extendedResources", "queues.external.extendedResources"):  # fmt: skip
        assert key in str(caught.value)


def test_an_extended_resource_a_pool_declares_is_quota_on_its_flavors_and_only_there():
    load(stack([{**CPU, "extendedResources": ["foo.com/gpu"]}], [{"name": "cpu", "pool": "cpu"}], [FOO_GPU]))
    pools = [CPU, {**SPOT, "extendedResources": ["foo.com/gpu"]}]
    with pytest.raises(ConfigError) as caught:
        load(stack(pools, [{"name": "cpu", "pool": "cpu"}], [FOO_GPU]))
    assert caught.value.keys == ["elastic-capacity:queues.resourceFlavors[0].pool"]
    assert "list it in aks.userPools[0].extendedResources" in str(caught.value)


def test_an_extended_resource_of_nodes_the_stack_does_not_manage_is_declared_external():
    sections = stack([CPU], [{"name": "cpu", "pool": "cpu"}], [FOO_GPU])
    sections["queues"]["external"] = {"extendedResources": ["foo.com/gpu"]}
    load(sections)


def test_an_extended_resource_a_transformation_of_the_stack_makes_is_accepted():
    """Kueue's serving-workloads/sample-hami.yaml (v0.19.2): HAMi's per-device requests, multiplied by the GPU
    count, become ``nvidia.com/total-gpucores`` and ``total-gpumem`` before quota is counted."""
    group = {"coveredResources": ["nvidia.com/total-gpucores"], "flavors": [
        {"name": "cpu", "resources": [{"name": "nvidia.com/total-gpucores", "nominalQuota": "200"}]}]}  # fmt: skip
    sections = stack([CPU], [{"name": "cpu", "pool": "cpu"}], [group])
    transformation = {"input": "nvidia.com/gpucores", "multiplyBy": "nvidia.com/gpu", "strategy": "Replace",
                      "outputs": {"nvidia.com/total-gpucores": "1"}}  # fmt: skip
    sections["kueue"] = {"resources": {"transformations": [transformation]}}
    load(sections)


@pytest.mark.parametrize(
    ("flavor", "field"),
    [
        ({"pool": "cpuspot"}, "pool"),
        ({"nodeLabels": {"agentpool": "cpuspot"}, "tolerations": [SPOT_TOLERATION]}, "nodeLabels.agentpool"),
    ],
)
def test_gpu_quota_on_a_flavor_of_the_wrong_pool_is_refused_at_the_flavors_pool_naming_the_pool_that_has_gpus(
    flavor, field
):
    flavors = [{"name": "spot", **flavor}, {"name": "gpu", "pool": "gpu"}]
    group = {"coveredResources": ["cpu", "nvidia.com/gpu"], "flavors": [quota("spot", "1"), quota("gpu", "1")]}
    with pytest.raises(ConfigError) as caught:
        load(stack([SPOT, GPU], flavors, [group]))
    assert caught.value.keys == [f"elastic-capacity:queues.resourceFlavors[0].{field}"]
    assert "pool gpu does: point the flavor at it" in str(caught.value)


@pytest.mark.parametrize(("strategy", "resource"), [("single", "nvidia.com/gpu"), ("mixed", "nvidia.com/mig-1g.10gb")])
def test_a_mig_pool_advertises_the_resource_of_its_strategy(strategy, resource):
    mig = {**GPU, "minCount": 1, "initialCount": 1, "gpu": {"instanceProfile": "MIG1g"}}
    group = {
        "coveredResources": ["cpu", resource],
        "flavors": [
            {
                "name": "gpu",
                "resources": [{"name": "cpu", "nominalQuota": "8"}, {"name": resource, "nominalQuota": "7"}],
            }
        ],
    }
    sections = stack([mig], [{"name": "gpu", "pool": "gpu"}], [group])
    sections["aks"]["nvidia"] = {"migStrategy": strategy}
    load(sections)


def cpu_group(*names: str) -> dict[str, Any]:
    return {
        "coveredResources": ["cpu"],
        "flavors": [{"name": n, "resources": [{"name": "cpu", "nominalQuota": "4"}]} for n in names],
    }


def test_spot_warnings_say_what_eviction_does_to_admitted_jobs():
    flavors = [{"name": "spot", "pool": "cpuspot"}, {"name": "cpu", "pool": "cpu"}]
    assert load(stack([SPOT, CPU], flavors, [cpu_group("spot", "cpu")])).warnings() == []
    keeps_nodes = load(stack([{**SPOT, "minCount": 1, "initialCount": 1}, CPU], flavors, [cpu_group("spot", "cpu")]))
    assert keeps_nodes.warnings() == [("aks.userPools[0].minCount", f"a Spot pool that keeps 1 nodes: {EVICTION}")]
    at = "queues.clusterQueues[0].resourceGroups[0].flavors[{}].name"
    [(key, message)] = load(stack([SPOT, CPU], flavors, [cpu_group("spot")])).warnings()
    assert key == at.format(0) and "no on-demand flavor after it" in message and EVICTION in message
    first, last = load(stack([SPOT, CPU], flavors, [cpu_group("cpu", "spot")])).warnings()
    assert first[0] == at.format(0) and "put Spot flavors first" in first[1]
    assert last[0] == at.format(1) and "no on-demand flavor after it" in last[1]


def test_an_extended_resource_a_dra_device_class_mapping_names_is_accepted():
    """Kueue's dra/sample-dra-queues.yaml (v0.19.2): ``example.com/gpu`` is the name of a DeviceClass mapping."""
    group = {"coveredResources": ["example.com/gpu"], "flavors": [
        {"name": "cpu", "resources": [{"name": "example.com/gpu", "nominalQuota": "8"}]}]}  # fmt: skip
    sections = stack([CPU], [{"name": "cpu", "pool": "cpu"}], [group])
    mapping = {"name": "example.com/gpu", "deviceClassNames": ["gpu.example.com"]}
    sections["kueue"] = {"resources": {"deviceClassMappings": [mapping]}}
    load(sections)
    del sections["kueue"]
    with pytest.raises(ConfigError):
        load(sections)
