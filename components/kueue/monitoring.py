"""Kueue's metrics scraped by the cluster's collector: the Kubernetes side, the same on every cloud.

On the stack's Kueue cluster: the ClusterRoleBinding of the chart's metrics-reader role to the scraper's
ServiceAccount, a ServiceMonitor of the collector's group for Kueue's metrics Service, and, for a prometheus-operator,
the alert rules as a PrometheusRule and the dashboard as a ConfigMap for Grafana's sidecar. Azure's side (workspace,
data collection, rule group, Grafana) is :mod:`components.azure.monitor`. What each collector is and why the
scraper's own token is sent: :mod:`components.config.kueue.monitoring`.
"""

from __future__ import annotations

from typing import Any

import pulumi
from pulumi_kubernetes import core, rbac
from pulumi_kubernetes.apiextensions import CustomResource

from components.cluster_target import QUEUES, ClusterTarget
from components.config.kueue.kueue import KueueConfig
from components.config.kueue.monitoring import ARMS, AZURE_MANAGED_PROMETHEUS, PROMETHEUS_OPERATOR, MonitoringConfig
from components.manifests import alerts, monitoring
from components.manifests.kueue_install import kueue_fullname
from components.waiters.crd_wait import AZURE_MONITOR_SERVICE_MONITORS, CrdWaitTarget, MetricsAddonCrd

API_VERSIONS = {
    AZURE_MANAGED_PROMETHEUS: monitoring.AZURE_MONITOR_API_VERSION,
    PROMETHEUS_OPERATOR: monitoring.PROMETHEUS_OPERATOR_API_VERSION,
    ARMS: monitoring.PROMETHEUS_OPERATOR_API_VERSION,
}
"""The ServiceMonitor group each collector reads."""


def scrape_job(kueue: KueueConfig) -> str:
    """The ``job`` label of Kueue's series: prometheus-operator (and the add-on's target allocator built on it) sets
    it to the Service's name when the ServiceMonitor has no ``jobLabel``."""
    return monitoring.metrics_service_name(kueue_fullname(kueue))


def rule_objects(config: MonitoringConfig, kueue: KueueConfig) -> list[dict[str, Any]]:
    """Kueue's alert rules with the stack's thresholds, as Prometheus rule objects."""
    return alerts.alert_rules(
        kueue_namespace=kueue.namespace,
        scrape_job=scrape_job(kueue),
        pending_minutes=config.pending_minutes,
        admission_check_minutes=config.provisioning_minutes,
    )


class KueueMonitoring(pulumi.ComponentResource):
    """The scraper let in to Kueue's ``/metrics`` and pointed at it, after Kueue's chart (its Service and role)."""

    service_monitor: CustomResource
    """Kueue's ServiceMonitor, in the collector's group."""

    def __init__(
        self,
        name: str,
        config: MonitoringConfig,
        kueue: KueueConfig,
        target: ClusterTarget,
        *,
        kueue_ready: pulumi.Resource,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        """``kueue_ready`` is Kueue's readiness gate (or its chart): the ServiceMonitor selects the chart's Service
        and the binding names the chart's role, so both follow it; rendered for GitOps they are in the layer after
        Kueue's (the queues'), applied once Kueue's is healthy. On a live cluster with AKS's metrics add-on, the
        ServiceMonitor also waits until the add-on serves its CRD."""
        super().__init__(
            "elastic-capacity:monitoring:KueueMonitoring",
            name,
            None,
            pulumi.ResourceOptions.merge(target.on(QUEUES), opts),
        )
        fullname = kueue_fullname(kueue)
        # A component's depends_on does not reach its children: each waits for Kueue itself.
        child = pulumi.ResourceOptions(parent=self, depends_on=[kueue_ready])
        binding = monitoring.metrics_reader_binding(
            f"{fullname}-metrics-scraper", monitoring.metrics_reader_role(fullname), config.scraper_identity
        )
        rbac.v1.ClusterRoleBinding(f"{name}-reader", **_binding_args(binding), opts=child)
        operator = config.collector == PROMETHEUS_OPERATOR
        monitor = monitoring.service_monitor(
            API_VERSIONS[config.collector],
            name=f"{fullname}-metrics",
            namespace=kueue.namespace,
            release_name=kueue.release_name,
            labels=config.operator_settings.monitor_labels if operator else None,
            annotations=monitoring.ARMS_DISCOVERY if config.collector == ARMS else None,
        )
        after_crd = (
            self._metrics_addon_crd(name, config, target) if config.collector == AZURE_MANAGED_PROMETHEUS else []
        )
        monitor_opts = pulumi.ResourceOptions(parent=self, depends_on=[kueue_ready, *after_crd])
        self.service_monitor = _custom_resource(f"{name}-service-monitor", monitor, monitor_opts)
        if operator:
            self._discovery(name, config, kueue, child)
            self._operator_objects(name, config, kueue, child)
        self.register_outputs({})

    def _discovery(
        self, name: str, config: MonitoringConfig, kueue: KueueConfig, child: pulumi.ResourceOptions
    ) -> None:
        """Let a prometheus-operator's Prometheus find the targets in Kueue's namespace: kube-prometheus's grants
        it only a few namespaces (:data:`components.manifests.monitoring.DISCOVERY_RULES`). AKS's add-on and ARMS's
        agent discover cluster-wide."""
        role_name = f"{kueue_fullname(kueue)}-metrics-discovery"
        role = monitoring.discovery_role(role_name, kueue.namespace)
        rbac.v1.Role(f"{name}-discovery", metadata=role["metadata"], rules=role["rules"], opts=child)
        binding = monitoring.discovery_role_binding(role_name, kueue.namespace, config.scraper_identity)
        rbac.v1.RoleBinding(f"{name}-discovery-binding", **_binding_args(binding), opts=child)

    def _metrics_addon_crd(self, name: str, config: MonitoringConfig, target: ClusterTarget) -> list[pulumi.Resource]:
        """The wait for the add-on's ServiceMonitor CRD, on a live cluster (a rendered one has no API to read)."""
        if not target.live:
            return []
        wait = MetricsAddonCrd(
            f"{name}-crd-wait",
            crd=AZURE_MONITOR_SERVICE_MONITORS,
            kueue_revision=AZURE_MONITOR_SERVICE_MONITORS,
            timeout_seconds=config.azure_settings.crd_timeout_seconds,
            target=CrdWaitTarget(
                reader=target.reader,
                hint="AKS's metrics add-on installs it once the cluster has azureMonitorProfile.metrics on (kubectl "
                "get pods -n kube-system -l rsName=ama-metrics)",
            ),
            opts=pulumi.ResourceOptions(parent=self),
        )
        return [wait]

    def _operator_objects(
        self, name: str, config: MonitoringConfig, kueue: KueueConfig, child: pulumi.ResourceOptions
    ) -> None:
        """A prometheus-operator's PrometheusRule and, unless turned off, the sidecar's dashboard ConfigMap."""
        settings = config.operator_settings
        rule = alerts.prometheus_rule(
            "kueue-alerts",
            settings.namespace,
            settings.rule_labels,
            kueue_namespace=kueue.namespace,
            scrape_job=scrape_job(kueue),
            pending_minutes=config.pending_minutes,
            admission_check_minutes=config.provisioning_minutes,
        )
        _custom_resource(f"{name}-rules", rule, child)
        if settings.dashboard:
            board = monitoring.dashboard_config_map(kueue.kueue_version, settings.namespace)
            core.v1.ConfigMap(f"{name}-dashboard", metadata=board["metadata"], data=board["data"], opts=child)


def _binding_args(manifest: dict[str, Any]) -> dict[str, Any]:
    """A (Cluster)RoleBinding manifest as pulumi-kubernetes arguments."""
    return {"metadata": manifest["metadata"], "role_ref": manifest["roleRef"], "subjects": manifest["subjects"]}


def _custom_resource(name: str, manifest: dict[str, Any], opts: pulumi.ResourceOptions) -> CustomResource:
    return CustomResource(
        name,
        api_version=manifest["apiVersion"],
        kind=manifest["kind"],
        metadata=manifest["metadata"],
        spec=manifest["spec"],
        opts=opts,
    )
