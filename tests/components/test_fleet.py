"""The Kueue half's wiring: what waits for what, so a real ``pulumi up`` runs in an order that works."""

from __future__ import annotations

from typing import Any

import pytest

from components.config.stack import load_stack_config
from components.fleet import deploy
from components.queue_wait import QueuesActiveProvider
from tests.support.config import as_config
from tools import mock_runtime

WAITER = "pulumi-python:dynamic/kueue:QueuesActive"
SMOKE_WAITER = "pulumi-python:dynamic/kueue:JobCompletion"
AGENT_POOL = "azure-native:containerservice:AgentPool"
CHART = "kubernetes:helm.sh/v4:Chart"
GATE = "kubernetes:batch/v1:Job"
WITHOUT_PROVISIONING = {
    "provisioningChecks": [],
    "clusterQueues": [
        {
            "name": "plain",
            "resourceGroups": [
                {
                    "coveredResources": ["cpu"],
                    "flavors": [{"name": "scalepool", "resources": [{"name": "cpu", "nominalQuota": 4}]}],
                }
            ],
        }
    ],
    "localQueues": [{"name": "plain", "namespace": "cas-kueue-demo", "clusterQueue": "plain"}],
}


def run_stack(run_program, sections: dict[str, Any]) -> mock_runtime.Recording:
    config = load_stack_config(as_config(sections))
    return run_program(lambda: deploy(config))


@pytest.fixture(scope="module")
def aks_stack() -> mock_runtime.Recording:
    config = load_stack_config(as_config({"aks": {}, "smokeJob": {"enabled": True}}))
    return mock_runtime.run(lambda: deploy(config), {})


def test_the_smoke_job_waits_for_the_pools_it_targets_and_for_active_queues(aks_stack):
    pool = aks_stack.one(AGENT_POOL)
    waiter = aks_stack.one(WAITER)
    for part in (aks_stack.one(GATE, "smoke-job-job"), aks_stack.one(SMOKE_WAITER)):
        assert aks_stack.depends_on(part, pool)
        assert aks_stack.depends_on(part, waiter)


def test_kueue_starts_after_the_pools_when_queues_need_provisioning_requests(aks_stack):
    assert aks_stack.depends_on(aks_stack.one(CHART), aks_stack.one(AGENT_POOL))


def test_kueue_does_not_wait_for_pools_without_provisioning_checks(run_program):
    recording = run_stack(run_program, {"aks": {}, "queues": WITHOUT_PROVISIONING})
    assert not recording.depends_on(recording.one(CHART), recording.one(AGENT_POOL))


def test_the_activation_waiter_runs_after_every_queue_object_and_knows_the_kueue_revision(aks_stack):
    waiter = aks_stack.one(WAITER)
    queue_objects = [r for r in aks_stack.registrations if r.type.startswith("kubernetes:kueue.x-k8s.io")]
    assert queue_objects
    assert all(aks_stack.depends_on(waiter, obj) for obj in queue_objects)
    gate = next(r for r in aks_stack.by_type(GATE) if r.name == "kueue-ready")
    assert waiter.inputs["kueueRevision"] == gate.inputs["metadata"]["name"]
    assert waiter.inputs["objects"] == [
        {"kind": "AdmissionCheck", "name": "cas-provisioning"},
        {"kind": "ClusterQueue", "name": "cas-cluster-queue"},
    ]
    assert (waiter.inputs["timeoutSeconds"], waiter.inputs["onInactive"]) == (600, "fail")
    assert "https://github.com/Azure/AKS/pull/5867" in waiter.inputs["hint"]
    assert waiter.is_secret("kubeconfig")


def test_the_activation_waiter_ships_its_provider_by_value(aks_stack):
    from pulumi.dynamic.dynamic import serialize_provider

    assert aks_stack.one(WAITER).inputs["__provider"] == serialize_provider(QueuesActiveProvider())


def test_a_stack_may_accept_inactive_checks_with_a_warning(run_program):
    recording = run_stack(
        run_program,
        {"aks": {}, "queues": {"waitUntilActive": {"onInactive": "warn", "timeoutSeconds": 60}}},
    )
    waiter = recording.one(WAITER)
    assert (waiter.inputs["onInactive"], waiter.inputs["timeoutSeconds"]) == ("warn", 60)
    gate = next(r for r in recording.by_type(GATE) if r.name == "kueue-ready")
    containers = [c["name"] for c in gate.inputs["spec"]["template"]["spec"]["containers"]]
    assert "check-provisioningrequest-crd" not in containers, "a missing CRD must warn, not fail the gate"


def test_a_failing_stack_checks_the_crd_in_the_gate(aks_stack):
    gate = next(r for r in aks_stack.by_type(GATE) if r.name == "kueue-ready")
    containers = [c["name"] for c in gate.inputs["spec"]["template"]["spec"]["containers"]]
    assert "check-provisioningrequest-crd" in containers


def test_a_cluster_given_by_kubeconfig_gets_the_generic_hint(run_program):
    config = load_stack_config(
        as_config({"existingCluster": {"source": "kubeconfig"}, "kubeconfig": "apiVersion: v1\nkind: Config\n"}),
        secret_keys={"elastic-capacity:kubeconfig"},
    )
    recording = run_program(lambda: deploy(config))
    hint = recording.one(WAITER).inputs["hint"]
    assert "AKS" not in hint and "cluster autoscaler that serves ProvisioningRequests" in hint
