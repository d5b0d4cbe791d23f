"""What a MultiKueue burst set-up needs from the other sections: each refused naming the key and what is allowed."""

from __future__ import annotations

from typing import Any

import pytest

from components.config.stack import load_stack_config
from tests.support import ack as ack_data
from tests.support.config import as_config, stack_error_keys

WORKER = ack_data.cluster("worker", nodePool=ack_data.POOL)
BURST = {"workers": [{"cluster": "worker"}]}


def stack(**changes: Any) -> dict[str, Any]:
    """An AKS manager on Kubernetes 1.35 with Kueue 0.17.8 and one ACK worker with a node pool and a public API."""
    sections: dict[str, Any] = {"aks": {}, "ack": {"clusters": [WORKER]}, "multiKueue": BURST}
    for section, value in changes.items():
        sections[section] = value
    return sections


def test_the_burst_set_up_loads_and_gives_the_manager_its_multikueue_settings():
    config = load_stack_config(as_config(stack()))
    assert config.multi_kueue is not None
    settings = config.kueue.multi_kueue
    assert settings is not None
    assert (settings.origin, settings.gc_interval, settings.worker_lost_timeout) == ("elastic-capacity", "1m", "15m")
    assert settings.dispatcher_name == "kueue.x-k8s.io/multikueue-dispatcher-all-at-once"


@pytest.mark.parametrize(
    ("changes", "key"),
    [
        ({"aks": None, "existingCluster": {"source": "aks", "resourceGroupName": "rg", "clusterName": "c"}},
         "multiKueue"),
        ({"kueue": {"chartVersion": "0.17.1"}}, "kueue.chartVersion"),
        ({"kueue": {"frameworks": ["batch/job", "jobset.x-k8s.io/jobset"]}}, "kueue.frameworks[1]"),
        ({"multiKueue": {**BURST, "namespace": "cas-kueue-demo"}}, "multiKueue.namespace"),
        ({"multiKueue": {"workers": [{"cluster": "elsewhere"}]}}, "multiKueue.workers[0].cluster"),
        ({"ack": {"clusters": [ack_data.cluster("worker")]}}, "multiKueue.workers[0].cluster"),
        ({"ack": {"clusters": [{**WORKER, "slbInternetEnabled": False}]}}, "multiKueue.workers[0].cluster"),
        ({"multiKueue": {"workers": [{"cluster": "worker"}, {"cluster": "worker"}]}}, "multiKueue.workers[1].cluster"),
        ({"multiKueue": {"workers": []}}, "multiKueue.workers"),
        ({"multiKueue": {**BURST, "origin": "Burst_Origin"}}, "multiKueue.origin"),
        ({"kueue": {"multiKueue": {"origin": "x"}}}, "kueue.multiKueue"),
        ({"gitops": {"renderToDirectory": "out"}}, "multiKueue"),
        ({"multiKueue": {**BURST, "clusterQueue": "cas-cluster-queue"}}, "multiKueue.clusterQueue"),
        ({"multiKueue": {**BURST, "admissionCheck": "cas-provisioning"}}, "multiKueue.admissionCheck"),
        ({"queues": {"resourceFlavors": [{"name": "multikueue", "nodeLabels": {"agentpool": "scalepool"}}],
                     "provisioningChecks": [], "clusterQueues": [], "localQueues": []}}, "queues.resourceFlavors"),
    ],
)  # fmt: skip
def test_what_the_burst_set_up_cannot_work_without_is_refused_naming_the_key(changes, key):
    sections = stack()
    for section, value in changes.items():
        if value is None:
            sections.pop(section)
        else:
            sections[section] = value
    assert stack_error_keys(sections) == [f"elastic-capacity:{key}"]


def test_the_dispatcher_and_the_worker_cluster_names_follow_the_config():
    config = load_stack_config(as_config(stack(multiKueue={**BURST, "dispatcher": "Incremental", "origin": "aks"})))
    assert config.multi_kueue is not None and config.kueue.multi_kueue is not None
    assert config.kueue.multi_kueue.dispatcher_name == "kueue.x-k8s.io/multikueue-dispatcher-incremental"
    assert config.multi_kueue.worker_cluster_name(config.multi_kueue.workers[0]) == "aks-worker"


def test_a_worker_in_mainland_china_pulling_from_registry_k8s_io_is_warned_about():
    config = load_stack_config(as_config(stack()))
    [(key, message)] = config.warnings()
    assert key == "multiKueue.workers[0].imageRepository" and "cn-hangzhou" in message
    mirrored = {"workers": [{"cluster": "worker", "imageRepository": "registry.cn-hangzhou.aliyuncs.com/mine/kueue"}]}
    assert load_stack_config(as_config(stack(multiKueue=mirrored))).warnings() == []


def test_a_worker_source_follows_the_kueue_source_rules():
    workers = {"workers": [{"cluster": "worker", "imageRepository": "registry.example.com/kueue:v0.17.8"}]}
    assert stack_error_keys(stack(multiKueue=workers)) == ["elastic-capacity:multiKueue.workers[0].imageRepository"]
