"""The Grafana dashboard: a dashboard Grafana loads, whose every query parses and reads only metrics the installed
Kueue registers, with the labels it has; and the ConfigMap the sidecar picks it up from."""

from __future__ import annotations

import itertools
import json
import re

import pytest

from components.config.kueue.metrics import (
    CLUSTER_QUEUE_RESOURCES,
    WAIT_FOR_PODS_READY,
    UnknownMetric,
    metric_of,
    metrics_in,
)
from components.config.kueue.profiles import PROFILES, UnsupportedVersion
from components.manifests import monitoring
from components.manifests.monitoring import (
    CLUSTER_LABEL,
    DASHBOARD_FILE,
    DASHBOARD_KEY,
    dashboard,
    dashboard_config_map,
    panel_expressions,
    service_monitor,
    variable_queries,
)
from tests.support.kueue_sources import VERIFIED
from tests.support.promql import RATE_INTERVAL, groupings, label_values, parse, selectors, variables
from tests.support.promql_eval import Storage, evaluate
from tests.support.schemas import validate_core
from tests.support.scrape import LOCAL_QUEUE, local_queue_status, scraped

VERSIONS = [version for version, _ in VERIFIED]
LATEST = PROFILES["0.19"].latest
BOARD = json.loads(DASHBOARD_FILE.read_text())
PANELS = [panel for panel in BOARD["panels"] if panel["type"] != "row"]
EXPRESSIONS = [expr for panel in PANELS for expr in panel_expressions(panel)]
QUERIES = [*EXPRESSIONS, *(label_values(query)[0] for query in variable_queries(BOARD))]
FOLLOWER = ("NotEqual", "follower")


def test_the_dashboard_has_what_grafana_requires_of_a_provisioned_one():
    assert {"title", "uid", "schemaVersion", "panels", "templating"} <= BOARD.keys()
    assert isinstance(BOARD["schemaVersion"], int) and BOARD["schemaVersion"] >= 36
    assert BOARD["id"] is None, "a provisioned dashboard is found by uid; a fixed id collides with Grafana's own"
    ids = [panel["id"] for panel in BOARD["panels"]]
    assert len(ids) == len(set(ids))


def test_each_panel_has_a_type_a_title_a_place_and_queries_of_its_data_source():
    for panel in PANELS:
        assert {"type", "title", "description", "gridPos", "targets", "datasource"} <= panel.keys(), panel["title"]
        assert panel["datasource"] == {"type": "prometheus", "uid": "${datasource}"}
        refs = [target["refId"] for target in panel["targets"]]
        assert refs and len(refs) == len(set(refs)), panel["title"]
        assert all(target["expr"] and target["datasource"] == panel["datasource"] for target in panel["targets"])


def test_no_two_panels_overlap_and_each_fits_the_24_columns():
    cells: dict[tuple[int, int], str] = {}
    for panel in BOARD["panels"]:
        place = panel["gridPos"]
        assert place["x"] >= 0 and place["x"] + place["w"] <= 24, panel["title"]
        columns, lines = range(place["x"], place["x"] + place["w"]), range(place["y"], place["y"] + place["h"])
        for cell in itertools.product(columns, lines):
            assert cell not in cells, f"{panel['title']} overlaps {cells[cell]}"
            cells[cell] = panel["title"]


def test_the_template_variables_pick_the_data_source_the_cluster_the_cluster_queues_and_the_local_queues():
    variables_ = {var["name"]: var for var in BOARD["templating"]["list"]}
    assert variables_["datasource"]["type"] == "datasource" and variables_["datasource"]["query"] == "prometheus"
    assert label_values(variables_["cluster_queue"]["query"])[1] == "cluster_queue"
    assert label_values(variables_["namespace"]["query"])[1] == "namespace"
    assert label_values(variables_["cluster"]["query"]) == ("kueue_build_info", CLUSTER_LABEL)
    lq_selector, lq_label = label_values(variables_["local_queue"]["query"])
    assert (lq_selector, lq_label) == ('kueue_local_queue_status{cluster=~"$cluster", namespace=~"$namespace"}', "name")
    for name in ("cluster", "cluster_queue", "namespace", "local_queue"):
        assert variables_[name]["multi"] and variables_[name]["includeAll"] and variables_[name]["allValue"] == ".*"


def test_every_variable_a_query_uses_is_defined_or_grafana_own():
    defined = {var["name"] for var in BOARD["templating"]["list"]}
    assert set().union(*(variables(expr) for expr in QUERIES)) <= defined | {RATE_INTERVAL}


def test_every_query_parses_and_names_the_metrics_the_table_reads_from_it():
    disagreeing = {
        expr: (parsed, read)
        for expr in QUERIES
        if (parsed := {metric_of(s.series).name for s in selectors(parse(expr))})
        != (read := {metric.name for metric in metrics_in([expr])})
    }
    assert QUERIES and disagreeing == {}


def test_each_queue_metric_is_filtered_by_the_cluster_and_queue_variables_and_leaves_followers_out():
    cluster_variable = label_values(next(v["query"] for v in BOARD["templating"]["list"] if v["name"] == "cluster"))
    for query in QUERIES:
        for selector in selectors(query) if query != cluster_variable[0] else ():
            assert selector.matchers[CLUSTER_LABEL] == ("Re", "$cluster"), selector
    for selector in (s for expr in EXPRESSIONS for s in selectors(expr)):
        metric, matchers = metric_of(selector.series), selector.matchers
        if "replica_role" in metric.labels:
            assert matchers.get("replica_role") == FOLLOWER, selector
        if metric.name.startswith("kueue_local_queue_"):
            assert matchers["namespace"] == ("Re", "$namespace") and matchers["name"] == ("Re", "$local_queue")
        for label in {"cluster_queue", "preempting_cluster_queue"} & metric.labels - {"name"}:
            if not metric.name.startswith("kueue_local_queue_"):
                assert matchers[label] == ("Re", "$cluster_queue"), selector


@pytest.mark.parametrize("version", VERSIONS)
def test_every_panel_kept_for_a_release_reads_metrics_and_labels_it_has(version):
    for panel in dashboard(version)["panels"]:
        for expr in panel_expressions(panel):
            for selector in selectors(expr):
                metric = metric_of(selector.series)
                assert metric.in_release(version), f"{panel['title']}: {metric.name} is not in Kueue {version}"
                assert selector.matchers.keys() <= metric.labels_in(version) | {CLUSTER_LABEL}, selector
            for labels, series in groupings(expr):
                known = set().union(*(metric_of(s).labels_in(version) for s in series)) | {"le"}
                assert set(labels) <= known, f"{panel['title']}: by {labels}"


NEWER_THAN_0_17 = {
    "Why workloads are not admitted",
    "Why LocalQueue workloads are not admitted",
    "Resources requested by pending workloads",
}
"""The panels of the metrics 0.18 added: the unadmitted-workloads gauges (0.18.5) and the pending resources (0.18.0)."""


@pytest.mark.parametrize(
    ("version", "dropped"),
    [("0.17.1", NEWER_THAN_0_17), ("0.17.8", NEWER_THAN_0_17), ("0.18.6", set()), ("0.19.2", set())],
)
def test_a_release_loses_only_the_panels_of_metrics_added_after_it(version, dropped):
    kept = {panel["title"] for panel in dashboard(version)["panels"]}
    assert {panel["title"] for panel in BOARD["panels"]} - kept == dropped


def test_the_releases_checked_are_every_verified_patch():
    assert VERSIONS == ["0.17.1", "0.17.8", "0.18.6", "0.19.2"]


def test_a_panel_fed_only_by_an_opt_in_gate_or_setting_says_so():
    defaults = PROFILES["0.19"].gates.defaults()
    for panel in PANELS:
        for metric in metrics_in(panel_expressions(panel)):
            for need in metric.needs:
                if need in (CLUSTER_QUEUE_RESOURCES, WAIT_FOR_PODS_READY) or not defaults.get(need, True):
                    assert need in panel["description"], f"{panel['title']} does not name {need}"


def test_the_dashboard_answers_the_questions_of_each_queue():
    read = {metric.name for metric in metrics_in(EXPRESSIONS)}
    for scope in ("kueue_", "kueue_local_queue_"):
        for question in ("pending_workloads", "admission_wait_time_seconds", "admission_checks_wait_time_seconds"):
            assert f"{scope}{question}" in read
        assert f"{scope}unadmitted_workloads" in read and f"{scope}admitted_active_workloads" in read
        assert f"{scope}evicted_workloads_total" in read
    quota = {"kueue_cluster_queue_resource_usage", "kueue_cluster_queue_nominal_quota"}
    assert "kueue_cluster_queue_weighted_share" in read, "fair sharing: who is over its share"
    assert {"kueue_preempted_workloads_total", *quota} <= read


def test_a_metric_no_release_has_is_an_error_not_a_dropped_panel(tmp_path, monkeypatch):
    typo = dict(BOARD, panels=[dict(PANELS[0], targets=[{"refId": "A", "expr": "kueue_pending_workload"}])])
    (tmp_path / "board.json").write_text(json.dumps(typo))
    monkeypatch.setattr(monitoring, "DASHBOARD_FILE", tmp_path / "board.json")
    with pytest.raises(UnknownMetric, match="kueue_pending_workload is not a metric"):
        dashboard(LATEST)


def test_an_unsupported_release_gets_no_dashboard():
    with pytest.raises(UnsupportedVersion):
        dashboard("0.20.0")


@pytest.mark.parametrize("version", ["0.17.8", LATEST])
def test_the_config_map_holds_the_release_dashboard_under_the_sidecar_label(version):
    config_map = dashboard_config_map(version, "monitoring")
    validate_core(config_map, "1.33")
    assert config_map["metadata"] == {
        "name": "kueue-dashboard",
        "namespace": "monitoring",
        "labels": {"grafana_dashboard": "1"},
    }
    assert list(config_map["data"]) == [DASHBOARD_KEY] and DASHBOARD_KEY.endswith(".json")
    assert json.loads(config_map["data"][DASHBOARD_KEY]) == dashboard(version)
    assert len(json.dumps(config_map).encode()) < 1024 * 1024, "a ConfigMap holds at most 1 MiB"


def test_the_config_map_is_the_same_on_every_build():
    assert dashboard_config_map(LATEST, "monitoring") == dashboard_config_map(LATEST, "monitoring")
    assert dashboard_config_map(LATEST, "grafana", "queues")["metadata"]["name"] == "queues"


def test_the_namespace_and_local_queue_variables_list_the_local_queue_s_own_after_the_scrape():
    """Scraped through the ServiceMonitor, a LocalQueue series keeps its namespace, so ``$namespace`` lists it
    (not Kueue's ``kueue-system``) and ``$local_queue``, filtered by it, lists the queue."""
    monitor = service_monitor(
        monitoring.PROMETHEUS_OPERATOR_API_VERSION, name="kueue-metrics", namespace="kueue-system", release_name="kueue"
    )
    storage = scraped(monitor, lambda t: local_queue_status("True"), until=60)
    queries = {var["name"]: label_values(var["query"]) for var in BOARD["templating"]["list"] if var["type"] == "query"}
    selector, label = queries["namespace"]
    assert storage.label_values(selector.replace("$cluster", ".*"), label, 60) == {LOCAL_QUEUE["namespace"]}
    selector, label = queries["local_queue"]
    chosen = selector.replace("$namespace", LOCAL_QUEUE["namespace"]).replace("$cluster", ".*")
    assert storage.label_values(chosen, label, 60) == {LOCAL_QUEUE["name"]}


def chosen(expr: str) -> str:
    """``expr`` with every dashboard variable at ``All``."""
    return re.sub(r"\$(cluster_queue|cluster|namespace|local_queue)\b", ".*", expr)


def test_quota_usage_is_never_divided_by_a_zero_quota():
    """A CPU flavor has no GPU quota: its GPU usage over its 0 GPU quota is NaN, a line of nothing."""
    storage = Storage()
    for resource, quota, used in (("cpu", 8.0, 4.0), ("nvidia.com/gpu", 0.0, 0.0)):
        labels = {
            "cluster_queue": "team-a",
            "flavor": "spot-cpu",
            "resource": resource,
            "cohort": "",
            "replica_role": "leader",
        }
        for t in (0.0, 30.0):
            storage.append({"__name__": "kueue_cluster_queue_nominal_quota", **labels}, t, quota)
            storage.append({"__name__": "kueue_cluster_queue_resource_usage", **labels}, t, used)
    (panel,) = [p for p in PANELS if p["title"] == "Quota usage against nominal quota"]
    (expr,) = panel_expressions(panel)
    values = {s.labels["resource"]: s.value for s in evaluate(chosen(expr), storage, 30.0)}
    assert values == {"cpu": 0.5}


def test_each_usage_and_quota_panel_plots_one_unit():
    """Cores, bytes and GPUs on one axis leave the GPU lines flat at the bottom: each panel pins its resources."""
    for panel in PANELS:
        reads = {metric.name for metric in metrics_in(panel_expressions(panel))}
        if "kueue_cluster_queue_nominal_quota" in reads and panel["fieldConfig"]["defaults"]["unit"] != "percentunit":
            for expr in panel_expressions(panel):
                assert all("resource" in s.matchers for s in selectors(expr)), panel["title"]


def test_with_no_cluster_label_the_cluster_variable_s_all_shows_every_series():
    storage = Storage()
    storage.append({"__name__": "kueue_build_info", "git_version": "v0.19.2"}, 0.0, 1.0)
    (panel,) = [p for p in PANELS if p["title"] == "Kueue version"]
    (expr,) = panel_expressions(panel)
    assert [s.labels for s in evaluate(chosen(expr), storage, 0.0)] == [{"git_version": "v0.19.2"}]
