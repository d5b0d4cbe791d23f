"""Wait until a new Azure RBAC role assignment lets the deployer into the cluster.

Azure role assignments can take up to 10 minutes to take effect
(https://learn.microsoft.com/azure/role-based-access-control/troubleshooting); until then every Kubernetes call
answers 403 and pulumi-kubernetes fails the first object it creates. This waiter reads ``kube-system`` until the
answer is no longer 401/403, so the Kubernetes provider, which depends on it, only acts once access works.

Shipped by value (:mod:`components.dynamic_by_value`): imports nothing from the project but :data:`SHIPPED_MODULES`.
"""

from __future__ import annotations

from typing import Any

import pulumi
from pulumi.dynamic import CreateResult

from components.dynamic_by_value import WaitProvider
from components.kube_wait import Cluster, RestCluster, poll

SHIPPED_MODULES = ("components.dynamic_by_value", "components.kube_wait", "components.access_wait")
PROBE_PATH = "/api/v1/namespaces/kube-system"
NOT_YET = (401, 403)


class AccessDeniedError(Exception):
    """The deployer was still refused when the deadline passed."""


def has_access(cluster: Cluster) -> bool:
    """True once the cluster answers; False while it refuses; any other error is not about access and propagates."""
    try:
        cluster.get(PROBE_PATH)
    except Exception as error:
        if getattr(error, "status", None) in NOT_YET:
            return False
        raise
    return True


class ClusterAccessProvider(WaitProvider):
    """Creating the resource means: wait until the kubeconfig's identity may read the cluster."""

    shipped_modules = SHIPPED_MODULES
    watched_inputs = ("roleAssignmentId",)

    def create(self, props: dict[str, Any]) -> CreateResult:
        cluster = RestCluster(props["kubeconfig"])
        _, allowed = poll(lambda: has_access(cluster), bool, float(props["timeoutSeconds"]))
        if not allowed:
            raise AccessDeniedError(
                f"The cluster still refuses the identity running Pulumi after {props['timeoutSeconds']}s: role "
                f"assignment {props['roleAssignmentId']} has not reached the cluster. Check: az role assignment list "
                f"--scope {props['clusterId']}; then run pulumi up again."
            )
        return CreateResult(id_=props["roleAssignmentId"], outs={k: v for k, v in props.items() if k != "kubeconfig"})


class ClusterAccess(pulumi.dynamic.Resource, module="azure", name="ClusterAccess"):
    """Completes once the role assignment ``role_assignment_id`` lets the kubeconfig's identity into the cluster."""

    def __init__(
        self,
        resource_name: str,
        *,
        role_assignment_id: pulumi.Input[str],
        cluster_id: pulumi.Input[str],
        kubeconfig: pulumi.Input[str],
        timeout_seconds: int = 900,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        props = {
            "roleAssignmentId": role_assignment_id,
            "clusterId": cluster_id,
            "timeoutSeconds": timeout_seconds,
            "kubeconfig": pulumi.Output.secret(kubeconfig),
        }
        super().__init__(ClusterAccessProvider(), resource_name, props, opts)
