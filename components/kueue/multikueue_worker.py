"""One MultiKueue worker the stack sets up: its Kueue (when the stack installs one), its burst queues, the ACS
placement of burst pods on ACK, and the manager's identity with its token.

What goes there is the config layer's :class:`~components.config.multikueue.workers.WorkerPlan`; every object comes
from :mod:`components.manifests.multikueue_worker` or the queue builders. This component registers them on the
worker's Kubernetes provider (given in ``opts``, inherited by every child through ``parent``) and hands the manager
what it needs: a kubeconfig for the worker's Secret, and what its MultiKueueCluster must wait for
(https://kueue.sigs.k8s.io/docs/concepts/multikueue/).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import pulumi
from pulumi_kubernetes import apiextensions, core, rbac

from components.cluster_target import ClusterTarget
from components.config.deploy.checks import TOKEN_CAPPED_ADVICE
from components.config.multikueue.multikueue import MultiKueueConfig
from components.config.multikueue.workers import WorkerPlan
from components.kueue.kueue import Kueue, KueueArgs
from components.kueue.queues import KueueQueues
from components.manifests import multikueue_worker as manifests
from components.waiters.kube_wait import ClusterReader
from components.waiters.worker_token import WorkerToken

SECONDS_PER_DAY = 86_400


def _with(created: list[pulumi.Resource], waits_for: Sequence[pulumi.Resource]) -> list[pulumi.Resource]:
    return [*waits_for, *created]


class MultiKueueWorker(pulumi.ComponentResource):
    """A worker cluster ready to take the manager's copies, and the manager's credential for it."""

    kubeconfig: pulumi.Output[str]
    """The kubeconfig the manager connects with (token, CA data, the worker's endpoint); always a secret."""
    token_expires_at: pulumi.Output[str]
    """When the manager's token expires: a renewed token is a new connection to prove."""
    ready: list[pulumi.Resource]
    """What the manager's MultiKueueCluster waits for: the worker's Kueue serving (its readiness gate: CRDs and
    webhooks), the burst queues and their ACS placement (a copy lands in those namespaces at once), the bindings
    (without them the manager's watch is refused and MultiKueue backs off for minutes) and the token."""

    def __init__(
        self,
        name: str,
        burst: MultiKueueConfig,
        plan: WorkerPlan,
        target: ClusterTarget,
        *,
        kueue_waits_for: Sequence[pulumi.Resource] = (),
        placement_waits_for: pulumi.Input[Sequence[pulumi.Resource]] = (),
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        """``target`` is the worker cluster (MultiKueue is never rendered): the token is issued through its kubeconfig,
        and the manager's kubeconfig uses that one's endpoint and CA. ``kueue_waits_for`` is what the Kueue chart waits
        for (an ACK cluster's ECS node pool: Kueue's controller and webhook cannot run on the virtual node);
        ``placement_waits_for`` what the ResourcePolicies wait for (the ACK scheduler and virtual node addons)."""
        on_worker = pulumi.ResourceOptions.merge(pulumi.ResourceOptions(provider=target.provider), opts)
        super().__init__("elastic-capacity:multikueue:Worker", name, None, on_worker)
        assert plan.queues is not None  # only workers the stack sets up get this component
        child = pulumi.ResourceOptions(parent=self)
        kueue = None
        if plan.kueue is not None:
            assert plan.probe_image is not None  # a worker's Kueue goes onto an ACK cluster of a stated version
            # A worker only runs burst pods: there is no autoscaler, so no ProvisioningRequest CRD to wait for.
            kueue = Kueue(
                f"{name}-kueue",
                KueueArgs(plan.kueue, plan.probe_image, chart_waits_for=list(kueue_waits_for)),
                target,
                opts=child,
            )
        queues = KueueQueues(
            f"{name}-queues",
            plan.queues,
            target,
            kueue_ready=kueue.ready if kueue else None,
            namespace_labels=plan.namespace_labels,
            opts=child,
        )
        placement = self._acs_placement(name, burst, plan, queues, placement_waits_for)
        bindings, token = self._manager_identity(name, burst, plan, queues, kueue, target.reader)
        self.kubeconfig = pulumi.Output.secret(
            pulumi.Output.all(target.kubeconfig, token.token).apply(
                lambda values: manifests.manager_kubeconfig(values[0], values[1], plan.cluster_name)
            )
        )
        self.token_expires_at = token.expires_at
        self.ready = [*([kueue.ready] if kueue else []), queues, *placement, *bindings, token]
        self.register_outputs({"kubeconfig": self.kubeconfig, "tokenExpiresAt": token.expires_at})

    def _acs_placement(
        self,
        name: str,
        burst: MultiKueueConfig,
        plan: WorkerPlan,
        queues: KueueQueues,
        waits_for: pulumi.Input[Sequence[pulumi.Resource]],
    ) -> list[pulumi.Resource]:
        """A ResourcePolicy per burst namespace of an ACK worker, once its namespace and the addons exist."""
        if plan.acs is None:
            return []
        policies: list[pulumi.Resource] = []
        for namespace in plan.burst_namespaces:
            manifest = manifests.acs_resource_policy(burst, namespace, plan.acs, plan.burst_pod_selector)
            created = [queues.objects[key] for key in [("Namespace", namespace)] if key in queues.objects]
            depends_on = pulumi.Output.from_input(waits_for).apply(functools.partial(_with, created))
            policies.append(
                apiextensions.CustomResource(
                    f"{name}-resourcepolicy-{namespace}",
                    api_version=manifest["apiVersion"],
                    kind=manifest["kind"],
                    metadata=manifest["metadata"],
                    spec=manifest["spec"],
                    opts=pulumi.ResourceOptions(parent=self, depends_on=depends_on),
                )
            )
        return policies

    def _manager_identity(
        self,
        name: str,
        burst: MultiKueueConfig,
        plan: WorkerPlan,
        queues: KueueQueues,
        kueue: Kueue | None,
        reader: ClusterReader,
    ) -> tuple[list[pulumi.Resource], WorkerToken]:
        """The ServiceAccount and its token anchor live in Kueue's namespace (the stack's install, or the worker's
        own); the token is issued once both exist."""
        namespace = plan.identity_namespace
        in_kueue_namespace = pulumi.ResourceOptions(parent=self, depends_on=[kueue.namespace] if kueue else None)
        account = core.v1.ServiceAccount(
            f"{name}-manager",
            metadata=manifests.service_account(burst, namespace)["metadata"],
            automount_service_account_token=False,
            opts=in_kueue_namespace,
        )
        anchor_manifest = manifests.token_anchor(burst, namespace)
        # The Pulumi name stays put while metadata.name carries tokenRotation: a rotation replaces the anchor
        # create-first, the new token binds to the new anchor, and the old anchor's deletion, Pulumi's last step,
        # revokes the old token once the manager holds the new one.
        anchor = core.v1.Secret(
            f"{name}-token-anchor",
            metadata=anchor_manifest["metadata"],
            type=anchor_manifest["type"],
            opts=in_kueue_namespace,
        )
        token = WorkerToken(
            f"{name}-token",
            namespace=namespace,
            service_account=manifests.manager_identity(burst),
            anchor={"name": anchor.metadata.name, "uid": anchor.metadata.uid},
            expiration_seconds=burst.token_lifetime_days * SECONDS_PER_DAY,
            capped_advice=TOKEN_CAPPED_ADVICE,
            reader=reader,
            opts=pulumi.ResourceOptions(parent=self, depends_on=[account, anchor]),
        )
        return self._grants(name, burst, plan, queues), token

    def _grants(
        self, name: str, burst: MultiKueueConfig, plan: WorkerPlan, queues: KueueQueues
    ) -> list[pulumi.Resource]:
        """The read-only ClusterRole and, per burst namespace once it exists, the Role with the writes, each with its
        binding; a binding only names its role and account, so it needs neither to exist first."""
        role = manifests.cluster_role(burst, plan.watched, plan.gate_reads)
        binding = manifests.cluster_role_binding(burst, plan.identity_namespace)
        grants: list[pulumi.Resource] = [
            rbac.v1.ClusterRole(
                f"{name}-manager",
                metadata=role["metadata"],
                rules=role["rules"],
                opts=pulumi.ResourceOptions(parent=self),
            ),
            rbac.v1.ClusterRoleBinding(
                f"{name}-manager",
                metadata=binding["metadata"],
                role_ref=binding["roleRef"],
                subjects=binding["subjects"],
                opts=pulumi.ResourceOptions(parent=self),
            ),
        ]
        for namespace in plan.burst_namespaces:
            created = [queues.objects[key] for key in [("Namespace", namespace)] if key in queues.objects]
            in_namespace = pulumi.ResourceOptions(parent=self, depends_on=created)
            role = manifests.role(burst, namespace, plan.watched)
            binding = manifests.role_binding(burst, namespace, plan.identity_namespace)
            grants += [
                rbac.v1.Role(
                    f"{name}-manager-{namespace}", metadata=role["metadata"], rules=role["rules"], opts=in_namespace
                ),
                rbac.v1.RoleBinding(
                    f"{name}-manager-{namespace}",
                    metadata=binding["metadata"],
                    role_ref=binding["roleRef"],
                    subjects=binding["subjects"],
                    opts=in_namespace,
                ),
            ]
        return grants
