"""The NVIDIA chart a cluster with GPU pools gets, and its values: pure data from the ``aks`` section.

AKS advertises no GPU by itself (https://learn.microsoft.com/azure/aks/use-nvidia-gpu): with the driver AKS installs,
NVIDIA's device plugin; with ``gpu.driver: None``, NVIDIA's GPU Operator with its own driver. Every pod of either that
runs on the GPU nodes tolerates the GPU pools' taints (the GPU taint, Spot's); every other pod must find a node whatever
the user pools do, which at zero nodes leaves only the system pool:

- the device plugin runs as a DaemonSet on the nodes AKS labels ``kubernetes.azure.com/accelerator: nvidia``
  (https://learn.microsoft.com/azure/aks/use-labels), which the cluster autoscaler's template node for a GPU pool
  carries too. Node feature discovery, whose labels the chart selects GPU nodes by otherwise, is not deployed
  (``gfd.enabled: false``, the chart's default): its master and garbage collector are Deployments that tolerate only
  control-plane taints (https://github.com/NVIDIA/k8s-device-plugin/blob/v0.18.0/deployments/helm/nvidia-device-plugin/values.yaml),
  so they would hold an untainted user pool's node up for good, or stay Pending;
- the GPU Operator needs node feature discovery to find GPU nodes, so its controller and the discovery master and
  garbage collector are pinned to the system pool and tolerate its taints
  (https://github.com/NVIDIA/gpu-operator/blob/v25.10.1/deployments/gpu-operator/values.yaml), and only the
  discovery worker runs on the GPU nodes.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from components.config.aks.aks import AksConfig
from components.config.aks.gpu import DEVICE_PLUGIN_REPOSITORY, GPU_OPERATOR_REPOSITORY, NvidiaConfig
from components.config.kueue.registries import chart_reference
from components.config.pool_flavors import parse_taint, pool_tolerations

DEVICE_PLUGIN_IMAGE = "nvidia/k8s-device-plugin"
"""The device plugin's image path under ``nvcr.io``, which the chart's ``image.repository`` names
(https://github.com/NVIDIA/k8s-device-plugin/blob/v0.18.0/deployments/helm/nvidia-device-plugin/values.yaml)."""
GPU_OPERATOR_IMAGES = {
    "validator": "nvidia",
    "operator": "nvidia",
    "operator.initContainer": "nvidia",
    "driver": "nvidia",
    "driver.manager": "nvidia/cloud-native",
    "toolkit": "nvidia/k8s",
    "devicePlugin": "nvidia",
    "dcgm": "nvidia/cloud-native",
    "dcgmExporter": "nvidia/k8s",
    "gfd": "nvidia",
    "migManager": "nvidia/cloud-native",
    "nodeStatusExporter": "nvidia",
}
"""The GPU Operator's components for container workloads (not the sandbox workloads' vGPU, VFIO and KubeVirt ones, off
unless ``sandboxWorkloads.enabled``), by the values key whose ``repository`` names their image's registry path under
``nvcr.io``
(https://github.com/NVIDIA/gpu-operator/blob/v25.10.1/deployments/gpu-operator/values.yaml); node feature discovery's
image is ``node-feature-discovery.image.repository``, ``registry.k8s.io/nfd/node-feature-discovery`` by default."""
NFD_IMAGE = "nfd/node-feature-discovery"
ACCELERATOR_LABEL = "kubernetes.azure.com/accelerator"
"""The label AKS puts on every node of a pool with NVIDIA GPUs, valued ``nvidia``."""
SYSTEM_POOL = {"kubernetes.azure.com/mode": "system"}
"""The label AKS puts on the nodes of system pools."""


class NvidiaChart(NamedTuple):
    chart: str
    repository: str | None
    """The https repository serving ``chart``; ``None`` when ``chart`` is an ``oci://`` reference."""
    version: str
    values: dict[str, Any]


def _chart(nvidia: NvidiaConfig, name: str, repository: str, version: str, values: dict[str, Any]) -> NvidiaChart:
    return NvidiaChart(*chart_reference(nvidia.chart_repository or repository, name), version, values)


def _nested(values: dict[str, Any], path: str, key: str, value: str) -> None:
    """Set ``values[path...][key]`` (``path`` dotted), keeping what ``values`` already holds there."""
    node = values
    for part in path.split("."):
        node = node.setdefault(part, {})
    node[key] = value


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
    if aks.gpu_driver == "None":
        on_the_system_pool = {"nodeSelector": SYSTEM_POOL, "tolerations": system_pool_tolerations(aks)}
        values = {
            "driver": {"enabled": True},
            "mig": {"strategy": aks.nvidia.mig_strategy},
            "operator": on_the_system_pool,
            "daemonsets": {"tolerations": tolerations},
            "node-feature-discovery": {
                "master": on_the_system_pool,
                "gc": on_the_system_pool,
                "worker": {"tolerations": tolerations},
            },
        }
        if aks.nvidia.image_registry is not None:
            for path, image_path in GPU_OPERATOR_IMAGES.items():
                _nested(values, path, "repository", f"{aks.nvidia.image_registry}/{image_path}")
            _nested(values, "node-feature-discovery.image", "repository", f"{aks.nvidia.image_registry}/{NFD_IMAGE}")
        return _chart(aks.nvidia, "gpu-operator", GPU_OPERATOR_REPOSITORY, aks.nvidia.gpu_operator_version, values)
    values = {
        "migStrategy": aks.nvidia.mig_strategy if mig else "none",
        "gfd": {"enabled": False},
        "affinity": {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {"matchExpressions": [{"key": ACCELERATOR_LABEL, "operator": "In", "values": ["nvidia"]}]}
                    ]
                }
            }
        },
        "tolerations": tolerations,
    }
    if aks.nvidia.image_registry is not None:
        values["image"] = {"repository": f"{aks.nvidia.image_registry}/{DEVICE_PLUGIN_IMAGE}"}
    return _chart(
        aks.nvidia, "nvidia-device-plugin", DEVICE_PLUGIN_REPOSITORY, aks.nvidia.device_plugin_version, values
    )


def system_pool_tolerations(aks: AksConfig) -> list[dict[str, str]]:
    """A toleration of each taint of the system pool (``CriticalAddonsOnly`` by default)."""
    return [
        {"key": key, "operator": "Equal", "value": value, "effect": effect}
        for key, value, effect in map(parse_taint, aks.system_pool.node_taints)
    ]
