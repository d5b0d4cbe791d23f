"""How ``pulumi`` reaches an ACK API server: a kubeconfig that is the same on every run, or ACK's temporary one, and
the RBAC roles that let RAM identities other than the cluster's creator in.

``cs.get_cluster_credential`` mints a new client certificate on every call. Handed to the Kubernetes provider as is,
it makes every preview show a provider update, and the copy in state expires, so a later ``pulumi destroy`` gets 401.
The default ``exec-plugin`` mode keeps only the stable parts (the API endpoint and the cluster CA) and lets
``ack-ram-tool`` fetch a certificate whenever the provider needs one, with the command line ``ack-ram-tool
credential-plugin get-kubeconfig`` writes
(https://github.com/AliyunContainerService/ack-ram-tool/blob/main/pkg/ctl/credentialplugin/getkubeconfig.go).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import pulumi
from pulumi_alicloud import Provider as AlicloudProvider
from pulumi_alicloud import cs

from components.config.ack.ack import AckClusterConfig
from components.config.ack.rbac import RbacGrant
from components.config.deploy.checks import AckCheck, AckFinding, AckReport

EXEC_API_VERSION = "client.authentication.k8s.io/v1beta1"
"""The ExecCredential version ack-ram-tool answers with by default."""

CA_ONLY_MINUTES = 15
"""Lifetime of the certificate the exec mode's credential call mints and throws away (it only reads the CA): the
shortest ACK allows. Without a lifetime ACK would hand out a long-lived certificate instead. The cluster resource's
``certificate_authorities`` would save the call but not the certificate: it is deprecated since provider v1.248.0
and empty with ``skip_set_certificate_authority``, and without that flag the provider's read fetches a certificate
of that long default lifetime and keeps its key in the state, unencrypted (``setCerts`` in
https://github.com/aliyun/terraform-provider-alicloud/blob/master/alicloud/service_alicloud_cs.go)."""


def exec_kubeconfig(cluster_name: str, cluster_id: str, region: str, server: str, ca_data: str) -> str:
    """A kubeconfig (JSON, keys sorted) built only from values that do not change between runs."""
    args = ["credential-plugin", "get-credential", "--cluster-id", cluster_id, "--api-version", "v1beta1"]
    args += ["--expiration", "3h", "--region-id", region, "--log-level", "error"]
    exec_config = {
        "apiVersion": EXEC_API_VERSION,
        "command": "ack-ram-tool",
        "args": args,
        "interactiveMode": "Never",
        "provideClusterInfo": False,
    }
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": cluster_name, "cluster": {"server": server, "certificate-authority-data": ca_data}}],
        "users": [{"name": cluster_name, "user": {"exec": exec_config}}],
        "contexts": [{"name": cluster_name, "context": {"cluster": cluster_name, "user": cluster_name}}],
        "current-context": cluster_name,
    }
    return json.dumps(config, indent=2, sort_keys=True)


def api_server_endpoint(connections: Sequence[cs.outputs.ManagedKubernetesConnection] | None, *, public: bool) -> str:
    """The public or the private API endpoint; ``connections`` is a list in pulumi-alicloud 4.x."""
    first = connections[0] if connections else None
    endpoint = (first.api_server_internet if public else first.api_server_intranet) if first else None
    return endpoint or ""


def cluster_kubeconfig(
    args: AckClusterConfig,
    cluster: cs.ManagedKubernetes,
    endpoint: pulumi.Output[str],
    region: AlicloudProvider,
    parent: pulumi.Resource,
    report: AckReport,
) -> pulumi.Output[str]:
    """The kubeconfig of ``args.kubeconfig_mode``, always a secret."""
    temporary = args.kubeconfig_mode == "temporary"
    credential = cs.get_cluster_credential_output(
        cluster_id=cluster.id,
        temporary_duration_minutes=args.credential_minutes if temporary else CA_ONLY_MINUTES,
        opts=pulumi.InvokeOutputOptions(parent=parent, provider=region),
    )
    if temporary:
        return pulumi.Output.secret(credential.kube_config)
    ca_data = credential.certificate_authorities.apply(lambda authorities: authorities[0].cluster_cert)

    def build(values: list[str]) -> str:
        cluster_id, server, ca = values
        if not server:
            found = f"{args.slb_internet_enabled!r}: ACK reports no such API endpoint yet"
            raise report.refusal(AckFinding(AckCheck.API_ENDPOINT, found))
        return exec_kubeconfig(args.name, cluster_id, args.region, server, ca)

    return pulumi.Output.secret(pulumi.Output.all(cluster.id, endpoint, ca_data).apply(build))


def _by_identity(grants: list[RbacGrant]) -> dict[str, list[RbacGrant]]:
    """The grants of each RAM identity (by id), in the order the stack file lists them."""
    grouped: dict[str, list[RbacGrant]] = {}
    for grant in grants:
        grouped.setdefault(grant.uid, []).append(grant)
    return grouped


def rbac_grants(
    name: str, cluster: cs.ManagedKubernetes, grants: list[RbacGrant], opts: pulumi.ResourceOptions
) -> list[pulumi.Resource]:
    """One ``cs.KubernetesPermission`` per identity, with its roles on this cluster (see
    ``components/config/ack/rbac.py`` for what the provider grants and revokes)."""
    return [_grant(name, cluster, uid, entries, opts) for uid, entries in _by_identity(grants).items()]


def _grant(
    name: str, cluster: cs.ManagedKubernetes, uid: str, grants: list[RbacGrant], opts: pulumi.ResourceOptions
) -> cs.KubernetesPermission:
    """One identity's roles on this cluster. Every field is sent, as the provider's own example does: it builds the
    request from all six, and ``role_type`` is ``namespace`` exactly when a namespace is given."""
    permissions: list[cs.KubernetesPermissionPermissionArgsDict] = [
        {
            "cluster": cluster.id,
            "role_type": "namespace" if grant.namespace else "cluster",
            "role_name": grant.role,
            "namespace": grant.namespace or "",
            "is_custom": False,
            "is_ram_role": grant.ram_role_id is not None,
        }
        for grant in grants
    ]
    return cs.KubernetesPermission(f"{name}-rbac-{uid}", uid=uid, permissions=permissions, opts=opts)
