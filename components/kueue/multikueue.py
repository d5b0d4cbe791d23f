"""The MultiKueue manager: a worker's kubeconfig Secret and MultiKueueCluster each, the MultiKueueConfig, and (with
``burstQueue``) the MultiKueue AdmissionCheck with the burst ClusterQueue and LocalQueue; then the proof that every
worker is connected.

Every object comes from :mod:`components.manifests.multikueue`, the burst queue objects from the queue builders
(:func:`components.manifests.queues.queue_manifests`); this component registers them on the manager's
Kubernetes provider (given in ``opts``) and orders them. Every Kueue object waits for the manager's Kueue readiness
gate (its webhooks admit them). A MultiKueueCluster waits for its Secret and for what its worker hands over as
``ready`` (the worker's Kueue serving, its queues and the manager's identity there): MultiKueue backs off for minutes
after a failed connection, and a MultiKueueCluster whose Secret is missing stays ``BadKubeConfig``, which Kueue treats
unlike a lost connection (its Workloads are never retried after a manager restart,
https://github.com/kubernetes-sigs/kueue/issues/13238). The manager's provider updates Secrets in place
(``enableSecretMutable``, see :func:`components.cluster_target.cluster_target`), so a new token never leaves a
MultiKueueCluster without its Secret. Each object waits for the objects it names, so Kueue's in-use finalizers never
hold a deletion up.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

import pulumi
from pulumi_kubernetes.core import v1 as core

from components.config.multikueue.multikueue import MultiKueueConfig
from components.config.multikueue.workers import WorkerPlan
from components.config.queues.queues import QueuesConfig
from components.kueue.queues import kueue_object
from components.manifests import multikueue as manifests
from components.manifests.multikueue_worker import cluster_endpoint
from components.manifests.queues import queue_manifests, references
from components.waiters.kube_wait import ClusterReader
from components.waiters.queue_wait import QueuesActive, QueuesActiveArgs

BURST_QUEUE_CHILDREN = {
    "Namespace": "namespace",
    "ResourceFlavor": "flavor",
    "AdmissionCheck": "admissioncheck",
    "ClusterQueue": "clusterqueue",
    "LocalQueue": "localqueue",
}
"""The resource name (after the component's) of the burst set-up's one object of each kind: a deployed stack's
burst queue objects keep their URNs only under these names."""


class WorkerAccess(NamedTuple):
    """What the manager needs of one worker."""

    kubeconfig: pulumi.Input[str]
    """A kubeconfig MultiKueue accepts: an inline token and CA data, the worker's endpoint; a secret."""
    generation: pulumi.Input[str]
    """Changes whenever the credential does (a renewed token, a new given kubeconfig): a new connection to prove."""
    ready: Sequence[pulumi.Resource] = ()
    """What must exist on the worker before the manager connects."""


def given_kubeconfig(kubeconfig: pulumi.Input[str]) -> WorkerAccess:
    """A ``kubeconfig`` worker: the stack's secret as it is, its generation a digest of it (which reveals nothing)."""
    generation = pulumi.Output.from_input(kubeconfig).apply(lambda text: hashlib.sha256(text.encode()).hexdigest()[:16])
    return WorkerAccess(pulumi.Output.secret(kubeconfig), generation)


class Proof(NamedTuple):
    """How ``pulumi up`` proves the set-up on the manager."""

    reader: ClusterReader
    """How the waiter reads the objects on the manager."""
    kueue_revision: pulumi.Input[str]
    """What changes whenever the manager's Kueue restarts (its readiness gate's name): the proof then runs again."""
    checks: Sequence[str]
    """The MultiKueue AdmissionChecks to see Active: the section's own, or the ``queues`` section's."""
    cluster_queues: Sequence[str]
    """The ClusterQueues with one of those checks."""


def connection_hint(endpoints: Mapping[str, str]) -> str:
    """What to check when a worker cannot connect, with the endpoint each MultiKueueCluster calls."""
    listed = ", ".join(f"{name} -> {endpoint}" for name, endpoint in endpoints.items())
    return (
        f"Check the network path: the manager's egress IP must reach each worker's API endpoint ({listed}); an API "
        "server restricted by an access control list must allow that IP "
        "(https://www.alibabacloud.com/help/en/ack/cluster-access-control). Check the token: an expired, revoked or "
        "deleted token answers 401; pulumi up issues a new one when a third of its lifetime is left, and a new "
        "multiKueue.tokenRotation value revokes and reissues it at once"
    )


@dataclasses.dataclass(frozen=True)
class MultiKueueBurstArgs:
    """The ``multiKueue`` section on the manager: its Kueue, its workers' access, and how the set-up is proven."""

    config: MultiKueueConfig
    queues: QueuesConfig
    """The section's own burst queue objects (:func:`~components.config.multikueue.workers.burst_queues`); none with
    ``burstQueue: false``."""
    kueue_ready: pulumi.Resource
    """The manager's readiness gate: every Kueue object waits for it."""
    kueue_namespace: str
    namespace_labels: dict[str, str]
    """The labels of namespaces Kueue manages, which the burst namespace gets."""
    workers: Sequence[tuple[WorkerPlan, WorkerAccess]]
    proof: Proof


class MultiKueueBurst(pulumi.ComponentResource):
    """The ``multiKueue`` section on the manager; the manager's Kubernetes provider comes in through ``opts``. Its
    last child proves the set-up: every MultiKueueCluster, the MultiKueue AdmissionChecks and their ClusterQueues
    Active, within ``waitTimeoutSeconds``."""

    def __init__(
        self,
        name: str,
        args: MultiKueueBurstArgs,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        super().__init__("elastic-capacity:kueue:MultiKueueBurst", name, None, opts)
        config, workers, proof, kueue_namespace = args.config, args.workers, args.proof, args.kueue_namespace
        kueue_ready = args.kueue_ready

        def after(*resources: pulumi.Resource) -> pulumi.ResourceOptions:
            return pulumi.ResourceOptions(parent=self, depends_on=[kueue_ready, *resources])

        clusters = [self._cluster(name, plan, access, kueue_namespace, after) for plan, access in workers]
        # Kueue reconciles these in any order (like the queues section's objects); a MultiKueueCluster alone waits for
        # its Secret: one created without it never joins after a manager restart (kueue#13238).
        names = [plan.cluster_name for plan, _ in workers]
        kueue_object(f"{name}-config", manifests.multikueue_config(config, names), after())
        proven: list[pulumi.Resource] = list(clusters)
        proven += self._burst_queue(name, args.queues, args.namespace_labels, after)
        endpoints = pulumi.Output.all(
            **{
                plan.cluster_name: pulumi.Output.from_input(access.kubeconfig).apply(lambda kc: cluster_endpoint(kc)[0])
                for plan, access in workers
            }
        )
        wait = QueuesActiveArgs(
            objects=[
                *({"kind": "MultiKueueCluster", "name": cluster} for cluster in names),
                *({"kind": "AdmissionCheck", "name": check} for check in proof.checks),
                *({"kind": "ClusterQueue", "name": queue} for queue in proof.cluster_queues),
            ],
            kueue_namespace=kueue_namespace,
            # A renewed or rotated credential is a new connection to prove.
            kueue_revision=pulumi.Output.concat(
                proof.kueue_revision, *(pulumi.Output.concat("/", access.generation) for _, access in workers)
            ),
            timeout_seconds=config.wait_timeout_seconds,
            on_inactive="fail",
            hint=endpoints.apply(connection_hint),
        )
        QueuesActive(f"{name}-active", wait, proof.reader, pulumi.ResourceOptions(parent=self, depends_on=proven))
        self.register_outputs({"multiKueueClusters": names})

    def _burst_queue(
        self,
        name: str,
        queues: QueuesConfig,
        namespace_labels: dict[str, str],
        after: Callable[..., pulumi.ResourceOptions],
    ) -> list[pulumi.Resource]:
        """The section's own burst queue objects, as the queue builders render them: the namespace, the empty
        flavor, the MultiKueue check, the ClusterQueue and the LocalQueue, each under its name of
        :data:`BURST_QUEUE_CHILDREN`; returns what the proof watches (the check and the ClusterQueue)."""
        created: dict[tuple[str, str], pulumi.Resource] = {}
        for manifest in queue_manifests(queues, namespace_labels):
            kind, metadata = manifest["kind"], manifest["metadata"]
            child = f"{name}-{BURST_QUEUE_CHILDREN[kind]}"
            if kind == "Namespace":
                resource: pulumi.Resource = core.Namespace(
                    child, metadata=metadata, opts=pulumi.ResourceOptions(parent=self)
                )
            else:
                namespaces = [created[ref] for ref in references(manifest) if ref[0] == "Namespace" and ref in created]
                resource = kueue_object(child, manifest, after(*namespaces))
            created[(kind, metadata["name"])] = resource
        return [resource for (kind, _), resource in created.items() if kind in ("AdmissionCheck", "ClusterQueue")]

    def _cluster(
        self,
        name: str,
        plan: WorkerPlan,
        access: WorkerAccess,
        kueue_namespace: str,
        after: Callable[..., pulumi.ResourceOptions],
    ) -> pulumi.CustomResource:
        """One worker's kubeconfig Secret and the MultiKueueCluster that reads it, after the worker is ready."""
        secret = manifests.kubeconfig_secret(plan.secret_name, kueue_namespace)
        kubeconfig = core.Secret(
            f"{name}-secret-{plan.label}",
            metadata=secret["metadata"],
            type=secret["type"],
            string_data={manifests.KUBECONFIG_KEY: pulumi.Output.secret(access.kubeconfig)},
            opts=after(),
        )
        cluster = manifests.multikueue_cluster(plan.cluster_name, plan.secret_name)
        return kueue_object(f"{name}-cluster-{plan.label}", cluster, after(kubeconfig, *access.ready))
