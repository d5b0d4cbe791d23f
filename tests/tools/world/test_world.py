"""Who may do what in the simulated world, and when: role assignments that arrive late, ACK's creator and grants,
discovery for anyone, a credential that expires, and the record of every request."""

from __future__ import annotations

import pytest

from tools.mock_cloud import FAKE_KUBECONFIG
from tools.world import roles
from tools.world.identities import IDENTITIES
from tools.world.kube import ApiError
from tools.world.world import SUBSCRIPTION, Refused, World

CLUSTER_ID = f"{SUBSCRIPTION}/resourceGroups/rg/providers/Microsoft.ContainerService/managedClusters/demo"
EXEC_KUBECONFIG = FAKE_KUBECONFIG.replace("  user: {token: mock-token}", "  user: {exec: {command: kubelogin}}")


def aks_world() -> World:
    world = World(transient_rate=0.0)
    world.aks[CLUSTER_ID.lower()] = {"server": "https://mock.invalid:443", "admin_groups": []}
    world.add_cluster("demo", "https://mock.invalid:443", "aks")
    world.run_as("deployer")
    return world


def test_a_role_assignment_lets_its_principal_in_only_once_it_has_arrived_and_the_refusal_says_when():
    world = aks_world()
    admin = roles.AZURE_ROLES["Azure Kubernetes Service RBAC Cluster Admin"]
    world.assign(IDENTITIES["deployer"].object_id, admin, CLUSTER_ID, 240, "aks-deployer-cluster-admin")
    client = world.connect(EXEC_KUBECONFIG)
    with pytest.raises(ApiError) as refused:
        client.get("/api/v1/namespaces/kube-system")
    assert refused.value.status == 403
    assert refused.value.lacks == (
        "Microsoft.ContainerService/managedClusters/namespaces/read: aks-deployer-cluster-admin (Azure Kubernetes "
        "Service RBAC Cluster Admin) takes effect at 04:00"
    )
    world.conductor.now = 240
    assert client.get("/api/v1/namespaces/kube-system")["metadata"]["name"] == "kube-system"


def test_an_arm_action_is_refused_naming_what_the_identity_holds():
    world = World()
    world.run_as("preview")
    world.check_arm("Microsoft.ContainerService/managedClusters/read", CLUSTER_ID, "read the cluster")
    with pytest.raises(Refused) as refused:
        world.check_arm("Microsoft.ContainerService/managedClusters/write", CLUSTER_ID, "create the cluster")
    assert "preview may not create the cluster: it lacks Microsoft.ContainerService/managedClusters/write" in str(
        refused.value
    )
    assert "it holds Azure Kubernetes Service Cluster User Role on" in str(refused.value)


def test_an_ack_clusters_creator_is_admin_and_another_ram_identity_only_what_it_is_granted():
    world = World(transient_rate=0.0)
    world.ack["c1"] = {"server": "https://ack.invalid:6443", "creator": IDENTITIES["deployer"].ram_uid, "grants": []}
    api = world.add_cluster("ack", "https://ack.invalid:6443", "ack")
    api.authorize(api, "deployer", "create", "", "namespaces", None)
    with pytest.raises(ApiError, match='User "shared-ephemeral" cannot create resource "namespaces"'):
        api.authorize(api, "shared-ephemeral", "create", "", "namespaces", None)
    world.ack["c1"]["grants"].append((IDENTITIES["shared-ephemeral"].ram_uid, "dev", None))
    api.authorize(api, "shared-ephemeral", "create", "apps", "deployments", "team")
    with pytest.raises(ApiError):
        api.authorize(api, "shared-ephemeral", "create", "", "namespaces", None)


def test_discovery_is_open_to_anyone_signed_in_and_recorded():
    world = aks_world()
    world.run_as("preview")
    world.discover(EXEC_KUBECONFIG)
    assert [(r.who, r.action, r.allowed) for r in world.requests] == [
        ("preview", "get /version", True),
        ("preview", "get /api", True),
        ("preview", "get /apis", True),
        ("preview", "get /openapi/v3", True),
    ]


def test_a_credential_that_cannot_be_renewed_is_refused_once_it_expired():
    world = aks_world()
    world.credential_expires = 3600
    world.connect(EXEC_KUBECONFIG)
    world.conductor.now = 3600
    with pytest.raises(ApiError, match="expired at 60:00") as expired:
        world.connect(EXEC_KUBECONFIG)
    assert expired.value.status == 401


def test_observing_allows_everything_and_records_it_as_asked():
    world = World(observe_only=True)
    world.run_as("preview")
    world.check_arm("Microsoft.ContainerService/managedClusters/write", CLUSTER_ID, "create the cluster")
    world.check_ram(["cs:CreateCluster"], "create the ACK cluster")
    assert [(r.cloud, r.action, r.allowed) for r in world.requests] == [
        ("azure", "Microsoft.ContainerService/managedClusters/write", True),
        ("alibaba", "cs:CreateCluster", True),
    ]
