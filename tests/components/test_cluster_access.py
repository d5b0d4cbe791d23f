"""The Kubernetes provider every cluster component hands out: named for its cluster, keyed by the cloud's cluster id."""

from __future__ import annotations

import pulumi

from components.cluster_access import kubernetes_provider
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
        kubernetes_provider(
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


def test_a_rendering_provider_writes_its_clusters_objects_to_its_own_directory_and_holds_no_kubeconfig():
    recording = mock_runtime.run(
        lambda: kubernetes_provider("cluster", "ignored", parent=Holder("cluster"), render_to="out/gitops/"), {}
    )
    provider = recording.one(K8S_PROVIDER, "cluster-k8s")
    assert provider.inputs["renderYamlToDirectory"] == "out/gitops/cluster"
    assert "kubeconfig" not in provider.inputs
    assert "clusterIdentifier" not in provider.inputs
