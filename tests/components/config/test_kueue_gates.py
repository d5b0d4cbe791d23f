"""Kueue 0.17's feature gates: unknown, removed and locked gates and broken dependencies are refused by name."""

from __future__ import annotations

import pytest

from components.config.base import RuleViolation
from components.config.kueue_gates import DEFAULT_OFF, DEFAULT_ON, KNOWN, LOCKED_ON, REQUIRES, effective, require_valid


def violation(gates: dict[str, bool]) -> RuleViolation:
    with pytest.raises(RuleViolation) as caught:
        require_valid(gates)
    return caught.value


def test_every_gate_is_listed_once_and_dependencies_name_known_gates():
    names = LOCKED_ON + DEFAULT_ON + DEFAULT_OFF
    assert len(names) == len(set(names)) == len(KNOWN) == 63
    assert {need for needs in REQUIRES.values() for need in needs} | set(REQUIRES) <= KNOWN


@pytest.mark.parametrize(
    "gates",
    [
        {},
        {"PartialAdmission": False},
        {"LendingLimit": True},
        {"ElasticJobsViaWorkloadSlices": True, "ElasticJobsViaWorkloadSlicesWithTAS": True},
        {
            name: False
            for name in ("TopologyAwareScheduling", *(n for n in REQUIRES if "TopologyAwareScheduling" in REQUIRES[n]))
        },
    ],
)
def test_gate_sets_the_manager_starts_with_are_accepted(gates):
    require_valid(gates)


@pytest.mark.parametrize(
    ("gates", "key", "says"),
    [
        ({"ProvisioningACC": True}, "featureGates.ProvisioningACC", "removed in 0.15"),
        ({"partialAdmission": True}, "featureGates.partialAdmission", "no such gate"),
        ({"HierarchicalCohorts": False}, "featureGates.HierarchicalCohorts", "locked to true"),
        (
            {"TopologyAwareScheduling": False},
            "featureGates.TopologyAwareScheduling",
            "TASProfileMixed is on by default",
        ),
        ({"DRAExtendedResources": True}, "featureGates.DRAExtendedResources", "requires DynamicResourceAllocation"),
    ],
)
def test_gate_sets_the_manager_exits_on_are_refused_by_name(gates, key, says):
    caught = violation(gates)
    assert caught.key == key and says in caught.allowed


def test_effective_values_apply_the_gates_over_kueues_defaults():
    values = effective({"TASProfileMixed": False, "PriorityBoost": True})
    assert values["TASProfileMixed"] is False and values["PriorityBoost"] is True
    assert values["TopologyAwareScheduling"] is True and values["SchedulingEquivalenceHashing"] is False
