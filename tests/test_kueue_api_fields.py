"""docs/kueue-api.md names a stack-file key for every v1beta2 spec field of the ten queue kinds at Kueue v0.19.2.

The fields are read from the CRDs (to the leaves of their schemas, as the page's tables list them); a key counts
only if the stack file's JSON Schema (``stacks/stack-file.schema.json``, generated from the config model) has it.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tests.support import PROJECT_ROOT
from tests.support.schemas import kueue_schemas

FIELD_MAP = PROJECT_ROOT / "docs/kueue-api.md"
STACK_SCHEMA = PROJECT_ROOT / "stacks/stack-file.schema.json"
VERSION = "0.19.2"
QUEUE_KINDS = [
    "Topology",
    "ResourceFlavor",
    "WorkloadPriorityClass",
    "ProvisioningRequestConfig",
    "AdmissionCheck",
    "Cohort",
    "ClusterQueue",
    "LocalQueue",
    "MultiKueueConfig",
    "MultiKueueCluster",
]
"""The queue kinds of ``kueue.x-k8s.io/v1beta2``: every CRD but Workload, which Kueue makes per job."""
_ROW = re.compile(r"^\| `([^`]+)` \| (.*) \|$", re.M)


def crd_fields(kind: str) -> list[str]:
    """The leaves of ``kind``'s v1beta2 ``spec`` (top level for the spec-less WorkloadPriorityClass): a list's
    item is ``[]``, a list of scalars or a map is a leaf of its own."""
    schema = kueue_schemas(VERSION)[("kueue.x-k8s.io/v1beta2", kind)]
    properties = schema["properties"]
    if "spec" in properties:
        root, prefix = properties["spec"], "spec."
    else:
        root = {"properties": {k: v for k, v in properties.items() if k not in {"apiVersion", "kind", "metadata"}}}
        prefix = ""
    leaves: list[str] = []

    def walk(node: dict[str, Any], path: str) -> None:
        if node.get("type") == "array" and "properties" in node.get("items", {}):
            walk(node["items"], f"{path}[]")
        elif "properties" in node:
            for name, sub in node["properties"].items():
                walk(sub, f"{path}.{name}" if path else name)
        else:
            leaves.append(prefix + path)

    walk(root, "")
    return leaves


def documented(kind: str) -> dict[str, list[str]]:
    """The rows of ``kind``'s table on the page: field -> the keys its second column names."""
    section = re.search(rf"^\*\*{kind}\*\*\n\n(.*?)(?=^\*\*|^#)", FIELD_MAP.read_text(), re.M | re.S)
    assert section is not None, f"docs/kueue-api.md has no table for {kind}"
    return {field: re.findall(r"`([^`]+)`", keys) for field, keys in _ROW.findall(section.group(1))}


def _stack_schema() -> dict[str, Any]:
    return json.loads(STACK_SCHEMA.read_text())


def _resolved(node: dict[str, Any], defs: dict[str, Any]) -> list[dict[str, Any]]:
    """``node`` with ``$ref`` followed and ``anyOf``/``oneOf``/``allOf`` opened: every schema it may be."""
    if "$ref" in node:
        return _resolved(defs[node["$ref"].rsplit("/", 1)[1]], defs)
    options = [option for word in ("anyOf", "oneOf", "allOf") for option in node.get(word, [])]
    return [found for option in options for found in _resolved(option, defs)] if options else [node]


def key_exists(key: str, schema: dict[str, Any]) -> bool:
    """Whether the stack file has ``key`` (``section.a[].b``, under ``elastic-capacity:``)."""
    section, _, rest = key.partition(".")
    nodes = [schema["properties"]["config"]["properties"].get(f"elastic-capacity:{section}", {})]
    for part in re.findall(r"[^.\[\]]+|\[\]", rest):
        nodes = [option for node in nodes for option in _resolved(node, schema["$defs"])]
        if part == "[]":
            nodes = [node["items"] for node in nodes if "items" in node]
        else:
            nodes = [node["properties"][part] for node in nodes if part in node.get("properties", {})]
        if not nodes:
            return False
    return bool(nodes)


@pytest.mark.parametrize("kind", QUEUE_KINDS)
def test_every_spec_field_of_the_kind_has_its_row(kind):
    assert sorted(documented(kind)) == sorted(crd_fields(kind))


@pytest.mark.parametrize("kind", QUEUE_KINDS)
def test_every_spec_field_of_the_kind_is_reached_by_a_stack_file_key(kind):
    schema = _stack_schema()
    unreached = {
        (kind, field)
        for field, keys in documented(kind).items()
        if not keys or not all(key_exists(key, schema) for key in keys)
    }
    assert unreached == set()


def test_a_key_the_stack_file_lacks_is_not_taken_for_one():
    schema = _stack_schema()
    assert key_exists("queues.resourceFlavors[].nodeTaints[].key", schema)
    assert key_exists("queues.clusterQueues[].namespaceSelector.matchExpressions[].values", schema)
    assert not key_exists("queues.resourceFlavors[].nodeTaints[].colour", schema)
    assert not key_exists("queues.resourceFlavors.nodeLabels", schema)
