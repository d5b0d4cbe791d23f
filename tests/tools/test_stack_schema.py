"""The stack file's JSON Schema: generated from the model and current, taking every stack the program takes,
refusing at their key the mistakes a schema can see, and named by the first line of every shipped stack file."""

from __future__ import annotations

import json
import re
from typing import Any

import jsonschema
import pytest
from jsonschema.exceptions import ValidationError, best_match

from components import yaml_text
from components.config.base import key_path
from components.config.kueue.kueue import KueueConfig
from tests.support import PROJECT_ROOT
from tools import stack_schema

SHIPPED = sorted((PROJECT_ROOT / "stacks").glob("Pulumi.*.yaml"))
LEGAL = [
    *SHIPPED,
    *sorted((PROJECT_ROOT / "tests" / "cases" / "valid").glob("Pulumi.*.yaml")),
    *sorted((PROJECT_ROOT / "examples").rglob("Pulumi.*.yaml")),
]
INVALID = PROJECT_ROOT / "tests" / "cases" / "invalid"
REFUSED = {
    "aks-unknown-key": "additionalProperties",
    "gitops-unknown-key": "additionalProperties",
    "queues-cohort-v1beta1": "additionalProperties",
    "aks-sku-tier": "enum",
    "env-kind": "enum",
    "yaml-float-version": "type",
    "queues-priority-int32": "maximum",
    "ack-existing-id": "pattern",
    "kubeconfig-not-secret": "anyOf",
    "unknown-namespace": "additionalProperties",
    "top-level-typo": "additionalProperties",
}
"""Invalid cases whose mistake is a single key's type, value or name: the schema refuses each at the expected key."""
DRAFT_07_AND_2020_12 = {
    *("$schema", "$ref", "$defs", "title", "description", "default", "type", "enum", "const", "anyOf", "allOf"),
    *("oneOf", "not", "properties", "patternProperties", "additionalProperties", "required", "propertyNames"),
    *("minProperties", "maxProperties", "items", "minItems", "maxItems", "uniqueItems", "pattern", "minLength"),
    *("maxLength", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "format"),
    *("readOnly", "writeOnly"),
}
"""Keywords both dialects read alike (``$defs`` is only a place a ``$ref`` pointer reaches): the YAML language server
validates as draft-07, so a 2020-12-only keyword (``prefixItems``, ``unevaluatedProperties``) would be ignored."""

VALIDATOR = jsonschema.Draft202012Validator(json.loads(stack_schema.SCHEMA_FILE.read_text()))


def test_the_committed_schema_is_generated_from_the_model():
    assert stack_schema.SCHEMA_FILE.read_text(encoding="utf-8") == stack_schema.text(), (
        "stacks/stack-file.schema.json is stale: regenerate it with python -m tools.stack_schema --write"
    )


@pytest.fixture(scope="module")
def generated() -> dict[str, Any]:
    """:func:`tools.stack_schema.schema`, built once for the tests that only read it (none may edit it)."""
    return stack_schema.schema()


def test_the_schema_is_a_valid_2020_12_schema(generated):
    assert generated["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(generated)


def _keywords(node: Any) -> set[str]:
    if isinstance(node, list):
        return {keyword for item in node for keyword in _keywords(item)}
    if not isinstance(node, dict):
        return set()
    found = set(node)
    for keyword, value in node.items():
        if keyword in ("properties", "$defs", "patternProperties"):
            found |= {k for schema in value.values() for k in _keywords(schema)}
        elif keyword not in ("default", "enum", "const"):
            found |= _keywords(value)
    return found


def test_a_key_left_out_shows_what_its_default_factory_gives(generated):
    """A section's default is a factory (an instance would build its validator at import): the editor still shows
    what leaving the section, or a list inside one, out gives."""
    sections = generated["properties"]["config"]["properties"]
    assert sections["elastic-capacity:kueue"]["default"] == KueueConfig().model_dump(mode="json", by_alias=True)
    assert generated["$defs"]["AckConfig"]["properties"]["clusters"]["default"] == []


def test_the_schema_uses_only_keywords_draft_07_editors_read_alike(generated):
    assert _keywords(generated) - DRAFT_07_AND_2020_12 == set()


def test_every_legal_stack_file_validates():
    errors = {}
    for path in LEGAL:
        document = yaml_text.load(path.read_text())
        if found := [f"{list(e.absolute_path)}: {e.message}" for e in VALIDATOR.iter_errors(document)]:
            errors[str(path.relative_to(PROJECT_ROOT))] = found
    assert LEGAL and errors == {}


def _refused_key(error: ValidationError) -> str:
    """The key the schema refuses, as the ``# expect:`` line names it: an unknown key is refused at its mapping."""
    parts: list[str | int] = list(error.absolute_path)
    if error.validator == "additionalProperties":
        known = set(error.schema.get("properties", {}))
        patterns = error.schema.get("patternProperties", {})
        parts += [k for k in error.instance if k not in known and not any(re.search(p, k) for p in patterns)][:1]
    return key_path(*parts[1:]) if parts[:1] == ["config"] else key_path(*parts)


@pytest.mark.parametrize(("case", "validator"), REFUSED.items(), ids=list(REFUSED))
def test_a_single_key_mistake_is_refused_at_its_key(case: str, validator: str):
    text = (INVALID / f"Pulumi.{case}.yaml").read_text()
    expected = text.splitlines()[0].removeprefix("# expect: ").split(" | ")[0]
    error = best_match(VALIDATOR.iter_errors(yaml_text.load(text)))
    assert error is not None, f"{case} validates"
    assert (_refused_key(error), error.validator) == (expected, validator), error.message


def test_a_secret_takes_only_the_secure_form():
    def kubeconfig(value: Any) -> list[str]:
        return [e.message for e in VALIDATOR.iter_errors({"config": {"elastic-capacity:kubeconfig": value}})]

    assert kubeconfig({"secure": "AAABAKx="}) == []
    assert kubeconfig("apiVersion: v1") != []
    assert kubeconfig({"secure": "AAABAKx=", "extra": 1}) != []


def test_provider_namespaces_take_any_value_and_others_are_refused():
    config = {"azure-native:location": "eastus2", "alicloud:region": "cn-hangzhou", "pulumi:tags": {"a": "b"}}
    assert list(VALIDATOR.iter_errors({"config": config})) == []
    assert list(VALIDATOR.iter_errors({"config": {"aws:region": "us-east-1"}})) != []
