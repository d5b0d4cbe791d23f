"""What a GPU pool's nodes advertise: whole GPUs, or MIG instances under either strategy."""

from __future__ import annotations

import pytest

from components.config.aks.gpu import GpuPoolConfig, gpu_resources
from components.config.aks.vm_sizes import VM_SIZES
from tests.support.config import stack_error_keys


@pytest.mark.parametrize(
    ("size", "profile", "strategy", "advertised"),
    [
        ("Standard_ND96asr_v4", None, "single", {"nvidia.com/gpu": 8}),
        ("Standard_ND96asr_v4", "MIG1g", "single", {"nvidia.com/gpu": 56}),
        ("Standard_ND96asr_v4", "MIG1g", "mixed", {"nvidia.com/mig-1g.5gb": 56}),
        ("Standard_NC24ads_A100_v4", "MIG3g", "mixed", {"nvidia.com/mig-3g.40gb": 2}),
        ("Standard_NC40ads_H100_v5", "MIG7g", "mixed", {"nvidia.com/mig-7g.94gb": 1}),
        ("Standard_ND96isr_H200_v5", "MIG1g", "mixed", {"nvidia.com/mig-1g.18gb": 56}),
    ],
)
def test_a_node_advertises_its_gpus_or_mig_instances(size, profile, strategy, advertised):
    """Microsoft's MIG page: a MIG1g Standard_ND96asr_v4 node shows 56 of nvidia.com/gpu (single) or of
    nvidia.com/mig-1g.5gb (mixed)."""
    assert gpu_resources(VM_SIZES[size], GpuPoolConfig(instance_profile=profile), strategy) == advertised


def test_an_unknown_size_advertises_gpus_of_unknown_count():
    assert gpu_resources(None, GpuPoolConfig(), "single") == {"nvidia.com/gpu": None}


@pytest.mark.parametrize(
    ("key", "bad"),
    [("chartRepository", "nvidia.github.io/k8s-device-plugin"), ("imageRegistry", "https://myregistry.azurecr.cn")],
)
def test_nvidia_sources_are_a_chart_reference_and_a_registry_named_at_their_key(key, bad):
    sections = {"aks": {"userPools": [{"name": "gpu", "vmSize": "Standard_NC4as_T4_v3"}], "nvidia": {key: bad}}}
    assert stack_error_keys(sections) == [f"elastic-capacity:aks.nvidia.{key}"]
