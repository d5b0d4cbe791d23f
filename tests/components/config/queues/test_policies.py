"""Preemption, flavor fungibility and admission scope of a ClusterQueue, with Kueue's CEL rules and defaults."""

from __future__ import annotations

import pytest

from components.config.queues.policies import AdmissionScope, FlavorFungibility, Preemption
from tests.support.config import model_error_keys


@pytest.mark.parametrize(
    ("preemption", "key"),
    [
        ({"borrowWithinCohort": {"policy": "LowerPriority"}}, "borrowWithinCohort.policy"),
        ({"reclaimWithinCohort": "Never", "borrowWithinCohort": {"policy": "LowerPriority"}},
         "borrowWithinCohort.policy"),
        ({"borrowWithinCohort": {"maxPriorityThreshold": 2**31}}, "borrowWithinCohort.maxPriorityThreshold"),
        ({"withinClusterQueue": "Always"}, "withinClusterQueue"),
    ],
)  # fmt: skip
def test_preemption_refuses_what_kueue_refuses(preemption, key):
    assert model_error_keys(Preemption, preemption) == [key]


def test_preemption_to_borrow_with_reclaim_is_accepted():
    Preemption.model_validate({"reclaimWithinCohort": "Any", "borrowWithinCohort": {"policy": "LowerPriority"}})


@pytest.mark.parametrize(
    ("fungibility", "ok"),
    [
        ({"preference": "BorrowingOverPreemption"}, False),  # Kueue's defaults: MayStopSearch / TryNextFlavor
        ({"whenCanBorrow": "TryNextFlavor", "preference": "PreemptionOverBorrowing"}, True),
        ({"whenCanBorrow": "TryNextFlavor", "whenCanPreempt": "MayStopSearch", "preference": "PreemptionOverBorrowing"},
         False),
        ({"whenCanBorrow": "TryNextFlavor", "whenCanPreempt": "MayStopSearch"}, True),
    ],
)  # fmt: skip
def test_a_fungibility_preference_needs_try_next_flavor_both_ways(fungibility, ok):
    if ok:
        FlavorFungibility.model_validate(fungibility)
    else:
        assert model_error_keys(FlavorFungibility, fungibility) == ["preference"]


def test_admission_scope_takes_kueues_two_modes_only():
    AdmissionScope.model_validate({"admissionMode": "NoAdmissionFairSharing"})
    assert model_error_keys(AdmissionScope, {"admissionMode": "UsageBased"}) == ["admissionMode"]
