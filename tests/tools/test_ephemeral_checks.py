"""The ephemeral environment's verification steps, read from fake clusters: names, verdicts, bounded retries."""

from __future__ import annotations

import inspect
import json
from typing import Any

import pytest

from components.config.loader import load_stack_config
from components.config.stack import StackConfig
from components.waiters.kube_wait import KUEUE_API_PATH
from tests.support import PROJECT_ROOT
from tests.support.fakes import FakeClock, FakeCluster, cond
from tests.support.stacks import ACK_STACK, AKS_STACK, SHARED_STACK
from tools import render
from tools.ephemeral_checks import (
    INSTANCE_ID_ANNOTATION,
    ClusterChecks,
    Condition,
    check_all,
    kueue_probes,
    plan_checks,
    run_probes,
)

NS, JOB = "cas-kueue-demo", "kueue-cas-job"
PODS = f"/api/v1/namespaces/{NS}/pods"
KUEUE_NAMES = [
    "AdmissionCheck cas-provisioning Active",
    "ClusterQueue cas-cluster-queue Active",
    f"Job {NS}/{JOB} complete 3/3",
    f"Workload of Job {NS}/{JOB} admitted",
    f"ProvisioningRequest of Job {NS}/{JOB} Provisioned",
    f"Pods of Job {NS}/{JOB} ran on nodes of pool scalepool",
]
"""Azure's walkthrough's checks: kubectl get admissioncheck / clusterqueue / job / workloads / provisioningrequest /
nodes -l agentpool=scalepool."""


def stack_config(path, *, smoke_job: bool = True, stack: str | None = None) -> StackConfig:
    _, values, secret_keys = render.read_stack_file(path)
    if smoke_job:
        values["elastic-capacity:smokeJob"] = json.dumps({"enabled": True})
    return load_stack_config(values, secret_keys, stack=stack)


def healthy_aks() -> dict[str, Any]:
    owned = lambda uid: [{"uid": uid}]  # noqa: E731
    return {
        f"{KUEUE_API_PATH}/admissionchecks/cas-provisioning": {"status": {"conditions": [cond("Active")]}},
        f"{KUEUE_API_PATH}/clusterqueues/cas-cluster-queue": {"status": {"conditions": [cond("Active")]}},
        f"/apis/batch/v1/namespaces/{NS}/jobs/{JOB}": {
            "metadata": {"uid": "job"},
            "status": {"succeeded": 3, "startTime": "t", "conditions": [cond("Complete")]},
        },
        PODS: [{"metadata": {"name": f"{JOB}-{i}"}, "spec": {"nodeName": f"aks-scalepool-{i}"}} for i in range(3)],
        f"{KUEUE_API_PATH}/namespaces/{NS}/workloads": [
            {"metadata": {"uid": "wl", "ownerReferences": owned("job")}, "status": {"conditions": [cond("Admitted")]}}
        ],
        f"/apis/autoscaling.x-k8s.io/v1/namespaces/{NS}/provisioningrequests": [
            {"metadata": {"uid": "pr", "ownerReferences": owned("wl")}, "status": {"conditions": [cond("Provisioned")]}}
        ],
        **{f"/api/v1/nodes/aks-scalepool-{i}": {"metadata": {"labels": {"agentpool": "scalepool"}}} for i in range(3)},
    }


def run(probes, objects, timeout=60.0) -> tuple[list[Condition], FakeClock]:
    clock = FakeClock()
    return run_probes(probes, FakeCluster(objects), timeout, clock=clock, sleep=clock.sleep, interval_seconds=10), clock


def test_the_local_stack_is_checked_without_a_provisioning_request_or_a_pool_it_never_asks_for():
    """No provisioning check on its queue and ``smokeJob.pool: null``: both probes would fail on kind for ever."""
    config = stack_config(PROJECT_ROOT / "stacks/Pulumi.local.yaml", smoke_job=False, stack="e2e-1")
    job = config.smoke_job
    names = [probe.name for probe in kueue_probes(config)]
    assert names == [
        f"ClusterQueue {config.queues.cluster_queues[0].name} Active",
        f"Job {job.namespace}/{job.name} complete 2/2",
        f"Workload of Job {job.namespace}/{job.name} admitted",
    ]


def test_a_healthy_kueue_cluster_passes_every_step_of_the_walkthrough():
    conditions, clock = run(kueue_probes(stack_config(AKS_STACK)), healthy_aks())
    assert [c.name for c in conditions] == KUEUE_NAMES
    assert all(c.ok for c in conditions), [c.line() for c in conditions if not c.ok]
    assert clock.sleeps == []
    assert conditions[0].line() == "ok      AdmissionCheck cas-provisioning Active"


def test_each_failed_condition_is_named_with_its_reason():
    objects = healthy_aks()
    objects[f"{KUEUE_API_PATH}/clusterqueues/cas-cluster-queue"] = {
        "status": {"conditions": [cond("Active", "False", "AdmissionCheckInactive", "check inactive")]}
    }
    provreqs = objects[f"/apis/autoscaling.x-k8s.io/v1/namespaces/{NS}/provisioningrequests"]
    provreqs[0]["status"]["conditions"] = [cond("Provisioned", "False", "CapacityIsNotFound")]
    conditions, _ = run(kueue_probes(stack_config(AKS_STACK)), objects)
    failed = [c.line() for c in conditions if not c.ok]
    assert failed == [
        "FAILED  ClusterQueue cas-cluster-queue Active: Active=False (AdmissionCheckInactive: check inactive)",
        f"FAILED  ProvisioningRequest of Job {NS}/{JOB} Provisioned: Provisioned=False (CapacityIsNotFound)",
    ]


def test_the_wait_is_bounded_by_the_timeout_and_reads_again_at_the_deadline():
    objects = healthy_aks()
    del objects[f"{KUEUE_API_PATH}/admissionchecks/cas-provisioning"]
    conditions, clock = run(kueue_probes(stack_config(AKS_STACK)), objects, timeout=45)
    assert clock.sleeps == [10, 10, 10, 10, 5]
    assert [c.line() for c in conditions if not c.ok] == [
        "FAILED  AdmissionCheck cas-provisioning Active: does not exist"
    ]


class FlakyCluster(FakeCluster):
    """Answers with an API error for the first ``failures`` reads, as a busy API server might."""

    def __init__(self, objects, failures: int) -> None:
        super().__init__(objects)
        self.failures = failures

    def get(self, path):
        if self.failures > 0:
            self.failures -= 1
            raise ConnectionError("connection reset")
        return super().get(path)


def test_an_api_error_is_retried_until_the_deadline_and_shown_if_it_persists():
    probes = kueue_probes(stack_config(AKS_STACK))[:1]
    clock = FakeClock()
    passed = run_probes(probes, FlakyCluster(healthy_aks(), 2), 60, clock=clock, sleep=clock.sleep)
    assert passed[0].ok and clock.sleeps == [10, 10]
    clock = FakeClock()
    stuck = run_probes(probes, FlakyCluster({}, 100), 20, clock=clock, sleep=clock.sleep)
    assert stuck[0].line() == "FAILED  AdmissionCheck cas-provisioning Active: ConnectionError: connection reset"


def test_a_missing_job_says_the_smoke_job_is_off_when_it_is():
    objects = healthy_aks()
    del objects[f"/apis/batch/v1/namespaces/{NS}/jobs/{JOB}"]
    conditions, _ = run(kueue_probes(stack_config(AKS_STACK, smoke_job=False)), objects, timeout=0)
    job = next(c for c in conditions if c.name == KUEUE_NAMES[2])
    assert not job.ok and "smokeJob.enabled is false" in job.detail


def test_pods_count_on_their_pool_even_after_the_autoscaler_removed_the_node():
    objects = healthy_aks()
    del objects["/api/v1/nodes/aks-scalepool-0"]
    objects["/api/v1/nodes/aks-scalepool-1"] = {"metadata": {"labels": {"agentpool": "nodepool1"}}}
    conditions, _ = run(kueue_probes(stack_config(AKS_STACK))[-1:], objects, timeout=0)
    assert conditions[0].detail == "on nodes not in pool scalepool: ['aks-scalepool-1']"


def acs_pod(name: str, node: str = "virtual-kubelet-cn-hangzhou-j", **changes: Any) -> dict[str, Any]:
    pod = {
        "metadata": {"name": name, "annotations": {INSTANCE_ID_ANNOTATION: "acs-2ze0"}},
        "spec": {"nodeName": node},
        "status": {"phase": "Running"},
    }
    pod.update(changes)
    return pod


VIRTUAL = {"metadata": {"labels": {"type": "virtual-kubelet"}}}
ECS = {"metadata": {"labels": {"kubernetes.io/hostname": "ecs"}}}


def acs_cluster(pods: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "/api/v1/namespaces/default/pods": pods,
        "/api/v1/nodes/virtual-kubelet-cn-hangzhou-j": VIRTUAL,
        "/api/v1/nodes/cn-hangzhou.10.1.0.5": ECS,
    }


def nginx_probe():
    plans = plan_checks(stack_config(ACK_STACK, smoke_job=False), {"ackKubeconfigs": {"acs-hangzhou": "kc"}})
    return next(p for p in plans if p.cluster == "ACK acs-hangzhou").probes[0]


def test_acs_pods_running_on_virtual_nodes_as_acs_instances_pass():
    conditions, _ = run([nginx_probe()], acs_cluster([acs_pod("nginx-a"), acs_pod("nginx-b")]))
    assert conditions[0].ok
    assert conditions[0].name == (
        f"ACS acs-hangzhou/default/nginx: 2 pod(s) Running on virtual nodes with {INSTANCE_ID_ANNOTATION}"
    )


@pytest.mark.parametrize(
    ("pods", "detail"),
    [
        ([acs_pod("nginx-a")], "1/2 pods exist"),
        ([acs_pod("nginx-a"), acs_pod("nginx-b", status={"phase": "Pending"})], "nginx-b is Pending"),
        (
            [acs_pod("nginx-a"), acs_pod("nginx-b", node="cn-hangzhou.10.1.0.5")],
            "nginx-b runs on cn-hangzhou.10.1.0.5, not a virtual node",
        ),
        (
            [acs_pod("nginx-a"), acs_pod("nginx-b", metadata={"name": "nginx-b"})],
            f"nginx-b has no {INSTANCE_ID_ANNOTATION} annotation (not an ACS instance)",
        ),
        (
            [
                acs_pod("nginx-a"),
                acs_pod("nginx-b", metadata={"name": "nginx-b", "annotations": {INSTANCE_ID_ANNOTATION: "eci-2ze0"}}),
            ],
            "nginx-b runs on instance 'eci-2ze0', not an ACS one (acs-...)",
        ),
    ],
)
def test_an_acs_pod_that_is_not_an_acs_instance_fails_naming_the_pod(pods, detail):
    conditions, _ = run([nginx_probe()], acs_cluster(pods), timeout=0)
    assert not conditions[0].ok and conditions[0].detail == detail


def test_the_ack_stack_checks_every_workload_on_its_own_cluster_and_no_kueue():
    plans = plan_checks(stack_config(ACK_STACK, smoke_job=False), {"ackKubeconfigs": {"acs-hangzhou": "kc"}})
    assert [(p.cluster, len(p.probes)) for p in plans] == [
        ("ACK acs-hangzhou", 3),
        ("ACK acs-beijing", 2),
        ("ACK acs-hpn", 1),
    ]
    assert [p.kubeconfig for p in plans] == ["kc", None, None]


def test_a_shared_cluster_stack_checks_its_acs_workload_in_its_own_namespace_on_the_existing_cluster():
    config = stack_config(SHARED_STACK, stack="pr-7")
    plans = plan_checks(config, {"kubeconfig": "kc", "ackKubeconfigs": {"acs-shared": "ack"}})
    [ack] = [p for p in plans if p.cluster == "ACK acs-shared"]
    namespace = f"acs-pr{config.environment.name_suffix}"
    assert ack.kubeconfig == "ack" and [p.name.split(":")[0] for p in ack.probes] == [f"ACS acs-shared/{namespace}/web"]
    objects = {f"/api/v1/namespaces/{namespace}/pods": [acs_pod("web-a")], **acs_cluster([])}
    conditions, _ = run(ack.probes, objects, timeout=0)
    assert conditions[0].ok, conditions[0].detail


def test_the_aks_stack_checks_kueue_with_its_kubeconfig_output():
    plans = plan_checks(stack_config(AKS_STACK), {"kubeconfig": "kc"})
    assert [(p.cluster, p.kubeconfig, [x.name for x in p.probes]) for p in plans] == [
        ("Kueue cluster", "kc", KUEUE_NAMES)
    ]


def test_a_cluster_without_kubeconfig_or_unreachable_fails_each_of_its_probes():
    probe = nginx_probe()
    plans = [
        ClusterChecks("ACK a", None, [probe], "output ackKubeconfigs has no entry 'a'"),
        ClusterChecks("ACK b", "not yaml", [probe]),
    ]

    def connect(kubeconfig: str):
        raise ValueError("invalid kubeconfig")

    conditions = check_all(plans, connect, 0)
    assert [c.detail for c in conditions] == [
        "ACK a: output ackKubeconfigs has no entry 'a'",
        "ACK b: cannot load its kubeconfig (ValueError: invalid kubeconfig)",
    ]


def test_a_stack_without_clusters_fails_the_check():
    assert [c.ok for c in check_all([], lambda _: FakeCluster({}), 0)] == [False]


# --- the MultiKueue burst set-up ------------------------------------------------------------------------------------

BURST_STACK = ACK_STACK.parent / "Pulumi.burst.yaml"
WORKERS = ("burst-hangzhou", "burst-beijing")
BURST_JOB = "/apis/batch/v1/namespaces/burst/jobs/burst-smoke"
BURST_WORKLOADS = f"{KUEUE_API_PATH}/namespaces/burst/workloads"
BURST_PODS = "/api/v1/namespaces/burst/pods"
BURST_NAMES = [
    *(f"MultiKueueCluster elastic-capacity-{worker} Active" for worker in WORKERS),
    "AdmissionCheck multikueue-burst Active",
    "ClusterQueue burst Active",
    "Burst Job burst/burst-smoke admitted on the manager (QuotaReserved, Admitted)",
    "Copy of burst Job burst/burst-smoke admitted on one worker",
    f"Pods of burst Job burst/burst-smoke ran on ACS ({INSTANCE_ID_ANNOTATION})",
    "Burst Job burst/burst-smoke status synced back to the manager (Complete)",
    "Remote objects of burst Job burst/burst-smoke cleaned up on every worker",
]
OUTPUTS = {"kubeconfig": "manager", "ackKubeconfigs": {worker: worker for worker in WORKERS}}


def burst_config(*, smoke_job: bool = True) -> StackConfig:
    _, values, secret_keys = render.read_stack_file(BURST_STACK)
    section = json.loads(values["elastic-capacity:multiKueue"])
    values["elastic-capacity:multiKueue"] = json.dumps({**section, "smokeJob": {"enabled": smoke_job}})
    return load_stack_config(values, secret_keys)


def burst_plan(config: StackConfig) -> ClusterChecks:
    return next(p for p in plan_checks(config, OUTPUTS) if p.cluster == "MultiKueue manager")


class Manager(FakeCluster):
    """The manager as the runner sees it: it may create the burst Job (and gives it a uid, as the API server does)."""

    def create(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        created = {**body, "metadata": {**body["metadata"], "uid": "job"}}
        self.objects[f"{path}/{body['metadata']['name']}"] = created
        return created

    def delete(self, path: str) -> None:
        self.objects.pop(path)


def connected_manager() -> Manager:
    active = {"status": {"conditions": [cond("Active")]}}
    paths = [f"{KUEUE_API_PATH}/multikueueclusters/elastic-capacity-{worker}" for worker in WORKERS]
    paths += [f"{KUEUE_API_PATH}/admissionchecks/multikueue-burst", f"{KUEUE_API_PATH}/clusterqueues/burst"]
    return Manager({**{path: active for path in paths}, BURST_WORKLOADS: []})


def test_the_burst_stack_checks_every_worker_connected_and_the_opted_in_jobs_way_there_and_back():
    plan = burst_plan(burst_config())
    assert [p.name for p in plan.probes] == BURST_NAMES
    assert (plan.kubeconfig, plan.workers, plan.submit is not None) == ("manager", OUTPUTS["ackKubeconfigs"], True)
    without = burst_plan(burst_config(smoke_job=False))
    assert [p.name for p in without.probes] == BURST_NAMES[:4] and without.submit is None


def test_the_runner_submits_the_burst_job_and_follows_it_to_a_worker_and_back():
    """Kueue's part is played between two reads: the copy runs on hz, then the Job is back and the copy gone."""
    manager, hangzhou, beijing = connected_manager(), FakeCluster({BURST_PODS: []}), FakeCluster({BURST_PODS: []})
    running = {"metadata": {"uid": "job"}, "spec": {"managedBy": "kueue.x-k8s.io/multikueue"}, "status": {}}
    workload = {"metadata": {"name": "job-burst-smoke-1", "ownerReferences": [{"uid": "job"}]}}
    admitted = {**workload, "status": {"conditions": [cond("QuotaReserved"), cond("Admitted")]}}
    pod = {"metadata": {"name": "burst-smoke-a", "annotations": {INSTANCE_ID_ANNOTATION: "acs-1"}}}

    def copy_runs_on_hangzhou() -> None:
        submitted = manager.objects[BURST_JOB]
        assert submitted["metadata"]["labels"] == {"kueue.x-k8s.io/queue-name": "burst"}, "the runner submitted it"
        manager.objects.update({BURST_JOB: running, BURST_WORKLOADS: [admitted]})
        running_pod = pod | {"status": {"phase": "Running"}}
        copies = {f"{BURST_WORKLOADS}/job-burst-smoke-1": admitted, BURST_JOB: {}, BURST_PODS: [running_pod]}
        hangzhou.objects.update(copies)

    def job_is_back_and_the_copies_gone() -> None:
        manager.objects.update({BURST_JOB: {**running, "status": {"conditions": [cond("Complete")]}}})
        hangzhou.objects.clear()
        hangzhou.objects.update({BURST_PODS: []})

    timeline = [copy_runs_on_hangzhou, job_is_back_and_the_copies_gone]
    clock = FakeClock()

    def sleep(seconds: float) -> None:
        clock.sleep(seconds)
        timeline.pop(0)()

    clusters = {"manager": manager, "burst-hangzhou": hangzhou, "burst-beijing": beijing}
    conditions = check_all([burst_plan(burst_config())], clusters.__getitem__, 60, clock=clock, sleep=sleep)
    assert [c.name for c in conditions] == BURST_NAMES
    assert [c.line() for c in conditions if not c.ok] == []
    assert manager.objects[BURST_JOB] == running | {"status": {"conditions": [cond("Complete")]}}
    assert clock.sleeps == [10, 10] and timeline == []


def test_each_burst_condition_is_reported_by_name_with_its_reason_when_it_fails():
    manager = connected_manager()
    manager.objects[f"{KUEUE_API_PATH}/multikueueclusters/elastic-capacity-burst-beijing"] = {
        "status": {"conditions": [cond("Active", "False", "ClientConnectionFailed", "i/o timeout")]}
    }
    clusters = {"manager": manager, "burst-hangzhou": FakeCluster({BURST_PODS: []})}
    outputs = {**OUTPUTS, "ackKubeconfigs": {"burst-hangzhou": "burst-hangzhou"}}
    [plan] = [p for p in plan_checks(burst_config(), outputs) if p.cluster == "MultiKueue manager"]
    conditions = check_all([plan], clusters.__getitem__, 0)
    failed = {c.name: c.detail for c in conditions if not c.ok}
    assert list(failed) == BURST_NAMES[1:2] + BURST_NAMES[4:]
    assert failed[BURST_NAMES[1]].startswith("Active=False (ClientConnectionFailed: i/o timeout); the manager could")
    assert failed[BURST_NAMES[4]] == "LookupError: Kueue created no Workload for the Job on the manager"
    assert conditions[4].line().startswith(f"FAILED  {BURST_NAMES[4]}: ")


def test_a_manager_the_runner_cannot_write_to_fails_every_burst_condition_saying_so():
    clusters = {"manager": FakeCluster({}), **{worker: FakeCluster({}) for worker in WORKERS}}
    conditions = check_all([burst_plan(burst_config())], clusters.__getitem__, 0)
    assert {c.detail for c in conditions} == {
        "MultiKueue manager: cannot submit the burst smoke Job (TypeError: the runner's client cannot create objects)"
    }


def test_the_runner_reads_and_writes_through_the_real_client_by_default():
    from tools import ephemeral
    from tools.ephemeral_burst import RestWriter

    assert inspect.signature(ephemeral.main).parameters["connect"].default is RestWriter
