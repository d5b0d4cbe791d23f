"""The PrometheusRule CRD's schema facts, vendored as a JSON Schema (not the CRD file): what the API server checks of a
``monitoring.coreos.com/v1`` PrometheusRule.

Read from
https://github.com/prometheus-operator/prometheus-operator/blob/v0.93.0/example/prometheus-operator-crd/monitoring.coreos.com_prometheusrules.yaml
(the same ``spec`` schema as the 0.93.1 CRD kube-prometheus-stack-88.5.3 ships in
``charts/kube-prometheus-stack/charts/crds/crds/crd-prometheusrules.yaml``). The API server prunes fields the schema
does not name, so the objects here are closed (``additionalProperties: false``) to turn a misspelt field red instead
of letting it vanish; ``expr`` is int-or-string and a rule is either an alert or a recording rule.
"""

from __future__ import annotations

from typing import Any

import jsonschema

DURATION = r"^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$"
"""The CRD's pattern for every duration (``interval``, ``for``, ``keep_firing_for``, ``query_offset``)."""
_STRINGS = {"type": "object", "additionalProperties": {"type": "string"}}

RULE: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["expr"],
    "properties": {
        "alert": {"type": "string"},
        "record": {"type": "string"},
        "annotations": _STRINGS,
        "expr": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
        "for": {"type": "string", "pattern": DURATION},
        "keep_firing_for": {"type": "string", "minLength": 1, "pattern": DURATION},
        "labels": _STRINGS,
    },
    "oneOf": [{"required": ["alert"]}, {"required": ["record"]}],
}

PROMETHEUS_RULE: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["apiVersion", "kind", "metadata", "spec"],
    "properties": {
        "apiVersion": {"const": "monitoring.coreos.com/v1"},
        "kind": {"const": "PrometheusRule"},
        "metadata": {
            "type": "object",
            "required": ["name", "namespace"],
            "properties": {"name": {"type": "string"}, "namespace": {"type": "string"}, "labels": _STRINGS},
        },
        "spec": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "groups": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "additionalProperties": False,
                        "required": ["name"],
                        "properties": {
                            "name": {"type": "string", "minLength": 1},
                            "interval": {"type": "string", "pattern": DURATION},
                            "labels": _STRINGS,
                            "limit": {"type": "integer"},
                            "partial_response_strategy": {"type": "string", "pattern": "(?i)^(abort|warn)?$"},
                            "query_offset": {"type": "string", "pattern": DURATION},
                            "rules": {"type": "array", "items": RULE},
                        },
                    },
                }
            },
        },
    },
}
"""``x-kubernetes-list-map-keys: [name]`` on ``groups``: group names are unique (checked by :func:`validate`)."""


def validate(obj: dict[str, Any]) -> None:
    """Raise if ``obj`` is not a PrometheusRule the API server accepts as written."""
    jsonschema.validate(obj, PROMETHEUS_RULE)
    names = [group["name"] for group in obj["spec"].get("groups", ())]
    assert len(names) == len(set(names)), f"duplicate group names {names}"
