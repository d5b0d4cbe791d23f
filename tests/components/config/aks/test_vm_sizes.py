"""The VM size table: GPU sizes by table or by family name."""

from __future__ import annotations

import pytest

from components.config.aks.vm_sizes import VM_SIZES, is_gpu_size


@pytest.mark.parametrize(
    ("size", "gpu"),
    [
        ("Standard_D4s_v3", False),
        ("Standard_NC4as_T4_v3", True),
        ("Standard_NV36ads_A10_v5", True),
        ("Standard_NV32as_v4", False),
        ("Standard_NP10s", False),
        ("Standard_NG32ads_V620_v1", False),
        ("Standard_X1", False),
    ],
)
def test_a_size_has_gpus_by_the_table_or_else_by_its_family(size, gpu):
    assert is_gpu_size(size) is gpu


def test_mig_sizes_are_the_a100_h100_and_h200_ones_with_the_memory_their_profiles_are_named_by():
    mig = {name: size.gpu_memory_gb for name, size in VM_SIZES.items() if size.mig}
    assert all(("A100" in name or "H100" in name or "H200" in name or name == "Standard_ND96asr_v4") for name in mig)
    assert set(mig.values()) == {40, 80, 94, 141}


def test_no_retired_size_is_offered():
    assert not [name for name in VM_SIZES if name.startswith("Standard_NC") and name.endswith("s_v3")], "NCv3 retired"
