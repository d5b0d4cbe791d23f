"""The ``monitoring`` section as the program builds it: the scraper's binding and Kueue's ServiceMonitor on the Kueue
cluster's provider after Kueue, the prometheus-operator's rules and dashboard, and Azure's managed Prometheus chain
(workspace, data collection, association with the cluster, rule group, Grafana) wired id to id."""

from __future__ import annotations

import json

import pytest

from components import yaml_text
from components.config.kueue.monitoring import AMA_METRICS
from components.config.loader import load_stack_config
from components.fleet import deploy
from components.manifests import monitoring
from tests.support import PROJECT_ROOT, service_monitor
from tests.support.config import WALKTHROUGH, as_config
from tests.support.kueue_sources import render_chart
from tests.support.prometheus_rule import validate as validate_rule
from tests.support.schemas import validate_core
from tests.support.scrape import local_queue_status, scraped
from tests.support.stacks import AKS_STACK, CHINA_STACK, recorded
from tools import render
from tools.recording import Recording

CHART = "kubernetes:helm.sh/v4:Chart"
GATE = "kubernetes:batch/v1:Job"
CLUSTER = "azure-native:containerservice:ManagedCluster"
WORKSPACE = "azure-native:monitor:AzureMonitorWorkspace"
METRICS_ADDON_CRD = "pulumi-python:dynamic/monitoring:MetricsAddonCrd"
GITOPS = {"renderToDirectory": "gitops"}
CASES = PROJECT_ROOT / "tests/cases/valid"
OPERATOR_CASE = CASES / "Pulumi.monitoring-prometheus-operator.yaml"
ARMS_CASE = CASES / "Pulumi.monitoring-arms.yaml"


def the_monitor(recording: Recording, group: str):
    return recording.one(f"kubernetes:{group}/v1:ServiceMonitor", "monitoring-service-monitor")


def manager_config(recording: Recording) -> dict:
    values = recording.one(CHART).inputs["values"]
    return yaml_text.load(values["managerConfig"]["controllerManagerConfigYaml"])


@pytest.fixture(scope="module")
def aks() -> Recording:
    return recorded(AKS_STACK)


def test_the_scraper_is_bound_to_exactly_kueue_s_metrics_reader_role(aks):
    binding = aks.named("monitoring-reader").inputs
    assert binding["roleRef"] == {
        "apiGroup": "rbac.authorization.k8s.io",
        "kind": "ClusterRole",
        "name": "kueue-metrics-reader",
    }
    assert binding["subjects"] == [{"kind": "ServiceAccount", "namespace": AMA_METRICS[0], "name": AMA_METRICS[1]}]
    validate_core({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", **binding}, "1.33")


def test_aks_gets_an_azmonitoring_service_monitor_of_kueue_s_https_endpoint_with_the_scraper_s_token(aks):
    monitor = the_monitor(aks, "azmonitoring.coreos.com")
    service_monitor.validate(monitor.inputs)
    endpoint = monitor.inputs["spec"]["endpoints"][0]
    assert endpoint == {
        "honorLabels": True,
        "port": "https",
        "path": "/metrics",
        "scheme": "https",
        "bearerTokenFile": "/var/run/secrets/kubernetes.io/serviceaccount/token",
        "tlsConfig": {"insecureSkipVerify": True},
    }
    assert monitor.inputs["metadata"]["namespace"] == "kueue-system"
    assert monitor.inputs["spec"]["labelLimit"] == 63
    assert not aks.by_type("kubernetes:monitoring.coreos.com/v1:ServiceMonitor"), "the add-on ignores that group"


def test_the_monitor_and_binding_follow_kueue_on_the_aks_cluster_s_provider(aks):
    gate = aks.one(GATE, "kueue-ready")
    chart = aks.one(CHART)
    for child in (the_monitor(aks, "azmonitoring.coreos.com"), aks.named("monitoring-reader")):
        assert gate.urn in child.dependencies, child.name
        assert aks.depends_on(child, chart)
        assert aks.provider_of(child) == aks.provider_of(gate)


def test_on_aks_the_monitor_also_waits_for_the_metrics_add_on_to_serve_its_crd_and_the_binding_does_not(aks):
    wait = aks.one(METRICS_ADDON_CRD)
    assert (wait.inputs["crd"], wait.inputs["timeoutSeconds"]) == ("servicemonitors.azmonitoring.coreos.com", 600)
    assert wait.is_secret("kubeconfig")
    assert aks.depends_on(wait, aks.one(CLUSTER)), "it reads the cluster the add-on runs on"
    assert wait.urn in the_monitor(aks, "azmonitoring.coreos.com").dependencies
    assert not aks.depends_on(aks.named("monitoring-reader"), wait), "the binding needs only Kueue's role"


def test_neither_another_collector_nor_a_rendered_cluster_waits_for_the_add_on(operator, run_program):
    assert not operator.by_type(METRICS_ADDON_CRD)
    sections = {
        "aks": {"preset": "aks-walkthrough"},
        **WALKTHROUGH,
        "monitoring": {"collector": "azure-managed-prometheus"},
    }
    rendered = run_program(lambda: deploy(load_stack_config(as_config({**sections, "gitops": GITOPS}))))
    assert the_monitor(rendered, "azmonitoring.coreos.com") and not rendered.by_type(METRICS_ADDON_CRD)


def test_the_monitor_selects_the_real_chart_s_metrics_service_and_the_binding_names_its_role(aks):
    chart = aks.one(CHART).inputs
    objects = render_chart(chart["version"], chart)
    services = [o for o in objects if o["kind"] == "Service"]
    selector = the_monitor(aks, "azmonitoring.coreos.com").inputs["spec"]["selector"]["matchLabels"]
    selected = [s for s in services if selector.items() <= s["metadata"]["labels"].items()]
    assert [s["metadata"]["name"] for s in selected] == ["kueue-controller-manager-metrics-service"]
    assert [p["name"] for p in selected[0]["spec"]["ports"]] == ["https"]
    roles = {o["metadata"]["name"]: o for o in objects if o["kind"] == "ClusterRole"}
    assert roles["kueue-metrics-reader"]["rules"] == [{"nonResourceURLs": ["/metrics"], "verbs": ["get"]}]


def test_monitoring_turns_on_the_clusterqueue_quota_gauges_and_a_stack_without_it_does_not(aks):
    assert manager_config(aks)["metrics"]["enableClusterQueueResources"] is True
    china = recorded(CHINA_STACK)
    assert "enableClusterQueueResources" not in manager_config(china)["metrics"]
    assert "azureMonitorProfile" not in china.one(CLUSTER).inputs
    assert not [r for r in china.registrations if r.name.startswith("monitoring")]


@pytest.fixture(scope="module")
def operator() -> Recording:
    return recorded(OPERATOR_CASE)


def test_a_prometheus_operator_gets_its_own_group_labels_rules_and_scraper(operator):
    monitor = the_monitor(operator, "monitoring.coreos.com")
    service_monitor.validate(monitor.inputs)
    assert monitor.inputs["metadata"]["labels"] == {"release": "prom"}
    assert "labelLimit" not in monitor.inputs["spec"]
    subjects = operator.named("monitoring-reader").inputs["subjects"]
    assert subjects == [
        {"kind": "ServiceAccount", "namespace": "observability", "name": "prom-kube-prometheus-stack-prometheus"}
    ]
    assert not operator.by_type(WORKSPACE), "Azure's side is only for azure-managed-prometheus"


def test_the_prometheus_rule_carries_the_stack_s_thresholds_and_selecting_labels(operator):
    rule = operator.named("monitoring-rules").inputs
    validate_rule(rule)
    assert rule["metadata"] == {"name": "kueue-alerts", "namespace": "observability", "labels": {"release": "prom"}}
    waits = {r["alert"]: r["for"] for r in rule["spec"]["groups"][0]["rules"]}
    assert waits["KueueClusterQueueIdleWithPending"] == "45m"
    assert waits["KueueAdmissionChecksStuck"] == "25m"
    exprs = [r["expr"] for r in rule["spec"]["groups"][0]["rules"]]
    assert 'absent(up{job="kueue-controller-manager-metrics-service"} == 1)' in exprs


def test_the_dashboard_goes_to_grafana_s_sidecar_fitted_to_the_installed_kueue(operator):
    board = operator.named("monitoring-dashboard").inputs
    assert board["metadata"] == {
        "name": "kueue-dashboard",
        "namespace": "observability",
        "labels": {"grafana_dashboard": "1"},
    }
    config = manager_config(operator)
    kueue_version = operator.one(CHART).inputs["version"]
    assert json.loads(board["data"][monitoring.DASHBOARD_KEY]) == monitoring.dashboard(kueue_version)
    assert config["metrics"]["enableClusterQueueResources"] is True
    for child in (operator.named("monitoring-rules"), operator.named("monitoring-dashboard")):
        assert operator.one(GATE, "kueue-ready").urn in child.dependencies


def test_arms_reads_a_monitoring_coreos_service_monitor_marked_for_discovery():
    recording = recorded(ARMS_CASE)
    monitor = the_monitor(recording, "monitoring.coreos.com")
    service_monitor.validate(monitor.inputs)
    assert monitor.inputs["metadata"]["annotations"] == {"arms.prometheus.io/discovery": "true"}
    assert recording.named("monitoring-reader").inputs["subjects"][0]["namespace"] == "arms-prom"
    assert not [r for r in recording.registrations if r.name in ("monitoring-rules", "monitoring-dashboard")]


@pytest.mark.parametrize(
    ("case", "group"),
    [
        (AKS_STACK, "azmonitoring.coreos.com"),
        (OPERATOR_CASE, "monitoring.coreos.com"),
        (ARMS_CASE, "monitoring.coreos.com"),
    ],
    ids=["azure-managed-prometheus", "prometheus-operator", "arms"],
)
def test_every_collector_stores_a_local_queue_series_under_the_local_queue_s_namespace(case, group):
    """The target's own ``namespace`` (Kueue's) must not replace the LocalQueue's: the dashboard's ``$namespace``,
    its per-LocalQueue panels and the alerts' ``kubectl -n`` read it."""
    monitor = the_monitor(recorded(case), group).inputs
    storage = scraped(monitor, lambda t: local_queue_status("True"), until=60)
    stored = next(dict(key) for key in storage.series if dict(key)["__name__"] == "kueue_local_queue_status")
    assert stored["namespace"] == "team-a" and "exported_namespace" not in stored, stored
    assert stored["job"] == "kueue-controller-manager-metrics-service", "KueueControllerDown keys on it"


def test_a_prometheus_operator_s_scraper_may_discover_kueue_s_targets_in_kueue_s_namespace(operator, aks):
    """kube-prometheus's Prometheus lists Services, endpoints and pods only in a few namespaces: without a Role in
    Kueue's, its ServiceMonitor finds no target. AKS's add-on discovers cluster-wide and gets none."""
    role = operator.named("monitoring-discovery").inputs
    binding = operator.named("monitoring-discovery-binding").inputs
    validate_core({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", **role}, "1.33")
    validate_core({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", **binding}, "1.33")
    assert role["metadata"]["namespace"] == binding["metadata"]["namespace"] == "kueue-system"
    granted = {
        (group, resource) for rule in role["rules"] for group in rule["apiGroups"] for resource in rule["resources"]
    }
    assert granted == {("", "services"), ("", "endpoints"), ("", "pods"), ("discovery.k8s.io", "endpointslices")}
    assert all(rule["verbs"] == ["get", "list", "watch"] for rule in role["rules"])
    assert binding["roleRef"] == {
        "apiGroup": "rbac.authorization.k8s.io",
        "kind": "Role",
        "name": role["metadata"]["name"],
    }
    assert binding["subjects"] == operator.named("monitoring-reader").inputs["subjects"]
    assert operator.one(GATE, "kueue-ready").urn in operator.named("monitoring-discovery").dependencies
    assert not [r for r in aks.registrations if r.name.startswith("monitoring-discovery")]


EXISTING_AKS_CASE = CASES / "Pulumi.monitoring-azure-on-existing-aks.yaml"


def test_on_an_existing_aks_cluster_managed_prometheus_gets_kueue_s_monitor_and_no_azure_resources():
    """The add-on already writes to the workspace its owner set up: nothing of Azure's side is created, and the
    missing alert rules are a warning rather than silence."""
    recording = recorded(EXISTING_AKS_CASE)
    monitor = the_monitor(recording, "azmonitoring.coreos.com")
    assert recording.one(METRICS_ADDON_CRD).urn in monitor.dependencies, "the add-on's CRD is served before it"
    assert recording.named("monitoring-reader").inputs["subjects"][0]["name"] == AMA_METRICS[1]
    assert not [r for r in recording.registrations if r.type.startswith("azure-native:monitor")]
    config = load_stack_config(render.read_stack_file(EXISTING_AKS_CASE)[1])
    [message] = [message for key, message in config.warnings() if key == "monitoring.collector"]
    assert "no alert rule is created there" in message
