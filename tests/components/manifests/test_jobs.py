"""The Job builders: the article's smoke Job field for field, following the config, valid for the API server."""

from __future__ import annotations

from components import yaml_text
from components.config.kueue.smoke_job import SmokeJobConfig
from components.manifests.jobs import smoke_job
from tests.support.config import ARTICLE_SMOKE_TARGET
from tests.support.schemas import validate_core

ARTICLE_JOB = """
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
"""The Job of Azure's article (https://learn.microsoft.com/en-us/azure/aks/configure-kueue-with-cluster-autoscaler)."""


def test_manifest_is_the_article_job_plus_the_skip_await_annotation():
    manifest = smoke_job(SmokeJobConfig(**ARTICLE_SMOKE_TARGET))
    expected = yaml_text.load(ARTICLE_JOB)
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


def test_extended_resources_are_requested_and_limited_alike():
    container = smoke_job(SmokeJobConfig(pool="gpu", extended_resources={"nvidia.com/gpu": "1"}))["spec"]["template"][
        "spec"
    ]["containers"][0]
    assert container["resources"] == {
        "requests": {"cpu": "1800m", "memory": "256Mi", "nvidia.com/gpu": "1"},
        "limits": {"nvidia.com/gpu": "1"},
    }
