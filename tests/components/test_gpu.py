"""The NVIDIA chart of a cluster with GPU pools: which chart, its values, and what it waits for, on the shipped
``aks-gpu-spot`` stack and on variations of its ``aks`` section."""

from __future__ import annotations

from typing import Any

import pytest

from components.config.aks import AksConfig
from components.manifests.gpu import DEVICE_PLUGIN_REPOSITORY, GPU_OPERATOR_REPOSITORY, nvidia_chart
from tests.support import PROJECT_ROOT
from tests.support.stacks import recorded

STACK = PROJECT_ROOT / "stacks" / "Pulumi.aks-gpu-spot.yaml"
CHART = "kubernetes:helm.sh/v4:Chart"
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


def test_the_shipped_stack_installs_the_plugin_after_its_gpu_pool_and_before_the_smoke_job():
    recording = recorded(STACK)
    chart = recording.one(CHART, "nvidia-chart")
    assert chart.inputs["chart"] == "nvidia-device-plugin" and chart.inputs["version"] == "0.18.0"
    assert chart.inputs["repositoryOpts"] == {"repo": DEVICE_PLUGIN_REPOSITORY}
    namespace = recording.one("kubernetes:core/v1:Namespace", "nvidia-namespace")
    assert chart.inputs["namespace"] == namespace.inputs["metadata"]["name"] == "nvidia-gpu"
    pools = {r.name: r for r in recording.by_type("azure-native:containerservice:AgentPool")}
    assert recording.depends_on(chart, pools["aks-gpu"])
    assert not recording.depends_on(chart, pools["aks-cpuspot"]), "only the GPU pools"
    assert recording.provider_of(chart) is not None and recording.provider_of(chart).name.startswith("aks")  # type: ignore[union-attr]
    assert recording.depends_on(recording.one("kubernetes:batch/v1:Job", "smoke-job-job"), chart)
