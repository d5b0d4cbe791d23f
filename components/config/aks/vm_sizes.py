"""The Azure VM sizes this program knows: vCPUs, memory and GPUs per node, for the feasibility rules and GPU pools.

Checked on 2026-12-01 against Azure's size pages: general purpose
(https://learn.microsoft.com/azure/virtual-machines/sizes/general-purpose/dv3-series,
https://learn.microsoft.com/azure/virtual-machines/sizes/general-purpose/dsv5-series,
https://learn.microsoft.com/azure/virtual-machines/sizes/general-purpose/dsv6-series), and GPU accelerated
(https://learn.microsoft.com/azure/virtual-machines/sizes/gpu-accelerated/ncast4v3-series,
https://learn.microsoft.com/azure/virtual-machines/sizes/gpu-accelerated/nca100v4-series,
https://learn.microsoft.com/azure/virtual-machines/sizes/gpu-accelerated/nda100v4-series,
https://learn.microsoft.com/azure/virtual-machines/sizes/gpu-accelerated/ndma100v4-series,
https://learn.microsoft.com/azure/virtual-machines/sizes/gpu-accelerated/nch100v5-series,
https://learn.microsoft.com/azure/virtual-machines/sizes/gpu-accelerated/ndh100v5-series,
https://learn.microsoft.com/azure/virtual-machines/sizes/gpu-accelerated/ndh200v5-series). A size not listed is not
judged: its fit is a warning, and it cannot take a MIG profile. The V100 sizes (NCv3) are not listed: Azure retired
them on 2025-09-30 (https://learn.microsoft.com/azure/virtual-machines/sizes/retirement/ncv3-nc6s-nc12s-nc24s-retirement).
Memory is what the cluster autoscaler plans a node from zero with, where its table differs from the size page
(https://github.com/kubernetes/autoscaler/blob/master/cluster-autoscaler/cloudprovider/azure/azure_instance_types.go).
"""

from __future__ import annotations

import re
from typing import NamedTuple


class VmSize(NamedTuple):
    vcpus: int
    memory_gib: int
    gpus: int = 0
    """NVIDIA GPUs per node: what the device plugin advertises as ``nvidia.com/gpu`` without MIG."""
    gpu_memory_gb: int = 0
    """Memory of one GPU, which names its MIG profiles (``1g.5gb`` on a 40 GB A100, ``1g.10gb`` on 80 GB)."""
    mig: bool = False
    """Whether the GPU is an A100, H100 or H200, the GPUs AKS partitions with ``gpuInstanceProfile``
    (https://learn.microsoft.com/azure/aks/gpu-multi-instance)."""


VM_SIZES: dict[str, VmSize] = {
    "Standard_D2s_v3": VmSize(2, 8),
    "Standard_D4s_v3": VmSize(4, 16),
    "Standard_D8s_v3": VmSize(8, 32),
    "Standard_D16s_v3": VmSize(16, 64),
    "Standard_D2s_v5": VmSize(2, 8),
    "Standard_D4s_v5": VmSize(4, 16),
    "Standard_D8s_v5": VmSize(8, 32),
    "Standard_D2ds_v5": VmSize(2, 8),
    "Standard_D4ds_v5": VmSize(4, 16),
    "Standard_D2ds_v6": VmSize(2, 8),
    "Standard_D4ds_v6": VmSize(4, 16),
    "Standard_D8ds_v6": VmSize(8, 32),
    "Standard_E4s_v5": VmSize(4, 32),
    "Standard_F4s_v2": VmSize(4, 8),
    "Standard_NC4as_T4_v3": VmSize(4, 28, gpus=1, gpu_memory_gb=16),
    "Standard_NC8as_T4_v3": VmSize(8, 56, gpus=1, gpu_memory_gb=16),
    "Standard_NC16as_T4_v3": VmSize(16, 110, gpus=1, gpu_memory_gb=16),
    "Standard_NC64as_T4_v3": VmSize(64, 440, gpus=4, gpu_memory_gb=16),
    "Standard_NC24ads_A100_v4": VmSize(24, 220, gpus=1, gpu_memory_gb=80, mig=True),
    "Standard_NC48ads_A100_v4": VmSize(48, 440, gpus=2, gpu_memory_gb=80, mig=True),
    "Standard_NC96ads_A100_v4": VmSize(96, 880, gpus=4, gpu_memory_gb=80, mig=True),
    "Standard_ND96asr_v4": VmSize(96, 900, gpus=8, gpu_memory_gb=40, mig=True),
    "Standard_ND96amsr_A100_v4": VmSize(96, 1800, gpus=8, gpu_memory_gb=80, mig=True),  # the size page says 1900
    "Standard_NC40ads_H100_v5": VmSize(40, 320, gpus=1, gpu_memory_gb=94, mig=True),
    "Standard_NC80adis_H100_v5": VmSize(80, 640, gpus=2, gpu_memory_gb=94, mig=True),
    "Standard_ND96isr_H100_v5": VmSize(96, 1900, gpus=8, gpu_memory_gb=80, mig=True),
    "Standard_ND96isr_H200_v5": VmSize(96, 1850, gpus=8, gpu_memory_gb=141, mig=True),
}
"""vCPUs, memory (GiB) and NVIDIA GPUs of common AKS node sizes, from the pages above."""

GPU_SIZE_PREFIXES = ("Standard_NC", "Standard_ND", "Standard_NV")
"""Azure's NVIDIA families: a size outside :data:`VM_SIZES` starting so is taken to have NVIDIA GPUs (how many is
unknown), but for :data:`AMD_NV_SIZE`. NP carries FPGAs and NG AMD GPUs
(https://learn.microsoft.com/azure/virtual-machines/sizes/overview#gpu-accelerated); AKS gives NVadsA10 v5 NVIDIA's
GRID driver (https://github.com/Azure/AgentBaker, ``aks-gpu-grid``)."""
AMD_NV_SIZE = re.compile(r"Standard_NV\d+as_v4")
"""NVv4: AMD GPUs, which AKS does not support (https://learn.microsoft.com/azure/aks/use-nvidia-gpu)."""


def is_gpu_size(vm_size: str) -> bool:
    """Whether a pool of ``vm_size`` has NVIDIA GPUs: by the table, else by its family."""
    known = VM_SIZES.get(vm_size)
    if known is not None:
        return known.gpus > 0
    return vm_size.startswith(GPU_SIZE_PREFIXES) and not AMD_NV_SIZE.fullmatch(vm_size)
