"""GPU pools on AKS: the driver, MIG partitioning, the GPU taint, and the NVIDIA software that advertises the GPUs.

AKS installs the NVIDIA driver on a GPU pool unless ``gpuProfile.driver`` is ``None``, but not the device plugin
that turns GPUs into the ``nvidia.com/gpu`` resource (https://learn.microsoft.com/azure/aks/use-nvidia-gpu): with
the driver installed the stack installs NVIDIA's device plugin chart; without it, NVIDIA's GPU Operator, which brings
the driver, the container toolkit and the device plugin. AKS's fully managed GPU pools (preview,
``gpuProfile.nvidia.managementMode: Managed``), which bring their own device plugin, are not created here
(docs/known-limits.md). MIG (``gpuInstanceProfile``) partitions every GPU of an
A100, H100 or H200 node, with AKS's driver only; the device plugin's MIG strategy decides the resource name pods ask
for (https://learn.microsoft.com/azure/aks/gpu-multi-instance).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from components.config.aks.vm_sizes import VmSize
from components.config.base import ConfigModel, matching
from components.config.kueue.registries import CHART_REFERENCE, IMAGE_REPOSITORY, Source

GPU_RESOURCE = "nvidia.com/gpu"
"""The resource NVIDIA's device plugin advertises for a whole GPU, or for a MIG slice under the ``single``
strategy."""
DEVICE_PLUGIN_REPOSITORY = "https://nvidia.github.io/k8s-device-plugin"
GPU_OPERATOR_REPOSITORY = "https://helm.ngc.nvidia.com/nvidia"
NVIDIA_REGISTRY = "nvcr.io"
"""NVIDIA's image registry, where both charts' images are by default."""
GPU_TAINT = "sku=gpu:NoSchedule"
"""The taint Microsoft's GPU page puts on GPU pools, so pods that ask no GPU stay off the expensive nodes."""

MigProfile = Literal["MIG1g", "MIG2g", "MIG3g", "MIG4g", "MIG7g"]
"""ARM ``gpuInstanceProfile``: the compute slices of each MIG instance."""
MIG_INSTANCES = {"MIG1g": 7, "MIG2g": 3, "MIG3g": 2, "MIG4g": 1, "MIG7g": 1}
"""Instances one GPU is cut into per profile (Microsoft's MIG table, the same for A100, H100 and H200)."""
MIG_MEMORY_GB = {
    40: {"MIG1g": 5, "MIG2g": 10, "MIG3g": 20, "MIG4g": 20, "MIG7g": 40},
    80: {"MIG1g": 10, "MIG2g": 20, "MIG3g": 40, "MIG4g": 40, "MIG7g": 80},
    94: {"MIG1g": 12, "MIG2g": 24, "MIG3g": 47, "MIG4g": 47, "MIG7g": 94},
    141: {"MIG1g": 18, "MIG2g": 35, "MIG3g": 71, "MIG4g": 71, "MIG7g": 141},
}
"""Memory of one MIG instance by GPU memory, which names the ``mixed`` strategy's resource (NVIDIA's MIG user guide,
https://docs.nvidia.com/datacenter/tesla/mig-user-guide/#supported-mig-profiles)."""

ChartVersion = Annotated[str, matching(r"v?\d+\.\d+\.\d+", "a chart version such as 0.18.0 or v25.10.1")]


class GpuPoolConfig(ConfigModel):
    """What makes a user pool a GPU pool beyond its NC/ND ``vmSize`` (ARM ``gpuProfile``, ``gpuInstanceProfile``)."""

    driver: Literal["Install", "None"] = "Install"
    """ARM ``gpuProfile.driver``: ``Install`` (AKS's default) keeps the driver AKS supports and patches with the node
    image, and the stack installs NVIDIA's device plugin; ``None`` skips it and the stack installs NVIDIA's GPU
    Operator, which brings its own driver (https://learn.microsoft.com/azure/aks/use-nvidia-gpu#skip-gpu-driver-installation)."""
    instance_profile: MigProfile | None = None
    """ARM ``gpuInstanceProfile``: partition every GPU with MIG (A100, H100 and H200 sizes only; fixed once the pool
    exists). Unset: whole GPUs."""
    taint: bool = True
    """Taint the pool ``sku=gpu:NoSchedule``, as Microsoft's GPU page does, unless the pool writes ``taints`` of its
    own (those are then its taints); flavors on the pool tolerate whatever it carries."""


class NvidiaConfig(ConfigModel):
    """The NVIDIA software the stack installs by Helm when it has GPU pools (stack key ``aks.nvidia``)."""

    device_plugin_version: ChartVersion = "0.18.0"
    """The ``nvidia-device-plugin`` chart of https://nvidia.github.io/k8s-device-plugin, for pools whose driver AKS
    installs: 0.18.0 is the plugin Microsoft's GPU page deploys (image ``nvcr.io/nvidia/k8s-device-plugin:v0.18.0``,
    https://learn.microsoft.com/azure/aks/use-nvidia-gpu); releases: https://github.com/NVIDIA/k8s-device-plugin/releases."""
    gpu_operator_version: ChartVersion = "v25.10.1"
    """The ``gpu-operator`` chart of https://helm.ngc.nvidia.com/nvidia, for pools with ``gpu.driver: None``:
    v25.10.1 is the patch release NVIDIA's install guide names
    (https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/getting-started.html)."""
    mig_strategy: Literal["single", "mixed"] = "single"
    """How MIG instances are advertised: ``single`` as ``nvidia.com/gpu`` (one per instance), ``mixed`` as
    ``nvidia.com/mig-<slices>g.<memory>gb``. Neither is what the cluster autoscaler plans a node from zero with: its
    template node advertises the size's whole GPUs as ``nvidia.com/gpu``
    (https://github.com/kubernetes/autoscaler/blob/master/cluster-autoscaler/cloudprovider/azure/azure_template.go),
    so a MIG pool keeps a node (``minCount`` of at least 1) for the autoscaler to learn the real counts from."""
    namespace: str = Field(default="nvidia-gpu", pattern=r"[a-z0-9]([-a-z0-9]*[a-z0-9])?", max_length=63)
    """The namespace the chart goes into (created by the stack)."""
    chart_repository: Annotated[str, matching(CHART_REFERENCE.pattern, "an oci:// or https:// reference")] | None = None
    """An https Helm repository serving the chart the pools need (``nvidia-device-plugin`` or ``gpu-operator``), or
    that chart's own ``oci://`` reference; unset, NVIDIA's repository of it. Helm pulls it where ``pulumi`` runs."""
    image_registry: (
        Annotated[str, matching(IMAGE_REPOSITORY.pattern, "a registry host, e.g. myregistry.azurecr.cn")] | None
    ) = None
    """A registry holding NVIDIA's images under their ``nvcr.io`` paths (``<registry>/nvidia/k8s-device-plugin``
    ...) and, for the GPU Operator, node feature discovery's under its ``registry.k8s.io`` path
    (``<registry>/nfd/node-feature-discovery``), e.g. an Azure Container Registry filled with ``az acr import``;
    unset, the images' own registries. Azure China mirrors neither, so a GPU stack there sets both keys."""

    def sources(self, driver: str | None) -> list[Source]:
        """The chart and images the GPU pools of ``driver`` pull (the GPU Operator's with ``None``, the device
        plugin's otherwise), with their keys under ``aks.nvidia``."""
        default_repository = GPU_OPERATOR_REPOSITORY if driver == "None" else DEVICE_PLUGIN_REPOSITORY
        return [
            Source("chartRepository", self.chart_repository or default_repository, default_repository),
            Source("imageRegistry", self.image_registry or NVIDIA_REGISTRY, NVIDIA_REGISTRY),
        ]


def gpu_resources(size: VmSize | None, gpu: GpuPoolConfig, mig_strategy: str) -> dict[str, int | None]:
    """The GPU resource a node of ``size`` advertises and how many of it (``None`` when the size is unknown)."""
    if gpu.instance_profile is None or size is None:
        return {GPU_RESOURCE: size.gpus if size is not None else None}
    instances = size.gpus * MIG_INSTANCES[gpu.instance_profile]
    if mig_strategy == "single":
        return {GPU_RESOURCE: instances}
    slices = gpu.instance_profile.removeprefix("MIG")
    memory = MIG_MEMORY_GB[size.gpu_memory_gb][gpu.instance_profile]
    return {f"nvidia.com/mig-{slices}.{memory}gb": instances}
