"""The smoke Job's waiter: reading the cluster, diagnosing a Job that does not complete, and the dynamic provider."""

from __future__ import annotations

import pytest

from components import job_wait
from components.job_wait import (
    JobCompletionProvider,
    JobIncompleteError,
    JobObservation,
    JobObserver,
    diagnose,
    pod_problems,
    wait_for_job,
)
from tests.support.fakes import FakeClock, FakeCluster, NotFoundError, cond

NS, NAME, QUEUE = "cas-kueue-demo", "kueue-cas-job", "cas-local-queue"
SUSPENDED = {"conditions": [cond("Suspended", reason="JobSuspended")]}
RUNNING = {"startTime": "2026-01-01T00:00:00Z", "active": 3, "conditions": [cond("Suspended", "False")]}
COMPLETE = {"startTime": "2026-01-01T00:00:00Z", "succeeded": 3, "conditions": [cond("Complete")]}
FAILED = {
    "startTime": "2026-01-01T00:00:00Z",
    "failed": 4,
    "conditions": [
        cond("Failed", reason="BackoffLimitExceeded", message="Job has reached the specified backoff limit")
    ],
}
RESERVED = [cond("QuotaReserved", reason="QuotaReserved")]
PULL_BACKOFF = {
    "metadata": {"name": "kueue-cas-job-abc"},
    "status": {
        "containerStatuses": [
            {"name": "worker", "state": {"waiting": {"reason": "ImagePullBackOff", "message": "403 Forbidden"}}}
        ]
    },
}
UNSCHEDULABLE = {
    "metadata": {"name": "kueue-cas-job-def"},
    "status": {"conditions": [cond("PodScheduled", "False", "Unschedulable", "0/2 nodes are available")]},
}
AKS_SERVES_FROM_1_33 = "https://github.com/Azure/AKS/pull/5867"


def explain(job_status, workload=None, provreq=None, pods=()) -> str:
    seen = JobObservation(job_status, workload, provreq, pod_problems(pods), queue_name=QUEUE)
    return diagnose(seen, namespace=NS, name=NAME)


# --- diagnose ---------------------------------------------------------------------------------------------------


def test_complete_job_is_reported_as_such():
    assert explain(COMPLETE) == f"Job {NS}/{NAME} completed: 3 pod(s) succeeded."


def test_failed_job_names_the_reason_and_where_to_look():
    message = explain(FAILED, [*RESERVED, cond("Admitted")], [cond("Provisioned")])
    assert "failed (BackoffLimitExceeded" in message
    assert "4 pod(s) failed" in message
    assert f"kubectl -n {NS} logs job/{NAME}" in message


def test_running_job_with_failed_pods_that_timed_out_says_it_was_admitted():
    message = explain({**RUNNING, "failed": 2}, [*RESERVED, cond("Admitted")], [cond("Provisioned")])
    assert "admitted and started" in message
    assert "3 active (0 ready), 0 succeeded, 2 failed" in message
    assert f"kubectl -n {NS} get pods -l batch.kubernetes.io/job-name={NAME}" in message


def test_an_unpullable_image_is_the_diagnosis_not_the_autoscaler():
    message = explain(RUNNING, [*RESERVED, cond("Admitted")], [cond("Provisioned")], pods=[PULL_BACKOFF])
    assert "cannot make progress: pod kueue-cas-job-abc container worker (ImagePullBackOff: 403 Forbidden)" in message
    assert "admitted and started" not in message
    assert "ProvisioningRequest" not in message


def test_an_unschedulable_pod_is_named_with_the_scheduler_message():
    message = explain(RUNNING, [*RESERVED, cond("Admitted")], [cond("Provisioned")], pods=[UNSCHEDULABLE])
    assert "pod kueue-cas-job-def is unschedulable (Unschedulable: 0/2 nodes are available)" in message


def test_pods_that_are_only_pending_or_running_are_no_problem():
    creating = {"metadata": {"name": "p"}, "status": {"containerStatuses": [{"name": "w", "state": {"running": {}}}]}}
    waiting = {"name": "w", "state": {"waiting": {"reason": "ContainerCreating"}}}
    assert pod_problems([creating, {"metadata": {"name": "q"}, "status": {"containerStatuses": [waiting]}}]) == ()


def test_suspended_without_workload_points_at_the_queue_label_and_namespace_selector():
    message = explain(SUSPENDED)
    assert "still suspended" in message and "no Workload" in message
    assert f"LocalQueue {QUEUE!r}, which its kueue.x-k8s.io/queue-name label names, exists" in message
    assert f"kubectl -n {NS} get localqueue" in message
    assert "managedJobsNamespaceSelector" in message


def test_suspended_without_quota_or_provisioning_request_points_at_an_inactive_admission_check():
    message = explain(
        SUSPENDED, [cond("QuotaReserved", "False", "Pending", "ClusterQueue cas-cluster-queue is inactive")]
    )
    assert "no quota reserved (Pending: ClusterQueue cas-cluster-queue is inactive)" in message
    assert "AdmissionCheckInactive" in message
    assert AKS_SERVES_FROM_1_33 in message and "from Kubernetes 1.33" in message
    assert "kubectl get crd provisioningrequests.autoscaling.x-k8s.io" in message


def test_suspended_with_quota_but_no_provisioning_request_blames_the_missing_crd():
    message = explain(SUSPENDED, RESERVED)
    assert "created no ProvisioningRequest" in message
    assert AKS_SERVES_FROM_1_33 in message
    assert "kubectl get admissioncheck" in message
    assert "restart kueue-controller-manager" in message


def test_provisioning_request_without_conditions_says_no_autoscaler_picked_it_up():
    message = explain(SUSPENDED, RESERVED, [])
    assert "no conditions" in message
    assert AKS_SERVES_FROM_1_33 in message
    assert f"kubectl -n {NS} get provisioningrequest" in message


def test_no_message_claims_the_managed_autoscaler_never_serves_provisioning_requests():
    for message in (explain(SUSPENDED, RESERVED, []), explain(SUSPENDED, RESERVED)):
        assert "5492" not in message and "not currently enabled" not in message


def test_capacity_not_found_points_at_max_count_and_quota():
    provreq = [cond("Accepted"), cond("Provisioned", "False", "CapacityIsNotFound", "max node group size reached")]
    message = explain(SUSPENDED, RESERVED, provreq)
    assert "could not provision capacity (CapacityIsNotFound: max node group size reached)" in message
    assert "maxCount" in message


def test_failed_provisioning_request_is_named():
    message = explain(SUSPENDED, RESERVED, [cond("Accepted"), cond("Failed", reason="ProvisioningFailed")])
    assert "ProvisioningRequest failed (ProvisioningFailed)" in message


def test_provisioned_but_not_admitted_says_nodes_may_not_be_ready():
    message = explain(SUSPENDED, RESERVED, [cond("Accepted"), cond("Provisioned")])
    assert "Capacity was provisioned" in message and "Ready" in message


def test_accepted_but_not_provisioned_says_scale_ups_take_minutes():
    message = explain(SUSPENDED, RESERVED, [cond("Accepted")])
    assert "accepted its ProvisioningRequest but has not provisioned" in message
    assert "scale-ups can take minutes" in message


# --- the polling loop -------------------------------------------------------------------------------------------


class ScriptedObserver:
    """Returns the given observations in order, then repeats the last."""

    def __init__(self, *observations: JobObservation) -> None:
        self.observations = list(observations)
        self.calls = 0

    def observe(self, namespace: str, name: str) -> JobObservation:
        assert (namespace, name) == (NS, NAME)
        self.calls += 1
        return self.observations[min(self.calls, len(self.observations)) - 1]


def test_wait_returns_once_the_job_completes():
    clock = FakeClock()
    observer = ScriptedObserver(
        JobObservation(SUSPENDED), JobObservation(RUNNING, RESERVED, [cond("Provisioned")]), JobObservation(COMPLETE)
    )
    done = wait_for_job(observer, NS, NAME, 600, clock=clock, sleep=clock.sleep, interval_seconds=10)
    assert done.job_status == COMPLETE
    assert observer.calls == 3
    assert clock.sleeps == [10, 10]


def test_wait_fails_at_once_with_the_diagnosis_when_the_job_fails():
    clock = FakeClock()
    with pytest.raises(JobIncompleteError, match="BackoffLimitExceeded") as caught:
        wait_for_job(ScriptedObserver(JobObservation(FAILED)), NS, NAME, 600, clock=clock, sleep=clock.sleep)
    assert clock.sleeps == []
    assert "Waited" not in str(caught.value)


def test_wait_times_out_with_the_diagnosis_of_the_last_observation():
    clock = FakeClock()
    observer = ScriptedObserver(
        JobObservation(SUSPENDED, RESERVED, [cond("Accepted")]), JobObservation(SUSPENDED, RESERVED, [])
    )
    with pytest.raises(JobIncompleteError) as caught:
        wait_for_job(observer, NS, NAME, 25, clock=clock, sleep=clock.sleep, interval_seconds=10)
    message = str(caught.value)
    assert message.startswith("Waited 25s (smokeJob.timeoutSeconds). "), "the key that raises the deadline"
    assert "no conditions" in message
    assert clock.sleeps == [10, 10, 5], "never sleeps past the deadline"
    assert observer.calls == 4


# --- reading the cluster ----------------------------------------------------------------------------------------

JOB_PATH = f"/apis/batch/v1/namespaces/{NS}/jobs/{NAME}"
PODS_PATH = f"/api/v1/namespaces/{NS}/pods"
WORKLOADS_PATH = f"/apis/kueue.x-k8s.io/v1beta2/namespaces/{NS}/workloads"
PROVREQS_PATH = f"/apis/autoscaling.x-k8s.io/v1/namespaces/{NS}/provisioningrequests"
CHECK = {"name": "cas-provisioning", "state": "Pending", "message": ""}
THE_JOB = {
    "metadata": {"name": NAME, "namespace": NS, "uid": "job-uid", "labels": {"kueue.x-k8s.io/queue-name": QUEUE}},
    "status": SUSPENDED,
}


def owned(owner_uid: str, name: str, created: str, conditions=None, **status) -> dict:
    return {
        "metadata": {
            "name": name,
            "uid": f"uid-{name}",
            "creationTimestamp": created,
            "ownerReferences": [{"uid": owner_uid}],
        },
        "status": ({"conditions": conditions} if conditions is not None else {}) | status,
    }


def test_observer_follows_owner_references_to_the_newest_provisioning_request():
    cluster = FakeCluster(
        {
            JOB_PATH: THE_JOB,
            PODS_PATH: [PULL_BACKOFF],
            WORKLOADS_PATH: [
                owned("other-job", "other-wl", "2026-01-01T00:00:00Z", [cond("Admitted")]),
                owned("job-uid", "wl", "2026-01-01T00:00:01Z", RESERVED, admissionChecks=[CHECK]),
            ],
            PROVREQS_PATH: [
                owned("uid-wl", "wl-cas-provisioning-1", "2026-01-01T00:00:02Z", [cond("Failed")]),
                owned("uid-wl", "wl-cas-provisioning-2", "2026-01-01T00:05:00Z", []),
                owned("uid-other-wl", "other-wl-cas-provisioning-1", "2026-01-01T00:09:00Z", [cond("Provisioned")]),
            ],
        }
    )
    seen = JobObserver(cluster).observe(NS, NAME)
    problems = pod_problems([PULL_BACKOFF])
    assert seen == JobObservation(SUSPENDED, RESERVED, [], problems, QUEUE, (CHECK,), "wl", "wl-cas-provisioning-2")
    assert cluster.selectors[PODS_PATH] == f"batch.kubernetes.io/job-name={NAME}"
    assert cluster.selectors[WORKLOADS_PATH] == "kueue.x-k8s.io/job-uid=job-uid", "Kueue's label on the Workload"


def test_observer_treats_a_missing_provisioning_request_crd_as_no_request():
    cluster = FakeCluster(
        {
            JOB_PATH: THE_JOB,
            PODS_PATH: [],
            WORKLOADS_PATH: [owned("job-uid", "wl", "2026-01-01T00:00:01Z", RESERVED)],
            PROVREQS_PATH: NotFoundError(),
        }
    )
    assert JobObserver(cluster).observe(NS, NAME).provreq_conditions is None


def test_observer_lets_other_api_errors_through():
    class ForbiddenError(Exception):
        status = 403

    cluster = FakeCluster({JOB_PATH: THE_JOB, PODS_PATH: [], WORKLOADS_PATH: ForbiddenError()})
    with pytest.raises(ForbiddenError):
        JobObserver(cluster).observe(NS, NAME)


# --- the dynamic provider ---------------------------------------------------------------------------------------

PROPS = {"jobNamespace": NS, "jobName": NAME, "jobUid": "job-uid", "timeoutSeconds": 900.0, "kubeconfig": "kc"}


def test_create_waits_for_the_job_and_keeps_the_kubeconfig_out_of_the_outputs(monkeypatch):
    kubeconfigs = []

    def observer_for(kubeconfig: str) -> ScriptedObserver:
        kubeconfigs.append(kubeconfig)
        return ScriptedObserver(JobObservation(COMPLETE))

    monkeypatch.setattr(job_wait.JobObserver, "from_kubeconfig", staticmethod(observer_for))
    result = JobCompletionProvider().create(dict(PROPS))
    assert kubeconfigs == ["kc"]
    assert result.id == f"{NS}/{NAME}"
    assert result.outs["succeeded"] == 3
    assert "kubeconfig" not in result.outs


def test_a_rotated_kubeconfig_does_not_rerun_the_wait_but_a_new_job_does():
    provider = JobCompletionProvider()
    olds = {k: v for k, v in PROPS.items() if k != "kubeconfig"}
    assert not provider.diff("id", olds, {**PROPS, "kubeconfig": "rotated"}).changes
    replaced = provider.diff("id", olds, {**PROPS, "jobUid": "new-uid"})
    assert replaced.changes and replaced.replaces == ["jobUid"]
    assert replaced.delete_before_replace, "the old wait is dropped before the new one waits, never side by side"
