"""Where every cluster component puts its Kubernetes objects: applying, one provider named for its cluster and keyed
by the cloud's cluster id; rendering, one provider per layer, each object in its layer's sync wave, Flux in order."""

from __future__ import annotations

import pulumi
import pytest
from pulumi_kubernetes import core

from components.cluster_target import (
    KUEUE,
    LAYERS,
    QUEUES,
    SYNC_OPTIONS,
    SYNC_WAVE,
    WORKLOADS,
    ClusterTarget,
    Layer,
    cluster_target,
    layer_of,
    placed_in,
)
from components.config.base import ConfigError
from tests.support.transforms import Transforms, as_transformed, record_transforms
from tools import mock_runtime
from tools.mock_cloud import FAKE_KUBECONFIG
from tools.recording import Recording

K8S_PROVIDER = "pulumi:providers:kubernetes"


class Holder(pulumi.ComponentResource):
    def __init__(self, name: str) -> None:
        super().__init__("test:index:Holder", name)


class Access(pulumi.CustomResource):
    """Stands for what must exist before the provider can act (an Azure role assignment, say)."""

    def __init__(self, name: str) -> None:
        super().__init__("test:index:Access", name, {})


def provide(**options) -> Recording:
    """Register a parent, something the provider must wait for, and the provider with ``options``."""

    def program() -> None:
        holder = Holder("cluster")
        access = Access("access")
        depends_on = [access] if options.pop("wait_for_access", False) else None
        cluster_target(
            "cluster", pulumi.Output.secret(FAKE_KUBECONFIG), parent=holder, depends_on=depends_on, **options
        )

    return mock_runtime.run(program, {})


def test_the_provider_is_named_for_its_cluster_and_is_its_child():
    recording = provide()
    provider = recording.one(K8S_PROVIDER, "cluster-k8s")
    assert provider.parent == recording.one("test:index:Holder", "cluster").urn


def test_the_kubeconfig_stays_secret():
    provider = provide().one(K8S_PROVIDER)
    assert provider.is_secret("kubeconfig")
    assert provider.inputs["kubeconfig"] == FAKE_KUBECONFIG


def test_the_cloud_cluster_id_keys_the_provider_so_fresh_credentials_never_replace_it():
    provider = provide(cluster_identifier="/subscriptions/s/resourceGroups/rg/managedClusters/c").one(K8S_PROVIDER)
    assert provider.inputs["clusterIdentifier"] == "/subscriptions/s/resourceGroups/rg/managedClusters/c"


def test_without_a_cluster_id_the_provider_keeps_its_own_heuristics():
    assert "clusterIdentifier" not in provide().one(K8S_PROVIDER).inputs


def test_delete_unreachable_is_sent_when_true():
    assert provide(delete_unreachable=True).one(K8S_PROVIDER).inputs["deleteUnreachable"] == "true"


def test_false_is_not_sent_so_the_providers_own_variable_still_lets_a_destroy_finish(monkeypatch):
    """The provider flag would override ``PULUMI_K8S_DELETE_UNREACHABLE``, the remedy the provider's own error names
    once a cluster is gone; left out, the variable decides (here read by the SDK, as ``destroy --run-program``)."""
    assert "deleteUnreachable" not in provide(delete_unreachable=False).one(K8S_PROVIDER).inputs
    monkeypatch.setenv("PULUMI_K8S_DELETE_UNREACHABLE", "true")
    assert provide(delete_unreachable=False).one(K8S_PROVIDER).inputs["deleteUnreachable"] == "true"


def test_mutable_secrets_are_asked_for_only_where_needed():
    """A MultiKueue manager's Secrets are updated in place; every other provider keeps pulumi-kubernetes' default."""
    assert provide(secrets_mutable=True).one(K8S_PROVIDER).inputs["enableSecretMutable"] in (True, "true")
    assert "enableSecretMutable" not in provide().one(K8S_PROVIDER).inputs


def test_the_provider_waits_for_what_it_is_given():
    recording = provide(wait_for_access=True)
    provider = recording.one(K8S_PROVIDER)
    assert provider.dependencies == (recording.one("test:index:Access", "access").urn,)
    assert provide().one(K8S_PROVIDER).dependencies == ()


# --- render mode: one rendering provider per layer, each object in its layer's sync wave ---------------------------


def render(program, monkeypatch) -> tuple[Recording, Transforms]:
    transforms = record_transforms(monkeypatch)
    return mock_runtime.run(program, {}), transforms


class Placed(pulumi.ComponentResource):
    """Stands for a component that creates objects of one layer (Kueue, the queues, a workload)."""

    def __init__(self, name: str, opts: pulumi.ResourceOptions) -> None:
        super().__init__("test:index:Placed", name, None, opts)
        core.v1.ConfigMap(name, metadata={"name": name, "namespace": "team"}, opts=pulumi.ResourceOptions(parent=self))


def rendered_cluster(layers: list[Layer]) -> None:
    objects = cluster_target("cluster", "ignored", parent=Holder("cluster"), render_to="out/gitops")
    for layer in layers:
        Placed(f"in-{layer.name}", objects.on(layer))
    objects.flux_kustomizations()


def test_each_layer_used_gets_a_rendering_provider_that_rewrites_every_object_on_every_up(monkeypatch):
    recording, _ = render(lambda: rendered_cluster([WORKLOADS, KUEUE]), monkeypatch)
    providers = {p.name: p for p in recording.by_type(K8S_PROVIDER)}
    assert {name: p.inputs for name, p in providers.items()} == {
        "cluster-kueue-k8s": {"renderYamlToDirectory": "out/gitops/cluster/10-kueue", "alwaysRender": "true"},
        "cluster-workloads-k8s": {"renderYamlToDirectory": "out/gitops/cluster/30-workloads", "alwaysRender": "true"},
        "cluster-flux-k8s": {"renderYamlToDirectory": "out/gitops/flux/cluster", "alwaysRender": "true"},
    }, "no kubeconfig, no cluster id; no provider (nor directory) for the unused queues layer"
    holder = recording.one("test:index:Holder", "cluster").urn
    assert all(p.parent == holder for p in providers.values())
    for layer in (KUEUE, WORKLOADS):
        config_map = recording.one("kubernetes:core/v1:ConfigMap", f"in-{layer.name}")
        assert recording.provider_of(config_map).name == f"cluster-{layer.name}-k8s"


def test_every_object_of_a_layer_is_given_its_sync_wave_by_the_transform_on_its_component(monkeypatch):
    recording, transforms = render(lambda: rendered_cluster(list(LAYERS)), monkeypatch)
    for layer in LAYERS:
        config_map = recording.one("kubernetes:core/v1:ConfigMap", f"in-{layer.name}")
        assert transforms[config_map.urn] == [], "the transform sits on the component, so its children all get it"
        props = as_transformed(recording, transforms, config_map.urn, config_map.type, "x", config_map.inputs)
        assert props["metadata"]["annotations"] == {SYNC_WAVE: str(layer.wave)}
        assert props["metadata"]["name"] == f"in-{layer.name}"


def test_the_flux_kustomizations_apply_each_used_layer_after_the_one_before_it_is_ready(monkeypatch):
    recording, transforms = render(lambda: rendered_cluster([KUEUE, WORKLOADS]), monkeypatch)
    flux = recording.by_type("kubernetes:kustomize.toolkit.fluxcd.io/v1:Kustomization")
    assert all(recording.provider_of(k).name == "cluster-flux-k8s" for k in flux)
    assert all(transforms[k.urn] == [] for k in flux), "Flux's own objects carry no sync wave"
    specs = {k.inputs["metadata"]["name"]: k.inputs["spec"] for k in flux}
    assert set(specs) == {"cluster-10-kueue", "cluster-30-workloads"}
    assert specs["cluster-10-kueue"]["path"] == "./out/gitops/cluster/10-kueue"
    assert "dependsOn" not in specs["cluster-10-kueue"]
    assert specs["cluster-30-workloads"]["dependsOn"] == [{"name": "cluster-10-kueue"}]
    for spec in specs.values():
        assert spec["wait"] is True and spec["prune"] is True
        assert spec["sourceRef"] == {"kind": "GitRepository", "name": "flux-system"}
    assert {k.inputs["metadata"]["namespace"] for k in flux} == {"flux-system"}


def test_an_applying_cluster_has_one_provider_no_transform_and_no_flux(monkeypatch):
    transforms = record_transforms(monkeypatch)

    def program() -> None:
        objects = cluster_target("cluster", pulumi.Output.secret(FAKE_KUBECONFIG), parent=Holder("cluster"))
        for layer in LAYERS:
            Placed(f"in-{layer.name}", objects.on(layer))
        objects.flux_kustomizations()

    recording = mock_runtime.run(program, {})
    assert [p.name for p in recording.by_type(K8S_PROVIDER)] == ["cluster-k8s"]
    assert not [urn for urn, registered in transforms.items() if registered]
    assert not recording.by_type("kubernetes:kustomize.toolkit.fluxcd.io/v1:Kustomization")


def test_a_rendering_cluster_has_no_applying_provider_to_hand_out():
    objects = ClusterTarget("cluster", parent=None, kubeconfig="", provider=None, render_to="out")  # type: ignore[arg-type]
    with pytest.raises(AssertionError, match="one provider per layer"):
        _ = objects.provider


def test_a_layer_is_found_by_its_directory():
    assert layer_of("gitops/aks/20-queues") == QUEUES and layer_of("gitops/aks/20-queues/") == QUEUES
    assert layer_of("gitops/flux/aks") is None


@pytest.mark.parametrize("values", [{"data": {"token": "c2VjcmV0"}}, {"stringData": {"token": "secret"}}])
def test_a_secret_with_values_is_refused_naming_the_key_and_the_secret(values):
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "creds", "namespace": "team"}, **values}
    with pytest.raises(ConfigError) as refused:
        placed_in(QUEUES, secret, "creds-resource")
    assert refused.value.keys == ["elastic-capacity:gitops.renderToDirectory"]
    assert "Secret team/creds holds data" in str(refused.value) and "plain text" in str(refused.value)


def test_a_secret_without_values_is_placed_like_any_object():
    """The Kueue chart's webhook certificate Secret: Kueue fills it in at run time."""
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "cert", "annotations": {"a": "b"}}}
    assert placed_in(KUEUE, secret, "cert")["metadata"] == {"name": "cert", "annotations": {"a": "b", SYNC_WAVE: "10"}}
    assert secret["metadata"] == {"name": "cert", "annotations": {"a": "b"}}, "the input is left as it was"


def test_a_crd_syncs_server_side_under_argo_cd_keeping_its_other_sync_options():
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": {"name": "a.x.io"}}
    assert placed_in(KUEUE, crd, "a")["metadata"]["annotations"] == {
        SYNC_WAVE: "10",
        SYNC_OPTIONS: "ServerSideApply=true",
    }
    crd["metadata"]["annotations"] = {SYNC_OPTIONS: "Prune=false, ServerSideApply=false"}
    assert placed_in(KUEUE, crd, "a")["metadata"]["annotations"][SYNC_OPTIONS] == "Prune=false,ServerSideApply=true"


def test_only_a_crd_is_marked_for_server_side_apply():
    lookalike = {"apiVersion": "x.io/v1", "kind": "CustomResourceDefinition", "metadata": {"name": "n"}}
    config_map = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "n"}}
    for obj in (lookalike, config_map):
        assert SYNC_OPTIONS not in placed_in(KUEUE, obj, "n")["metadata"]["annotations"]


def test_metadata_known_only_at_up_is_annotated_once_known(run_program):
    seen = []

    def program() -> None:
        metadata = pulumi.Output.from_input({"name": "late"})
        placed = placed_in(WORKLOADS, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata}, "late")
        placed["metadata"].apply(seen.append)

    run_program(program)
    assert seen == [{"name": "late", "annotations": {SYNC_WAVE: "30"}}]
