"""One ACS workload on an ACK Pro cluster: its Deployment and, for ``resource-policy`` scheduling, its ResourcePolicy.

The objects come from ``components.manifests.acs``; this component only registers them. They wait for the addons
that make ACS work (the virtual node, and the scheduler when pinned) so no pod is created before the virtual node
exists (reference ack-acs.md section 1.11). The namespace is not created here: several workloads may share one, so
whoever builds the fleet creates it once and passes it along with the addons.
"""

from __future__ import annotations

from collections.abc import Sequence

import pulumi
from pulumi_kubernetes import apiextensions
from pulumi_kubernetes.apps import v1 as apps

from components.acs_sizing import billed_spec
from components.config.acs import AcsWorkloadConfig
from components.manifests import acs as manifests


class AcsWorkload(pulumi.ComponentResource):
    """A Deployment that runs on ACS compute (seed 004), with its ResourcePolicy when it schedules by policy."""

    billed_spec: pulumi.Output[str] | None
    """The spec ACS bills each CPU pod as, e.g. ``2-4Gi``; ``None`` for GPU classes, which are sized per card."""

    def __init__(
        self,
        name: str,
        args: AcsWorkloadConfig,
        addons: Sequence[pulumi.Resource],
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        super().__init__("elastic-capacity:alicloud:AcsWorkload", name, None, opts)
        waits_for = list(addons)
        policy = manifests.resource_policy(args)
        if policy is not None:
            # Created before the Deployment: a policy only affects pods created after it (reference 3.5).
            policy_resource = apiextensions.CustomResource(
                f"{name}-resource-policy",
                api_version=policy["apiVersion"],
                kind=policy["kind"],
                metadata=policy["metadata"],
                spec=policy["spec"],
                opts=pulumi.ResourceOptions(parent=self, depends_on=waits_for),
            )
            waits_for = [*waits_for, policy_resource]
        deployment = manifests.deployment(args)
        apps.Deployment(
            f"{name}-deployment",
            metadata=deployment["metadata"],
            spec=deployment["spec"],
            opts=pulumi.ResourceOptions(parent=self, depends_on=waits_for),
        )
        self.billed_spec = None
        if not args.is_gpu:
            spec = billed_spec(args.cpu, args.memory)
            if spec.rounded_up:
                pulumi.log.warn(
                    f"ACS bills each pod of {args.namespace}/{args.name} as {spec.text}: it rounds cpu {args.cpu} / "
                    f"memory {args.memory} up to the nearest ACS spec (reference ack-acs.md section 3.4)",
                    resource=self,
                )
            self.billed_spec = pulumi.Output.from_input(spec.text)
        self.register_outputs({"billed_spec": self.billed_spec} if self.billed_spec is not None else {})
