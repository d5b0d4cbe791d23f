"""ACS workloads on an ACK Pro cluster: the namespaces they share, and each one's Deployment and ResourcePolicy.

The objects come from ``components.manifests.acs``; these components only register them. A workload's objects wait
for the addons that make ACS work (the cluster's :attr:`~components.alicloud.ack.AckProCluster.addons`, released once
their versions passed the deploy-time checks) so no pod is created before the virtual node exists. Several workloads may
share a namespace, so the fleet creates each :class:`AcsNamespace` once per cluster and hands it to the workloads in
it as a dependency.
"""

from __future__ import annotations

from collections.abc import Sequence

import pulumi
from pulumi_kubernetes import apiextensions
from pulumi_kubernetes.apps import v1 as apps
from pulumi_kubernetes.core import v1 as core

from components.config.ack.acs import AcsWorkloadConfig
from components.manifests import acs as manifests
from components.manifests import core as core_manifests


class AcsNamespace(pulumi.ComponentResource):
    """A namespace that ACS workloads share on one cluster, created once before any of them.

    The Namespace inside is named like the component. Fleets created it at the stack root, without a component,
    before this one existed; its alias to that place keeps such a namespace, and everything in it, instead of
    deleting and recreating it. The cluster's Kubernetes provider comes in ``opts``.
    """

    def __init__(self, name: str, namespace: str, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("elastic-capacity:alicloud:AcsNamespace", name, None, opts)
        manifest = core_manifests.namespace(namespace)
        core.Namespace(
            name,
            metadata=manifest["metadata"],
            opts=pulumi.ResourceOptions(parent=self, aliases=[pulumi.Alias(parent=pulumi.ROOT_STACK_RESOURCE)]),
        )
        self.register_outputs({})


class AcsWorkload(pulumi.ComponentResource):
    """A Deployment that runs on ACS compute, with its ResourcePolicy when it schedules by policy."""

    billed_spec: pulumi.Output[str] | None
    """The spec ACS bills each CPU pod as, e.g. ``2-4Gi``; ``None`` for GPU classes, which are sized per card."""

    def __init__(
        self,
        name: str,
        args: AcsWorkloadConfig,
        addons: pulumi.Input[Sequence[pulumi.Resource]],
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        super().__init__("elastic-capacity:alicloud:AcsWorkload", name, None, opts)
        waits_for = pulumi.ResourceOptions(parent=self, depends_on=addons)
        policy = manifests.resource_policy(args)
        if policy is not None:
            # Created before the Deployment: a policy only affects pods created after it
            # (https://www.alibabacloud.com/help/en/cs/user-guide/custom-resource-priority-scheduling).
            policy_resource = apiextensions.CustomResource(
                f"{name}-resource-policy",
                api_version=policy["apiVersion"],
                kind=policy["kind"],
                metadata=policy["metadata"],
                spec=policy["spec"],
                opts=waits_for,
            )
            waits_for = pulumi.ResourceOptions.merge(waits_for, pulumi.ResourceOptions(depends_on=[policy_resource]))
        # pulumi-kubernetes waits for the rollout; the workload says how long before `pulumi up` fails.
        ready = f"{args.ready_timeout_minutes}m"
        deployment = manifests.deployment(args)
        apps.Deployment(
            f"{name}-deployment",
            metadata=deployment["metadata"],
            spec=deployment["spec"],
            opts=pulumi.ResourceOptions.merge(
                waits_for, pulumi.ResourceOptions(custom_timeouts=pulumi.CustomTimeouts(create=ready, update=ready))
            ),
        )
        spec = args.billed_spec
        self.billed_spec = pulumi.Output.from_input(spec.text) if spec is not None else None
        self.register_outputs({"billedSpec": self.billed_spec} if self.billed_spec is not None else {})
