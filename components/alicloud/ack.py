"""An ACK managed Pro cluster ready for ACS compute: network, cluster, node pool, virtual node, RBAC grants, kubeconfig.

Every Alibaba Cloud resource and invoke goes through this cluster's own region provider, so one stack can hold
clusters in several regions. What only ACK knows is checked while deploying (``components/alicloud/ack_checks.py``): the
Kubernetes version must be one ACK offers, the first zone must offer Enhanced NAT, and the installed ack-virtual-node
and kube-scheduler must meet what the cluster's workloads need. ACS workloads depend on :attr:`AckProCluster.addons`
(``components/alicloud/ack_addons.py``), which resolves only once those checks passed: pods created before the virtual
node exists would never reach ACS. The RBAC grants and the kubeconfig are in ``components/alicloud/ack_access.py``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pulumi
from pulumi_alicloud import Provider as AlicloudProvider
from pulumi_alicloud import cs

from components.alicloud import ack_addons, ack_checks
from components.alicloud.ack_access import api_server_endpoint, cluster_kubeconfig, rbac_grants
from components.alicloud.ack_json import canonical_json
from components.alicloud.ack_network import AckNetwork, ack_network
from components.cluster_target import ClusterTarget, cluster_target
from components.config.ack.ack import AckClusterConfig
from components.config.ack.addons import MANAGED_ADDONS, ClusterAddonConfig
from components.config.ack.node_pool import AckNodePoolConfig
from components.config.deploy.checks import AckCheck, AckReport
from components.config.versions import ClusterNeeds
from components.waiters.version_pin import ClusterVersion

MANAGED_ADDON_NAMES = f"^({'|'.join(MANAGED_ADDONS)})$"
"""The ``name_regex`` of the one ``cs.get_kubernetes_addons`` call that reads both addons' installed versions."""

CLUSTER_TIMEOUTS = pulumi.CustomTimeouts(create="90m", update="60m", delete="60m")
"""How long ``pulumi`` waits for ACK to create, upgrade or delete a cluster before it gives up."""


AUTOSCALED_POOL_IGNORES = ["desiredSize"]
"""What an autoscaling ``cs.NodePool`` leaves to ACK's autoscaler: the node count it moves and the provider reads
back (``desired_size`` in ``resourceAliCloudAckNodepoolRead``)."""
CLUSTER_IGNORES = ["podCidr"]
"""What the cluster leaves to ACK: the pod CIDR it never sends (Terway) but Read stores when ACK reports one."""

NODE_SCALING: dict[str, Any] = {
    "scaler_type": "cluster-autoscaler",
    "cool_down_duration": "10m",
    "unneeded_duration": "10m",
    "utilization_threshold": "0.5",
    "gpu_utilization_threshold": "0.5",
    "scan_interval": "30s",
    "scale_down_enabled": True,
    "expander": "least-waste",
    "skip_nodes_with_system_pods": True,
    "skip_nodes_with_local_storage": False,
    "daemonset_eviction_for_nodes": False,
    "max_graceful_termination_sec": 14400,
    "min_replica_count": 0,
    "recycle_node_deletion_enabled": False,
    "scale_up_from_zero": True,
}
"""The cluster's node scaling (``cs.AutoscalingConfig``), at the defaults ACK documents for each setting
(https://registry.terraform.io/providers/aliyun/alicloud/latest/docs/resources/cs_autoscaling_config), all sent:
Read sets each from the cluster-autoscaler addon's config, and one left out that has no schema default would show
ACK's value as a change on every refreshed preview (``resourceAlicloudCSAutoscalingConfigRead`` in
https://github.com/aliyun/terraform-provider-alicloud/blob/master/alicloud/resource_alicloud_cs_autoscaling_config.go)."""

DELETE_OPTIONS_DOC = "https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/developer-reference/use-terraform-to-delete-an-ack-cluster"
"""ACK's page on ``delete_options``: what each resource type covers and whether ACK keeps it by default."""


def delete_options(args: AckClusterConfig) -> list[cs.ManagedKubernetesDeleteOptionArgsDict]:
    """``deleteWithCluster`` as ACK's ``delete_options`` (:data:`DELETE_OPTIONS_DOC`). The provider reads them from
    the state when it deletes the cluster (``resourceAlicloudCSKubernetesDelete`` in
    https://github.com/aliyun/terraform-provider-alicloud/blob/master/alicloud/resource_alicloud_cs_kubernetes.go),
    so they are sent from the first ``up`` on; none keeps ACK's defaults."""
    return [{"delete_mode": "delete", "resource_type": kind} for kind in args.delete_with_cluster or []]


def security_settings(args: AckClusterConfig) -> dict[str, Any]:
    """RRSA, the nodes' security group and Secret encryption, as ``cs.ManagedKubernetes`` arguments. The provider
    refuses ``is_enterprise_security_group`` next to ``security_group_id`` (``ConflictsWith``), so a configured group
    sends only itself; an unset KMS key sends nothing (``encryption_provider_key`` has no default to match)."""
    group: dict[str, Any] = (
        {"security_group_id": args.security_group_id}
        if args.security_group_id is not None
        else {"is_enterprise_security_group": args.enterprise_security_group}
    )
    return {
        "enable_rrsa": args.enable_rrsa,
        **group,
        "encryption_provider_key": args.secrets_encryption_key_id,
    }


def log_settings(args: AckClusterConfig) -> dict[str, Any]:
    """Control-plane and audit logs as ``cs.ManagedKubernetes`` arguments: none when the config has none. The
    provider reads the components back in the order ACK returns them, which is the order sent."""
    logs, audit = args.control_plane_logs, args.audit_log
    settings: dict[str, Any] = {}
    if logs is not None:
        settings |= {
            "control_plane_log_components": logs.components,
            "control_plane_log_ttl": str(logs.ttl),
            "control_plane_log_project": logs.project,
        }
    if audit is not None:
        settings["audit_log_config"] = {"enabled": audit.enabled, "sls_project_name": audit.sls_project_name}
    return settings


def cluster_addon(addon: ClusterAddonConfig) -> cs.ManagedKubernetesAddonArgsDict:
    """One create-time addon as ``ManagedKubernetes.addons`` takes it, with only the fields the user set."""
    spec: cs.ManagedKubernetesAddonArgsDict = {"name": addon.name}
    if addon.version is not None:
        spec["version"] = addon.version
    if addon.config is not None:
        spec["config"] = canonical_json(addon.config)
    if addon.disabled:
        spec["disabled"] = True
    return spec


class AckClusterHandle(pulumi.ComponentResource):
    """What the fleet deploys ACS workloads through, whether the stack creates the cluster or only uses it."""

    cluster_id: pulumi.Output[str]
    """ACK's id of the cluster."""
    kubernetes_version: pulumi.Output[str]
    """The exact version ACK reports the cluster runs (the provider reads ``CurrentVersion`` back), not the one the
    stack asked for: they differ while an upgrade has not finished, or once one made outside Pulumi is refreshed."""
    api_server_endpoint: pulumi.Output[str]
    """The endpoint the kubeconfig uses: public, or private with ``slbInternetEnabled: false``."""
    addons: pulumi.Output[list[pulumi.Resource]]
    """What ACS workloads depend on, released once the installed addon versions passed the checks."""
    kubeconfig: pulumi.Output[str]
    """Always a secret; see ``components/alicloud/ack_access.py`` for its two modes."""
    target: ClusterTarget
    """Where everything created on this cluster goes: its Kubernetes provider, or per layer a rendering one."""
    ecs_nodes: list[pulumi.Resource]
    """What pods that must run on ECS nodes (Kueue's controller) wait for: the stack's node pool, if it has one."""

    def _hand_out(
        self,
        name: str,
        cluster_identifier: pulumi.Input[str],
        delete_unreachable: bool,
        render_to: str | None,
        grants: list[pulumi.Resource] | None = None,
    ) -> None:
        """Build the cluster's Kubernetes provider from :attr:`kubeconfig` and register the outputs; the last step
        of both kinds of cluster, once ``cluster_id``, ``kubernetes_version``, ``api_server_endpoint`` and
        ``kubeconfig`` are set. The provider depends on the RBAC ``grants``: the identity running ``pulumi`` may be
        one of them, so its objects are created after its role and deleted before the role is revoked."""
        self.target = cluster_target(
            name,
            self.kubeconfig,
            parent=self,
            cluster_identifier=cluster_identifier,
            delete_unreachable=delete_unreachable,
            depends_on=grants,
            render_to=render_to,
        )
        self.register_outputs(
            {
                "clusterId": self.cluster_id,
                "kubernetesVersion": self.kubernetes_version,
                "apiServerEndpoint": self.api_server_endpoint,
                "kubeconfig": self.kubeconfig,
            }
        )


class AckProCluster(AckClusterHandle):
    """One ACK managed Pro cluster with the ACK Virtual Node (and optionally a managed kube-scheduler) for ACS; its
    ``addons`` are the virtual node (and the managed scheduler)."""

    def __init__(
        self,
        name: str,
        args: AckClusterConfig,
        needs: ClusterNeeds,
        report: AckReport,
        opts: pulumi.ResourceOptions | None = None,
        *,
        render_to: str | None = None,
    ) -> None:
        """``needs`` is what the cluster's workloads need of its addons; ``report`` words what the deploy-time checks
        find under the keys of the cluster's entry. Names and deletion settings are the resolved
        config's (``cloud_name``, ``network_name``, ``deleteUnreachable``, ``deleteWithCluster``)."""
        super().__init__("elastic-capacity:alicloud:AckProCluster", name, None, opts)
        region = AlicloudProvider(f"{name}-alicloud", region=args.region, opts=pulumi.ResourceOptions(parent=self))
        child = pulumi.ResourceOptions(parent=self, provider=region)
        on_region = pulumi.InvokeOutputOptions(parent=self, provider=region)
        tags = dict(args.tags)

        network = ack_network(name, args.network, tags, child, report, physical_name=args.network_name)
        running = _running_cluster(args, report, on_region)
        pin = _version_pin(name, args, report, running, on_region, self)
        held = pin.version.apply(lambda v: ack_checks.held_matches_key(report, args.kubernetes_version, v))
        cluster = _cluster(name, args, held, network, tags, child)
        node_pool = _node_pools(name, cluster, args, _Pools(network, tags, _pools_follow(pin, cluster)), child)
        self.ecs_nodes = [node_pool] if node_pool else []

        installed = _installed_addons(cluster, args, needs, on_region)
        # The addon's controllers are pods too: they, and CoreDNS for the workloads, need the ECS nodes first.
        after_pool = pulumi.ResourceOptions.merge(
            child, pulumi.ResourceOptions(depends_on=[node_pool] if node_pool else None)
        )
        virtual_node = ack_addons.virtual_node(name, cluster, args, installed, after_pool)
        scheduler = ack_addons.scheduler(name, cluster, args, installed, child)
        self.addons = ack_addons.checked_addons(virtual_node, scheduler, installed, needs, report)

        self.cluster_id = cluster.id
        self.kubernetes_version = cluster.version
        self.api_server_endpoint = cluster.connections.apply(
            lambda connections: api_server_endpoint(connections, public=args.slb_internet_enabled)
        )
        self.kubeconfig = cluster_kubeconfig(args, cluster, self.api_server_endpoint, region, self, report)
        self._hand_out(
            name,
            cluster.id,
            delete_unreachable=args.delete_unreachable,
            render_to=render_to,
            grants=rbac_grants(name, cluster, args.rbac, child),
        )


def _running_cluster(
    args: AckClusterConfig, report: AckReport, on_region: pulumi.InvokeOutputOptions
) -> pulumi.Output[Any | None]:
    """The cluster of this name ACK runs in the region, if any, as ``cs.get_clusters`` lists it (one list call,
    ``DescribeClustersForRegion``); a zone added to a running cluster is warned about on the way."""
    listed = cs.get_clusters_output(cluster_name=args.cloud_name, cluster_type="ManagedKubernetes", opts=on_region)
    check = AckCheck.ZONES_ADDED if args.network.creates_vpc else AckCheck.VSWITCHES_ADDED
    zones = len(args.network.zones) if args.network.creates_vpc else len(args.network.vswitch_ids)

    def found(clusters: list[Any]) -> Any | None:
        running = ack_checks.running_cluster(args.cloud_name, clusters)
        ack_checks.zones_added(report, check, zones, running)
        return running

    return listed.clusters.apply(found)


def _version_pin(
    name: str,
    args: AckClusterConfig,
    report: AckReport,
    running: pulumi.Output[Any | None],
    on_region: pulumi.InvokeOutputOptions,
    parent: pulumi.Resource,
) -> ClusterVersion:
    """The version the cluster runs: at create the configured version, or the newest patch of the configured minor,
    once ACK offers it in the region; after that the deployed one until ``kubernetesVersion`` changes, or the newer
    one ACK reports the cluster runs after an upgrade outside Pulumi
    (:class:`~components.waiters.version_pin.ClusterVersion`, whose ``version`` the cluster gets through a warning when
    it no longer matches the key)."""
    offered = cs.get_kubernetes_version_output(cluster_type="ManagedKubernetes", profile="Default", opts=on_region)
    offer = offered.metadatas.apply(
        lambda metadatas: ack_checks.kubernetes_version_offer(
            report, args.kubernetes_version, [m.version for m in metadatas]
        )
    )
    return ClusterVersion(
        f"{name}-version",
        key=report.key(AckCheck.VERSION_OFFERED),
        requested=args.kubernetes_version,
        offer=offer,
        running=running.apply(lambda cluster: cluster.current_version if cluster is not None else None),
        opts=pulumi.ResourceOptions(parent=parent),
    )


def _pools_follow(pin: ClusterVersion, cluster: cs.ManagedKubernetes) -> pulumi.Output[Any]:
    """Every node pool's ``upgrade_policy``: in the run that moves the pin, the version the control plane reports
    once its upgrade is done (``cluster.version``, so the pools ask after it and never for more, as ACK requires:
    https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/node-pool-updates), otherwise
    none. The provider calls ``UpgradeClusterNodepool`` on every update of a pool that has the block and never reads
    it back, and says to drop it once the upgrade is done "to prevent unintended re-upgrades" (``upgrade_policy`` in
    https://github.com/aliyun/terraform-provider-alicloud/blob/master/website/docs/r/cs_kubernetes_node_pool.html.markdown);
    so the run after an upgrade removes it, an update that calls nothing."""
    return pin.upgrade.apply(
        lambda moving: cluster.version.apply(lambda runs: {"kubernetes_version": runs}) if moving else None
    )


def _cluster(
    name: str,
    args: AckClusterConfig,
    version: pulumi.Input[str],
    network: AckNetwork,
    tags: dict[str, str],
    opts: pulumi.ResourceOptions,
) -> cs.ManagedKubernetes:
    return cs.ManagedKubernetes(
        f"{name}-cluster",
        name=args.cloud_name,
        cluster_spec=args.cluster_spec,
        version=version,
        # UpgradeCluster moves only the control plane (MasterOnly); the node pools follow with their own request.
        upgrade_policy={"control_plane_only": True},
        vswitch_ids=network.vswitch_ids,
        pod_vswitch_ids=network.pod_vswitch_ids,
        service_cidr=str(args.service_cidr),
        timezone=args.timezone,
        proxy_mode=args.proxy_mode,
        deletion_protection=args.deletion_protection,
        delete_options=delete_options(args) or None,
        # Egress comes from the NAT built here (new VPC) or already exists (existing vSwitches).
        new_nat_gateway=False,
        slb_internet_enabled=args.slb_internet_enabled,
        skip_set_certificate_authority=True,
        **security_settings(args),
        **log_settings(args),
        addons=[cluster_addon(addon) for addon in args.addons],
        tags=tags,
        opts=pulumi.ResourceOptions.merge(
            opts,
            pulumi.ResourceOptions(
                depends_on=network.snat_entries,
                custom_timeouts=CLUSTER_TIMEOUTS,
                # pod_cidr is create-only: a read-back one would replace the cluster on the next preview
                # (resource_alicloud_cs_managed_kubernetes.go, https://github.com/aliyun/terraform-provider-alicloud).
                ignore_changes=CLUSTER_IGNORES,
                # A destroy of a cluster ACK would refuse to delete then fails in its preview, before it deletes
                # the workloads, the virtual node and the node pool that depend on the cluster.
                protect=args.deletion_protection,
            ),
        ),
    )


@dataclasses.dataclass(frozen=True)
class _Pools:
    """What every node pool of a cluster shares: its vSwitches, its tags, and the upgrade it follows."""

    network: AckNetwork
    tags: dict[str, str]
    follow: pulumi.Input[Any]


def _node_pools(
    name: str, cluster: cs.ManagedKubernetes, args: AckClusterConfig, shared: _Pools, opts: pulumi.ResourceOptions
) -> cs.NodePool | None:
    """Every ECS pool of the cluster; the system pool, which is returned, first. When a user pool autoscales, ACK's
    node scaling is switched on for the cluster after it exists: a pool scales only "after you enable it at the
    cluster level" (https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/auto-scaling-of-nodes),
    so those pools wait for it. Its delete calls nothing (``resourceAlicloudCSAutoscalingConfigDelete``): ``destroy``
    leaves node scaling on in a cluster it does not delete."""
    system = _node_pool(name, cluster, args.node_pool, shared, opts) if args.node_pool else None
    scaling: list[pulumi.Resource] = []
    if any(pool.autoscaling for pool in args.user_pools):
        scaling.append(cs.AutoscalingConfig(f"{name}-node-scaling", cluster_id=cluster.id, **NODE_SCALING, opts=opts))
    for pool in args.user_pools:
        after = pulumi.ResourceOptions(depends_on=scaling) if pool.autoscaling else None
        _node_pool(name, cluster, pool, shared, pulumi.ResourceOptions.merge(opts, after))
    return system


def _node_pool(
    name: str,
    cluster: cs.ManagedKubernetes,
    pool: AckNodePoolConfig,
    shared: _Pools,
    opts: pulumi.ResourceOptions,
) -> cs.NodePool:
    # With autoscaling the autoscaler moves the pool's desired size and the provider reads it back; ignoring it
    # keeps `pulumi up` from resizing the pool to the initial count on every run.
    scaling = pulumi.ResourceOptions(ignore_changes=AUTOSCALED_POOL_IGNORES) if pool.autoscaling else None
    return cs.NodePool(
        f"{name}-{pool.name}",
        cluster_id=cluster.id,
        node_pool_name=pool.name,
        vswitch_ids=shared.network.vswitch_ids,
        instance_types=pool.instance_types,
        desired_size=str(pool.initial_size),
        scaling_config=autoscaling(pool),
        system_disk_category=pool.system_disk_category,
        system_disk_size=pool.system_disk_size,
        labels=[{"key": key, "value": value} for key, value in pool.labels.items()],
        taints=[{"key": t.key, "value": t.value, "effect": t.effect} for t in pool.taints],
        spot_strategy=pool.spot_strategy,
        # Sent as written: the provider reads ACK's string back unchanged (its acceptance test sends "0.60" and
        # finds "0.60" in the state), so rewriting it ("0.6") could only make a diff.
        spot_price_limits=[
            {"instance_type": instance_type, "price_limit": price}
            for instance_type, price in pool.spot_price_limits.items()
        ]
        or None,
        tags=shared.tags,
        upgrade_policy=shared.follow,
        opts=pulumi.ResourceOptions.merge(opts, scaling),
    )


def autoscaling(pool: AckNodePoolConfig) -> cs.NodePoolScalingConfigArgsDict | None:
    """The pool's ``scaling_config``, or ``None`` for a fixed pool. ``type`` is always sent, as what the pool is made
    of (:attr:`~components.config.ack.node_pool.AckNodePoolConfig.scaling_type`): the provider reads ACK's
    ``auto_scaling.type`` back into it, and as an Optional, non-Computed field an unset one would show ACK's default
    ``cpu`` as a change on every preview (``resourceAliCloudAckNodepoolRead`` in
    https://github.com/aliyun/terraform-provider-alicloud/blob/master/alicloud/resource_alicloud_cs_kubernetes_node_pool.go)."""
    if not pool.autoscaling:
        return None
    return {"enable": True, "type": pool.scaling_type, "min_size": pool.minimum, "max_size": pool.max_size}


def _installed_addons(
    cluster: cs.ManagedKubernetes, args: AckClusterConfig, needs: ClusterNeeds, on_region: pulumi.InvokeOutputOptions
) -> pulumi.Output[dict[str, str]]:
    """Name to installed version of the managed addons, read only when something uses it: a pin, scheduler
    parameters, or a kube-scheduler the workloads need; otherwise empty. ``cs.get_kubernetes_addons`` is not cheap:
    on every run it lists every addon ACK offers and asks for each one's instance (and the installed ones'
    metadata), applying ``name_regex`` only afterwards (``DescribeCsKubernetesAllAvailableAddons`` in
    https://github.com/aliyun/terraform-provider-alicloud/blob/master/alicloud/service_alicloud_cs.go)."""
    if args.virtual_node.version is None and args.scheduler is None and not needs.scheduler:
        return pulumi.Output.from_input({})
    listed = cs.get_kubernetes_addons_output(cluster_id=cluster.id, name_regex=MANAGED_ADDON_NAMES, opts=on_region)
    return listed.addons.apply(lambda addons: {addon.name: addon.current_version for addon in addons})
