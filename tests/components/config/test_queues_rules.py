"""The rules between the objects of the ``queues`` section: unique names, names that resolve, a cohort tree."""

from __future__ import annotations

from typing import Any

import pytest

from components.config.queues import QueuesConfig
from tests.support.queues import DELETE, GENERAL, edited, queues_error_keys

CQ0_CHECKS = "clusterQueues.0.admissionChecksStrategy.admissionChecks"

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


def test_a_duplicate_says_which_names_must_be_unique():
    with pytest.raises(ValueError, match="ClusterQueue names must be unique; this one is already used"):
        QueuesConfig.model_validate(edited(GENERAL, ("clusterQueues.1.name", "team-a-cq")))
