"""The ``aks`` section's pools: a stack writes its user pools or names the walkthrough's with ``aks.preset``."""

from __future__ import annotations

import pytest

from components.config.aks.aks import AksConfig
from components.config.aks.pools import POOL_PRESETS
from components.config.base import ConfigError
from components.config.loader import load_stack_config
from tests.support.config import as_config

POOL = {"name": "batch", "vmSize": "Standard_D8s_v5", "minCount": 0, "maxCount": 3, "initialCount": 0}


def refusal(aks: dict[str, object]) -> str:
    with pytest.raises(ConfigError) as caught:
        load_stack_config(as_config({"aks": aks}), stack="dev")
    return str(caught.value)


def test_the_preset_writes_the_walkthroughs_pool_and_written_pools_are_the_stacks_own():
    preset = load_stack_config(as_config({"aks": {"preset": "aks-walkthrough"}}), stack="dev").aks
    written = load_stack_config(as_config({"aks": {"userPools": [POOL]}}), stack="dev").aks
    assert preset is not None and written is not None
    assert [p.model_dump(by_alias=True, exclude_unset=True) for p in preset.user_pools] == POOL_PRESETS[
        "aks-walkthrough"
    ]
    assert [(p.name, p.vm_size, p.min_count) for p in written.user_pools] == [("batch", "Standard_D8s_v5", 0)]


def test_a_stack_with_neither_pools_nor_a_preset_is_told_to_write_one_and_both_are_refused():
    assert refusal({}) == (
        "elastic-capacity:aks.userPools: it is not set; write the autoscaling pools batch jobs run on, or aks.preset: "
        "aks-walkthrough for the walkthrough's scalepool (Standard_D4s_v3, 1..5 nodes) [rule: aks.user-pools-or-preset]"
    )
    assert refusal({"preset": "aks-walkthrough", "userPools": [POOL]}).startswith(
        "elastic-capacity:aks.userPools: it must not be set here; aks.preset 'aks-walkthrough' writes the user pools"
    )


def test_a_section_validated_outside_any_stack_gets_the_walkthroughs_pool_as_it_gets_its_names():
    assert [pool.name for pool in AksConfig().user_pools] == ["scalepool"]
