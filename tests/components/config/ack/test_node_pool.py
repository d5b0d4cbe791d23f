"""Rules of an ACK node pool (``nodePool``, ``userPools[]``): sizes in order, instance types once and of one kind,
Kubernetes labels and taints, and what ACK is told the pool is."""

from __future__ import annotations

import pytest

from components.config.ack.node_pool import AckNodePoolConfig
from tests.support.config import model_error_keys

POOL = {"name": "system", "instanceTypes": ["ecs.g7.xlarge"], "minSize": 1, "maxSize": 3}


@pytest.mark.parametrize(
    ("changes", "key"),
    [
        ({"minSize": 4}, "nodePool.minSize"),
        ({"desiredSize": 5}, "nodePool.desiredSize"),
        ({"minSize": 2, "desiredSize": 1}, "nodePool.desiredSize"),
        ({"instanceTypes": ["ecs.g7.xlarge", "ecs.g6.xlarge", "ecs.g7.xlarge"]}, "nodePool.instanceTypes[2]"),
        ({"instanceTypes": []}, "nodePool.instanceTypes"),
        ({"instanceTypes": ["ecs.gn7i-c8g1.2xlarge", "ecs.g7.large"]}, "nodePool.instanceTypes"),
        ({"labels": {"bad key": "x"}}, "nodePool.labels.bad key"),
        ({"taints": [{"key": "dedicated", "effect": "NoRun"}]}, "nodePool.taints[0].effect"),
        ({"taints": [{"key": "dedicated pool"}]}, "nodePool.taints[0].key"),
        ({"systemDiskSize": 10}, "nodePool.systemDiskSize"),
        ({"name": "System"}, "nodePool.name"),
        ({"spotPriceLimits": {"ecs.g7.xlarge": "0.5"}}, "nodePool.spotPriceLimits"),
        ({"spotStrategy": "SpotWithPriceLimit"}, "nodePool.spotPriceLimits"),
        (
            {"spotStrategy": "SpotWithPriceLimit", "spotPriceLimits": {"ecs.g6.large": "1"}},
            "nodePool.spotPriceLimits.ecs.g6.large",
        ),
        (
            {"spotStrategy": "SpotAsPriceGo", "spotPriceLimits": {"ecs.g7.xlarge": "cheap"}},
            "nodePool.spotPriceLimits.ecs.g7.xlarge",
        ),
    ],
)
def test_rule(changes, key):
    good = {**POOL, "desiredSize": 2, "labels": {"workload": "system"}, "taints": [{"key": "dedicated", "value": "x"}]}
    pool = AckNodePoolConfig.model_validate(good)
    assert (pool.autoscaling, pool.initial_size, pool.taints[0].effect) == (True, 2, "NoSchedule")
    assert model_error_keys(AckNodePoolConfig, {**POOL, **changes}, "nodePool") == [key]


def test_sizes_decide_autoscaling_and_the_initial_count():
    fixed = AckNodePoolConfig.model_validate({**POOL, "minSize": 2, "maxSize": 2})
    assert (fixed.autoscaling, fixed.initial_size) == (False, 2)
    assert AckNodePoolConfig.model_validate(POOL).initial_size == 1


def test_a_pool_is_fixed_at_its_maximum_unless_it_asks_to_scale():
    """Leaving minSize out gives a fixed pool, not one that autoscales from zero (the W1 finding): an autoscaled pool
    gets no nodes before the cluster's node scaling is on, and its nodes never take CoreDNS."""
    pool = AckNodePoolConfig.model_validate({"name": "system", "instanceTypes": ["ecs.g7.large"], "maxSize": 2})
    assert (pool.min_size, pool.desired_size, pool.initial_size, pool.autoscaling) == (None, None, 2, False)
    assert (pool.system_disk_category, pool.system_disk_size) == ("cloud_essd", 120)
    assert (pool.labels, pool.taints) == ({}, [])


@pytest.mark.parametrize(
    "instance_type",
    ["ecs.gn7i-c8g1.2xlarge", "ecs.ebmgn7e.32xlarge", "ecs.vgn7i-vws-m4.xlarge", "ecs.sgn7i-vws-m2.xlarge"],
)
def test_every_nvidia_family_is_a_gpu_type(instance_type):
    """gn, the GRID vGPU families vgn and sgn, and their bare-metal forms (the N3 finding: vgn and sgn were missed)."""
    pool = AckNodePoolConfig.model_validate({**POOL, "instanceTypes": [instance_type]})
    assert pool.gpu_instance_types == [instance_type]


@pytest.mark.parametrize(
    ("changes", "kind"),
    [
        ({}, "cpu"),
        ({"instanceTypes": ["ecs.gn7i-c8g1.2xlarge"]}, "gpu"),
        ({"spotStrategy": "SpotAsPriceGo"}, "spot"),
        ({"instanceTypes": ["ecs.gn7i-c8g1.2xlarge"], "spotStrategy": "SpotAsPriceGo"}, "spot"),
    ],
)
def test_ack_is_told_what_the_pool_is_made_of(changes, kind):
    assert AckNodePoolConfig.model_validate({**POOL, **changes}).scaling_type == kind
