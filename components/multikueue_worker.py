"""One ACK worker of the MultiKueue burst set-up: its Kueue, its burst queues, and the manager's identity on it.

Every object comes from :mod:`components.manifests.multikueue_worker`; this component registers them on the worker's
Kubernetes provider (given in ``opts``, inherited by every child through ``parent``) and hands the manager what it
needs: a kubeconfig for the worker's MultiKueueCluster Secret, and the resources that Secret and the
MultiKueueCluster must wait for (https://kueue.sigs.k8s.io/docs/concepts/multikueue/).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pulumi
from pulumi_kubernetes import core, rbac

from components.config.kueue import KueueConfig
from components.config.multikueue import MultiKueueConfig, WorkerConfig
from components.config.queues import QueuesConfig
from components.kueue import Kueue
from components.manifests import multikueue_worker as manifests
from components.queues import KueueQueues


class MultiKueueWorker(pulumi.ComponentResource):
    """Kueue (the manager's release, batch/job only), the burst namespace, LocalQueue and ClusterQueue on the ACS
    flavor, and a ServiceAccount with a long-lived token and just the rights MultiKueue uses."""

    kubeconfig: pulumi.Output[str]
    """The worker's kubeconfig for the manager (token, CA data, public endpoint); always a secret."""
    ready: list[pulumi.Resource]
    """What the manager's MultiKueueCluster waits for: the worker's queues (the component, hence its LocalQueue and
    ClusterQueue), the ClusterRoleBinding (without it the manager's watch is refused and MultiKueue backs off for
    minutes) and the token Secret."""

    def __init__(
        self,
        name: str,
        burst: MultiKueueConfig,
        worker: WorkerConfig,
        manager_kueue: KueueConfig,
        endpoint: pulumi.Input[str],
        opts: pulumi.ResourceOptions | None = None,
        *,
        ecs_nodes: Sequence[pulumi.Resource] = (),
    ) -> None:
        """``endpoint`` is the worker's public API endpoint (``AckClusterHandle.api_server_endpoint``): the manager
        runs on AKS, outside the worker's VPC. ``ecs_nodes`` is what Kueue's chart waits for: its controller and
        webhook run on ECS nodes (the rest of the worker's objects need none)."""
        super().__init__("elastic-capacity:multikueue:Worker", name, None, opts)
        kueue_config = manifests.worker_kueue(manager_kueue, worker)
        # A worker only runs ACS pods: there is no autoscaler, so no ProvisioningRequest CRD to insist on.
        kueue = Kueue(
            f"{name}-kueue",
            kueue_config,
            check_provisioning_request_crd=False,
            chart_waits_for=list(ecs_nodes),
            opts=pulumi.ResourceOptions(parent=self),
        )
        KueueQueues(
            f"{name}-queues",
            QueuesConfig.model_validate(manifests.worker_queues(burst, worker)),
            kueue_ready=kueue.ready,
            namespace_labels=kueue_config.managed_namespace_labels,
            opts=pulumi.ResourceOptions(parent=self),
        )
        role, binding, token = self._manager_identity(name, burst, kueue_config.namespace, kueue)
        cluster_name = burst.worker_cluster_name(worker)

        def build(values: list[Any]) -> str:
            server, data = values
            return manifests.kubeconfig_from_token_secret(server, data, cluster_name)

        self.kubeconfig = pulumi.Output.secret(pulumi.Output.all(endpoint, token.data).apply(build))
        # What the manager's connection needs: the credential and what it grants. The worker's queues need not be
        # there first: a copy of a Workload waits in the worker's queue until it appears.
        self.ready = [role, binding, token]
        self.register_outputs({"kubeconfig": self.kubeconfig, "tokenSecret": token.metadata.name})

    def _manager_identity(
        self, name: str, burst: MultiKueueConfig, namespace: str, kueue: Kueue
    ) -> tuple[rbac.v1.ClusterRole, rbac.v1.ClusterRoleBinding, core.v1.Secret]:
        """The ServiceAccount lives in Kueue's namespace: it waits for that namespace, not for Kueue to serve."""
        account = core.v1.ServiceAccount(
            f"{name}-manager",
            metadata=manifests.service_account(burst, namespace)["metadata"],
            opts=pulumi.ResourceOptions(parent=self, depends_on=[kueue.namespace]),
        )
        role_manifest = manifests.cluster_role(burst)
        role = rbac.v1.ClusterRole(
            f"{name}-manager",
            metadata=role_manifest["metadata"],
            rules=role_manifest["rules"],
            opts=pulumi.ResourceOptions(parent=self),
        )
        binding_manifest = manifests.cluster_role_binding(burst, namespace)
        binding = rbac.v1.ClusterRoleBinding(
            f"{name}-manager",
            metadata=binding_manifest["metadata"],
            role_ref=binding_manifest["roleRef"],
            subjects=binding_manifest["subjects"],
            # A binding only names its role and account; the manager's watch needs all three (``ready``).
            opts=pulumi.ResourceOptions(parent=self),
        )
        secret: Mapping[str, Any] = manifests.token_secret(burst, namespace)
        # The token controller deletes a token Secret whose ServiceAccount does not exist yet. The Pulumi name stays
        # put while metadata.name carries tokenRotation: a rotation is a create-before-delete replacement, so the
        # manager's kubeconfig moves to the new token before the old Secret (and with it the old token) is deleted.
        token = core.v1.Secret(
            f"{name}-token",
            metadata=secret["metadata"],
            type=secret["type"],
            opts=pulumi.ResourceOptions(parent=self, depends_on=[account]),
        )
        return role, binding, token
