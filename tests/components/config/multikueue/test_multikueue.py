"""The ``multiKueue`` section's own model: defaults, names, the manager settings it derives, and its suffix."""

from __future__ import annotations

import json

import pytest

from components.config.multikueue.multikueue import BURST_FLAVOR, MultiKueueConfig
from components.config.multikueue.workers import burst_queues
from components.manifests.queues import queue_manifests
from tests.support.config import model_error_keys

BURST = {"workers": [{"cluster": "hz"}, {"cluster": "bj"}]}


def test_the_defaults_name_one_burst_queue_on_both_sides():
    burst = MultiKueueConfig.model_validate(BURST)
    assert (burst.namespace, burst.local_queue, burst.cluster_queue) == ("burst", "burst", "burst")
    assert [burst.worker_cluster_name(worker) for worker in burst.workers] == [
        "elastic-capacity-hz",
        "elastic-capacity-bj",
    ]
    assert [burst.worker_secret_name(worker) for worker in burst.workers] == [
        "elastic-capacity-hz",
        "elastic-capacity-bj",
    ]
    assert burst.multikueue_config == "multikueue-burst"
    settings = burst.manager_settings()
    assert (settings.origin, settings.dispatcher_name) == (
        "elastic-capacity",
        "kueue.x-k8s.io/multikueue-dispatcher-all-at-once",
    )


def test_the_user_names_the_config_the_clusters_and_their_secrets_as_kueues_examples_do():
    burst = MultiKueueConfig.model_validate(
        {
            "burstQueue": False,
            "configName": "multikueue-test",
            "workers": [{"source": "kubeconfig", "name": "multikueue-test-worker1", "secretName": "worker1-secret"}],
        }
    )
    [worker] = burst.workers
    assert burst.multikueue_config == "multikueue-test"
    assert (burst.worker_cluster_name(worker), burst.worker_secret_name(worker)) == (
        "multikueue-test-worker1",
        "worker1-secret",
    )


def test_an_ephemeral_suffix_renames_every_burst_object_and_the_origin():
    burst = MultiKueueConfig.model_validate(BURST).named_with("-pr7")
    assert (burst.namespace, burst.local_queue, burst.cluster_queue, burst.admission_check, burst.origin) == (
        "burst-pr7",
        "burst-pr7",
        "burst-pr7",
        "multikueue-burst-pr7",
        "elastic-capacity-pr7",
    )
    assert (burst.multikueue_config, burst.acs_flavor) == ("multikueue-burst-pr7", "acs-virtual-node-pr7")
    assert MultiKueueConfig.model_validate(BURST).named_with("") == MultiKueueConfig.model_validate(BURST)


@pytest.mark.parametrize("names", [{}, {"configName": "mk", "namespace": "spill", "clusterQueue": "spill-cq"}])
def test_the_renamed_burst_queue_objects_are_what_the_queue_naming_makes_of_them_but_the_flavor(names):
    """The burst queue objects of an ephemeral stack are built from the section's renamed names; renaming them as
    any queue objects (:mod:`components.config.queues.naming`) gives the same objects, but that the empty flavor
    keeps its one name on the manager (as before the queue model built it)."""
    burst = MultiKueueConfig.model_validate({**BURST, **names})
    from_the_section = queue_manifests(burst_queues(burst.named_with("-pr7")))
    as_queue_objects = json.dumps(queue_manifests(burst_queues(burst).named_with("-pr7")))
    assert json.loads(as_queue_objects.replace(f'"{BURST_FLAVOR}-pr7"', f'"{BURST_FLAVOR}"')) == from_the_section
    assert all(m["metadata"]["name"].endswith("-pr7") for m in from_the_section if m["kind"] != "ResourceFlavor")


def test_an_ephemeral_suffix_renames_the_names_the_user_chose():
    named = {
        "burstQueue": False,
        "configName": "mk",
        "workers": [{"source": "kubeconfig", "name": "w1", "secretName": "w1-secret"}],
    }
    burst = MultiKueueConfig.model_validate(named).named_with("-pr7")
    [worker] = burst.workers
    assert (burst.multikueue_config, burst.worker_cluster_name(worker), burst.worker_secret_name(worker)) == (
        "mk-pr7",
        "w1-pr7",
        "w1-secret-pr7",
    )


@pytest.mark.parametrize(
    ("changes", "key"),
    [
        ({"tokenRotation": "Rotate Me"}, "tokenRotation"),
        ({"tokenLifetimeDays": 0}, "tokenLifetimeDays"),
        ({"tokenLifetimeDays": 400}, "tokenLifetimeDays"),
        ({"workerLostTimeout": "15 minutes"}, "workerLostTimeout"),
        ({"dispatcher": "External"}, "dispatcher"),
        ({"workers": [{"cluster": f"c{i}"} for i in range(21)]}, "workers"),
        ({"workers": [{"cluster": "hz", "chartRepository": "ftp://mirror"}]}, "workers[0].chartRepository"),
        ({"workers": [{"cluster": "hz", "probeImage": "registry.example.com/kubectl:shell"}]}, "workers[0].probeImage"),
        ({"quota": {"cpu": "-1", "memory": "1Gi"}}, "quota.cpu"),
        ({"workers": [{"source": "ack"}]}, "workers[0].cluster"),
        ({"workers": [{"source": "aks", "resourceGroupName": "rg", "clusterName": "c"}]}, "workers[0].clusterQueue"),
        ({"workers": [{"source": "kubeconfig"}]}, "workers[0].name"),
        ({"workers": [{"source": "kubeconfig", "name": "w", "cluster": "hz"}]}, "workers[0].cluster"),
        ({"workers": [{"source": "kubeconfig", "name": "w", "imageRepository": "r.example.com/k"}]},
         "workers[0].imageRepository"),
        ({"workers": [{"cluster": "hz", "clusterQueue": "cq"}]}, "workers[0].clusterQueue"),
        ({"workers": [{"source": "aks", "resourceGroupName": "rg", "clusterName": "c", "clusterQueue": "cq",
                       "quota": {"cpu": "1", "memory": "1Gi"}}]}, "workers[0].quota"),
        ({"workers": [{"cluster": "hz"}, {"cluster": "hz"}]}, "workers[1].cluster"),
        ({"workers": [{"source": "kubeconfig", "name": "w"}, {"source": "kubeconfig", "name": "w"}]},
         "workers[1].name"),
        ({"workers": [{"cluster": "hz", "secretName": "s"}, {"cluster": "bj", "secretName": "s"}]},
         "workers[1].secretName"),
        ({"workers": [{"source": "aks", "resourceGroupName": "rg", "clusterName": "Kueue_GPU", "clusterQueue": "q"}]},
         "workers[0].name"),
        ({"workers": [{"source": "kubeconfig", "name": "w", "frameworks": ["jobsets"]}]}, "workers[0].frameworks[0]"),
        ({"burstQueue": False}, "configName"),
        ({"burstQueue": False, "configName": "mk", "namespace": "burst"}, "namespace"),
        ({"burstQueue": False, "configName": "mk", "smokeJob": {"enabled": True}}, "smokeJob"),
    ],
)  # fmt: skip
def test_what_kueue_or_the_program_cannot_use_is_refused_by_key(changes, key):
    assert model_error_keys(MultiKueueConfig, {**BURST, **changes}) == [key]
