"""How the composition root wires the burst set-up: each worker on its own cluster's provider, the manager's objects
on the manager's provider behind its Kueue gate, each MultiKueueCluster after its worker's Kueue serves, each worker's
credential (its own token, its own endpoint) into the manager's Secret for it, and the proof of the connections."""

from __future__ import annotations

import functools
from typing import Any

import pytest

from components import yaml_text
from components.config.base import ConfigError
from components.config.loader import load_stack_config
from components.fleet import deploy
from tests.support import ack as ack_data
from tests.support.config import WALKTHROUGH, as_config
from tests.support.multikueue import (
    KUBECONFIGS,
    MIRROR,
    QUEUES_WITH_MULTIKUEUE,
    WORKER_KUBECONFIG,
)
from tools import mock_cloud, mock_runtime
from tools.recording import Recording, Registration

WORKER = "elastic-capacity:multikueue:Worker"
BURST = "elastic-capacity:kueue:MultiKueueBurst"
WAITER = "pulumi-python:dynamic/kueue:QueuesActive"
TOKEN = "pulumi-python:dynamic/multikueue:WorkerToken"
KUEUE_VERSION = "pulumi-python:dynamic/kueue:KueueVersion"
SECRET = "kubernetes:core/v1:Secret"
CLUSTER = "kubernetes:kueue.x-k8s.io/v1beta2:MultiKueueCluster"
POLICY = "kubernetes:scheduling.alibabacloud.com/v1alpha1:ResourcePolicy"
GATE = "kubernetes:batch/v1:Job"
SECTIONS: dict[str, Any] = {
    "aks": {"preset": "aks-walkthrough"},
    **WALKTHROUGH,  # as the shipped burst stack: the walkthrough's own queues beside the burst set-up
    "kueue": {"chartVersion": "0.17.8", "imageRepository": "mcr.microsoft.com/oss/v2/kueue/kueue"},
    "ack": {"clusters": [ack_data.cluster(name, nodePool=ack_data.POOL) for name in ("hz", "bj")]},
    "multiKueue": {"workers": [{"cluster": "hz", **MIRROR}, {"cluster": "bj", **MIRROR}], "tokenRotation": "2"},
}


def run(sections: dict[str, Any], secret_keys: tuple[str, ...] = ()) -> Recording:
    config = load_stack_config(as_config(sections), secret_keys)
    return mock_runtime.run(lambda: deploy(config), {})


@pytest.fixture(scope="module")
def burst() -> Recording:
    return run(SECTIONS)


@functools.cache
def without_burst() -> Recording:
    """:data:`SECTIONS` without the ``multiKueue`` section, run once for the tests that read it: read it, never change
    it."""
    return run({key: value for key, value in SECTIONS.items() if key != "multiKueue"})


def children(recording: Recording, component: Registration) -> list[Registration]:
    """Every resource below ``component``, however deep."""
    below, found = {component.urn}, []
    for registration in recording.registrations:
        if registration.parent in below:
            below.add(registration.urn)
            found.append(registration)
    return found


def test_each_worker_lives_on_its_own_ack_clusters_provider_with_the_managers_release_from_its_mirror(burst):
    for name in ("hz", "bj"):
        worker = burst.one(WORKER, f"ack-{name}-multikueue")
        objects = [r for r in children(burst, worker) if r.custom and r.type not in (TOKEN, KUEUE_VERSION)]
        assert objects and {burst.provider_of(r).name for r in objects} == {f"ack-{name}-k8s"}
        chart = burst.one("kubernetes:helm.sh/v4:Chart", f"ack-{name}-multikueue-kueue-chart").inputs
        image = chart["values"]["controllerManager"]["manager"]["image"]
        assert (chart["version"], image["repository"]) == ("0.17.8", MIRROR["imageRepository"])


def test_each_workers_kueue_starts_after_its_clusters_ecs_nodes_not_its_virtual_node(burst):
    for name, other in (("hz", "bj"), ("bj", "hz")):
        chart = burst.one("kubernetes:helm.sh/v4:Chart", f"ack-{name}-multikueue-kueue-chart")
        assert burst.depends_on(chart, burst.one(ack_data.NODE_POOL_TYPE, f"ack-{name}-system"))
        assert not burst.depends_on(chart, burst.one(ack_data.ADDON_TYPE, f"ack-{name}-ack-virtual-node"))
        assert not burst.depends_on(chart, burst.one(ack_data.NODE_POOL_TYPE, f"ack-{other}-system"))


def test_each_workers_acs_placement_waits_for_its_clusters_virtual_node(burst):
    for name in ("hz", "bj"):
        policy = burst.one(POLICY, f"ack-{name}-multikueue-resourcepolicy-burst")
        assert burst.depends_on(policy, burst.one(ack_data.ADDON_TYPE, f"ack-{name}-ack-virtual-node"))


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
        kubeconfig = yaml_text.load(secret.inputs["stringData"]["kubeconfig"])
        assert kubeconfig["clusters"][0]["cluster"]["server"] == api_endpoint(burst, name)
        assert kubeconfig["users"][0]["user"].keys() == {"token"}, "a bearer token, never an exec plugin"
        token = burst.one(TOKEN, f"ack-{name}-multikueue-token")
        assert kubeconfig["users"][0]["user"]["token"] == mock_cloud.service_account_token(token.inputs)["token"]
        assert burst.depends_on(secret, token), "the token it holds is the worker's"


def test_each_multikueue_cluster_waits_for_its_workers_kueue_to_serve_not_only_for_its_credential(burst):
    """MultiKueue backs off for minutes after a failed connection: it connects once the worker's Kueue serves."""
    for name, other in (("hz", "bj"), ("bj", "hz")):
        cluster = burst.one(CLUSTER, f"multikueue-cluster-{name}")
        assert burst.depends_on(cluster, burst.one(GATE, f"ack-{name}-multikueue-kueue-ready"))
        assert burst.depends_on(cluster, burst.one(POLICY, f"ack-{name}-multikueue-resourcepolicy-burst"))
        assert burst.depends_on(cluster, burst.one(TOKEN, f"ack-{name}-multikueue-token"))
        for kind in ("ClusterRoleBinding", "RoleBinding"):
            binding = next(
                r for r in burst.by_type(f"kubernetes:rbac.authorization.k8s.io/v1:{kind}")
                if r.name.startswith(f"ack-{name}-multikueue-manager")
            )  # fmt: skip
            assert burst.depends_on(cluster, binding), kind
        assert not burst.depends_on(cluster, burst.one(WORKER, f"ack-{other}-multikueue"))


def test_the_managers_provider_updates_secrets_in_place_so_a_new_token_never_leaves_a_cluster_without_one(burst):
    provider = burst.one("pulumi:providers:kubernetes", "aks-k8s")
    assert provider.inputs["enableSecretMutable"] in (True, "true")
    plain = without_burst()
    assert "enableSecretMutable" not in plain.one("pulumi:providers:kubernetes", "aks-k8s").inputs


def test_up_proves_every_connection_once_per_kueue_restart_and_token(burst):
    waiters = {w.name: w for w in burst.by_type(WAITER)}
    assert set(waiters) == {"queues-active", "multikueue-active"}, "the local queues keep their own proof"
    proof = waiters["multikueue-active"]
    gate = next(r for r in burst.by_type(GATE) if r.name == "kueue-ready")
    expiries = [mock_cloud.service_account_token(burst.one(TOKEN, f"ack-{n}-multikueue-token").inputs)["expiresAt"]
                for n in ("hz", "bj")]  # fmt: skip
    assert proof.inputs["kueueRevision"] == "/".join([gate.inputs["metadata"]["name"], *expiries])
    assert proof.is_secret("kubeconfig")
    assert yaml_text.load(proof.inputs["kubeconfig"]) == yaml_text.load(burst.outputs["kubeconfig"])
    assert f"elastic-capacity-hz -> {api_endpoint(burst, 'hz')}" in proof.inputs["hint"]


def test_a_worker_whose_scheduler_cannot_run_the_acs_policy_fails_up_naming_the_key(monkeypatch):
    monkeypatch.setitem(mock_cloud.ACK_INSTALLED_ADDONS, "kube-scheduler", "v1.35.0-apsara.6.6.0.aaaaaaaa")
    one_worker = {
        **SECTIONS,
        "ack": {"clusters": [ack_data.cluster("hz", nodePool=ack_data.POOL)]},
        "multiKueue": {"workers": [{"cluster": "hz", **MIRROR}]},
    }
    with pytest.raises(ConfigError) as caught:
        run(one_worker)
    assert caught.value.keys == ["elastic-capacity:ack.clusters[0].scheduler"]
    assert "multiKueue.workers[0] (burst pods on ACS by ResourcePolicy)" in str(caught.value)


def test_a_kubeconfig_worker_gets_its_secret_from_the_stacks_secret_and_nothing_on_the_worker():
    sections = {
        "aks": {"preset": "aks-walkthrough"},
        "multiKueue": {"workers": [{"source": "kubeconfig", "name": "w1", "secretName": "worker1-secret"}]},
        "multiKueueKubeconfigs": {"w1": WORKER_KUBECONFIG},
    }
    recording = run(sections, (KUBECONFIGS,))
    assert recording.by_type(WORKER) == [] and recording.by_type(TOKEN) == []
    secret = recording.one(SECRET, "multikueue-secret-w1")
    assert secret.is_secret("stringData")
    assert yaml_text.load(secret.inputs["stringData"]["kubeconfig"]) == yaml_text.load(WORKER_KUBECONFIG)
    assert secret.inputs["metadata"] == {"name": "worker1-secret", "namespace": "kueue-system"}
    cluster = recording.one(CLUSTER, "multikueue-cluster-w1")
    assert cluster.inputs["spec"]["clusterSource"]["kubeConfig"]["location"] == "worker1-secret"


def test_an_aks_worker_is_reached_through_its_own_provider_without_acs_placement():
    sections = {
        "aks": {"preset": "aks-walkthrough"},
        "multiKueue": {
            "workers": [{"source": "aks", "resourceGroupName": "rg", "clusterName": "gpu", "clusterQueue": "team-gpu"}]
        },
    }
    recording = run(sections)
    worker = recording.one(WORKER, "aks-gpu-multikueue")
    objects = [r for r in children(recording, worker) if r.custom and r.type not in (TOKEN, KUEUE_VERSION)]
    assert {recording.provider_of(r).name for r in objects} == {"aks-gpu-k8s"}
    assert recording.by_type(POLICY) == [] and recording.by_type("kubernetes:helm.sh/v4:Chart") == [
        recording.one("kubernetes:helm.sh/v4:Chart", "kueue-chart")
    ]
    local = recording.one(
        "kubernetes:kueue.x-k8s.io/v1beta2:LocalQueue", "aks-gpu-multikueue-queues-localqueue-burst/burst"
    )
    assert local.inputs["spec"] == {"clusterQueue": "team-gpu"}


def test_with_the_queues_sections_check_its_queues_are_proven_after_the_workers_not_before():
    labels = {"managedJobsNamespaceSelector": {"matchLabels": {"managed-by-kueue": "true"}}}
    sections = {
        **SECTIONS,
        "kueue": labels,
        "queues": QUEUES_WITH_MULTIKUEUE,
        "multiKueue": {"burstQueue": False, "configName": "multikueue-test", "workers": [{"cluster": "hz", **MIRROR}]},
        "ack": {"clusters": [ack_data.cluster("hz", nodePool=ack_data.POOL)]},
    }
    recording = run(sections)
    waiters = {w.name: w for w in recording.by_type(WAITER)}
    assert "queues-active" not in waiters, "every check and queue is the burst set-up's: its proof covers them"
    assert waiters["multikueue-active"].inputs["objects"] == [
        {"kind": "MultiKueueCluster", "name": "elastic-capacity-hz"},
        {"kind": "AdmissionCheck", "name": "sample-multikueue"},
        {"kind": "ClusterQueue", "name": "cluster-queue"},
    ]
    assert (
        recording.by_type("kubernetes:kueue.x-k8s.io/v1beta2:AdmissionCheck")[0].name
        == "queues-admissioncheck-sample-multikueue"
    )


def test_a_stack_without_the_section_has_no_burst_set_up():
    recording = without_burst()
    assert recording.by_type(WORKER) == [] and recording.by_type(BURST) == []


def test_an_ephemeral_stacks_kubeconfig_worker_keeps_its_secret_under_its_suffixed_name():
    sections = {
        "environment": {"kind": "ephemeral", "nameSuffix": "-pr7"},
        "aks": {"preset": "aks-walkthrough"},
        "multiKueue": {"workers": [{"source": "kubeconfig", "name": "w1", "secretName": "worker1-secret"}]},
        "multiKueueKubeconfigs": {"w1": WORKER_KUBECONFIG},
    }
    recording = run(sections, (KUBECONFIGS,))
    secret = recording.one(SECRET, "multikueue-secret-w1-pr7")
    assert secret.inputs["metadata"]["name"] == "worker1-secret-pr7"
    assert yaml_text.load(secret.inputs["stringData"]["kubeconfig"]) == yaml_text.load(WORKER_KUBECONFIG)
    assert recording.one(CLUSTER, "multikueue-cluster-w1-pr7").inputs["metadata"]["name"] == "w1-pr7"
