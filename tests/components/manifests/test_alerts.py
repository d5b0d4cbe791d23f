"""The alert rules: a PrometheusRule the CRD accepts, whose every expression parses and reads only metrics and labels
every supported Kueue has, with the thresholds it is given, a severity and one line saying what to do."""

from __future__ import annotations

import jsonschema
import promql_parser
import pytest

from components.config.kueue.metrics import metric_of, missing_in
from components.manifests.alerts import WHY, alert_rules, prometheus_rule
from components.manifests.monitoring import PROMETHEUS_OPERATOR_API_VERSION, service_monitor
from tests.support.kueue_sources import VERIFIED
from tests.support.prometheus_rule import validate
from tests.support.promql import groupings, parse, selectors
from tests.support.promql_eval import firing, render
from tests.support.scrape import LOCAL_QUEUE, Exposition, local_queue_status, scraped

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
        known = set().union(*(metric_of(s).labels_in(version) for s in series if s not in PROMETHEUS_OWN))
        assert set(labels) <= known


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
            "KueueClusterQueueIdleWithPending",
            45,
            {
                "kueue_pending_workloads",
                "kueue_reserving_active_workloads",
                "kueue_admitted_workloads_total",
                "kueue_cluster_queue_nominal_quota",
                "up",
            },
            "cluster_queue",
        ),
        (
            "KueueAdmissionChecksStuck",
            20,
            {
                "kueue_reserving_active_workloads",
                "kueue_admitted_active_workloads",
                "kueue_admitted_workloads_total",
                "up",
            },
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


MONITOR = service_monitor(
    PROMETHEUS_OPERATOR_API_VERSION, name="kueue-metrics", namespace="kueue-system", release_name="kueue"
)
MINUTE = 60
HOUR = 60 * MINUTE
LEADER = {"replica_role": "leader"}
GPU = {"cluster_queue": "team-a-gpu"}


def timeline(alert: str, exposition, until: float = HOUR, failing: range | None = None) -> dict[float, list]:
    """The alert's firing label sets each minute, on a Kueue pod serving ``exposition(t)`` scraped every 30 s
    (its scrapes failing during ``failing`` seconds)."""
    served = (lambda t: None if int(t) in failing else exposition(t)) if failing is not None else exposition
    storage = scraped(MONITOR, served, until)
    return firing(BY_NAME[alert], storage, range(0, int(until) + 1, MINUTE))


def fired(moments: dict[float, list]) -> list[float]:
    return [t for t, alerts in moments.items() if alerts]


def evictions(reason: str, cause: str, count) -> Exposition:
    """``kueue_evicted_workloads_total`` of ClusterQueue team-a-gpu: absent until Kueue's first eviction for that
    reason, then created at 1 (``count(t)`` is ``None`` before it)."""

    def exposition(t: float) -> Exposition:
        value = count(t)
        labels = {**GPU, "reason": reason, "underlying_cause": cause, "priority_class": "", **LEADER}
        return [] if value is None else [("kueue_evicted_workloads_total", labels, float(value))]

    return exposition


EVICTION_ALERTS = [
    ("KueueProvisioningRequestRetrying", "AdmissionCheck", ""),
    ("KueueProvisioningRequestRejected", "Deactivated", "AdmissionCheck"),
]


@pytest.mark.parametrize(("alert", "reason", "cause"), EVICTION_ALERTS, ids=[a for a, _, _ in EVICTION_ALERTS])
def test_the_first_eviction_fires_though_kueue_creates_its_counter_at_1(alert, reason, cause):
    """Kueue's counter series appears at 1 with the first eviction: ``increase()`` alone never sees it."""
    moments = timeline(alert, evictions(reason, cause, lambda t: 1 if t >= 20 * MINUTE else None))
    assert fired(moments) and min(fired(moments)) <= 22 * MINUTE, "fires within its 1m wait of the first eviction"
    assert max(fired(moments)) <= 36 * MINUTE, "and resolves once the eviction is 15 minutes old"
    assert moments[22 * MINUTE] == [{**GPU, "severity": BY_NAME[alert]["labels"]["severity"]}]


@pytest.mark.parametrize(("alert", "reason", "cause"), EVICTION_ALERTS, ids=[a for a, _, _ in EVICTION_ALERTS])
def test_a_later_eviction_fires_and_a_flat_counter_does_not(alert, reason, cause):
    later = timeline(alert, evictions(reason, cause, lambda t: 3 if t < 30 * MINUTE else 4))
    assert fired(later) and 30 * MINUTE <= min(fired(later)) <= 32 * MINUTE
    assert not fired(timeline(alert, evictions(reason, cause, lambda t: 3)))


@pytest.mark.parametrize(("alert", "reason", "cause"), EVICTION_ALERTS, ids=[a for a, _, _ in EVICTION_ALERTS])
def test_a_counter_back_from_failed_scrapes_is_not_a_new_eviction(alert, reason, cause):
    """Two minutes of failed scrapes leave the series stale, not new: 15 minutes later it is no eviction."""
    moments = timeline(alert, evictions(reason, cause, lambda t: 3), failing=range(10 * MINUTE, 12 * MINUTE + 1))
    assert not fired(moments)


def queue(pending: int, reserving: int, admitted_active: int, admitted_total, nominal: float = 8.0):
    """A ClusterQueue's gauges, and its admissions counter (``admitted_total(t)``, ``None`` before the first)."""

    def exposition(t: float) -> Exposition:
        series = [
            ("kueue_pending_workloads", {**GPU, "status": "active", **LEADER}, float(pending)),
            ("kueue_pending_workloads", {**GPU, "status": "inadmissible", **LEADER}, 0.0),
            ("kueue_reserving_active_workloads", {**GPU, **LEADER}, float(reserving)),
            ("kueue_admitted_active_workloads", {**GPU, **LEADER}, float(admitted_active)),
            (
                "kueue_cluster_queue_nominal_quota",
                {**GPU, "cohort": "", "flavor": "gpu-t4", "resource": "nvidia.com/gpu", **LEADER},
                nominal,
            ),
            ("kueue_local_queue_pending_workloads", {**LOCAL_QUEUE, "status": "active", **LEADER}, float(pending)),
        ]
        total = admitted_total(t)
        if total is not None:
            series.append(("kueue_admitted_workloads_total", {**GPU, "priority_class": "", **LEADER}, float(total)))
            series.append(
                (
                    "kueue_local_queue_admitted_workloads_total",
                    {**LOCAL_QUEUE, "priority_class": "", **LEADER},
                    float(total),
                )
            )
        return series

    return exposition


def test_no_rule_pages_a_gpu_queue_busy_with_running_work_however_long_its_backlog():
    """Pending for hours behind long training runs that hold the quota is a healthy backlog."""
    busy = queue(pending=5, reserving=2, admitted_active=2, admitted_total=lambda t: 2)
    for rule in RULES:
        if rule["alert"] != "KueueControllerDown":
            assert not fired(timeline(rule["alert"], busy, until=2 * HOUR)), rule["alert"]


def test_a_queue_that_runs_nothing_while_work_waits_pages_after_the_pending_wait():
    idle = timeline("KueueClusterQueueIdleWithPending", queue(1, 0, 0, lambda t: None), until=HOUR)
    assert fired(idle) and min(fired(idle)) == 45 * MINUTE, "the stack's pendingMinutes (45 here)"
    borrow_only = queue(1, 0, 0, lambda t: None, nominal=0.0)
    assert not fired(timeline("KueueClusterQueueIdleWithPending", borrow_only, until=HOUR)), "it waits on its cohort"


def test_a_queue_s_first_admission_counts_as_progress():
    """Kueue creates ``kueue_admitted_workloads_total`` at 1 with a queue's first admission: that is progress, and
    holds the stuck-check alert off for the progress window."""
    first_at = 24 * MINUTE
    waiting = queue(pending=0, reserving=2, admitted_active=1, admitted_total=lambda t: 1 if t >= first_at else None)
    moments = timeline("KueueAdmissionChecksStuck", waiting, until=40 * MINUTE)
    assert moments[20 * MINUTE], "waiting since the start: past its 20 minutes"
    assert not moments[25 * MINUTE] and not moments[28 * MINUTE], "the first admission is progress"
