"""The stack root: which sections deploy what, the rules that span sections, and how errors name keys."""

from __future__ import annotations

import json

import pytest

from components.config.base import ConfigError
from components.config.stack import load_stack_config
from tests.conftest import as_config, stack_error_keys

SEED_POOL = {"name": "scalepool", "vmSize": "Standard_D4s_v3", "minCount": 1, "maxCount": 5, "initialCount": 1}


def test_empty_stack_deploys_nothing():
    config = load_stack_config({})
    assert config.kueue_target is None
    assert config.ack is None


def test_aks_section_alone_targets_kueue_at_the_new_cluster_with_the_seed_queues():
    config = load_stack_config(as_config({"aks": {}}))
    assert config.kueue_target == "aks"
    assert [f.name for f in config.queues.resource_flavors] == ["scalepool"]
    assert [(q.namespace, q.name) for q in config.queues.local_queues] == [("cas-kueue-demo", "cas-local-queue")]


def test_unknown_top_level_key_is_named():
    assert stack_error_keys({"aks": {}, "queue": {}}) == ["elastic-capacity:queue"]


def test_unknown_nested_key_is_named_with_its_path():
    assert stack_error_keys({"aks": {"userPools": [{**SEED_POOL, "maxcount": 3}]}}) == [
        "elastic-capacity:aks.userPools[0].maxcount"
    ]


def test_other_namespaces_are_not_ours_to_validate():
    config = load_stack_config({"azure-native:location": "eastus2", "elastic-capacity:aks": "{}"})
    assert config.kueue_target == "aks"


def test_new_and_existing_cluster_together_are_refused():
    keys = stack_error_keys(
        {"aks": {}, "existingCluster": {"source": "aks", "resourceGroupName": "rg", "clusterName": "c"}}
    )
    assert keys == ["elastic-capacity:existingCluster"]


@pytest.mark.parametrize("section", ["kueue", "queues", "smokeJob"])
def test_kueue_sections_need_a_target_cluster(section):
    assert stack_error_keys({section: {}}) == [f"elastic-capacity:{section}"]


def test_existing_aks_cluster_needs_group_and_name():
    keys = stack_error_keys({"existingCluster": {"source": "aks", "resourceGroupName": "rg"}})
    assert keys == ["elastic-capacity:existingCluster.clusterName"]


def test_existing_cluster_by_kubeconfig_reads_the_secret_value():
    values = as_config({"existingCluster": {"source": "kubeconfig"}, "kubeconfig": "apiVersion: v1"})
    config = load_stack_config(values, secret_keys={"elastic-capacity:kubeconfig"})
    assert config.kueue_target == "existing"
    assert config.kubeconfig is not None
    assert config.kubeconfig.get_secret_value() == "apiVersion: v1"
    assert "apiVersion" not in repr(config), "the kubeconfig never shows in a repr or log line"


def test_kubeconfig_in_plain_text_is_refused():
    keys = stack_error_keys({"existingCluster": {"source": "kubeconfig"}, "kubeconfig": "apiVersion: v1"})
    assert keys == ["elastic-capacity:kubeconfig"]


def test_kubeconfig_source_without_kubeconfig_is_refused():
    assert stack_error_keys({"existingCluster": {"source": "kubeconfig"}}) == ["elastic-capacity:kubeconfig"]


def test_flavor_must_select_an_autoscaling_pool_of_the_stack():
    keys = stack_error_keys({"aks": {"userPools": [{**SEED_POOL, "name": "burst"}]}})
    assert keys == ["elastic-capacity:queues.resourceFlavors[0].nodeLabels.agentpool"]


def test_flavor_pool_is_not_checked_on_an_existing_cluster():
    values = as_config({"existingCluster": {"source": "aks", "resourceGroupName": "rg", "clusterName": "c"}})
    assert load_stack_config(values).queues.resource_flavors[0].node_labels == {"agentpool": "scalepool"}


def test_smoke_job_must_use_a_configured_local_queue():
    keys = stack_error_keys({"aks": {}, "smokeJob": {"enabled": True, "localQueue": "nope"}})
    assert keys == ["elastic-capacity:smokeJob.localQueue"]


def test_smoke_job_must_select_a_pool_of_the_stack():
    assert stack_error_keys({"aks": {}, "smokeJob": {"enabled": True, "pool": "gpupool"}}) == [
        "elastic-capacity:smokeJob.pool"
    ]


def test_local_queue_namespace_must_be_managed_by_kueue():
    selector = {"matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "In", "values": ["team-a"]}]}
    keys = stack_error_keys({"aks": {}, "kueue": {"managedJobsNamespaceSelector": selector}})
    assert keys == ["elastic-capacity:queues.localQueues[0].namespace"]


def test_smoke_job_with_the_seed_defaults_is_valid():
    config = load_stack_config(as_config({"aks": {}, "smokeJob": {"enabled": True}}))
    assert config.smoke_job.local_queue == "cas-local-queue"


def test_error_message_names_key_value_and_what_is_allowed():
    with pytest.raises(ConfigError) as caught:
        load_stack_config(as_config({"aks": {"userPools": [{**SEED_POOL, "name": "burst"}]}}))
    message = str(caught.value)
    assert "elastic-capacity:queues.resourceFlavors[0].nodeLabels.agentpool" in message
    assert "'scalepool'" in message
    assert "burst" in message


def test_structured_values_may_arrive_as_json_or_as_objects():
    as_json = load_stack_config({"elastic-capacity:aks": json.dumps({"location": "westeurope"})})
    as_object = load_stack_config({"elastic-capacity:aks": {"location": "westeurope"}})
    assert as_json == as_object
