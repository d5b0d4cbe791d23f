"""Kueue's Prometheus metrics as data: the one list the dashboard and the alert rules are checked against.

Read from ``InitMetricVectors`` and ``Register`` of ``pkg/metrics/metrics.go`` at every supported floor and newest
patch and at the patches that added metrics:
https://github.com/kubernetes-sigs/kueue/blob/v0.17.1/pkg/metrics/metrics.go,
https://github.com/kubernetes-sigs/kueue/blob/v0.17.8/pkg/metrics/metrics.go,
https://github.com/kubernetes-sigs/kueue/blob/v0.18.0/pkg/metrics/metrics.go,
https://github.com/kubernetes-sigs/kueue/blob/v0.18.5/pkg/metrics/metrics.go,
https://github.com/kubernetes-sigs/kueue/blob/v0.18.6/pkg/metrics/metrics.go,
https://github.com/kubernetes-sigs/kueue/blob/v0.19.0/pkg/metrics/metrics.go and
https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/metrics/metrics.go.
A metric is listed only if ``Register`` registers it (``replaced_workload_slices_total`` is defined but registered by
no supported release, so it never appears on ``/metrics``). What fills a registered metric with series is in
``needs``: the feature gate checked in ``Register`` or at the call sites (``pkg/cache/queue/manager.go``), or the
manager Configuration field (``metrics.enableClusterQueueResources``, read by ``cmd/kueue/main.go``).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from types import MappingProxyType

from components.config.kueue.profiles import profile_for, supported_versions

LOCAL_QUEUE_GATE = "LocalQueueMetrics"
"""Registers every ``kueue_local_queue_*`` metric; beta and on by default since 0.17 (the manager also needs
``metrics.localQueueMetrics.enable``, which its defaulting turns on)."""
UNADMITTED_GATE = "UnadmittedWorkloadsObservability"
"""Fills the ``*_unadmitted_workloads`` gauges: alpha in 0.18, beta but off by default in 0.19."""
CLUSTER_QUEUE_RESOURCES = "metrics.enableClusterQueueResources"
"""The manager Configuration field that turns on the ClusterQueue quota and usage gauges; unset by the chart."""
WAIT_FOR_PODS_READY = "waitForPodsReady"
"""The manager Configuration section that makes Kueue observe pods becoming ready; on by default from 0.19."""

HISTOGRAM_SERIES = ("_bucket", "_sum", "_count")
"""The series a Prometheus histogram is exposed as."""


@dataclasses.dataclass(frozen=True)
class KueueMetric:
    """One metric as the manager exposes it."""

    name: str
    """The full name, with its ``kueue_`` (or ``multikueue_``) subsystem prefix."""
    kind: str
    """``counter``, ``gauge`` or ``histogram``."""
    labels: frozenset[str]
    """Its labels at the newest supported patch (``metrics.customLabels`` add ``custom_*`` ones to queue metrics)."""
    since: str | None = None
    """The first release that registers it; ``None``: already in 0.17.1, the oldest supported patch."""
    needs: tuple[str, ...] = ()
    """Feature gates (CamelCase) and manager Configuration fields without which it has no series."""
    labels_before: tuple[str, frozenset[str]] | None = None
    """(the release from which ``labels`` hold, the labels before it), for a metric whose labels changed."""

    def in_release(self, version: str) -> bool:
        return self.since is None or _key(version) >= _key(self.since)

    def labels_in(self, version: str) -> frozenset[str]:
        if self.labels_before is not None and _key(version) < _key(self.labels_before[0]):
            return self.labels_before[1]
        return self.labels


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


_ROLE = "replica_role"
"""On every metric but ``kueue_build_info``: ``leader``, ``follower`` or ``standalone``."""


def _m(name: str, kind: str, labels: str, since: str | None = None, needs: tuple[str, ...] = ()) -> KueueMetric:
    if name.startswith("kueue_local_queue_"):
        needs = (LOCAL_QUEUE_GATE, *needs)
    return KueueMetric(name, kind, frozenset({*labels.split(), _ROLE}), since, needs)


_CQ_RESOURCES = (CLUSTER_QUEUE_RESOURCES,)
_PODS_READY = (WAIT_FOR_PODS_READY,)
_UNADMITTED = (UNADMITTED_GATE,)
_COHORTS = ("MetricsForCohorts",)
_CQ_RESOURCE_LABELS = "cohort cluster_queue flavor resource"

_METRICS = (
    _m("kueue_admission_attempts_total", "counter", "result"),
    _m("kueue_admission_attempt_duration_seconds", "histogram", "result"),
    _m("multikueue_workloads_dispatched_total", "counter", "cluster_queue cluster", since="0.19.0"),
    _m("multikueue_workloads_admitted_total", "counter", "cluster_queue cluster", since="0.19.0"),
    _m("kueue_admission_cycle_preemption_skips", "gauge", "cluster_queue"),
    KueueMetric(
        "kueue_build_info",
        "gauge",
        frozenset({"git_version", "git_commit", "build_date", "go_version", "compiler", "platform"}),
    ),
    _m("kueue_pending_workloads", "gauge", "cluster_queue status"),
    _m("kueue_local_queue_pending_workloads", "gauge", "name namespace status"),
    _m("kueue_finished_workloads", "gauge", "cluster_queue"),
    _m("kueue_local_queue_finished_workloads", "gauge", "name namespace"),
    _m("kueue_quota_reserved_workloads_total", "counter", "cluster_queue priority_class"),
    _m("kueue_local_queue_quota_reserved_workloads_total", "counter", "name namespace priority_class"),
    _m("kueue_finished_workloads_total", "counter", "cluster_queue priority_class"),
    _m("kueue_local_queue_finished_workloads_total", "counter", "name namespace priority_class"),
    _m("kueue_quota_reserved_wait_time_seconds", "histogram", "cluster_queue priority_class"),
    _m("kueue_pods_ready_to_evicted_time_seconds", "histogram", "cluster_queue reason underlying_cause"),
    _m("kueue_local_queue_quota_reserved_wait_time_seconds", "histogram", "name namespace priority_class"),
    _m("kueue_admitted_workloads_total", "counter", "cluster_queue priority_class"),
    _m("kueue_local_queue_admitted_workloads_total", "counter", "name namespace priority_class"),
    _m("kueue_admission_wait_time_seconds", "histogram", "cluster_queue priority_class"),
    _m("kueue_ready_wait_time_seconds", "histogram", "cluster_queue priority_class", needs=_PODS_READY),
    _m("kueue_admitted_until_ready_wait_time_seconds", "histogram", "cluster_queue priority_class", needs=_PODS_READY),
    _m("kueue_local_queue_admission_wait_time_seconds", "histogram", "name namespace priority_class"),
    _m("kueue_admission_checks_wait_time_seconds", "histogram", "cluster_queue priority_class"),
    _m("kueue_local_queue_admission_checks_wait_time_seconds", "histogram", "name namespace priority_class"),
    _m("kueue_local_queue_ready_wait_time_seconds", "histogram", "name namespace priority_class", needs=_PODS_READY),
    _m(
        "kueue_local_queue_admitted_until_ready_wait_time_seconds",
        "histogram",
        "name namespace priority_class",
        needs=_PODS_READY,
    ),
    _m(
        "kueue_workload_creation_latency_seconds",
        "histogram",
        "job_kind",
        since="0.18.0",
        needs=("MetricForWorkloadCreationLatency",),
    ),
    # 0.19.0 and 0.19.1 register it without replica_role; 0.19.2, the supported floor, has it.
    _m("kueue_pod_scheduling_gate_removal_seconds", "histogram", "name cluster_queue is_group", since="0.19.0"),
    _m("kueue_evicted_workloads_total", "counter", "cluster_queue reason underlying_cause priority_class"),
    _m("kueue_local_queue_evicted_workloads_total", "counter", "name namespace reason underlying_cause priority_class"),
    dataclasses.replace(
        _m("kueue_evicted_workloads_once_total", "counter", "cluster_queue reason underlying_cause priority_class"),
        labels_before=("0.18.0", frozenset({"cluster_queue", "reason", "detailed_reason", "priority_class", _ROLE})),
    ),
    _m("kueue_preempted_workloads_total", "counter", "preempting_cluster_queue reason"),
    _m("kueue_workload_eviction_latency_seconds", "histogram", "cluster_queue reason", since="0.18.0"),
    _m("kueue_reserving_active_workloads", "gauge", "cluster_queue"),
    _m("kueue_local_queue_reserving_active_workloads", "gauge", "name namespace"),
    _m("kueue_admitted_active_workloads", "gauge", "cluster_queue"),
    _m("kueue_local_queue_admitted_active_workloads", "gauge", "name namespace"),
    _m("kueue_cluster_queue_status", "gauge", "cluster_queue status"),
    _m("kueue_local_queue_status", "gauge", "name namespace active"),
    _m("kueue_unadmitted_workloads", "gauge", "cluster_queue reason underlying_cause", "0.18.5", _UNADMITTED),
    _m(
        "kueue_local_queue_unadmitted_workloads",
        "gauge",
        "name namespace cluster_queue reason underlying_cause",
        since="0.18.5",
        needs=_UNADMITTED,
    ),
    _m("kueue_cluster_queue_resource_reservation", "gauge", _CQ_RESOURCE_LABELS, needs=_CQ_RESOURCES),
    _m("kueue_cluster_queue_resource_pending", "gauge", "cluster_queue resource", "0.18.0", _CQ_RESOURCES),
    _m("kueue_cluster_queue_resource_usage", "gauge", _CQ_RESOURCE_LABELS, needs=_CQ_RESOURCES),
    _m("kueue_local_queue_resource_reservation", "gauge", "name namespace flavor resource"),
    _m("kueue_local_queue_resource_usage", "gauge", "name namespace flavor resource"),
    _m("kueue_local_queue_admission_fair_sharing_usage", "gauge", "name namespace cluster_queue", since="0.19.0"),
    _m("kueue_cluster_queue_nominal_quota", "gauge", _CQ_RESOURCE_LABELS, needs=_CQ_RESOURCES),
    _m("kueue_cluster_queue_borrowing_limit", "gauge", _CQ_RESOURCE_LABELS, needs=_CQ_RESOURCES),
    _m("kueue_cluster_queue_lending_limit", "gauge", _CQ_RESOURCE_LABELS, needs=_CQ_RESOURCES),
    _m("kueue_cluster_queue_weighted_share", "gauge", "cluster_queue cohort", needs=(*_CQ_RESOURCES, "fairSharing")),
    _m("kueue_cohort_weighted_share", "gauge", "cohort"),
    _m("kueue_cohort_subtree_quota", "gauge", "cohort flavor resource"),
    _m("kueue_cohort_subtree_admitted_workloads_total", "counter", "cohort priority_class"),
    _m("kueue_cohort_subtree_resource_reservations", "gauge", "cohort flavor resource"),
    _m("kueue_cohort_subtree_admitted_active_workloads", "gauge", "cohort"),
    _m("kueue_cohort_info", "gauge", "cohort parent_cohort root_cohort", since="0.18.0", needs=_COHORTS),
    _m("kueue_cluster_queue_info", "gauge", "cluster_queue parent_cohort root_cohort", since="0.18.0", needs=_COHORTS),
)

METRICS = MappingProxyType({metric.name: metric for metric in _METRICS})
"""Every metric a supported Kueue registers, by name."""

_NAME = re.compile(r"\b(?:multi)?kueue_[a-z_]+\b")


class UnknownMetric(ValueError):
    """An expression names a Kueue metric no supported release has: a typo, never a version difference."""


def metric_of(series: str) -> KueueMetric:
    """The metric a series name belongs to: a histogram's ``_bucket``/``_sum``/``_count`` series map to it."""
    if series in METRICS:
        return METRICS[series]
    for suffix in HISTOGRAM_SERIES:
        base = series.removesuffix(suffix)
        if base != series and base in METRICS and METRICS[base].kind == "histogram":
            return METRICS[base]
    raise UnknownMetric(f"{series} is not a metric of any supported Kueue ({supported_versions()})")


def metrics_in(expressions: Iterable[str]) -> frozenset[KueueMetric]:
    """The Kueue metrics PromQL ``expressions`` read (the names with Kueue's prefixes; ``up`` is Prometheus's)."""
    return frozenset(metric_of(name) for expr in expressions for name in _NAME.findall(expr))


def missing_in(expressions: Iterable[str], kueue_version: str) -> frozenset[str]:
    """The metrics ``expressions`` read that Kueue ``kueue_version`` does not register yet."""
    profile_for(kueue_version)  # refuses a release no profile covers, saying which are supported
    return frozenset(metric.name for metric in metrics_in(expressions) if not metric.in_release(kueue_version))
