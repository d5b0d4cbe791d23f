"""Kueue's Grafana dashboard, fitted to the installed Kueue release, and the ConfigMap Grafana's sidecar loads it from.

The dashboard is one JSON file in the repository, ``deploy/grafana/kueue-dashboard.json``, written for the newest
supported Kueue; it can be imported by hand as it is. :func:`dashboard` drops the panels that read a metric the
installed release does not register yet (``components/config/kueue_metrics.py`` says which release added each), so
no panel of a deployed dashboard stays empty for want of a metric its Kueue lacks; panels fed by an off-by-default
gate or setting stay, and their description names it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from components.config.kueue_metrics import missing_in

DASHBOARD_FILE = Path(__file__).resolve().parents[2] / "deploy/grafana/kueue-dashboard.json"
DASHBOARD_KEY = "kueue-dashboard.json"
"""The ConfigMap key: the sidecar writes each key as a file and Grafana loads the ``*.json`` ones."""
SIDECAR_LABEL = {"grafana_dashboard": "1"}
"""What Grafana's dashboard sidecar selects by default in kube-prometheus-stack (``grafana.sidecar.dashboards.label``
and ``labelValue`` of
https://github.com/prometheus-community/helm-charts/blob/kube-prometheus-stack-88.5.3/charts/kube-prometheus-stack/values.yaml),
which also searches every namespace (``searchNamespace: ALL``)."""


def panel_expressions(panel: dict[str, Any]) -> list[str]:
    """The PromQL a panel runs (a row or text panel runs none)."""
    return [target["expr"] for target in panel.get("targets", ())]


def variable_queries(dashboard: dict[str, Any]) -> list[str]:
    """The ``label_values(...)`` queries of the dashboard's query variables."""
    return [var["query"] for var in dashboard["templating"]["list"] if var["type"] == "query"]


def dashboard(kueue_version: str) -> dict[str, Any]:
    """The dashboard for Kueue ``kueue_version``: the repository's, less the panels reading metrics it lacks."""
    board = json.loads(DASHBOARD_FILE.read_text())
    board["panels"] = [p for p in board["panels"] if not missing_in(panel_expressions(p), kueue_version)]
    return board


def dashboard_config_map(kueue_version: str, namespace: str, name: str = "kueue-dashboard") -> dict[str, Any]:
    """A ConfigMap holding :func:`dashboard` for Grafana's dashboard sidecar, in a namespace the sidecar searches."""
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": namespace, "labels": dict(SIDECAR_LABEL)},
        "data": {DASHBOARD_KEY: json.dumps(dashboard(kueue_version), indent=1)},
    }
