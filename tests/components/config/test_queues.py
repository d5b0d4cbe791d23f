"""The ``queues`` section: the article's defaults, lists that replace their default whole, and the section's key."""

from __future__ import annotations

import pytest

from components.config.base import ConfigError
from components.config.loader import load_stack_config
from components.config.queues import QueuesConfig
from tests.support.config import as_config
from tests.support.queues import DELETE, GENERAL, edited, queues_error_keys


def test_namespaces_are_dns_labels():
    assert queues_error_keys(edited(GENERAL, ("namespaces.0", "team.a"))) == ["queues.namespaces[0]"]


def test_defaults_are_the_article_objects():
    config = QueuesConfig()
    assert config.namespaces == ["cas-kueue-demo"]
    assert [(f.name, f.node_labels) for f in config.resource_flavors] == [("scalepool", {"agentpool": "scalepool"})]
    [check] = config.provisioning_checks
    assert (check.name, check.config_name, check.managed_resources) == (
        "cas-provisioning",
        "cas-provreq-config",
        ["cpu"],
    )
    assert check.provisioning_class_name == "best-effort-atomic-scale-up.autoscaling.x-k8s.io"
    [queue] = config.cluster_queues
    assert (queue.name, queue.queueing_strategy, queue.cohort_name) == ("cas-cluster-queue", "BestEffortFIFO", None)
    [group] = queue.resource_groups
    assert group.covered_resources == ["cpu", "memory"]
    assert [(r.name, r.nominal_quota) for r in group.flavors[0].resources] == [("cpu", "100"), ("memory", "200Gi")]
    assert queue.admission_checks_strategy is not None
    [ref] = queue.admission_checks_strategy.admission_checks
    assert (ref.name, ref.on_flavors) == ("cas-provisioning", ["scalepool"])
    assert [(q.namespace, q.name, q.cluster_queue) for q in config.local_queues] == [
        ("cas-kueue-demo", "cas-local-queue", "cas-cluster-queue")
    ]
    assert config.cohorts == []
    assert config.uses_provisioning_requests


def test_general_config_is_valid_and_quantities_become_strings():
    config = QueuesConfig.model_validate(GENERAL)
    scalepool_cpu = config.cluster_queues[0].resource_groups[0].flavors[1].resources[0]
    assert scalepool_cpu.nominal_quota == "48"
    assert len(config.local_queues) == 3


def test_overriding_one_list_keeps_the_other_seed_defaults():
    queue = edited(GENERAL["clusterQueues"][1], ("name", "cas-cluster-queue"), ("cohortName", DELETE))
    queue["admissionChecksStrategy"] = {"admissionChecks": [{"name": "cas-provisioning"}]}
    config = QueuesConfig.model_validate({"clusterQueues": [queue]})
    assert [f.name for f in config.resource_flavors] == ["scalepool"]
    assert [q.name for q in config.local_queues] == ["cas-local-queue"]


def test_without_provisioning_checks_kueue_needs_no_provisioning_requests():
    queue = edited(GENERAL["clusterQueues"][1], ("admissionChecksStrategy", DELETE), ("cohortName", DELETE))
    config = QueuesConfig.model_validate(
        {"provisioningChecks": [], "clusterQueues": [queue], "localQueues": [], "namespaces": []}
    )
    assert not config.uses_provisioning_requests


def test_stack_loader_prefixes_the_section_key():
    sections = {
        "existingCluster": {"source": "aks", "resourceGroupName": "rg", "clusterName": "c"},
        "queues": edited(GENERAL, ("clusterQueues.1.cohort", "shared-cohort")),
    }
    with pytest.raises(ConfigError) as caught:
        load_stack_config(as_config(sections))
    assert caught.value.keys == ["elastic-capacity:queues.clusterQueues[1].cohort"]
    assert "cohortName" in str(caught.value)
