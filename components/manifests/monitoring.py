"""Kueue's Grafana dashboard (and the ConfigMap Grafana's sidecar loads it from), the ServiceMonitor that scrapes
Kueue's metrics Service, and the binding that lets the scraper in.

The dashboard is one JSON file in the repository, ``deploy/grafana/kueue-dashboard.json``, written for the newest
supported Kueue; it can be imported by hand as it is. :func:`dashboard` drops the panels that read a metric the
installed release does not register yet (``components/config/kueue/metrics.py`` says which release added each), so
no panel of a deployed dashboard stays empty for want of a metric its Kueue lacks; panels fed by an off-by-default
gate or setting stay, and their description names it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from components.config.kueue.metrics import missing_in
from components.config.kueue.monitoring import ScraperIdentity

DASHBOARD_FILE = Path(__file__).resolve().parents[2] / "deploy/grafana/kueue-dashboard.json"
DASHBOARD_KEY = "kueue-dashboard.json"
"""The ConfigMap key: the sidecar writes each key as a file and Grafana loads the ``*.json`` ones."""
SIDECAR_LABEL = {"grafana_dashboard": "1"}
"""What Grafana's dashboard sidecar selects by default in kube-prometheus-stack (``grafana.sidecar.dashboards.label``
and ``labelValue`` of
https://github.com/prometheus-community/helm-charts/blob/kube-prometheus-stack-88.5.3/charts/kube-prometheus-stack/values.yaml),
which also searches every namespace (``searchNamespace: ALL``)."""


CLUSTER_LABEL = "cluster"
"""The label a collector adds to tell clusters apart in a shared workspace, which the dashboard's ``$cluster``
variable filters by: AKS's metrics add-on adds it to every series (``cluster: ${env:AZMON_CLUSTER_LABEL}`` in
https://github.com/Azure/prometheus-collector/blob/main/otelcollector/opentelemetry-collector-builder/collector-config-replicaset.yml),
others through ``external_labels``; where no collector adds it, ``All`` (``.*``) matches the series without it.
Kueue's own MultiKueue counters use ``cluster`` for the worker; the dashboard reads none of them."""

AZURE_MONITOR_API_VERSION = "azmonitoring.coreos.com/v1"
"""The only ServiceMonitor group Azure Monitor's metrics add-on reads
(https://learn.microsoft.com/en-us/azure/azure-monitor/containers/prometheus-metrics-scrape-crd)."""
PROMETHEUS_OPERATOR_API_VERSION = "monitoring.coreos.com/v1"
"""prometheus-operator's group, which ARMS reads too."""
ARMS_DISCOVERY = {"arms.prometheus.io/discovery": "true"}
"""The annotation ARMS's own ServiceMonitor examples carry
(https://www.alibabacloud.com/help/en/arms/prometheus-monitoring/custom-collection-through-servicemonitor)."""
SERVICE_ACCOUNT_TOKEN = "/var/run/secrets/kubernetes.io/serviceaccount/token"
"""The scraper's own token: Kueue's chart's ServiceMonitor sends it the same way (``templates/prometheus/monitor.yaml``
in https://github.com/kubernetes-sigs/kueue/tree/v0.19.2/charts/kueue)."""
AZURE_LABEL_LIMITS = {"labelLimit": 63, "labelNameLengthLimit": 511, "labelValueLengthLimit": 1023}
"""The limits Azure's ServiceMonitor templates set; the add-on drops a target's samples above them."""
HONOR_LABELS = {"honorLabels": True}
"""Keep Kueue's own labels where they clash with the target's. prometheus-operator labels every target of a
ServiceMonitor ``namespace=<the Service's namespace>`` and writes ``honor_labels: false`` unless the endpoint says
otherwise (``generateServiceMonitorConfig`` and ``AddHonorLabels`` in
https://github.com/prometheus-operator/prometheus-operator/blob/v0.93.0/pkg/prometheus/promcfg.go; AKS's add-on and
its target allocator use the same generator); Prometheus then renames a scraped label that clashes to
``exported_<name>`` (``mutateSampleLabels`` in https://github.com/prometheus/prometheus/blob/main/scrape/scrape.go).
Every ``kueue_local_queue_*`` series carries the LocalQueue's ``namespace``, so without this it would read
``kueue-system``. Kueue exports no other label a target has (``job``, ``instance``, ``pod``, ``service``...), so
nothing else changes. A Prometheus with ``overrideHonorLabels: true`` ignores it."""


def metrics_service_labels(release_name: str) -> dict[str, str]:
    """The labels of Kueue's metrics Service that no upgrade changes (``kueue.metricsService.labels`` of the chart's
    ``_helpers.tpl``, the same in 0.17.1-0.19.2; the chart and version labels are left out)."""
    return {
        "app.kubernetes.io/name": "kueue",
        "app.kubernetes.io/instance": release_name,
        "app.kubernetes.io/component": "metrics-service",
    }


def metrics_service_name(fullname: str) -> str:
    """The chart's metrics Service; Prometheus's ``job`` label of Kueue's series is this name."""
    return f"{fullname}-controller-manager-metrics-service"


def metrics_reader_role(fullname: str) -> str:
    """The chart's ClusterRole granting ``get`` on ``/metrics`` and nothing else."""
    return f"{fullname}-metrics-reader"


def service_monitor(
    api_version: str,
    *,
    name: str,
    namespace: str,
    release_name: str,
    labels: dict[str, str] | None = None,
    annotations: dict[str, str] | None = None,
) -> dict[str, Any]:
    """A ServiceMonitor, in Kueue's namespace, for Kueue's metrics Service: HTTPS on port ``https``, the scraper's
    own token, no certificate check, since Kueue serves a self-signed certificate unless cert-manager issues it
    (controller-runtime's ``metrics/server``), and Kueue's own labels kept (:data:`HONOR_LABELS`)."""
    endpoint: dict[str, Any] = {
        **HONOR_LABELS,
        "port": "https",
        "path": "/metrics",
        "scheme": "https",
        "bearerTokenFile": SERVICE_ACCOUNT_TOKEN,
        "tlsConfig": {"insecureSkipVerify": True},
    }
    metadata: dict[str, Any] = {"name": name, "namespace": namespace}
    if labels:
        metadata["labels"] = dict(labels)
    if annotations:
        metadata["annotations"] = dict(annotations)
    spec: dict[str, Any] = {
        "selector": {"matchLabels": metrics_service_labels(release_name)},
        "namespaceSelector": {"matchNames": [namespace]},
        "endpoints": [endpoint],
    }
    if api_version == AZURE_MONITOR_API_VERSION:
        spec = {**AZURE_LABEL_LIMITS, **spec}
    return {"apiVersion": api_version, "kind": "ServiceMonitor", "metadata": metadata, "spec": spec}


def metrics_reader_binding(name: str, role: str, scraper: ScraperIdentity) -> dict[str, Any]:
    """The ClusterRoleBinding of Kueue's metrics-reader role to the scraper's ServiceAccount, its only subject."""
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRoleBinding",
        "metadata": {"name": name},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role},
        "subjects": [{"kind": "ServiceAccount", "name": scraper.service_account, "namespace": scraper.namespace}],
    }


DISCOVERY_RULES = [
    {"apiGroups": [""], "resources": ["services", "endpoints", "pods"], "verbs": ["get", "list", "watch"]},
    {"apiGroups": ["discovery.k8s.io"], "resources": ["endpointslices"], "verbs": ["get", "list", "watch"]},
]
"""What a Prometheus needs in a namespace to find a ServiceMonitor's targets there: the Service, its endpoints (or
EndpointSlices) and their pods. Kueue's chart grants the same with ``enablePrometheus``
(``templates/prometheus/role.yaml`` in https://github.com/kubernetes-sigs/kueue/tree/v0.19.2/charts/kueue, which also
grants ingresses, for probes); kube-prometheus's ``prometheus-k8s`` has such Roles only in ``default``,
``kube-system`` and ``monitoring``
(https://github.com/prometheus-operator/kube-prometheus/blob/main/manifests/prometheus-roleSpecificNamespaces.yaml),
while kube-prometheus-stack's Prometheus has them cluster-wide."""


def discovery_role(name: str, namespace: str) -> dict[str, Any]:
    """The Role in Kueue's namespace granting :data:`DISCOVERY_RULES`."""
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "Role",
        "metadata": {"name": name, "namespace": namespace},
        "rules": [dict(rule) for rule in DISCOVERY_RULES],
    }


def discovery_role_binding(name: str, namespace: str, scraper: ScraperIdentity) -> dict[str, Any]:
    """The RoleBinding of :func:`discovery_role` to the scraper's ServiceAccount, its only subject."""
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "RoleBinding",
        "metadata": {"name": name, "namespace": namespace},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": name},
        "subjects": [{"kind": "ServiceAccount", "name": scraper.service_account, "namespace": scraper.namespace}],
    }


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
