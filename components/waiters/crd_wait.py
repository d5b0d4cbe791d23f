"""Wait until a CRD is served (created and ``Established``): before Kueue's chart, the ProvisioningRequest CRD; before
Kueue's ServiceMonitor for AKS's metrics add-on, the add-on's ``azmonitoring.coreos.com`` one.

Kueue sets up its ProvisioningRequest controller only if the CRD exists when it starts
(``ServerSupportsProvisioningRequest`` in https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/cmd/kueue/main.go),
and nothing public says how soon after the first autoscaling pool AKS serves it, so the chart waits for this.
Established, not merely created: Kueue looks the kind up through discovery, which lists a CRD only once it is
Established (https://github.com/kubernetes/apiextensions-apiserver/blob/v0.33.0/pkg/apiserver/customresource_discovery_controller.go).

A waiter of the program, not a Job in the cluster: it needs no image (the official kubectl image has no shell to
tell a missing CRD from a failed read: https://github.com/kubernetes/kubernetes/pull/120219), no RBAC for a
ServiceAccount, and it can wait on "not found" while failing at once, naming it, on any other error.

Shipped by value (:mod:`components.waiters.dynamic_by_value`): imports nothing from the project but
:data:`SHIPPED_MODULES`.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pulumi
from pulumi.dynamic import CreateResult

from components.waiters.dynamic_by_value import WaitProvider, reading
from components.waiters.kube_wait import (
    Cluster,
    ClusterReader,
    RestCluster,
    condition,
    explained,
    is_not_found,
    is_true,
    poll,
)

SHIPPED_MODULES = ("components.waiters.dynamic_by_value", "components.waiters.kube_wait", "components.waiters.crd_wait")
CRD_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
AZURE_MONITOR_SERVICE_MONITORS = "servicemonitors.azmonitoring.coreos.com"
"""The CRD of the ServiceMonitors AKS's metrics add-on reads
(https://learn.microsoft.com/azure/azure-monitor/containers/prometheus-metrics-scrape-crd), installed by the add-on
itself after the cluster turns it on; nothing public says how soon."""
WATCHED_INPUTS = ("crd", "kueueRevision", "timeoutSeconds")
"""Another CRD, a changed install (which restarts Kueue) or another deadline is a new wait; a rotated kubeconfig is
not."""


@dataclasses.dataclass(frozen=True)
class CrdWaitTarget:
    """What the wait reads the cluster with, and what it tells the operator about where the CRD comes from."""

    reader: ClusterReader
    hint: str


def observe(cluster: Cluster, crd: str) -> dict[str, Any] | None:
    """The CRD, or ``None`` while it does not exist; any other error is raised."""
    try:
        found: dict[str, Any] = cluster.get(f"{CRD_PATH}/{crd}")
    except Exception as error:
        if is_not_found(error):
            return None
        raise
    return found


def is_established(found: dict[str, Any] | None) -> bool:
    return found is not None and is_true((found.get("status") or {}).get("conditions"), "Established")


def timeout_message(crd: str, found: dict[str, Any] | None, *, waited_seconds: float, hint: str) -> str:
    """What the operator reads when the deadline passes: the chart waits for this, so Kueue has not started (or
    restarted) without the CRD, and running ``up`` again once it is there is the whole remedy."""
    if found is None:
        state = "does not exist"
    else:
        established = condition((found.get("status") or {}).get("conditions"), "Established")
        state = f"exists but is not Established{explained(established)}"
    return (
        f"Waited {waited_seconds:.0f}s (kueue.readinessGate.crdTimeoutSeconds): the CRD {crd} {state}, so Kueue is "
        "not installed (or upgraded) yet: it sets up its ProvisioningRequest controller only if the CRD exists when "
        f"it starts. {hint}. Check: kubectl get crd {crd}. Once the CRD is there, run pulumi up again; it installs "
        "Kueue. To install Kueue without the CRD, set queues.waitUntilActive.onInactive: warn."
    )


def metrics_addon_timeout_message(crd: str, found: dict[str, Any] | None, *, waited_seconds: float, hint: str) -> str:
    """What the operator reads when AKS's metrics add-on has not served its ServiceMonitor CRD by the deadline: the
    ServiceMonitor for Kueue's metrics waits for it, and everything else is already up."""
    state = "does not exist" if found is None else "exists but is not Established"
    return (
        f"Waited {waited_seconds:.0f}s (monitoring.azure.crdTimeoutSeconds): the CRD {crd} {state}, so Kueue's "
        f"ServiceMonitor is not created yet. {hint}. Check: kubectl get crd {crd}. Once the CRD is there, run pulumi "
        "up again; it creates the ServiceMonitor."
    )


class CrdNotServedError(Exception):
    """The CRD was not created and Established within the deadline; the message says what to do."""


class CrdEstablishedProvider(WaitProvider):
    """Creating the resource means: wait until the CRD is Established, or fail with what to do."""

    shipped_modules = SHIPPED_MODULES
    watched_inputs = WATCHED_INPUTS
    timeout_message = staticmethod(timeout_message)

    def create(self, props: dict[str, Any]) -> CreateResult:
        crd, timeout = props["crd"], float(props["timeoutSeconds"])
        cluster = RestCluster(props["kubeconfig"])
        found, established = poll(lambda: observe(cluster, crd), is_established, timeout, interval_seconds=5.0)
        if not established:
            raise CrdNotServedError(self.timeout_message(crd, found, waited_seconds=timeout, hint=props["hint"]))
        return CreateResult(id_=props["kueueRevision"], outs={key: props.get(key) for key in WATCHED_INPUTS})


class MetricsAddonCrdProvider(CrdEstablishedProvider):
    """The same wait, for the CRD of AKS's metrics add-on, with what to do about that one at the deadline."""

    timeout_message = staticmethod(metrics_addon_timeout_message)


class CrdEstablished(pulumi.dynamic.Resource, module="kueue", name="CrdEstablished"):
    """Completes once ``crd`` is Established; fails after ``timeout_seconds`` saying what to do.

    ``kueue_revision`` is the resource's id: a new one (another Kueue install) waits again."""

    wait_provider: type[CrdEstablishedProvider] = CrdEstablishedProvider

    def __init__(
        self,
        resource_name: str,
        *,
        crd: str,
        kueue_revision: str,
        timeout_seconds: int,
        target: CrdWaitTarget,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        props = {
            "crd": crd,
            "kueueRevision": kueue_revision,
            "timeoutSeconds": timeout_seconds,
            "hint": target.hint,
            "kubeconfig": pulumi.Output.secret(target.reader.kubeconfig),
        }
        super().__init__(self.wait_provider(), resource_name, props, reading(target.reader, opts))


class MetricsAddonCrd(CrdEstablished, module="monitoring", name="MetricsAddonCrd"):
    """Completes once AKS's metrics add-on serves its ServiceMonitor CRD (:data:`AZURE_MONITOR_SERVICE_MONITORS`)."""

    wait_provider = MetricsAddonCrdProvider
