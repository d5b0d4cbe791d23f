"""Autoscaling pool bounds: every shipped pool passes; the same pool with its bounds crossed fails, naming both.

The shipped stacks autoscale only separate AKS ``AgentPool`` resources; the AKS system pool (inline in the cluster)
and ACK user pools autoscale when their stack file says so, so those cases run the shipped stack files with
exactly that switched on.
"""

from __future__ import annotations

import pytest
from elastic_capacity_policies.aks import MANAGED_CLUSTER
from elastic_capacity_policies.pools import ACK_NODE_POOL, AGENT_POOL, POOL_BOUNDS

from tests.support.stacks import ACK_STACK, AKS_STACK, edited_stack, run_stack

POOL_TYPES = (MANAGED_CLUSTER, AGENT_POOL, ACK_NODE_POOL)


def autoscaling_system_pool(config):
    config["elastic-capacity:aks"]["systemPool"] = {"minCount": 1, "maxCount": 3}


def autoscaling_node_pool(config):
    batch = {"name": "batch", "instanceTypes": ["ecs.c7.xlarge"], "minSize": 1, "maxSize": 3}
    config["elastic-capacity:ack"]["clusters"][0]["userPools"] = [batch]


@pytest.fixture(scope="module")
def autoscaled(tmp_path_factory):
    """The AKS dev stack with its system pool autoscaling, and the ACK dev stack with an autoscaling user pool beside
    its first cluster's (fixed) system pool."""
    aks = edited_stack(AKS_STACK, autoscaling_system_pool, tmp_path_factory.mktemp("aks"))
    ack = edited_stack(ACK_STACK, autoscaling_node_pool, tmp_path_factory.mktemp("ack"))
    return run_stack(aks, preview=True), run_stack(ack, preview=True)


def test_every_shipped_pool_passes_and_the_agent_pools_are_the_autoscaled_ones(engine):
    autoscaled = []
    for name, recording in engine.recordings.items():
        for registration in recording.registrations:
            if registration.type in POOL_TYPES:
                assert engine.messages(POOL_BOUNDS, engine.resource_args(registration)) == [], name
            if registration.type == AGENT_POOL and registration.inputs.get("enableAutoScaling"):
                autoscaled.append(name)
    assert sorted(autoscaled) == [
        *["aks-gpu-spot"] * 3,
        "aks-kueue-china",
        "aks-kueue-dev",
        "burst",
        "ephemeral",
        "multicloud",
    ], "aks-gpu-spot: its Spot, on-demand and GPU pools"


def test_an_agent_pool_with_its_minimum_above_its_maximum_fails(engine):
    pool = engine.stack("aks-kueue-dev").one(AGENT_POOL)
    props = engine.props(pool)
    assert (props["minCount"], props["maxCount"]) == (1, 5)
    props["minCount"] = 6
    assert engine.messages(POOL_BOUNDS, engine.resource_args(pool, props)) == [
        "AKS agent pool 'scalepool' autoscales with minCount 6 above maxCount 5: minCount must not exceed maxCount."
    ]


def test_an_autoscaling_agent_pool_without_both_bounds_fails_and_a_fixed_one_is_not_checked(engine):
    pool = engine.stack("multicloud").one(AGENT_POOL)
    props = engine.props(pool)
    del props["maxCount"]
    assert engine.messages(POOL_BOUNDS, engine.resource_args(pool, props)) == [
        "AKS agent pool 'scalepool' autoscales but does not set both minCount and maxCount (it has 0.0 and None)."
    ]
    props.update(enableAutoScaling=False, minCount=6, maxCount=5)
    assert engine.messages(POOL_BOUNDS, engine.resource_args(pool, props)) == []


def test_an_autoscaling_system_pool_passes_and_fails_with_its_bounds_crossed(engine, autoscaled):
    recording = autoscaled[0]
    cluster = recording.one(MANAGED_CLUSTER)
    props = engine.props(cluster)
    system = props["agentPoolProfiles"][0]
    assert (system["name"], system["enableAutoScaling"], system["minCount"], system["maxCount"]) == (
        "system",
        True,
        1,
        3,
    )
    assert engine.messages(POOL_BOUNDS, engine.resource_args(cluster, props, recording=recording)) == []
    system["minCount"] = 4
    assert engine.messages(POOL_BOUNDS, engine.resource_args(cluster, props, recording=recording)) == [
        "AKS cluster 'aks-cluster' agentPoolProfiles[0] ('system') autoscales with minCount 4 above maxCount 3: "
        "minCount must not exceed maxCount."
    ]


def test_an_autoscaling_ack_node_pool_passes_and_fails_with_its_bounds_crossed(engine, autoscaled):
    recording = autoscaled[1]
    pool = recording.one(ACK_NODE_POOL, "ack-acs-hangzhou-batch")
    props = engine.props(pool)
    assert {key: props["scalingConfig"][key] for key in ("enable", "minSize", "maxSize")} == {
        "enable": True,
        "minSize": 1,
        "maxSize": 3,
    }
    assert engine.messages(POOL_BOUNDS, engine.resource_args(pool, props, recording=recording)) == []
    props["scalingConfig"]["minSize"] = 4
    assert engine.messages(POOL_BOUNDS, engine.resource_args(pool, props, recording=recording)) == [
        "ACK node pool 'batch' autoscales with scalingConfig.minSize 4 above scalingConfig.maxSize 3: "
        "scalingConfig.minSize must not exceed scalingConfig.maxSize."
    ]
    props["scalingConfig"]["enable"] = False
    assert engine.messages(POOL_BOUNDS, engine.resource_args(pool, props, recording=recording)) == []
