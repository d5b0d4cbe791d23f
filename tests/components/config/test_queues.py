"""The ``queues`` section: seed defaults, and every rule with a good and a bad case naming the exact key."""

from __future__ import annotations

from typing import Any

import pytest

from components.config.base import ConfigError
from components.config.queues import QueuesConfig
from components.config.stack import load_stack_config
from tests.support.config import as_config, model_error_keys
from tests.support.queues import DELETE, GENERAL, edited


def problem_keys(section: dict[str, Any]) -> list[str]:
    return model_error_keys(QueuesConfig, section, "queues")


CQ0_RG0 = "clusterQueues.0.resourceGroups.0"
CQ1_RG0 = "clusterQueues.1.resourceGroups.0"
CQ0_CHECKS = "clusterQueues.0.admissionChecksStrategy.admissionChecks"
SWAPPED = [{"name": "memory", "nominalQuota": "64Gi"}, {"name": "cpu", "nominalQuota": "16"}]
NINE_LABELS = {f"label-{i}": "x" for i in range(9)}

BROKEN: list[tuple[str, tuple[tuple[str, Any], ...], str]] = [
    # DNS-1123 names: subdomains for cluster-scoped objects, labels for namespaces and config names.
    ("flavor name", (("resourceFlavors.0.name", "Scale_Pool"),), "resourceFlavors[0].name"),
    ("namespace with a dot", (("namespaces.0", "team.a"),), "namespaces[0]"),
    ("config name with a dot", (("provisioningChecks.0.configName", "cpu.provreq"),),
     "provisioningChecks[0].configName"),
    ("local queue name over 63", (("localQueues.0.name", "q" * 64),), "localQueues[0].name"),
    ("builtin namespace", (("namespaces.1", "kube-system"),), "namespaces[1]"),
    # Unique names per kind.
    ("duplicate namespace", (("namespaces.1", "team-a"),), "namespaces[1]"),
    ("duplicate flavor", (("resourceFlavors.2.name", "scalepool"),), "resourceFlavors[2].name"),
    ("duplicate check", (("provisioningChecks.1.name", "cpu-provisioning"),), "provisioningChecks[1].name"),
    ("duplicate config", (("provisioningChecks.1.configName", "cpu-provreq-config"),),
     "provisioningChecks[1].configName"),
    ("duplicate cohort", (("cohorts.1.name", "org"),), "cohorts[1].name"),
    ("duplicate cluster queue", (("clusterQueues.1.name", "team-a-cq"),), "clusterQueues[1].name"),
    ("duplicate local queue", (("localQueues.1.name", "team-a"),), "localQueues[1].name"),
    # Admission checks: they exist, once per queue, gate only the queue's flavors, manage covered resources.
    ("unknown check", (("clusterQueues.1.admissionChecksStrategy.admissionChecks.0.name", "cas-provisioning"),),
     "clusterQueues[1].admissionChecksStrategy.admissionChecks[0].name"),
    ("check listed twice", ((f"{CQ0_CHECKS}.1", {"name": "cpu-provisioning"}),),
     "clusterQueues[0].admissionChecksStrategy.admissionChecks[1].name"),
    ("onFlavors outside the queue", ((f"{CQ0_CHECKS}.0.onFlavors", ["scalepool", "spot"]),),
     "clusterQueues[0].admissionChecksStrategy.admissionChecks[0].onFlavors[1]"),
    ("managed resource not on the gated flavor", ((f"{CQ0_CHECKS}.0.onFlavors", ["gpu-a100"]),),
     "provisioningChecks[0].managedResources[0]"),
    ("managed resource no queue covers", (("provisioningChecks.1.managedResources", ["nvidia.com/gpu", "memory"]),),
     "provisioningChecks[1].managedResources[1]"),
    # Resource groups: every flavor lists every covered resource, in order, once; flavors are configured.
    ("flavor misses a resource", ((f"{CQ1_RG0}.flavors.0.resources", [{"name": "cpu", "nominalQuota": "16"}]),),
     "clusterQueues[1].resourceGroups[0].flavors[0].resources"),
    ("resources out of order", ((f"{CQ1_RG0}.flavors.0.resources", SWAPPED),),
     "clusterQueues[1].resourceGroups[0].flavors[0].resources[0].name"),
    ("resource in two groups", (
        ("clusterQueues.0.resourceGroups.1.coveredResources", ["cpu"]),
        ("clusterQueues.0.resourceGroups.1.flavors.0.resources.0.name", "cpu"),
    ), "clusterQueues[0].resourceGroups[1].coveredResources[0]"),
    ("flavor in two groups", (("clusterQueues.0.resourceGroups.1.flavors.0.name", "scalepool"),),
     "clusterQueues[0].resourceGroups[1].flavors[0].name"),
    ("queue flavor not configured", ((f"{CQ1_RG0}.flavors.0.name", "spot"),),
     "clusterQueues[1].resourceGroups[0].flavors[0].name"),
    ("cohort flavor not configured", (("cohorts.1.resourceGroups.0.flavors.0.name", "spot"),),
     "cohorts[1].resourceGroups[0].flavors[0].name"),
    ("no resource group", (("clusterQueues.1.resourceGroups", []),), "clusterQueues[1].resourceGroups"),
    # Limits: only inside a cohort (a parent, for a Cohort); lending never above the nominal quota.
    ("borrowing without cohort", (
        (f"{CQ1_RG0}.flavors.0.resources.0.borrowingLimit", "4"),
        ("clusterQueues.1.cohortName", DELETE),
    ), "clusterQueues[1].resourceGroups[0].flavors[0].resources[0].borrowingLimit"),
    ("lending without cohort", (("clusterQueues.0.cohortName", DELETE),),
     "clusterQueues[0].resourceGroups[0].flavors[0].resources[0].lendingLimit"),
    ("cohort borrowing without parent", (("cohorts.1.parentName", DELETE),),
     "cohorts[1].resourceGroups[0].flavors[0].resources[0].borrowingLimit"),
    ("lending above nominal", ((f"{CQ0_RG0}.flavors.0.resources.0.lendingLimit", "49"),),
     "clusterQueues[0].resourceGroups[0].flavors[0].resources[0].lendingLimit"),
    ("cohort cycle", (("cohorts.0.parentName", "shared-cohort"),), "cohorts[0].parentName"),
    # Local queues point at a configured queue, in a namespace the stack creates.
    ("unknown cluster queue", (("localQueues.2.clusterQueue", "team-c-cq"),), "localQueues[2].clusterQueue"),
    ("namespace not created", (("localQueues.2.namespace", "team-c"),), "localQueues[2].namespace"),
    # Quantities.
    ("negative quantity", ((f"{CQ1_RG0}.flavors.0.resources.0.nominalQuota", "-1"),),
     "clusterQueues[1].resourceGroups[0].flavors[0].resources[0].nominalQuota"),
    ("resource name", ((f"{CQ1_RG0}.coveredResources.0", "CPU cores"),),
     "clusterQueues[1].resourceGroups[0].coveredResources[0]"),
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
    assert problem_keys(edited(GENERAL, *changes)) == [f"queues.{key}"]


def test_defaults_are_the_seed_objects():
    config = QueuesConfig()
    assert config.namespaces == ["cas-kueue-demo"]
    assert [(f.name, f.node_labels) for f in config.resource_flavors] == [("scalepool", {"agentpool": "scalepool"})]
    [check] = config.provisioning_checks
    assert (check.name, check.config_name, check.managed_resources) == (
        "cas-provisioning",
        "cas-provreq-config",
        ["cpu"],
    )
    assert check.provisioning_class_name == "best-effort-atomic-scale-up.autoscaling.x-k8s.io"
    [queue] = config.cluster_queues
    assert (queue.name, queue.queueing_strategy, queue.cohort_name) == ("cas-cluster-queue", "BestEffortFIFO", None)
    [group] = queue.resource_groups
    assert group.covered_resources == ["cpu", "memory"]
    assert [(r.name, r.nominal_quota) for r in group.flavors[0].resources] == [("cpu", "100"), ("memory", "200Gi")]
    assert queue.admission_checks_strategy is not None
    [ref] = queue.admission_checks_strategy.admission_checks
    assert (ref.name, ref.on_flavors) == ("cas-provisioning", ["scalepool"])
    assert [(q.namespace, q.name, q.cluster_queue) for q in config.local_queues] == [
        ("cas-kueue-demo", "cas-local-queue", "cas-cluster-queue")
    ]
    assert config.cohorts == []
    assert config.uses_provisioning_requests


def test_general_config_is_valid_and_quantities_become_strings():
    config = QueuesConfig.model_validate(GENERAL)
    scalepool_cpu = config.cluster_queues[0].resource_groups[0].flavors[1].resources[0]
    assert scalepool_cpu.nominal_quota == "48"
    assert len(config.local_queues) == 3


def test_overriding_one_list_keeps_the_other_seed_defaults():
    queue = edited(GENERAL["clusterQueues"][1], ("name", "cas-cluster-queue"), ("cohortName", DELETE))
    queue["admissionChecksStrategy"] = {"admissionChecks": [{"name": "cas-provisioning"}]}
    config = QueuesConfig.model_validate({"clusterQueues": [queue]})
    assert [f.name for f in config.resource_flavors] == ["scalepool"]
    assert [q.name for q in config.local_queues] == ["cas-local-queue"]


def test_without_provisioning_checks_kueue_needs_no_provisioning_requests():
    queue = edited(GENERAL["clusterQueues"][1], ("admissionChecksStrategy", DELETE), ("cohortName", DELETE))
    config = QueuesConfig.model_validate(
        {"provisioningChecks": [], "clusterQueues": [queue], "localQueues": [], "namespaces": []}
    )
    assert not config.uses_provisioning_requests


@pytest.mark.parametrize(
    "changes",
    [
        pytest.param((("localQueues.1.namespace", "team-b"), ("localQueues.1.name", "team-a")),
                     id="same name, other ns"),
        pytest.param(((f"{CQ0_RG0}.flavors.0.resources.0.lendingLimit", "48000m"),), id="lending equal to nominal"),
        pytest.param(((f"{CQ0_CHECKS}.0.onFlavors", DELETE),), id="check on every flavor"),
        pytest.param((("provisioningChecks.0.managedResources", DELETE),), id="check manages every resource"),
        pytest.param((("cohorts.1.parentName", "not-configured"),), id="implicit parent cohort"),
        pytest.param((("clusterQueues.0.cohortName", "implicit-cohort"),), id="implicit queue cohort"),
        pytest.param((("resourceFlavors.1.tolerations.0", {"operator": "Exists"}),), id="toleration for every taint"),
        pytest.param((("resourceFlavors.0.nodeLabels", {}),), id="flavor without labels"),
        pytest.param((("provisioningChecks.0.name", "cpu.provisioning"),
                      (f"{CQ0_CHECKS}.0.name", "cpu.provisioning"),
                      ("clusterQueues.1.admissionChecksStrategy.admissionChecks.0.name", "cpu.provisioning")),
                     id="check name is a subdomain"),
        pytest.param(((f"{CQ1_RG0}.flavors.0.resources.1.nominalQuota", 68719476736),), id="integer quantity"),
        pytest.param((("clusterQueues.1.namespaceSelector.matchExpressions.0",
                       {"key": "team", "operator": "Exists"}),), id="Exists without values"),
        pytest.param((("clusterQueues.0.preemption.borrowWithinCohort.policy", "Never"),
                      ("clusterQueues.0.preemption.reclaimWithinCohort", DELETE)), id="no borrowing preemption"),
    ],
)  # fmt: skip
def test_good_variants_pass(changes):
    QueuesConfig.model_validate(edited(GENERAL, *changes))


def test_stack_loader_prefixes_the_section_key():
    sections = {
        "existingCluster": {"source": "aks", "resourceGroupName": "rg", "clusterName": "c"},
        "queues": edited(GENERAL, ("clusterQueues.1.cohort", "shared-cohort")),
    }
    with pytest.raises(ConfigError) as caught:
        load_stack_config(as_config(sections))
    assert caught.value.keys == ["elastic-capacity:queues.clusterQueues[1].cohort"]
    assert "cohortName" in str(caught.value)
