"""The queue manifest builders: the article's objects field for field, general configs, and the real CRD schemas."""

from __future__ import annotations

import pytest

from components.config.queues.queues import QueuesConfig
from components.manifests.queues import queue_manifests, references
from tests.support.queues import GENERAL, edited
from tests.support.schemas import validate_core, validate_kueue
from tests.support.vendor_examples import AKS_WALKTHROUGH_OBJECTS

KIND_ORDER = [
    "Namespace",
    "ResourceFlavor",
    "ProvisioningRequestConfig",
    "AdmissionCheck",
    "Cohort",
    "ClusterQueue",
    "LocalQueue",
]


def validate(obj: dict) -> None:
    if obj["apiVersion"] == "v1":
        validate_core(obj, "1.33")
    else:
        validate_kueue(obj)


def by_name(objects: list[dict], kind: str) -> dict[str, dict]:
    return {o["metadata"]["name"]: o for o in objects if o["kind"] == kind}


def test_the_walkthrough_preset_renders_the_walkthroughs_objects_in_apply_order():
    assert queue_manifests(QueuesConfig(preset="aks-walkthrough")) == AKS_WALKTHROUGH_OBJECTS


def test_a_section_that_writes_nothing_renders_nothing():
    assert queue_manifests(QueuesConfig()) == []


@pytest.mark.parametrize("obj", AKS_WALKTHROUGH_OBJECTS, ids=[o["kind"] for o in AKS_WALKTHROUGH_OBJECTS])
def test_the_walkthroughs_objects_pass_the_real_schemas(obj):
    validate(obj)


@pytest.fixture(scope="module")
def general() -> list[dict]:
    return queue_manifests(QueuesConfig.model_validate(GENERAL))


def test_general_objects_pass_the_real_schemas(general):
    for obj in general:
        validate(obj)


def test_general_objects_come_in_apply_order_and_only_local_queues_are_namespaced(general):
    kinds = [o["kind"] for o in general]
    assert kinds == sorted(kinds, key=KIND_ORDER.index)
    assert set(kinds) == set(KIND_ORDER)
    for obj in general:
        assert ("namespace" in obj["metadata"]) == (obj["kind"] == "LocalQueue"), obj
        assert set(obj["metadata"]) <= {"name", "namespace"}, "no labels or annotations are added"


def test_flavors_carry_labels_taints_and_tolerations_only_when_set(general):
    flavors = by_name(general, "ResourceFlavor")
    assert flavors["scalepool"]["spec"] == {"nodeLabels": {"agentpool": "scalepool"}}
    assert flavors["gpu-a100"]["spec"]["nodeTaints"] == [
        {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
    ]
    assert flavors["gpu-a100"]["spec"]["tolerations"] == [
        {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}
    ]
    unlabelled = queue_manifests(QueuesConfig.model_validate(edited(GENERAL, ("resourceFlavors.0.nodeLabels", {}))))
    assert "spec" not in by_name(unlabelled, "ResourceFlavor")["scalepool"], "an empty spec is left out, as Kueue does"


def test_provisioning_config_carries_retry_strategy_and_parameters(general):
    config = by_name(general, "ProvisioningRequestConfig")["gpu-provreq-config"]
    assert config["spec"] == {
        "provisioningClassName": "check-capacity.autoscaling.x-k8s.io",
        "managedResources": ["nvidia.com/gpu"],
        "retryStrategy": {"backoffLimitCount": 2, "backoffBaseSeconds": 30, "backoffMaxSeconds": 600},
        "parameters": {"maxRunDurationSeconds": "3600"},
    }
    check = by_name(general, "AdmissionCheck")["gpu-provisioning"]
    assert check["spec"]["parameters"]["name"] == "gpu-provreq-config"


def test_cohorts_render_parent_and_shared_quota(general):
    cohorts = by_name(general, "Cohort")
    assert "spec" not in cohorts["org"]
    assert cohorts["shared-cohort"]["spec"]["parentName"] == "org"
    [group] = cohorts["shared-cohort"]["spec"]["resourceGroups"]
    assert group["flavors"][0]["resources"][0] == {"name": "cpu", "nominalQuota": "8", "borrowingLimit": "8"}


def test_cohorts_are_emitted_parents_first():
    reversed_tree = edited(GENERAL, ("cohorts", list(reversed(GENERAL["cohorts"]))))
    cohorts = [o for o in queue_manifests(QueuesConfig.model_validate(reversed_tree)) if o["kind"] == "Cohort"]
    assert [c["metadata"]["name"] for c in cohorts] == ["org", "shared-cohort"]


def test_cluster_queue_carries_cohort_preemption_fungibility_and_per_flavor_checks(general):
    spec = by_name(general, "ClusterQueue")["team-a-cq"]["spec"]
    assert spec["cohortName"] == "shared-cohort"
    assert spec["preemption"] == {
        "withinClusterQueue": "LowerPriority",
        "reclaimWithinCohort": "Any",
        "borrowWithinCohort": {"policy": "LowerPriority", "maxPriorityThreshold": 100},
    }
    assert spec["flavorFungibility"]["preference"] == "BorrowingOverPreemption"
    on_demand, scalepool = spec["resourceGroups"][0]["flavors"]
    assert on_demand["resources"][0] == {"name": "cpu", "nominalQuota": "48", "lendingLimit": "16"}
    assert scalepool["resources"][0] == {"name": "cpu", "nominalQuota": "48", "borrowingLimit": "48"}
    gated = {flavor for check in spec["admissionChecksStrategy"]["admissionChecks"] for flavor in check["onFlavors"]}
    assert "on-demand" not in gated, "the fixed pool's flavor is admitted without a provisioning gate"


def test_cluster_queue_without_options_omits_them(general):
    spec = by_name(general, "ClusterQueue")["team-b-cq"]["spec"]
    assert "preemption" not in spec and "flavorFungibility" not in spec
    assert spec["admissionChecksStrategy"] == {"admissionChecks": [{"name": "cpu-provisioning"}]}
    assert spec["namespaceSelector"] == {
        "matchLabels": {"team": "b"},
        "matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "In", "values": ["team-b"]}],
    }
    assert spec["queueingStrategy"] == "StrictFIFO"


def test_several_local_queues_in_several_namespaces(general):
    local = [
        (o["metadata"]["namespace"], o["metadata"]["name"], o["spec"]) for o in general if o["kind"] == "LocalQueue"
    ]
    assert local == [
        ("team-a", "team-a", {"clusterQueue": "team-a-cq"}),
        ("team-a", "gpu", {"clusterQueue": "team-a-cq"}),
        ("team-b", "team-b", {"clusterQueue": "team-b-cq"}),
    ]
    assert [o["metadata"]["name"] for o in general if o["kind"] == "Namespace"] == ["team-a", "team-b"]


V1BETA2 = "kueue.x-k8s.io/v1beta2"

GPU_SAMPLE: dict = {
    "namespaces": ["gpu-lab"],
    "resourceFlavors": [
        {
            "name": "gpu-a100",
            "nodeLabels": {"agentpool": "gpupool"},
            "tolerations": [{"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}],
        }
    ],
    "provisioningChecks": [
        {"name": "gpu-provisioning", "configName": "gpu-provreq-config", "managedResources": ["nvidia.com/gpu"]}
    ],
    "clusterQueues": [
        {
            "name": "gpu-cluster-queue",
            "resourceGroups": [
                {
                    "coveredResources": ["nvidia.com/gpu", "cpu", "memory"],
                    "flavors": [
                        {
                            "name": "gpu-a100",
                            "resources": [
                                {"name": "nvidia.com/gpu", "nominalQuota": "16"},
                                {"name": "cpu", "nominalQuota": "200"},
                                {"name": "memory", "nominalQuota": "3000Gi"},
                            ],
                        }
                    ],
                }
            ],
            "admissionChecksStrategy": {"admissionChecks": [{"name": "gpu-provisioning", "onFlavors": ["gpu-a100"]}]},
        }
    ],
    "localQueues": [{"name": "gpu-local-queue", "namespace": "gpu-lab", "clusterQueue": "gpu-cluster-queue"}],
}
"""A GPU variant of the article's queue: a ProvisioningRequest-gated GPU flavor on its own pool."""

GPU_SAMPLE_OBJECTS = [
    {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "gpu-lab"}},
    {
        "apiVersion": V1BETA2,
        "kind": "ResourceFlavor",
        "metadata": {"name": "gpu-a100"},
        "spec": {
            "nodeLabels": {"agentpool": "gpupool"},
            "tolerations": [{"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}],
        },
    },
    {
        "apiVersion": V1BETA2,
        "kind": "ProvisioningRequestConfig",
        "metadata": {"name": "gpu-provreq-config"},
        "spec": {
            "provisioningClassName": "best-effort-atomic-scale-up.autoscaling.x-k8s.io",
            "managedResources": ["nvidia.com/gpu"],
        },
    },
    {
        "apiVersion": V1BETA2,
        "kind": "AdmissionCheck",
        "metadata": {"name": "gpu-provisioning"},
        "spec": {
            "controllerName": "kueue.x-k8s.io/provisioning-request",
            "parameters": {
                "apiGroup": "kueue.x-k8s.io",
                "kind": "ProvisioningRequestConfig",
                "name": "gpu-provreq-config",
            },
        },
    },
    {
        "apiVersion": V1BETA2,
        "kind": "ClusterQueue",
        "metadata": {"name": "gpu-cluster-queue"},
        "spec": {
            "namespaceSelector": {},
            "queueingStrategy": "BestEffortFIFO",
            "resourceGroups": [
                {
                    "coveredResources": ["nvidia.com/gpu", "cpu", "memory"],
                    "flavors": [
                        {
                            "name": "gpu-a100",
                            "resources": [
                                {"name": "nvidia.com/gpu", "nominalQuota": "16"},
                                {"name": "cpu", "nominalQuota": "200"},
                                {"name": "memory", "nominalQuota": "3000Gi"},
                            ],
                        }
                    ],
                }
            ],
            "admissionChecksStrategy": {"admissionChecks": [{"name": "gpu-provisioning", "onFlavors": ["gpu-a100"]}]},
        },
    },
    {
        "apiVersion": V1BETA2,
        "kind": "LocalQueue",
        "metadata": {"name": "gpu-local-queue", "namespace": "gpu-lab"},
        "spec": {"clusterQueue": "gpu-cluster-queue"},
    },
]
"""The GPU sample's objects, written out by hand: a second ground truth besides the article's."""


def test_gpu_sample_renders_as_written_in_apply_order():
    rendered = queue_manifests(QueuesConfig.model_validate(GPU_SAMPLE))
    assert [(o["kind"], o["metadata"]["name"]) for o in rendered] == [
        (o["kind"], o["metadata"]["name"]) for o in GPU_SAMPLE_OBJECTS
    ]


@pytest.mark.parametrize("expected", GPU_SAMPLE_OBJECTS, ids=[o["kind"] for o in GPU_SAMPLE_OBJECTS])
def test_gpu_sample_object_renders_field_for_field(expected):
    rendered = queue_manifests(QueuesConfig.model_validate(GPU_SAMPLE))
    [found] = [
        o for o in rendered if (o["kind"], o["metadata"]["name"]) == (expected["kind"], expected["metadata"]["name"])
    ]
    assert found == expected
    validate(found)


def test_references_name_what_each_object_needs(general):
    refs = {(o["kind"], o["metadata"]["name"]): set(references(o)) for o in general}
    assert refs[("AdmissionCheck", "cpu-provisioning")] == {("ProvisioningRequestConfig", "cpu-provreq-config")}
    assert refs[("ClusterQueue", "team-a-cq")] == {
        ("ResourceFlavor", "on-demand"),
        ("ResourceFlavor", "scalepool"),
        ("ResourceFlavor", "gpu-a100"),
        ("Cohort", "shared-cohort"),
        ("AdmissionCheck", "cpu-provisioning"),
        ("AdmissionCheck", "gpu-provisioning"),
    }
    assert refs[("Cohort", "shared-cohort")] == {("Cohort", "org"), ("ResourceFlavor", "scalepool")}
    assert refs[("Cohort", "org")] == set()
    assert refs[("LocalQueue", "gpu")] == {("Namespace", "team-a"), ("ClusterQueue", "team-a-cq")}
    assert refs[("ResourceFlavor", "scalepool")] == set()
