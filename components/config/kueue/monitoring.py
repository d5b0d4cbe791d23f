"""The ``monitoring`` section: who scrapes Kueue's metrics on the stack's Kueue cluster, and the alert thresholds.

Kueue serves ``/metrics`` over HTTPS on its metrics Service and lets a request in only if its bearer token passes a
TokenReview and a SubjectAccessReview for ``get`` on ``/metrics`` (``metrics.filters`` in
https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/cmd/kueue/main.go). Its chart ships the ClusterRole
``<release>-metrics-reader`` that grants exactly that, bound to no one: the stack binds it to the scraper's own
ServiceAccount, whose token the ServiceMonitor sends (``bearerTokenFile``), so no token is minted, stored or rotated
by the stack. The known scrapers' own ClusterRoles already grant ``get`` on ``/metrics`` (AKS's
``ama-metrics-reader``, kube-prometheus(-stack)'s Prometheus role), so the binding adds nothing there; it lets in a
scraper whose role lacks it. Each collector has its scraper:

- ``azure-managed-prometheus`` (a new ``aks`` cluster): Azure Monitor's metrics add-on, whose collector runs as
  ``kube-system/ama-metrics-serviceaccount`` and reads only ``azmonitoring.coreos.com`` monitors
  (https://learn.microsoft.com/en-us/azure/azure-monitor/containers/prometheus-metrics-scrape-crd);
- ``prometheus-operator``: a kube-prometheus-stack (or any prometheus-operator) the cluster already runs, reading
  ``monitoring.coreos.com`` monitors and rules; its Prometheus runs as ``<release>-prometheus`` in its namespace
  (``kube-prometheus-stack.prometheus.serviceAccountName`` in
  https://github.com/prometheus-community/helm-charts/blob/main/charts/kube-prometheus-stack/templates/_helpers.tpl);
- ``arms``: Alibaba Cloud Managed Service for Prometheus on an ACK cluster given as ``existingCluster``, which reads
  ``monitoring.coreos.com`` ServiceMonitors once ServiceMonitor discovery is on for the cluster's environment
  (https://www.alibabacloud.com/help/en/arms/prometheus-monitoring/custom-collection-through-servicemonitor); its
  agent's ServiceAccount is not published, so ``scraper`` must name it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from components.config.base import ConfigModel, DnsLabel, MisplacedKey, RuleViolation
from components.config.rules import rule

_AMP_CRD_URL = "https://learn.microsoft.com/en-us/azure/azure-monitor/containers/prometheus-metrics-scrape-crd"

AZURE_MANAGED_PROMETHEUS = "azure-managed-prometheus"
PROMETHEUS_OPERATOR = "prometheus-operator"
ARMS = "arms"
Collector = Literal["azure-managed-prometheus", "prometheus-operator", "arms"]

AMA_METRICS = ("kube-system", "ama-metrics-serviceaccount")
"""The ServiceAccount Azure Monitor's metrics add-on scrapes as (its ClusterRoleBindings name it in
https://github.com/Azure/prometheus-collector/tree/main/otelcollector/deploy/addon-chart)."""
KUBE_PROMETHEUS_STACK = ("monitoring", "kube-prometheus-stack-prometheus")
"""The Prometheus ServiceAccount of kube-prometheus-stack installed as release ``kube-prometheus-stack`` in
``monitoring``, as its README installs it."""


class ScraperIdentity(ConfigModel):
    """The ServiceAccount the scraper runs as: the one subject of the binding to Kueue's metrics-reader role."""

    namespace: DnsLabel
    """Its namespace."""
    service_account: DnsLabel
    """Its name."""


class PrometheusOperatorConfig(ConfigModel):
    """Where the ``prometheus-operator`` collector's rules and dashboard go, and what selects them."""

    namespace: DnsLabel = KUBE_PROMETHEUS_STACK[0]
    """The namespace of the PrometheusRule and the dashboard ConfigMap (kube-prometheus-stack's Grafana sidecar
    searches every namespace; its Prometheus selects rules in every namespace by label)."""
    rule_labels: dict[str, str] = Field(default_factory=lambda: {"release": "kube-prometheus-stack"})
    """Labels on the PrometheusRule that the Prometheus's ``ruleSelector`` matches: kube-prometheus-stack selects
    ``release: <its release>`` unless ``ruleSelectorNilUsesHelmValues`` is false."""
    monitor_labels: dict[str, str] = Field(default_factory=lambda: {"release": "kube-prometheus-stack"})
    """Labels on Kueue's ServiceMonitor that the Prometheus's ``serviceMonitorSelector`` matches (the same default
    rule of kube-prometheus-stack)."""
    dashboard: bool = True
    """Write the Kueue dashboard as a ConfigMap labelled ``grafana_dashboard: "1"`` for Grafana's sidecar."""


class AzureMonitorConfig(ConfigModel):
    """What the ``azure-managed-prometheus`` collector creates beside the metrics add-on."""

    grafana: bool = False
    """Also create an Azure Managed Grafana (Standard) wired to the Azure Monitor workspace, its identity granted
    Monitoring Data Reader on it (https://learn.microsoft.com/en-us/azure/azure-monitor/metrics/prometheus-grafana);
    import deploy/grafana/kueue-dashboard.json into it (docs/monitoring.md)."""
    alert_rules: bool = True
    """Create Kueue's alerts as an Azure Monitor Prometheus rule group on the workspace
    (https://learn.microsoft.com/en-us/azure/azure-monitor/metrics/prometheus-rule-groups)."""
    crd_timeout_seconds: int = Field(default=600, ge=60, le=3600)
    """How long Kueue's ServiceMonitor waits for the metrics add-on's ``azmonitoring.coreos.com`` ServiceMonitor
    CRD, which the add-on installs once the cluster turns it on; past it, ``up`` fails saying what to check."""


class MonitoringConfig(ConfigModel):
    """Scrape Kueue's metrics with the collector the cluster has, bind it Kueue's metrics-reader role, and alert on
    stuck queues. Absent: nothing is scraped and Kueue's manager config is left as it is."""

    collector: Collector
    """``azure-managed-prometheus`` (with ``aks``), ``prometheus-operator`` (any cluster running it) or ``arms``
    (an ACK cluster given as ``existingCluster``)."""
    scraper: ScraperIdentity | None = None
    """The scraper's ServiceAccount. Defaults: ``kube-system/ama-metrics-serviceaccount`` for
    azure-managed-prometheus, ``monitoring/kube-prometheus-stack-prometheus`` for prometheus-operator; required for
    arms."""
    pending_minutes: int = Field(default=30, ge=1, le=1440)
    """Alert when a ClusterQueue has had pending workloads this long while none of its workloads holds quota and
    none was admitted (``KueueClusterQueueIdleWithPending``); a queue busy with running work never pages, however
    long its backlog."""
    provisioning_minutes: int = Field(default=20, ge=1, le=1440)
    """Alert when workloads have held quota waiting on their admission checks (a ProvisioningRequest not
    provisioned) this long with none admitted; above a scale-up's usual minutes, below the request's own 10-minute
    booking expiry (``BookingExpired``, https://github.com/kubernetes/autoscaler/blob/master/cluster-autoscaler/FAQ.md)
    plus its retries."""
    azure: AzureMonitorConfig | None = None
    """``azure-managed-prometheus`` only: Managed Grafana and the rule group."""
    prometheus_operator: PrometheusOperatorConfig | None = None
    """``prometheus-operator`` only: where the rules and dashboard go, and their selecting labels."""

    @model_validator(mode="after")
    @rule("monitoring.settings-of-the-collector", source=_AMP_CRD_URL)
    def _settings_of_the_collector(self) -> MonitoringConfig:
        """Each collector's own block goes with that collector only, and ARMS names its scraper."""
        if self.azure is not None and self.collector != AZURE_MANAGED_PROMETHEUS:
            raise MisplacedKey("azure", f"it configures collector {AZURE_MANAGED_PROMETHEUS}")
        if self.prometheus_operator is not None and self.collector != PROMETHEUS_OPERATOR:
            raise MisplacedKey("prometheusOperator", f"it configures collector {PROMETHEUS_OPERATOR}")
        if self.collector == ARMS and self.scraper is None:
            raise RuleViolation(
                "scraper",
                None,
                "collector arms needs the ServiceAccount its agent runs as (kubectl get pods -n arms-prom -o "
                "jsonpath='{..serviceAccountName}')",
            )
        return self

    @property
    def scraper_identity(self) -> ScraperIdentity:
        """The scraper's ServiceAccount: the one written, else the collector's."""
        if self.scraper is not None:
            return self.scraper
        namespace, name = AMA_METRICS if self.collector == AZURE_MANAGED_PROMETHEUS else KUBE_PROMETHEUS_STACK
        return ScraperIdentity(namespace=namespace, service_account=name)

    @property
    def azure_settings(self) -> AzureMonitorConfig:
        return self.azure or AzureMonitorConfig()

    @property
    def operator_settings(self) -> PrometheusOperatorConfig:
        return self.prometheus_operator or PrometheusOperatorConfig()
