"""The table of Kueue's metrics: consistent with the gate tables and the manager Configuration it names, and the
helpers the dashboard and the alert rules are checked with."""

from __future__ import annotations

import re

import pytest

from components.config.kueue.metrics import (
    CLUSTER_QUEUE_RESOURCES,
    LOCAL_QUEUE_GATE,
    METRICS,
    UNADMITTED_GATE,
    UnknownMetric,
    metric_of,
    metrics_in,
    missing_in,
)
from components.config.kueue.profiles import PROFILES, UnsupportedVersion, profile_for
from tests.support.kueue_sources import VERIFIED, source_dir

RELEASE = re.compile(r"^0\.(1[7-9])\.\d+$")


def test_each_metric_has_a_kueue_name_a_prometheus_type_and_a_release_after_the_oldest_read():
    malformed = [
        metric.name
        for metric in METRICS.values()
        if not re.fullmatch(r"(multi)?kueue_[a-z_]+", metric.name)
        or metric.kind not in {"counter", "gauge", "histogram"}
        or (metric.kind == "counter" and not metric.name.endswith("_total"))
        or (metric.since is not None and (not RELEASE.match(metric.since) or metric.in_release("0.17.1")))
        or not metric.in_release(PROFILES["0.19"].latest)
    ]
    assert METRICS and malformed == []


@pytest.mark.parametrize("metric", [m for m in METRICS.values() if m.since], ids=lambda m: m.name)
def test_a_metric_is_absent_before_the_release_that_added_it(metric):
    major, minor, patch = (int(part) for part in metric.since.split("."))
    earlier = f"{major}.{minor}.{patch - 1}" if patch else f"{major}.{minor - 1}.99"
    assert metric.in_release(metric.since) and not metric.in_release(earlier)


@pytest.mark.parametrize(("version", "profile"), VERIFIED, ids=[v for v, _ in VERIFIED])
def test_every_gate_a_metric_needs_is_a_gate_of_each_release_that_has_the_metric(version, profile):
    for metric in METRICS.values():
        if metric.in_release(version):
            gates = {need for need in metric.needs if need[0].isupper()}
            assert gates <= profile.gates.known, metric.name


def test_the_gates_named_in_the_table_are_on_or_off_by_default_as_it_says():
    for profile in PROFILES.values():
        assert LOCAL_QUEUE_GATE in profile.gates.default_on
    for minor in ("0.18", "0.19"):
        assert UNADMITTED_GATE in PROFILES[minor].gates.default_off


@pytest.mark.parametrize(("version", "profile"), VERIFIED, ids=[v for v, _ in VERIFIED])
def test_the_manager_setting_for_queue_resource_metrics_is_a_field_of_the_configuration_types(version, profile):
    text = (source_dir(version) / "src/configuration_types.go").read_text()
    section, field = CLUSTER_QUEUE_RESOURCES.split(".")
    assert f'json:"{section},omitempty"' in text and f'json:"{field},omitempty"' in text


def test_a_histogram_is_read_through_its_bucket_sum_and_count_series():
    wait = METRICS["kueue_admission_wait_time_seconds"]
    assert {metric_of(f"{wait.name}{suffix}") for suffix in ("", "_bucket", "_sum", "_count")} == {wait}


@pytest.mark.parametrize("series", ["kueue_pending_workloads_bucket", "kueue_pending_workload", "kueue_local_queue"])
def test_a_series_of_no_metric_is_refused_with_the_supported_releases(series):
    with pytest.raises(UnknownMetric, match=rf"^{series} is not a metric of any supported Kueue \(0\.17\.1\+"):
        metric_of(series)


def test_the_metrics_of_an_expression_are_the_kueue_names_in_it_and_not_prometheus_own():
    expr = (
        'absent(up{job="k"} == 1) or '
        "sum(rate(kueue_admission_wait_time_seconds_bucket[5m])) > multikueue_workloads_admitted_total"
    )
    assert {m.name for m in metrics_in([expr])} == {
        "kueue_admission_wait_time_seconds",
        "multikueue_workloads_admitted_total",
    }


def test_the_metrics_a_release_lacks_are_those_added_after_it():
    exprs = ["kueue_unadmitted_workloads", "kueue_cluster_queue_resource_pending + kueue_pending_workloads"]
    assert missing_in(exprs, "0.17.8") == {"kueue_unadmitted_workloads", "kueue_cluster_queue_resource_pending"}
    assert missing_in(exprs, "0.18.6") == set()


def test_an_unsupported_release_is_refused_as_the_chart_version_is():
    with pytest.raises(UnsupportedVersion) as raised:
        missing_in(["kueue_pending_workloads"], "0.16.3")
    with pytest.raises(UnsupportedVersion) as expected:
        profile_for("0.16.3")
    assert str(raised.value) == str(expected.value)


def test_a_renamed_label_is_read_with_the_name_of_the_release():
    once = METRICS["kueue_evicted_workloads_once_total"]
    assert "detailed_reason" in once.labels_in("0.17.8") and "underlying_cause" not in once.labels_in("0.17.8")
    assert "underlying_cause" in once.labels_in("0.18.6") and "detailed_reason" not in once.labels_in("0.18.6")


def test_every_metric_but_build_info_tells_the_replica_role():
    assert [m.name for m in METRICS.values() if "replica_role" not in m.labels] == ["kueue_build_info"]
