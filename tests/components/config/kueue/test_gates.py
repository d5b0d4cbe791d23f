"""Kueue's feature gates per minor: unknown, removed and locked gates and broken dependencies are refused by name."""

from __future__ import annotations

import pytest

from components.config.base import RuleViolation
from components.config.kueue.gates import effective, require_valid
from components.config.kueue.profiles import PROFILES

P17, P18, P19 = PROFILES["0.17"], PROFILES["0.18"], PROFILES["0.19"]


def violation(gates: dict[str, bool], profile=P17) -> RuleViolation:
    with pytest.raises(RuleViolation) as caught:
        require_valid(gates, profile)
    return caught.value


@pytest.mark.parametrize(("profile", "count"), [(P17, 63), (P18, 88), (P19, 89)])
def test_every_gate_is_listed_once_and_dependencies_name_known_gates(profile, count):
    table = profile.gates
    groups = (table.locked_on, table.locked_off, table.default_on, table.default_off)
    assert sum(map(len, groups)) == len(table.known) == count
    assert {need for needs in table.requires.values() for need in needs} | set(table.requires) <= table.known
    assert not set(table.removed) & table.known


@pytest.mark.parametrize(
    "gates",
    [
        {},
        {"PartialAdmission": False},
        {"LendingLimit": True},
        {"ElasticJobsViaWorkloadSlices": True, "ElasticJobsViaWorkloadSlicesWithTAS": True},
        {name: False for name in ("TopologyAwareScheduling", *P17.gates.requires)},
    ],
)
def test_gate_sets_the_017_manager_starts_with_are_accepted(gates):
    require_valid(gates, P17)


@pytest.mark.parametrize(
    ("gates", "key", "says"),
    [
        ({"ProvisioningACC": True}, "featureGates.ProvisioningACC", "removed in 0.15"),
        ({"partialAdmission": True}, "featureGates.partialAdmission", "Kueue 0.17 knows no such gate"),
        ({"HierarchicalCohorts": False}, "featureGates.HierarchicalCohorts", "locked to true in Kueue 0.17"),
        (
            {"TopologyAwareScheduling": False},
            "featureGates.TopologyAwareScheduling",
            "TASProfileMixed is on by default",
        ),
        ({"DRAExtendedResources": True}, "featureGates.DRAExtendedResources", "requires DynamicResourceAllocation"),
    ],
)
def test_gate_sets_the_017_manager_exits_on_are_refused_by_name(gates, key, says):
    caught = violation(gates)
    assert caught.key == key and says in caught.allowed


@pytest.mark.parametrize(
    ("profile", "gates", "says"),
    [
        (P18, {"DynamicResourceAllocation": True}, "locked to false in Kueue 0.18"),
        (P18, {"MultiKueueWaitForWorkloadAdmitted": False}, "locked to true in Kueue 0.18"),
        (P18, {"UnadmittedWorkloadsExplicitStatus": True}, "requires UnadmittedWorkloadsObservability"),
        (P18, {"KueueDRAIntegration": False}, None),
        (P19, {"LendingLimit": True}, "Kueue 0.19 removed it"),
        (P19, {"DynamicResourceAllocation": True}, "use KueueDRAIntegration"),
        (P19, {"ManagedJobsNamespaceSelectorAlwaysRespected": False}, "locked to true in Kueue 0.19"),
        (P19, {"MultiKueueAllowInsecureKubeconfigs": True}, "locked to false in Kueue 0.19"),
        (P19, {"KueueDRAIntegration": False}, "KueueDRAIntegrationExtendedResource is on by default"),
        (P19, {"DisableWaitForPodsReady": True}, None),
        (P17, {"DisableWaitForPodsReady": True}, "Kueue 0.17 knows no such gate"),
    ],
)
def test_each_minor_refuses_what_its_manager_exits_on(profile, gates, says):
    if says is None:
        require_valid(gates, profile)
    else:
        assert says in violation(gates, profile).allowed


def test_effective_values_apply_the_gates_over_the_minors_defaults():
    values = effective({"TASProfileMixed": False, "PriorityBoost": True}, P17)
    assert values["TASProfileMixed"] is False and values["PriorityBoost"] is True
    assert values["TopologyAwareScheduling"] is True and values["SchedulingEquivalenceHashing"] is False
    assert effective({}, P18)["SchedulingEquivalenceHashing"] is True
    assert effective({}, P19)["AdmissionGatedBy"] is True and effective({}, P18)["AdmissionGatedBy"] is False
