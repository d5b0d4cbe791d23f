"""The MultiKueueBurst component: what it registers on the manager, behind which gate, in which order, and the proof
it waits for. The objects' content is tested in tests/components/manifests/test_multikueue.py."""

from __future__ import annotations

import pulumi
import pulumi_kubernetes as kubernetes
import pytest
from pulumi_kubernetes.core import v1 as core

from components.config.loader import load_stack_config
from components.config.multikueue.workers import burst_queues, worker_plans
from components.kueue.multikueue import (
    BURST_QUEUE_CHILDREN,
    MultiKueueBurst,
    MultiKueueBurstArgs,
    Proof,
    WorkerAccess,
    connection_hint,
    given_kubeconfig,
)
from components.manifests.multikueue_worker import token_kubeconfig
from components.waiters.kube_wait import ClusterReader
from tests.support import ack as ack_data
from tests.support.config import as_config
from tools import mock_runtime
from tools.mock_cloud import FAKE_KUBECONFIG
from tools.recording import Recording

KUEUE_TYPE = "kubernetes:kueue.x-k8s.io/v1beta2:"
SECRET = "kubernetes:core/v1:Secret"
WAITER = "pulumi-python:dynamic/kueue:QueuesActive"
MIRROR = {"imageRepository": "k8s.m.daocloud.io/kueue/kueue", "probeImage": "k8s.m.daocloud.io/kubectl"}
CONFIG = load_stack_config(
    as_config(
        {
            "aks": {"preset": "aks-walkthrough"},
            "ack": {"clusters": [ack_data.cluster(name, nodePool=ack_data.POOL) for name in ("hz", "bj")]},
            "multiKueue": {
                "workers": [{"cluster": "hz", **MIRROR}, {"cluster": "bj", **MIRROR}],
                "waitTimeoutSeconds": 300,
            },
        }
    )
)
assert CONFIG.multi_kueue is not None
BURST = CONFIG.multi_kueue
PLANS = worker_plans(CONFIG)
ENDPOINTS = {"hz": "https://hz.example:6443", "bj": "https://bj.example:6443"}


def kubeconfig_of(name: str) -> str:
    return token_kubeconfig(ENDPOINTS[name], "Q0E=", f"token of {name}", f"elastic-capacity-{name}")


def stand_in(name: str, provider: kubernetes.Provider) -> core.ConfigMap:
    return core.ConfigMap(
        name, metadata={"name": name, "namespace": "default"}, opts=pulumi.ResourceOptions(provider=provider)
    )


def record() -> Recording:
    """A manager provider, a stand-in readiness gate, one stand-in ``ready`` resource per worker, and the component."""

    def program() -> None:
        manager = kubernetes.Provider("manager", kubeconfig=FAKE_KUBECONFIG)
        worker = kubernetes.Provider("worker", kubeconfig=FAKE_KUBECONFIG)
        workers = [
            (
                plan,
                WorkerAccess(
                    kubeconfig_of(plan.label), f"expiry-{plan.label}", [stand_in(f"{plan.label}-ready", worker)]
                ),
            )
            for plan in PLANS
        ]
        args = MultiKueueBurstArgs(
            BURST,
            queues=burst_queues(BURST),
            kueue_ready=stand_in("kueue-ready", manager),
            kueue_namespace="kueue-system",
            namespace_labels={"managed-by-kueue": "true"},
            workers=workers,
            proof=Proof(
                ClusterReader("manager kubeconfig"),
                "kueue-ready-0-17-8-abc",
                [BURST.admission_check],
                [BURST.cluster_queue],
            ),
        )
        MultiKueueBurst("multikueue", args, pulumi.ResourceOptions(provider=manager))

    return mock_runtime.run(program, {})


@pytest.fixture(scope="module")
def burst() -> Recording:
    return record()


def kueue_objects(recording: Recording):
    return [r for r in recording.registrations if r.type.startswith(KUEUE_TYPE)]


def test_every_object_is_on_the_managers_provider(burst):
    objects = [r for r in burst.kubernetes_objects() if not r.name.endswith("-ready")]
    per_worker = ["Secret", "MultiKueueCluster"] * 2
    shared = ["MultiKueueConfig", "AdmissionCheck", "ResourceFlavor", "ClusterQueue", "Namespace", "LocalQueue"]
    assert sorted(r.inputs["kind"] for r in objects) == sorted([*per_worker, *shared])
    assert {burst.provider_of(r).name for r in objects} == {"manager"}


def test_every_kueue_object_and_every_secret_waits_for_the_kueue_gate(burst):
    gate = burst.named("kueue-ready")
    for registration in [*kueue_objects(burst), *burst.by_type(SECRET)]:
        assert burst.depends_on(registration, gate), registration.name
    assert not burst.depends_on(burst.one("kubernetes:core/v1:Namespace"), gate), "a namespace needs no webhook"


def test_each_multikueue_cluster_waits_for_its_secret_and_its_workers_ready_resources_only(burst):
    for worker, other in (("hz", "bj"), ("bj", "hz")):
        cluster = burst.one(KUEUE_TYPE + "MultiKueueCluster", f"multikueue-cluster-{worker}")
        assert burst.depends_on(cluster, burst.one(SECRET, f"multikueue-secret-{worker}"))
        assert burst.depends_on(cluster, burst.named(f"{worker}-ready"))
        assert not burst.depends_on(cluster, burst.named(f"{other}-ready"))
        assert not burst.depends_on(cluster, burst.one(SECRET, f"multikueue-secret-{other}"))


def test_the_secret_holds_the_workers_kubeconfig_under_its_key_as_a_secret(burst):
    secret = burst.one(SECRET, "multikueue-secret-hz")
    assert secret.is_secret("stringData")
    assert secret.inputs["stringData"] == {"kubeconfig": kubeconfig_of("hz")}
    assert secret.inputs["metadata"] == {"name": "elastic-capacity-hz", "namespace": "kueue-system"}


def test_objects_wait_only_for_what_kueue_needs_first(burst):
    """Kueue reconciles them in any order; a MultiKueueCluster alone waits for its Secret (kueue#13238)."""
    named = {r.inputs["kind"]: r for r in kueue_objects(burst) if r.inputs["kind"] != "MultiKueueCluster"}
    clusters = burst.by_type(KUEUE_TYPE + "MultiKueueCluster")
    assert not any(burst.depends_on(named["MultiKueueConfig"], c) for c in clusters)
    assert not burst.depends_on(named["ClusterQueue"], named["AdmissionCheck"])
    assert not burst.depends_on(named["LocalQueue"], named["ClusterQueue"])
    assert burst.depends_on(named["LocalQueue"], burst.one("kubernetes:core/v1:Namespace"))
    secrets = burst.by_type("kubernetes:core/v1:Secret")
    assert all(any(burst.depends_on(c, s) for s in secrets) for c in clusters)
    assert burst.one("kubernetes:core/v1:Namespace").inputs["metadata"]["labels"] == {"managed-by-kueue": "true"}


def test_the_proof_waits_for_every_object_and_names_the_clusters_the_check_and_the_queue(burst):
    waiter = burst.one(WAITER)
    kinds = ("MultiKueueCluster", "AdmissionCheck", "ClusterQueue")
    watched = [r for r in kueue_objects(burst) if r.inputs["kind"] in kinds]
    assert len(watched) == 4 and all(burst.depends_on(waiter, obj) for obj in watched)
    config = burst.one(KUEUE_TYPE + "MultiKueueConfig")
    assert config.urn not in waiter.dependencies, "Kueue reconciles the check whenever its config arrives"
    assert waiter.inputs["objects"] == [
        {"kind": "MultiKueueCluster", "name": "elastic-capacity-hz"},
        {"kind": "MultiKueueCluster", "name": "elastic-capacity-bj"},
        {"kind": "AdmissionCheck", "name": "multikueue-burst"},
        {"kind": "ClusterQueue", "name": "burst"},
    ]
    assert (waiter.inputs["timeoutSeconds"], waiter.inputs["onInactive"]) == (300, "fail")
    assert waiter.inputs["kueueRevision"] == "kueue-ready-0-17-8-abc/expiry-hz/expiry-bj", "a new token is proven again"
    assert waiter.inputs["kueueNamespace"] == "kueue-system"
    assert waiter.is_secret("kubeconfig") and waiter.inputs["kubeconfig"] == "manager kubeconfig"
    assert "elastic-capacity-hz -> https://hz.example:6443" in waiter.inputs["hint"]
    assert waiter.parent == burst.one("elastic-capacity:kueue:MultiKueueBurst").urn


def test_the_hint_says_what_to_check_on_the_way_to_each_worker():
    hint = connection_hint({"a": "https://a:6443"})
    assert "egress IP must reach each worker's API endpoint (a -> https://a:6443)" in hint
    assert "https://www.alibabacloud.com/help/en/ack/cluster-access-control" in hint
    assert "multiKueue.tokenRotation" in hint


def test_a_given_kubeconfig_goes_into_the_secret_as_it_is_and_its_digest_tells_a_new_one():
    """A ``kubeconfig`` worker: no worker resources, its credential's generation a digest that reveals nothing."""
    seen = []

    def program() -> None:
        first, second = given_kubeconfig(kubeconfig_of("hz")), given_kubeconfig(kubeconfig_of("bj"))
        pulumi.Output.all(first.generation, second.generation, first.kubeconfig).apply(seen.append)

    mock_runtime.run(program, {})
    [(one, other, kubeconfig)] = seen
    assert one != other and len(one) == 16 and "token" not in one
    assert kubeconfig == kubeconfig_of("hz")


def test_the_burst_queue_objects_keep_their_resource_names_so_a_deployed_stack_keeps_them(burst):
    """Built by the queue builders, the burst objects stay children of the component under the names they have had
    since before (their URNs): another name would make ``pulumi up`` delete and re-create a live burst queue."""
    component = burst.one("elastic-capacity:kueue:MultiKueueBurst").urn
    expected = {
        ("kubernetes:core/v1:Namespace", "multikueue-namespace"),
        (KUEUE_TYPE + "ResourceFlavor", "multikueue-flavor"),
        (KUEUE_TYPE + "AdmissionCheck", "multikueue-admissioncheck"),
        (KUEUE_TYPE + "ClusterQueue", "multikueue-clusterqueue"),
        (KUEUE_TYPE + "LocalQueue", "multikueue-localqueue"),
    }
    for type_, name in expected:
        assert burst.one(type_, name).parent == component
    assert {
        type_.rsplit(":", 1)[1]: name.removeprefix("multikueue-") for type_, name in expected
    } == BURST_QUEUE_CHILDREN
