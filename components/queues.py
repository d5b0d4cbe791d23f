"""The Kueue queue objects on a cluster: namespaces, flavors, ProvisioningRequest gates, queues.

Every object comes from :mod:`components.manifests.queues`; this component only turns those dicts into resources and
orders them. No Kueue object is created before ``kueue_ready``: Kueue's webhooks must admit them, and they start
serving some seconds after the Helm release reports ready. On a cluster whose Kueue the stack does not install
(``kueue.install: false``) there is no gate: that Kueue is already serving. Each object also waits for
the objects it names (a queue for its flavors and checks, a LocalQueue for its namespace and ClusterQueue), so
``pulumi destroy`` removes them in reverse and Kueue's in-use finalizers never hold a deletion up.
"""

from __future__ import annotations

from typing import Any

import pulumi
from pulumi_kubernetes.core import v1 as core

from components.config.queues import QueuesConfig
from components.manifests.queues import namespace_label_patches, queue_manifests, references


def kueue_object(name: str, manifest: dict[str, Any], opts: pulumi.ResourceOptions) -> pulumi.CustomResource:
    """A Kueue object registered as pulumi-kubernetes registers any CRD instance (type
    ``kubernetes:<apiVersion>:<kind>``, the manifest as inputs), with every top-level field:
    ``apiextensions.CustomResource`` only takes ``spec``, and a WorkloadPriorityClass has ``value`` and ``description``
    instead."""
    return pulumi.CustomResource(f"kubernetes:{manifest['apiVersion']}:{manifest['kind']}", name, dict(manifest), opts)


class KueueQueues(pulumi.ComponentResource):
    """The ``queues`` section on one cluster; the Kubernetes provider comes in through ``opts``."""

    def __init__(
        self,
        name: str,
        args: QueuesConfig,
        kueue_ready: pulumi.Resource | None,
        namespace_labels: dict[str, str] | None = None,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        super().__init__("elastic-capacity:kueue:KueueQueues", name, None, opts)
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
            # Implicit Cohorts, existing namespaces and external objects are named but not created here: only created
            # objects become dependencies.
            gate = [kueue_ready] if kueue_ready is not None else []
            depends_on = [*gate, *(created[ref] for ref in references(manifest) if ref in created)]
            created[(kind, object_name)] = kueue_object(
                child_name, manifest, pulumi.ResourceOptions(parent=self, depends_on=depends_on)
            )
        self.register_outputs(
            {
                "clusterQueues": [object_name for kind, object_name in created if kind == "ClusterQueue"],
                "localQueues": [object_name for kind, object_name in created if kind == "LocalQueue"],
            }
        )
