"""The SmokeJob component: the Job as the builder makes it, registered so Kueue can own ``suspend``, and its waiter.

The manifest is tested in tests/components/manifests/test_jobs.py, the waiter's logic in test_job_wait.py.
"""

from __future__ import annotations

import pulumi
import pulumi_kubernetes as kubernetes
import pytest
from pulumi.dynamic.dynamic import serialize_provider

from components.config.kueue.smoke_job import SmokeJobConfig
from components.kueue.smoke_job import SmokeJob
from components.manifests.jobs import FLUX_FORCE, smoke_job
from components.manifests.labels import QUEUE_NAME_LABEL
from components.waiters.job_wait import JobCompletionProvider
from tests.support.config import ARTICLE_SMOKE_TARGET
from tests.support.targets import live_target, rendering_target
from tools import mock_runtime
from tools.recording import REDACTED, Recording

CONFIG = SmokeJobConfig(enabled=True, timeout_seconds=900, **ARTICLE_SMOKE_TARGET)
JOB = "kubernetes:batch/v1:Job"
WAITER = "pulumi-python:dynamic/kueue:JobCompletion"


@pytest.fixture(scope="module")
def registered() -> Recording:
    def program() -> None:
        provider = kubernetes.Provider("cluster", kubeconfig=pulumi.Output.secret("kubeconfig"))
        queues = kubernetes.core.v1.Namespace(
            "queues", metadata={"name": CONFIG.namespace}, opts=pulumi.ResourceOptions(provider=provider)
        )
        SmokeJob(
            "smoke-job",
            CONFIG,
            live_target(provider),
            opts=pulumi.ResourceOptions(depends_on=[queues]),
        )

    return mock_runtime.run(program, {})


def test_job_is_registered_from_the_manifest(registered):
    job = registered.one(JOB, "smoke-job-job")
    assert job.inputs == smoke_job(CONFIG)
    assert job.parent == registered.one("elastic-capacity:kueue:SmokeJob", "smoke-job").urn


def test_kueue_owns_suspend_and_any_other_change_replaces_the_job(registered):
    job = registered.one(JOB, "smoke-job-job")
    assert job.ignore_changes == ("spec.suspend",)
    assert job.replace_on_changes == ("*",), "an in-place apply would send suspend: true again"
    assert job.delete_before_replace, "the replacement reuses the Job's name"


def test_job_runs_on_the_callers_cluster_after_what_the_caller_orders(registered):
    job = registered.one(JOB, "smoke-job-job")
    assert registered.provider_of(job).name == "cluster"
    assert registered.depends_on(job, registered.one("kubernetes:core/v1:Namespace", "queues"))


def test_waiter_watches_this_job_with_a_secret_kubeconfig(registered):
    waiter = registered.one(WAITER, "smoke-job-completion")
    job = registered.one(JOB, "smoke-job-job")
    assert waiter.is_secret("kubeconfig")
    assert waiter.redacted_inputs["kubeconfig"] == REDACTED
    assert (waiter.inputs["jobNamespace"], waiter.inputs["jobName"]) == (CONFIG.namespace, CONFIG.name)
    assert waiter.inputs["timeoutSeconds"] == 900
    assert job.urn in waiter.dependencies
    assert waiter.parent == registered.one("elastic-capacity:kueue:SmokeJob").urn


def test_waiter_ships_its_provider_by_value(registered):
    waiter = registered.one(WAITER, "smoke-job-completion")
    assert waiter.inputs["__provider"] == serialize_provider(JobCompletionProvider())


class Cluster(pulumi.ComponentResource):
    def __init__(self) -> None:
        super().__init__("test:index:Cluster", "cluster")


def test_a_rendered_job_leaves_suspend_to_kueues_webhook_so_no_gitops_controller_fights_kueue_over_it():
    """Argo CD and Flux re-apply the file on every sync: with ``suspend: true`` in it, Argo CD would show the admitted
    Job OutOfSync for good and Flux would suspend it again. Its queue-name label is what has Kueue's webhook suspend
    it on create instead, and Flux re-creates it when its spec changes, as ``pulumi up`` replaces it."""
    recording = mock_runtime.run(lambda: SmokeJob("smoke-job", CONFIG, rendering_target(Cluster())), {})
    job = recording.one(JOB, "smoke-job-job")
    assert "suspend" not in job.inputs["spec"]
    assert job.inputs["metadata"]["labels"] == {QUEUE_NAME_LABEL: CONFIG.local_queue}
    assert job.inputs["metadata"]["annotations"][FLUX_FORCE] == "Enabled"
    assert {**job.inputs["spec"], "suspend": True} == smoke_job(CONFIG)["spec"], "the live Job's spec otherwise"
    assert not recording.by_type(WAITER)
