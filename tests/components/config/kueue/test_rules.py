"""Queue settings that need a Kueue manager setting or gate: refused without it, naming both keys."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.config import error_keys_on_existing_cluster, load_on_existing_cluster

FLAVOR = {"name": "default-flavor"}
CQ = {"name": "cq", "resourceGroups": [{"coveredResources": ["cpu"], "flavors": [
    {"name": "default-flavor", "resources": [{"name": "cpu", "nominalQuota": 9}]}]}]}  # fmt: skip
BASE: dict[str, Any] = {
    "namespaces": [],
    "existingNamespaces": ["default"],
    "resourceFlavors": [FLAVOR],
    "provisioningChecks": [],
    "clusterQueues": [CQ],
    "localQueues": [{"name": "lq", "namespace": "default", "clusterQueue": "cq"}],
}
WEIGHT = {"weight": "2"}
USAGE = {"admissionMode": "UsageBasedAdmissionFairSharing"}
TOPOLOGY = {"name": "default", "levels": [{"nodeLabel": "kubernetes.io/hostname"}]}


def queues(**changes: Any) -> dict[str, Any]:
    """:data:`BASE` with ``clusterQueue=`` / ``localQueue=`` / ``cohort=`` / ``flavor=`` fields added, or other keys."""
    out = dict(BASE)
    if "clusterQueue" in changes:
        out["clusterQueues"] = [{**CQ, **changes.pop("clusterQueue")}]
    if "localQueue" in changes:
        out["localQueues"] = [{**BASE["localQueues"][0], **changes.pop("localQueue")}]
    if "flavor" in changes:
        out["resourceFlavors"] = [{**FLAVOR, **changes.pop("flavor")}]
    return out | changes


CASES = [
    ("cq weight", queues(clusterQueue={"fairSharing": WEIGHT}), {}, "queues.clusterQueues[0].fairSharing",
     "kueue.fairSharing"),
    ("cohort weight", queues(cohorts=[{"name": "org", "fairSharing": WEIGHT}]), {}, "queues.cohorts[0].fairSharing",
     "kueue.fairSharing"),
    ("admission scope", queues(clusterQueue={"admissionScope": USAGE}), {}, "queues.clusterQueues[0].admissionScope",
     "kueue.admissionFairSharing"),
    ("lq weight", queues(localQueue={"fairSharing": WEIGHT}), {}, "queues.localQueues[0].fairSharing",
     "kueue.admissionFairSharing"),
    ("afs gate off", queues(clusterQueue={"admissionScope": USAGE}),
     {"admissionFairSharing": {"usageHalfLifeTime": "168h"}, "featureGates": {"AdmissionFairSharing": False}},
     "queues.clusterQueues[0].admissionScope", "kueue.featureGates.AdmissionFairSharing"),
    ("tas gate off", queues(topologies=[TOPOLOGY], flavor={"nodeLabels": {"pool": "a"}, "topologyName": "default"}),
     {"featureGates": {"TopologyAwareScheduling": False, "TASProfileMixed": False, "TASFailedNodeReplacement": False,
                       "TASFailedNodeReplacementFailFast": False, "TASReplaceNodeOnPodTermination": False,
                       "TASReplaceNodeDueToNotReadyOverFixedTime": False, "TASReplaceNodeOnNodeTaints": False,
                       "TASRecomputeAssignmentWithinSchedulingCycle": False, "TASHandleOverlappingFlavors": False,
                       "TASMultiLayerTopology": False}},
     "queues.topologies[0].name", "kueue.featureGates.TopologyAwareScheduling"),
]  # fmt: skip


@pytest.mark.parametrize(("section", "kueue", "key", "needs"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_queue_setting_without_its_manager_setting_names_both_keys(section, kueue, key, needs):
    assert error_keys_on_existing_cluster(queues=section, kueue=kueue) == [f"elastic-capacity:{key}"]
    with pytest.raises(Exception, match=needs.replace(".", r"\.")):
        load_on_existing_cluster(queues=section, kueue=kueue)


@pytest.mark.parametrize(
    ("section", "kueue"),
    [
        (queues(clusterQueue={"fairSharing": WEIGHT}, cohorts=[{"name": "org", "fairSharing": WEIGHT}]),
         {"fairSharing": {}}),
        (queues(clusterQueue={"admissionScope": USAGE}, localQueue={"fairSharing": WEIGHT}),
         {"admissionFairSharing": {"usageHalfLifeTime": "168h"}}),
        (queues(clusterQueue={"admissionScope": {"admissionMode": "NoAdmissionFairSharing"}}), {}),
        (queues(topologies=[TOPOLOGY], flavor={"nodeLabels": {"pool": "a"}, "topologyName": "default"}), {}),
    ],
)  # fmt: skip
def test_with_its_manager_setting_the_queue_setting_is_accepted(section, kueue):
    load_on_existing_cluster(queues=section, kueue=kueue)


def test_without_an_install_the_clusters_own_manager_is_not_second_guessed():
    config = load_on_existing_cluster(queues=queues(clusterQueue={"fairSharing": WEIGHT}), kueue={"install": False})
    assert config.queues.cluster_queues[0].fair_sharing is not None


CONCURRENT_QUEUES = queues(clusterQueue={"concurrentAdmissionPolicy": {"migration": {"mode": "TryPreferredFlavors"}}})
CONCURRENT_KEY = "elastic-capacity:queues.clusterQueues[0].concurrentAdmissionPolicy"


def test_a_concurrent_admission_policy_on_kueue_0_17_is_refused_naming_the_key_and_the_version():
    kueue = {"chartVersion": "0.17.8"}
    assert error_keys_on_existing_cluster(queues=CONCURRENT_QUEUES, kueue=kueue) == [CONCURRENT_KEY]
    with pytest.raises(Exception, match=r"Kueue 0\.18 or newer \(kueue\.chartVersion is 0\.17\.8\)"):
        load_on_existing_cluster(queues=CONCURRENT_QUEUES, kueue=kueue)


@pytest.mark.parametrize("gates", [{}, {"ConcurrentAdmission": False}])
def test_a_concurrent_admission_policy_without_its_gate_is_refused_naming_the_gate(gates):
    kueue = {"featureGates": gates}
    assert error_keys_on_existing_cluster(queues=CONCURRENT_QUEUES, kueue=kueue) == [CONCURRENT_KEY]
    with pytest.raises(Exception, match=r"kueue\.featureGates\.ConcurrentAdmission: true"):
        load_on_existing_cluster(queues=CONCURRENT_QUEUES, kueue=kueue)


@pytest.mark.parametrize("version", ["0.18.6", "0.19.2"])
def test_a_concurrent_admission_policy_with_its_gate_on_kueue_0_18_or_later_is_accepted(version):
    kueue = {"chartVersion": version, "featureGates": {"ConcurrentAdmission": True}}
    config = load_on_existing_cluster(queues=CONCURRENT_QUEUES, kueue=kueue)
    assert config.queues.cluster_queues[0].concurrent_admission_policy is not None
