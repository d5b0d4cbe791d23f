"""stacks/Pulumi.local.yaml, rendered offline: an existing cluster by kubeconfig, no cloud, Kueue from its chart,
queues without the ProvisioningRequest gate, the smoke Job on, sized for one GitHub runner."""

from __future__ import annotations

from typing import Any

import pytest

from components.config.feasibility import GIB
from components.config.kube import quantity_value
from components.config.kueue.kueue import LATEST_CHART_VERSION as LATEST
from tests.support import PROJECT_ROOT
from tests.support.schemas import validate_core, validate_kueue
from tests.support.stacks import of_type, rendered
from tools import render

LOCAL_STACK = PROJECT_ROOT / "stacks/Pulumi.local.yaml"
CLOUD_FREE_TYPES = ("kubernetes:", "pulumi:providers:kubernetes", "elastic-capacity:", "pulumi-python:dynamic")


@pytest.fixture(scope="module")
def local() -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    return rendered(LOCAL_STACK)


def test_the_local_stack_renders_without_its_kubeconfig_and_says_it_used_a_stand_in(tmp_path, capsys):
    assert render.main([str(LOCAL_STACK), "--out", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("note: elastic-capacity:kubeconfig is not in the file") and "stand-in" in out.splitlines()[0]
    assert "elastic-capacity:kubeconfig" not in LOCAL_STACK.read_text().split("\nconfig:")[1]


def test_the_local_stack_creates_nothing_in_any_cloud_and_reaches_its_cluster_by_the_secret_kubeconfig(local):
    plan, _ = local
    assert all(r["type"].startswith(CLOUD_FREE_TYPES) for r in plan["resources"]), [
        r["type"] for r in plan["resources"]
    ]
    (provider,) = of_type(plan, "pulumi:providers:kubernetes")
    assert provider["inputs"]["kubeconfig"] == "[secret]"
    assert plan["outputs"]["kubeconfig"] == "[secret]"


def test_the_local_stack_installs_the_default_kueue_chart_behind_its_gate_and_waits_for_queues_and_job(local):
    plan, _ = local
    (chart,) = of_type(plan, "kubernetes:helm.sh/v4:Chart")
    assert (chart["inputs"]["chart"], chart["inputs"]["version"]) == (
        "oci://registry.k8s.io/kueue/charts/kueue",
        LATEST,
    )
    assert chart["inputs"]["values"]["controllerManager"]["nodeSelector"] == {}, "no AKS system-pool label on kind"
    jobs = {r["inputs"]["metadata"]["name"] for r in of_type(plan, "kubernetes:batch/v1:Job")}
    assert any(name.startswith("kueue-ready-") for name in jobs) and "kueue-cas-job" in jobs
    assert of_type(plan, "pulumi-python:dynamic/kueue:QueuesActive")
    assert of_type(plan, "pulumi-python:dynamic/kueue:JobCompletion")


def test_the_local_queues_gate_nothing_on_an_autoscaler_and_fit_a_github_runner(local):
    _, manifests = local
    kinds = sorted(m["kind"] for m in manifests.values())
    assert "AdmissionCheck" not in kinds and "ProvisioningRequestConfig" not in kinds
    (queue,) = [m for m in manifests.values() if m["kind"] == "ClusterQueue"]
    assert "admissionChecksStrategy" not in queue["spec"] and "admissionChecks" not in queue["spec"]
    quota = {r["name"]: r["nominalQuota"] for r in queue["spec"]["resourceGroups"][0]["flavors"][0]["resources"]}
    assert 2 <= quantity_value(quota["cpu"]) <= 4 and 7 * GIB <= quantity_value(quota["memory"]) <= 16 * GIB
    (flavor,) = [m for m in manifests.values() if m["kind"] == "ResourceFlavor"]
    assert "nodeLabels" not in flavor.get("spec", {})
    (job,) = [m for m in manifests.values() if m["kind"] == "Job" and m["metadata"]["name"] == "kueue-cas-job"]
    pod = job["spec"]["template"]["spec"]
    assert "nodeSelector" not in pod, "smokeJob.pool: null: a kind, minikube or k3d node has no AKS pool label"
    requests = pod["containers"][0]["resources"]["requests"]
    assert quantity_value(requests["cpu"]) * job["spec"]["parallelism"] <= quantity_value(quota["cpu"])
    for obj in manifests.values():
        validate_kueue(obj) if obj["apiVersion"].startswith("kueue.x-k8s.io/") else validate_core(obj, "1.33")


def test_the_local_stacks_comment_walks_a_newcomer_through_kind():
    comment = LOCAL_STACK.read_text().split("\nconfig:")[0]
    steps = [
        "kind create cluster",
        "export PULUMI_CONFIG_PASSPHRASE_FILE=",
        "pulumi login --local",
        "pulumi stack select dev-$USER --create",
        "kind get kubeconfig --name kueue-local | pulumi config set --secret elastic-capacity:kubeconfig",
        "pulumi up",
    ]
    positions = [comment.index(step) for step in steps]
    assert positions == sorted(positions)
    assert "stack select local " not in comment, "the template's own stack writes its salt into this tracked file"
