"""A ServiceMonitor's scrape as Prometheus does it, into :class:`tests.support.promql_eval.Storage`: the labels a
target gets, how they meet the labels a scraped series carries, ``up`` and staleness.

- **Target labels.** prometheus-operator relabels each target of a ServiceMonitor endpoint to ``namespace`` (the
  Service's), ``service``, ``pod``, ``container``, ``endpoint`` (the port's name) and ``job`` (the Service's name, or
  its ``jobLabel``); Prometheus adds ``instance`` (the address)
  (``generateServiceMonitorConfig`` in
  https://github.com/prometheus-operator/prometheus-operator/blob/v0.93.0/pkg/prometheus/promcfg.go).
- **Clashes.** With ``honor_labels: false``, the operator's default, a scraped label that a target label also names
  is renamed ``exported_<name>`` and the target's value is stored; with ``true`` the scraped value is kept
  (``mutateSampleLabels`` in https://github.com/prometheus/prometheus/blob/main/scrape/scrape.go).
- **up and staleness.** Each scrape writes ``up`` (1, or 0 when it fails) with the target's labels; a series the
  target stopped exposing, or every series of a failed scrape, gets a staleness marker
  (https://prometheus.io/docs/prometheus/latest/querying/basics/#staleness).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tests.support.promql_eval import NAME, STALE, Labels, Storage, labels_of

Exposition = list[tuple[str, dict[str, str], float]]
"""What ``/metrics`` serves at one scrape: ``(metric name, its labels, value)`` per series."""


def target_labels(monitor: Mapping[str, Any], *, pod: str, address: str, container: str = "manager") -> dict[str, str]:
    """The labels prometheus-operator gives the target behind ``pod`` of ``monitor``'s first endpoint; the
    Service is the one the monitor's selector names (Kueue's metrics Service, in the monitor's namespace)."""
    spec = monitor["spec"]
    endpoint = spec["endpoints"][0]
    service = "kueue-controller-manager-metrics-service"
    return {
        "namespace": spec["namespaceSelector"]["matchNames"][0],
        "service": service,
        "pod": pod,
        "container": container,
        "endpoint": endpoint["port"],
        "job": service,
        "instance": address,
    }


def honor_labels(monitor: Mapping[str, Any]) -> bool:
    """The endpoint's ``honorLabels``; prometheus-operator writes ``honor_labels: false`` when it is unset."""
    return bool(monitor["spec"]["endpoints"][0].get("honorLabels", False))


def stored_labels(exposed: Mapping[str, str], target: Mapping[str, str], honor: bool) -> dict[str, str]:
    """``mutateSampleLabels``: the labels Prometheus stores for a series the target exposed with ``exposed``."""
    stored = dict(exposed)
    if honor:
        stored.update({name: value for name, value in target.items() if name not in exposed})
        return stored
    for name, value in target.items():
        if name in exposed:
            exported = f"exported_{name}"
            while exported in stored or exported in target:
                exported = f"exported_{exported}"
            stored[exported] = exposed[name]
        stored[name] = value
    return stored


class Target:
    """One scrape target of a ServiceMonitor, scraped into ``storage``."""

    def __init__(self, storage: Storage, monitor: Mapping[str, Any], *, pod: str, address: str) -> None:
        self.storage = storage
        self.labels = target_labels(monitor, pod=pod, address=address)
        self.honor = honor_labels(monitor)
        self._last: set[Labels] = set()

    def scrape(self, t: float, exposition: Exposition | None) -> None:
        """One scrape at ``t``; ``None`` is a failed one (``up`` 0, every series stale)."""
        self.storage.append({NAME: "up", **self.labels}, t, 0.0 if exposition is None else 1.0)
        now: set[Labels] = set()
        for name, exposed, value in exposition or ():
            stored = stored_labels({NAME: name, **exposed}, self.labels, self.honor)
            self.storage.append(stored, t, value)
            now.add(labels_of(stored))
        for gone in self._last - now:
            self.storage.append(dict(gone), t, STALE)
        self._last = now


SCRAPE_INTERVAL = 30.0
"""The scrape interval of kube-prometheus-stack and of AKS's metrics add-on."""


def scraped(monitor: Mapping[str, Any], exposition: Any, until: float, *, storage: Storage | None = None) -> Storage:
    """A storage holding the scrapes of one Kueue manager pod from 0 to ``until`` seconds every 30 s;
    ``exposition(t)`` is what ``/metrics`` serves at ``t`` (``None``: the scrape fails)."""
    storage = storage if storage is not None else Storage()
    target = Target(storage, monitor, pod="kueue-controller-manager-7d9f8-abcde", address="10.244.0.17:8443")
    t = 0.0
    while t <= until:
        target.scrape(t, exposition(t))
        t += SCRAPE_INTERVAL
    return storage


LOCAL_QUEUE = {"name": "default", "namespace": "team-a"}
"""A LocalQueue outside Kueue's namespace, as every team's is."""


def local_queue_status(active: str) -> Exposition:
    """Kueue's ``kueue_local_queue_status`` of :data:`LOCAL_QUEUE` with condition status ``active``: one series per
    status, 1 for the current one, each with the LocalQueue's own ``name`` and ``namespace`` (``ReportLocalQueueStatus``
    in https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/metrics/metrics.go)."""
    return [
        (
            "kueue_local_queue_status",
            {**LOCAL_QUEUE, "active": status, "replica_role": "leader"},
            float(status == active),
        )
        for status in ("True", "False", "Unknown")
    ]
