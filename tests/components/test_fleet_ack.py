"""The ACK half of the fleet, and the shipped ACK stack: warnings, per-cluster needs and keys, versions that last."""

from __future__ import annotations

import logging

import pytest

from components.config.base import ConfigError
from components.config.stack import load_stack_config
from components.fleet import deploy
from tests.support import PROJECT_ROOT
from tests.support.config import as_config
from tools import mock_runtime, render

ROOT = PROJECT_ROOT
ACK_STACK = ROOT / "stacks/Pulumi.ack-acs-dev.yaml"
ADDON_TYPE = "alicloud:cs/kubernetesAddon:KubernetesAddon"
POOL = {"name": "system", "instanceTypes": ["ecs.g7.large"], "minSize": 2, "maxSize": 2}


def cluster(name: str, **fields) -> dict:
    network = {"vswitchIds": [f"vsw-{name}node"], "podVswitchIds": [f"vsw-{name}pod"]}
    return {"name": name, "region": "cn-hangzhou", "kubernetesVersion": "1.35", "network": network, **fields}


CPU = {"name": "web", "cluster": "cpu", "image": "nginx:1.27"}
HPN = {"name": "train", "cluster": "hpn", "image": "trainer:1", "computeClass": "gpu-hpn", "cpu": 1, "memory": "1Gi"}


def run_ack(run_program, clusters: list[dict], workloads: list[dict]) -> mock_runtime.Recording:
    config = load_stack_config(as_config({"ack": {"clusters": clusters, "workloads": workloads}}))
    return run_program(lambda: deploy(config))


def test_each_cluster_is_checked_against_its_own_workloads_and_named_by_its_index(run_program, monkeypatch):
    """v2.14.0 serves the CPU cluster (ACS needs v2.13.0); the GPU-HPN cluster, the second, needs v2.15.0."""
    monkeypatch.setitem(mock_runtime.ACK_CURRENT_ADDONS, "ack-virtual-node", "v2.14.0")
    clusters = [cluster("cpu", nodePool=POOL), cluster("hpn", nodePool=POOL)]
    run_ack(run_program, clusters[:1], [CPU])
    with pytest.raises(ConfigError) as caught:
        run_ack(run_program, clusters, [CPU, HPN])
    assert caught.value.keys == ["elastic-capacity:ack.clusters[1].virtualNode.version"]
    assert "ack.workloads[1] (train, gpu-hpn)" in str(caught.value)


def test_config_warnings_are_logged_with_their_full_keys(run_program, caplog):
    gpu = {**HPN, "cluster": "cpu", "computeClass": "gpu", "gpu": 1, "gpuModelSeries": "L20"}
    with caplog.at_level(logging.WARNING):
        run_ack(run_program, [cluster("cpu")], [gpu])
    messages = [record.getMessage() for record in caplog.records]
    assert any(m.startswith("elastic-capacity:ack.workloads[0].gpuModelSeries: 'L20'") for m in messages)
    assert any(m.startswith("elastic-capacity:ack.clusters[0].nodePool: no ECS node pool") for m in messages)


@pytest.fixture(scope="module")
def dev_stack() -> mock_runtime.Recording:
    stack, config, secret_keys = render.read_stack_file(ACK_STACK)
    return mock_runtime.run(lambda: deploy(load_stack_config(config, secret_keys)), config, secret_keys, stack=stack)


def test_the_dev_stack_asks_for_a_supported_minor_and_gets_the_newest_patch(dev_stack):
    clusters = dev_stack.by_type("alicloud:cs/managedKubernetes:ManagedKubernetes")
    assert {c.inputs["version"] for c in clusters} == {"1.35.2-aliyun.1"}
    _, config, _ = render.read_stack_file(ACK_STACK)
    assert '"kubernetesVersion": "1.35"' in config["elastic-capacity:ack"]


def test_the_dev_stack_pins_no_addon_version(dev_stack):
    """No kube-scheduler resource (ACK's default install is checked instead) and an unpinned virtual node."""
    addons = dev_stack.by_type(ADDON_TYPE)
    assert sorted(a.name for a in addons) == [f"ack-acs-{c}-ack-virtual-node" for c in ("beijing", "hangzhou", "hpn")]
    assert all("version" not in a.inputs for a in addons)


def test_the_dev_stack_gives_every_cluster_ecs_nodes_and_documented_gpu_models(dev_stack, caplog):
    pools = dev_stack.by_type("alicloud:cs/nodePool:NodePool")
    assert len(pools) == 3 and {p.inputs["desiredSize"] for p in pools} == {"2"}
    models = {
        d.inputs["spec"]["template"]["metadata"]["labels"].get("alibabacloud.com/gpu-model-series")
        for d in dev_stack.by_type("kubernetes:apps/v1:Deployment")
    }
    assert models == {None, "GN8IS"}
    _, config, secret_keys = render.read_stack_file(ACK_STACK)
    assert load_stack_config(config, secret_keys).ack.warnings() == []
