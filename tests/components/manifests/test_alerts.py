"""The alert rules: a PrometheusRule the CRD accepts, whose every expression parses and reads only metrics and labels
every supported Kueue has, with the thresholds it is given, a severity and one line saying what to do."""

from __future__ import annotations

import jsonschema
import promql_parser
import pytest

from components.config.kueue_metrics import metric_of, missing_in
from components.manifests.alerts import WHY, alert_rules, prometheus_rule
from components.manifests.monitoring import PROMETHEUS_OPERATOR_API_VERSION, service_monitor
from tests.support.kueue_sources import VERIFIED
from tests.support.prometheus_rule import validate
from tests.support.promql import groupings, parse, selectors
from tests.support.promql_eval import firing, render
from tests.support.scrape import LOCAL_QUEUE, local_queue_status, scraped

JOB = "kueue-controller-manager-metrics-service"
RULES = alert_rules(kueue_namespace="kueue-system", scrape_job=JOB, pending_minutes=45, admission_check_minutes=20)
BY_NAME = {rule["alert"]: rule for rule in RULES}
PROMETHEUS_OWN = {"up"}
"""The series Prometheus writes for every target (https://prometheus.io/docs/concepts/jobs_instances/)."""


def test_the_rules_are_a_prometheus_rule_the_crd_accepts():
    manifest = prometheus_rule(
        "kueue",
        "monitoring",
        {"release": "kube-prometheus-stack"},
        kueue_namespace="kueue-system",
        scrape_job=JOB,
        pending_minutes=45,
        admission_check_minutes=20,
    )
    validate(manifest)
    labels = {"release": "kube-prometheus-stack"}
    assert manifest["metadata"] == {"name": "kueue", "namespace": "monitoring", "labels": labels}
    assert manifest["spec"]["groups"] == [{"name": "kueue", "rules": RULES}]


def test_the_vendored_schema_refuses_what_the_api_server_would_prune_or_refuse():
    good = prometheus_rule(
        "k", "m", {}, kueue_namespace="k", scrape_job=JOB, pending_minutes=1, admission_check_minutes=1
    )
    for broken in (
        {**RULES[0], "for": "45 minutes"},
        {**RULES[0], "severity": "warning"},
        {key: value for key, value in RULES[0].items() if key != "expr"},
        {**RULES[0], "record": "kueue:pending"},
    ):
        manifest = {**good, "spec": {"groups": [{"name": "kueue", "rules": [broken]}]}}
        with pytest.raises(jsonschema.ValidationError):
            validate(manifest)
    with pytest.raises(AssertionError, match="duplicate group names"):
        validate({**good, "spec": {"groups": [{"name": "kueue"}, {"name": "kueue"}]}})


def test_the_alert_names_are_unique():
    assert len(BY_NAME) == len(RULES)


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule["alert"])
@pytest.mark.parametrize("version", [version for version, _ in VERIFIED])
def test_every_rule_reads_only_metrics_and_labels_the_release_has(rule, version):
    assert missing_in([rule["expr"]], version) == set()
    for selector in selectors(rule["expr"]):
        if selector.series in PROMETHEUS_OWN:
            continue
        metric = metric_of(selector.series)
        assert selector.matchers.keys() <= metric.labels_in(version), selector
        assert selector.matchers["replica_role"] == ("NotEqual", "follower"), "only the leader admits"
    for labels, series in groupings(rule["expr"]):
        assert set(labels) <= set().union(*(metric_of(s).labels_in(version) for s in series))


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule["alert"])
def test_every_rule_has_a_wait_a_severity_and_one_line_saying_what_is_wrong_and_what_to_do(rule):
    promql_parser.parse_duration(rule["for"])
    assert rule["labels"] == {"severity": rule["labels"]["severity"]}
    assert rule["labels"]["severity"] in {"warning", "critical"}
    assert set(rule["annotations"]) == {"summary", "description"}
    for text in rule["annotations"].values():
        assert text and "\n" not in text and text.endswith(".")


@pytest.mark.parametrize(
    ("alert", "minutes", "series", "queue"),
    [
        (
            "KueueLocalQueuePendingTooLong",
            45,
            {"kueue_local_queue_pending_workloads", "kueue_local_queue_admitted_workloads_total"},
            "namespace, name",
        ),
        (
            "KueueAdmissionChecksStuck",
            20,
            {"kueue_reserving_active_workloads", "kueue_admitted_active_workloads", "kueue_admitted_workloads_total"},
            "cluster_queue",
        ),
    ],
)
def test_a_threshold_is_how_long_a_queue_waited_with_no_admission(alert, minutes, series, queue):
    """Pending (or holding quota unadmitted) for the threshold, unless the same queue admitted a workload lately."""
    rule = BY_NAME[alert]
    assert rule["for"] == f"{minutes}m" and f"{minutes} minutes" in rule["annotations"]["summary"]
    assert {s.series for s in selectors(rule["expr"])} == series
    tree = parse(rule["expr"])
    assert str(tree.op) == "unless" and str(tree.modifier) == f"on ({queue})"
    assert WHY in rule["annotations"]["description"]


def test_a_failing_provisioning_request_is_seen_through_the_evictions_its_check_causes():
    retried = selectors(BY_NAME["KueueProvisioningRequestRetrying"]["expr"])[0]
    rejected = selectors(BY_NAME["KueueProvisioningRequestRejected"]["expr"])[0]
    assert retried.series == rejected.series == "kueue_evicted_workloads_total"
    assert retried.matchers["reason"] == ("Equal", "AdmissionCheck") and "underlying_cause" not in retried.matchers
    assert rejected.matchers["reason"] == ("Equal", "Deactivated")
    assert rejected.matchers["underlying_cause"] == ("Equal", "AdmissionCheck")
    assert BY_NAME["KueueProvisioningRequestRejected"]["labels"]["severity"] == "critical"


def test_an_inactive_cluster_queue_is_its_pending_status():
    (selector,) = selectors(BY_NAME["KueueClusterQueueInactive"]["expr"])
    assert selector.series == "kueue_cluster_queue_status" and selector.matchers["status"] == ("Equal", "pending")


def test_the_controller_is_down_when_no_target_of_its_job_is_up_even_with_no_target_at_all():
    rule = BY_NAME["KueueControllerDown"]
    tree = parse(rule["expr"])
    assert isinstance(tree, promql_parser.Call) and tree.func.name == "absent"
    (selector,) = selectors(tree)
    assert selector.series == "up" and selector.matchers == {"job": ("Equal", JOB)}
    assert rule["labels"]["severity"] == "critical" and "kueue-system" in rule["annotations"]["description"]


def test_every_kubectl_hint_names_the_local_queue_s_namespace_after_the_scrape():
    """Each rule whose text says ``-n {{ $labels.namespace }}`` fires, on an inactive LocalQueue scraped through the
    ServiceMonitor, with the LocalQueue's namespace there, not Kueue's."""
    namespaced = [rule for rule in RULES if "-n {{ $labels.namespace }}" in rule["annotations"]["description"]]
    assert namespaced, "the LocalQueue alerts say where the queue is"
    monitor = service_monitor(
        PROMETHEUS_OPERATOR_API_VERSION, name="kueue-metrics", namespace="kueue-system", release_name="kueue"
    )
    storage = scraped(monitor, lambda t: local_queue_status("False"), until=20 * 60)
    for rule in namespaced:
        (alert,) = firing(rule, storage, range(0, 20 * 60 + 1, 60))[20 * 60]
        description = render(rule["annotations"]["description"], alert)
        assert f"-n {LOCAL_QUEUE['namespace']} {LOCAL_QUEUE['name']}" in description, (rule["alert"], description)
