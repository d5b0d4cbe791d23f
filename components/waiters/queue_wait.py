"""Prove admission works: wait until Kueue reports every AdmissionCheck and ClusterQueue of the stack ``Active``.

Kueue accepts a ClusterQueue whose admission check can never pass: an AdmissionCheck nobody reconciles stays without
an ``Active`` condition, its ClusterQueue stays ``Active=False`` (``AdmissionCheckInactive``), and every Job waits
forever while ``pulumi up`` reports success. The classic cause is the ProvisioningRequest CRD missing when Kueue
started: Kueue only sets up its provisioning controller if the CRD exists at start-up
(https://kueue.sigs.k8s.io/docs/admission-check-controllers/provisioning/). pulumi-kubernetes' ``pulumi.com/waitFor``
annotation could wait for the condition, but its timeout names neither the cause nor the fix; this waiter does.

The same waiter proves a MultiKueue burst set-up: each MultiKueueCluster ``Active`` (connected to its worker), the
MultiKueue AdmissionCheck and the burst ClusterQueue ``Active``. A cluster that cannot connect is named with Kueue's
reason and message and what that reason means; the caller's ``hint`` says what to check on the way to the worker.

Shipped by value (:mod:`components.waiters.dynamic_by_value`): imports nothing from the project but
:data:`SHIPPED_MODULES`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import pulumi
from pulumi.dynamic import CreateResult

from components.waiters.dynamic_by_value import WaitProvider, reading
from components.waiters.kube_wait import (
    KUEUE_API_PATH,
    PROVISIONING_REQUEST_CRD,
    Cluster,
    ClusterReader,
    Conditions,
    RestCluster,
    condition,
    explained,
    is_not_found,
    poll,
    why_inactive,
)

SHIPPED_MODULES = (
    "components.waiters.dynamic_by_value",
    "components.waiters.kube_wait",
    "components.waiters.queue_wait",
)
KINDS = {
    "AdmissionCheck": "admissionchecks",
    "ClusterQueue": "clusterqueues",
    "MultiKueueCluster": "multikueueclusters",
}

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


def describe(kind: str, name: str, conditions: Conditions | None) -> str:
    """One object's state in a sentence: missing, never reconciled, or inactive with Kueue's reason and message."""
    if conditions is None:
        return f"{kind} {name} does not exist"
    active = condition(conditions, "Active")
    if active is None:
        return f"{kind} {name} has no Active condition: no controller has reconciled it"
    state = "cannot connect" if kind == "MultiKueueCluster" else "is inactive"
    return f"{kind} {name} {state}{explained(active)}{why_inactive(kind, active)}"


def diagnose(seen: Observed, *, hint: str, namespace: str) -> str:
    """One sentence per inactive object, then the likely cause and the commands that confirm and fix it: a MultiKueue
    set-up (the objects include MultiKueueClusters) fails on the way to a worker, a queue set-up at its
    ProvisioningRequest controller."""
    lines = "; ".join(describe(kind, name, seen[(kind, name)]) for kind, name in inactive(seen))
    if any(kind == "MultiKueueCluster" for kind, _ in seen):
        return (
            f"{lines}. The manager's Kueue ({namespace}/kueue-controller-manager) connects to each worker's API server "
            f"with the kubeconfig in the Secret {namespace}/<MultiKueueCluster name>. {hint}. Confirm: kubectl get "
            f"multikueueclusters; kubectl get multikueuecluster <name> -o yaml; kubectl -n {namespace} logs "
            "deployment/kueue-controller-manager. Kueue keeps retrying: once the cause is fixed, run pulumi up again."
        )
    restart = f"kubectl -n {namespace} rollout restart deployment"
    return (
        f"{lines}. Likely cause: Kueue's provisioning controller is not running because the "
        f"ProvisioningRequest CRD did not exist when Kueue started. {hint}. Confirm: kubectl get crd "
        f"{PROVISIONING_REQUEST_CRD}; kubectl get admissioncheck,clusterqueue -o yaml. Once the CRD "
        f"exists: {restart}, then run pulumi up again."
    )


class QueuesInactiveError(Exception):
    """Some AdmissionCheck, ClusterQueue or MultiKueueCluster stayed inactive until the deadline; the message is the
    diagnosis."""


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


@dataclasses.dataclass(frozen=True)
class QueuesActiveArgs:
    """What one activation wait watches, and how it ends."""

    objects: Sequence[Mapping[str, str]]
    """The objects to see Active, each ``{"kind": ..., "name": ...}``."""
    kueue_namespace: str
    kueue_revision: pulumi.Input[str]
    """What changes whenever Kueue restarts (or a worker's credential is renewed): the wait then runs again."""
    timeout_seconds: int
    on_inactive: str
    """``fail``, or ``warn`` (:attr:`QueuesActive.inactive` carries the diagnosis)."""
    hint: pulumi.Input[str]
    """What the diagnosis adds about where the missing piece comes from."""


class QueuesActive(pulumi.dynamic.Resource, module="kueue", name="QueuesActive"):
    """Completes once Kueue reports every listed object Active; otherwise fails, or warns, with the likely cause."""

    inactive: pulumi.Output[str]
    """Empty when every object is Active; else the diagnosis (only reached with ``on_inactive="warn"``)."""

    def __init__(
        self,
        resource_name: str,
        args: QueuesActiveArgs,
        reader: ClusterReader,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        props = {
            "objects": [dict(o) for o in args.objects],
            "kueueNamespace": args.kueue_namespace,
            "kueueRevision": args.kueue_revision,
            "timeoutSeconds": args.timeout_seconds,
            "onInactive": args.on_inactive,
            "hint": args.hint,
            "kubeconfig": pulumi.Output.secret(reader.kubeconfig),
            "inactive": None,
        }
        super().__init__(QueuesActiveProvider(), resource_name, props, reading(reader, opts))
