"""The providers in the rehearsed world: what each create asks of its cloud, and how the API server refuses what it
cannot take yet."""

from __future__ import annotations

import pytest

from components.azure import aks
from tests.support.rehearsals import rehearsed
from tests.support.stacks import AKS_STACK, GPU_STACK, MULTICLOUD_STACK
from tools import rehearse
from tools.recording import Recording
from tools.world import providers
from tools.world.providers import Providers
from tools.world.world import World


def test_each_create_asks_its_cloud_as_its_provider_does():
    _, world = rehearsed(MULTICLOUD_STACK)
    asked = {(r.who, r.cloud, r.action) for r in world.requests if r.operation == "up"}
    assert ("deployer", "azure", "Microsoft.ContainerService/managedClusters/write") in asked
    assert ("deployer", "azure", "Microsoft.Authorization/roleAssignments/write") in asked
    assert ("deployer", "alibaba", "cs:CreateCluster") in asked
    assert ("deployer", "kubernetes", "create kueue.x-k8s.io/clusterqueues") in asked


def test_a_kueue_object_created_before_the_webhooks_serve_fails_as_a_webhook_call():
    rehearsal, _ = rehearsed(AKS_STACK)
    steps = {step.label: step for step in rehearsal.outcomes[0].steps}
    provider = steps["aks-k8s (kubernetes)"].registration
    queue = steps["queues-clusterqueue-cas-cluster-queue (ClusterQueue)"].registration
    assert provider is not None and queue is not None
    world = World()
    world.run_as("deployer")
    world.add_cluster("demo", providers.server_of(provider.inputs["kubeconfig"]), "plain").install_kueue(0.0)
    with pytest.raises(providers.StepFailed, match="failed calling webhook for ClusterQueue cas-cluster-queue"):
        Providers(world, Recording([provider, queue], {}, set(), [])).create(queue)


def test_pools_created_side_by_side_are_refused_as_aks_refuses_a_second_operation(monkeypatch):
    """Azure R1 at 157fa20: every AgentPool and MaintenanceConfiguration waited for the cluster only, so AKS answered
    the second of them ``OperationNotAllowed``; each now waits for the one before it."""
    assert rehearsed(GPU_STACK)[0].outcomes[0].failed is None, "the shipped chain"
    original = aks.AksCluster._user_pool
    monkeypatch.setattr(
        aks.AksCluster,
        "_user_pool",
        lambda self, name, args, pool, cluster, after: original(self, name, args, pool, cluster, after=cluster),
    )
    up = rehearse.rehearse(GPU_STACK).outcomes[0]
    assert up.failed is not None and "OperationNotAllowed: Another agentpool operation" in str(up.failed.error)
