"""The ServiceMonitor CRDs' schema facts, vendored as a JSON Schema (not the CRD files): what the API server checks of
the fields this program writes, in both groups.

``monitoring.coreos.com/v1`` from
https://github.com/prometheus-operator/prometheus-operator/blob/v0.93.0/example/prometheus-operator-crd/monitoring.coreos.com_servicemonitors.yaml;
``azmonitoring.coreos.com/v1`` from the add-on's copy of the same schema,
https://github.com/Azure/prometheus-collector/blob/main/otelcollector/deploy/addon-chart/azure-monitor-metrics-addon/templates/ama-metrics-servicemonitor-crd.yaml
(its ``bearerTokenFile``, ``tlsConfig``, ``honorLabels`` and label limits are the operator's). Objects are closed
(``additionalProperties: false``) on the fields used, so a misspelt field turns red instead of being pruned.
"""

from __future__ import annotations

from typing import Any

import jsonschema

_STRINGS = {"type": "object", "additionalProperties": {"type": "string"}}
_LIMIT = {"type": "integer", "format": "int64"}

ENDPOINT: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "honorLabels": {"type": "boolean"},
        "port": {"type": "string"},
        "path": {"type": "string"},
        "scheme": {"type": "string", "enum": ["http", "https", "HTTP", "HTTPS"]},
        "interval": {"type": "string", "pattern": "^(0|(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$"},
        "bearerTokenFile": {"type": "string"},
        "tlsConfig": {
            "type": "object",
            "additionalProperties": False,
            "properties": {"insecureSkipVerify": {"type": "boolean"}, "serverName": {"type": "string"}},
        },
    },
}


def schema(api_version: str) -> dict[str, Any]:
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["apiVersion", "kind", "metadata", "spec"],
        "properties": {
            "apiVersion": {"const": api_version},
            "kind": {"const": "ServiceMonitor"},
            "metadata": {
                "type": "object",
                "additionalProperties": False,
                "required": ["name", "namespace"],
                "properties": {
                    "name": {"type": "string"},
                    "namespace": {"type": "string"},
                    "labels": _STRINGS,
                    "annotations": _STRINGS,
                },
            },
            "spec": {
                "type": "object",
                "additionalProperties": False,
                "required": ["selector", "endpoints"],
                "properties": {
                    "selector": {
                        "type": "object",
                        "additionalProperties": False,
                        "properties": {"matchLabels": _STRINGS},
                    },
                    "namespaceSelector": {
                        "type": "object",
                        "additionalProperties": False,
                        "properties": {"any": {"type": "boolean"}, "matchNames": {"type": "array", "items": {}}},
                    },
                    "endpoints": {"type": "array", "items": ENDPOINT},
                    "labelLimit": _LIMIT,
                    "labelNameLengthLimit": _LIMIT,
                    "labelValueLengthLimit": _LIMIT,
                },
            },
        },
    }


def validate(obj: dict[str, Any]) -> None:
    """Raise if ``obj`` is not a ServiceMonitor of its group that the API server accepts as written."""
    assert obj.get("apiVersion") in ("monitoring.coreos.com/v1", "azmonitoring.coreos.com/v1"), obj.get("apiVersion")
    jsonschema.validate(obj, schema(obj["apiVersion"]))
