"""Rules across sections that decide whether a stack can work: errors for what the stack decides, warnings from the
documented VM size table for what the cloud decides."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from components.config.aks.vm_sizes import VM_SIZES
from components.config.base import ConfigError
from components.config.feasibility import allocatable, most_allocatable
from components.config.loader import load_stack_config
from tests.support.config import WALKTHROUGH, WALKTHROUGH_OBJECTS, as_config, stack_error_keys

SMOKE = {"enabled": True}


def on_the_walkthrough(sections: dict[str, Any]) -> dict[str, str]:
    """``sections`` on the article's queues, which the smoke Job's defaults submit to."""
    return as_config({**WALKTHROUGH, **sections})


def warnings_for(sections: dict[str, Any]) -> list[tuple[str, str]]:
    return load_stack_config(on_the_walkthrough(sections)).warnings()


def test_the_article_stack_can_work_and_warns_of_nothing():
    assert warnings_for({"aks": {"preset": "aks-walkthrough"}, "smokeJob": SMOKE}) == []


def test_allocatable_takes_off_what_aks_reserves():
    cores, memory = allocatable(VM_SIZES["Standard_D4s_v3"])
    assert cores == Decimal("3.86")
    assert memory == 12 * 2**30


@pytest.mark.parametrize(
    ("sections", "key"),
    [
        ({"aks": {"preset": "aks-walkthrough"}, "kueue": {"tolerations": []}}, "elastic-capacity:kueue.tolerations"),
        (
            {"aks": {"preset": "aks-walkthrough"}, "kueue": {"frameworks": ["pod"]}, "smokeJob": SMOKE},
            "elastic-capacity:kueue.frameworks",
        ),
        ({"aks": {"preset": "aks-walkthrough"}, "smokeJob": {**SMOKE, "cpu": "40"}}, "elastic-capacity:smokeJob.cpu"),
        (
            {"aks": {"preset": "aks-walkthrough"}, "smokeJob": {**SMOKE, "memory": "100Gi"}},
            "elastic-capacity:smokeJob.memory",
        ),
    ],
)
def test_what_cannot_work_is_refused_naming_the_key(sections, key):
    assert stack_error_keys({**WALKTHROUGH, **sections}) == [key]


def test_kueue_off_the_system_pool_needs_no_toleration_of_its_taint():
    load_stack_config(
        as_config(
            {
                "aks": {"preset": "aks-walkthrough"},
                "kueue": {"tolerations": [], "nodeSelector": {"agentpool": "scalepool"}},
            }
        )
    )


def test_a_queue_in_a_cohort_may_borrow_what_the_job_needs_beyond_its_quota():
    queues = {"clusterQueues": [{"name": "cas-cluster-queue", "cohortName": "org", "resourceGroups": [
        {"coveredResources": ["cpu", "memory"], "flavors": [{"name": "scalepool", "resources": [
            {"name": "cpu", "nominalQuota": "1"}, {"name": "memory", "nominalQuota": "1Gi"}]}]}],
        "admissionChecksStrategy": {"admissionChecks": [{"name": "cas-provisioning"}]}}]}  # fmt: skip
    load_stack_config(
        as_config(
            {"aks": {"preset": "aks-walkthrough"}, "queues": {**WALKTHROUGH_OBJECTS, **queues}, "smokeJob": SMOKE}
        )
    )


def pool(vm_size: str, max_count: int) -> dict[str, Any]:
    return {
        "userPools": [{"name": "scalepool", "vmSize": vm_size, "minCount": 0, "maxCount": max_count, "initialCount": 0}]
    }


def refusal(sections: dict[str, Any]) -> tuple[str, str]:
    with pytest.raises(ConfigError) as caught:
        load_stack_config(on_the_walkthrough(sections))
    [problem] = caught.value.problems
    return problem


def test_most_allocatable_takes_off_only_the_cpu_reservation():
    assert most_allocatable(VM_SIZES["Standard_D4s_v3"]) == (Decimal("3.86"), 16 * 2**30)
    assert most_allocatable(VM_SIZES["Standard_NC24ads_A100_v4"]).cores == Decimal("23.74"), "16 cores' 260m"


def test_a_smoke_pod_larger_than_any_node_of_its_pool_is_an_error_naming_the_key():
    """AKS reserves 100m of a 2-core node's cpu, so 2 cores never fit: the program's own Job would wait forever."""
    key, message = refusal({"aks": pool("Standard_D2s_v3", 5), "smokeJob": {**SMOKE, "cpu": "2"}})
    assert key == "elastic-capacity:smokeJob.cpu"
    assert "'2' is not allowed; 2 per pod fits no Standard_D2s_v3 node of pool scalepool (at most 1.9 cores" in message
    key, message = refusal({"aks": pool("Standard_D2s_v3", 5), "smokeJob": {**SMOKE, "memory": "9Gi"}})
    assert key == "elastic-capacity:smokeJob.memory" and "(at most 8.0Gi allocatable)" in message


def test_more_smoke_pods_than_the_pool_can_ever_hold_is_an_error_naming_the_key():
    key, message = refusal({"aks": pool("Standard_D4s_v3", 1), "smokeJob": SMOKE})
    assert key == "elastic-capacity:smokeJob.parallelism"
    assert "3 is not allowed; 3 pods need 2 Standard_D4s_v3 nodes, more than pool scalepool's maxCount 1" in message


def test_a_smoke_pod_that_only_likely_fits_no_node_is_a_warning_naming_the_key():
    """Above AKS's largest memory reservation (25 %), below the VM's memory: whether it fits depends on the node."""
    [(key, message)] = warnings_for({"aks": pool("Standard_D2s_v3", 5), "smokeJob": {**SMOKE, "memory": "7Gi"}})
    assert key == "smokeJob.memory" and "7Gi per pod fits no Standard_D2s_v3 node" in message
    assert "(about 6.0Gi allocatable)" in message


def test_more_smoke_pods_than_the_pool_likely_holds_is_a_warning_naming_the_key():
    """One 7Gi pod per node with the largest reservation, two without any: two nodes may or may not hold three."""
    sections = {"aks": pool("Standard_D4s_v3", 2), "smokeJob": {**SMOKE, "cpu": "500m", "memory": "7Gi"}}
    [(key, message)] = warnings_for(sections)
    assert key == "smokeJob.parallelism" and "3 pods need 3 Standard_D4s_v3 nodes" in message


@pytest.mark.parametrize("request_", [{"cpu": "0"}, {"memory": 0}, {"cpu": 0, "memory": "0"}])
def test_a_smoke_job_requesting_nothing_is_judged_by_what_it_requests(request_):
    """No division by a zero request: a resource the pods do not ask for limits nothing."""
    assert warnings_for({"aks": pool("Standard_D4s_v3", 1), "smokeJob": {**SMOKE, "cpu": "1", **request_}}) == []


def test_an_unlisted_vm_size_is_not_judged_but_warned_of():
    sections = {"aks": pool("Standard_X1", 1), "smokeJob": {**SMOKE, "cpu": "8"}}
    assert warnings_for(sections) == [
        ("smokeJob.pool", "vmSize Standard_X1 of pool scalepool is not in the size table: its fit is not checked")
    ]
