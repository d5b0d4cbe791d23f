"""The queue kinds and fields beyond Azure's article: topologies, priority classes, checks of any controller, fair
sharing, stop policies, pod set updates, external references and existing namespaces, field for field and valid
against the real CRDs (OpenAPI and CEL)."""

from __future__ import annotations

import pytest

from components.config.queues.queues import QueuesConfig
from components.manifests.queues import queue_manifests, references
from tests.support.queues import EVERY_KIND, PROVISIONING_CONFIG_REF
from tests.support.schemas import validate_core, validate_kueue

API = "kueue.x-k8s.io/v1beta2"


@pytest.fixture(scope="module")
def objects() -> dict[tuple[str, str], dict]:
    manifests = queue_manifests(QueuesConfig.model_validate(EVERY_KIND))
    return {
        (m["kind"], "/".join(filter(None, (m["metadata"].get("namespace"), m["metadata"]["name"])))): m
        for m in manifests
    }


def test_every_object_validates_against_its_crd_or_core_schema(objects):
    for obj in objects.values():
        validate_core(obj, "1.33") if obj["apiVersion"] == "v1" else validate_kueue(obj)


def test_a_topology_and_the_flavor_that_names_it(objects):
    assert objects[("Topology", "gpu-topology")] == {
        "apiVersion": API,
        "kind": "Topology",
        "metadata": {"name": "gpu-topology"},
        "spec": {"levels": [{"nodeLabel": label} for label in (
            "cloud.example.com/topology-block", "cloud.example.com/topology-rack", "kubernetes.io/hostname")]},
    }  # fmt: skip
    flavor = objects[("ResourceFlavor", "tas-flavor")]
    assert flavor["spec"] == {"nodeLabels": {"cloud.example.com/node-group": "tas"}, "topologyName": "gpu-topology"}
    assert references(flavor) == [("Topology", "gpu-topology")]


def test_a_priority_class_has_no_spec(objects):
    assert objects[("WorkloadPriorityClass", "high")] == {
        "apiVersion": API,
        "kind": "WorkloadPriorityClass",
        "metadata": {"name": "high"},
        "value": 1000,
        "description": "production batch",
    }


def test_a_standalone_config_carries_pod_set_updates_merge_policy_and_a_zero_delay(objects):
    assert objects[("ProvisioningRequestConfig", "capacity-check")]["spec"] == {
        "provisioningClassName": "check-capacity.autoscaling.x-k8s.io",
        "managedResources": ["cpu"],
        "retryStrategy": {"backoffBaseSeconds": 0},
        "podSetUpdates": {
            "nodeSelector": [{"key": "cloud.example.com/block", "valueFromProvisioningClassDetail": "block"}]
        },
        "podSetMergePolicy": "IdenticalWorkloadSchedulingRequirements",
    }


def test_checks_of_any_controller_with_and_without_parameters(objects):
    capacity, approval = objects[("AdmissionCheck", "capacity")], objects[("AdmissionCheck", "approval")]
    assert capacity["spec"] == {
        "controllerName": "kueue.x-k8s.io/provisioning-request",
        "parameters": PROVISIONING_CONFIG_REF,
    }
    assert references(capacity) == [("ProvisioningRequestConfig", "capacity-check")]
    assert approval["spec"] == {"controllerName": "example.com/approval"}
    assert references(approval) == []


def test_fair_sharing_admission_scope_and_stop_policies(objects):
    assert objects[("Cohort", "shared-cohort")]["spec"]["fairSharing"] == {"weight": "2"}
    team_a = objects[("ClusterQueue", "team-a-cq")]["spec"]
    assert (team_a["fairSharing"], team_a["stopPolicy"]) == ({"weight": "1.5"}, "None")
    assert objects[("ClusterQueue", "team-b-cq")]["spec"]["admissionScope"] == {
        "admissionMode": "UsageBasedAdmissionFairSharing"
    }
    assert objects[("LocalQueue", "team-b/fair")]["spec"] == {
        "clusterQueue": "team-b-cq",
        "fairSharing": {"weight": "2"},
    }
    assert objects[("LocalQueue", "default/user-queue")]["spec"] == {"clusterQueue": "tas-cq", "stopPolicy": "Hold"}


def test_labels_go_into_the_metadata_not_the_spec(objects):
    tas = objects[("ClusterQueue", "tas-cq")]
    assert tas["metadata"] == {"name": "tas-cq", "labels": {"team": "platform"}}
    assert "labels" not in tas["spec"]


def test_unset_namespace_selector_and_quota_are_left_out_not_emptied(objects):
    """Kueue reads an absent namespaceSelector as no namespace, ``{}`` as every namespace: the two must not merge."""
    assert objects[("ClusterQueue", "drained")]["spec"] == {
        "queueingStrategy": "BestEffortFIFO",
        "stopPolicy": "HoldAndDrain",
    }
    assert objects[("ClusterQueue", "tas-cq")]["spec"]["namespaceSelector"] == {}


def test_existing_namespaces_are_never_created_and_external_objects_are_only_named(objects):
    assert ("Namespace", "default") not in objects
    assert {name for kind, name in objects if kind == "Namespace"} == {"team-a", "team-b"}
    assert set(references(objects[("LocalQueue", "default/org")])) == {
        ("Namespace", "default"),
        ("ClusterQueue", "org-cq"),
    }
    tas_refs = set(references(objects[("ClusterQueue", "tas-cq")]))
    assert {("ResourceFlavor", "shared-spot"), ("AdmissionCheck", "org-approval")} <= tas_refs
    for kind, name in [
        ("ResourceFlavor", "shared-spot"),
        ("AdmissionCheck", "org-approval"),
        ("ClusterQueue", "org-cq"),
    ]:
        assert (kind, name) not in objects


def test_created_namespaces_carry_the_labels_kueue_selects_them_by():
    manifests = queue_manifests(QueuesConfig.model_validate(EVERY_KIND), {"kueue-managed": "true"})
    namespaces = [m for m in manifests if m["kind"] == "Namespace"]
    assert [m["metadata"] for m in namespaces] == [
        {"name": "team-a", "labels": {"kueue-managed": "true"}},
        {"name": "team-b", "labels": {"kueue-managed": "true"}},
    ]


def concurrent_queue(**policy_changes) -> dict:
    """Kueue's admin/concurrent-admission-setup.yaml (v0.19.2): three flavors, most preferred first."""
    flavors = [("reservation", 4, "16Gi"), ("on-demand", 8, "32Gi"), ("spot", 16, "64Gi")]
    return {
        "resourceFlavors": [{"name": name} for name, _, _ in flavors],
        "clusterQueues": [
            {
                "name": "team-cluster-queue",
                "concurrentAdmissionPolicy": {"migration": {"mode": "TryPreferredFlavors", **policy_changes}},
                "resourceGroups": [
                    {
                        "coveredResources": ["cpu", "memory"],
                        "flavors": [
                            {"name": name, "resources": [{"name": "cpu", "nominalQuota": str(cpu)},
                                                         {"name": "memory", "nominalQuota": memory}]}
                            for name, cpu, memory in flavors
                        ],
                    }
                ],
            }
        ],
    }  # fmt: skip


@pytest.mark.parametrize("version", ["0.18.6", "0.19.2"])
def test_a_concurrent_admission_policy_reaches_the_cluster_queue_and_passes_its_crd(version):
    constraints = {"constraints": {"lastAcceptableFlavorName": "on-demand"}}
    manifests = queue_manifests(QueuesConfig.model_validate(concurrent_queue(**constraints)))
    [queue] = [m for m in manifests if m["kind"] == "ClusterQueue"]
    assert queue["spec"]["concurrentAdmissionPolicy"] == {
        "migration": {"mode": "TryPreferredFlavors", "constraints": {"lastAcceptableFlavorName": "on-demand"}}
    }
    for manifest in manifests:
        validate_kueue(manifest, version)


def test_a_flavor_taint_keeps_the_time_it_was_added_in_utc_to_the_second():
    taints = [
        {"key": "spot", "value": "true", "effect": "NoExecute", "timeAdded": "2025-01-02T04:04:05.5+01:00"},
        {"key": "gpu", "effect": "NoSchedule"},
    ]
    section = {"resourceFlavors": [{"name": "spot", "nodeTaints": taints}]}
    [flavor] = queue_manifests(QueuesConfig.model_validate(section))
    assert flavor["spec"]["nodeTaints"] == [
        {"key": "spot", "value": "true", "effect": "NoExecute", "timeAdded": "2025-01-02T03:04:05Z"},
        {"key": "gpu", "effect": "NoSchedule"},
    ]
    validate_kueue(flavor)
