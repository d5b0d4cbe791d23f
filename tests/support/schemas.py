"""Validate emitted objects against real schemas: Kueue CRDs of the installed minor (KUEUE_CRD_DIRS), core kinds
via kubernetes-validate, any other CRD's schema the caller reads.

A Kueue object is checked as the API server checks it on create: CRD defaults applied, then the OpenAPI schema,
then the CRD's CEL rules (tests.support.cel).

The CRDs are read from the shared folder, never copied into the repository; tests that need them skip with the
reason when the folder is absent.
"""

from __future__ import annotations

import copy
import functools
import json
import os
import pickle
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import kubernetes_validate
import pytest

from components import yaml_text
from components.config.kueue.profiles import LATEST_CHART_VERSION, profile_for
from tests.support import PROJECT_ROOT
from tests.support.cel import Checked, check_rules
from tests.support.kueue_sources import FETCH_HINT

KUEUE_CRD_DIR = Path(os.environ.get("KUEUE_CRD_DIR", PROJECT_ROOT.parent / "shared/schemas/kueue"))
"""The 0.17 CRDs (0.17.8's); set KUEUE_CRD_DIR to read them elsewhere."""
KUEUE_CRD_DIRS = {
    "0.17": KUEUE_CRD_DIR,
    "0.18": PROJECT_ROOT.parent / "shared/schemas/kueue-0.18.6",
    "0.19": PROJECT_ROOT.parent / "shared/schemas/kueue-0.19.2",
}
"""The CRDs of each supported minor, as its newest verified patch ships them."""


def kueue_crd_dir(kueue_version: str = LATEST_CHART_VERSION) -> Path:
    """The CRD folder of ``kueue_version``'s minor, or skip saying where it was looked for."""
    folder = KUEUE_CRD_DIRS[profile_for(kueue_version).minor]
    if not folder.is_dir():
        pytest.skip(
            f"Kueue {kueue_version} CRDs not found at {folder} (the folder of kueue.x-k8s.io_*.yaml): {FETCH_HINT}"
        )
    return folder


def kueue_schemas(kueue_version: str = LATEST_CHART_VERSION) -> dict[tuple[str, str], dict[str, Any]]:
    """Every served version of every Kueue CRD of ``kueue_version``: its OpenAPI schema by (apiVersion, kind).

    Read once per CRD folder, so per minor: ``kueue_schemas()``, the latest patch and an older patch of the same
    minor share one read (a cache by the argument read the same folder again for each spelling)."""
    return _schemas_in(kueue_crd_dir(kueue_version))


@functools.cache
def _schemas_in(folder: Path) -> dict[tuple[str, str], dict[str, Any]]:
    schemas = {}
    for path in sorted(folder.glob("kueue.x-k8s.io_*.yaml")):
        crd = yaml_text.load(path.read_text())
        group, kind = crd["spec"]["group"], crd["spec"]["names"]["kind"]
        for version in crd["spec"]["versions"]:
            schemas[(f"{group}/{version['name']}", kind)] = version["schema"]["openAPIV3Schema"]
    return schemas


def _minor_patch(kueue_version: str) -> str:
    """The verified patch whose CRDs stand for ``kueue_version``: one cache entry per minor."""
    return profile_for(kueue_version).latest


def _kueue_schema(obj: dict[str, Any], kueue_version: str) -> dict[str, Any]:
    schema = kueue_schemas(_minor_patch(kueue_version)).get((obj["apiVersion"], obj["kind"]))
    if schema is None:
        raise AssertionError(f"no Kueue {kueue_version} CRD serves {obj['apiVersion']} {obj['kind']}")
    return schema


@functools.cache
def _validator(api_version: str, kind: str, kueue_version: str) -> jsonschema.protocols.Validator:
    """Built once per kind and minor."""
    return _compiled(kueue_schemas(kueue_version)[(api_version, kind)])


def _compiled(schema: dict[str, Any]) -> jsonschema.protocols.Validator:
    """A validator of the tightened schema. That the tightened schema is valid JSON Schema is a test of its own
    (``tests/test_kueue_versions.py``), run once rather than on every validator built."""
    strict = tightened(schema)
    return jsonschema.validators.validator_for(strict)(strict)


def validate_kueue(obj: dict[str, Any], kueue_version: str = LATEST_CHART_VERSION) -> Checked:
    """Raise if ``obj``, CRD defaults applied, fails the OpenAPI schema or a CEL rule of its apiVersion and kind in
    the CRDs of ``kueue_version`` (the chart version the stack installs; the default's when not given).

    ``obj`` itself is not changed. Returns what the CEL check did (rules evaluated, transition rules skipped).

    A pass is remembered per exact object and minor (:data:`_PASSED`): the suite validates the same objects many
    times (the base set-up beside each probe, a stack in several tests), and the check is a pure function of both.
    A failure is never remembered, so each one is found afresh and raises its own error.
    """
    patch = _minor_patch(kueue_version)
    key = (pickle.dumps(obj), patch)
    if key not in _PASSED:
        _PASSED[key] = _validate(obj, _kueue_schema(obj, patch), _validator(obj["apiVersion"], obj["kind"], patch))
    passed = _PASSED[key]
    return Checked(evaluated=list(passed.evaluated), skipped=list(passed.skipped))


_PASSED: dict[tuple[bytes, str], Checked] = {}
"""What :func:`validate_kueue` found for each object that passed, keyed by the object's pickle (exact: every type,
key order and value, so ``1``, ``1.0`` and ``True`` differ) and the minor's patch; read only through
:func:`validate_kueue`, which hands out copies."""


def validate_custom_resource(obj: dict[str, Any], schema: dict[str, Any]) -> Checked:
    """``validate_kueue`` for any other CRD: ``schema`` is the openAPIV3Schema of ``obj``'s version, read by the
    caller."""
    return _validate(obj, schema, _compiled(schema))


def _validate(obj: dict[str, Any], schema: dict[str, Any], validator: jsonschema.protocols.Validator) -> Checked:
    defaulted = _default(copy.deepcopy(obj), schema)
    error = jsonschema.exceptions.best_match(validator.iter_errors(defaulted))
    if error is not None:
        raise error
    duplicates = list(_duplicate_map_keys(defaulted, schema))
    if duplicates:
        raise AssertionError("; ".join(duplicates))
    return check_rules(defaulted, schema)


def with_crd_defaults(obj: dict[str, Any], kueue_version: str = LATEST_CHART_VERSION) -> dict[str, Any]:
    """A copy of ``obj`` with its CRD's defaults filled in, as the API server stores it: compare objects with it
    "CRD defaults aside"."""
    return _default(copy.deepcopy(obj), _kueue_schema(obj, kueue_version))


def _default(value: Any, schema: dict[str, Any]) -> Any:
    """Kubernetes' structural defaulting, in place: an absent (or non-nullable null) property of a present object
    takes its schema default, and defaulting goes on inside the defaults it put."""
    properties, extra = schema.get("properties", {}), schema.get("additionalProperties")
    if isinstance(value, dict):
        for name, sub in properties.items():
            missing = name not in value or (value[name] is None and not sub.get("nullable"))
            if missing and "default" in sub:
                value[name] = copy.deepcopy(sub["default"])
        for name, item in value.items():
            sub = properties.get(name, extra if isinstance(extra, dict) else None)
            if sub is not None:
                _default(item, sub)
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for item in value:
            _default(item, schema["items"])
    return value


INTEGER_RANGES = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}


def _duplicate_map_keys(value: Any, schema: dict[str, Any], path: str = "") -> Iterator[str]:
    """Where a list of ``x-kubernetes-list-type: map`` repeats its keys, which the API server refuses ("Duplicate
    value") and JSON Schema cannot say."""
    if isinstance(value, list):
        keys = schema.get("x-kubernetes-list-map-keys") if schema.get("x-kubernetes-list-type") == "map" else None
        seen: set[tuple[Any, ...]] = set()
        for i, item in enumerate(value):
            if keys and isinstance(item, dict):
                key = tuple(item.get(k) for k in keys)
                if key in seen:
                    yield f"{path}[{i}]: Duplicate value: {dict(zip(keys, key, strict=True))}"
                seen.add(key)
            if isinstance(schema.get("items"), dict):
                yield from _duplicate_map_keys(item, schema["items"], f"{path}[{i}]")
    elif isinstance(value, dict):
        properties, extra = schema.get("properties", {}), schema.get("additionalProperties")
        for name, item in value.items():
            sub = properties.get(name, extra if isinstance(extra, dict) else None)
            if sub is not None:
                yield from _duplicate_map_keys(item, sub, f"{path}.{name}" if path else name)


def tightened(schema: dict[str, Any]) -> dict[str, Any]:
    """OpenAPI structural schemas prune unknown fields; make them errors so a typo in a field name fails the test. Also
    spell out what the API server checks beyond JSON Schema where JSON Schema can: integer format ranges and
    ``x-kubernetes-list-type: set``."""
    if not isinstance(schema, dict):
        return schema
    out = {
        k: (tightened(v) if isinstance(v, dict) else [tightened(i) for i in v] if isinstance(v, list) else v)
        for k, v in schema.items()
        if k != "properties"  # a map of schemas, not a schema: tightened one by one below
    }
    closable = out.get("type") == "object" and "properties" in schema and "additionalProperties" not in out
    if closable and not schema.get("x-kubernetes-preserve-unknown-fields"):
        out["additionalProperties"] = False
    if "properties" in schema:
        out["properties"] = {k: tightened(v) for k, v in schema["properties"].items()}
    if out.get("format") in INTEGER_RANGES and "minimum" not in out and "maximum" not in out:
        # The API server refuses an integer outside its format's range; jsonschema does not assert formats.
        out["minimum"], out["maximum"] = INTEGER_RANGES[out["format"]]
    if out.get("x-kubernetes-list-type") == "set":
        out["uniqueItems"] = True
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
