"""``kueue.resources.deviceClassMappings``: Kueue's DRA set-ups (tasks/manage/setup_dra.md, v0.19.2) are accepted and
reach the manager as it decodes them; what ``validateDeviceClassMappings`` refuses, and what a minor or a gate
refuses or ignores, is refused naming the key."""

from __future__ import annotations

from typing import Any

import pytest

from components.manifests.kueue_install import manager_config
from tests.support.config import error_keys_on_existing_cluster, load_on_existing_cluster
from tests.support.kueue_sources import configuration_structs, undecodable_keys

SELECTOR = {"cel": {"expression": "device.driver == 'gpu.example.com'"}}
DEVICES = {"name": "example.com/gpu", "deviceClassNames": ["gpu.example.com"]}
COUNTER = {
    "name": "gpu.memory",
    "deviceClassNames": ["gpu.example.com"],
    "sources": [{"counter": {"name": "memory", "driver": "gpu.example.com", "deviceSelector": SELECTOR}}],
}
CAPACITY = {
    "name": "gpu.memory",
    "deviceClassNames": ["gpu.example.com"],
    "sources": [
        {"capacity": {"name": "gpu.example.com/memory", "driver": "gpu.example.com", "deviceSelector": SELECTOR}}
    ],
}
"""The three mappings of setup_dra.md at v0.19.2: device count, counter-based, capacity-based."""
MAPPINGS = "elastic-capacity:kueue.resources.deviceClassMappings"
DRA_OFF = {
    "KueueDRAIntegration": False,
    "KueueDRAIntegrationExtendedResource": False,
    "KueueDRAIntegrationPartitionableDevices": False,
}
"""0.19's DRA off, with the gates that require it (the manager exits on a dependant gate left on)."""


def kueue(*mappings: dict[str, Any], version: str = "0.19.2", **gates: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"chartVersion": version, "resources": {"deviceClassMappings": list(mappings)}}
    return out | ({"featureGates": gates} if gates else {})


@pytest.mark.parametrize(
    "settings",
    [kueue(DEVICES), kueue(COUNTER), kueue(CAPACITY, KueueDRAIntegrationConsumableCapacity=True),
     kueue(DEVICES, {**COUNTER, "deviceClassNames": ["memory.example.com"]}, version="0.18.6",
           KueueDRAIntegrationPartitionableDevices=True),
     kueue(DEVICES, version="0.17.8", DynamicResourceAllocation=True)],
    ids=["devices", "counter", "capacity", "0.18", "0.17"],
)  # fmt: skip
def test_kueues_dra_set_ups_reach_the_manager_as_it_decodes_them(settings):
    config = load_on_existing_cluster(kueue=settings)
    written = manager_config(config.kueue)
    assert written["resources"]["deviceClassMappings"] == settings["resources"]["deviceClassMappings"]
    version = settings["chartVersion"]
    assert undecodable_keys(written, "Configuration", configuration_structs(version)) == []


@pytest.mark.parametrize(
    ("mappings", "key"),
    [
        ([{**DEVICES, "deviceClassNames": ["a.example.com", "a.example.com"]}], "[0].deviceClassNames[1]"),
        ([DEVICES, {**DEVICES, "name": "example.com/other"}], "[1].deviceClassNames[0]"),
        ([DEVICES, {**DEVICES}], "[1].name"),
        ([{**DEVICES, "deviceClassNames": []}], "[0].deviceClassNames"),
        ([{**DEVICES, "name": f"example.com/gpu{i}", "deviceClassNames": [f"c{i}"]} for i in range(17)], ""),
        ([{**COUNTER, "sources": [*COUNTER["sources"], *CAPACITY["sources"]]}], "[0].sources"),
        ([{**COUNTER, "sources": [{**COUNTER["sources"][0], **CAPACITY["sources"][0]}]}], "[0].sources[0]"),
        ([{**COUNTER, "sources": [{"counter": {**COUNTER["sources"][0]["counter"], "name": "Memory"}}]}],
         "[0].sources[0].counter.name"),
    ],
    ids=["class twice", "class in two mappings", "name twice", "no class", "17 mappings", "counter and capacity",
         "both in one source", "counter name"],
)  # fmt: skip
def test_what_the_managers_validation_refuses_is_refused_naming_the_key(mappings, key):
    settings = kueue(*mappings, KueueDRAIntegrationConsumableCapacity=True)
    assert error_keys_on_existing_cluster(kueue=settings) == [MAPPINGS + key]


def test_a_device_class_in_two_mappings_counting_different_counters_is_accepted():
    other = {**COUNTER, "name": "gpu.compute"}
    other["sources"] = [{"counter": {**COUNTER["sources"][0]["counter"], "name": "compute"}}]
    load_on_existing_cluster(kueue=kueue(COUNTER, other))
    same = {**other, "sources": COUNTER["sources"]}
    assert error_keys_on_existing_cluster(kueue=kueue(COUNTER, same)) == [f"{MAPPINGS}[1].deviceClassNames[0]"]


@pytest.mark.parametrize(
    ("settings", "key", "says"),
    [
        (kueue(DEVICES, **DRA_OFF), "", "featureGates.KueueDRAIntegration is true"),
        (kueue(DEVICES, version="0.17.8"), "", "featureGates.DynamicResourceAllocation is true"),
        (kueue(COUNTER, version="0.17.8", DynamicResourceAllocation=True), "[0].sources", "came with Kueue 0.18"),
        (kueue(COUNTER, version="0.18.6"), "[0].sources[0].counter", "KueueDRAIntegrationPartitionableDevices"),
        (kueue(COUNTER, KueueDRAIntegrationPartitionableDevices=False), "[0].sources[0].counter",
         "KueueDRAIntegrationPartitionableDevices is true"),
        (kueue(CAPACITY), "[0].sources[0].capacity", "KueueDRAIntegrationConsumableCapacity is true"),
        (kueue(CAPACITY, version="0.18.6"), "[0].sources[0].capacity", "came with Kueue 0.19"),
    ],
    ids=["0.19 DRA off", "0.17 DRA off", "0.17 sources", "0.18 counter gate off", "0.19 counter gate off",
         "0.19 capacity gate off", "0.18 capacity"],
)  # fmt: skip
def test_what_a_minor_or_its_gates_refuse_or_ignore_is_refused_naming_the_key_and_the_gate(settings, key, says):
    assert error_keys_on_existing_cluster(kueue=settings) == [MAPPINGS + key]
    with pytest.raises(Exception, match=says):
        load_on_existing_cluster(kueue=settings)
