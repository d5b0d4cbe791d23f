"""The ``multiKueue`` section's own model: defaults, names, the manager settings it derives, and its suffix."""

from __future__ import annotations

import pytest

from components.config.multikueue import MultiKueueConfig
from tests.support.config import model_error_keys

BURST = {"workers": [{"cluster": "hz"}, {"cluster": "bj"}]}


def test_the_defaults_name_one_burst_queue_on_both_sides():
    burst = MultiKueueConfig.model_validate(BURST)
    assert (burst.namespace, burst.local_queue, burst.cluster_queue) == ("burst", "burst", "burst")
    assert [burst.worker_cluster_name(worker) for worker in burst.workers] == [
        "elastic-capacity-hz",
        "elastic-capacity-bj",
    ]
    settings = burst.manager_settings()
    assert (settings.origin, settings.dispatcher_name) == (
        "elastic-capacity",
        "kueue.x-k8s.io/multikueue-dispatcher-all-at-once",
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
    assert MultiKueueConfig.model_validate(BURST).named_with("") == MultiKueueConfig.model_validate(BURST)


@pytest.mark.parametrize(
    ("changes", "key"),
    [
        ({"tokenRotation": "Rotate Me"}, "tokenRotation"),
        ({"workerLostTimeout": "15 minutes"}, "workerLostTimeout"),
        ({"dispatcher": "External"}, "dispatcher"),
        ({"workers": [{"cluster": f"c{i}"} for i in range(21)]}, "workers"),
        ({"workers": [{"cluster": "hz", "chartRepository": "ftp://mirror"}]}, "workers[0].chartRepository"),
        ({"quota": {"cpu": "-1", "memory": "1Gi"}}, "quota.cpu"),
    ],
)
def test_what_kueue_or_the_program_cannot_use_is_refused_by_key(changes, key):
    assert model_error_keys(MultiKueueConfig, {**BURST, **changes}) == [key]
