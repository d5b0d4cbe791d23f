"""Render mode in the composition root: every object the stack creates, the Kueue chart's included, lands in its
layer with that layer's sync wave, and the layers are applied in order."""

from __future__ import annotations

import pytest

from components.cluster_target import SYNC_OPTIONS, SYNC_WAVE, layer_of
from components.config.base import ConfigError
from components.config.loader import load_stack_config
from components.fleet import deploy
from tests.support import ack as ack_data
from tests.support.config import WALKTHROUGH, as_config
from tests.support.transforms import as_transformed, record_transforms
from tools import mock_runtime

CHART = "kubernetes:helm.sh/v4:Chart"
SECTIONS = {
    "aks": {"preset": "aks-walkthrough"},
    **WALKTHROUGH,
    "smokeJob": {"enabled": True},
    "ack": ack_data.section([ack_data.workload()], clusters=[ack_data.cluster(nodePool=ack_data.POOL)]),
    "gitops": {"renderToDirectory": "gitops"},
}
LAYER_OF_TYPE = {
    "kubernetes:core/v1:Namespace": None,  # Kueue's (10), the queues' (20), ACS's (30): checked by name below
    "kubernetes:batch/v1:Job": "30-workloads",
    "kubernetes:apps/v1:Deployment": "30-workloads",
    "kubernetes:scheduling.alibabacloud.com/v1alpha1:ResourcePolicy": "30-workloads",
    "kubernetes:kustomize.toolkit.fluxcd.io/v1:Kustomization": None,
}


@pytest.fixture
def rendered(monkeypatch):
    transforms = record_transforms(monkeypatch)
    config = load_stack_config(as_config(SECTIONS))
    return mock_runtime.run(lambda: deploy(config), {}), transforms


def directory(recording, registration) -> str:
    return recording.provider_of(registration).inputs["renderYamlToDirectory"]


def test_each_object_is_rendered_into_its_layer_with_that_layers_sync_wave(rendered):
    recording, transforms = rendered
    seen = set()
    for obj in recording.kubernetes_objects():
        where = directory(recording, obj)
        layer = layer_of(where)
        props = as_transformed(recording, transforms, obj.urn, obj.type, obj.name, obj.inputs)
        annotations = props["metadata"].get("annotations") or {}
        if obj.type.startswith("kubernetes:kustomize.toolkit.fluxcd.io/"):
            assert layer is None and where.startswith("gitops/flux/") and SYNC_WAVE not in annotations
            continue
        assert layer is not None and annotations[SYNC_WAVE] == str(layer.wave), obj.name
        expected = LAYER_OF_TYPE.get(obj.type) or ("20-queues" if "kueue.x-k8s.io" in obj.type else None)
        if obj.type == "kubernetes:core/v1:Namespace":
            name = obj.inputs["metadata"]["name"]
            expected = {"kueue-system": "10-kueue", "cas-kueue-demo": "20-queues"}.get(name, "30-workloads")
        assert where.endswith(f"/{expected}"), (obj.type, obj.name, where)
        seen.add(layer.directory)
    assert seen == {"10-kueue", "20-queues", "30-workloads"}


def test_the_chart_renders_into_the_kueue_layer_and_its_objects_get_wave_10(rendered):
    """The chart's objects are registered by the provider, out of the mock's sight: what the engine would do to one
    of them is what the transforms on the chart and its ancestors do."""
    recording, transforms = rendered
    chart = recording.one(CHART)
    provider = recording.by_urn(chart.providers["kubernetes"].rsplit("::", 1)[0])
    assert provider.inputs["renderYamlToDirectory"] == "gitops/aks/10-kueue"
    deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "kueue-controller-manager"}}
    props = as_transformed(recording, transforms, chart.urn, "kubernetes:apps/v1:Deployment", "d", deployment)
    assert props["metadata"]["annotations"] == {SYNC_WAVE: "10"}
    cert = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "kueue-webhook-server-cert"}}
    assert as_transformed(recording, transforms, chart.urn, "kubernetes:core/v1:Secret", "c", cert)["metadata"]
    with pytest.raises(ConfigError, match=r"gitops\.renderToDirectory: Secret kueue-system/leak holds data"):
        leak = {**cert, "metadata": {"name": "leak", "namespace": "kueue-system"}, "data": {"k": "dg=="}}
        as_transformed(recording, transforms, chart.urn, "kubernetes:core/v1:Secret", "c", leak)


def test_the_charts_crds_sync_server_side_under_argo_cd_through_the_programs_transform(rendered):
    """Chart v4 registers Kueue's CRDs itself: only the transform reaches them, and Kueue's ``workloads`` CRD is too
    large for Argo CD's default client-side apply."""
    recording, transforms = rendered
    chart = recording.one(CHART)
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "workloads.kueue.x-k8s.io"},
    }
    crd_type = "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition"
    props = as_transformed(recording, transforms, chart.urn, crd_type, "w", crd)
    assert props["metadata"]["annotations"] == {SYNC_WAVE: "10", SYNC_OPTIONS: "ServerSideApply=true"}


def test_flux_applies_the_layers_of_each_cluster_in_order(rendered):
    recording, _ = rendered
    flux = recording.by_type("kubernetes:kustomize.toolkit.fluxcd.io/v1:Kustomization")
    chains = {k.inputs["metadata"]["name"]: (k.inputs["spec"]["path"], k.inputs["spec"].get("dependsOn")) for k in flux}
    assert chains == {
        "aks-10-kueue": ("./gitops/aks/10-kueue", None),
        "aks-20-queues": ("./gitops/aks/20-queues", [{"name": "aks-10-kueue"}]),
        "aks-30-workloads": ("./gitops/aks/30-workloads", [{"name": "aks-20-queues"}]),
        "ack-demo-30-workloads": ("./gitops/ack-demo/30-workloads", None),
    }
    layer_directories = {
        directory(recording, obj) for obj in recording.kubernetes_objects() if "fluxcd" not in obj.type
    }
    assert {path.removeprefix("./") for path, _ in chains.values()} == layer_directories
    assert {directory(recording, k) for k in flux} == {"gitops/flux/aks", "gitops/flux/ack-demo"}
