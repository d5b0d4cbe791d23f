"""The Kueue queue objects on a cluster: namespaces, flavors, ProvisioningRequest gates, queues.

Every object comes from :mod:`components.manifests.queues`; this component only turns those dicts into resources and
orders them. No Kueue object is created before ``kueue_ready``: Kueue's webhooks must admit them, and they start
serving some seconds after the Helm release reports ready. On a cluster whose Kueue the stack does not install
(``kueue.install: false``) there is no gate: that Kueue is already serving. Besides the gate, a LocalQueue waits
only for its namespace: Kueue reconciles the objects a queue names in whatever order they arrive, so waiting for them
would only put a chain of creates on the critical path of ``pulumi up`` (BENCHMARKS.md).
"""

from __future__ import annotations

from typing import Any

import pulumi
from pulumi_kubernetes.core import v1 as core

from components.cluster_target import QUEUES, ClusterTarget
from components.config.queues.queues import QueuesConfig
from components.manifests.queues import namespace_label_patches, queue_manifests, references


def kueue_object(name: str, manifest: dict[str, Any], opts: pulumi.ResourceOptions) -> pulumi.CustomResource:
    """A Kueue object registered as pulumi-kubernetes registers any CRD instance (type
    ``kubernetes:<apiVersion>:<kind>``, the manifest as inputs), with every top-level field:
    ``apiextensions.CustomResource`` only takes ``spec``, and a WorkloadPriorityClass has ``value`` and ``description``
    instead."""
    return pulumi.CustomResource(f"kubernetes:{manifest['apiVersion']}:{manifest['kind']}", name, dict(manifest), opts)


class KueueQueues(pulumi.ComponentResource):
    """The ``queues`` section on one cluster, in its queues layer."""

    def __init__(
        self,
        name: str,
        args: QueuesConfig,
        target: ClusterTarget,
        kueue_ready: pulumi.Resource | None,
        namespace_labels: dict[str, str] | None = None,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        on_cluster = pulumi.ResourceOptions.merge(target.on(QUEUES), opts)
        super().__init__("elastic-capacity:kueue:KueueQueues", name, None, on_cluster)
        created: dict[tuple[str, str], pulumi.Resource] = {}
        for patch in namespace_label_patches(args, namespace_labels):
            # Server-side apply of the labels alone: destroy removes them again and leaves the namespace be.
            created[("Namespace", patch["metadata"]["name"])] = core.NamespacePatch(
                f"{name}-namespacelabels-{patch['metadata']['name']}",
                metadata=patch["metadata"],
                opts=pulumi.ResourceOptions(parent=self),
            )
        for manifest in queue_manifests(args, namespace_labels):
            kind, metadata = manifest["kind"], manifest["metadata"]
            object_name = "/".join(filter(None, (metadata.get("namespace"), metadata["name"])))
            child_name = f"{name}-{kind.lower()}-{object_name}"
            if kind == "Namespace":
                created[(kind, object_name)] = core.Namespace(
                    child_name, metadata=metadata, opts=pulumi.ResourceOptions(parent=self)
                )
                continue
            # Only the namespace: Kueue takes the objects a queue names in any order (a ClusterQueue is inactive until
            # its flavors and checks exist, and Kueue's resource-in-use finalizers hold a flavor or check until no
            # queue uses it, so destroy works in any order too); waiting for them would only lengthen `up`.
            gate = [kueue_ready] if kueue_ready is not None else []
            namespaces = [created[ref] for ref in references(manifest) if ref[0] == "Namespace" and ref in created]
            depends_on = [*gate, *namespaces]
            created[(kind, object_name)] = kueue_object(
                child_name, manifest, pulumi.ResourceOptions(parent=self, depends_on=depends_on)
            )
        self.objects = created
        """Every object created here by ``(kind, [namespace/]name)``: what a waiter or a Job needs in particular."""
        self.register_outputs(
            {
                "clusterQueues": [object_name for kind, object_name in created if kind == "ClusterQueue"],
                "localQueues": [object_name for kind, object_name in created if kind == "LocalQueue"],
            }
        )
