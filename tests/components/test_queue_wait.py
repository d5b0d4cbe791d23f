"""The activation waiter: which queue objects are inactive, why, and what the provider does about it."""

from __future__ import annotations

import pytest

from components import queue_wait
from components.queue_wait import QueuesActiveProvider, QueuesInactiveError, diagnose, inactive, observe
from tests.support.fakes import FakeCluster, cond

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
    def install(objects: dict) -> None:
        monkeypatch.setattr(queue_wait, "RestCluster", lambda kubeconfig: FakeCluster(objects))

    return install


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
