"""How the composition root wires the burst set-up: each worker on its ACK cluster's provider after that cluster's
addons, the manager's objects on the AKS provider behind its Kueue gate, each worker's kubeconfig (its own token,
its own endpoint) into the manager's Secret for it, and the proof of the connections."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from components.config.stack import load_stack_config
from components.fleet import deploy
from tests.support import ack as ack_data
from tests.support.config import as_config
from tools import mock_runtime
from tools.recording import Recording, Registration

WORKER = "elastic-capacity:multikueue:Worker"
BURST = "elastic-capacity:kueue:MultiKueueBurst"
WAITER = "pulumi-python:dynamic/kueue:QueuesActive"
SECRET = "kubernetes:core/v1:Secret"
CLUSTER = "kubernetes:kueue.x-k8s.io/v1beta2:MultiKueueCluster"
GATE = "kubernetes:batch/v1:Job"
SECTIONS: dict[str, Any] = {
    "aks": {},
    "kueue": {"chartVersion": "0.17.8", "imageRepository": "mcr.microsoft.com/oss/v2/kueue/kueue"},
    "ack": {"clusters": [ack_data.cluster(name, nodePool=ack_data.POOL) for name in ("hz", "bj")]},
    "multiKueue": {"workers": [{"cluster": "hz"}, {"cluster": "bj"}], "tokenRotation": "2"},
}


def run(sections: dict[str, Any]) -> Recording:
    config = load_stack_config(as_config(sections))
    return mock_runtime.run(lambda: deploy(config), {})


@pytest.fixture(scope="module")
def burst() -> Recording:
    return run(SECTIONS)


def children(recording: Recording, component: Registration) -> list[Registration]:
    """Every resource below ``component``, however deep."""
    below, found = {component.urn}, []
    for registration in recording.registrations:
        if registration.parent in below:
            below.add(registration.urn)
            found.append(registration)
    return found


def test_each_worker_lives_on_its_own_ack_clusters_provider_with_the_managers_kueue_release(burst):
    for name in ("hz", "bj"):
        worker = burst.one(WORKER, f"ack-{name}-multikueue")
        objects = [r for r in children(burst, worker) if r.custom]
        assert objects and {burst.provider_of(r).name for r in objects} == {f"ack-{name}-k8s"}
        chart = burst.one("kubernetes:helm.sh/v4:Chart", f"ack-{name}-multikueue-kueue-chart").inputs
        image = chart["values"]["controllerManager"]["manager"]["image"]
        assert (chart["version"], image["repository"]) == ("0.17.8", "mcr.microsoft.com/oss/v2/kueue/kueue")


def test_each_workers_kueue_starts_after_its_clusters_ecs_nodes_not_its_virtual_node(burst):
    for name, other in (("hz", "bj"), ("bj", "hz")):
        chart = burst.one("kubernetes:helm.sh/v4:Chart", f"ack-{name}-multikueue-kueue-chart")
        assert burst.depends_on(chart, burst.one(ack_data.NODE_POOL_TYPE, f"ack-{name}-system"))
        assert not burst.depends_on(chart, burst.one(ack_data.ADDON_TYPE, f"ack-{name}-ack-virtual-node"))
        assert not burst.depends_on(chart, burst.one(ack_data.NODE_POOL_TYPE, f"ack-{other}-system"))


def test_the_managers_objects_live_on_the_aks_provider_behind_its_kueue_gate(burst):
    component = burst.one(BURST, "multikueue")
    objects = [r for r in children(burst, component) if r.custom and r.type.startswith("kubernetes:")]
    assert {burst.provider_of(r).name for r in objects} == {"aks-k8s"}
    gate = next(r for r in burst.by_type(GATE) if r.name == "kueue-ready")
    kueue_objects = [r for r in objects if r.type.startswith("kubernetes:kueue.x-k8s.io")]
    assert len(kueue_objects) == 7 and all(burst.depends_on(r, gate) for r in kueue_objects)
    for secret in (r for r in objects if r.type == SECRET):
        assert secret.inputs["metadata"]["namespace"] == "kueue-system", "Kueue's namespace, from the kueue section"
        assert burst.depends_on(secret, gate)
    namespace = next(r for r in objects if r.type == "kubernetes:core/v1:Namespace")
    assert namespace.inputs["metadata"]["labels"] == {"managed-by-kueue": "true"}, "kueue's managed-namespace labels"


def api_endpoint(recording: Recording, cluster: str) -> str:
    """The public endpoint ACK reports for the cluster (the mocks make it per cluster)."""
    return str(recording.outputs["ackClusters"][cluster]["apiServerEndpoint"])


def test_each_secret_holds_a_kubeconfig_of_its_own_workers_token_and_endpoint_as_a_secret(burst):
    for name in ("hz", "bj"):
        secret = burst.one(SECRET, f"multikueue-secret-{name}")
        assert secret.is_secret("stringData")
        kubeconfig = yaml.safe_load(secret.inputs["stringData"]["kubeconfig"])
        assert kubeconfig["clusters"][0]["cluster"]["server"] == api_endpoint(burst, name)
        assert kubeconfig["users"][0]["user"].keys() == {"token"}, "a bearer token, never an exec plugin"
        token = burst.one(SECRET, f"ack-{name}-multikueue-token")
        assert burst.provider_of(token).name == f"ack-{name}-k8s"
        assert burst.depends_on(secret, token), "the token it holds is the worker's"


def test_each_multikueue_cluster_waits_for_its_worker(burst):
    for name, other in (("hz", "bj"), ("bj", "hz")):
        cluster = burst.one(CLUSTER, f"multikueue-cluster-{name}")
        for part in ("manager", "token"):
            kind = SECRET if part == "token" else "kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding"
            assert burst.depends_on(cluster, burst.one(kind, f"ack-{name}-multikueue-{part}"))
        assert burst.depends_on(
            cluster, burst.one("kubernetes:rbac.authorization.k8s.io/v1:ClusterRole", f"ack-{name}-multikueue-manager")
        )
        assert not burst.depends_on(cluster, burst.one(WORKER, f"ack-{other}-multikueue"))


def test_up_proves_every_connection_once_per_kueue_restart_and_token_rotation(burst):
    waiters = {w.name: w for w in burst.by_type(WAITER)}
    assert set(waiters) == {"queues-active", "multikueue-active"}, "the local queues keep their own proof"
    proof = waiters["multikueue-active"]
    gate = next(r for r in burst.by_type(GATE) if r.name == "kueue-ready")
    assert proof.inputs["kueueRevision"] == f"{gate.inputs['metadata']['name']}/token-2"
    assert proof.is_secret("kubeconfig")
    assert yaml.safe_load(proof.inputs["kubeconfig"]) == yaml.safe_load(burst.outputs["kubeconfig"])
    assert f"elastic-capacity-hz -> {api_endpoint(burst, 'hz')}" in proof.inputs["hint"]


def test_a_stack_without_the_section_has_no_burst_set_up():
    recording = run({key: value for key, value in SECTIONS.items() if key != "multiKueue"})
    assert recording.by_type(WORKER) == [] and recording.by_type(BURST) == []
