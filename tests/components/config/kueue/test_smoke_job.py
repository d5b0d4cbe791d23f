"""The ``smokeJob`` section: the article's Job as defaults, and every rule with its key."""

from __future__ import annotations

import pytest

from components.config.kueue.smoke_job import SmokeJobConfig
from tests.support.config import error_keys_on_existing_cluster as error_keys
from tests.support.config import load_on_existing_cluster as load


def test_defaults_reproduce_the_article_job_and_stay_off():
    """The article's Job, submitted to the stack's only LocalQueue (here the walkthrough preset's); no pool on a
    cluster the stack does not build."""
    job = load(queues={"preset": "aks-walkthrough"}).smoke_job
    assert not job.enabled
    assert (job.name, job.namespace, job.local_queue, job.pool) == (
        "kueue-cas-job",
        "cas-kueue-demo",
        "cas-local-queue",
        None,
    )
    assert (job.parallelism, job.completions, job.cpu, job.memory) == (3, 3, "1800m", "256Mi")
    assert job.image == "mcr.microsoft.com/azurelinux/busybox:1.36"
    assert job.command == ["sh", "-c", "echo running on $(hostname); sleep 30"]
    assert job.restart_policy == "Never"


def test_the_azure_china_mirror_image_is_accepted():
    job = SmokeJobConfig.model_validate({"image": "mcr.azk8s.cn/azurelinux/busybox:1.36"})
    assert job.image == "mcr.azk8s.cn/azurelinux/busybox:1.36"


@pytest.mark.parametrize(
    ("smoke_job", "key"),
    [
        ({"parallelism": 4}, "parallelism"),
        ({"cpu": "fast"}, "cpu"),
        ({"memory": "-1Gi"}, "memory"),
        ({"image": "busybox"}, "image"),
        ({"command": []}, "command"),
        ({"restartPolicy": "Always"}, "restartPolicy"),
        ({"timeoutSeconds": 5}, "timeoutSeconds"),
        ({"localQueue": "Cas_Queue"}, "localQueue"),
    ],
)
def test_rules(smoke_job, key):
    assert error_keys(smokeJob=smoke_job) == [f"elastic-capacity:smokeJob.{key}"]


def test_fewer_pods_may_run_at_once_than_it_completes():
    assert load(smokeJob={"parallelism": 1, "completions": 3}).smoke_job.parallelism == 1


def test_its_only_source_is_the_image_under_its_own_key():
    [source] = SmokeJobConfig(image="mcr.azk8s.cn/azurelinux/busybox:1.36").sources()
    assert (source.key, source.reference, source.default) == (
        "image",
        "mcr.azk8s.cn/azurelinux/busybox:1.36",
        "mcr.microsoft.com/azurelinux/busybox:1.36",
    )


def test_named_with_moves_the_job_into_the_suffixed_namespace_and_queue():
    targeted = SmokeJobConfig(enabled=True, namespace="cas-kueue-demo", local_queue="cas-local-queue", pool="scalepool")
    job = targeted.named_with("-pr7")
    assert (job.name, job.namespace, job.local_queue) == ("kueue-cas-job", "cas-kueue-demo-pr7", "cas-local-queue-pr7")
    assert job.pool == "scalepool"
    assert targeted.named_with("") == targeted


def test_an_unset_queue_or_pool_is_the_stacks_only_one_and_an_ambiguous_one_is_refused_naming_the_candidates():
    queues = [("a", "q"), ("b", "q")]
    job = SmokeJobConfig(enabled=True, namespace="b").targeting(queues, ["pool1"])
    assert (job.namespace, job.local_queue, job.pool) == ("b", "q", "pool1")
    with pytest.raises(ValueError, match=r"smokeJob.localQueue: it is not set; .* one of \['a/q', 'b/q'\]"):
        SmokeJobConfig(enabled=True).targeting(queues, None)
    with pytest.raises(ValueError, match=r"smokeJob.pool: it is not set; .*\['p1', 'p2'\]"):
        SmokeJobConfig(enabled=True, namespace="a").targeting(queues, ["p1", "p2"])
