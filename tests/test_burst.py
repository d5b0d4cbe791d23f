"""The shipped ``burst`` stack, rendered offline: an AKS manager with its provisioning-gated queue and the MultiKueue
burst queue, two ACK workers in two regions, every Kueue object valid for Kueue's CRDs, every credential a secret. Each
rule the set-up needs is a one-mistake copy of this stack in tests/cases/invalid/ (Pulumi.burst-*.yaml)."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from components.config.multikueue.multikueue import MULTIKUEUE_CONTROLLER
from components.config.multikueue.workers import MAINLAND_CHINA_GATE_SECONDS
from tests.support import PROJECT_ROOT
from tests.support.schemas import resource_policy_schema, validate_core, validate_kueue
from tests.support.stacks import kueue_version, of_type, rendered
from tools import render

BURST_STACK = PROJECT_ROOT / "stacks/Pulumi.burst.yaml"
WORKERS = ("burst-hangzhou", "burst-beijing")
MANAGER = "aks-k8s"
CHART = "kubernetes:helm.sh/v4:Chart"
SECRET = "kubernetes:core/v1:Secret"
TOKEN = "pulumi-python:dynamic/multikueue:WorkerToken"


@pytest.fixture(scope="module")
def burst() -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    return rendered(BURST_STACK)


def provider(resource: dict[str, Any]) -> str:
    """The name of a resource's provider in plan.json (``urn::id`` of the provider)."""
    return str(resource["provider"]).split("::")[-2]


def on(plan: dict[str, Any], type_: str, cluster: str) -> list[dict[str, Any]]:
    return [r for r in of_type(plan, type_) if provider(r) == cluster]


def test_every_kueue_object_passes_its_crd_and_every_core_object_its_schema(burst):
    _, manifests = burst
    kinds = set()
    for obj in manifests.values():
        kinds.add(obj["kind"])
        if obj["apiVersion"].startswith("kueue.x-k8s.io/"):
            validate_kueue(obj, kueue_version(BURST_STACK))
        elif obj["kind"] == "ResourcePolicy":
            jsonschema.validate(obj, resource_policy_schema())
        elif obj.get("stringData") == "[secret]":  # redacted in the render: check the object around the value
            validate_core({**obj, "stringData": {"kubeconfig": "redacted"}}, "1.35")
        else:
            validate_core(obj, "1.35")
    assert {"MultiKueueCluster", "MultiKueueConfig", "AdmissionCheck", "ClusterQueue", "LocalQueue"} <= kinds
    assert {"ResourcePolicy", "Role", "RoleBinding"} <= kinds


def test_the_burst_cluster_queue_has_exactly_one_check_the_multikueue_one(burst):
    _, manifests = burst
    queue = manifests[f"{MANAGER}/clusterqueue-burst.yaml"]
    [check] = queue["spec"]["admissionChecksStrategy"]["admissionChecks"]
    assert check == {"name": "multikueue-burst"}, "no onFlavors, no second check"
    assert (
        manifests[f"{MANAGER}/admissioncheck-multikueue-burst.yaml"]["spec"]["controllerName"] == MULTIKUEUE_CONTROLLER
    )
    local = manifests[f"{MANAGER}/clusterqueue-cas-cluster-queue.yaml"]["spec"]["admissionChecksStrategy"]
    assert [c["name"] for c in local["admissionChecks"]] == ["cas-provisioning"], "the local queue stays as it was"
    assert manifests[f"{MANAGER}/localqueue-burst-burst.yaml"]["spec"] == {"clusterQueue": "burst"}


def test_the_multikueue_config_lists_both_workers_each_with_its_secret(burst):
    _, manifests = burst
    names = [f"elastic-capacity-{worker}" for worker in WORKERS]
    assert manifests[f"{MANAGER}/multikueueconfig-multikueue-burst.yaml"]["spec"] == {"clusters": names}
    for name in names:
        source = manifests[f"{MANAGER}/multikueuecluster-{name}.yaml"]["spec"]["clusterSource"]["kubeConfig"]
        assert source == {"locationType": "Secret", "location": name}
        assert f"{MANAGER}/secret-kueue-system-{name}.yaml" in manifests


@pytest.mark.parametrize("worker", WORKERS)
def test_each_worker_gets_kueue_and_the_managers_identity_on_its_own_provider(burst, worker):
    plan, manifests = burst
    cluster = f"ack-{worker}-k8s"
    [chart] = on(plan, CHART, cluster)
    assert (
        chart["inputs"]["version"] == kueue_version(BURST_STACK)
        and chart["name"] == f"ack-{worker}-multikueue-kueue-chart"
    )
    [account] = [r for r in on(plan, "kubernetes:core/v1:ServiceAccount", cluster) if r["name"].endswith("-manager")]
    [token] = [r for r in of_type(plan, TOKEN) if r["name"] == f"ack-{worker}-multikueue-token"]
    assert token["inputs"]["serviceAccount"] == account["inputs"]["metadata"]["name"]
    assert token["inputs"]["kubeconfig"] == "[secret]"
    assert not [r for r in of_type(plan, SECRET) if r["inputs"].get("type") == "kubernetes.io/service-account-token"]
    for kind in ("localqueue-burst-burst", "clusterqueue-burst", "namespace-burst"):
        assert f"{cluster}/{kind}.yaml" in manifests, "the manager's names on the worker"


def job_images(manifests: dict[str, Any], worker: str) -> list[str]:
    """The images of the Jobs the stack runs on ``worker`` (its readiness gate and probes)."""
    return [
        container["image"]
        for name, obj in manifests.items()
        if name.startswith(f"ack-{worker}-k8s/") and obj["kind"] == "Job"
        for container in obj["spec"]["template"]["spec"]["containers"]
    ]


@pytest.mark.parametrize("worker", WORKERS)
def test_a_worker_in_mainland_china_pulls_nothing_from_registry_k8s_io(burst, worker):
    _, manifests = burst
    images = job_images(manifests, worker)
    plan, _ = burst
    [chart] = on(plan, CHART, f"ack-{worker}-k8s")
    images.append(chart["inputs"]["values"]["controllerManager"]["manager"]["image"]["repository"])
    assert images and not any(image.startswith("registry.k8s.io/") for image in images), images


@pytest.mark.parametrize("worker", WORKERS)
def test_the_manager_holds_each_workers_credential_only_as_a_secret(burst, worker):
    plan, _ = burst
    [secret] = [r for r in on(plan, SECRET, MANAGER) if r["name"] == f"multikueue-secret-{worker}"]
    assert secret["inputs"]["stringData"] == "[secret]"
    [cluster] = [r for r in plan["resources"] if r["name"] == f"multikueue-cluster-{worker}"]
    assert provider(cluster) == MANAGER and secret["urn"] in cluster["dependencies"]
    [proof] = [r for r in plan["resources"] if r["name"] == "multikueue-active"]
    assert proof["inputs"]["kubeconfig"] == "[secret]"
    assert plan["outputs"]["ackKubeconfigs"] == "[secret]" and plan["outputs"]["kubeconfig"] == "[secret]"


def test_the_plan_holds_every_cluster_and_no_other_kubernetes_provider(burst):
    plan, _ = burst
    providers = sorted(r["name"] for r in of_type(plan, "pulumi:providers:kubernetes"))
    assert providers == sorted([MANAGER, *(f"ack-{worker}-k8s" for worker in WORKERS)])
    regions = sorted(r["inputs"]["region"] for r in of_type(plan, "pulumi:providers:alicloud"))
    assert regions == ["cn-beijing", "cn-hangzhou"]


def test_the_stack_is_a_dev_stack_of_an_aks_manager_and_two_ack_workers():
    _, config, _ = render.read_stack_file(BURST_STACK)
    assert json.loads(config["elastic-capacity:environment"]) == {"kind": "dev"}
    workers = json.loads(config["elastic-capacity:multiKueue"])["workers"]
    assert [w["cluster"] for w in workers] == list(WORKERS)


def test_each_workers_resource_policy_selects_burst_pods_by_kueues_multikueue_pod_label(burst):
    """The shipped stack runs Kueue 0.19.2 on the workers, which labels every pod of a MultiKueue copy
    ``kueue.x-k8s.io/multikueue-worker-workload-pod: "true"``
    (https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/apis/kueue/v1beta2/multikueue_types.go): the policies
    select by it and never by an empty selector."""
    _, manifests = burst
    policies = {name: obj for name, obj in manifests.items() if obj["kind"] == "ResourcePolicy"}
    assert {name.split("/")[0] for name in policies} == {f"ack-{worker}-k8s" for worker in WORKERS}
    for name, policy in policies.items():
        assert policy["spec"]["selector"] == {"kueue.x-k8s.io/multikueue-worker-workload-pod": "true"}, name


@pytest.mark.parametrize("worker", WORKERS)
def test_a_worker_in_mainland_china_gives_its_readiness_gate_the_longer_deadline(burst, worker):
    """A cold DaoCloud mirror syncs Kueue's image and kubectl on first pull: the gate Job on a cn-* worker waits
    MAINLAND_CHINA_GATE_SECONDS, the manager's keeps its own."""
    _, manifests = burst
    deadlines = {
        name.split("/")[0]: obj["spec"]["activeDeadlineSeconds"]
        for name, obj in manifests.items()
        if obj["kind"] == "Job" and "activeDeadlineSeconds" in obj["spec"]
    }
    assert deadlines[f"ack-{worker}-k8s"] == MAINLAND_CHINA_GATE_SECONDS
    assert deadlines[MANAGER] == 600


@pytest.mark.parametrize("worker", WORKERS)
def test_a_worker_in_mainland_china_uses_daoclouds_recommended_prefix_form(burst, worker):
    """DaoCloud recommends the source's full name behind m.daocloud.io/ over the prefix-replacing hosts
    (https://github.com/DaoCloud/public-image-mirror#readme)."""
    _, manifests = burst
    images = job_images(manifests, worker)
    assert images and all(image.startswith("m.daocloud.io/registry.k8s.io/") for image in images), images
