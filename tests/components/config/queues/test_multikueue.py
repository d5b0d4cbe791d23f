"""MultiKueueConfigs and MultiKueueClusters as queue objects: they render as Kueue's guide writes them and pass the
CRDs of each minor, what the CRDs refuse is refused naming the key, what the manager needs (a minor, a gate) is
named, and they keep apart from the ``multiKueue`` section's objects."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from components.config.loader import load_stack_config
from components.config.queues.queues import QueuesConfig
from components.manifests.queues import queue_manifests
from tests.support.config import as_config, error_keys_on_existing_cluster, load_on_existing_cluster, stack_error_keys
from tests.support.multikueue import KUBECONFIGS, kubeconfig_stack
from tests.support.queues import MULTIKUEUE_OBJECTS, edited, queues_error_keys
from tests.support.schemas import validate_kueue

CONFIGS, CLUSTERS = "multiKueueConfigs", "multiKueueClusters"
PATH_SOURCE = "multiKueueClusters.1.clusterSource.kubeConfig"


def objects(section: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(m["kind"], m["metadata"]["name"]): m for m in queue_manifests(QueuesConfig.model_validate(section))}


@pytest.mark.parametrize("version", ["0.18.6", "0.19.2"])
def test_the_objects_render_as_kueues_guide_writes_them_and_pass_the_crds(version):
    rendered = objects(MULTIKUEUE_OBJECTS)
    assert rendered[("MultiKueueConfig", "workers")]["spec"] == {
        "clusters": ["onprem", "cloud"],
        "quotaManagement": "Manual",
    }
    assert rendered[("MultiKueueCluster", "cloud")]["spec"] == {
        "clusterSource": {
            "kubeConfig": {"locationType": "Path", "location": "/etc/multikueue/kubeconfigs/cloud.kubeconfig"}
        }
    }
    for manifest in rendered.values():
        validate_kueue(manifest, version)


def test_without_quota_management_they_pass_the_0_17_crds():
    section = edited(MULTIKUEUE_OBJECTS, (f"{CONFIGS}.0.quotaManagement", None))
    section[CONFIGS][0].pop("quotaManagement")
    for manifest in objects(section).values():
        validate_kueue(manifest, "0.17.8")


@pytest.mark.parametrize(
    ("change", "key"),
    [
        ((f"{CONFIGS}.0.clusters", ["onprem", "onprem"]), "multiKueueConfigs[0].clusters[1]"),
        ((f"{CONFIGS}.0.clusters", [f"w{i}" for i in range(21)]), "multiKueueConfigs[0].clusters"),
        ((f"{CONFIGS}.0.clusters", []), "multiKueueConfigs[0].clusters"),
        ((f"{CONFIGS}.0.quotaManagement", "Auto"), "multiKueueConfigs[0].quotaManagement"),
        ((f"{CONFIGS}.0.name", "w" * 64), "multiKueueConfigs[0].name"),
        ((f"{CONFIGS}.0.clusters", ["onprem", "nowhere"]), "multiKueueConfigs[0].clusters[1]"),
        ((f"{CLUSTERS}.0.clusterSource", {}), "multiKueueClusters[0].clusterSource"),
        ((f"{CLUSTERS}.0.clusterSource.clusterProfileRef", {"name": "onprem"}), "multiKueueClusters[0].clusterSource"),
        ((f"{CLUSTERS}.0.clusterSource.kubeConfig.location", "Onprem_Secret"),
         "multiKueueClusters[0].clusterSource.kubeConfig.location"),
        ((f"{PATH_SOURCE}.location", "kubeconfigs/cloud"), "multiKueueClusters[1].clusterSource.kubeConfig.location"),
        ((f"{PATH_SOURCE}.location", "/etc/multikueue/kubeconfigs/../../x"),
         "multiKueueClusters[1].clusterSource.kubeConfig.location"),
        ((f"{PATH_SOURCE}.locationType", "File"), "multiKueueClusters[1].clusterSource.kubeConfig.locationType"),
        ((f"{CLUSTERS}.1.name", "onprem"), "multiKueueClusters[1].name"),
    ],
    ids=["cluster twice", "21 clusters", "no cluster", "quota management", "name past 63", "unknown cluster",
         "no source", "two sources", "secret name", "relative path", "path escaping", "location type", "name twice"],
)  # fmt: skip
def test_what_the_crds_or_the_api_server_refuse_is_refused_naming_the_key(change, key):
    assert queues_error_keys(edited(MULTIKUEUE_OBJECTS, change)) == [f"queues.{key}"]


def test_a_cluster_made_elsewhere_is_declared_external():
    section = edited(MULTIKUEUE_OBJECTS, (f"{CONFIGS}.0.clusters", ["onprem", "burst-worker"]))
    section["external"] = {"multiKueueClusters": ["burst-worker"]}
    QueuesConfig.model_validate(section)


def test_a_cluster_profile_with_its_gate_is_accepted_and_refused_without_it_naming_the_gate():
    section = edited(MULTIKUEUE_OBJECTS, (f"{CLUSTERS}.0.clusterSource", {"clusterProfileRef": {"name": "onprem"}}))
    key = f"elastic-capacity:queues.{CLUSTERS}[0].clusterSource.clusterProfileRef"
    assert error_keys_on_existing_cluster(queues=section) == [key]
    load_on_existing_cluster(queues=section, kueue={"featureGates": {"MultiKueueClusterProfile": True}})


@pytest.mark.parametrize(
    ("kueue", "key"),
    [
        ({"chartVersion": "0.17.8"}, "queues.multiKueueConfigs[0].quotaManagement"),
        ({"featureGates": {"MultiKueue": False}}, "queues.multiKueueConfigs[0].name"),
        ({"featureGates": {"MultiKueueKubeConfigPathValidation": True}},
         "queues.multiKueueClusters[1].clusterSource.kubeConfig.location"),
    ],
    ids=["quota management on 0.17", "MultiKueue off", "path validation"],
)  # fmt: skip
def test_what_the_manager_refuses_or_ignores_is_refused_naming_the_key(kueue, key):
    section = copy.deepcopy(MULTIKUEUE_OBJECTS)
    section[CLUSTERS][1]["clusterSource"]["kubeConfig"]["location"] = "/srv/cloud.kubeconfig"
    assert error_keys_on_existing_cluster(queues=section, kueue=kueue) == [f"elastic-capacity:{key}"]


def test_automated_quota_management_needs_its_gate():
    section = edited(MULTIKUEUE_OBJECTS, (f"{CONFIGS}.0.quotaManagement", "Automated"))
    assert error_keys_on_existing_cluster(queues=section) == [f"elastic-capacity:queues.{CONFIGS}[0].quotaManagement"]
    load_on_existing_cluster(queues=section, kueue={"featureGates": {"MultiKueueManagerQuotaAutomation": True}})


def test_a_path_kubeconfig_is_accepted_warning_that_the_stack_does_not_mount_it():
    config = load_on_existing_cluster(queues=MULTIKUEUE_OBJECTS)
    [message] = [m for k, m in config.warnings() if k == f"queues.{CLUSTERS}[1].clusterSource.kubeConfig.location"]
    assert "the stack does not mount this kubeconfig" in message


def test_an_ephemeral_stack_suffixes_the_objects_and_keeps_the_users_kubeconfig_secret():
    renamed = objects(QueuesConfig.model_validate(MULTIKUEUE_OBJECTS).named_with("-pr7").model_dump(by_alias=True))
    assert renamed[("MultiKueueConfig", "workers-pr7")]["spec"]["clusters"] == ["onprem-pr7", "cloud-pr7"]
    source = renamed[("MultiKueueCluster", "onprem-pr7")]["spec"]["clusterSource"]["kubeConfig"]
    assert source["location"] == "onprem-secret"
    check = renamed[("AdmissionCheck", "dispatch-pr7")]
    assert check["spec"]["parameters"]["name"] == "workers-pr7"


@pytest.mark.parametrize(
    ("queues", "key"),
    [
        ({CONFIGS: [{"name": "mk", "clusters": ["other"]}], CLUSTERS: [
            {"name": "other", "clusterSource": {"kubeConfig": {"location": "other"}}}]}, "multiKueueConfigs[0].name"),
        ({CLUSTERS: [{"name": "w1", "clusterSource": {"kubeConfig": {"location": "w1"}}}]},
         "multiKueueClusters[0].name"),
    ],
    ids=["config", "cluster"],
)  # fmt: skip
def test_an_object_the_multikueue_section_makes_too_is_refused_naming_the_key(queues, key):
    sections = kubeconfig_stack(multiKueue={"workers": [{"source": "kubeconfig", "name": "w1"}], "configName": "mk"})
    load_stack_config(as_config(sections), [KUBECONFIGS])
    assert stack_error_keys({**sections, "queues": queues}, [KUBECONFIGS]) == [f"elastic-capacity:queues.{key}"]
