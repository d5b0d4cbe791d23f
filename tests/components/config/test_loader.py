"""The loader: raw config values in, a valid stack with its physical names out, or one error naming every bad key."""

from __future__ import annotations

import json

import pytest

from components.config.base import ConfigError
from components.config.loader import load_stack_config, read_stack_config
from components.fleet import deploy
from tests.support.config import WALKTHROUGH, as_config, stack_error_keys


def test_empty_stack_deploys_nothing(run_program):
    config = load_stack_config({})
    assert (config.kueue_target, config.ack) == (None, None)
    recording = run_program(lambda: deploy(read_stack_config()))
    assert (recording.registrations, recording.outputs, recording.invokes) == ([], {}, [])


def test_other_namespaces_are_not_ours_to_validate():
    config = load_stack_config({"azure-native:location": "eastus2", "elastic-capacity:aks": "{}"})
    assert config.kueue_target == "aks"


def test_kubeconfig_in_plain_text_is_refused():
    keys = stack_error_keys({"existingCluster": {"source": "kubeconfig"}, "kubeconfig": "apiVersion: v1"})
    assert keys == ["elastic-capacity:kubeconfig"]


def test_structured_values_may_arrive_as_json_or_as_objects():
    as_json = load_stack_config({"elastic-capacity:aks": json.dumps({"location": "westeurope"})})
    as_object = load_stack_config({"elastic-capacity:aks": {"location": "westeurope"}})
    assert as_json == as_object


def test_the_loaded_stack_carries_the_physical_names():
    sections = {
        "aks": {"preset": "aks-walkthrough", "clusterName": "c"},
        **WALKTHROUGH,
        "environment": {"kind": "ephemeral", "nameSuffix": "-pr7"},
    }
    values = as_config(sections)
    config = load_stack_config(values)
    assert config.aks is not None and config.aks.cluster_name == "c-pr7"
    assert [q.name for q in config.queues.cluster_queues] == ["cas-cluster-queue-pr7"]


def test_keys_outside_every_read_namespace_are_all_named():
    with pytest.raises(ConfigError) as caught:
        load_stack_config({"aks": "{}", "elastc-capacity:aks": "{}", "azure-native:location": "eastus2"})
    assert caught.value.keys == ["aks", "elastc-capacity:aks"]
    assert "did you mean `elastic-capacity`?" in str(caught.value)


@pytest.mark.parametrize(
    ("raw", "key"),
    [
        ('{"userPools": [{"maxCount": Infinity}]}', "elastic-capacity:aks.userPools[0].maxCount"),
        ('{"maxPods": NaN}', "elastic-capacity:aks.maxPods"),
        (json.dumps({"maxPods": 2**64}), "elastic-capacity:aks.maxPods"),
    ],
    ids=["infinity", "nan", "beyond 64 bits"],
)
def test_numbers_no_key_can_hold_are_refused_before_the_model(raw, key):
    with pytest.raises(ConfigError) as caught:
        load_stack_config({"elastic-capacity:aks": raw})
    assert caught.value.keys == [key]
    assert "out of range" in str(caught.value)


def test_provider_location_must_be_in_the_provider_environment():
    values = {
        "azure-native:environment": "china",
        "azure-native:location": "eastus2",
        **as_config({"aks": {"preset": "aks-walkthrough"}}),
    }
    with pytest.raises(ConfigError) as caught:
        load_stack_config(values)
    assert caught.value.keys == ["azure-native:location"]
    assert "'eastus2' is not allowed; azure-native:environment 'china' targets Azure China" in str(caught.value)
