"""The KueueQueues component: what it registers, behind which gate, with which provider and in which order."""

from __future__ import annotations

import pulumi
import pulumi_kubernetes as kubernetes
import pytest
from pulumi_kubernetes.core import v1 as core

from components.config.queues.queues import QueuesConfig
from components.kueue.queues import KueueQueues
from tests.support.queues import EVERY_KIND, GENERAL
from tests.support.schemas import validate_core, validate_kueue
from tests.support.targets import live_target
from tests.support.vendor_examples import AKS_WALKTHROUGH_OBJECTS
from tools import mock_runtime
from tools.mock_cloud import FAKE_KUBECONFIG
from tools.recording import Recording

KUEUE_TYPE = "kubernetes:kueue.x-k8s.io/v1beta2:"


def record(config: QueuesConfig, *, gated: bool = True, labels: dict[str, str] | None = None) -> Recording:
    """Register a provider, a stand-in readiness gate (unless not ``gated``) and the component; return the recording."""

    def program() -> None:
        provider = kubernetes.Provider("k8s", kubeconfig=FAKE_KUBECONFIG)
        gate = core.ConfigMap(
            "kueue-ready",
            metadata={"name": "kueue-ready", "namespace": "default"},
            opts=pulumi.ResourceOptions(provider=provider),
        )
        KueueQueues("queues", config, live_target(provider), gate if gated else None, labels)

    return mock_runtime.run(program, {})


def kueue_objects(recording):
    return [r for r in recording.registrations if r.type.startswith(KUEUE_TYPE)]


@pytest.fixture(scope="module")
def article():
    return record(QueuesConfig(preset="aks-walkthrough"))


@pytest.fixture(scope="module")
def general():
    return record(QueuesConfig.model_validate(GENERAL))


def test_article_objects_are_registered_as_built(article):
    recording = article
    registered = [
        {key: r.inputs[key] for key in ("apiVersion", "kind", "metadata", "spec") if key in r.inputs}
        for r in recording.registrations
        if r.type.startswith(KUEUE_TYPE) or r.type == "kubernetes:core/v1:Namespace"
    ]
    assert sorted(registered, key=str) == sorted(AKS_WALKTHROUGH_OBJECTS, key=str)
    for r in kueue_objects(recording):
        assert r.type == KUEUE_TYPE + r.inputs["kind"]


def test_children_have_stable_names_and_the_component_as_parent(article):
    recording = article
    component = recording.one("elastic-capacity:kueue:KueueQueues", "queues")
    names = {r.name for r in recording.registrations if r.parent == component.urn}
    assert names == {
        "queues-namespace-cas-kueue-demo",
        "queues-resourceflavor-scalepool",
        "queues-provisioningrequestconfig-cas-provreq-config",
        "queues-admissioncheck-cas-provisioning",
        "queues-clusterqueue-cas-cluster-queue",
        "queues-localqueue-cas-kueue-demo/cas-local-queue",
    }


def test_every_kueue_object_waits_for_the_gate_and_namespaces_do_not(article, general):
    for recording in (article, general):
        gate = recording.named("kueue-ready")
        objects = kueue_objects(recording)
        assert objects
        for r in objects:
            assert recording.depends_on(r, gate), r.name
            assert gate.urn in r.dependencies, f"{r.name} names the gate itself, not only through another object"
        for namespace in recording.by_type("kubernetes:core/v1:Namespace"):
            assert not recording.depends_on(namespace, gate), "namespaces need no Kueue webhook"


def test_children_inherit_the_provider_from_opts(general):
    recording = general
    for r in [*kueue_objects(recording), *recording.by_type("kubernetes:core/v1:Namespace")]:
        assert recording.provider_of(r).name == "k8s", r.name


def test_objects_wait_for_the_gate_and_their_namespace_only(general):
    """Kueue takes the objects a queue names in any order; waiting for them would only lengthen `up`."""
    recording, gate = general, general.one("kubernetes:core/v1:ConfigMap", "kueue-ready")

    def dependencies(name: str) -> set[str]:
        return set(recording.named(f"queues-{name}").dependencies)

    namespace = recording.named("queues-namespace-team-a").urn
    assert dependencies("localqueue-team-a/gpu") == {gate.urn, namespace}
    for name in ("clusterqueue-team-a-cq", "cohort-shared-cohort", "admissioncheck-gpu-provisioning"):
        assert dependencies(name) == {gate.urn}, name


def test_general_config_registers_every_object_and_each_passes_its_schema(general):
    recording = general
    kinds = [r.inputs["kind"] for r in kueue_objects(recording)]
    assert sorted(kinds) == sorted(
        ["ResourceFlavor"] * 3
        + ["ProvisioningRequestConfig", "AdmissionCheck"] * 2
        + ["Cohort"] * 2
        + ["ClusterQueue"] * 2
        + ["LocalQueue"] * 3
    )
    for r in kueue_objects(recording):
        validate_kueue(r.inputs)
    namespaces = recording.by_type("kubernetes:core/v1:Namespace")
    assert sorted(r.inputs["metadata"]["name"] for r in namespaces) == ["team-a", "team-b"]
    for r in namespaces:
        validate_core(r.inputs, "1.33")


def test_on_a_cluster_kueue_already_serves_the_objects_wait_only_for_their_namespace(article):
    """``kueue.install: false``: no gate, the cluster's Kueue is serving; a LocalQueue still waits for its namespace."""
    ungated = record(QueuesConfig(preset="aks-walkthrough"), gated=False)
    assert all(article.depends_on(obj, article.one("kubernetes:core/v1:ConfigMap")) for obj in kueue_objects(article))
    gate = ungated.one("kubernetes:core/v1:ConfigMap", "kueue-ready")
    assert not [obj.name for obj in kueue_objects(ungated) if ungated.depends_on(obj, gate)]
    local = ungated.one(f"{KUEUE_TYPE}LocalQueue")
    assert ungated.depends_on(local, ungated.one("kubernetes:core/v1:Namespace"))


def test_namespaces_carry_the_given_labels_created_or_patched_onto_existing_ones():
    recording = record(QueuesConfig.model_validate(EVERY_KIND), labels={"kueue-managed": "true"})
    namespaces = [r for r in recording.registrations if r.type == "kubernetes:core/v1:Namespace"]
    assert sorted((r.inputs["metadata"] for r in namespaces), key=lambda m: m["name"]) == [
        {"name": "team-a", "labels": {"kueue-managed": "true"}},
        {"name": "team-b", "labels": {"kueue-managed": "true"}},
    ]
    patch = recording.named("queues-namespacelabels-default")
    assert (patch.type, patch.inputs["metadata"]) == (
        "kubernetes:core/v1:NamespacePatch",
        {"name": "default", "labels": {"kueue-managed": "true"}},
    )
    org, gate = recording.named("queues-localqueue-default/org"), recording.named("kueue-ready")
    assert set(org.dependencies) == {gate.urn, patch.urn}, "labelled before its Jobs come; no external object waited on"
    priority = recording.named("queues-workloadpriorityclass-high")
    assert (priority.inputs["value"], priority.inputs["description"], "spec" in priority.inputs) == (
        1000,
        "production batch",
        False,
    )


def test_without_labels_to_set_an_existing_namespace_is_left_alone():
    recording = record(QueuesConfig.model_validate(EVERY_KIND), labels={})
    assert not [r for r in recording.registrations if r.type == "kubernetes:core/v1:NamespacePatch"]
