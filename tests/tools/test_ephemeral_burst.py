"""The burst smoke check's parts, read from fake clusters: the submission, the manager-and-workers reader, the latch,
and each step of the burst Job, named with why when it fails."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from components.config.multikueue.multikueue import MultiKueueConfig
from components.manifests.multikueue import MANAGED_BY, burst_smoke_job
from components.waiters.kube_wait import KUEUE_API_PATH
from tests.support.fakes import FakeClock, FakeCluster, NotFoundError, cond
from tools.ephemeral_burst import (
    INSTANCE_ID_ANNOTATION,
    Burst,
    BurstJob,
    RestWriter,
    WritableCluster,
    latched,
    submission,
    with_workers,
)
from tools.mock_cloud import FAKE_KUBECONFIG

BURST = MultiKueueConfig.model_validate(
    {"workers": [{"cluster": "hz"}, {"cluster": "bj"}], "smokeJob": {"enabled": True}}
)
JOBS = "/apis/batch/v1/namespaces/burst/jobs"
JOB = f"{JOBS}/burst-smoke"
WORKLOADS = f"{KUEUE_API_PATH}/namespaces/burst/workloads"
WORKLOAD = "job-burst-smoke-1a2b3"
PODS = "/api/v1/namespaces/burst/pods"
NAMES = [
    "Burst Job burst/burst-smoke admitted on the manager (QuotaReserved, Admitted)",
    "Copy of burst Job burst/burst-smoke admitted on one worker",
    f"Pods of burst Job burst/burst-smoke ran on ACS ({INSTANCE_ID_ANNOTATION})",
    "Burst Job burst/burst-smoke status synced back to the manager (Complete)",
    "Remote objects of burst Job burst/burst-smoke cleaned up on every worker",
]


class WritableFake(FakeCluster):
    """A fake manager the runner may create Jobs on and delete them from."""

    def __init__(self, objects: dict[str, Any]) -> None:
        super().__init__(objects)
        self.created: list[tuple[str, dict[str, Any]]] = []
        self.deleted: list[str] = []

    def create(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        self.created.append((path, body))
        self.objects[f"{path}/{body['metadata']['name']}"] = body
        return body

    def delete(self, path: str) -> None:
        self.deleted.append(path)
        self.objects.pop(path)


def manager(*, complete: bool, cluster_name: str | None = None, managed_by: str = MANAGED_BY) -> dict[str, Any]:
    """The manager while the Job runs on a worker (``complete=False``) or once its status came back."""
    status: dict[str, Any] = {"conditions": [cond("Complete")], "succeeded": 1} if complete else {"active": 1}
    conditions = [cond("QuotaReserved"), cond("Admitted"), *([cond("Finished")] if complete else [])]
    workload = {
        "metadata": {"name": WORKLOAD, "ownerReferences": [{"uid": "job-uid"}]},
        "status": {"conditions": conditions, **({"clusterName": cluster_name} if cluster_name else {})},
    }
    job = {"metadata": {"uid": "job-uid"}, "spec": {"managedBy": managed_by}, "status": status}
    return {JOB: job, WORKLOADS: [workload]}


def running_worker(**pod_changes: Any) -> dict[str, Any]:
    """A worker that admitted the copy and runs its pod on ACS."""
    pod = {
        "metadata": {"name": "burst-smoke-x7k2p", "annotations": {INSTANCE_ID_ANNOTATION: "acs-bp1"}},
        "status": {"phase": "Running"},
    }
    pod.update(pod_changes)
    copy_of = {"metadata": {"name": WORKLOAD}, "status": {"conditions": [cond("QuotaReserved"), cond("Admitted")]}}
    return {f"{WORKLOADS}/{WORKLOAD}": copy_of, JOB: {"metadata": {"uid": "remote"}}, PODS: [pod]}


def idle_worker() -> dict[str, Any]:
    return {PODS: []}


def verdicts(cluster) -> list[tuple[bool, str]]:
    return [evaluate(cluster) for _, evaluate in BurstJob(BURST).steps()]


def test_the_steps_are_named_after_the_job_and_what_they_prove():
    assert [name for name, _ in BurstJob(BURST).steps()] == NAMES


def test_while_the_copy_runs_on_acs_the_first_three_steps_pass_and_the_last_two_wait():
    workers = {"hz": FakeCluster(running_worker()), "bj": FakeCluster(idle_worker())}
    burst = Burst(FakeCluster(manager(complete=False)), workers)
    results = verdicts(burst)
    assert [ok for ok, _ in results] == [True, True, True, False, False]
    assert results[1][1] == "admitted on hz"
    assert results[2][1] == "burst-smoke-x7k2p on hz as acs-bp1"
    assert results[3][1] == "not finished on the manager"
    assert results[4][1] == "the Job has not completed on the manager yet"


def test_once_the_job_is_back_and_the_copies_are_gone_the_manager_says_where_it_ran():
    done = manager(complete=True, cluster_name="elastic-capacity-bj")
    burst = Burst(FakeCluster(done), {"hz": FakeCluster(idle_worker()), "bj": FakeCluster(idle_worker())})
    results = verdicts(burst)
    assert [ok for ok, _ in results] == [True, True, False, True, True]
    assert results[1][1] == "admitted on bj (status.clusterName of the manager's Workload)"
    assert results[2][1] == "no pod of the Job on any worker", "only seen while it runs: the runner latches it"


@pytest.mark.parametrize(
    ("step", "manager_objects", "worker_objects", "detail"),
    [
        (0, {JOB: {"metadata": {"uid": "job-uid"}}, WORKLOADS: []}, {}, "Kueue created no Workload"),
        (1, manager(complete=False), {}, "hz: no copy; bj: no copy"),
        (
            2,
            manager(complete=False),
            running_worker(status={"phase": "Pending"}),
            "hz: pod burst-smoke-x7k2p is Pending",
        ),
        (
            2,
            manager(complete=False),
            running_worker(metadata={"name": "burst-smoke-x7k2p"}),
            f"hz: pod burst-smoke-x7k2p has no {INSTANCE_ID_ANNOTATION} annotation (not an ACS instance)",
        ),
        (
            2,
            manager(complete=False),
            running_worker(metadata={"name": "burst-smoke-x7k2p", "annotations": {INSTANCE_ID_ANNOTATION: "eci-bp1"}}),
            "hz: pod burst-smoke-x7k2p runs on instance 'eci-bp1', not an ACS one (acs-...)",
        ),
        (3, manager(complete=True, managed_by="kubernetes.io/job-controller"), {}, "the manager did not hand it"),
        (4, manager(complete=True), running_worker(), "still there: Job on hz; Workload on hz"),
    ],
    ids=[
        "no-workload",
        "no-copy",
        "pending",
        "not-acs",
        "an-instance-id-without-the-acs-prefix",
        "ran-locally",
        "not-cleaned-up",
    ],
)
def test_each_step_fails_saying_why(step, manager_objects, worker_objects, detail):
    burst = Burst(FakeCluster(manager_objects), {"hz": FakeCluster(worker_objects), "bj": FakeCluster({PODS: []})})
    _, evaluate = BurstJob(BURST).steps()[step]
    try:
        ok, found = evaluate(burst)
    except LookupError as error:  # the runner shows a raised error as the step's detail
        ok, found = False, str(error)
    assert not ok and detail in found


def test_a_quota_reserved_but_unadmitted_workload_names_the_missing_condition():
    objects = manager(complete=False)
    objects[WORKLOADS][0]["status"]["conditions"] = [
        cond("QuotaReserved"),
        cond("Admitted", "False", "Pending", "wait"),
    ]
    assert verdicts(Burst(FakeCluster(objects), {}))[0] == (False, "Admitted is not True (Pending: wait)")


def test_an_unreadable_worker_is_named_in_every_step_that_needs_it():
    burst = with_workers(FakeCluster(manager(complete=True)), {"hz": None}, lambda kubeconfig: FakeCluster({}))
    assert burst.unreachable == {"hz": "cannot read it (LookupError: output ackKubeconfigs has no entry 'hz')"}
    results = verdicts(burst)
    assert "hz: cannot read it" in results[1][1] and "hz: cannot read it" in results[2][1]
    assert results[4] == (False, f"still there: hz: not checked ({burst.unreachable['hz']})")


def test_workers_that_do_not_load_are_unreachable_and_the_others_are_read():
    def connect(kubeconfig: str) -> FakeCluster:
        if kubeconfig == "broken":
            raise ValueError("not yaml")
        return FakeCluster({})

    burst = with_workers(FakeCluster({}), {"hz": "kc", "bj": "broken"}, connect)
    assert list(burst.workers) == ["hz"] and burst.unreachable == {"bj": "cannot read it (ValueError: not yaml)"}
    with pytest.raises(NotFoundError):
        burst.get(JOB)  # reads go to the manager


def test_a_latched_step_passes_for_good_once_it_passed():
    answers = iter([(False, "not yet"), (True, "seen"), (False, "gone")])
    step = latched(lambda cluster: next(answers))
    assert [step(FakeCluster({})) for _ in range(3)] == [(False, "not yet"), (True, "seen"), (True, "seen")]


def test_the_submission_creates_the_burst_job_on_the_manager():
    fake = WritableFake({})
    submission(BURST)(fake)
    assert fake.created == [(JOBS, burst_smoke_job(BURST))] and fake.deleted == []


def test_an_earlier_checks_job_is_deleted_first_and_waited_for():
    class SlowDelete(WritableFake):
        def delete(self, path: str) -> None:
            self.deleted.append(path)  # the API server takes a while: gone after the next sleep

    fake, clock = SlowDelete({JOB: {"metadata": {"uid": "old"}}}), FakeClock()

    def sleep(seconds: float) -> None:
        clock.sleep(seconds)
        fake.objects.pop(JOB, None)

    submission(BURST)(fake, clock=clock, sleep=sleep)
    assert fake.deleted == [JOB] and clock.sleeps == [10]
    assert [path for path, _ in fake.created] == [JOBS]


def test_a_job_that_will_not_go_stops_the_submission_with_the_reason():
    class Stuck(WritableFake):
        def delete(self, path: str) -> None:
            self.deleted.append(path)

    clock = FakeClock()
    with pytest.raises(TimeoutError, match="the earlier Job burst/burst-smoke is still being deleted"):
        submission(BURST)(Stuck({JOB: {}}), clock=clock, sleep=clock.sleep)


def test_a_read_only_client_cannot_submit():
    assert not isinstance(FakeCluster({}), WritableCluster) and isinstance(WritableFake({}), WritableCluster)
    with pytest.raises(TypeError, match="cannot create objects"):
        submission(BURST)(FakeCluster({}))


class RecordingApiClient:
    def __init__(self) -> None:
        self.calls: list[tuple[str, str, Any]] = []

    def call_api(self, path, method, **kwargs):
        self.calls.append((path, method, copy.deepcopy(kwargs["body"])))
        return {"kind": "Job"}


def test_the_real_client_posts_objects_and_deletes_in_the_background():
    writer = RestWriter(FAKE_KUBECONFIG)
    writer.api_client = RecordingApiClient()
    assert isinstance(writer, WritableCluster)
    assert writer.create(JOBS, {"kind": "Job"}) == {"kind": "Job"}
    writer.delete(JOB)
    assert writer.api_client.calls == [
        (JOBS, "POST", {"kind": "Job"}),
        (JOB, "DELETE", {"propagationPolicy": "Background"}),
    ]
