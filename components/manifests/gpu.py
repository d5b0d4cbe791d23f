"""The NVIDIA chart a cluster with GPU pools gets, and its values: pure data from the ``aks`` section.

AKS advertises no GPU by itself (https://learn.microsoft.com/azure/aks/use-nvidia-gpu): with the driver AKS installs,
NVIDIA's device plugin, with GPU feature discovery on as Microsoft's MIG page installs it (its node-feature-discovery
labels are what the plugin's DaemonSet selects GPU nodes by,
https://learn.microsoft.com/azure/aks/gpu-multi-instance); with ``gpu.driver: None``, NVIDIA's GPU Operator with its
own driver. Every pod of either tolerates the taints of the GPU pools (the GPU taint, Spot's).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from components.config.aks import AksConfig
from components.config.pool_flavors import pool_tolerations

DEVICE_PLUGIN_REPOSITORY = "https://nvidia.github.io/k8s-device-plugin"
GPU_OPERATOR_REPOSITORY = "https://helm.ngc.nvidia.com/nvidia"


class NvidiaChart(NamedTuple):
    chart: str
    repository: str
    version: str
    values: dict[str, Any]


def nvidia_chart(aks: AksConfig) -> NvidiaChart | None:
    """The chart for the cluster's GPU pools, or ``None`` without any."""
    gpu_pools = [pool for pool in aks.user_pools if pool.gpu_settings is not None]
    if not gpu_pools:
        return None
    tolerations = [
        toleration.model_dump(by_alias=True, exclude_none=True)
        for toleration in {t.model_dump_json(): t for pool in gpu_pools for t in pool_tolerations(pool)}.values()
    ]
    mig = any(pool.gpu_settings and pool.gpu_settings.instance_profile for pool in gpu_pools)
    strategy = aks.nvidia.mig_strategy if mig else "none"
    if aks.gpu_driver == "None":
        values = {
            "driver": {"enabled": True},
            "mig": {"strategy": aks.nvidia.mig_strategy},
            "daemonsets": {"tolerations": tolerations},
            "node-feature-discovery": {"worker": {"tolerations": tolerations}},
        }
        return NvidiaChart("gpu-operator", GPU_OPERATOR_REPOSITORY, aks.nvidia.gpu_operator_version, values)
    values = {
        "migStrategy": strategy,
        "gfd": {"enabled": True},
        "tolerations": tolerations,
        "nfd": {"worker": {"tolerations": tolerations}},
    }
    return NvidiaChart("nvidia-device-plugin", DEVICE_PLUGIN_REPOSITORY, aks.nvidia.device_plugin_version, values)
