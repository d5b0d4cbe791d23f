"""The synthetic fleets are valid stack configs with N of their thing."""

from __future__ import annotations

import json

import pytest

from components.config.loader import load_stack_config
from tools import render
from tools.bench_fleets import CAPS, FLEETS, Spec, aks_pools, capped, clusters, multikueue_workers, queues, workloads


def test_every_fleet_is_a_valid_stack_config_with_n_of_its_thing():
    for fleet in sorted(FLEETS):
        spec = FLEETS[fleet](3)
        assert spec.stack == f"bench-{fleet}-3"
        load_stack_config(spec.config, set(spec.secret_keys), stack=spec.stack)
    q = json.loads(queues(4).config["elastic-capacity:queues"])
    assert (len(q["clusterQueues"]), len(q["localQueues"]), len(q["namespaces"])) == (4, 4, 4)
    assert len(json.loads(workloads(4).config["elastic-capacity:ack"])["workloads"]) == 4
    ack = json.loads(clusters(4).config["elastic-capacity:ack"])
    assert (len(ack["clusters"]), len(ack["workloads"])) == (4, 4)


def test_a_spec_survives_its_json_form():
    spec = Spec("s", {"elastic-capacity:x": "{}"}, ("elastic-capacity:kubeconfig",))
    assert Spec.from_json(json.loads(json.dumps(spec.to_json()))) == spec


@pytest.mark.parametrize(
    ("fleet", "kind", "count"),
    [
        ("aks-pools", "azure-native:containerservice:AgentPool", 2),
        ("ack-pools", "alicloud:cs/nodePool:NodePool", 3),  # the system pool and two user pools
        ("multikueue-workers", "kubernetes:kueue.x-k8s.io/v1beta2:MultiKueueCluster", 2),
    ],
)
def test_each_new_fleet_renders_n_of_its_thing(fleet, kind, count):
    spec = FLEETS[fleet](2)
    recording = render.run_main(spec.stack, spec.config, set(spec.secret_keys))
    assert sum(r.type == kind for r in recording.registrations) == count


def test_a_fleet_past_its_limit_builds_its_limit_and_stays_valid():
    assert (CAPS["aks-pools"], CAPS["multikueue-workers"]) == ((99, "AKS limit"), (20, "MultiKueue limit"))
    assert (capped("aks-pools", 200), capped("aks-pools", 5), capped("ack-pools", 200)) == (99, 5, 200)
    for spec in (aks_pools(200), multikueue_workers(200)):
        load_stack_config(spec.config, set(spec.secret_keys), stack=spec.stack)
    assert len(json.loads(aks_pools(200).config["elastic-capacity:aks"])["userPools"]) == 99
    assert len(json.loads(multikueue_workers(200).config["elastic-capacity:multiKueue"])["workers"]) == 20
