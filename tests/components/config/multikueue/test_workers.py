"""What each MultiKueue worker gets, resolved in the config layer: its Kueue, its queues, its identity's reach."""

from __future__ import annotations

from typing import Any

import pytest

from components.config.kueue.kubectl_image import kubectl_tag
from components.config.kueue.kueue import KueueConfig
from components.config.loader import load_stack_config
from components.config.multikueue.adapters import MULTIKUEUE_ADAPTERS, WORKLOADS
from components.config.multikueue.multikueue import MultiKueueConfig, WorkerConfig
from components.config.multikueue.workers import (
    MAINLAND_CHINA_GATE_SECONDS,
    BurstQueue,
    burst_local_queues,
    burst_pod_selector,
    worker_kueue,
    worker_plans,
    worker_queues,
)
from components.config.queues.queues import QueuesConfig
from components.manifests import kueue_install
from components.manifests.queues import queue_manifests
from tests.support import ack as ack_data
from tests.support.config import as_config, stack_error_keys
from tests.support.kueue_sources import go_string_constant, kueue_git
from tests.support.multikueue import (
    KUBECONFIGS,
    MIRROR,
    QUEUES_WITH_MULTIKUEUE,
    kubeconfig_stack,
    queues_stack,
    stack,
)
from tests.support.schemas import validate_core, validate_kueue

ACK_VERSION = "1.35"
"""The minor the mocked ACK clusters run (``ACK_OFFERED_VERSIONS`` in tools/mock_cloud.py)."""
BURST = MultiKueueConfig.model_validate({"workers": [{"cluster": "hz"}]})
RENAMED = MultiKueueConfig.model_validate(
    {
        "namespace": "ml-burst",
        "localQueue": "gpu-burst",
        "clusterQueue": "burst-cq",
        "acsFlavor": "acs",
        "origin": "team-a",
        "tokenRotation": "2026-09",
        "workers": [{"cluster": "bj", "quota": {"cpu": "16", "memory": "64Gi"}}],
    }
)
MANAGER = KueueConfig.model_validate(
    {
        "chartRepository": "https://kubernetes-sigs.github.io/kueue/charts",
        "chartVersion": "0.17.8",
        "imageRepository": "mcr.microsoft.com/oss/v2/kueue/kueue",
        "replicas": 2,
        "frameworks": ["batch/job", "ray.io/rayjob"],
        "featureGates": {"PartialAdmission": True},
        "fairSharing": {},
        "waitForPodsReady": {"timeout": "5m"},
        "readinessGate": {"probeImage": "registryk8s.azk8s.cn/kubectl", "timeoutSeconds": 900},
        "managedJobsNamespaceSelector": {"matchLabels": {"team": "ml"}},
    }
)


def worker_objects(burst: MultiKueueConfig) -> list[dict[str, Any]]:
    queues = worker_queues(burst, burst.workers[0], burst_local_queues(burst, QueuesConfig()))
    return queue_manifests(queues, worker_kueue(KueueConfig(), burst.workers[0]).managed_namespace_labels)


@pytest.mark.parametrize("burst", [BURST, RENAMED], ids=["default", "renamed"])
def test_worker_queues_use_the_managers_names_and_each_object_passes_its_schema(burst):
    objects = {(obj["kind"], obj["metadata"]["name"]): obj for obj in worker_objects(burst)}
    assert set(objects) == {
        ("Namespace", burst.namespace),
        ("ResourceFlavor", burst.acs_flavor),
        ("ClusterQueue", burst.cluster_queue),
        ("LocalQueue", burst.local_queue),
    }
    local = objects[("LocalQueue", burst.local_queue)]
    assert local["metadata"]["namespace"] == burst.namespace
    assert local["spec"]["clusterQueue"] == burst.cluster_queue
    for obj in objects.values():
        validate_core(obj, ACK_VERSION) if obj["apiVersion"] == "v1" else validate_kueue(obj)


def test_the_acs_flavor_selects_and_tolerates_the_virtual_node():
    flavor = next(obj for obj in worker_objects(BURST) if obj["kind"] == "ResourceFlavor")
    assert flavor["spec"] == {
        "nodeLabels": {"type": "virtual-kubelet"},
        "tolerations": [
            {"key": "virtual-kubelet.io/provider", "operator": "Equal", "value": "alibabacloud", "effect": "NoSchedule"}
        ],
    }


@pytest.mark.parametrize("burst", [BURST, RENAMED], ids=["default", "renamed"])
def test_the_cluster_queue_holds_the_workers_quota_on_the_acs_flavor_for_every_namespace(burst):
    queue = next(obj for obj in worker_objects(burst) if obj["kind"] == "ClusterQueue")
    quota = burst.workers[0].quota
    assert queue["spec"]["namespaceSelector"] == {}
    assert queue["spec"]["resourceGroups"] == [
        {
            "coveredResources": ["cpu", "memory"],
            "flavors": [
                {
                    "name": burst.acs_flavor,
                    "resources": [
                        {"name": "cpu", "nominalQuota": quota.cpu},
                        {"name": "memory", "nominalQuota": quota.memory},
                    ],
                }
            ],
        }
    ]
    assert "admissionChecksStrategy" not in queue["spec"]


def test_worker_queues_have_no_provisioning_gate():
    queues = worker_queues(BURST, BURST.workers[0], burst_local_queues(BURST, QueuesConfig()))
    assert queues.all_admission_checks == [] and queues.all_provisioning_request_configs == []
    assert not queues.uses_provisioning_requests


def test_an_aks_worker_gets_the_burst_local_queues_on_its_own_cluster_queue_and_nothing_else():
    worker = WorkerConfig.model_validate(
        {"source": "aks", "resourceGroupName": "rg", "clusterName": "gpu", "clusterQueue": "team-gpu"}
    )
    queues = worker_queues(BURST, worker, burst_local_queues(BURST, QueuesConfig()))
    kinds = {(obj["kind"], obj["metadata"]["name"]) for obj in queue_manifests(queues, {})}
    assert kinds == {("Namespace", "burst"), ("LocalQueue", "burst")}
    assert [local.cluster_queue for local in queues.local_queues] == ["team-gpu"]
    assert queues.external.cluster_queues == ["team-gpu"]


@pytest.mark.parametrize("manager", [KueueConfig(), MANAGER], ids=["default", "customised"])
def test_worker_kueue_is_the_managers_release_from_the_same_sources(manager):
    worker = worker_kueue(manager, WorkerConfig(cluster="hz"))
    for key in (
        "chart_repository",
        "chart_version",
        "image_repository",
        "namespace",
        "release_name",
        "readiness_gate",
        "managed_jobs_namespace_selector",
    ):
        assert getattr(worker, key) == getattr(manager, key), key
    assert worker.sources() == manager.sources()
    assert worker.managed_namespace_labels == manager.managed_namespace_labels


@pytest.mark.parametrize("manager", [KueueConfig(), MANAGER], ids=["default", "customised"])
def test_worker_kueue_is_a_plain_batch_job_kueue_off_the_virtual_node(manager):
    worker = worker_kueue(manager, WorkerConfig(cluster="hz"))
    assert worker.frameworks == ["batch/job"]
    assert (worker.node_selector, worker.tolerations, worker.replicas) == ({}, [], 1)
    assert worker.feature_gates == {}
    for key in ("fair_sharing", "admission_fair_sharing", "resources", "wait_for_pods_ready", "multi_kueue"):
        assert getattr(worker, key) is None, key
    values = kueue_install.chart_values(worker)["controllerManager"]
    assert (values["nodeSelector"], values["tolerations"], values["replicas"]) == ({}, [], 1)


def test_worker_kueue_leaves_out_the_managers_multikueue_block():
    manager = KueueConfig().model_copy(update={"multi_kueue": BURST.manager_settings()})
    assert "multiKueue" in kueue_install.manager_config(manager)
    assert "multiKueue" not in kueue_install.manager_config(worker_kueue(manager, WorkerConfig(cluster="hz")))


def test_a_worker_pulls_kueue_and_the_gate_from_its_own_mirrors_and_keeps_the_gates_other_settings():
    worker = WorkerConfig.model_validate({"cluster": "hz", **MIRROR})
    kueue = worker_kueue(MANAGER, worker)
    assert (kueue.image_repository, kueue.chart_repository) == (MIRROR["imageRepository"], MANAGER.chart_repository)
    assert kueue.readiness_gate.probe_image == MIRROR["probeImage"]
    assert kueue.readiness_gate.timeout_seconds == MANAGER.readiness_gate.timeout_seconds
    assert kueue.readiness_gate.image_for((1, 36)) == f"{MIRROR['probeImage']}:{kubectl_tag((1, 36))}"


def test_the_plans_say_what_the_stack_builds_on_each_kind_of_worker():
    existing = {"clusters": [ack_data.cluster("worker", nodePool=ack_data.POOL)],
                "existingClusters": [ack_data.existing_cluster("shared")]}  # fmt: skip
    workers = [
        {"cluster": "worker", **MIRROR},
        {"cluster": "shared"},
        {"source": "aks", "resourceGroupName": "rg", "clusterName": "gpu", "clusterQueue": "team-gpu"},
        {"source": "kubeconfig", "name": "w1"},
    ]
    sections = {**kubeconfig_stack(), "ack": existing, "multiKueue": {"workers": workers}}
    new, shared, aks, given = worker_plans(load_stack_config(as_config(sections), [KUBECONFIGS]))
    assert (new.kueue is not None, shared.kueue, aks.kueue, given.kueue) == (True, None, None, None)
    assert (new.sets_up, shared.sets_up, aks.sets_up, given.sets_up) == (True, True, True, False)
    assert (new.acs is not None, shared.acs is not None, aks.acs, given.acs) == (True, True, None, None)
    assert aks.aks is not None and (aks.aks.resource_group_name, aks.aks.cluster_name) == ("rg", "gpu")
    assert [p.cluster_name for p in (new, shared, aks, given)] == [
        "elastic-capacity-worker",
        "elastic-capacity-shared",
        "elastic-capacity-gpu",
        "w1",
    ]
    assert {p.identity_namespace for p in (new, shared, aks)} == {"kueue-system"}
    assert new.burst_namespaces == ("burst",) and new.watched == (MULTIKUEUE_ADAPTERS["batch/job"],)
    assert WORKLOADS not in new.watched, "Workloads are the identity's own rule, not a dispatched kind"


def test_with_the_queues_sections_checks_every_burst_local_queue_is_mirrored_in_its_existing_namespace():
    config = load_stack_config(as_config(queues_stack()))
    assert config.multi_kueue is not None
    assert burst_local_queues(config.multi_kueue, config.queues) == [
        BurstQueue("default", "user-queue", creates_namespace=False)
    ]
    [plan] = worker_plans(config)
    assert plan.queues is not None
    assert plan.queues.namespaces == [] and plan.queues.existing_namespaces == ["default"]
    assert [(q.namespace, q.name) for q in plan.queues.local_queues] == [("default", "user-queue")]
    assert plan.burst_namespaces == ("default",)
    assert QUEUES_WITH_MULTIKUEUE["localQueues"][0]["name"] == "user-queue"


def test_the_stack_loads_with_each_derived_config_valid():
    assert worker_plans(load_stack_config(as_config(stack()))) != []


@pytest.mark.parametrize("tag", ["v0.17.8", "v0.18.6", "v0.19.2"])
def test_the_burst_pod_selector_is_a_label_the_workers_kueue_sets_on_every_burst_pod(tag):
    """From 0.18 the MultiKueue worker pod label (``apis/kueue/v1beta2/multikueue_types.go``, set in
    ``getPodSetsInfoFromStatus`` of ``pkg/controller/jobframework/reconciler.go``); on 0.17 the pod-set label with
    batch/job's one pod set's name. Read from Kueue's source at the tag."""
    selector = burst_pod_selector(tag[1:])
    reconciler = kueue_git("show", f"{tag}:pkg/controller/jobframework/reconciler.go")
    if tag >= "v0.18":
        types = "apis/kueue/v1beta2/multikueue_types.go"
        key = go_string_constant(tag, types, "MultiKueueWorkerWorkloadPodLabel")
        value = go_string_constant(tag, types, "MultiKueueWorkerWorkloadPodValue")
        assert selector == {key: value}
        assert (
            "info.Labels[kueue.MultiKueueWorkerWorkloadPodLabel] = kueue.MultiKueueWorkerWorkloadPodValue" in reconciler
        )
    else:
        key = go_string_constant(tag, "pkg/constants/constants.go", "PodSetLabel")
        value = go_string_constant(tag, "apis/kueue/v1beta2/constants.go", "DefaultPodSetName")
        assert selector == {key: value}
        assert "info.Labels[constants.PodSetLabel] = string(psAssignment.Name)" in reconciler


@pytest.mark.parametrize(
    ("version", "selector"),
    [
        ("0.19.2", {"kueue.x-k8s.io/multikueue-worker-workload-pod": "true"}),
        ("0.17.8", {"kueue.x-k8s.io/podset": "main"}),
    ],
)
def test_an_ack_worker_plan_selects_burst_pods_by_the_label_of_its_kueue(version, selector):
    [plan] = worker_plans(load_stack_config(as_config(stack(kueue={"chartVersion": version}))))
    assert plan.burst_pod_selector == selector


def test_with_kueue_017_an_ack_worker_refuses_kinds_whose_pods_the_policy_cannot_select():
    frameworks = ["batch/job", "jobset.x-k8s.io/jobset"]
    worker = {"cluster": "worker", "installKueue": False, "frameworks": frameworks}
    sections = stack(kueue={"chartVersion": "0.17.8", "frameworks": frameworks}, multiKueue={"workers": [worker]})
    assert stack_error_keys(sections) == ["elastic-capacity:kueue.frameworks[1]"]
    newer = stack(kueue={"chartVersion": "0.18.6", "frameworks": frameworks}, multiKueue={"workers": [worker]})
    load_stack_config(as_config(newer))


def test_a_worker_in_mainland_china_waits_longer_for_its_readiness_gate_and_never_shorter_than_the_manager():
    [plan] = worker_plans(load_stack_config(as_config(stack())))
    assert plan.kueue is not None and plan.kueue.readiness_gate.timeout_seconds == MAINLAND_CHINA_GATE_SECONDS
    longer = stack(kueue={"readinessGate": {"timeoutSeconds": 1800}})
    [plan] = worker_plans(load_stack_config(as_config(longer)))
    assert plan.kueue is not None and plan.kueue.readiness_gate.timeout_seconds == 1800
    assert worker_kueue(KueueConfig(), WorkerConfig(cluster="hz")).readiness_gate.timeout_seconds == 600
