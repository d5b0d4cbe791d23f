"""Which NVIDIA chart a cluster with GPU pools gets, and its values: what runs on the GPU nodes tolerates them, and
everything else can be scheduled with every user pool at zero nodes."""

from __future__ import annotations

from typing import Any

import pytest

from components.config.aks.aks import AksConfig
from components.config.kube import Toleration
from components.config.pool_flavors import parse_taint, tolerates
from components.manifests.gpu import (
    ACCELERATOR_LABEL,
    DEVICE_PLUGIN_REPOSITORY,
    GPU_OPERATOR_REPOSITORY,
    SYSTEM_POOL,
    nvidia_chart,
)

SKU_GPU = {"key": "sku", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}
SPOT = {"key": "kubernetes.azure.com/scalesetpriority", "operator": "Equal", "value": "spot", "effect": "NoSchedule"}
T4 = {"name": "gpu", "vmSize": "Standard_NC4as_T4_v3", "minCount": 0, "initialCount": 0}
A100 = {**T4, "vmSize": "Standard_NC24ads_A100_v4"}


def aks(*pools: dict[str, Any], system: dict[str, Any] | None = None, **nvidia: str) -> AksConfig:
    return AksConfig.model_validate({"userPools": [{}, *pools], "nvidia": nvidia, "systemPool": system or {}})


def lands_on_the_system_pool(config: AksConfig, pod: dict[str, Any]) -> bool:
    """Whether a pod with this nodeSelector and these tolerations can be scheduled on the system pool's nodes."""
    labels = {**config.system_pool.labels, "agentpool": config.system_pool.name, **SYSTEM_POOL}
    selected = all(labels.get(key) == value for key, value in (pod.get("nodeSelector") or {}).items())
    held = [Toleration.model_validate(t) for t in pod.get("tolerations") or []]
    return selected and all(
        any(tolerates(t, *parse_taint(taint)) for t in held) for taint in config.system_pool.node_taints
    )


def test_a_cluster_without_gpu_pools_gets_no_chart():
    assert nvidia_chart(aks()) is None


def test_the_device_plugin_runs_only_on_gpu_nodes_and_deploys_no_node_feature_discovery():
    """Node feature discovery's master and gc tolerate only control-plane taints: on AKS they held an untainted user
    pool's node up for good (aks-gpu-spot's `cpu`), or stayed Pending with every user pool tainted."""
    chart = nvidia_chart(aks(T4, {**T4, "name": "gpuspot", "priority": "Spot"}))
    assert chart is not None
    assert (chart.chart, chart.repository, chart.version) == (
        "nvidia-device-plugin",
        DEVICE_PLUGIN_REPOSITORY,
        "0.18.0",
    )
    assert chart.values["gfd"] == {"enabled": False} and "nfd" not in chart.values
    [term] = chart.values["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
        "nodeSelectorTerms"
    ]
    assert term == {"matchExpressions": [{"key": ACCELERATOR_LABEL, "operator": "In", "values": ["nvidia"]}]}
    assert chart.values["tolerations"] == [SKU_GPU, SPOT], "each toleration once, for the T4 and the Spot T4 pool"
    assert chart.values["migStrategy"] == "none"


@pytest.mark.parametrize(
    "system",
    [{}, {"taints": ["dedicated=system:NoSchedule"]}, {"onlyCriticalAddons": False}],
    ids=["critical-addons-only", "a-taint-of-its-own", "untainted"],
)
def test_the_gpu_operators_controller_and_node_discovery_land_on_the_system_pool_whatever_it_is_tainted(system):
    chart = nvidia_chart(aks({**T4, "gpu": {"driver": "None"}}, system=system))
    assert chart is not None and chart.chart == "gpu-operator"
    config = aks({**T4, "gpu": {"driver": "None"}}, system=system)
    discovery = chart.values["node-feature-discovery"]
    for name, pod in (
        ("operator", chart.values["operator"]),
        ("nfd master", discovery["master"]),
        ("nfd gc", discovery["gc"]),
    ):
        assert lands_on_the_system_pool(config, pod), name
    assert discovery["worker"]["tolerations"] == [SKU_GPU] and chart.values["daemonsets"]["tolerations"] == [SKU_GPU]


def test_a_mig_pool_sets_the_strategy_and_driver_none_gets_the_gpu_operator():
    mig = {**A100, "minCount": 1, "initialCount": 1, "gpu": {"instanceProfile": "MIG1g"}}
    assert nvidia_chart(aks(mig, migStrategy="mixed")).values["migStrategy"] == "mixed"  # type: ignore[union-attr]
    chart = nvidia_chart(aks({**A100, "gpu": {"driver": "None"}}, gpuOperatorVersion="v25.3.0"))
    assert chart is not None
    assert (chart.chart, chart.repository, chart.version) == ("gpu-operator", GPU_OPERATOR_REPOSITORY, "v25.3.0")
    assert chart.values["driver"] == {"enabled": True} and chart.values["mig"] == {"strategy": "single"}


def test_gpu_pools_of_one_cluster_share_a_driver():
    with pytest.raises(ValueError, match=r"userPools\.2\.gpu\.driver|one driver"):
        aks(T4, {**T4, "name": "gpu2", "gpu": {"driver": "None"}})


MIRROR = "kueuecn.azurecr.cn"


def test_a_registry_of_ones_own_serves_the_device_plugin_chart_and_image():
    chart = nvidia_chart(aks(T4, chartRepository=f"oci://{MIRROR}/helm/nvidia-device-plugin", imageRegistry=MIRROR))
    assert chart is not None
    assert (chart.chart, chart.repository) == (f"oci://{MIRROR}/helm/nvidia-device-plugin", None)
    assert chart.values["image"] == {"repository": f"{MIRROR}/nvidia/k8s-device-plugin"}
    https = nvidia_chart(aks(T4, chartRepository=f"https://{MIRROR}/helm"))
    assert https is not None and (https.chart, https.repository) == ("nvidia-device-plugin", f"https://{MIRROR}/helm")
    assert "image" not in https.values, "unset, the chart's own image"


def test_a_registry_of_ones_own_serves_every_image_the_gpu_operator_runs_keeping_their_placement():
    none = {**T4, "gpu": {"driver": "None"}}
    chart = nvidia_chart(aks(none, imageRegistry=MIRROR))
    assert chart is not None
    repositories = {path: chart.values[path]["repository"] for path in ("validator", "driver", "toolkit", "gfd")}
    assert repositories == {
        "validator": f"{MIRROR}/nvidia",
        "driver": f"{MIRROR}/nvidia",
        "toolkit": f"{MIRROR}/nvidia/k8s",
        "gfd": f"{MIRROR}/nvidia",
    }
    operator = chart.values["operator"]
    assert operator["repository"] == f"{MIRROR}/nvidia" and operator["nodeSelector"] == SYSTEM_POOL
    assert operator["initContainer"] == {"repository": f"{MIRROR}/nvidia"}
    assert chart.values["driver"]["manager"] == {"repository": f"{MIRROR}/nvidia/cloud-native"}
    nfd = chart.values["node-feature-discovery"]
    assert nfd["image"] == {"repository": f"{MIRROR}/nfd/node-feature-discovery"} and nfd["master"]["nodeSelector"]
