"""The directory a render-mode stack's ``pulumi up`` writes, built offline from a mock run (``tools.render``).

Each object goes where its rendering provider puts it: ``<renderYamlToDirectory>/0-crd/`` for CRDs and
``/1-manifest/`` for everything else, named ``<apiVersion>-<kind>-<namespace>-<name>.yaml`` with ``/`` and ``:`` of
the apiVersion replaced by ``_`` and a missing namespace written ``default``, as ``renderPathForResource`` does
(https://github.com/pulumi/pulumi-kubernetes/blob/master/provider/pkg/provider/provider.go). Objects of a layer
directory get what the program's transform gives them there (:func:`components.cluster_target.placed_in`).

The Kueue chart's objects are added when its unpacked chart is at hand (``--kueue-chart`` or ``KUEUE_CHART_DIR``),
rendered with the PyPI package ``helm-python-sdk`` as Chart v4 renders it: the stack's values, release name and
namespace, Helm hooks left out (Chart v4 installs none, and drops them in render mode unless ``includeHooks``), the
release namespace set on namespaced kinds that name none (``Normalize`` in
https://github.com/pulumi/pulumi-kubernetes/blob/master/provider/pkg/provider/yaml/v2/yaml.go).
"""

from __future__ import annotations

import functools
import importlib
import pickle
from pathlib import Path
from typing import Any

from components import yaml_text
from components.cluster_target import layer_of, placed_in
from components.config.base import ConfigError
from tools.recording import Recording, Registration

CHART = "kubernetes:helm.sh/v4:Chart"
CHART_DIR_VARIABLE = "KUEUE_CHART_DIR"
CRD_API_VERSIONS = frozenset({"apiextensions.k8s.io/v1", "apiextensions.k8s.io/v1beta1"})
NAMESPACED_KINDS = frozenset(
    {
        "Binding",
        "ConfigMap",
        "ControllerRevision",
        "CronJob",
        "CSIStorageCapacity",
        "DaemonSet",
        "Deployment",
        "Endpoints",
        "EndpointSlice",
        "Event",
        "HorizontalPodAutoscaler",
        "Ingress",
        "Job",
        "Lease",
        "LimitRange",
        "NetworkPolicy",
        "PersistentVolumeClaim",
        "Pod",
        "PodDisruptionBudget",
        "PodTemplate",
        "ReplicaSet",
        "ReplicationController",
        "ResourceQuota",
        "Role",
        "RoleBinding",
        "Secret",
        "Service",
        "ServiceAccount",
        "StatefulSet",
    }
)
"""The built-in kinds pulumi-kubernetes knows to be namespaced (``Kind.Namespaced`` in
https://github.com/pulumi/pulumi-kubernetes/blob/master/provider/pkg/kinds/kinds.go)."""
HOOK = "helm.sh/hook"


def yaml_documents(text: str) -> list[Any]:
    """The non-empty documents of the YAML stream ``text``, as objects of the caller's own to change.

    Each distinct text is parsed once per process and later calls unpickle that parse: exactly the objects a parse
    builds, about 40 times faster than building them again (even libyaml's loader builds them in Python). The
    chart's CRDs, most of its text, are the same for every stack of a version, so a process rendering the chart for
    several stacks (the tests do, dozens of times) parses them once."""
    return pickle.loads(_pickled_documents(text))  # bytes this process pickled itself


@functools.cache
def _pickled_documents(text: str) -> bytes:
    return pickle.dumps([document for document in yaml_text.load_all(text) if document])


def render_path(obj: dict[str, Any], directory: str) -> str:
    """Where the provider writes ``obj`` under ``directory`` (``renderPathForResource``)."""
    metadata = obj.get("metadata") or {}
    api_version = str(obj["apiVersion"])
    file_name = "-".join(
        [
            api_version.replace("/", "_").replace(":", "_"),
            str(obj["kind"]).lower(),
            metadata.get("namespace") or "default",
            f"{metadata['name']}.yaml",
        ]
    )
    crd = api_version in CRD_API_VERSIONS and obj["kind"] == "CustomResourceDefinition"
    return f"{directory}/{'0-crd' if crd else '1-manifest'}/{file_name}"


def chart_objects(chart_dir: Path, chart: Registration) -> list[dict[str, Any]]:
    """The objects Chart v4 registers for ``chart`` (its recorded inputs), rendered from the unpacked ``chart_dir``.

    Raises ``ConfigError`` naming ``--kueue-chart`` when the directory holds another chart or version, or the
    package is missing."""
    try:
        helm_python: Any = importlib.import_module("helm_python")
    except ImportError:
        raise _chart_error(chart_dir, "rendering a chart needs the PyPI package helm-python-sdk") from None
    inputs = chart.inputs
    loaded = helm_python.Chart.load(str(chart_dir))
    wanted = (str(inputs["chart"]).rsplit("/", 1)[-1], str(inputs.get("version")))
    if (loaded.name, loaded.version) != wanted:
        raise _chart_error(chart_dir, f"holds {loaded.name} {loaded.version}; the stack installs {' '.join(wanted)}")
    namespace = str(inputs["namespace"])
    templates = loaded.render(inputs.get("values") or {}, name=inputs["name"], namespace=namespace, is_install=True)
    objects = [
        obj
        for path, text in sorted(templates.items())
        if path.endswith((".yaml", ".yml"))
        for obj in yaml_documents(text)
        if HOOK not in ((obj.get("metadata") or {}).get("annotations") or {})
    ]
    namespaced_crds = {
        (crd["spec"]["group"], crd["spec"]["names"]["kind"])
        for crd in objects
        if crd["kind"] == "CustomResourceDefinition" and crd["spec"].get("scope") == "Namespaced"
    }
    for obj in objects:
        group = str(obj["apiVersion"]).rpartition("/")[0]
        metadata = obj.setdefault("metadata", {})
        if not metadata.get("namespace") and (
            obj["kind"] in NAMESPACED_KINDS or (group, obj["kind"]) in namespaced_crds
        ):
            metadata["namespace"] = namespace
    return objects


def is_kueue_chart(chart: Registration) -> bool:
    """Kueue's chart (by name, from any repository), not another the stack installs (NVIDIA's, on GPU pools)."""
    return str(chart.inputs["chart"]).rsplit("/", 1)[-1] == "kueue"


def _chart_error(chart_dir: Path, problem: str) -> ConfigError:
    return ConfigError([("--kueue-chart", f"{chart_dir}: {problem}")], rule="tool.kueue-chart")


def files(recording: Recording, chart_dir: Path | None) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """Relative path -> object for everything the stack renders, and the charts whose contents are absent.

    Raises ``ConfigError`` (``gitops.renderToDirectory``) for a Secret with data, as the program's transform does."""
    placed: list[tuple[str, dict[str, Any], str]] = []
    for registration in recording.kubernetes_objects():
        provider = recording.provider_of(registration)
        assert provider is not None, f"{registration.name}: a rendering stack's objects all have a provider"
        placed.append((provider.inputs["renderYamlToDirectory"], registration.redacted_inputs, registration.name))
    absent = []
    for chart in recording.by_type(CHART):
        provider = recording.by_urn(chart.providers["kubernetes"].rsplit("::", 1)[0])
        directory = provider.inputs["renderYamlToDirectory"]
        if chart_dir is None or not is_kueue_chart(chart):  # --kueue-chart holds Kueue's chart only
            absent.append(f"{chart.inputs['chart']} {chart.inputs.get('version')} in {directory}")
            continue
        placed += [(directory, obj, chart.name) for obj in chart_objects(chart_dir, chart)]
    out: dict[str, dict[str, Any]] = {}
    for directory, obj, name in placed:
        layer = layer_of(directory)
        final = placed_in(layer, obj, name) if layer else obj
        out[render_path(final, directory)] = final
    return out, absent
