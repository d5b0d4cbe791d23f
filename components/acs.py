"""One ACS workload on an ACK Pro cluster: its Deployment and, for ``resource-policy`` scheduling, its ResourcePolicy.

The objects come from ``components.manifests.acs``; this component only registers them. They wait for the addons
that make ACS work (the cluster's :attr:`~components.ack.AckProCluster.addons`, released once their versions passed
the deploy-time checks) so no pod is created before the virtual node exists. The namespace is not created here:
several workloads may share one, so whoever builds the fleet creates it once and passes it in ``opts``.
"""

from __future__ import annotations

from collections.abc import Sequence

import pulumi
from pulumi_kubernetes import apiextensions
from pulumi_kubernetes.apps import v1 as apps

from components.acs_sizing import billed_spec
from components.config.acs import AcsWorkloadConfig
from components.manifests import acs as manifests

GPU_PREREQUISITES = {
    "gpu": "ACS GPU in ACK is an invitational preview: without access granted by a ticket its pods stay Pending",
    "gpu-hpn": "GPU-HPN pods run only on a purchased GPU-HPN capacity reservation associated with the cluster; "
    "without one they stay Pending",
}
"""Why a GPU Deployment may never become ready, per class
(https://www.alibabacloud.com/help/en/ack/distributed-cloud-container-platform-for-kubernetes/user-guide/schedule-pods-to-run-on-acs-using-virtual-nodes)."""


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
        if args.compute_class in GPU_PREREQUISITES:
            pulumi.log.warn(
                f"{args.namespace}/{args.name}: {GPU_PREREQUISITES[args.compute_class]}, and `pulumi up` fails after "
                f"readyTimeoutMinutes ({args.ready_timeout_minutes})",
                resource=self,
            )
        self.billed_spec = None
        if not args.is_gpu:
            spec = billed_spec(args.cpu, args.memory)
            if spec.rounded_up:
                pulumi.log.warn(
                    f"ACS bills each pod of {args.namespace}/{args.name} as {spec.text}: it rounds cpu {args.cpu} / "
                    f"memory {args.memory} up to the nearest ACS spec "
                    "(https://www.alibabacloud.com/help/en/cs/user-guide/acs-pod-instance-overview)",
                    resource=self,
                )
            self.billed_spec = pulumi.Output.from_input(spec.text)
        self.register_outputs({"billed_spec": self.billed_spec} if self.billed_spec is not None else {})
