"""The simulated API server: what the waiters read follows the clock and the order things were created in, the way
the API server, Kueue and the cluster autoscaler would leave it."""

from __future__ import annotations

import random

import pytest

from components.waiters.job_wait import JobObserver, job_outcome
from components.waiters.queue_wait import inactive, observe
from tools.world.kube import PROVISIONING_CRD, ApiError, Cluster
from tools.world.world import Client

CRD_PATH = f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{PROVISIONING_CRD}"


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def allow(*_: object) -> None:
    return None


def cluster(clock: Clock, transient_rate: float = 0.0) -> Cluster:
    return Cluster("demo", "https://demo", "plain", clock, random.Random(0), allow, transient_rate=transient_rate)


def kueue_object(kind: str, name: str, spec: dict) -> dict:
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": kind, "metadata": {"name": name}, "spec": spec}


CHECK = kueue_object(
    "AdmissionCheck",
    "cas",
    {
        "controllerName": "kueue.x-k8s.io/provisioning-request",
        "parameters": {"apiGroup": "kueue.x-k8s.io", "kind": "ProvisioningRequestConfig", "name": "prc"},
    },
)
QUEUE = kueue_object(
    "ClusterQueue",
    "cq",
    {
        "resourceGroups": [{"coveredResources": ["cpu"], "flavors": [{"name": "pool", "resources": []}]}],
        "admissionChecksStrategy": {"admissionChecks": [{"name": "cas", "onFlavors": ["pool"]}]},
    },
)


def queue_objects(api: Cluster) -> None:
    api.store(kueue_object("ProvisioningRequestConfig", "prc", {"provisioningClassName": "x"}))
    api.store(kueue_object("ResourceFlavor", "pool", {}))
    api.store(CHECK)
    api.store(QUEUE)


def test_a_crd_is_not_found_until_it_is_served_then_established():
    clock = Clock()
    api = cluster(clock)
    api.serve_crd(PROVISIONING_CRD, 100)
    with pytest.raises(ApiError) as missing:
        api.get("deployer", CRD_PATH)
    assert missing.value.status == 404
    clock.now = 100
    conditions = api.get("deployer", CRD_PATH)["status"]["conditions"]
    assert {"type": "Established", "status": "True", "reason": "Established"} in conditions


def test_kueues_webhooks_serve_10_to_30_seconds_after_its_chart():
    clock = Clock()
    api = cluster(clock)
    api.install_kueue(60)
    assert api.kueue is not None and 70 <= api.kueue.webhooks_at <= 90
    clock.now = 69
    assert not api.webhooks_serve()
    clock.now = 90
    assert api.webhooks_serve()


def test_kueue_started_before_the_provisioning_crd_never_activates_its_provisioning_check():
    """ServerSupportsProvisioningRequest: the controller is set up only if the CRD is there when Kueue starts."""
    clock = Clock()
    api = cluster(clock)
    api.install_kueue(0)
    api.serve_crd(PROVISIONING_CRD, 10)
    queue_objects(api)
    clock.now = 3600
    seen = observe(_reader(api), [("AdmissionCheck", "cas"), ("ClusterQueue", "cq")])
    assert seen[("AdmissionCheck", "cas")] == []  # no controller has reconciled it
    assert inactive(seen) == [("AdmissionCheck", "cas"), ("ClusterQueue", "cq")]


def test_with_the_crd_first_the_check_and_then_its_queue_turn_active():
    clock = Clock()
    api = cluster(clock)
    api.serve_crd(PROVISIONING_CRD, 0)
    api.install_kueue(10)
    clock.now = 20
    queue_objects(api)
    assert inactive(observe(_reader(api), [("ClusterQueue", "cq")])) == [("ClusterQueue", "cq")]
    clock.now = 30
    assert inactive(observe(_reader(api), [("AdmissionCheck", "cas"), ("ClusterQueue", "cq")])) == []


def test_a_job_submitted_to_the_queue_is_provisioned_by_a_scale_up_of_three_to_eight_minutes_then_completes():
    clock = Clock()
    api = cluster(clock)
    api.serve_crd(PROVISIONING_CRD, 0)
    api.install_kueue(10)
    api.autoscaled_pools["pool"] = 0
    clock.now = 20
    queue_objects(api)
    api.store({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}})
    local = kueue_object("LocalQueue", "lq", {"clusterQueue": "cq"})
    api.store({**local, "metadata": {"name": "lq", "namespace": "team"}})
    api.store(
        {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {"name": "smoke", "namespace": "team", "labels": {"kueue.x-k8s.io/queue-name": "lq"}},
            "spec": {"suspend": True, "parallelism": 2, "completions": 2},
        }
    )
    observer = JobObserver(_reader(api))
    clock.now = 60
    waiting = observer.observe("team", "smoke")
    assert job_outcome(waiting.job_status) is None and waiting.provreq_name.endswith("-provisioning-1")
    assert {"type": "Provisioned", "status": "False", "reason": "Pending"} in (waiting.provreq_conditions or [])
    clock.now = 60 + 8 * 60 + 90
    done = observer.observe("team", "smoke")
    assert job_outcome(done.job_status) == "Complete" and done.job_status["succeeded"] == 2
    assert {"type": "Provisioned", "status": "True", "reason": "Provisioned"} in (done.provreq_conditions or [])


def test_a_token_is_issued_for_an_existing_account_bound_to_its_anchors_uid():
    clock = Clock()
    api = cluster(clock)
    api.store({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "mk", "namespace": "kueue-system"}})
    api.store({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "a", "namespace": "kueue-system"}}, uid="u1")
    path = "/api/v1/namespaces/kueue-system/serviceaccounts/mk/token"
    request = {"spec": {"expirationSeconds": 3600, "boundObjectRef": {"name": "a", "uid": "u1"}}}
    answer = api.post("manager", path, request)
    assert answer["status"]["expirationTimestamp"] == "2026-12-03T09:00:00Z"
    with pytest.raises(ApiError, match="with that uid not found"):
        api.post("manager", path, {"spec": {**request["spec"], "boundObjectRef": {"name": "a", "uid": "other"}}})


def test_reads_are_answered_429_or_503_at_the_transient_rate():
    api = cluster(Clock(), transient_rate=1.0)
    with pytest.raises(ApiError) as throttled:
        api.get("deployer", "/api/v1/namespaces/kube-system")
    assert throttled.value.status in (429, 503)


def _reader(api: Cluster) -> Client:
    return Client(api, "deployer")
