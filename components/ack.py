"""An ACK managed Pro cluster ready for ACS compute: network, cluster, virtual node, scheduler, kubeconfig.

Every Alibaba Cloud resource goes through this cluster's own region provider, so one stack can hold clusters in
several regions. ACS workloads must depend on :attr:`AckProCluster.addons`: pods created before the virtual node
exists would never reach ACS.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pulumi
from pulumi_alicloud import Provider as AlicloudProvider
from pulumi_alicloud import cs, ecs, vpc
from pulumi_kubernetes import Provider as KubernetesProvider

from components.cluster_access import kubernetes_provider
from components.config.ack import AckClusterConfig, ClusterAddonConfig, NetworkConfig, NodePoolConfig


def canonical_json(value: Any) -> str:
    """Compact JSON with sorted keys: the form ACK reads addon config back in, so an unchanged config never diffs."""
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


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


def first_api_server_endpoint(connections: Sequence[cs.outputs.ManagedKubernetesConnection] | None) -> str | None:
    """The public API endpoint; ``connections`` is a list in pulumi-alicloud 4.x (reference section 1.2)."""
    return connections[0].api_server_internet if connections else None


class _Network:
    """The cluster's vSwitches: created in a new VPC with NAT egress, or taken from the configuration."""

    def __init__(self, name: str, network: NetworkConfig, tags: dict[str, str], opts: pulumi.ResourceOptions) -> None:
        self.snat_entries: list[vpc.SnatEntry] = []
        if not network.creates_vpc:
            self.vswitch_ids: list[pulumi.Input[str]] = list(network.vswitch_ids)
            self.pod_vswitch_ids: list[pulumi.Input[str]] = list(network.pod_vswitch_ids)
            return
        network_vpc = vpc.Network(f"{name}-vpc", vpc_name=name, cidr_block=str(network.vpc_cidr), tags=tags, opts=opts)
        switches: dict[str, list[vpc.Switch]] = {"node": [], "pod": []}
        for zone in network.zones:
            for role, cidr in (("node", zone.node_cidr), ("pod", zone.pod_cidr)):
                switch_name = f"{name}-{role}-{zone.zone_id}"
                switches[role].append(
                    vpc.Switch(
                        switch_name,
                        vswitch_name=switch_name,
                        vpc_id=network_vpc.id,
                        cidr_block=str(cidr),
                        zone_id=zone.zone_id,
                        tags=tags,
                        opts=opts,
                    )
                )
        nat = vpc.NatGateway(
            f"{name}-nat",
            vpc_id=network_vpc.id,
            nat_gateway_name=name,
            nat_type="Enhanced",
            payment_type="PayAsYouGo",
            network_type="internet",
            vswitch_id=switches["node"][0].id,
            tags=tags,
            opts=opts,
        )
        eip = ecs.EipAddress(
            f"{name}-nat-eip",
            address_name=f"{name}-nat",
            bandwidth=str(network.nat_bandwidth),
            internet_charge_type=network.eip_internet_charge_type,
            payment_type="PayAsYouGo",
            tags=tags,
            opts=opts,
        )
        association = ecs.EipAssociation(
            f"{name}-nat-eip-association", allocation_id=eip.id, instance_id=nat.id, instance_type="Nat", opts=opts
        )
        # Every vSwitch gets SNAT through the EIP; an entry made before the association would have no public IP.
        after_association = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=[association]))
        self.snat_entries = [
            vpc.SnatEntry(
                f"{name}-snat-{role}-{zone.zone_id}",
                snat_table_id=nat.snat_table_ids,
                source_vswitch_id=switch.id,
                snat_ip=eip.ip_address,
                opts=after_association,
            )
            for role, role_switches in switches.items()
            for zone, switch in zip(network.zones, role_switches, strict=True)
        ]
        self.vswitch_ids = [switch.id for switch in switches["node"]]
        self.pod_vswitch_ids = [switch.id for switch in switches["pod"]]


class AckProCluster(pulumi.ComponentResource):
    """One ACK managed Pro cluster with the ACK Virtual Node (and optionally a pinned kube-scheduler) for ACS."""

    cluster: cs.ManagedKubernetes
    kubeconfig: pulumi.Output[str]
    """A temporary kubeconfig (public endpoint), always a secret."""
    provider: KubernetesProvider
    virtual_node: cs.KubernetesAddon
    scheduler: cs.KubernetesAddon | None
    addons: list[pulumi.Resource]
    """What ACS workloads must depend on: the virtual node, and the scheduler when pinned."""
    cluster_id: pulumi.Output[str]
    api_server_endpoint: pulumi.Output[str | None]

    def __init__(self, name: str, args: AckClusterConfig, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("elastic-capacity:alicloud:AckProCluster", name, None, opts)
        region = AlicloudProvider(f"{name}-alicloud", region=args.region, opts=pulumi.ResourceOptions(parent=self))
        child = pulumi.ResourceOptions(parent=self, provider=region)
        tags = dict(args.tags)

        network = _Network(name, args.network, tags, child)
        self.cluster = self._cluster(name, args, network, tags, child)
        self.cluster_id = self.cluster.id
        self.api_server_endpoint = self.cluster.connections.apply(first_api_server_endpoint)

        self.virtual_node = cs.KubernetesAddon(
            f"{name}-ack-virtual-node",
            cluster_id=self.cluster.id,
            name="ack-virtual-node",
            version=args.virtual_node.version,
            cleanup_cloud_resources=args.virtual_node.cleanup_cloud_resources,
            opts=child,
        )
        self.scheduler = None
        if args.scheduler is not None:
            self.scheduler = cs.KubernetesAddon(
                f"{name}-kube-scheduler",
                cluster_id=self.cluster.id,
                name="kube-scheduler",
                version=args.scheduler.version,
                config=canonical_json(args.scheduler.config) if args.scheduler.config is not None else None,
                opts=child,
            )
        self.addons = [self.virtual_node, *([self.scheduler] if self.scheduler is not None else [])]

        if args.node_pool is not None:
            self._node_pool(name, args.node_pool, network.vswitch_ids, tags, child)

        credential = cs.get_cluster_credential_output(
            cluster_id=self.cluster.id,
            temporary_duration_minutes=args.credential_minutes,
            opts=pulumi.InvokeOutputOptions(parent=self, provider=region),
        )
        self.kubeconfig = pulumi.Output.secret(credential.kube_config)
        self.provider = kubernetes_provider(name, self.kubeconfig, parent=self, cluster_identifier=self.cluster.id)
        self.register_outputs(
            {
                "cluster_id": self.cluster_id,
                "api_server_endpoint": self.api_server_endpoint,
                "kubeconfig": self.kubeconfig,
            }
        )

    def _cluster(
        self,
        name: str,
        args: AckClusterConfig,
        network: _Network,
        tags: dict[str, str],
        opts: pulumi.ResourceOptions,
    ) -> cs.ManagedKubernetes:
        logs = args.control_plane_logs
        audit = args.audit_log
        return cs.ManagedKubernetes(
            f"{name}-cluster",
            name=args.name,
            cluster_spec=args.cluster_spec,
            version=args.kubernetes_version,
            vswitch_ids=network.vswitch_ids,
            pod_vswitch_ids=network.pod_vswitch_ids,
            service_cidr=str(args.service_cidr),
            timezone=args.timezone,
            proxy_mode=args.proxy_mode,
            deletion_protection=args.deletion_protection,
            enable_rrsa=args.enable_rrsa,
            # Egress comes from the NAT built here (new VPC) or already exists (existing vSwitches).
            new_nat_gateway=False,
            slb_internet_enabled=args.slb_internet_enabled,
            skip_set_certificate_authority=True,
            is_enterprise_security_group=True,
            control_plane_log_components=logs.components if logs else None,
            control_plane_log_ttl=str(logs.ttl) if logs else None,
            control_plane_log_project=logs.project if logs else None,
            audit_log_config=(
                {"enabled": audit.enabled, "sls_project_name": audit.sls_project_name} if audit else None
            ),
            addons=[cluster_addon(addon) for addon in args.addons],
            tags=tags,
            opts=pulumi.ResourceOptions.merge(
                opts,
                pulumi.ResourceOptions(
                    depends_on=network.snat_entries,
                    custom_timeouts=pulumi.CustomTimeouts(create="90m", update="60m", delete="60m"),
                ),
            ),
        )

    def _node_pool(
        self,
        name: str,
        pool: NodePoolConfig,
        vswitch_ids: list[pulumi.Input[str]],
        tags: dict[str, str],
        opts: pulumi.ResourceOptions,
    ) -> cs.NodePool:
        # With autoscaling the autoscaler moves the pool's desired size and the provider reads it back; ignoring it
        # keeps `pulumi up` from resizing the pool to the initial count on every run.
        scaling = pulumi.ResourceOptions(ignore_changes=["desiredSize"]) if pool.autoscaling else None
        return cs.NodePool(
            f"{name}-{pool.name}",
            cluster_id=self.cluster.id,
            node_pool_name=pool.name,
            vswitch_ids=vswitch_ids,
            instance_types=pool.instance_types,
            desired_size=str(pool.initial_size),
            scaling_config=(
                {"enable": True, "min_size": pool.min_size, "max_size": pool.max_size} if pool.autoscaling else None
            ),
            system_disk_category=pool.system_disk_category,
            system_disk_size=pool.system_disk_size,
            labels=[{"key": key, "value": value} for key, value in pool.labels.items()],
            taints=[{"key": t.key, "value": t.value, "effect": t.effect} for t in pool.taints],
            tags=tags,
            opts=pulumi.ResourceOptions.merge(opts, scaling),
        )
