"""The activation waiter: which queue objects are inactive, why, and what the provider does about it."""

from __future__ import annotations

import pytest

from components.waiters import queue_wait
from components.waiters.queue_wait import QueuesActiveProvider, QueuesInactiveError, diagnose, inactive, observe
from tests.support.fakes import FakeCluster, cond, serve_from

CHECK = "/apis/kueue.x-k8s.io/v1beta2/admissionchecks/cas-provisioning"
QUEUE = "/apis/kueue.x-k8s.io/v1beta2/clusterqueues/cas-cluster-queue"
OBJECTS = [("AdmissionCheck", "cas-provisioning"), ("ClusterQueue", "cas-cluster-queue")]
ACTIVE = {"status": {"conditions": [cond("Active", reason="Active")]}}
UNRECONCILED = {"status": {}}
QUEUE_INACTIVE = {
    "status": {"conditions": [cond("Active", "False", "AdmissionCheckInactive", "Can't admit new workloads")]}
}


def test_every_object_active_means_nothing_inactive():
    seen = observe(FakeCluster({CHECK: ACTIVE, QUEUE: ACTIVE}), OBJECTS)
    assert inactive(seen) == []


def test_an_unreconciled_check_and_its_inactive_queue_are_both_named_with_the_cause_and_the_fix():
    seen = observe(FakeCluster({CHECK: UNRECONCILED, QUEUE: QUEUE_INACTIVE}), OBJECTS)
    assert inactive(seen) == OBJECTS
    message = diagnose(seen, hint="AKS hint", namespace="kueue-system")
    assert "AdmissionCheck cas-provisioning has no Active condition: no controller has reconciled it" in message
    assert "ClusterQueue cas-cluster-queue is inactive (AdmissionCheckInactive: Can't admit new workloads)" in message
    assert "ProvisioningRequest CRD did not exist when Kueue started. AKS hint." in message
    assert "kubectl get crd provisioningrequests.autoscaling.x-k8s.io" in message
    assert "kubectl -n kueue-system rollout restart deployment" in message


def test_a_missing_object_is_inactive_and_said_to_be_missing():
    seen = observe(FakeCluster({QUEUE: ACTIVE}), OBJECTS)
    assert inactive(seen) == [("AdmissionCheck", "cas-provisioning")]
    assert "AdmissionCheck cas-provisioning does not exist" in diagnose(seen, hint="h", namespace="n")


def test_other_api_errors_are_not_taken_for_inactive():
    class ForbiddenError(Exception):
        status = 403

    with pytest.raises(ForbiddenError):
        observe(FakeCluster({CHECK: ForbiddenError(), QUEUE: ACTIVE}), OBJECTS)


PROPS = {
    "objects": [{"kind": kind, "name": name} for kind, name in OBJECTS],
    "kueueNamespace": "kueue-system",
    "kueueRevision": "kueue-ready-0-17-1-abcdef12",
    "timeoutSeconds": 0,
    "hint": "AKS hint",
    "kubeconfig": "kc",
}


@pytest.fixture
def cluster_with(monkeypatch):
    return serve_from(monkeypatch, queue_wait)


def test_create_fails_with_the_diagnosis_when_something_stays_inactive(cluster_with):
    cluster_with({CHECK: UNRECONCILED, QUEUE: QUEUE_INACTIVE})
    with pytest.raises(QueuesInactiveError, match=r"^Waited 0s\. AdmissionCheck cas-provisioning"):
        QueuesActiveProvider().create({**PROPS, "onInactive": "fail"})


def test_create_in_warn_mode_succeeds_and_hands_the_diagnosis_back(cluster_with):
    cluster_with({CHECK: UNRECONCILED, QUEUE: QUEUE_INACTIVE})
    result = QueuesActiveProvider().create({**PROPS, "onInactive": "warn"})
    assert "ClusterQueue cas-cluster-queue is inactive" in result.outs["inactive"]
    assert "kubeconfig" not in result.outs


def test_create_succeeds_with_nothing_to_report_once_everything_is_active(cluster_with):
    cluster_with({CHECK: ACTIVE, QUEUE: ACTIVE})
    result = QueuesActiveProvider().create({**PROPS, "onInactive": "fail"})
    assert result.id == PROPS["kueueRevision"]
    assert result.outs["inactive"] == ""


def test_a_restarted_kueue_or_new_objects_rerun_the_proof_but_a_rotated_kubeconfig_does_not():
    provider = QueuesActiveProvider()
    olds = {**PROPS, "onInactive": "fail"}
    assert not provider.diff("id", olds, {**olds, "kubeconfig": "rotated"}).changes
    assert provider.diff("id", olds, {**olds, "kueueRevision": "kueue-ready-0-17-8-1234"}).replaces == ["kueueRevision"]
    assert provider.diff("id", olds, {**olds, "objects": []}).replaces == ["objects"]


# --- the MultiKueue burst set-up ------------------------------------------------------------------------------------

WORKER = "/apis/kueue.x-k8s.io/v1beta2/multikueueclusters/elastic-capacity-hz"
OTHER_WORKER = "/apis/kueue.x-k8s.io/v1beta2/multikueueclusters/elastic-capacity-bj"
BURST_CHECK = "/apis/kueue.x-k8s.io/v1beta2/admissionchecks/multikueue-burst"
BURST_QUEUE = "/apis/kueue.x-k8s.io/v1beta2/clusterqueues/burst"
BURST_OBJECTS = [
    ("MultiKueueCluster", "elastic-capacity-hz"),
    ("MultiKueueCluster", "elastic-capacity-bj"),
    ("AdmissionCheck", "multikueue-burst"),
    ("ClusterQueue", "burst"),
]
UNREACHABLE = {
    "status": {
        "conditions": [
            cond("Active", "False", "ClientConnectionFailed", 'Get "https://hz.example:6443/api": i/o timeout')
        ]
    }
}
SOME_ACTIVE = {"status": {"conditions": [cond("Active", "True", "SomeActiveClusters", "1 of 2 clusters active")]}}


def burst_cluster(**changes) -> FakeCluster:
    objects = {WORKER: ACTIVE, OTHER_WORKER: ACTIVE, BURST_CHECK: ACTIVE, BURST_QUEUE: ACTIVE}
    return FakeCluster({**objects, **changes})


def test_connected_workers_and_a_check_with_some_active_clusters_are_active():
    assert inactive(observe(burst_cluster(), BURST_OBJECTS)) == []
    assert inactive(observe(burst_cluster(**{BURST_CHECK: SOME_ACTIVE}), BURST_OBJECTS)) == []


def test_a_worker_that_cannot_connect_is_named_with_its_reason_message_and_what_to_check():
    no_clusters = {"status": {"conditions": [cond("Active", "False", "NoUsableClusters", "Inactive clusters: [hz]")]}}
    seen = observe(burst_cluster(**{WORKER: UNREACHABLE, BURST_CHECK: no_clusters}), BURST_OBJECTS)
    assert inactive(seen) == [("MultiKueueCluster", "elastic-capacity-hz"), ("AdmissionCheck", "multikueue-burst")]
    message = diagnose(seen, hint="Check the network path (hz -> https://hz.example:6443)", namespace="kueue-system")
    assert message.startswith(
        "MultiKueueCluster elastic-capacity-hz cannot connect (ClientConnectionFailed: "
        'Get "https://hz.example:6443/api": i/o timeout); the manager could not reach or use the worker\'s API server'
    )
    assert "AdmissionCheck multikueue-burst is inactive (NoUsableClusters: Inactive clusters: [hz]); none of its" in (
        message
    )
    assert "Check the network path (hz -> https://hz.example:6443)." in message
    assert "kubectl get multikueueclusters" in message and "Secret kueue-system/<MultiKueueCluster name>" in message
    assert "ProvisioningRequest" not in message, "not the queue set-up's cause"


@pytest.mark.parametrize(
    ("reason", "meaning"),
    [
        ("BadKubeConfig", "has no key 'kubeconfig'"),
        ("InsecureKubeConfig", "exec plugin"),
        ("BadClusterProfile", "ClusterProfile"),
        ("BadRestConfig", "no client could be built"),
    ],
)
def test_each_reason_of_a_multikueue_cluster_says_what_it_means(reason, meaning):
    broken = {"status": {"conditions": [cond("Active", "False", reason, "detail")]}}
    seen = observe(burst_cluster(**{OTHER_WORKER: broken}), BURST_OBJECTS)
    assert f"elastic-capacity-bj cannot connect ({reason}: detail); " in diagnose(seen, hint="h", namespace="n")
    assert meaning in diagnose(seen, hint="h", namespace="n")


def test_a_burst_set_up_that_stays_disconnected_fails_naming_the_cluster(cluster_with):
    cluster_with({WORKER: UNREACHABLE, OTHER_WORKER: ACTIVE, BURST_CHECK: ACTIVE, BURST_QUEUE: ACTIVE})
    props = {**PROPS, "objects": [{"kind": k, "name": n} for k, n in BURST_OBJECTS], "onInactive": "fail"}
    with pytest.raises(QueuesInactiveError, match=r"^Waited 0s\. MultiKueueCluster elastic-capacity-hz cannot connect"):
        QueuesActiveProvider().create(props)
