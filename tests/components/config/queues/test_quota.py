"""Quota as ClusterQueues and Cohorts hold it: resource groups, their flavors and limits, each rule with its key."""

from __future__ import annotations

from typing import Any

import pytest

from components.config.queues.queues import QueuesConfig
from tests.support.queues import DELETE, GENERAL, edited, queues_error_keys

CQ1_RG0 = "clusterQueues.1.resourceGroups.0"
SWAPPED = [{"name": "memory", "nominalQuota": "64Gi"}, {"name": "cpu", "nominalQuota": "16"}]

BROKEN: list[tuple[str, tuple[tuple[str, Any], ...], str]] = [
    # Every flavor lists every covered resource, in order; a resource and a flavor belong to one group.
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
    # Borrowing and lending limits only within a cohort (a parent, for a Cohort).
    ("borrowing without cohort", (
        (f"{CQ1_RG0}.flavors.0.resources.0.borrowingLimit", "4"),
        ("clusterQueues.1.cohortName", DELETE),
    ), "clusterQueues[1].resourceGroups[0].flavors[0].resources[0].borrowingLimit"),
    ("cohort borrowing without parent", (("cohorts.1.parentName", DELETE),),
     "cohorts[1].resourceGroups[0].flavors[0].resources[0].borrowingLimit"),
    # Quantities and resource names.
    ("negative quantity", ((f"{CQ1_RG0}.flavors.0.resources.0.nominalQuota", "-1"),),
     "clusterQueues[1].resourceGroups[0].flavors[0].resources[0].nominalQuota"),
    ("resource name", ((f"{CQ1_RG0}.coveredResources.0", "CPU cores"),),
     "clusterQueues[1].resourceGroups[0].coveredResources[0]"),
]  # fmt: skip


@pytest.mark.parametrize(("changes", "key"), [case[1:] for case in BROKEN], ids=[case[0] for case in BROKEN])
def test_broken_rule_names_the_exact_key(changes, key):
    assert queues_error_keys(edited(GENERAL, *changes)) == [f"queues.{key}"]


def test_a_repeated_resource_names_the_rule_it_breaks():
    changes = (
        ("clusterQueues.0.resourceGroups.1.coveredResources", ["cpu"]),
        ("clusterQueues.0.resourceGroups.1.flavors.0.resources.0.name", "cpu"),
    )
    with pytest.raises(ValueError, match="covered resources across groups must be unique"):
        QueuesConfig.model_validate(edited(GENERAL, *changes))


def test_an_integer_quota_is_a_quantity():
    QueuesConfig.model_validate(edited(GENERAL, (f"{CQ1_RG0}.flavors.0.resources.1.nominalQuota", 68719476736)))
