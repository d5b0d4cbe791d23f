"""The smoke Job: the seed's manifest, how it is registered, and the waiter that explains a Job that never completes."""

from __future__ import annotations

import pulumi
import pulumi_kubernetes as kubernetes
import pytest
import yaml

from components import job_wait
from components.config.kueue import SmokeJobConfig
from components.job_wait import (
    JobCompletionProvider,
    JobIncompleteError,
    JobObservation,
    JobObserver,
    diagnose,
    wait_for_job,
)
from components.manifests.jobs import smoke_job
from components.smoke_job import SmokeJob
from tests.schemas import validate_core
from tools.mock_runtime import FAKE_KUBECONFIG

SEED_JOB = """
apiVersion: batch/v1
kind: Job
metadata:
  name: kueue-cas-job
  namespace: cas-kueue-demo
  labels:
    kueue.x-k8s.io/queue-name: cas-local-queue
spec:
  parallelism: 3
  completions: 3
  suspend: true
  template:
    spec:
      nodeSelector:
        agentpool: scalepool
      containers:
        - name: worker
          image: mcr.microsoft.com/azurelinux/busybox:1.36
          command: ["sh", "-c", "echo running on $(hostname); sleep 30"]
          resources:
            requests:
              cpu: "1800m"
              memory: "256Mi"
      restartPolicy: Never
"""
"""The seed's job.yaml (reference aks-kueue.md §1.3)."""

NS, NAME = "cas-kueue-demo", "kueue-cas-job"
WAITER = "pulumi-python:dynamic/kueue:JobCompletion"


def cond(type_: str, status: str = "True", reason: str = "", message: str = "") -> dict:
    return {"type": type_, "status": status, "reason": reason, "message": message}


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


def explain(job_status, workload=None, provreq=None) -> str:
    return diagnose(job_status, workload, provreq, namespace=NS, name=NAME)


# --- the manifest -----------------------------------------------------------------------------------------------


def test_manifest_is_the_seed_job_plus_the_skip_await_annotation():
    manifest = smoke_job(SmokeJobConfig())
    expected = yaml.safe_load(SEED_JOB)
    expected["metadata"]["annotations"] = {"pulumi.com/skipAwait": "true"}
    assert manifest == expected
    validate_core(manifest, "1.33")


def test_manifest_follows_the_config():
    config = SmokeJobConfig(
        name="gpu-smoke",
        namespace="team-a",
        local_queue="team-a-queue",
        pool="gpupool",
        image="mcr.azk8s.cn/azurelinux/busybox:1.36",
    )
    manifest = smoke_job(config)
    assert manifest["metadata"]["labels"] == {"kueue.x-k8s.io/queue-name": "team-a-queue"}
    assert (manifest["metadata"]["name"], manifest["metadata"]["namespace"]) == ("gpu-smoke", "team-a")
    pod = manifest["spec"]["template"]["spec"]
    assert pod["nodeSelector"] == {"agentpool": "gpupool"}
    assert pod["containers"][0]["image"] == "mcr.azk8s.cn/azurelinux/busybox:1.36"


# --- registration -----------------------------------------------------------------------------------------------


@pytest.fixture
def registered(run_program):
    def program() -> None:
        provider = kubernetes.Provider("cluster", kubeconfig=pulumi.Output.secret("kubeconfig"))
        queues = kubernetes.core.v1.Namespace(
            "queues", metadata={"name": NS}, opts=pulumi.ResourceOptions(provider=provider)
        )
        SmokeJob(
            "smoke-job",
            SmokeJobConfig(enabled=True, timeout_seconds=900),
            kubeconfig=pulumi.Output.secret("apiVersion: v1\nkind: Config\n"),
            opts=pulumi.ResourceOptions(provider=provider, depends_on=[queues]),
        )

    return run_program(program)


def test_job_is_registered_from_the_manifest_ignoring_kueue_owned_suspend(registered):
    job = registered.one("kubernetes:batch/v1:Job", "smoke-job-job")
    assert job.inputs == smoke_job(SmokeJobConfig(enabled=True, timeout_seconds=900))
    assert job.inputs["metadata"]["annotations"]["pulumi.com/skipAwait"] == "true"
    assert job.ignore_changes == ("spec.suspend",)
    assert registered.provider_of(job).name == "cluster"
    assert registered.depends_on(job, registered.one("kubernetes:core/v1:Namespace", "queues"))


def test_waiter_watches_the_job_with_a_secret_kubeconfig(registered):
    waiter = registered.one(WAITER, "smoke-job-completion")
    job = registered.one("kubernetes:batch/v1:Job", "smoke-job-job")
    assert waiter.is_secret("kubeconfig")
    assert waiter.redacted_inputs["kubeconfig"] == "[secret]"
    assert (waiter.inputs["jobNamespace"], waiter.inputs["jobName"]) == (NS, NAME)
    assert waiter.inputs["timeoutSeconds"] == 900
    assert job.urn in waiter.dependencies
    assert registered.one("elastic-capacity:kueue:SmokeJob").urn == waiter.parent


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
    assert "3 active, 0 succeeded, 2 failed" in message
    assert f"kubectl -n {NS} get pods -l job-name={NAME}" in message


def test_suspended_without_workload_points_at_the_queue_label_and_namespace_selector():
    message = explain(SUSPENDED)
    assert "still suspended" in message and "no Workload" in message
    assert f"kubectl -n {NS} get localqueue" in message
    assert "managedJobsNamespaceSelector" in message


def test_suspended_without_quota_or_provisioning_request_points_at_an_inactive_admission_check():
    message = explain(
        SUSPENDED, [cond("QuotaReserved", "False", "Pending", "ClusterQueue cas-cluster-queue is inactive")]
    )
    assert "no quota reserved (Pending: ClusterQueue cas-cluster-queue is inactive)" in message
    assert "AdmissionCheckInactive" in message
    assert "Azure/AKS/issues/5492" in message
    assert "kubectl get crd provisioningrequests.autoscaling.x-k8s.io" in message


def test_suspended_with_quota_but_no_provisioning_request_blames_the_missing_crd():
    message = explain(SUSPENDED, RESERVED)
    assert "created no ProvisioningRequest" in message
    assert "Azure/AKS/issues/5492" in message
    assert "kubectl get admissioncheck" in message
    assert "kubectl get crd provisioningrequests.autoscaling.x-k8s.io" in message


def test_provisioning_request_without_conditions_blames_the_managed_autoscaler():
    message = explain(SUSPENDED, RESERVED, [])
    assert "no conditions" in message
    assert "Azure/AKS/issues/5492" in message
    assert f"kubectl -n {NS} get provisioningrequest" in message
    assert "status.conditions" in message
    assert "kubectl get crd provisioningrequests.autoscaling.x-k8s.io" in message


def test_capacity_not_found_points_at_max_count_and_quota():
    provreq = [cond("Accepted"), cond("Provisioned", "False", "CapacityIsNotFound", "max node group size reached")]
    message = explain(SUSPENDED, RESERVED, provreq)
    assert "could not provision capacity (CapacityIsNotFound: max node group size reached)" in message
    assert "maxCount" in message
    assert f"kubectl -n {NS} get provisioningrequest" in message


def test_failed_provisioning_request_is_named():
    message = explain(SUSPENDED, RESERVED, [cond("Accepted"), cond("Failed", reason="ProvisioningFailed")])
    assert "ProvisioningRequest failed (ProvisioningFailed)" in message


def test_provisioned_but_not_admitted_says_nodes_may_not_be_ready():
    message = explain(SUSPENDED, RESERVED, [cond("Accepted"), cond("Provisioned")])
    assert "Capacity was provisioned" in message and "Ready" in message


def test_accepted_but_not_provisioned_suggests_a_longer_timeout():
    message = explain(SUSPENDED, RESERVED, [cond("Accepted")])
    assert "accepted its ProvisioningRequest but has not provisioned" in message
    assert "smokeJob.timeoutSeconds" in message


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


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def observation(job_status, workload=None, provreq=None) -> JobObservation:
    return JobObservation(job_status, workload, provreq)


def test_wait_returns_once_the_job_completes():
    clock = FakeClock()
    observer = ScriptedObserver(
        observation(SUSPENDED), observation(RUNNING, RESERVED, [cond("Provisioned")]), observation(COMPLETE)
    )
    done = wait_for_job(observer, NS, NAME, 600, clock=clock, sleep=clock.sleep, interval_seconds=10)
    assert done.job_status == COMPLETE
    assert observer.calls == 3
    assert clock.sleeps == [10, 10]


def test_wait_fails_at_once_with_the_diagnosis_when_the_job_fails():
    clock = FakeClock()
    with pytest.raises(JobIncompleteError, match="BackoffLimitExceeded") as caught:
        wait_for_job(ScriptedObserver(observation(FAILED)), NS, NAME, 600, clock=clock, sleep=clock.sleep)
    assert clock.sleeps == []
    assert "Waited" not in str(caught.value)


def test_wait_times_out_with_the_diagnosis_of_the_last_observation():
    clock = FakeClock()
    observer = ScriptedObserver(
        observation(SUSPENDED, RESERVED, [cond("Accepted")]), observation(SUSPENDED, RESERVED, [])
    )
    with pytest.raises(JobIncompleteError) as caught:
        wait_for_job(observer, NS, NAME, 25, clock=clock, sleep=clock.sleep, interval_seconds=10)
    message = str(caught.value)
    assert message.startswith("Waited 25s. ")
    assert "no conditions" in message and "Azure/AKS/issues/5492" in message
    assert clock.sleeps == [10, 10, 5], "never sleeps past the deadline"
    assert observer.calls == 4


# --- reading the cluster ----------------------------------------------------------------------------------------


class NotFoundError(Exception):
    status = 404


def owned(kind_uid: str, name: str, created: str, conditions=None) -> dict:
    return {
        "metadata": {
            "name": name,
            "uid": f"uid-{name}",
            "creationTimestamp": created,
            "ownerReferences": [{"uid": kind_uid}],
        },
        "status": {"conditions": conditions} if conditions is not None else {},
    }


class FakeCustomObjects:
    def __init__(self, objects: dict[str, list[dict] | Exception]) -> None:
        self.objects = objects

    def get_namespaced_custom_object(self, group, version, namespace, plural, name):
        assert (group, version, plural) == ("batch", "v1", "jobs")
        return {"metadata": {"name": name, "namespace": namespace, "uid": "job-uid"}, "status": SUSPENDED}

    def list_namespaced_custom_object(self, group, version, namespace, plural):
        found = self.objects[f"{group}/{version}/{plural}"]
        if isinstance(found, Exception):
            raise found
        return {"items": found}


def test_observer_follows_owner_references_to_the_newest_provisioning_request():
    api = FakeCustomObjects(
        {
            "kueue.x-k8s.io/v1beta2/workloads": [
                owned("other-job", "other-wl", "2026-01-01T00:00:00Z", [cond("Admitted")]),
                owned("job-uid", "wl", "2026-01-01T00:00:01Z", RESERVED),
            ],
            "autoscaling.x-k8s.io/v1/provisioningrequests": [
                owned("uid-wl", "wl-cas-provisioning-1", "2026-01-01T00:00:02Z", [cond("Failed")]),
                owned("uid-wl", "wl-cas-provisioning-2", "2026-01-01T00:05:00Z", []),
                owned("uid-other-wl", "other-wl-cas-provisioning-1", "2026-01-01T00:09:00Z", [cond("Provisioned")]),
            ],
        }
    )
    seen = JobObserver(api).observe(NS, NAME)
    assert seen == JobObservation(SUSPENDED, RESERVED, [])


def test_observer_treats_a_missing_provisioning_request_crd_as_no_request():
    api = FakeCustomObjects(
        {
            "kueue.x-k8s.io/v1beta2/workloads": [owned("job-uid", "wl", "2026-01-01T00:00:01Z", RESERVED)],
            "autoscaling.x-k8s.io/v1/provisioningrequests": NotFoundError(),
        }
    )
    assert JobObserver(api).observe(NS, NAME).provreq_conditions is None


def test_observer_lets_other_api_errors_through():
    class ForbiddenError(Exception):
        status = 403

    api = FakeCustomObjects({"kueue.x-k8s.io/v1beta2/workloads": ForbiddenError()})
    with pytest.raises(ForbiddenError):
        JobObserver(api).observe(NS, NAME)


def test_observer_reads_the_cluster_the_kubeconfig_names():
    observer = JobObserver.from_kubeconfig(FAKE_KUBECONFIG)
    api_client = observer._api.api_client  # type: ignore[attr-defined]
    assert api_client.configuration.host == "https://mock.invalid:443"


# --- the dynamic provider ---------------------------------------------------------------------------------------

PROPS = {"jobNamespace": NS, "jobName": NAME, "jobUid": "job-uid", "timeoutSeconds": 900.0, "kubeconfig": "kc"}


def test_create_waits_for_the_job_and_keeps_the_kubeconfig_out_of_the_outputs(monkeypatch):
    kubeconfigs = []

    def observer_for(kubeconfig: str) -> ScriptedObserver:
        kubeconfigs.append(kubeconfig)
        return ScriptedObserver(observation(COMPLETE))

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
