"""Which NVIDIA chart a cluster with GPU pools gets, and its values."""

from __future__ import annotations

from typing import Any

import pytest

from components.config.aks import AksConfig
from components.manifests.gpu import DEVICE_PLUGIN_REPOSITORY, GPU_OPERATOR_REPOSITORY, nvidia_chart

SKU_GPU = {"key": "sku", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}
SPOT = {"key": "kubernetes.azure.com/scalesetpriority", "operator": "Equal", "value": "spot", "effect": "NoSchedule"}
T4 = {"name": "gpu", "vmSize": "Standard_NC4as_T4_v3", "minCount": 0, "initialCount": 0}


def aks(*pools: dict[str, Any], **nvidia: str) -> AksConfig:
    return AksConfig.model_validate({"userPools": [{}, *pools], "nvidia": nvidia})


def test_a_cluster_without_gpu_pools_gets_no_chart():
    assert nvidia_chart(aks()) is None


def test_aks_driver_pools_get_the_device_plugin_tolerating_every_gpu_pool_taint():
    chart = nvidia_chart(aks(T4, {**T4, "name": "gpuspot", "priority": "Spot"}))
    assert chart is not None
    assert (chart.chart, chart.repository, chart.version) == (
        "nvidia-device-plugin",
        DEVICE_PLUGIN_REPOSITORY,
        "0.18.0",
    )
    assert chart.values["tolerations"] == [SKU_GPU, SPOT], "each toleration once, for the T4 and the Spot T4 pool"
    assert chart.values["nfd"]["worker"]["tolerations"] == [SKU_GPU, SPOT], "node labels come from NFD's workers"
    assert chart.values["gfd"] == {"enabled": True} and chart.values["migStrategy"] == "none"


def test_a_mig_pool_sets_the_strategy_and_driver_none_gets_the_gpu_operator():
    a100 = {**T4, "vmSize": "Standard_NC24ads_A100_v4", "gpu": {"instanceProfile": "MIG1g"}}
    assert nvidia_chart(aks(a100, migStrategy="mixed")).values["migStrategy"] == "mixed"  # type: ignore[union-attr]
    chart = nvidia_chart(
        aks({**a100, "gpu": {"driver": "None", "instanceProfile": "MIG2g"}}, gpuOperatorVersion="v25.3.0")
    )
    assert chart is not None
    assert (chart.chart, chart.repository, chart.version) == ("gpu-operator", GPU_OPERATOR_REPOSITORY, "v25.3.0")
    assert chart.values["driver"] == {"enabled": True} and chart.values["mig"] == {"strategy": "single"}
    assert chart.values["daemonsets"]["tolerations"] == [SKU_GPU]


def test_gpu_pools_of_one_cluster_share_a_driver():
    with pytest.raises(ValueError, match=r"userPools\.2\.gpu\.driver|one driver"):
        aks(T4, {**T4, "name": "gpu2", "gpu": {"driver": "None"}})
