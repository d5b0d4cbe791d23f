"""The smoke Job: the seed's manifest and how it is registered; its waiter is tested in test_job_wait."""

from __future__ import annotations

import pulumi
import pulumi_kubernetes as kubernetes
import pytest
import yaml
from pulumi.dynamic.dynamic import serialize_provider

from components.config.kueue import SmokeJobConfig
from components.job_wait import JobCompletionProvider
from components.manifests.jobs import smoke_job
from components.smoke_job import SmokeJob
from tests.support.schemas import validate_core

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
"""The seed's job.yaml."""

NS, NAME = "cas-kueue-demo", "kueue-cas-job"
WAITER = "pulumi-python:dynamic/kueue:JobCompletion"


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
    assert job.replace_on_changes == ("*",), "an in-place apply would send suspend: true again"
    assert job.delete_before_replace, "the replacement reuses the Job's name"
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


def test_waiter_ships_its_provider_by_value(registered):
    waiter = registered.one(WAITER, "smoke-job-completion")
    assert waiter.inputs["__provider"] == serialize_provider(JobCompletionProvider())
