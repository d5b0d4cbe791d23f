"""The NVIDIA chart on the shipped ``aks-gpu-spot`` stack: its namespace, its provider, and what it waits for."""

from __future__ import annotations

from components.config.kube import Toleration
from components.config.pool_flavors import parse_taint, tolerates
from components.manifests.gpu import DEVICE_PLUGIN_REPOSITORY
from tests.support.stacks import GPU_STACK, recorded

STACK = GPU_STACK
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
    assert pools["aks-cpuspot"].urn not in chart.all_dependencies, "only the GPU pools (the CPU ones come first anyway)"
    assert recording.provider_of(chart) is not None and recording.provider_of(chart).name.startswith("aks")  # type: ignore[union-attr]
    assert recording.depends_on(recording.one("kubernetes:batch/v1:Job", "smoke-job-job"), chart)


def test_with_every_user_pool_at_zero_only_the_system_pool_runs_kueue_and_nothing_of_nvidias_keeps_a_node():
    """The pods that are not DaemonSets of the GPU nodes must be schedulable on the system pool, tainted
    CriticalAddonsOnly, since every user pool of aks-gpu-spot starts (and may stay) at zero."""
    recording = recorded(STACK)
    nvidia = recording.one(CHART, "nvidia-chart").inputs["values"]
    assert nvidia["gfd"] == {"enabled": False} and "nfd" not in nvidia, "no node feature discovery Deployments"
    [term] = nvidia["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert term["matchExpressions"][0]["key"] == "kubernetes.azure.com/accelerator", "its DaemonSet: GPU nodes only"
    pools = [r.inputs for r in recording.by_type("azure-native:containerservice:AgentPool")]
    assert pools and all(pool["minCount"] == 0 for pool in pools)
    system = recording.one("azure-native:containerservice:ManagedCluster").inputs["agentPoolProfiles"][0]
    kueue = recording.one(CHART, "kueue-chart").inputs["values"]["controllerManager"]
    assert kueue["nodeSelector"] == {"kubernetes.azure.com/mode": "system"} and system["mode"] == "System"
    held = [Toleration.model_validate(t) for t in kueue["tolerations"]]
    assert system["nodeTaints"] and all(
        any(tolerates(t, *parse_taint(taint)) for t in held) for taint in system["nodeTaints"]
    )
