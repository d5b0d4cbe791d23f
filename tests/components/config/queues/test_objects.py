"""The Kueue object models of the ``queues`` section: the rules Kueue checks on one object, each with the exact key."""

from __future__ import annotations

from typing import Any

import pytest

from components.config.queues.queues import QueuesConfig
from tests.support.queues import DELETE, GENERAL, edited, queues_error_keys

CQ0_RG0 = "clusterQueues.0.resourceGroups.0"
CQ0_CHECKS = "clusterQueues.0.admissionChecksStrategy.admissionChecks"
NINE_LABELS = {f"label-{i}": "x" for i in range(9)}
MANY_FLAVORS = [
    {
        "coveredResources": [f"r{g}"],
        "flavors": [{"name": f"f{g}-{f}", "resources": [{"name": f"r{g}", "nominalQuota": 1}]} for f in range(64)],
    }
    for g in range(5)
]
"""5 groups of 64 flavors: each group within the CRD's limits, 320 flavors in all past the webhook's 256."""

BROKEN: list[tuple[str, tuple[tuple[str, Any], ...], str]] = [
    # DNS-1123 names: subdomains for cluster-scoped objects, labels for config names.
    ("flavor name", (("resourceFlavors.0.name", "Scale_Pool"),), "resourceFlavors[0].name"),
    ("config name with a dot", (("provisioningChecks.0.configName", "cpu.provreq"),),
     "provisioningChecks[0].configName"),
    ("local queue name over 63", (("localQueues.0.name", "q" * 64),), "localQueues[0].name"),
    # The admission checks of one queue: each once, gating only the queue's own flavors.
    ("check listed twice", ((f"{CQ0_CHECKS}.1", {"name": "cpu-provisioning"}),),
     "clusterQueues[0].admissionChecksStrategy.admissionChecks[1].name"),
    ("onFlavors outside the queue", ((f"{CQ0_CHECKS}.0.onFlavors", ["scalepool", "spot"]),),
     "clusterQueues[0].admissionChecksStrategy.admissionChecks[0].onFlavors[1]"),
    ("onFlavors repeated", ((f"{CQ0_CHECKS}.0.onFlavors", ["scalepool", "scalepool"]),),
     "clusterQueues[0].admissionChecksStrategy.admissionChecks[0].onFlavors[1]"),
    ("taints with one key and effect", (("resourceFlavors.1.nodeTaints.1",
                                          {"key": "nvidia.com/gpu", "value": "other", "effect": "NoSchedule"}),),
     "resourceFlavors[1].nodeTaints[1]"),
    ("topology without node labels", (("resourceFlavors.0.nodeLabels", {}), ("resourceFlavors.0.topologyName", "t")),
     "resourceFlavors[0].nodeLabels"),
    ("weight collapsing to zero", (("clusterQueues.0.fairSharing", {"weight": "1n"}),),
     "clusterQueues[0].fairSharing.weight"),
    ("negative weight", (("cohorts.1.fairSharing", {"weight": "-1"}),), "cohorts[1].fairSharing.weight"),
    ("stop policy", (("localQueues.0.stopPolicy", "Stop"),), "localQueues[0].stopPolicy"),
    ("257 flavors", (("clusterQueues.1.resourceGroups", MANY_FLAVORS),), "clusterQueues[1].resourceGroups"),
    # A ClusterQueue lends only within its cohort, never more than its nominal quota.
    ("lending without cohort", (("clusterQueues.0.cohortName", DELETE),),
     "clusterQueues[0].resourceGroups[0].flavors[0].resources[0].lendingLimit"),
    ("lending above nominal", ((f"{CQ0_RG0}.flavors.0.resources.0.lendingLimit", "49"),),
     "clusterQueues[0].resourceGroups[0].flavors[0].resources[0].lendingLimit"),
    # Enumerations.
    ("queueing strategy", (("clusterQueues.1.queueingStrategy", "FIFO"),), "clusterQueues[1].queueingStrategy"),
    ("preemption policy", (("clusterQueues.0.preemption.withinClusterQueue", "Always"),),
     "clusterQueues[0].preemption.withinClusterQueue"),
    ("v1beta1 fungibility value", (("clusterQueues.0.flavorFungibility.whenCanBorrow", "Borrow"),),
     "clusterQueues[0].flavorFungibility.whenCanBorrow"),
    ("taint effect", (("resourceFlavors.1.nodeTaints.0.effect", "NoRun"),), "resourceFlavors[1].nodeTaints[0].effect"),
    ("selector operator", (("clusterQueues.1.namespaceSelector.matchExpressions.0.operator", "Equals"),),
     "clusterQueues[1].namespaceSelector.matchExpressions[0].operator"),
    ("provisioning class", (("provisioningChecks.0.provisioningClassName", "Best_Effort"),),
     "provisioningChecks[0].provisioningClassName"),
    # v1beta1-only fields, refused with the v1beta2 name.
    ("v1beta1 cohort", (("clusterQueues.1.cohort", "shared-cohort"),), "clusterQueues[1].cohort"),
    ("v1beta1 admissionChecks", (("clusterQueues.1.admissionChecks", ["cpu-provisioning"]),),
     "clusterQueues[1].admissionChecks"),
    ("v1beta1 retryDelayMinutes", (("provisioningChecks.1.retryDelayMinutes", 5),),
     "provisioningChecks[1].retryDelayMinutes"),
    # Kueue's CEL rules on preemption, fungibility and tolerations, with its defaults for unset fields.
    ("borrowing preemption without reclaim", (("clusterQueues.0.preemption.reclaimWithinCohort", DELETE),),
     "clusterQueues[0].preemption.borrowWithinCohort.policy"),
    ("preference without TryNextFlavor", (("clusterQueues.0.flavorFungibility.whenCanBorrow", DELETE),),
     "clusterQueues[0].flavorFungibility.preference"),
    ("toleration without key", (("resourceFlavors.1.tolerations.0.key", DELETE),),
     "resourceFlavors[1].tolerations[0].operator"),
    # Labels and selectors.
    ("label key", (("resourceFlavors.0.nodeLabels", {"agent pool": "scalepool"}),),
     "resourceFlavors[0].nodeLabels.agent pool"),
    ("label value", (("resourceFlavors.0.nodeLabels.agentpool", "scale pool"),),
     "resourceFlavors[0].nodeLabels.agentpool"),
    ("nine node labels", (("resourceFlavors.0.nodeLabels", NINE_LABELS),), "resourceFlavors[0].nodeLabels"),
    ("In without values", (("clusterQueues.1.namespaceSelector.matchExpressions.0.values", DELETE),),
     "clusterQueues[1].namespaceSelector.matchExpressions[0].values"),
    # Provisioning check details.
    ("negative retry count", (("provisioningChecks.1.retryStrategy.backoffLimitCount", -1),),
     "provisioningChecks[1].retryStrategy.backoffLimitCount"),
    ("parameter over 255", (("provisioningChecks.1.parameters.maxRunDurationSeconds", "9" * 256),),
     "provisioningChecks[1].parameters.maxRunDurationSeconds"),
]  # fmt: skip


@pytest.mark.parametrize(("changes", "key"), [case[1:] for case in BROKEN], ids=[case[0] for case in BROKEN])
def test_broken_rule_names_the_exact_key(changes, key):
    assert queues_error_keys(edited(GENERAL, *changes)) == [f"queues.{key}"]


@pytest.mark.parametrize(
    "changes",
    [
        pytest.param(((f"{CQ0_RG0}.flavors.0.resources.0.lendingLimit", "48000m"),), id="lending equal to nominal"),
        pytest.param(((f"{CQ0_CHECKS}.0.onFlavors", DELETE),), id="check on every flavor"),
        pytest.param((("resourceFlavors.1.tolerations.0", {"operator": "Exists"}),), id="toleration for every taint"),
        pytest.param((("resourceFlavors.0.nodeLabels", {}),), id="flavor without labels"),
        pytest.param((("clusterQueues.1.resourceGroups", DELETE), ("clusterQueues.1.admissionChecksStrategy", DELETE)),
                     id="no resource group (quota borrowed only)"),
        pytest.param((("clusterQueues.1.resourceGroups", []), ("clusterQueues.1.admissionChecksStrategy", DELETE)),
                     id="empty resource groups"),
        pytest.param((("clusterQueues.0.fairSharing", {"weight": "0"}),), id="weight zero"),
        pytest.param((("resourceFlavors.1.nodeTaints.1", {"key": "nvidia.com/gpu", "effect": "NoExecute"}),),
                     id="one key, two effects"),
        pytest.param((("clusterQueues.1.namespaceSelector.matchExpressions.0",
                       {"key": "team", "operator": "Exists"}),), id="Exists without values"),
        pytest.param((("clusterQueues.0.preemption.borrowWithinCohort.policy", "Never"),
                      ("clusterQueues.0.preemption.reclaimWithinCohort", DELETE)), id="no borrowing preemption"),
    ],
)  # fmt: skip
def test_good_variants_pass(changes):
    QueuesConfig.model_validate(edited(GENERAL, *changes))


def test_v1beta1_keys_are_refused_with_their_v1beta2_names():
    with pytest.raises(ValueError, match="v1beta2 renamed it cohortName"):
        QueuesConfig.model_validate(edited(GENERAL, ("clusterQueues.1.cohort", "shared-cohort")))


CONCURRENT = {"migration": {"mode": "TryPreferredFlavors"}}
TWO_FLAVORS = {"coveredResources": ["cpu"], "flavors": [
    {"name": "reservation", "resources": [{"name": "cpu", "nominalQuota": "4"}]},
    {"name": "spot", "resources": [{"name": "cpu", "nominalQuota": "16"}]}]}  # fmt: skip
SEVENTEEN_FLAVORS = {"coveredResources": ["cpu"], "flavors": [
    {"name": f"f{i}", "resources": [{"name": "cpu", "nominalQuota": "1"}]} for i in range(17)]}  # fmt: skip


def concurrent_section(policy: dict[str, Any] = CONCURRENT, **queue: Any) -> dict[str, Any]:
    groups = queue.pop("resourceGroups", [TWO_FLAVORS])
    names = sorted({flavor["name"] for group in groups for flavor in group["flavors"]})
    return {
        "resourceFlavors": [{"name": name} for name in names],
        "clusterQueues": [{"name": "cq", "resourceGroups": groups, "concurrentAdmissionPolicy": policy, **queue}],
    }


@pytest.mark.parametrize(
    ("section", "key"),
    [
        (concurrent_section(resourceGroups=[TWO_FLAVORS, {"coveredResources": ["memory"], "flavors": [
            {"name": "other", "resources": [{"name": "memory", "nominalQuota": "1Gi"}]}]}]),
         "clusterQueues[0].resourceGroups"),
        (concurrent_section(resourceGroups=[SEVENTEEN_FLAVORS]), "clusterQueues[0].resourceGroups[0].flavors"),
        (concurrent_section({"migration": {"mode": "TryPreferredFlavors",
                                           "constraints": {"lastAcceptableFlavorName": "on-demand"}}}),
         "clusterQueues[0].concurrentAdmissionPolicy.migration.constraints.lastAcceptableFlavorName"),
        (concurrent_section({"migration": {"mode": "RetainFirstAdmission",
                                           "constraints": {"lastAcceptableFlavorName": "spot"}}}),
         "clusterQueues[0].concurrentAdmissionPolicy.migration.constraints"),
        (concurrent_section(queueingStrategy="StrictFIFO"), "clusterQueues[0].queueingStrategy"),
        (concurrent_section({"migration": {}}), "clusterQueues[0].concurrentAdmissionPolicy.migration.mode"),
    ],
    ids=["two groups", "17 flavors", "last flavor not the queue's", "constraints without migration",
         "StrictFIFO", "no mode"],
)  # fmt: skip
def test_a_concurrent_admission_policy_kueues_webhook_refuses_is_refused_naming_the_key(section, key):
    assert queues_error_keys(section) == [f"queues.{key}"]


def test_a_concurrent_admission_policy_kueue_accepts_is_accepted():
    policy = {"migration": {"mode": "TryPreferredFlavors", "constraints": {"lastAcceptableFlavorName": "spot"}}}
    QueuesConfig.model_validate(concurrent_section(policy))
    QueuesConfig.model_validate(concurrent_section({"migration": {"mode": "RetainFirstAdmission"}}))


def test_a_taint_time_without_a_zone_is_refused_naming_the_key():
    taint = {"key": "spot", "effect": "NoExecute", "timeAdded": "2025-01-02T03:04:05"}
    section = {"resourceFlavors": [{"name": "spot", "nodeTaints": [taint]}]}
    assert queues_error_keys(section) == ["queues.resourceFlavors[0].nodeTaints[0].timeAdded"]
