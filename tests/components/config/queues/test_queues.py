"""The ``queues`` section: exactly the objects written, the walkthrough preset's objects, and the section's key."""

from __future__ import annotations

import pytest

from components.config.base import ConfigError
from components.config.loader import load_stack_config
from components.config.queues.presets import SETTINGS
from components.config.queues.queues import ExternalObjects, QueuesConfig
from tests.support.config import as_config
from tests.support.queues import DELETE, GENERAL, edited, queues_error_keys


def test_namespaces_are_dns_labels():
    assert queues_error_keys(edited(GENERAL, ("namespaces.0", "team.a"))) == ["queues.namespaces[0]"]


def test_a_section_that_writes_nothing_has_no_object():
    config = QueuesConfig()
    lists = {name: getattr(config, name) for name in QueuesConfig.model_fields if name not in SETTINGS}
    assert lists == {name: ExternalObjects() if name == "external" else [] for name in lists}
    assert not config.uses_provisioning_requests


def test_the_walkthrough_preset_is_the_article_objects():
    config = QueuesConfig(preset="aks-walkthrough")
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


def test_a_written_list_is_all_of_its_kind_and_nothing_else_is_added():
    queue = edited(GENERAL["clusterQueues"][1], ("admissionChecksStrategy", DELETE), ("cohortName", DELETE))
    config = QueuesConfig.model_validate({"resourceFlavors": GENERAL["resourceFlavors"], "clusterQueues": [queue]})
    assert [q.name for q in config.cluster_queues] == [queue["name"]]
    assert (config.namespaces, config.provisioning_checks, config.local_queues) == ([], [], [])
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
