"""Kueue's chart and sources at each verified patch, read from the shared folder (never copied into the repository):
``charts/kueue/<version>/chart`` is the chart as Kueue's release script packages it, ``src/`` the manager
Configuration types and feature gates at that tag. Tests that need them skip with the reason when absent."""

from __future__ import annotations

import functools
import os
import pickle
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from components import yaml_text
from components.config.kueue.profiles import PROFILES
from tests.support import PROJECT_ROOT
from tools import gitops_preview

KUEUE_CHARTS = PROJECT_ROOT.parent / "shared/charts/kueue"
FETCH_HINT = "`python3 -m tools.kueue_assets fetch` lays it out"
"""How a test that skips for want of ../shared says to supply it."""
VERIFIED = [(version, profile) for profile in PROFILES.values() for version in profile.verified]
"""Every verified patch with its minor's profile, oldest first."""


def source_dir(version: str) -> Path:
    """``<version>/`` of the shared charts, or skip saying where it was looked for."""
    folder = KUEUE_CHARTS / version
    if not (folder / "chart/Chart.yaml").is_file():
        pytest.skip(f"Kueue {version} chart and sources not found at {folder}: {FETCH_HINT}")
    return folder


def chart_manager_config(version: str) -> dict[str, Any]:
    """The chart's default manager Configuration (``managerConfig.controllerManagerConfigYaml``)."""
    values = yaml_text.load((source_dir(version) / "chart/values.yaml").read_text())
    return yaml_text.load(values["managerConfig"]["controllerManagerConfigYaml"])


_SPEC = re.compile(
    r'Version: version.MustParse\("([\d.]+)"\), Default: (true|false), PreRelease: featuregate.(\w+)'
    r"(, LockToDefault: true)?"
)


def feature_gates(version: str) -> dict[str, tuple[bool, bool]]:
    """``defaultVersionedFeatureGates`` of ``pkg/features/kube_features.go`` at ``version``: each gate's (default,
    locked) as the binary of that minor resolves its versioned specs (the last spec not newer than the minor)."""
    text = (source_dir(version) / "src/kube_features.go").read_text()
    body = text[text.index("var defaultVersionedFeatureGates") :]
    minor = tuple(int(part) for part in version.split(".")[:2])
    gates = {}
    for entry in re.finditer(r"\n\t(\w+): \{\n(.*?)\n\t\},", body, re.S):
        current = None
        for spec_version, default, _, locked in _SPEC.findall(entry.group(2)):
            if tuple(int(part) for part in spec_version.split(".")) <= minor:
                current = (default == "true", bool(locked))
        assert current is not None, f"{entry.group(1)} has no spec for {version}"
        gates[entry.group(1)] = current
    return gates


def render_chart(version: str, chart_inputs: dict[str, Any]) -> list[dict[str, Any]]:
    """The objects the real chart of ``version`` renders with a Chart resource's recorded inputs, through Helm's own
    library (helm-python-sdk, the wrapper tools/gitops_preview.py uses); skips saying why without it.

    Each distinct render (version, values, release name and namespace) is made once per process and later calls
    unpickle it (:data:`_RENDERED`), as objects of the caller's own to change: stacks that ask for the same Kueue
    pass the same values (19 distinct renders among the suite's 50)."""
    assert chart_inputs["version"] == version
    values = chart_inputs.get("values") or {}
    name, namespace = chart_inputs["name"], chart_inputs["namespace"]
    key = pickle.dumps((version, values, name, namespace))
    if key not in _RENDERED:
        _RENDERED[key] = pickle.dumps(_rendered_objects(version, values, name, namespace))
    objects: list[dict[str, Any]] = pickle.loads(_RENDERED[key])  # bytes this process pickled itself
    return objects


_RENDERED: dict[bytes, bytes] = {}
"""The pickled objects of each render :func:`render_chart` made, keyed by the pickle of its arguments (exact: every
type, key order and value)."""


def _rendered_objects(version: str, values: dict[str, Any], name: str, namespace: str) -> list[dict[str, Any]]:
    helm_python = pytest.importorskip(
        "helm_python", reason="rendering needs helm-python-sdk: pip install -r requirements-dev.txt"
    )
    chart = helm_python.Chart.load(str(source_dir(version) / "chart"))
    assert (chart.name, chart.version) == ("kueue", version)
    templates = chart.render(values, name=name, namespace=namespace, is_install=True)
    return [obj for text in templates.values() for obj in gitops_preview.yaml_documents(text)]


_STRUCT = re.compile(r"^type (\w+) struct \{\n(.*?)^\}", re.M | re.S)
_FIELD = re.compile(r'^\t(?:\w+\s+)?([\w.*\[\]]+)\s+`json:"([^,"]*)', re.M)


def configuration_structs(version: str) -> dict[str, dict[str, str]]:
    """Every struct of ``apis/config/v1beta2/configuration_types.go``: json name -> Go type, inline fields merged."""
    text = (source_dir(version) / "src/configuration_types.go").read_text()
    raw = {name: _FIELD.findall(body) for name, body in _STRUCT.findall(text)}

    def fields(name: str) -> dict[str, str]:
        out: dict[str, str] = {}
        for go_type, json_name in raw[name]:
            base = go_type.lstrip("*[]")
            if json_name:
                out[json_name] = base
            elif base in raw:
                out |= fields(base)
            elif base == "metav1.TypeMeta":
                out |= {"apiVersion": "string", "kind": "string"}
        return out

    return {name: fields(name) for name in raw}


def undecodable_keys(value: Any, struct: str, structs: dict[str, dict[str, str]], path: str = "") -> list[str]:
    """The keys of ``value`` a strict decode into ``struct`` refuses (unknown fields), recursing into the structs of
    that file; maps and types from other packages are not descended into."""
    if isinstance(value, list):
        return [key for i, item in enumerate(value) for key in undecodable_keys(item, struct, structs, f"{path}[{i}]")]
    if not isinstance(value, dict) or struct not in structs:
        return []
    known = structs[struct]
    unknown = [f"{path}.{key}".lstrip(".") for key in value if key not in known]
    nested = [
        found
        for key, item in value.items()
        if key in known
        for found in undecodable_keys(item, known[key], structs, f"{path}.{key}".lstrip("."))
    ]
    return unknown + nested


_VALUES_REFERENCE = re.compile(r"\.Values((?:\.[A-Za-z_]\w*)+)")


@functools.cache
def value_references(version: str) -> frozenset[str]:
    """Every ``.Values.a.b`` path the chart's templates of ``version`` read, as ``a.b``: read once per version."""
    templates = (source_dir(version) / "chart/templates").rglob("*")
    found = _VALUES_REFERENCE.findall
    return frozenset(match[1:] for path in templates if path.is_file() for match in found(path.read_text()))


def unread_value_keys(values: dict[str, Any], references: frozenset[str], prefix: str = "") -> list[str]:
    """The keys of ``values`` no template reads: a key counts as read when a template reads it (a subtree passed to
    ``toYaml`` or ``range`` whole counts, its keys with it) or, for a mapping, when every key under it is read."""
    unread = []
    for key, value in values.items():
        path = f"{prefix}{key}"
        if path in references:
            continue
        if isinstance(value, dict) and value and any(ref.startswith(f"{path}.") for ref in references):
            unread += unread_value_keys(value, references, f"{path}.")
        else:
            unread.append(path)
    return unread


KUEUE_GIT = Path(os.environ.get("KUEUE_GIT_DIR", PROJECT_ROOT.parent / ".mirror/kubernetes-sigs+kueue/repo"))
"""A bare git mirror of https://github.com/kubernetes-sigs/kueue, for the tests that read Kueue's Go source at a tag."""


def kueue_git(*args: str) -> str:
    """``git <args>`` in :data:`KUEUE_GIT`, or skip saying where it was looked for."""
    if not (KUEUE_GIT / "HEAD").is_file():
        pytest.skip(
            f"no git mirror of Kueue at {KUEUE_GIT}: set KUEUE_GIT_DIR to a bare clone of "
            "https://github.com/kubernetes-sigs/kueue (git clone --bare --filter=blob:none <url> <dir>)"
        )
    result = subprocess.run(["git", f"--git-dir={KUEUE_GIT}", *args], check=True, capture_output=True, text=True)
    return result.stdout


def go_string_constant(tag: str, path: str, name: str) -> str:
    """The value of the Go string constant ``name`` in ``path`` at ``tag``."""
    text = kueue_git("show", f"{tag}:{path}")
    match = re.search(rf"\b{name}\s+(?:\w+\s+)?=\s+\"([^\"]*)\"", text)
    assert match, f"{name} not found in {path} at {tag}"
    return match.group(1)
