"""The MultiKueue manager on the AKS cluster: a worker's kubeconfig Secret and MultiKueueCluster each, the
MultiKueueConfig, the MultiKueue AdmissionCheck, and the burst ClusterQueue and LocalQueue; then the proof that every
worker is connected.

Every object comes from :mod:`components.manifests.multikueue`; this component registers them on the manager's
Kubernetes provider (given in ``opts``) and orders them. Every Kueue object waits for the manager's Kueue readiness
gate (its webhooks admit them). A MultiKueueCluster waits for its Secret and for what its worker hands over as
``ready`` (the worker's Kueue, queues and the manager's identity there): a MultiKueueCluster whose Secret is missing
stays ``BadKubeConfig``, and Kueue treats that unlike a lost connection (its Workloads are never retried after a
manager restart, https://github.com/kubernetes-sigs/kueue/issues/13238), so the Secret and its MultiKueueCluster are
created together and ``destroy`` removes the MultiKueueCluster first. Each object waits for the objects it names, so
Kueue's in-use finalizers never hold a deletion up.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

import pulumi
from pulumi_kubernetes.core import v1 as core

from components.config.multikueue import MultiKueueConfig, WorkerConfig
from components.manifests import multikueue as manifests
from components.queue_wait import QueuesActive
from components.queues import kueue_object


class WorkerAccess(NamedTuple):
    """What the manager needs of one worker (``MultiKueueWorker``'s ``kubeconfig`` and ``ready``)."""

    kubeconfig: pulumi.Input[str]
    """A kubeconfig MultiKueue accepts: inline token and CA data, the worker's public endpoint; a secret."""
    endpoint: pulumi.Input[str]
    """The worker's public API endpoint, which the manager's egress must reach: named when it cannot connect."""
    ready: Sequence[pulumi.Resource]
    """What must exist on the worker before the manager connects."""


class Proof(NamedTuple):
    """How ``pulumi up`` proves the set-up on the manager."""

    kubeconfig: pulumi.Input[str]
    """The manager's kubeconfig, for the waiter to read the objects with."""
    kueue_revision: pulumi.Input[str]
    """What changes whenever the manager's Kueue restarts (its readiness gate's name): the proof then runs again."""


def connection_hint(endpoints: Mapping[str, str]) -> str:
    """What to check when a worker cannot connect, with the endpoint each MultiKueueCluster calls."""
    listed = ", ".join(f"{name} -> {endpoint}" for name, endpoint in endpoints.items())
    return (
        f"Check the network path: the AKS manager's egress IP must reach each worker's public API endpoint ({listed}); "
        "an ACK API server restricted by an access control list must allow that IP "
        "(https://www.alibabacloud.com/help/en/ack/cluster-access-control). Check the token: a deleted or revoked "
        "ServiceAccount token answers 401; a new multiKueue.tokenRotation value issues a new one"
    )


class MultiKueueBurst(pulumi.ComponentResource):
    """The ``multiKueue`` section on the manager; the manager's Kubernetes provider comes in through ``opts``. Its
    last child proves the set-up: every MultiKueueCluster, the MultiKueue AdmissionCheck and the burst ClusterQueue
    Active, within ``waitTimeoutSeconds``."""

    def __init__(
        self,
        name: str,
        args: MultiKueueConfig,
        *,
        kueue_ready: pulumi.Resource,
        kueue_namespace: str,
        namespace_labels: dict[str, str],
        workers: Mapping[str, WorkerAccess],
        proof: Proof,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        """``workers`` is keyed by ``ack.clusters`` name."""
        super().__init__("elastic-capacity:kueue:MultiKueueBurst", name, None, opts)

        def after(*resources: pulumi.Resource) -> pulumi.ResourceOptions:
            return pulumi.ResourceOptions(parent=self, depends_on=[kueue_ready, *resources])

        clusters = [
            self._cluster(name, args, worker, workers[worker.cluster], kueue_namespace, after)
            for worker in args.workers
        ]
        # Kueue reconciles these in any order (like the queues section's objects); a MultiKueueCluster alone waits for
        # its Secret: one created without it never joins after a manager restart (kueue#13238).
        config = kueue_object(f"{name}-config", manifests.multikueue_config(args), after())
        check = kueue_object(f"{name}-admissioncheck", manifests.admission_check(args), after())
        kueue_object(f"{name}-flavor", manifests.resource_flavor(), after())
        queue = kueue_object(f"{name}-clusterqueue", manifests.cluster_queue(args), after())
        namespace = core.Namespace(
            f"{name}-namespace",
            metadata=manifests.burst_namespace(args, namespace_labels)["metadata"],
            opts=pulumi.ResourceOptions(parent=self),
        )
        kueue_object(f"{name}-localqueue", manifests.local_queue(args), after(namespace))
        endpoints = {args.worker_cluster_name(w): workers[w.cluster].endpoint for w in args.workers}
        QueuesActive(
            f"{name}-active",
            objects=[
                *({"kind": "MultiKueueCluster", "name": args.worker_cluster_name(w)} for w in args.workers),
                {"kind": "AdmissionCheck", "name": args.admission_check},
                {"kind": "ClusterQueue", "name": args.cluster_queue},
            ],
            kueue_namespace=kueue_namespace,
            # A rotated token is a new connection to prove.
            kueue_revision=pulumi.Output.concat(proof.kueue_revision, "/token-", args.token_rotation),
            timeout_seconds=args.wait_timeout_seconds,
            on_inactive="fail",
            hint=pulumi.Output.all(**endpoints).apply(connection_hint),
            kubeconfig=proof.kubeconfig,
            opts=pulumi.ResourceOptions(parent=self, depends_on=[*clusters, config, check, queue]),
        )
        self.register_outputs({"localQueue": f"{args.namespace}/{args.local_queue}"})

    def _cluster(
        self,
        name: str,
        args: MultiKueueConfig,
        worker: WorkerConfig,
        access: WorkerAccess,
        kueue_namespace: str,
        after: Callable[..., pulumi.ResourceOptions],
    ) -> pulumi.CustomResource:
        """One worker's kubeconfig Secret and the MultiKueueCluster that reads it, after the worker is ready."""
        secret = manifests.kubeconfig_secret(args, worker, kueue_namespace)
        kubeconfig = core.Secret(
            f"{name}-secret-{worker.cluster}",
            metadata=secret["metadata"],
            type=secret["type"],
            string_data={manifests.KUBECONFIG_KEY: pulumi.Output.secret(access.kubeconfig)},
            opts=after(),
        )
        cluster = manifests.multikueue_cluster(args, worker)
        return kueue_object(f"{name}-cluster-{worker.cluster}", cluster, after(kubeconfig, *access.ready))
