"""Azure's side of managed Prometheus as the shipped AKS stack builds it: the metrics add-on on the cluster, the
workspace, data collection endpoint, rule and association wired id to id, Kueue's alerts as a rule group with ISO 8601
waits, and the optional Managed Grafana with its reader role on the workspace."""

from __future__ import annotations

import pytest

from components.azure_monitor import MONITORING_DATA_READER, SEVERITIES, iso8601_duration
from components.manifests import alerts
from tests.support.stacks import AKS_STACK, edited_stack, recorded, run_stack
from tools.recording import Recording

CLUSTER = "azure-native:containerservice:ManagedCluster"
WORKSPACE = "azure-native:monitor:AzureMonitorWorkspace"
DCE = "azure-native:monitor:DataCollectionEndpoint"
DCR = "azure-native:monitor:DataCollectionRule"
DCRA = "azure-native:monitor:DataCollectionRuleAssociation"
RULE_GROUP = "azure-native:alertsmanagement:PrometheusRuleGroup"
GRAFANA = "azure-native:dashboard:Grafana"
ROLE_ASSIGNMENT = "azure-native:authorization:RoleAssignment"


@pytest.fixture(scope="module")
def aks() -> Recording:
    return recorded(AKS_STACK)


def test_the_cluster_turns_the_metrics_add_on_on(aks):
    assert aks.one(CLUSTER).inputs["azureMonitorProfile"] == {"metrics": {"enabled": True}}


def test_the_data_collection_chain_is_wired_id_to_id(aks):
    workspace, endpoint, rule, association = (aks.one(t) for t in (WORKSPACE, DCE, DCR, DCRA))
    assert endpoint.inputs["kind"] == "Linux"
    assert rule.inputs["dataCollectionEndpointId"] == endpoint.id
    assert rule.inputs["dataSources"]["prometheusForwarder"][0]["streams"] == ["Microsoft-PrometheusMetrics"]
    (account,) = rule.inputs["destinations"]["monitoringAccounts"]
    assert account["accountResourceId"] == workspace.id
    assert rule.inputs["dataFlows"] == [{"streams": ["Microsoft-PrometheusMetrics"], "destinations": [account["name"]]}]
    assert association.inputs["resourceUri"] == aks.one(CLUSTER).id
    assert association.inputs["dataCollectionRuleId"] == rule.id
    location = aks.one(CLUSTER).inputs["location"]
    assert {workspace.inputs["location"], endpoint.inputs["location"], rule.inputs["location"]} == {location}


def test_the_alerts_become_an_azure_rule_group_on_the_workspace_with_iso_8601_waits(aks):
    group = aks.one(RULE_GROUP).inputs
    assert group["scopes"] == [aks.one(WORKSPACE).id, aks.one(CLUSTER).id]
    assert group["clusterName"] == aks.one(CLUSTER).inputs["resourceName"]
    expected = alerts.alert_rules(
        kueue_namespace="kueue-system",
        scrape_job="kueue-controller-manager-metrics-service",
        pending_minutes=30,
        admission_check_minutes=20,
    )
    assert [r["alert"] for r in group["rules"]] == [r["alert"] for r in expected]
    for azure, rule in zip(group["rules"], expected, strict=True):
        assert azure["expression"] == rule["expr"]
        assert azure["for"] == iso8601_duration(rule["for"])
        assert azure["severity"] == SEVERITIES[rule["labels"]["severity"]]


@pytest.mark.parametrize(("duration", "iso"), [("1m", "PT1M"), ("30m", "PT30M"), ("120m", "PT120M")])
def test_rule_waits_in_iso_8601(duration, iso):
    assert iso8601_duration(duration) == iso


@pytest.mark.parametrize("duration", ["30s", "1h", "m"])
def test_a_wait_that_is_not_whole_minutes_is_refused(duration):
    with pytest.raises(ValueError, match="whole minutes"):
        iso8601_duration(duration)


def test_managed_grafana_reads_the_workspace_with_monitoring_data_reader(tmp_path):
    def with_grafana(config: dict) -> None:
        config["elastic-capacity:monitoring"]["azure"] = {"grafana": True, "alertRules": False}

    recording = run_stack(edited_stack(AKS_STACK, with_grafana, tmp_path))
    grafana = recording.one(GRAFANA)
    workspace = recording.one(WORKSPACE)
    integrations = grafana.inputs["properties"]["grafanaIntegrations"]["azureMonitorWorkspaceIntegrations"]
    assert integrations == [{"azureMonitorWorkspaceResourceId": workspace.id}]
    assert grafana.inputs["identity"] == {"type": "SystemAssigned"}
    reader = recording.named("monitoring-azure-grafana-reader")
    assert reader.type == ROLE_ASSIGNMENT
    assert reader.inputs["scope"] == workspace.id
    assert reader.inputs["roleDefinitionId"].endswith(f"/roleDefinitions/{MONITORING_DATA_READER}")
    assert recording.depends_on(reader, grafana)
    assert recording.named("monitoring-azure").type == "elastic-capacity:azure:AzureManagedPrometheus"
    assert not recording.by_type(RULE_GROUP), "alertRules: false"
