"""Prove admission works: wait until Kueue reports every AdmissionCheck and ClusterQueue of the stack ``Active``.

Kueue accepts a ClusterQueue whose admission check can never pass: an AdmissionCheck nobody reconciles stays without
an ``Active`` condition, its ClusterQueue stays ``Active=False`` (``AdmissionCheckInactive``), and every Job waits
forever while ``pulumi up`` reports success. The classic cause is the ProvisioningRequest CRD missing when Kueue
started: Kueue only sets up its provisioning controller if the CRD exists at start-up
(https://kueue.sigs.k8s.io/docs/admission-check-controllers/provisioning/). pulumi-kubernetes' ``pulumi.com/waitFor``
annotation could wait for the condition, but its timeout names neither the cause nor the fix; this waiter does.

Shipped by value (:mod:`components.dynamic_by_value`): imports nothing from the project but :data:`SHIPPED_MODULES`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pulumi
from pulumi.dynamic import CreateResult

from components.dynamic_by_value import WaitProvider
from components.kube_wait import (
    KUEUE_API_PATH,
    PROVISIONING_REQUEST_CRD,
    Cluster,
    Conditions,
    RestCluster,
    condition,
    explained,
    is_not_found,
    poll,
)

SHIPPED_MODULES = ("components.dynamic_by_value", "components.kube_wait", "components.queue_wait")
KINDS = {"AdmissionCheck": "admissionchecks", "ClusterQueue": "clusterqueues"}

Observed = dict[tuple[str, str], Conditions | None]
"""``(kind, name)`` -> the object's conditions; ``None`` when the object does not exist."""


def observe(cluster: Cluster, objects: Sequence[tuple[str, str]]) -> Observed:
    seen: Observed = {}
    for kind, name in objects:
        try:
            found = cluster.get(f"{KUEUE_API_PATH}/{KINDS[kind]}/{name}")
        except Exception as error:
            if not is_not_found(error):
                raise
            seen[(kind, name)] = None
            continue
        seen[(kind, name)] = (found.get("status") or {}).get("conditions") or []
    return seen


def is_active(conditions: Conditions | None) -> bool:
    active = condition(conditions, "Active")
    return active is not None and active.get("status") == "True"


def inactive(seen: Observed) -> list[tuple[str, str]]:
    return [key for key, conditions in seen.items() if not is_active(conditions)]


def diagnose(seen: Observed, *, hint: str, namespace: str) -> str:
    """One sentence per inactive object, then the likely cause and the commands that confirm and fix it."""
    lines = []
    for kind, name in inactive(seen):
        conditions = seen[(kind, name)]
        if conditions is None:
            lines.append(f"{kind} {name} does not exist")
        elif condition(conditions, "Active") is None:
            lines.append(f"{kind} {name} has no Active condition: no controller has reconciled it")
        else:
            lines.append(f"{kind} {name} is inactive{explained(condition(conditions, 'Active'))}")
    restart = f"kubectl -n {namespace} rollout restart deployment"
    return (
        f"{'; '.join(lines)}. Likely cause: Kueue's provisioning controller is not running because the "
        f"ProvisioningRequest CRD did not exist when Kueue started. {hint}. Confirm: kubectl get crd "
        f"{PROVISIONING_REQUEST_CRD}; kubectl get admissioncheck,clusterqueue -o yaml. Once the CRD "
        f"exists: {restart}, then run pulumi up again."
    )


class QueuesInactiveError(Exception):
    """Some AdmissionCheck or ClusterQueue stayed inactive until the deadline; the message is the diagnosis."""


WATCHED_INPUTS = ("objects", "kueueRevision", "timeoutSeconds", "onInactive")
"""A different set of objects, a restarted Kueue or another deadline is a new proof; a rotated kubeconfig is not."""


class QueuesActiveProvider(WaitProvider):
    """Creating the resource means: wait until every object is Active."""

    shipped_modules = SHIPPED_MODULES
    watched_inputs = WATCHED_INPUTS

    def create(self, props: dict[str, Any]) -> CreateResult:
        objects = [(o["kind"], o["name"]) for o in props["objects"]]
        cluster = RestCluster(props["kubeconfig"])
        seen, _ = poll(lambda: observe(cluster, objects), lambda s: not inactive(s), float(props["timeoutSeconds"]))
        failing = inactive(seen)
        message = diagnose(seen, hint=props["hint"], namespace=props["kueueNamespace"]) if failing else ""
        if failing and props["onInactive"] == "fail":
            raise QueuesInactiveError(f"Waited {float(props['timeoutSeconds']):.0f}s. {message}")
        outs = {key: props.get(key) for key in WATCHED_INPUTS}
        return CreateResult(id_=props["kueueRevision"], outs={**outs, "inactive": message})


class QueuesActive(pulumi.dynamic.Resource, module="kueue", name="QueuesActive"):
    """Completes once Kueue reports every listed object Active; otherwise fails, or warns, with the likely cause."""

    inactive: pulumi.Output[str]
    """Empty when every object is Active; else the diagnosis (only reached with ``on_inactive="warn"``)."""

    def __init__(
        self,
        resource_name: str,
        *,
        objects: Sequence[Mapping[str, str]],
        kueue_namespace: str,
        kueue_revision: pulumi.Input[str],
        timeout_seconds: int,
        on_inactive: str,
        hint: str,
        kubeconfig: pulumi.Input[str],
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        props = {
            "objects": [dict(o) for o in objects],
            "kueueNamespace": kueue_namespace,
            "kueueRevision": kueue_revision,
            "timeoutSeconds": timeout_seconds,
            "onInactive": on_inactive,
            "hint": hint,
            "kubeconfig": pulumi.Output.secret(kubeconfig),
            "inactive": None,
        }
        super().__init__(QueuesActiveProvider(), resource_name, props, opts)
