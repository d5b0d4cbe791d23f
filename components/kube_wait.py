"""What the waiters share: reading a cluster over its REST paths, conditions, a bounded poll, and the names of the
objects they read.

The waiters run inside Pulumi's dynamic-provider process, shipped by value (:mod:`components.dynamic_by_value`), so
this module imports nothing from the project (and no Pulumi), which also lets the pure manifest builders use its
constants. Reading objects by REST path keeps the waiters' fakes in tests to a dictionary of paths.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, TypeVar

import yaml

PROVISIONING_REQUEST_CRD = "provisioningrequests.autoscaling.x-k8s.io"
"""The CRD of ProvisioningRequests, served by the cluster autoscaler's side (kubernetes/autoscaler), not by Kueue."""

KUEUE_API_PATH = "/apis/kueue.x-k8s.io/v1beta2"
"""Where the API server serves Kueue's objects, in the storage version the stack writes."""

MULTIKUEUE_CLUSTER_REASONS = {
    "ClientConnectionFailed": "the manager could not reach or use the worker's API server: its egress must reach the "
    "worker's public endpoint, the token must be valid, and the worker must serve Kueue's v1beta2 API",
    "BadKubeConfig": "the Secret it names is missing, or has no key 'kubeconfig' holding a kubeconfig",
    "InsecureKubeConfig": "the kubeconfig uses an exec plugin, a token or CA file, basic auth or "
    "insecure-skip-tls-verify; MultiKueue accepts an inline token and certificate-authority-data only",
    "BadClusterProfile": "its ClusterProfile could not be read",
    "BadRestConfig": "no client could be built from the kubeconfig (its server or credentials)",
}
"""Why a MultiKueueCluster is ``Active=False``, by the reasons Kueue 0.17 sets
(https://github.com/kubernetes-sigs/kueue/blob/v0.17.8/pkg/controller/admissionchecks/multikueue/multikueuecluster.go)."""
MULTIKUEUE_CHECK_REASONS = {
    "NoUsableClusters": "none of its MultiKueueClusters is connected",
    "BadConfig": "its MultiKueueConfig is missing or names no cluster",
}
"""Why a MultiKueue AdmissionCheck is ``Active=False`` (``SomeActiveClusters`` keeps it Active with some workers
down; https://github.com/kubernetes-sigs/kueue/blob/v0.17.8/pkg/controller/admissionchecks/multikueue/admissioncheck.go)."""

Conditions = Sequence[Mapping[str, Any]]
Seen = TypeVar("Seen")


class Cluster(Protocol):
    """Read access to a cluster: ``get`` one object, ``list`` a collection's items, both by REST path."""

    def get(self, path: str) -> Any: ...

    def list(self, path: str, label_selector: str | None = None) -> list[Any]: ...


def is_not_found(error: Exception) -> bool:
    return getattr(error, "status", None) == 404


class RestCluster:
    """:class:`Cluster` over the official Kubernetes client, which also runs exec credential plugins (kubelogin)."""

    def __init__(self, kubeconfig: str) -> None:
        from kubernetes import config

        self.api_client = config.new_client_from_config_dict(yaml.safe_load(kubeconfig), persist_config=False)

    def _call(self, path: str, query: list[tuple[str, str]]) -> Any:
        return self.api_client.call_api(
            path,
            "GET",
            query_params=query,
            header_params={"Accept": "application/json"},
            response_types_map={200: "object"},
            auth_settings=["BearerToken"],
            _return_http_data_only=True,
        )

    def get(self, path: str) -> Any:
        return self._call(path, [])

    def list(self, path: str, label_selector: str | None = None) -> list[Any]:
        query = [("labelSelector", label_selector)] if label_selector else []
        return self._call(path, query).get("items") or []


def condition(conditions: Conditions | None, type_: str) -> Mapping[str, Any] | None:
    return next((c for c in conditions or () if c.get("type") == type_), None)


def is_true(conditions: Conditions | None, type_: str) -> bool:
    found = condition(conditions, type_)
    return found is not None and found.get("status") == "True"


def explained(found: Mapping[str, Any] | None) -> str:
    """`` (reason: message)`` of a condition, or nothing."""
    if found is None:
        return ""
    parts = [str(found[k]) for k in ("reason", "message") if found.get(k)]
    return f" ({': '.join(parts)})" if parts else ""


def why_inactive(kind: str, found: Mapping[str, Any] | None) -> str:
    """``"; <what the reason means>"`` for a MultiKueue object's known ``Active=False`` reason, else nothing."""
    reasons = {"MultiKueueCluster": MULTIKUEUE_CLUSTER_REASONS, "AdmissionCheck": MULTIKUEUE_CHECK_REASONS}
    meaning = reasons.get(kind, {}).get(str((found or {}).get("reason")))
    return f"; {meaning}" if meaning else ""


def poll(
    observe: Callable[[], Seen],
    finished: Callable[[Seen], bool],
    timeout_seconds: float,
    *,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
    interval_seconds: float = 10.0,
) -> tuple[Seen, bool]:
    """Observe until ``finished`` or the deadline; return the last observation and whether it finished.

    Never sleeps past the deadline, and always observes once more at it.
    """
    deadline = clock() + timeout_seconds
    while True:
        seen = observe()
        if finished(seen):
            return seen, True
        if clock() >= deadline:
            return seen, False
        sleep(min(interval_seconds, max(deadline - clock(), 0.0)))
