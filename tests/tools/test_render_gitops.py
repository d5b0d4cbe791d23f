"""The offline preview of a render-mode stack: the same directory, paths and file names its ``pulumi up`` writes,
every object in its layer with its sync wave, the Flux Kustomizations, no Secret value; the chart when at hand."""

from __future__ import annotations

import json
import os
import sys
import types
from pathlib import Path
from typing import Any, ClassVar

import pytest

from components import yaml_text
from components.cluster_target import SYNC_OPTIONS, SYNC_WAVE
from tests.support import PROJECT_ROOT, run_cache
from tests.support.kueue_sources import FETCH_HINT
from tests.support.stacks import AKS_STACK, STACKS, edited_stack, recorded
from tools import gitops_preview, render, stack_file
from tools.recording import Registration

MULTIKUEUE_STACKS = {"Pulumi.burst.yaml"}
RENDERABLE = [path for path in STACKS if path.name not in MULTIKUEUE_STACKS]
FLUX = "kustomize.toolkit.fluxcd.io_v1-kustomization"
CHARTS = Path(os.environ.get("KUEUE_CHARTS", PROJECT_ROOT.parent / "shared/charts/kueue"))
"""Kueue's charts as its release script packages them, one ``<version>/chart`` each, for the tests that render the
real chart (they skip, saying so, without them); every other test runs without a chart."""


@pytest.fixture(autouse=True)
def _no_chart_from_the_environment(monkeypatch) -> None:
    monkeypatch.delenv("KUEUE_CHART_DIR", raising=False)


@pytest.fixture(autouse=True)
def _one_program_run_per_stack(monkeypatch) -> None:
    """``render.main``'s run of the program made once per session (:mod:`tests.support.run_cache`), as
    :func:`tests.support.stacks.rendered` makes it: the tests below render the same edited stacks, with and without
    the chart, and compare the files with the run itself."""
    monkeypatch.setattr(render, "run_main", run_cache.run_main)


def rendering(config: dict[str, Any]) -> None:
    config["elastic-capacity:gitops"] = {"renderToDirectory": "gitops"}


def rendering_workloads_too(config: dict[str, Any]) -> None:
    """Render mode, and the smoke Job too where the stack allows it, so every layer is written."""
    rendering(config)
    production = (config.get("elastic-capacity:environment") or {}).get("kind") == "production"
    if "elastic-capacity:smokeJob" in config and not production:
        config["elastic-capacity:smokeJob"]["enabled"] = True


def expected_path(directory: str, obj: dict[str, Any]) -> str:
    """renderPathForResource, written out: ``<dir>/{0-crd|1-manifest}/<apiVersion _>-<kind>-<namespace>-<name>``."""
    metadata = obj["metadata"]
    folder = "0-crd" if obj["kind"] == "CustomResourceDefinition" else "1-manifest"
    parts = [obj["apiVersion"].replace("/", "_"), obj["kind"].lower(), metadata.get("namespace", "default")]
    return f"{directory}/{folder}/{'-'.join(parts)}-{metadata['name']}.yaml"


def files_under(out: Path) -> dict[str, dict[str, Any]]:
    """Relative path -> the one object of each file written; the chart's CRD files, the same for every stack of a
    version, are parsed once (:func:`tools.gitops_preview.yaml_documents`)."""
    files = (out / "gitops").rglob("*.yaml")
    return {str(p.relative_to(out)): one_document(p.read_text()) for p in files}


def one_document(text: str) -> dict[str, Any]:
    (document,) = gitops_preview.yaml_documents(text)
    return document


def provider_directory(recording, registration: Registration) -> str:
    return recording.provider_of(registration).inputs["renderYamlToDirectory"]


@pytest.mark.parametrize("stack", RENDERABLE, ids=lambda p: p.name)
def test_the_preview_writes_every_object_where_the_provider_would_in_its_layer(stack, tmp_path, capsys):
    source = edited_stack(stack, rendering_workloads_too, tmp_path)
    assert render.main([str(source), "--out", str(tmp_path / "out")]) == 0
    written = files_under(tmp_path / "out")
    assert not (tmp_path / "out" / "manifests").exists(), "the GitOps directory takes the place of manifests/"
    recording = run_cache.run_main(*render.read_stack_file(source))  # the run render.main made
    charts = recording.by_type("kubernetes:helm.sh/v4:Chart")
    assert capsys.readouterr().out.count("chart contents absent: ") == len(charts)
    expected = {expected_path(provider_directory(recording, r), r.inputs): r for r in recording.kubernetes_objects()}
    assert set(written) == set(expected)
    for path, obj in written.items():
        layer = path.split("/")[2]
        if FLUX in path:
            assert path.startswith("gitops/flux/") and SYNC_WAVE not in obj["metadata"].get("annotations", {})
            assert obj["spec"]["wait"] is True
            assert any(other.startswith(obj["spec"]["path"].removeprefix("./") + "/") for other in written)
            continue
        assert obj["metadata"]["annotations"][SYNC_WAVE] == str(int(layer.split("-")[0])), path
        assert not (obj["kind"] == "Secret" and (obj.get("data") or obj.get("stringData"))), path
    layers = {"/".join(path.split("/")[:3]) for path in written if FLUX not in path}
    kustomized = {obj["spec"]["path"].removeprefix("./") for path, obj in written.items() if FLUX in path}
    assert kustomized == layers, "one Flux Kustomization per layer directory, and only those"


def test_the_file_names_are_the_providers(tmp_path):
    assert render.main([str(edited_stack(AKS_STACK, rendering, tmp_path)), "--out", str(tmp_path / "out")]) == 0
    written = files_under(tmp_path / "out")
    assert (
        "gitops/aks/20-queues/1-manifest/kueue.x-k8s.io_v1beta2-clusterqueue-default-cas-cluster-queue.yaml" in written
    )
    assert "gitops/aks/10-kueue/1-manifest/v1-namespace-default-kueue-system.yaml" in written
    assert f"gitops/flux/aks/1-manifest/{FLUX}-flux-system-aks-20-queues.yaml" in written


@pytest.mark.parametrize("stack", sorted(MULTIKUEUE_STACKS))
def test_a_multikueue_stack_is_refused_in_render_mode_naming_the_key(stack, tmp_path, capsys):
    path = next(p for p in STACKS if p.name == stack)
    edited = edited_stack(path, rendering, tmp_path)
    assert render.main([str(edited), "--out", str(tmp_path / "out")]) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"error: {edited}:") and ": elastic-capacity:multiKueue:" in error
    assert "cannot render" in error
    assert not (tmp_path / "out").exists()


def test_a_directory_outside_the_project_is_refused(tmp_path, capsys):
    def outside(config: dict[str, Any]) -> None:
        config["elastic-capacity:gitops"] = {"renderToDirectory": "../elsewhere"}

    assert render.main([str(edited_stack(AKS_STACK, outside, tmp_path)), "--out", str(tmp_path / "out")]) == 2
    assert "elastic-capacity:gitops.renderToDirectory: '../elsewhere' is not allowed" in capsys.readouterr().err


# --- the chart's objects, rendered from an unpacked chart ------------------------------------------------------------


class FakeChart:
    """Stands for ``helm_python.Chart``: what it was asked to render, and templates with each case Chart v4 meets."""

    asked: ClassVar[dict[str, Any]] = {}

    def __init__(self, version: str) -> None:
        self.name, self.version = "kueue", version

    @classmethod
    def load(cls, path: str) -> FakeChart:
        return cls(Path(path, "version").read_text().strip())

    def render(self, values, *, name, namespace, is_install):
        FakeChart.asked = {"values": values, "name": name, "namespace": namespace, "is_install": is_install}
        crd = {
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": "ws.x.io"},
            "spec": {"group": "x.io", "names": {"kind": "W"}, "scope": "Namespaced"},
        }
        return {
            "kueue/templates/crd.yaml": yaml_text.dump(crd, sort_keys=True),
            "kueue/templates/manager.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: manager}\n---\n",
            "kueue/templates/cert.yaml": "apiVersion: v1\nkind: Secret\n"
            "metadata: {name: cert, namespace: kueue-system}",
            "kueue/templates/w.yaml": "apiVersion: x.io/v1\nkind: W\nmetadata: {name: w}\n",
            "kueue/templates/role.yaml": "apiVersion: rbac.authorization.k8s.io/v1\n"
            "kind: ClusterRole\nmetadata: {name: r}",
            "kueue/templates/hook.yaml": "apiVersion: batch/v1\nkind: Job\n"
            "metadata: {name: h, annotations: {helm.sh/hook: pre-install}}",
            "kueue/templates/NOTES.txt": "thanks",
        }


@pytest.fixture
def fake_helm(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "helm_python", types.SimpleNamespace(Chart=FakeChart))
    chart = tmp_path / "chart"
    chart.mkdir()
    return chart


def chart_version(stack: Path) -> str:
    return yaml_text.load(stack.read_text())["config"]["elastic-capacity:kueue"]["chartVersion"]


def test_the_charts_objects_are_added_to_the_kueue_layer_as_chart_v4_registers_them(fake_helm, tmp_path, monkeypatch):
    (fake_helm / "version").write_text(chart_version(AKS_STACK))
    monkeypatch.setenv("KUEUE_CHART_DIR", str(fake_helm))
    assert render.main([str(edited_stack(AKS_STACK, rendering, tmp_path)), "--out", str(tmp_path / "out")]) == 0
    chart = next(r for r in recorded(AKS_STACK).registrations if r.type == "kubernetes:helm.sh/v4:Chart")
    assert FakeChart.asked == {
        "values": chart.inputs["values"],
        "name": chart.inputs["name"],
        "namespace": "kueue-system",
        "is_install": True,
    }
    kueue = {
        path.removeprefix("gitops/aks/10-kueue/"): obj
        for path, obj in files_under(tmp_path / "out").items()
        if path.startswith("gitops/aks/10-kueue/")
    }
    assert set(kueue) == {
        "0-crd/apiextensions.k8s.io_v1-customresourcedefinition-default-ws.x.io.yaml",
        "1-manifest/apps_v1-deployment-kueue-system-manager.yaml",
        "1-manifest/v1-secret-kueue-system-cert.yaml",
        "1-manifest/x.io_v1-w-kueue-system-w.yaml",
        "1-manifest/rbac.authorization.k8s.io_v1-clusterrole-default-r.yaml",
        "1-manifest/v1-namespace-default-kueue-system.yaml",
    }, "no hook, no NOTES; the release namespace on namespaced kinds (a chart CRD's too), none on cluster kinds"
    assert all(obj["metadata"]["annotations"][SYNC_WAVE] == "10" for obj in kueue.values())


def test_a_chart_with_data_in_a_secret_is_refused_naming_the_key(fake_helm, tmp_path, capsys, monkeypatch):
    (fake_helm / "version").write_text(chart_version(AKS_STACK))
    leaking = FakeChart.render

    def render_with_data(self, values, **options):
        return {
            **leaking(self, values, **options),
            "kueue/templates/cert.yaml": "apiVersion: v1\nkind: Secret\n"
            "metadata: {name: cert, namespace: kueue-system}\ndata: {tls.key: a2V5}\n",
        }

    monkeypatch.setattr(FakeChart, "render", render_with_data)
    source = edited_stack(AKS_STACK, rendering, tmp_path)
    assert render.main([str(source), "--out", str(tmp_path / "out"), "--kueue-chart", str(fake_helm)]) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"error: {source}:")
    assert error.endswith(
        ": elastic-capacity:gitops.renderToDirectory: Secret kueue-system/cert holds data, which a rendered "
        "directory would keep in plain text; render stacks must create no Secret with data (put it in the cluster by "
        "other means, such as Sealed Secrets or the External Secrets Operator) [rule: deploy.render-no-secret-data]\n"
    )
    assert not (tmp_path / "out").exists()


def test_a_chart_of_another_version_is_refused(fake_helm, tmp_path, capsys):
    (fake_helm / "version").write_text("0.0.1")
    source = edited_stack(AKS_STACK, rendering, tmp_path)
    assert render.main([str(source), "--out", str(tmp_path / "out"), "--kueue-chart", str(fake_helm)]) == 2
    assert f"holds kueue 0.0.1; the stack installs kueue {chart_version(AKS_STACK)}" in capsys.readouterr().err


def test_without_the_helm_package_the_chart_option_says_what_to_install(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "helm_python", None)
    source = edited_stack(AKS_STACK, rendering, tmp_path)
    assert render.main([str(source), "--out", str(tmp_path / "out"), "--kueue-chart", str(tmp_path)]) == 2
    assert "needs the PyPI package helm-python-sdk" in capsys.readouterr().err


def installs_kueue(path: Path) -> bool:
    config = render.validate(stack_file.read(path))
    return config.kueue_target is not None and config.kueue.install


INSTALLS_KUEUE = [path for path in RENDERABLE if installs_kueue(path)]


def rendered_with_the_real_chart(stack: Path, tmp_path: Path) -> dict[str, dict[str, Any]]:
    """The whole directory ``pulumi up`` writes for ``stack`` in render mode, the chart's objects included, from the
    chart of the stack's version (relative path -> object)."""
    pytest.importorskip("helm_python", reason="helm-python-sdk renders the chart: pip install -r requirements-dev.txt")
    source = edited_stack(stack, rendering_workloads_too, tmp_path)
    version = render.validate(stack_file.read(source)).kueue.chart_version
    chart_dir = CHARTS / version / "chart"
    if not (chart_dir / "Chart.yaml").is_file():
        pytest.skip(f"no Kueue {version} chart at {chart_dir}: set KUEUE_CHARTS, or {FETCH_HINT}")
    assert render.main([str(source), "--out", str(tmp_path / "out"), "--kueue-chart", str(chart_dir)]) == 0
    return files_under(tmp_path / "out")


ANNOTATIONS_LIMIT = 262144
"""The bytes all of an object's annotations may hold together (``TotalAnnotationSizeLimitB`` in
https://github.com/kubernetes/apimachinery/blob/master/pkg/api/validation/objectmeta.go)."""


def syncs_server_side(obj: dict[str, Any]) -> bool:
    """Whether Argo CD applies ``obj`` server-side by its own annotation, whatever the Application says: its
    ``ServerSideApply=true`` sync option, unless ``ServerSideApply=false`` is there too (``shouldUseServerSideApply``
    in https://github.com/argoproj/argo-cd/blob/master/gitops-engine/pkg/sync/sync_context.go)."""
    options = {o.strip() for o in obj["metadata"].get("annotations", {}).get(SYNC_OPTIONS, "").split(",")}
    return "ServerSideApply=true" in options and "ServerSideApply=false" not in options


def last_applied_bytes(obj: dict[str, Any]) -> int:
    """What client-side apply would add to ``obj``'s annotations: the key, and the object itself as compact JSON."""
    return len("kubectl.kubernetes.io/last-applied-configuration") + len(json.dumps(obj, separators=(",", ":")))


@pytest.mark.parametrize("stack", INSTALLS_KUEUE, ids=lambda p: p.name)
def test_with_the_real_chart_every_object_is_written_as_argo_cd_can_sync_it(stack, tmp_path):
    """The chart's objects in the Kueue layer, without hooks; no Secret value in git. Kueue's ``workloads`` CRD
    cannot be applied client-side, Argo CD's default: its last-applied annotation alone is past the annotations'
    limit. Every CRD, and every object too large for that annotation, says so itself."""
    written = rendered_with_the_real_chart(stack, tmp_path)
    kueue = {path: obj for path, obj in written.items() if "/10-kueue/" in path and FLUX not in path}
    kinds = {obj["kind"] for obj in kueue.values()}
    assert {"CustomResourceDefinition", "Deployment", "ValidatingWebhookConfiguration", "Secret"} <= kinds
    assert len([obj for obj in kueue.values() if obj["kind"] == "CustomResourceDefinition"]) >= 10
    assert all(obj["metadata"]["annotations"][SYNC_WAVE] == "10" for obj in kueue.values())
    assert not [p for p, obj in kueue.items() if "helm.sh/hook" in obj["metadata"].get("annotations", {})]
    assert not [
        p for p, obj in written.items() if obj["kind"] == "Secret" and (obj.get("data") or obj.get("stringData"))
    ]

    crds = [path for path, obj in written.items() if obj["kind"] == "CustomResourceDefinition"]
    too_large = [path for path, obj in written.items() if last_applied_bytes(obj) > ANNOTATIONS_LIMIT]
    assert crds and too_large, "the render holds Kueue's CRDs, the workloads CRD among them too large"
    assert [path for path in {*crds, *too_large} if not syncs_server_side(written[path])] == []
    assert [
        path for path, obj in written.items() if obj["kind"] != "CustomResourceDefinition" and syncs_server_side(obj)
    ] == []
