"""The NVIDIA chart on the shipped ``aks-gpu-spot`` stack: its namespace, its provider, and what it waits for."""

from __future__ import annotations

from components.manifests.gpu import DEVICE_PLUGIN_REPOSITORY
from tests.support import PROJECT_ROOT
from tests.support.stacks import recorded

STACK = PROJECT_ROOT / "stacks" / "Pulumi.aks-gpu-spot.yaml"
CHART = "kubernetes:helm.sh/v4:Chart"


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
