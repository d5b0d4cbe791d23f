"""An ACK managed Pro cluster this stack does not create: a Kubernetes provider for it, and its checked addons.

Nothing in Alibaba Cloud is registered: only a region provider (which is no cloud resource) and three invokes:
``cs.get_clusters`` (the cluster is Pro and runs the configured minor), ``cs.get_kubernetes_addons`` (the installed
ack-virtual-node and kube-scheduler meet what the stack's workloads need; the stack installs nothing there) and
``cs.get_cluster_credential`` (the cluster CA and the public API endpoint of its kubeconfig, for the same stable
exec-plugin kubeconfig a new cluster gets, ``components/alicloud/ack_access.py``). ``destroy`` therefore removes only
the stack's own namespaces and workloads; the cluster, its addons and the other stacks' objects stay.
"""

from __future__ import annotations

import ipaddress
import urllib.parse
from typing import Any

import pulumi
import yaml
from pulumi_alicloud import Provider as AlicloudProvider
from pulumi_alicloud import cs

from components import yaml_text
from components.alicloud import ack_checks
from components.alicloud.ack import MANAGED_ADDON_NAMES, AckClusterHandle
from components.alicloud.ack_access import CA_ONLY_MINUTES, exec_kubeconfig
from components.config.ack.existing import AckExistingClusterConfig
from components.config.deploy.checks import AckCheck, AckFinding, AckReport
from components.config.versions import ClusterNeeds


def kubeconfig_server(report: AckReport, kubeconfig: str) -> str:
    """The API server of the first cluster in the kubeconfig ``cs.get_cluster_credential`` returns.

    When a MultiKueue worker is on the cluster (``report.reached_by``), its manager, outside the cluster's VPC,
    connects to this endpoint: then an endpoint whose host is an address no one outside reaches (a private, shared or
    link-local IP, as ACK names the internal SLB when the cluster has no public endpoint) is refused, rather than
    leaving the MultiKueueCluster ``ClientConnectionFailed`` until the wait times out. A host name is kept: whether it
    resolves publicly is not known here."""
    try:
        document: Any = yaml_text.load(kubeconfig)
        server = str(document["clusters"][0]["cluster"]["server"])
    except (yaml.YAMLError, KeyError, IndexError, TypeError):
        server = ""
    if not server.startswith("https://"):
        no_https = "ACK's credential for the cluster names no https API endpoint"
        raise report.refusal(AckFinding(AckCheck.EXISTING_ENDPOINT, no_https))
    if report.reached_by is not None and not is_public_endpoint(server):
        raise report.refusal(AckFinding(AckCheck.PRIVATE_ENDPOINT, server))
    return server


def is_public_endpoint(server: str) -> bool:
    """False when ``server``'s host is an IP address that is not globally routable (RFC 1918, 100.64/10, link-local,
    loopback); true for a global address or any host name."""
    host = urllib.parse.urlsplit(server).hostname or ""
    try:
        return ipaddress.ip_address(host).is_global
    except ValueError:
        return True


class ExistingAckCluster(AckClusterHandle):
    """An existing cluster as the fleet uses a new one: its ``addons`` are empty once the cluster and its installed
    addons passed the checks, and its provider waits for nothing but its kubeconfig (public endpoint)."""

    def __init__(
        self,
        name: str,
        args: AckExistingClusterConfig,
        needs: ClusterNeeds,
        report: AckReport,
        opts: pulumi.ResourceOptions | None = None,
        *,
        render_to: str | None = None,
    ) -> None:
        """``report`` words what the deploy-time checks find under the keys of the cluster's entry, and says whether
        a MultiKueue worker is on the cluster (its endpoint must then be public).
        The provider never gets ``delete_unreachable``, in any environment: a sign-in that fails would make
        ``destroy`` drop the stack's workloads from the state and leave them on the shared cluster."""
        super().__init__("elastic-capacity:alicloud:ExistingAckCluster", name, None, opts)
        region = AlicloudProvider(f"{name}-alicloud", region=args.region, opts=pulumi.ResourceOptions(parent=self))
        on_region = pulumi.InvokeOutputOptions(parent=self, provider=region)

        self.cluster_id = pulumi.Output.from_input(args.cluster_id)
        self.ecs_nodes = []  # the cluster's own nodes exist already
        listed = cs.get_clusters_output(cluster_id=args.cluster_id, enable_details=True, opts=on_region)
        self.kubernetes_version = listed.clusters.apply(
            lambda clusters: ack_checks.existing_cluster(report, args.cluster_id, args.minor_version, clusters)
        )
        addons = cs.get_kubernetes_addons_output(
            cluster_id=args.cluster_id, name_regex=MANAGED_ADDON_NAMES, opts=on_region
        )
        checked = addons.addons.apply(
            lambda found: ack_checks.existing_addons(
                report, {addon.name: addon.current_version for addon in found}, needs
            )
        )
        self.addons = pulumi.Output.all(self.kubernetes_version, checked).apply(lambda _: [])

        credential = cs.get_cluster_credential_output(
            cluster_id=args.cluster_id, temporary_duration_minutes=CA_ONLY_MINUTES, opts=on_region
        )
        self.api_server_endpoint = credential.kube_config.apply(lambda text: kubeconfig_server(report, text))
        ca_data = credential.certificate_authorities.apply(lambda authorities: authorities[0].cluster_cert)
        self.kubeconfig = pulumi.Output.secret(
            pulumi.Output.all(self.api_server_endpoint, ca_data).apply(
                lambda values: exec_kubeconfig(args.name, args.cluster_id, args.region, values[0], values[1])
            )
        )
        self._hand_out(name, args.cluster_id, delete_unreachable=False, render_to=render_to)
