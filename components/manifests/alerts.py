"""Prometheus alerting rules for Kueue, and the ``monitoring.coreos.com/v1`` PrometheusRule that carries them.

Every rule reads only metrics that Kueue 0.17.1 already registers (``components/config/kueue/metrics.py``; a test
holds every rule to every supported release), so the same rules serve each supported release. Kueue has no
ProvisioningRequest metric of its own: a ProvisioningRequest shows in Kueue's metrics as its admission check, through
the workloads that hold quota waiting on it and the evictions its failures cause
(https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/controller/admissionchecks/provisioning/controller.go: a
failed or expired request sets the check to ``Retry`` while retries remain, then ``Rejected``). Series of follower
replicas are left out: only the leader admits.
"""

from __future__ import annotations

from typing import Any

API_VERSION = "monitoring.coreos.com/v1"
_LEADER = 'replica_role!="follower"'
_PROGRESS_WINDOW = "5m"
"""How far back an admission counts as progress: at least two scrapes at the usual 30 s-1 m intervals."""
WHY = "python -m tools.why <namespace>/<job>"
"""The one-line diagnosis of a waiting Job."""


def _rule(alert: str, expr: str, wait: str, severity: str, summary: str, description: str) -> dict[str, Any]:
    return {
        "alert": alert,
        "expr": expr,
        "for": wait,
        "labels": {"severity": severity},
        "annotations": {"summary": summary, "description": description},
    }


def _increased(selector: str, by: str, window: str) -> str:
    """Some series of the counter ``selector`` grew in the last ``window``, summed ``by``.

    Kueue creates a counter's series at its first ``Inc()``, so at 1, with no zero before it
    (``WithLabelValues(...).Inc()`` in https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/metrics/metrics.go),
    and ``increase()`` needs two samples of a series to see a step: it never sees that first one. So a series that
    did not exist ``window`` ago counts as grown too, unless its target's scrape was failing then (``up == 0``: its
    series were stale, not new) or nothing was scraped then at all (a Prometheus installed on a running Kueue sees
    every counter appear at once).
    """
    new = (
        f"({selector} unless {selector} offset {window}) unless on (job, instance) (up offset {window} == 0) "
        f"and on () (count(up offset {window}) > 0)"
    )
    return f"(sum by ({by}) (increase({selector}[{window}])) > 0) or (sum by ({by}) ({new}) > 0)"


def _not_admitting(by: str, counter: str) -> str:
    """``unless`` some workload of the same queue was admitted lately: the queue is making progress."""
    return f"unless on ({by}) ({_increased(f'{counter}{{{_LEADER}}}', by, _PROGRESS_WINDOW)})"


def _idle_with_pending(pending_minutes: int) -> dict[str, Any]:
    """Pending workloads while none of the ClusterQueue's holds quota and none was admitted: not a backlog (a
    queue busy with running work holds quota, however long its queue), but a queue that cannot admit what waits in
    it. A ClusterQueue with no nominal quota at all only borrows, and waits for its cohort by design: left out
    (while its quota gauges are there, ``metrics.enableClusterQueueResources``)."""
    pending = f"sum by (cluster_queue) (kueue_pending_workloads{{{_LEADER}}}) > 0"
    holding = f"sum by (cluster_queue) (kueue_reserving_active_workloads{{{_LEADER}}}) > 0"
    borrow_only = f"max by (cluster_queue) (kueue_cluster_queue_nominal_quota{{{_LEADER}}}) == 0"
    return _rule(
        "KueueClusterQueueIdleWithPending",
        f"({pending}) unless on (cluster_queue) ({holding}) "
        f"{_not_admitting('cluster_queue', 'kueue_admitted_workloads_total')} "
        f"unless on (cluster_queue) ({borrow_only})",
        f"{pending_minutes}m",
        "warning",
        "ClusterQueue {{ $labels.cluster_queue }} has had pending workloads for "
        f"{pending_minutes} minutes while none of its workloads holds quota and none was admitted.",
        f"What waits does not fit its quota or flavors, or its quota is lent out: {WHY}.",
    )


def _admission_checks_stuck(check_minutes: int) -> dict[str, Any]:
    waiting = (
        f"sum by (cluster_queue) (kueue_reserving_active_workloads{{{_LEADER}}}) - "
        f"sum by (cluster_queue) (kueue_admitted_active_workloads{{{_LEADER}}})"
    )
    return _rule(
        "KueueAdmissionChecksStuck",
        f"(({waiting}) > 0) {_not_admitting('cluster_queue', 'kueue_admitted_workloads_total')}",
        f"{check_minutes}m",
        "warning",
        "ClusterQueue {{ $labels.cluster_queue }} has workloads holding quota but waiting on their admission checks "
        f"(a ProvisioningRequest not provisioned, or MultiKueue not dispatching) for {check_minutes} minutes, with "
        "none admitted.",
        "Read the pending check's message (a ProvisioningRequest's conditions and the cluster autoscaler's events, "
        f"or the MultiKueueCluster's Active condition): {WHY}.",
    )


_EVICTION_WINDOW = "15m"
"""How long an eviction alert holds after each eviction, then resolves."""


def _evicted(reason: str, cause: str | None = None) -> str:
    """Workloads evicted for ``reason`` (and ``cause``) in the last 15 minutes, by ClusterQueue."""
    cause_matcher = f', underlying_cause="{cause}"' if cause is not None else ""
    selector = f'kueue_evicted_workloads_total{{reason="{reason}"{cause_matcher}, {_LEADER}}}'
    return _increased(selector, "cluster_queue", _EVICTION_WINDOW)


def _provisioning_failures() -> list[dict[str, Any]]:
    return [
        _rule(
            "KueueProvisioningRequestRetrying",
            _evicted("AdmissionCheck"),
            "1m",
            "warning",
            "Workloads of ClusterQueue {{ $labels.cluster_queue }} were evicted in the last 15 minutes because an "
            "admission check asked to retry (a ProvisioningRequest failed or its booking expired, or a MultiKueue "
            "worker was lost).",
            f"Kueue retries after a backoff; read the check's message (a ProvisioningRequest's Failed "
            f"condition): {WHY}.",
        ),
        _rule(
            "KueueProvisioningRequestRejected",
            _evicted("Deactivated", "AdmissionCheck"),
            "1m",
            "critical",
            "Workloads of ClusterQueue {{ $labels.cluster_queue }} were deactivated in the last 15 minutes because an "
            "admission check rejected them (a ProvisioningRequest failed past its retries or its capacity was "
            "revoked, or MultiKueue gave up on its workers).",
            f"They will not run until reactivated (spec.active: true) once the capacity exists: {WHY}.",
        ),
    ]


def _inactive_queues() -> list[dict[str, Any]]:
    return [
        _rule(
            "KueueClusterQueueInactive",
            f'max by (cluster_queue) (kueue_cluster_queue_status{{status="pending", {_LEADER}}}) == 1',
            "10m",
            "warning",
            "ClusterQueue {{ $labels.cluster_queue }} is inactive and admits nothing: a ResourceFlavor or "
            "AdmissionCheck it names is missing or inactive, or it is stopped.",
            "Read its Active condition: kubectl get clusterqueue {{ $labels.cluster_queue }} -o yaml.",
        ),
        _rule(
            "KueueLocalQueueInactive",
            f'max by (namespace, name) (kueue_local_queue_status{{active="False", {_LEADER}}}) == 1',
            "10m",
            "warning",
            "LocalQueue {{ $labels.namespace }}/{{ $labels.name }} is inactive: its ClusterQueue is missing or "
            "inactive, or it is stopped.",
            "Read its Active condition: kubectl get localqueue -n {{ $labels.namespace }} {{ $labels.name }} -o yaml.",
        ),
    ]


def _controller_down(scrape_job: str, kueue_namespace: str) -> dict[str, Any]:
    """``absent(up == 1)``, not ``up == 0``: it also fires when the target is gone (no ready manager pod behind the
    metrics Service, or scraping not set up), when no ``up`` series exists for ``up == 0`` to match."""
    return _rule(
        "KueueControllerDown",
        f'absent(up{{job="{scrape_job}"}} == 1)',
        "5m",
        "critical",
        f"No Kueue controller manager has been scraped successfully (job {scrape_job}) for 5 minutes: nothing "
        "admits workloads.",
        f"Check the manager pods and their logs (kubectl get pods -n {kueue_namespace}), then the scraper's targets.",
    )


def alert_rules(
    *, kueue_namespace: str, scrape_job: str, pending_minutes: int, admission_check_minutes: int
) -> list[dict[str, Any]]:
    """Kueue's alerting rules as Prometheus rule objects; ``scrape_job`` is the ``job`` label of Kueue's metrics."""
    return [
        _idle_with_pending(pending_minutes),
        _admission_checks_stuck(admission_check_minutes),
        *_provisioning_failures(),
        *_inactive_queues(),
        _controller_down(scrape_job, kueue_namespace),
    ]


def prometheus_rule(
    name: str,
    namespace: str,
    labels: dict[str, str],
    *,
    kueue_namespace: str,
    scrape_job: str,
    pending_minutes: int,
    admission_check_minutes: int,
) -> dict[str, Any]:
    """The rules as one group of a PrometheusRule; ``labels`` must match the Prometheus's ``ruleSelector`` (with
    kube-prometheus-stack, ``release: <its release name>``)."""
    rules = alert_rules(
        kueue_namespace=kueue_namespace,
        scrape_job=scrape_job,
        pending_minutes=pending_minutes,
        admission_check_minutes=admission_check_minutes,
    )
    return {
        "apiVersion": API_VERSION,
        "kind": "PrometheusRule",
        "metadata": {"name": name, "namespace": namespace, "labels": dict(labels)},
        "spec": {"groups": [{"name": "kueue", "rules": rules}]},
    }
