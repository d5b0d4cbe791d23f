"""Azure's side of managed Prometheus as the shipped AKS stack builds it: the metrics add-on on the cluster, the
workspace, data collection endpoint, rule and association wired id to id, Kueue's alerts as a rule group with ISO 8601
waits, and the optional Managed Grafana with its reader role on the workspace."""

from __future__ import annotations

import dataclasses
import re

import pytest

from components.azure.monitor import (
    ENDPOINT_MAX,
    GRAFANA_MAX,
    MONITORING_DATA_READER,
    RULE_MAX,
    SEVERITIES,
    WORKSPACE_MAX,
    MonitorNames,
    iso8601_duration,
)
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


LONG_REGION = "australiasoutheast"
"""One of Azure's longest region names."""
ALNUM_ENDS = r"[A-Za-z0-9](?:[-A-Za-z0-9]*[A-Za-z0-9])?"
NAME_FORMS = {
    "workspace": (WORKSPACE_MAX, re.compile(r"(?!-)[a-zA-Z0-9-]+[^-]")),
    "endpoint": (ENDPOINT_MAX, re.compile(ALNUM_ENDS)),
    "rule": (RULE_MAX, re.compile(ALNUM_ENDS)),
    "association": (RULE_MAX, re.compile(ALNUM_ENDS)),
    "rule_group": (None, re.compile(r"[^:@/#{}%&+*<>?]+")),
    "grafana": (GRAFANA_MAX, re.compile(r"[a-zA-Z][a-zA-Z0-9-]{0,21}[a-zA-Z0-9]")),
}
"""Each object's length limit and the form ARM accepts (the module's constants say whose); the rule group's API sets
no length."""


def test_every_name_fits_its_arm_type_for_any_cluster_name_in_a_long_region():
    """Cluster names of every length AKS allows, hyphens where a cut can land: no name is too long or ends in
    ``-``, ``.`` or ``_``."""
    violations = []
    for length in range(1, 64):
        cluster = ("kueue-cas-" * 7)[:length].rstrip("-") or "k"
        names = dataclasses.asdict(MonitorNames.of(LONG_REGION, cluster))
        for kind, (limit, form) in NAME_FORMS.items():
            name = names[kind]
            if (limit is not None and len(name) > limit) or not form.fullmatch(name) or name[-1] in "-._":
                violations.append((cluster, kind, name))
    assert not violations


def test_a_long_cluster_in_a_long_region_gets_names_arm_accepts(tmp_path):
    """A 45-character cluster name, the longest a stack derives (``default_names``), in australiasoutheast: the
    endpoint's ``MSProm-<region>-<cluster>`` would be 71 characters, and ARM takes 44."""
    cluster = "kueue-cas-production-eastus2-batch-pla-a463fd"

    def long_names(config: dict) -> None:
        config["azure-native:location"] = LONG_REGION
        config["elastic-capacity:aks"].update(location=LONG_REGION, clusterName=cluster)
        config["elastic-capacity:monitoring"]["azure"] = {"grafana": True}

    recording = run_stack(edited_stack(AKS_STACK, long_names, tmp_path))
    names = {
        "workspace": recording.one(WORKSPACE).inputs["azureMonitorWorkspaceName"],
        "endpoint": recording.one(DCE).inputs["dataCollectionEndpointName"],
        "rule": recording.one(DCR).inputs["dataCollectionRuleName"],
        "association": recording.one(DCRA).inputs["associationName"],
        "rule_group": recording.one(RULE_GROUP).inputs["ruleGroupName"],
        "grafana": recording.one(GRAFANA).inputs["workspaceName"],
    }
    for kind, name in names.items():
        limit, form = NAME_FORMS[kind]
        assert (limit is None or len(name) <= limit) and form.fullmatch(name), (kind, name)
    assert names["endpoint"] == "MSProm-australiasoutheast-kueue-cas-producti", "cut where the template cuts"
