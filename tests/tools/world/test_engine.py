"""The rehearsed engine: what waits for what, and how a preview finds a change."""

from __future__ import annotations

from tests.support.rehearsals import rehearsed
from tests.support.stacks import AKS_STACK
from tools.world.engine import _changed


def test_a_resource_waits_for_what_its_inputs_come_from_and_a_component_stands_for_its_children():
    rehearsal, _ = rehearsed(AKS_STACK)
    steps = {step.label: step for step in rehearsal.outcomes[0].steps}
    chart, gate = steps["kueue-chart (Chart)"], steps["kueue-ready (Job)"]
    assert chart.key in gate.needs  # the gate depends on the chart, a component of its own
    assert steps["aks-cluster (ManagedCluster)"].key in steps["aks-scalepool (AgentPool)"].needs


def test_what_signs_in_to_a_cluster_waits_for_the_invoke_that_fetched_its_credentials():
    rehearsal, _ = rehearsed(AKS_STACK)
    steps = {step.label: step for step in rehearsal.outcomes[0].steps}
    credentials = steps["invoke listManagedClusterUserCredentials"]
    assert steps["aks-cluster (ManagedCluster)"].key in credentials.needs
    assert credentials.key in steps["aks-k8s (kubernetes)"].needs
    assert credentials.key in steps["aks-deployer-access (ClusterAccess)"].needs


def test_a_preview_finds_a_change_outside_ignore_changes_only():
    old = {"spec": {"suspend": True, "parallelism": 2}, "metadata": {"name": "job"}}
    assert not _changed(
        old, {"spec": {"suspend": False, "parallelism": 2}, "metadata": {"name": "job"}}, ("spec.suspend",)
    )
    assert _changed(old, {"spec": {"suspend": True, "parallelism": 3}, "metadata": {"name": "job"}}, ("spec.suspend",))
    assert old["spec"]["suspend"] is True, "the deployed inputs are left as they were"
    pools = {"agentPoolProfiles": [{"count": 1, "vmSize": "a"}]}
    assert not _changed(pools, {"agentPoolProfiles": [{"count": 3, "vmSize": "a"}]}, ("agentPoolProfiles[0].count",))
