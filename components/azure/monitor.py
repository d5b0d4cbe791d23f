"""Azure Monitor managed Prometheus for a new AKS cluster: where the metrics add-on sends Kueue's series, and alerts.

The chain of Microsoft's own template for the add-on
(https://github.com/Azure/prometheus-collector/blob/main/AddonArmTemplate/FullAzureMonitorMetricsProfile.json): an
Azure Monitor workspace, a Linux data collection endpoint, a data collection rule forwarding the
``Microsoft-PrometheusMetrics`` stream to the workspace, and its association with the cluster; the cluster itself
turns the add-on on (``azureMonitorProfile.metrics``, :class:`components.azure.aks.AksCluster`). Kueue's alerts become a
Prometheus rule group on the workspace, and an optional Managed Grafana reads the workspace with the Monitoring Data
Reader role (https://learn.microsoft.com/en-us/azure/azure-monitor/metrics/prometheus-grafana).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pulumi
from pulumi_azure_native import alertsmanagement, authorization, dashboard, monitor

from components.config.kueue.monitoring import MonitoringConfig

PROMETHEUS_STREAM = "Microsoft-PrometheusMetrics"
DESTINATION = "MonitoringAccount1"
"""The DCR's name for the workspace destination, as the template names it."""
MONITORING_DATA_READER = "b0d8363b-8ddd-447d-831f-62ca05bff136"
"""The built-in role "Monitoring Data Reader"
(https://learn.microsoft.com/en-us/azure/role-based-access-control/built-in-roles/monitor#monitoring-data-reader)."""
SEVERITIES = {"critical": 1, "warning": 3}
"""Azure alert severities (0 critical ... 4 verbose) for the rules' ``severity`` labels."""
NAME_RULES = "https://learn.microsoft.com/azure/azure-resource-manager/management/resource-name-rules"
WORKSPACE_MAX = 44
"""An Azure Monitor workspace (``Microsoft.Monitor/accounts``): alphanumerics and hyphens, alphanumeric at both
ends (NAME_RULES; its API's pattern is ``^(?!-)[a-zA-Z0-9-]+[^-]$``)."""
ENDPOINT_MAX, RULE_MAX, ASSOCIATION_MAX = 44, 64, 64
"""A data collection endpoint, rule and rule association: Microsoft's add-on template cuts the endpoint's name to
44 and the rule's to 64 (``dceName`` and ``dcrName`` in
https://github.com/Azure/prometheus-collector/blob/main/AddonArmTemplate/FullAzureMonitorMetricsProfile.json); the
association is held to the rule's."""
GRAFANA_MAX = 23
"""A Managed Grafana (``Microsoft.Dashboard/grafana``): 2-23 alphanumerics and hyphens, starting with a letter and
ending with an alphanumeric (NAME_RULES)."""
TRAILING = "-._"
"""What ARM refuses at the end of these names."""


def arm_name(name: str, limit: int) -> str:
    """``name`` cut to ``limit`` characters, as Microsoft's template cuts, and without a trailing ``-``, ``.`` or
    ``_`` that the cut (or the name) leaves."""
    return name[:limit].rstrip(TRAILING)


@dataclasses.dataclass(frozen=True)
class MonitorNames:
    """The ARM names of one cluster's managed-Prometheus objects, each within its type's limit."""

    workspace: str
    endpoint: str
    rule: str
    association: str
    rule_group: str
    grafana: str

    @classmethod
    def of(cls, location: str, cluster: str) -> MonitorNames:
        """Named as the template names them (``MSProm-<region>-<cluster>``) and after the cluster, so two stacks in
        one resource group do not collide. The rule group's API allows any length (its pattern is
        ``^[^:@/#{}%&+*<>?]+$``); an AKS cluster name has at most 63 characters."""
        msprom = f"MSProm-{location}-{cluster}"
        return cls(
            workspace=arm_name(f"{cluster}-amw", WORKSPACE_MAX),
            endpoint=arm_name(msprom, ENDPOINT_MAX),
            rule=arm_name(msprom, RULE_MAX),
            association=arm_name(msprom, ASSOCIATION_MAX),
            rule_group=f"{cluster}-kueue-alerts",
            grafana=arm_name(f"{cluster}-grafana", GRAFANA_MAX),
        )


def iso8601_duration(duration: str) -> str:
    """A Prometheus duration in whole minutes (``30m``) as the ISO 8601 one Azure rule groups take (``PT30M``)."""
    minutes = duration.removesuffix("m")
    if not minutes.isdigit() or minutes == duration:
        raise ValueError(f"{duration!r}: the alert rules are written in whole minutes")
    return f"PT{int(minutes)}M"


def azure_rule(rule: dict[str, Any]) -> alertsmanagement.PrometheusRuleArgs:
    """One Prometheus alert rule as an Azure rule group's rule."""
    return alertsmanagement.PrometheusRuleArgs(
        alert=rule["alert"],
        expression=rule["expr"],
        for_=iso8601_duration(rule["for"]),
        severity=SEVERITIES[rule["labels"]["severity"]],
        labels=rule["labels"],
        annotations=rule["annotations"],
        enabled=True,
    )


@dataclasses.dataclass(frozen=True)
class AzureMonitorArgs:
    """The ``monitoring`` section, and the AKS cluster whose metrics add-on writes to the workspace."""

    config: MonitoringConfig
    resource_group_name: pulumi.Input[str]
    location: str
    cluster_id: pulumi.Input[str]
    cluster_name: pulumi.Input[str]
    physical_name: str
    """The cluster's ARM name, which names every object (:class:`MonitorNames`)."""
    alert_rules: list[dict[str, Any]]
    """The Prometheus alert rules the rule group carries."""


class AzureManagedPrometheus(pulumi.ComponentResource):
    """The workspace the AKS metrics add-on writes to, its data collection, the alert rule group and Grafana."""

    workspace_id: pulumi.Output[str]
    """The Azure Monitor workspace's resource id."""
    grafana_endpoint: pulumi.Output[str | None]
    """The Managed Grafana's URL; ``None`` without ``monitoring.azure.grafana``."""

    def __init__(
        self,
        name: str,
        args: AzureMonitorArgs,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        super().__init__("elastic-capacity:azure:AzureManagedPrometheus", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        resource_group_name, location, cluster_id = args.resource_group_name, args.location, args.cluster_id
        names = MonitorNames.of(location, args.physical_name)
        workspace = self._data_collection(name, resource_group_name, location, cluster_id, names)
        settings = args.config.azure_settings
        if settings.alert_rules:
            alertsmanagement.PrometheusRuleGroup(
                f"{name}-kueue-alerts",
                resource_group_name=resource_group_name,
                rule_group_name=names.rule_group,
                location=location,
                cluster_name=args.cluster_name,
                scopes=[workspace.id, cluster_id],
                interval="PT1M",
                enabled=True,
                rules=[azure_rule(rule) for rule in args.alert_rules],
                opts=child,
            )
        self.workspace_id = workspace.id
        self.grafana_endpoint = (
            self._grafana(name, names.grafana, resource_group_name, location, workspace)
            if settings.grafana
            else pulumi.Output.from_input(None)
        )
        self.register_outputs({"workspaceId": self.workspace_id, "grafanaEndpoint": self.grafana_endpoint})

    def _data_collection(
        self,
        name: str,
        resource_group_name: pulumi.Input[str],
        location: str,
        cluster_id: pulumi.Input[str],
        names: MonitorNames,
    ) -> monitor.AzureMonitorWorkspace:
        """The workspace, and the endpoint, rule and association that carry the cluster's series into it."""
        child = pulumi.ResourceOptions(parent=self)
        workspace = monitor.AzureMonitorWorkspace(
            f"{name}-workspace",
            resource_group_name=resource_group_name,
            azure_monitor_workspace_name=names.workspace,
            location=location,
            opts=child,
        )
        linux: dict[str, Any] = {"resource_group_name": resource_group_name, "location": location, "kind": "Linux"}
        endpoint = monitor.DataCollectionEndpoint(
            f"{name}-dce", data_collection_endpoint_name=names.endpoint, **linux, opts=child
        )
        collection_rule = monitor.DataCollectionRule(
            f"{name}-dcr",
            data_collection_rule_name=names.rule,
            **linux,
            data_collection_endpoint_id=endpoint.id,
            data_sources=monitor.DataCollectionRuleDataSourcesArgs(
                prometheus_forwarder=[
                    monitor.PrometheusForwarderDataSourceArgs(name="PrometheusDataSource", streams=[PROMETHEUS_STREAM])
                ]
            ),
            destinations=monitor.DataCollectionRuleDestinationsArgs(
                monitoring_accounts=[
                    monitor.MonitoringAccountDestinationArgs(account_resource_id=workspace.id, name=DESTINATION)
                ]
            ),
            data_flows=[monitor.DataFlowArgs(streams=[PROMETHEUS_STREAM], destinations=[DESTINATION])],
            opts=child,
        )
        monitor.DataCollectionRuleAssociation(
            f"{name}-dcra",
            association_name=names.association,
            resource_uri=cluster_id,
            data_collection_rule_id=collection_rule.id,
            opts=child,
        )
        return workspace

    def _grafana(
        self,
        name: str,
        grafana_name: str,
        resource_group_name: pulumi.Input[str],
        location: str,
        workspace: monitor.AzureMonitorWorkspace,
    ) -> pulumi.Output[str | None]:
        """A Standard Managed Grafana with the workspace as a data source, its identity allowed to read it."""
        grafana = dashboard.Grafana(
            f"{name}-grafana",
            resource_group_name=resource_group_name,
            workspace_name=grafana_name,
            location=location,
            sku=dashboard.ResourceSkuArgs(name="Standard"),
            identity=dashboard.ManagedServiceIdentityArgs(type="SystemAssigned"),
            properties=dashboard.ManagedGrafanaPropertiesArgs(
                grafana_integrations=dashboard.GrafanaIntegrationsArgs(
                    azure_monitor_workspace_integrations=[
                        dashboard.AzureMonitorWorkspaceIntegrationArgs(azure_monitor_workspace_resource_id=workspace.id)
                    ]
                )
            ),
            opts=pulumi.ResourceOptions(parent=self),
        )
        principal = grafana.identity.apply(lambda identity: identity.principal_id if identity else None)
        subscription = authorization.get_client_config_output(opts=pulumi.InvokeOutputOptions(parent=self))
        authorization.RoleAssignment(
            f"{name}-grafana-reader",
            principal_id=principal.apply(lambda value: value or ""),
            principal_type="ServicePrincipal",
            role_definition_id=subscription.subscription_id.apply(
                lambda sub: (
                    f"/subscriptions/{sub}/providers/Microsoft.Authorization/roleDefinitions/{MONITORING_DATA_READER}"
                )
            ),
            scope=workspace.id,
            opts=pulumi.ResourceOptions(parent=self),
        )
        return grafana.properties.apply(lambda properties: properties.endpoint if properties else None)
