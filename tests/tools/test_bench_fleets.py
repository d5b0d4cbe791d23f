"""The synthetic fleets are valid stack configs with N of their thing."""

from __future__ import annotations

import json

from components.config.loader import load_stack_config
from tools.bench_fleets import FLEETS, Spec, clusters, queues, workloads


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
