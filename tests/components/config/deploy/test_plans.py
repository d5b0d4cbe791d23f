"""The fleet's plans as config derivations: what the activation waiter watches, the gate's image on an existing AKS
cluster, each ACK cluster's needs and wording, and the ACS namespaces the stack creates once."""

from __future__ import annotations

import pytest

from components.config.base import ConfigError
from components.config.deploy import plans
from components.config.loader import load_stack_config
from tests.support import ack as ack_data
from tests.support.config import WALKTHROUGH, as_config
from tests.support.multikueue import queues_stack, stack


def test_the_activation_waiter_watches_every_check_and_queue_but_the_burst_ones():
    alone = load_stack_config(as_config({"aks": {}, **WALKTHROUGH}))
    assert plans.activation_objects(alone) == [
        *({"kind": "AdmissionCheck", "name": c.name} for c in alone.queues.all_admission_checks),
        *({"kind": "ClusterQueue", "name": q.name} for q in alone.queues.cluster_queues),
    ]
    burst = load_stack_config(as_config(queues_stack()))
    watched = plans.activation_objects(burst)
    assert burst.queues.cluster_queues and not watched, "only MultiKueue's check and the queue carrying it"


def test_the_gate_image_follows_the_version_azure_reports_and_refusals_name_the_cluster():
    existing = {"source": "aks", "resourceGroupName": "rg", "clusterName": "platform"}
    config = load_stack_config(as_config({"existingCluster": existing}))
    assert config.probe_image is None
    assert plans.running_probe_image(config, "1.37.1") == config.kueue.readiness_gate.image_for((1, 37))
    pinned = {"readinessGate": {"probeImage": "registry.k8s.io/kubectl:v1.35.9"}}
    with pytest.raises(ConfigError) as refused:
        plans.running_probe_image(
            load_stack_config(as_config({"existingCluster": existing, "kueue": pinned})), "1.37.1"
        )
    assert refused.value.keys == ["elastic-capacity:kueue.readinessGate.probeImage"]
    assert str(refused.value).startswith(
        "elastic-capacity:kueue.readinessGate.probeImage: AKS cluster rg/platform runs"
    )


def test_each_ack_cluster_is_planned_new_ones_first_with_its_entrys_report():
    sections = stack(multiKueue={"workers": [{"cluster": "shared"}]})
    sections["ack"] = {**sections["ack"], "existingClusters": [ack_data.existing_cluster("shared")]}
    config = load_stack_config(as_config(sections))
    new, existing = plans.ack_cluster_plans(config)
    assert (new.cluster.name, new.report) == ("worker", plans.AckReport("elastic-capacity:ack.clusters[0]"))
    assert existing.cluster.name == "shared"
    assert existing.report == plans.AckReport("elastic-capacity:ack.existingClusters[0]", "multiKueue.workers[0]")
    assert any("burst pods on ACS" in need.reason for need in existing.needs.scheduler)
    assert plans.ack_cluster_plans(load_stack_config(as_config({"aks": {}, **WALKTHROUGH}))) == []


def test_shared_acs_namespaces_are_created_once_and_default_never():
    workloads = [
        ack_data.workload("a", namespace="team"),
        ack_data.workload("b", namespace="team"),
        ack_data.workload("c"),
        ack_data.workload("d", namespace="ops"),
    ]
    config = load_stack_config(as_config({"ack": {"clusters": [ack_data.cluster(nodePool=ack_data.POOL)],
                                                  "workloads": workloads}}))  # fmt: skip
    assert config.ack is not None
    assert plans.acs_namespaces(config.ack) == [("demo", "team"), ("demo", "ops")]
