"""Wait until a new Azure RBAC role assignment lets the deployer into the cluster.

Azure role assignments can take up to 10 minutes to take effect
(https://learn.microsoft.com/azure/role-based-access-control/troubleshooting); until then the cluster answers 403
(authenticated, not yet authorized) and pulumi-kubernetes fails the first object it creates. This waiter reads
``kube-system`` until the answer is no longer 403, so the Kubernetes provider, which depends on it, only acts once
access works. Every read builds its client anew, so it signs in again and uses a credential renewed meanwhile.

Nothing else is waited out, because no role assignment can fix it: a sign-in that fails (kubelogin missing, no
``az`` session, an expired federated token) fails with kubelogin's own message, a credential the cluster rejects
(401) as an authentication error, and an API server that cannot be reached with what ``aks.apiServerAccess`` lets
through.

Shipped by value (:mod:`components.waiters.dynamic_by_value`): imports nothing from the project but
:data:`SHIPPED_MODULES`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pulumi
from pulumi.dynamic import CreateResult

from components.waiters.dynamic_by_value import WaitProvider
from components.waiters.kube_wait import Cluster, RestCluster, UnreachableError, poll

SHIPPED_MODULES = (
    "components.waiters.dynamic_by_value",
    "components.waiters.kube_wait",
    "components.azure.access_wait",
)
PROBE_PATH = "/api/v1/namespaces/kube-system"
NOT_YET = 403
"""Forbidden: the cluster knows the identity, and its role assignment has not reached the cluster yet."""
UNAUTHENTICATED = 401
"""Unauthorized: the cluster does not accept the credential at all."""
ADMINS_KEY = "elastic-capacity:aks.entraId.clusterAdmins"
"""The stack key of who may administer the cluster, for the message when the identity running Pulumi is not let in."""
AUTHORIZED_RANGES_URL = "https://learn.microsoft.com/azure/aks/api-server-authorized-ip-ranges"


class AccessDeniedError(Exception):
    """The deployer was still refused when the deadline passed."""


class AuthenticationError(Exception):
    """The cluster rejected the credential itself (401): a role assignment cannot fix that."""


class ApiServerUnreachableError(Exception):
    """The API server gave no answer; the message says what ``apiServerAccess`` lets through."""


def has_access(cluster: Cluster) -> bool:
    """True once the cluster answers; False while it refuses the identity (403); :class:`AuthenticationError` when
    it rejects the credential (401); any other error is not about access and propagates."""
    try:
        cluster.get(PROBE_PATH)
    except Exception as error:
        status = getattr(error, "status", None)
        if status == NOT_YET:
            return False
        if status == UNAUTHENTICATED:
            raise AuthenticationError(
                "The cluster rejects the credential of the identity running Pulumi (401 Unauthorized): kubelogin "
                "signed in, but not in a way this cluster accepts (another tenant or cloud, or a token for another "
                "server id). That is authentication, not a role assignment still on its way, so waiting cannot fix "
                "it: check the kubelogin login mode and the identity it signs in as (az account show), then run "
                "pulumi up again."
            ) from None
        raise
    return True


def unreachable_hint(key: str, authorized_ip_ranges: Sequence[str]) -> str:
    """What the cluster's API server access lets through, for a connection that got no answer (a private cluster
    is refused by the config: no runner could reach it)."""
    if authorized_ip_ranges:
        return (
            f"{key}.authorizedIpRanges lets only {', '.join(authorized_ip_ranges)} reach it: add the egress address "
            f"of the machine running pulumi, and of every CI runner ({AUTHORIZED_RANGES_URL})"
        )
    return f"nothing in {key} restricts it: check this machine's network, proxy and DNS"


class ClusterAccessProvider(WaitProvider):
    """Creating the resource means: wait until the kubeconfig's identity may read the cluster."""

    shipped_modules = SHIPPED_MODULES
    watched_inputs = ("roleAssignmentIds",)

    def create(self, props: dict[str, Any]) -> CreateResult:
        kubeconfig = props["kubeconfig"]
        try:
            _, allowed = poll(lambda: has_access(RestCluster(kubeconfig)), bool, float(props["timeoutSeconds"]))
        except UnreachableError as error:
            hint = unreachable_hint(props["apiServerAccessKey"], props["authorizedIpRanges"])
            raise ApiServerUnreachableError(f"{error}; {hint}") from None
        if not allowed:
            raise AccessDeniedError(
                f"The cluster still refuses the identity running Pulumi after {props['timeoutSeconds']}s: either the "
                f"role assignments {', '.join(props['roleAssignmentIds'])} have not reached the cluster, or that "
                f"identity is none of {props['adminsKey']} (nor a member of a group there). Check: az role "
                f"assignment list --scope {props['clusterId']}; then run pulumi up again as a cluster admin."
            )
        outs = {k: v for k, v in props.items() if k != "kubeconfig"}
        return CreateResult(id_=min(props["roleAssignmentIds"]), outs=outs)


class ClusterAccess(pulumi.dynamic.Resource, module="azure", name="ClusterAccess"):
    """Completes once the role assignments ``role_assignment_ids`` let the kubeconfig's identity into the cluster."""

    def __init__(
        self,
        resource_name: str,
        *,
        role_assignment_ids: Sequence[pulumi.Input[str]],
        cluster_id: pulumi.Input[str],
        kubeconfig: pulumi.Input[str],
        api_server_access_key: str,
        authorized_ip_ranges: Sequence[str],
        timeout_seconds: int = 900,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        """``authorized_ip_ranges`` are what the stack key ``api_server_access_key`` lets through, for the message
        when the API server cannot be reached."""
        props = {
            "roleAssignmentIds": role_assignment_ids,
            "adminsKey": ADMINS_KEY,
            "clusterId": cluster_id,
            "timeoutSeconds": timeout_seconds,
            "apiServerAccessKey": api_server_access_key,
            "authorizedIpRanges": list(authorized_ip_ranges),
            "kubeconfig": pulumi.Output.secret(kubeconfig),
        }
        super().__init__(ClusterAccessProvider(), resource_name, props, opts)
