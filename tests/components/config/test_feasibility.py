"""Rules across sections that decide whether a stack can work: errors for what the stack decides, warnings from the
documented VM size table for what the cloud decides."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from components.config.feasibility import VM_SIZES, allocatable
from components.config.stack import load_stack_config
from tests.support.config import as_config, stack_error_keys

SMOKE = {"enabled": True}


def warnings_for(sections: dict[str, Any]) -> list[tuple[str, str]]:
    return load_stack_config(as_config(sections)).warnings()


def test_the_article_stack_can_work_and_warns_of_nothing():
    assert warnings_for({"aks": {}, "smokeJob": SMOKE}) == []


def test_allocatable_takes_off_what_aks_reserves():
    cores, memory = allocatable(VM_SIZES["Standard_D4s_v3"])
    assert cores == Decimal("3.86")
    assert memory == 12 * 2**30


@pytest.mark.parametrize(
    ("sections", "key"),
    [
        ({"aks": {}, "kueue": {"tolerations": []}}, "elastic-capacity:kueue.tolerations"),
        ({"aks": {}, "kueue": {"frameworks": ["pod"]}, "smokeJob": SMOKE}, "elastic-capacity:kueue.frameworks"),
        ({"aks": {}, "smokeJob": {**SMOKE, "cpu": "40"}}, "elastic-capacity:smokeJob.cpu"),
        ({"aks": {}, "smokeJob": {**SMOKE, "memory": "100Gi"}}, "elastic-capacity:smokeJob.memory"),
    ],
)
def test_what_cannot_work_is_refused_naming_the_key(sections, key):
    assert stack_error_keys(sections) == [key]


def test_kueue_off_the_system_pool_needs_no_toleration_of_its_taint():
    load_stack_config(as_config({"aks": {}, "kueue": {"tolerations": [], "nodeSelector": {"agentpool": "scalepool"}}}))


def test_a_queue_in_a_cohort_may_borrow_what_the_job_needs_beyond_its_quota():
    queues = {"clusterQueues": [{"name": "cas-cluster-queue", "cohortName": "org", "resourceGroups": [
        {"coveredResources": ["cpu", "memory"], "flavors": [{"name": "scalepool", "resources": [
            {"name": "cpu", "nominalQuota": "1"}, {"name": "memory", "nominalQuota": "1Gi"}]}]}],
        "admissionChecksStrategy": {"admissionChecks": [{"name": "cas-provisioning"}]}}]}  # fmt: skip
    load_stack_config(as_config({"aks": {}, "queues": queues, "smokeJob": SMOKE}))


def test_a_pod_larger_than_any_node_of_its_pool_is_a_warning_naming_the_key():
    pools = [{"name": "scalepool", "vmSize": "Standard_D2s_v3", "minCount": 0, "maxCount": 5, "initialCount": 0}]
    [(key, message)] = warnings_for({"aks": {"userPools": pools}, "smokeJob": {**SMOKE, "cpu": "2"}})
    assert key == "smokeJob.cpu" and "fits no Standard_D2s_v3 node" in message


def test_more_pods_than_the_pool_can_hold_is_a_warning_naming_the_key():
    pools = [{"name": "scalepool", "vmSize": "Standard_D4s_v3", "minCount": 0, "maxCount": 1, "initialCount": 0}]
    [(key, message)] = warnings_for({"aks": {"userPools": pools}, "smokeJob": SMOKE})
    assert key == "smokeJob.parallelism" and "3 pods need 2 Standard_D4s_v3 nodes" in message


def test_an_unlisted_vm_size_is_not_judged():
    pools = [{"name": "scalepool", "vmSize": "Standard_X1", "minCount": 0, "maxCount": 1, "initialCount": 0}]
    assert warnings_for({"aks": {"userPools": pools}, "smokeJob": {**SMOKE, "cpu": "8"}}) == []
