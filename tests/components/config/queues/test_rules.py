"""The rules between the objects of the ``queues`` section: unique names, names that resolve, a cohort tree."""

from __future__ import annotations

from typing import Any

import pytest

from components.config.queues.queues import QueuesConfig
from tests.support.queues import DELETE, GENERAL, edited, queues_error_keys

CQ0_CHECKS = "clusterQueues.0.admissionChecksStrategy.admissionChecks"
NAME = "kubernetes.io/metadata.name"
PRC_REF = {"apiGroup": "kueue.x-k8s.io", "kind": "ProvisioningRequestConfig", "name": "elsewhere"}

BROKEN: list[tuple[str, tuple[tuple[str, Any], ...], str]] = [
    ("builtin namespace", (("namespaces.1", "kube-system"),), "namespaces[1]"),
    # Unique names per kind: the repeat is named, not its list.
    ("duplicate namespace", (("namespaces.1", "team-a"),), "namespaces[1]"),
    ("duplicate flavor", (("resourceFlavors.2.name", "scalepool"),), "resourceFlavors[2].name"),
    ("duplicate check", (("provisioningChecks.1.name", "cpu-provisioning"),), "provisioningChecks[1].name"),
    ("duplicate config", (("provisioningChecks.1.configName", "cpu-provreq-config"),),
     "provisioningChecks[1].configName"),
    ("duplicate cohort", (("cohorts.1.name", "org"),), "cohorts[1].name"),
    ("duplicate cluster queue", (("clusterQueues.1.name", "team-a-cq"),), "clusterQueues[1].name"),
    ("duplicate local queue", (("localQueues.1.name", "team-a"),), "localQueues[1].name"),
    # Names that resolve: flavors, checks, ClusterQueues and namespaces the section configures.
    ("queue flavor not configured", (("clusterQueues.1.resourceGroups.0.flavors.0.name", "spot"),),
     "clusterQueues[1].resourceGroups[0].flavors[0].name"),
    ("cohort flavor not configured", (("cohorts.1.resourceGroups.0.flavors.0.name", "spot"),),
     "cohorts[1].resourceGroups[0].flavors[0].name"),
    ("unknown check", (("clusterQueues.1.admissionChecksStrategy.admissionChecks.0.name", "cas-provisioning"),),
     "clusterQueues[1].admissionChecksStrategy.admissionChecks[0].name"),
    ("unknown cluster queue", (("localQueues.2.clusterQueue", "team-c-cq"),), "localQueues[2].clusterQueue"),
    ("namespace not created", (("localQueues.2.namespace", "team-c"),), "localQueues[2].namespace"),
    ("namespace both created and existing", (("existingNamespaces", ["default", "team-a"]),), "existingNamespaces[1]"),
    ("unknown topology", (("resourceFlavors.0.topologyName", "default"),), "resourceFlavors[0].topologyName"),
    ("unknown config of a check", (("admissionChecks", [{"name": "c", "controllerName": "x", "parameters": PRC_REF}]),),
     "admissionChecks[0].parameters.name"),
    ("check name used twice across kinds", (("admissionChecks", [{"name": "cpu-provisioning",
                                                                   "controllerName": "x"}]),),
     "admissionChecks[0].name"),
    ("config name used twice across kinds", (("provisioningRequestConfigs", [{"name": "gpu-provreq-config"}]),),
     "provisioningRequestConfigs[0].name"),
    # Lints: Kueue accepts these, and then admits nothing.
    ("selector unset", (("clusterQueues.1.namespaceSelector", None),), "clusterQueues[1].namespaceSelector"),
    ("selector skips the namespace", (("clusterQueues.0.namespaceSelector", {"matchLabels": {NAME: "team-b"}}),),
     "clusterQueues[0].namespaceSelector"),
    ("cohort cycle", (("cohorts.0.parentName", "shared-cohort"),), "cohorts[0].parentName"),
    # A provisioning check must see the resources it manages.
    ("managed resource not on the gated flavor", ((f"{CQ0_CHECKS}.0.onFlavors", ["gpu-a100"]),),
     "provisioningChecks[0].managedResources[0]"),
    ("managed resource no queue covers", (("provisioningChecks.1.managedResources", ["nvidia.com/gpu", "memory"]),),
     "provisioningChecks[1].managedResources[1]"),
]  # fmt: skip


@pytest.mark.parametrize(("changes", "key"), [case[1:] for case in BROKEN], ids=[case[0] for case in BROKEN])
def test_broken_rule_names_the_exact_key(changes, key):
    assert queues_error_keys(edited(GENERAL, *changes)) == [f"queues.{key}"]


@pytest.mark.parametrize(
    "changes",
    [
        pytest.param((("localQueues.1.namespace", "team-b"), ("localQueues.1.name", "team-a")),
                     id="same name, other ns"),
        pytest.param((("provisioningChecks.0.managedResources", DELETE),), id="check manages every resource"),
        pytest.param((("cohorts.1.parentName", "not-configured"),), id="implicit parent cohort"),
        pytest.param((("clusterQueues.0.cohortName", "implicit-cohort"),), id="implicit queue cohort"),
        pytest.param((("provisioningChecks.0.name", "cpu.provisioning"),
                      (f"{CQ0_CHECKS}.0.name", "cpu.provisioning"),
                      ("clusterQueues.1.admissionChecksStrategy.admissionChecks.0.name", "cpu.provisioning")),
                     id="check name is a subdomain"),
    ],
)  # fmt: skip
def test_good_variants_pass(changes):
    QueuesConfig.model_validate(edited(GENERAL, *changes))


@pytest.mark.parametrize(
    "changes",
    [
        pytest.param((("existingNamespaces", ["default"]), ("localQueues.2.namespace", "default")),
                     id="local queue in an existing namespace"),
        pytest.param((("external", {"resourceFlavors": ["spot"]}),
                      ("clusterQueues.1.resourceGroups.0.flavors.0.name", "spot")), id="external flavor"),
        pytest.param((("external", {"admissionChecks": ["org-approval"]}),
                      ("clusterQueues.1.admissionChecksStrategy.admissionChecks.0.name", "org-approval")),
                     id="external check"),
        pytest.param((("external", {"clusterQueues": ["org-cq"]}), ("localQueues.2.clusterQueue", "org-cq")),
                     id="external cluster queue"),
        pytest.param((("external", {"provisioningRequestConfigs": ["elsewhere"]}),
                      ("admissionChecks", [{"name": "c", "controllerName": "x", "parameters": PRC_REF}])),
                     id="check on an external config"),
        pytest.param((("external", {"topologies": ["default"]}), ("resourceFlavors.0.topologyName", "default")),
                     id="external topology"),
        pytest.param((("cohorts.0.parentName", "shared-cohort"), ("lints", {"cohortTree": False})),
                     id="cycle with its lint off"),
        pytest.param((("clusterQueues.1.namespaceSelector", None), ("lints", {"localQueueNamespaceSelected": False})),
                     id="unset selector with its lint off"),
        pytest.param((("provisioningChecks.1.managedResources", ["memory"]),
                      ("lints", {"managedResourcesCovered": False})), id="uncovered resource with its lint off"),
    ],
)  # fmt: skip
def test_what_kueue_accepts_is_accepted_once_declared(changes):
    QueuesConfig.model_validate(edited(GENERAL, *changes))


def test_a_check_on_a_config_of_the_stack_is_held_to_its_managed_resources():
    check = {"name": "capacity", "controllerName": "kueue.x-k8s.io/provisioning-request", "parameters": {
        **PRC_REF, "name": "capacity"}}  # fmt: skip
    queues = edited(
        GENERAL,
        ("provisioningRequestConfigs", [{"name": "capacity", "managedResources": ["nvidia.com/gpu"]}]),
        ("admissionChecks", [check]),
        ("clusterQueues.1.admissionChecksStrategy.admissionChecks.0.name", "capacity"),
    )
    assert queues_error_keys(queues) == ["queues.provisioningRequestConfigs[0].managedResources[0]"]


def test_a_duplicate_says_which_names_must_be_unique():
    with pytest.raises(ValueError, match="ClusterQueue names must be unique; this one is already used"):
        QueuesConfig.model_validate(edited(GENERAL, ("clusterQueues.1.name", "team-a-cq")))
