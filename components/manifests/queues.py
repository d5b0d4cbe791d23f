"""The Kueue queue objects as plain dicts: the single source of every Namespace and Kueue object the stack creates.

Pure functions from the validated ``queues`` config to ``kueue.x-k8s.io/v1beta2`` objects.
They emit only what is set, so the default config renders the queue manifest of Azure's article
(https://learn.microsoft.com/en-us/azure/aks/configure-kueue-with-cluster-autoscaler) field for field.
Cluster-scoped kinds (everything but LocalQueue) carry no namespace.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from components.config.queues import QueuesConfig
from components.config.queues_objects import (
    PROVISIONING_CONTROLLER,
    ClusterQueueConfig,
    CohortConfig,
    LocalQueueConfig,
    ProvisioningCheckConfig,
    ResourceFlavorConfig,
)
from components.manifests.core import namespace

API_GROUP = "kueue.x-k8s.io"
"""The API group of every Kueue object."""
API_VERSION = f"{API_GROUP}/v1beta2"
"""The storage version since Kueue 0.16; v1beta1 is deprecated and must not be mixed in."""

Manifest = dict[str, Any]
"""A Kubernetes object as a plain dict, as the API spells it."""


def _fields(model: BaseModel, exclude: set[str] | None = None) -> dict[str, Any]:
    """A config model whose keys already mirror Kueue's field names, without the unset ones."""
    return model.model_dump(by_alias=True, exclude_none=True, exclude=exclude, mode="json")


def _object(kind: str, name: str, spec: dict[str, Any], namespace: str | None = None) -> Manifest:
    metadata = {"name": name} if namespace is None else {"name": name, "namespace": namespace}
    return {"apiVersion": API_VERSION, "kind": kind, "metadata": metadata, "spec": spec}


def resource_flavor(flavor: ResourceFlavorConfig) -> Manifest:
    spec: dict[str, Any] = {}
    if flavor.node_labels:
        spec["nodeLabels"] = dict(flavor.node_labels)
    if flavor.node_taints is not None:
        spec["nodeTaints"] = [_fields(taint) for taint in flavor.node_taints]
    if flavor.tolerations is not None:
        spec["tolerations"] = [_fields(toleration) for toleration in flavor.tolerations]
    return _object("ResourceFlavor", flavor.name, spec)


def provisioning_request_config(check: ProvisioningCheckConfig) -> Manifest:
    spec = _fields(check, exclude={"name", "config_name"})
    return _object("ProvisioningRequestConfig", check.config_name, spec)


def admission_check(check: ProvisioningCheckConfig) -> Manifest:
    parameters = {"apiGroup": API_GROUP, "kind": "ProvisioningRequestConfig", "name": check.config_name}
    return _object("AdmissionCheck", check.name, {"controllerName": PROVISIONING_CONTROLLER, "parameters": parameters})


def cohort(spec: CohortConfig) -> Manifest:
    return _object("Cohort", spec.name, _fields(spec, exclude={"name"}))


def cluster_queue(queue: ClusterQueueConfig) -> Manifest:
    """``namespaceSelector`` is always sent: ``{}`` admits every namespace, an absent selector would admit none."""
    return _object("ClusterQueue", queue.name, _fields(queue, exclude={"name"}))


def local_queue(queue: LocalQueueConfig) -> Manifest:
    return _object("LocalQueue", queue.name, {"clusterQueue": queue.cluster_queue}, namespace=queue.namespace)


def references(manifest: Manifest) -> list[tuple[str, str]]:
    """The ``(kind, name)`` of every object ``manifest`` names: created before it, deleted after it.

    Kueue tolerates dangling references (the queue just stays inactive), but its ``resource-in-use`` finalizers
    hold a flavor or check until no queue uses it, so deletion runs cleanly only in reverse reference order.
    """
    spec, kind = manifest.get("spec", {}), manifest["kind"]
    refs: list[tuple[str, str]] = []
    if kind == "AdmissionCheck":
        refs.append(("ProvisioningRequestConfig", spec["parameters"]["name"]))
    if kind in ("ClusterQueue", "Cohort"):
        groups = spec.get("resourceGroups", [])
        refs += [("ResourceFlavor", flavor["name"]) for group in groups for flavor in group["flavors"]]
        parent = spec.get("cohortName", spec.get("parentName"))
        refs += [("Cohort", parent)] if parent else []
        strategy = spec.get("admissionChecksStrategy", {"admissionChecks": []})
        refs += [("AdmissionCheck", check["name"]) for check in strategy["admissionChecks"]]
    if kind == "LocalQueue":
        refs += [("Namespace", manifest["metadata"]["namespace"]), ("ClusterQueue", spec["clusterQueue"])]
    return refs


def _parents_first(cohorts: list[CohortConfig]) -> list[CohortConfig]:
    """Cohorts ordered so a configured parent precedes its children (the config rules out cycles)."""
    parents = {config.name: config.parent_name for config in cohorts}

    def depth(name: str) -> int:
        parent = parents[name]
        return 1 + depth(parent) if parent in parents else 0

    return sorted(cohorts, key=lambda config: depth(config.name))


def queue_manifests(args: QueuesConfig) -> list[Manifest]:
    """Every object in apply order: what an object refers to comes before it."""
    return [
        *(namespace(name) for name in args.namespaces),
        *(resource_flavor(flavor) for flavor in args.resource_flavors),
        *(provisioning_request_config(check) for check in args.provisioning_checks),
        *(admission_check(check) for check in args.provisioning_checks),
        *(cohort(spec) for spec in _parents_first(args.cohorts)),
        *(cluster_queue(queue) for queue in args.cluster_queues),
        *(local_queue(queue) for queue in args.local_queues),
    ]
