"""The Kueue queue objects as plain dicts: the single source of every Namespace and Kueue object the stack creates.

Pure functions from the validated ``queues`` config to ``kueue.x-k8s.io/v1beta2`` objects.
They emit only what is set, so the default config renders the queue manifest of Azure's article
(https://learn.microsoft.com/en-us/azure/aks/configure-kueue-with-cluster-autoscaler) field for field.
Cluster-scoped kinds (everything but LocalQueue) carry no namespace.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from components.config.queues.checks import API_GROUP, AdmissionCheckConfig, ProvisioningRequestConfigConfig
from components.config.queues.kueue_references import REFERENCES, creation_order, manifest_names, self_references
from components.config.queues.multikueue import MultiKueueClusterObject, MultiKueueConfigObject
from components.config.queues.objects import (
    ClusterQueueConfig,
    CohortConfig,
    LocalQueueConfig,
    ResourceFlavorConfig,
    TopologyConfig,
    WorkloadPriorityClassConfig,
)
from components.config.queues.queues import QueuesConfig
from components.manifests.core import namespace

API_VERSION = f"{API_GROUP}/v1beta2"
"""The storage version since Kueue 0.16; v1beta1 is deprecated and must not be mixed in."""

Manifest = dict[str, Any]
"""A Kubernetes object as a plain dict, as the API spells it."""


def _fields(model: BaseModel, exclude: set[str] | None = None) -> dict[str, Any]:
    """A config model whose keys already mirror Kueue's field names, without the unset ones and the metadata."""
    return model.model_dump(by_alias=True, exclude_none=True, exclude={*(exclude or ()), "labels"}, mode="json")


def _object(
    kind: str, name: str, spec: dict[str, Any], namespace: str | None = None, labels: dict[str, str] | None = None
) -> Manifest:
    """An empty ``spec`` is left out, as Kueue's own examples leave out an empty ResourceFlavor's or Cohort's."""
    metadata: dict[str, Any] = {"name": name}
    if namespace is not None:
        metadata["namespace"] = namespace
    if labels:
        metadata["labels"] = dict(labels)
    return {"apiVersion": API_VERSION, "kind": kind, "metadata": metadata} | ({"spec": spec} if spec else {})


def topology(spec: TopologyConfig) -> Manifest:
    return _object("Topology", spec.name, _fields(spec, exclude={"name"}))


def resource_flavor(flavor: ResourceFlavorConfig) -> Manifest:
    """Empty node labels are left out, as in Kueue's own flavors (``nodeLabels`` is an atomic map)."""
    spec = _fields(flavor, exclude={"name", "node_labels", "pool"})
    if flavor.node_labels:
        spec = {"nodeLabels": dict(flavor.node_labels), **spec}
    return _object("ResourceFlavor", flavor.name, spec)


def workload_priority_class(spec: WorkloadPriorityClassConfig) -> Manifest:
    """The one Kueue kind without a ``spec``: value and description sit at the top level."""
    return {"apiVersion": API_VERSION, "kind": "WorkloadPriorityClass", "metadata": {"name": spec.name}} | _fields(
        spec, exclude={"name"}
    )


def provisioning_request_config(config: ProvisioningRequestConfigConfig) -> Manifest:
    return _object("ProvisioningRequestConfig", config.name, _fields(config, exclude={"name"}))


def admission_check(check: AdmissionCheckConfig) -> Manifest:
    return _object("AdmissionCheck", check.name, _fields(check, exclude={"name"}))


def cohort(spec: CohortConfig) -> Manifest:
    return _object("Cohort", spec.name, _fields(spec, exclude={"name"}), labels=spec.labels)


def cluster_queue(queue: ClusterQueueConfig) -> Manifest:
    """``namespaceSelector: {}`` is sent as such (every namespace); only ``null`` leaves it out (no namespace)."""
    return _object("ClusterQueue", queue.name, _fields(queue, exclude={"name"}), labels=queue.labels)


def local_queue(queue: LocalQueueConfig) -> Manifest:
    spec = _fields(queue, exclude={"name", "namespace"})
    return _object("LocalQueue", queue.name, spec, namespace=queue.namespace, labels=queue.labels)


def multikueue_config(config: MultiKueueConfigObject) -> Manifest:
    return _object("MultiKueueConfig", config.name, _fields(config, exclude={"name"}))


def multikueue_cluster(cluster: MultiKueueClusterObject) -> Manifest:
    return _object("MultiKueueCluster", cluster.name, _fields(cluster, exclude={"name"}))


def references(manifest: Manifest) -> list[tuple[str, str]]:
    """The ``(kind, name)`` of every object ``manifest`` names, each once, as
    :data:`~components.config.queues.kueue_references.REFERENCES` declares them."""
    found = [(r.target, name) for r in REFERENCES for name in manifest_names(manifest, r)]
    return list(dict.fromkeys(found))


def in_creation_order(manifests: list[Manifest]) -> list[Manifest]:
    """``manifests`` with what an object names before it, so deletion in reverse order meets no ``resource-in-use``
    finalizer: kinds in :func:`~components.config.queues.kueue_references.creation_order`, and within a kind naming its
    own (Cohorts) a named one before those that name it."""
    rank = {kind: i for i, kind in enumerate(creation_order())}
    named_by: dict[tuple[str, str], list[str]] = {
        (m["kind"], m["metadata"]["name"]): [name for r in self_references(m["kind"]) for name in manifest_names(m, r)]
        for m in manifests
    }

    def depth(kind: str, name: str) -> int:
        return max((1 + depth(kind, n) for n in named_by.get((kind, name), []) if (kind, n) in named_by), default=0)

    return sorted(manifests, key=lambda m: (rank[m["kind"]], depth(m["kind"], m["metadata"]["name"])))


def namespace_label_patches(args: QueuesConfig, namespace_labels: dict[str, str] | None) -> list[Manifest]:
    """The labels Kueue's managed-jobs selector needs, for each existing namespace that holds a LocalQueue: patched
    onto the namespace, never the namespace itself (the stack does not own it)."""
    if not namespace_labels:
        return []
    hosting = {queue.namespace for queue in args.local_queues}
    return [namespace(name, namespace_labels) for name in args.existing_namespaces if name in hosting]


def queue_manifests(args: QueuesConfig, namespace_labels: dict[str, str] | None = None) -> list[Manifest]:
    """Every object in apply order (:func:`in_creation_order`). The namespaces the stack creates carry
    ``namespace_labels`` (what Kueue's managed-jobs selector selects them by)."""
    return in_creation_order(
        [
            *(namespace(name, namespace_labels) for name in args.namespaces),
            *(topology(spec) for spec in args.topologies),
            *(resource_flavor(flavor) for flavor in args.resource_flavors),
            *(workload_priority_class(spec) for spec in args.workload_priority_classes),
            *(provisioning_request_config(config) for config in args.all_provisioning_request_configs),
            *(admission_check(check) for check in args.all_admission_checks),
            *(cohort(spec) for spec in args.cohorts),
            *(cluster_queue(queue) for queue in args.cluster_queues),
            *(local_queue(queue) for queue in args.local_queues),
            *(multikueue_config(config) for config in args.multi_kueue_configs),
            *(multikueue_cluster(cluster) for cluster in args.multi_kueue_clusters),
        ]
    )
