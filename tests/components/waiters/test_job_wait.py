"""The smoke Job's waiter: every recorded state of tests/cases/why/states.yaml diagnosed as what it is, the rules
behind them, reading the cluster, the polling loop and the dynamic provider."""

from __future__ import annotations

import dataclasses
import datetime

import pytest

from components.waiters import job_wait
from components.waiters.job_wait import (
    JobCompletionProvider,
    JobIncompleteError,
    JobObservation,
    JobObserver,
    diagnose,
    pod_problems,
    unschedulable,
    wait_for_job,
)
from tests.support import why_cases
from tests.support.fakes import FakeClock, FakeCluster, NotFoundError, cond
from tests.support.schemas import validate_kueue

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
    seen = JobObservation(job_status, workload, provreq, tuple(pods), queue_name=QUEUE)
    return diagnose(seen, namespace=NS, name=NAME)


def scale_up_event(pod: str, reason: str) -> dict:
    return {"involvedObject": {"kind": "Pod", "name": pod}, "reason": reason, "lastTimestamp": "2026-01-01T00:01:00Z"}


# --- diagnose: every recorded state ---------------------------------------------------------------------------


@pytest.mark.parametrize("kueue_version", why_cases.KUEUE_VERSIONS)
def test_every_recorded_state_is_diagnosed_as_what_it_is(kueue_version):
    failures = []
    for case in (case for case in why_cases.CASES if kueue_version in case.versions):
        observer = JobObserver(FakeCluster(case.answers()), clock=lambda: why_cases.NOW)
        line = diagnose(observer.observe(why_cases.NS, why_cases.NAME), namespace=why_cases.NS, name=why_cases.NAME)
        wrong = [f"lacks {s!r}" for s in case.says if s not in line]
        wrong += [f"says {s!r}" for s in case.not_says if s in line]
        if wrong:
            failures.append(f"{case.name}: {'; '.join(wrong)}\n    {line}")
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("kueue_version", why_cases.KUEUE_VERSIONS)
def test_the_recorded_kueue_objects_are_what_each_supported_kueue_s_crd_accepts(kueue_version):
    for case in (case for case in why_cases.CASES if kueue_version in case.versions):
        for obj in case.kueue_objects():
            validate_kueue(obj, kueue_version)


def test_every_recorded_state_is_there_once_and_runs_on_some_supported_version():
    names = [case.name for case in why_cases.CASES]
    assert len(names) == len(set(names)) >= 50
    assert all(set(case.versions) <= set(why_cases.KUEUE_VERSIONS) and case.versions for case in why_cases.CASES)


# --- diagnose: the rules behind the states --------------------------------------------------------------------


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
    message = explain(RUNNING, [*RESERVED, cond("Admitted")], [cond("Provisioned")], pods=[PULL_BACKOFF, UNSCHEDULABLE])
    assert "cannot make progress: pod kueue-cas-job-abc container worker (ImagePullBackOff: 403 Forbidden)" in message
    assert "admitted and started" not in message and "ProvisioningRequest" not in message


def test_an_unschedulable_pod_without_a_scale_up_is_named_with_the_scheduler_message():
    message = explain(RUNNING, [*RESERVED, cond("Admitted")], [cond("Provisioned")], pods=[UNSCHEDULABLE])
    assert (
        "cannot make progress: pod kueue-cas-job-def is unschedulable (Unschedulable: 0/2 nodes are available)"
        in message
    )


def test_what_blocks_one_pod_outweighs_the_nodes_that_come_for_another():
    coming = {**UNSCHEDULABLE, "metadata": {"name": "p1"}}
    blocked = {**UNSCHEDULABLE, "metadata": {"name": "p2"}}
    events = (scale_up_event("p1", "TriggeredScaleUp"), scale_up_event("p2", "NotTriggerScaleUp"))
    seen = JobObservation(RUNNING, [*RESERVED, cond("Admitted")], pods=(coming, blocked), events=events)
    assert diagnose(seen, namespace=NS, name=NAME).startswith(f"Job {NS}/{NAME} cannot make progress: ")
    seen = dataclasses.replace(seen, events=events[:1])
    assert "waits for new nodes" in diagnose(seen, namespace=NS, name=NAME), "no evidence about p2 is no block"


def test_a_consumed_request_tells_about_nodes_only_by_its_true_conditions():
    consuming = {**UNSCHEDULABLE, "metadata": {"name": "p", "annotations": {why_cases.CONSUMES: "pr"}}}
    provreq = [cond("Provisioned", "False", "CapacityIsNotFound"), cond("BookingExpired", "False", "Booked")]
    seen = JobObservation(RUNNING, [*RESERVED, cond("Admitted")], provreq, (consuming,), provreq_name="pr")
    assert diagnose(seen, namespace=NS, name=NAME) == (
        f"Job {NS}/{NAME} cannot make progress: pod p is unschedulable (Unschedulable: 0/2 nodes are available). "
        f"Check: kubectl -n {NS} describe pods -l batch.kubernetes.io/job-name={NAME}"
    )


def test_a_node_counts_as_coming_up_only_in_the_pool_the_pod_selects_and_while_young():
    pod = {**UNSCHEDULABLE, "spec": {"nodeSelector": {"agentpool": "scalepool"}}}
    now = datetime.datetime(2026, 3, 2, 9, 20, tzinfo=datetime.UTC)

    def line(labels: dict, created: str) -> str:
        node = {"metadata": {"name": "n", "labels": labels, "creationTimestamp": created}, "status": {}}
        seen = JobObservation(RUNNING, [*RESERVED, cond("Admitted")], pods=(pod,), nodes=(node,), observed_at=now)
        return diagnose(seen, namespace=NS, name=NAME)

    assert "node n comes up (not Ready yet, 6 min old)" in line({"agentpool": "scalepool"}, "2026-03-02T09:14:00Z")
    assert "cannot make progress" in line({"agentpool": "gpupool"}, "2026-03-02T09:14:00Z")
    assert "cannot make progress" in line({"agentpool": "scalepool"}, "2026-03-02T09:04:00Z"), "15 minutes old"


def test_pods_that_are_only_pending_or_running_are_no_problem():
    creating = {"metadata": {"name": "p"}, "status": {"containerStatuses": [{"name": "w", "state": {"running": {}}}]}}
    waiting = {"name": "w", "state": {"waiting": {"reason": "ContainerCreating"}}}
    pods = [creating, {"metadata": {"name": "q"}, "status": {"containerStatuses": [waiting]}}]
    assert pod_problems(pods) == () and unschedulable(pods) == []


def test_suspended_with_quota_but_no_request_blames_the_crd_only_for_a_provisioning_check():
    check = {"name": "cas-provisioning", "state": "Pending", "message": ""}
    provisioning = {"cas-provisioning": {"controllerName": "kueue.x-k8s.io/provisioning-request"}}
    seen = JobObservation(SUSPENDED, RESERVED, admission_checks=(check,), check_specs=provisioning)
    message = diagnose(seen, namespace=NS, name=NAME)
    assert AKS_SERVES_FROM_1_33 in message and "restart kueue-controller-manager" in message
    for specs in ({}, {"cas-provisioning": {"controllerName": "kueue.x-k8s.io/multikueue"}}):
        message = diagnose(dataclasses.replace(seen, check_specs=specs), namespace=NS, name=NAME)
        assert "CRD" not in message and "'cas-provisioning'" in message


def test_no_message_claims_the_managed_autoscaler_never_serves_provisioning_requests():
    for message in (
        explain(SUSPENDED, RESERVED, []),
        explain(SUSPENDED, [cond("QuotaReserved", "False", "Pending", "ClusterQueue q is inactive")]),
    ):
        assert AKS_SERVES_FROM_1_33 in message
        assert "5492" not in message and "not currently enabled" not in message


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
EVENTS_PATH = f"/api/v1/namespaces/{NS}/events"
KUEUE = "/apis/kueue.x-k8s.io/v1beta2"
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


NOW = datetime.datetime(2026, 1, 1, 0, 10, tzinfo=datetime.UTC)


class RecordingCluster(FakeCluster):
    """A :class:`FakeCluster` that writes down every path it is asked for, in order."""

    def __init__(self, objects: dict) -> None:
        super().__init__(objects)
        self.read: list[str] = []

    def _found(self, path: str):
        self.read.append(path)
        return super()._found(path)


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
            f"{KUEUE}/admissionchecks/cas-provisioning": {"spec": {"controllerName": "c"}},
        }
    )
    seen = JobObserver(cluster, clock=lambda: NOW).observe(NS, NAME)
    assert seen == JobObservation(
        SUSPENDED,
        RESERVED,
        [],
        (PULL_BACKOFF,),
        QUEUE,
        (CHECK,),
        "wl",
        "wl-cas-provisioning-2",
        check_specs={"cas-provisioning": {"controllerName": "c"}},
        observed_at=NOW,
    )
    assert cluster.selectors[PODS_PATH] == f"batch.kubernetes.io/job-name={NAME}"
    assert cluster.selectors[WORKLOADS_PATH] == "kueue.x-k8s.io/job-uid=job-uid", "Kueue's label on the Workload"


def test_observer_reads_the_queue_events_and_nodes_only_in_the_states_that_call_for_them():
    """The waiter's identity needs no more than the states it meets: the LocalQueue while no quota is reserved, the
    events and nodes while a pod is unschedulable."""
    running = {**THE_JOB, "status": RUNNING}
    workload = owned("job-uid", "wl", "2026-01-01T00:00:01Z", RESERVED)
    cluster = RecordingCluster({JOB_PATH: running, PODS_PATH: [], WORKLOADS_PATH: [workload], PROVREQS_PATH: []})
    JobObserver(cluster).observe(NS, NAME)
    assert cluster.read == [JOB_PATH, PODS_PATH, WORKLOADS_PATH, PROVREQS_PATH]
    pending = owned("job-uid", "wl", "2026-01-01T00:00:01Z", [cond("QuotaReserved", "False")])
    cluster = RecordingCluster({JOB_PATH: THE_JOB, PODS_PATH: [UNSCHEDULABLE], WORKLOADS_PATH: [pending]})
    JobObserver(cluster).observe(NS, NAME)
    assert cluster.read[4:] == [f"{KUEUE}/namespaces/{NS}/localqueues/{QUEUE}", EVENTS_PATH, "/api/v1/nodes"]


def test_observer_keeps_only_the_autoscaler_s_events_on_the_unschedulable_pods():
    events = [
        scale_up_event("kueue-cas-job-def", "TriggeredScaleUp"),
        scale_up_event("kueue-cas-job-def", "FailedScheduling"),
        scale_up_event("another-pod", "NotTriggerScaleUp"),
    ]
    cluster = FakeCluster({JOB_PATH: THE_JOB, PODS_PATH: [UNSCHEDULABLE], WORKLOADS_PATH: [], EVENTS_PATH: events})
    assert JobObserver(cluster).observe(NS, NAME).events == (events[0],)


def test_an_optional_read_the_reader_may_not_make_leaves_its_part_empty():
    class ForbiddenError(Exception):
        status = 403

    pending = owned("job-uid", "wl", "2026-01-01T00:00:01Z", [cond("QuotaReserved", "False")], admissionChecks=[CHECK])
    paths = (f"{KUEUE}/admissionchecks/cas-provisioning", f"{KUEUE}/namespaces/{NS}/localqueues/{QUEUE}", EVENTS_PATH)
    refused = dict.fromkeys([*paths, "/api/v1/nodes"], ForbiddenError())
    cluster = FakeCluster({JOB_PATH: THE_JOB, PODS_PATH: [UNSCHEDULABLE], WORKLOADS_PATH: [pending], **refused})
    seen = JobObserver(cluster).observe(NS, NAME)
    assert (seen.check_specs, seen.cluster_queue, seen.events, seen.nodes) == ({}, "", (), ())


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
