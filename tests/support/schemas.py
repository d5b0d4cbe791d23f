"""Validate emitted objects against real schemas: Kueue CRDs from KUEUE_CRD_DIR, core kinds via kubernetes-validate.

The CRDs are read from the shared folder, never copied into the repository; tests that need them skip with the
reason when the folder is absent.
"""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path
from typing import Any

import jsonschema
import kubernetes_validate
import pytest
import yaml

from tests.support import PROJECT_ROOT

KUEUE_CRD_DIR = Path(os.environ.get("KUEUE_CRD_DIR", PROJECT_ROOT.parent / "shared/schemas/kueue"))


def require_kueue_crds() -> Path:
    if not KUEUE_CRD_DIR.is_dir():
        pytest.skip(
            f"Kueue CRDs not found at {KUEUE_CRD_DIR}; set KUEUE_CRD_DIR to the folder of kueue.x-k8s.io_*.yaml"
        )
    return KUEUE_CRD_DIR


@functools.cache
def _kueue_schemas() -> dict[tuple[str, str], dict[str, Any]]:
    schemas = {}
    for path in sorted(require_kueue_crds().glob("kueue.x-k8s.io_*.yaml")):
        crd = yaml.load(path.read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # 8x faster when built
        group, kind = crd["spec"]["group"], crd["spec"]["names"]["kind"]
        for version in crd["spec"]["versions"]:
            schemas[(f"{group}/{version['name']}", kind)] = version["schema"]["openAPIV3Schema"]
    return schemas


def validate_kueue(obj: dict[str, Any]) -> None:
    """Raise if ``obj`` does not validate against the CRD schema of its apiVersion and kind."""
    schema = _kueue_schemas().get((obj["apiVersion"], obj["kind"]))
    if schema is None:
        raise AssertionError(f"no Kueue CRD serves {obj['apiVersion']} {obj['kind']}")
    jsonschema.validate(obj, _strict(schema))


def _strict(schema: dict[str, Any]) -> dict[str, Any]:
    """OpenAPI structural schemas prune unknown fields; make them errors so a typo in a field name fails the test."""
    if not isinstance(schema, dict):
        return schema
    out = {
        k: (_strict(v) if isinstance(v, dict) else [_strict(i) for i in v] if isinstance(v, list) else v)
        for k, v in schema.items()
    }
    closable = out.get("type") == "object" and "properties" in out and "additionalProperties" not in out
    if closable and not schema.get("x-kubernetes-preserve-unknown-fields"):
        out["additionalProperties"] = False
    if "properties" in out:
        out["properties"] = {k: _strict(v) for k, v in schema["properties"].items()}
    pattern = out.get("pattern")
    if isinstance(pattern, str) and "(?i)" in pattern[1:]:
        # Kubernetes (Go RE2) accepts a flag group mid-pattern (AdmissionCheck parameters.kind); Python only first.
        out["pattern"] = "(?i)" + pattern.replace("(?i)", "")
    return out


def validate_core(obj: dict[str, Any], kubernetes_version: str) -> None:
    """Validate a core Kubernetes object strictly (unknown fields are errors) for the given ``1.33``-style version."""
    kubernetes_validate.validate(obj, f"{kubernetes_version}.0", strict=True)


def resource_policy_schema() -> dict[str, Any]:
    """The ResourcePolicy JSON Schema, written from ACS's documented fields (ACS publishes no CRD for it)."""
    return json.loads((Path(__file__).parent / "resourcepolicy.schema.json").read_text())
