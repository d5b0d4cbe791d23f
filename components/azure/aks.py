"""A new AKS cluster for Kueue: the cluster, its autoscaling user pools and the Kubernetes provider on it.

Like :class:`~components.azure.existing_cluster.ExistingCluster` it ends in a secret ``kubeconfig`` and a Kubernetes
``provider`` built from it, so the Kueue components never need to know where their cluster came from.
"""

from __future__ import annotations

import base64
import json
from typing import Any, NamedTuple

import pulumi
from pulumi_azure_native import authorization, containerservice, resources

from components.azure import aks_catalogue
from components.azure.access_wait import ClusterAccess
from components.azure.kubelogin import non_interactive
from components.cluster_target import ClusterTarget, cluster_target
from components.config.aks.aks import API_SERVER_ACCESS_KEY, KUBERNETES_VERSION_KEY, AksConfig
from components.config.aks.entra_id import EntraIdConfig, KubeloginConfig
from components.config.aks.maintenance import MaintenanceWindowConfig
from components.config.aks.network import AksNetworkConfig, ApiServerAccessConfig
from components.config.aks.pools import AksNodePoolConfig, UserPoolConfig
from components.waiters.version_pin import pinned_version

CREATE_ONLY_POOL_PROPERTIES = [
    "vmSize",
    "scaleSetPriority",
    "scaleSetEvictionPolicy",
    "spotMaxPrice",
    "gpuInstanceProfile",
    "gpuProfile",
    "availabilityZones",
    "maxPods",
]
"""What AKS fixes when a pool is created (https://learn.microsoft.com/azure/aks/manage-node-pools#limitations: the VM
size; https://learn.microsoft.com/azure/aks/spot-node-pool#limitations: priority, eviction policy and price;
https://learn.microsoft.com/azure/aks/gpu-multi-instance: the MIG profile; the GPU driver, zones and max pods)."""
AUTOSCALED_SYSTEM_COUNT = "agentPoolProfiles[0].count"
"""The inline system pool's node count, as ``ignore_changes`` needs it (nested paths use wire names)."""


"""The stack key the access waiter names when the API server cannot be reached."""

FIRST_DEPLOYER = ["principalId", "principalType"]
"""What the first deployer's cluster-admin assignment ignores: the identity of later runners."""
AKS_RBAC_CLUSTER_ADMIN = "b1ff04bb-8a4e-4dc4-8eb5-8693973ce19b"
"""The built-in role "Azure Kubernetes Service RBAC Cluster Admin"
(https://learn.microsoft.com/azure/role-based-access-control/built-in-roles/containers)."""


class Caller(NamedTuple):
    """The identity the azure-native provider signs in as: its ids, and its ARM access token (a secret)."""

    client: pulumi.Output[authorization.GetClientConfigResult]
    """``getClientConfig``'s answer: object, client, tenant and subscription ids."""
    token: pulumi.Output[str]


def principal_type_of(token: str) -> str:
    """ARM's ``principalType`` of whoever holds the access ``token``: a user's token carries delegated scopes
    (``scp``), an application's (a service principal or managed identity) never does
    (https://learn.microsoft.com/entra/identity-platform/access-token-claims-reference)."""
    try:
        payload = token.split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    except (IndexError, ValueError) as error:
        raise ValueError(
            f"the ARM access token is not a JWT ({error}): cannot tell a user from an application"
        ) from None
    return "User" if "scp" in claims else "ServicePrincipal"


def decode_kubeconfig(credentials: containerservice.ListManagedClusterUserCredentialsResult) -> str:
    """The first kubeconfig of an AKS credentials answer, which ARM returns base64-encoded."""
    return base64.b64decode(credentials.kubeconfigs[0].value).decode()


def aks_user_kubeconfig(
    resource_group_name: pulumi.Input[str],
    cluster_name: pulumi.Input[str],
    login: KubeloginConfig,
    parent: pulumi.Resource,
    opts: pulumi.InvokeOutputOptions | None = None,
) -> pulumi.Output[str]:
    """The cluster-user kubeconfig of an AKS cluster, signing in without a prompt, as a secret.

    ``format: exec`` makes AKS answer an Entra ID cluster with a kubelogin user, which :func:`non_interactive` turns
    into ``login``; AKS ignores the format for a cluster with local accounts. Its only dependencies are its inputs,
    so whatever uses it waits for the cluster and nothing else.
    """
    credentials = containerservice.list_managed_cluster_user_credentials_output(
        resource_group_name=resource_group_name,
        resource_name=cluster_name,
        format="exec",
        opts=opts or pulumi.InvokeOutputOptions(parent=parent),
    )
    return pulumi.Output.secret(credentials.apply(lambda c: non_interactive(decode_kubeconfig(c), login)))


def _pool_settings(
    pool: AksNodePoolConfig, kubernetes_version: pulumi.Input[str], tags: dict[str, str]
) -> dict[str, Any]:
    """The arguments an inline pool profile and a separate ``AgentPool`` share."""
    return {
        "vm_size": pool.vm_size,
        "os_type": containerservice.OSType.LINUX,
        "os_sku": pool.os_sku,
        "type": containerservice.AgentPoolType.VIRTUAL_MACHINE_SCALE_SETS,
        "orchestrator_version": kubernetes_version,
        "availability_zones": pool.availability_zones,
        "max_pods": pool.max_pods,
        "tags": tags,
    }


def _spot_settings(pool: UserPoolConfig) -> dict[str, Any]:
    """ARM's Spot properties, every one sent on a Spot pool (eviction ``Delete`` and price -1 are AKS's defaults, so
    the pool read back matches); a Regular pool sends none, as ARM refuses them without Spot."""
    if not pool.spot:
        return {}
    return {
        "scale_set_priority": containerservice.ScaleSetPriority.SPOT,
        "scale_set_eviction_policy": pool.eviction_policy or containerservice.ScaleSetEvictionPolicy.DELETE,
        "spot_max_price": pool.spot_max_price if pool.spot_max_price is not None else -1,
    }


def _aad_profile(entra_id: EntraIdConfig | None) -> containerservice.ManagedClusterAADProfileArgs | None:
    if entra_id is None:
        return None
    return containerservice.ManagedClusterAADProfileArgs(
        managed=True,
        enable_azure_rbac=True,
        admin_group_object_ids=[str(group) for group in entra_id.admin_group_object_ids] or None,
    )


def _network_profile(network: AksNetworkConfig) -> containerservice.ContainerServiceNetworkProfileArgs:
    """ARM ``networkProfile``, with the network policy engine the config chose for the dataplane."""
    return containerservice.ContainerServiceNetworkProfileArgs(
        network_plugin=network.plugin,
        network_plugin_mode=network.plugin_mode,
        network_dataplane=network.dataplane,
        network_policy=network.effective_policy,
        pod_cidr=network.pod_cidr,
        service_cidr=network.service_cidr,
        dns_service_ip=network.dns_service_ip,
        outbound_type=network.outbound_type,
    )


def _api_server_access(access: ApiServerAccessConfig) -> containerservice.ManagedClusterAPIServerAccessProfileArgs:
    """ARM ``apiServerAccessProfile``. ``enablePrivateCluster`` is always sent (it is fixed from creation on), and so
    is the range list, empty included: an empty list is how AKS is told to drop the ranges it had
    (``az aks update --api-server-authorized-ip-ranges ""``)."""
    return containerservice.ManagedClusterAPIServerAccessProfileArgs(
        authorized_ip_ranges=list(access.authorized_ip_ranges),
        enable_private_cluster=access.private_cluster,
    )


def _maintenance_window(window: MaintenanceWindowConfig) -> containerservice.MaintenanceWindowArgs:
    """A weekly ARM ``maintenanceWindow``, every field sent (the SDK would otherwise default the duration to 24)."""
    return containerservice.MaintenanceWindowArgs(
        schedule=containerservice.ScheduleArgs(
            weekly=containerservice.WeeklyScheduleArgs(
                day_of_week=window.day_of_week, interval_weeks=window.interval_weeks
            )
        ),
        start_time=window.start_time,
        duration_hours=window.duration_hours,
        utc_offset=window.utc_offset,
    )


class AksCluster(pulumi.ComponentResource):
    """An AKS cluster whose user pools the cluster autoscaler grows when Kueue files a ProvisioningRequest."""

    kubeconfig: pulumi.Output[str]
    """Cluster-user kubeconfig (secret); depends on the cluster only, not on the user pools."""
    target: ClusterTarget
    """Where every object on the cluster goes (its Kubernetes provider, or per layer a rendering one); with
    ``entraId`` the applying provider and every waiter wait until the cluster-admin roles work."""
    cluster_name: pulumi.Output[str]
    """The managed cluster's name."""
    resource_group_name: pulumi.Output[str]
    """The resource group the cluster is in (created by the stack or not)."""
    oidc_issuer_url: pulumi.Output[str | None]
    """The cluster's OIDC issuer, which workload-identity federated credentials name; ``None`` without
    ``oidcIssuer``."""
    kubernetes_version: pulumi.Output[str]
    """What the cluster and its pools run: the stack's ``kubernetesVersion`` as created, held until it changes."""
    user_pools: dict[str, containerservice.AgentPool]
    """Pool name -> the autoscaling user pool; what must exist before Kueue can see ProvisioningRequests served."""
    maintenance: dict[str, containerservice.MaintenanceConfiguration]
    """ARM configuration name -> the planned-maintenance window of that upgrade channel."""
    cluster_id: pulumi.Output[str]
    """The managed cluster's ARM id (what a data collection rule association names)."""

    def __init__(
        self,
        name: str,
        args: AksConfig,
        opts: pulumi.ResourceOptions | None = None,
        *,
        protect: bool = False,
        secrets_mutable: bool = False,
        render_to: str | None = None,
        prometheus_metrics: bool = False,
    ) -> None:
        """``protect`` (production stacks) puts Pulumi's ``protect`` on the managed cluster only: a destroy or a
        replacement of it fails before anything is deleted; the pools and the rest stay changeable.
        ``secrets_mutable`` goes to the Kubernetes provider (:func:`~components.cluster_target.cluster_target`).
        ``prometheus_metrics`` turns on Azure Monitor's managed Prometheus add-on (``monitoring.collector:
        azure-managed-prometheus``); off, the profile is not sent, so a stack without monitoring keeps what it had."""
        super().__init__("elastic-capacity:azure:AksCluster", name, None, opts)
        invoke = pulumi.InvokeOutputOptions(parent=self)
        caller = Caller(
            authorization.get_client_config_output(opts=invoke),
            pulumi.Output.secret(authorization.get_client_token_output(opts=invoke).token),
        )
        self.resource_group_name = self._resource_group(name, args)
        self.kubernetes_version = self._pinned_version(name, args, caller)
        cluster = self._managed_cluster(name, args, protect, prometheus_metrics)
        self.cluster_name = cluster.name
        self.cluster_id = cluster.id
        self.oidc_issuer_url = cluster.oidc_issuer_profile.apply(
            lambda profile: profile.issuer_url if profile else None
        )
        # AKS refuses a pool or maintenance operation while another runs on the cluster ("Another agentpool
        # operation ... is in progress", OperationNotAllowed): each waits for the one before it.
        previous: pulumi.Resource = cluster
        self.user_pools = {}
        for pool in args.user_pools:
            previous = self.user_pools[pool.name] = self._user_pool(name, args, pool, cluster, after=previous)
        self.maintenance = {}
        for config_name, window in args.maintenance_windows().items():
            previous = self.maintenance[config_name] = self._maintenance(name, config_name, window, cluster, previous)

        login = args.entra_id.kubelogin if args.entra_id else KubeloginConfig()
        self.kubeconfig = aks_user_kubeconfig(self.resource_group_name, cluster.name, login, parent=self)
        # The deployer's cluster-admin role is only for Pulumi's own Kubernetes calls: a rendering provider makes none.
        entra_id = args.entra_id
        access = (
            self._deployer_access(name, args, entra_id, cluster, caller) if entra_id and render_to is None else None
        )
        self.target = cluster_target(
            name,
            self.kubeconfig,
            parent=self,
            cluster_identifier=cluster.id,
            delete_unreachable=args.delete_unreachable,
            secrets_mutable=secrets_mutable,
            depends_on=[access] if access else None,
            render_to=render_to,
        )

        self.register_outputs(
            {
                "kubeconfig": self.kubeconfig,
                "clusterName": self.cluster_name,
                "resourceGroupName": self.resource_group_name,
                "oidcIssuerUrl": self.oidc_issuer_url,
            }
        )

    def _deployer_access(
        self,
        name: str,
        args: AksConfig,
        entra_id: EntraIdConfig,
        cluster: containerservice.ManagedCluster,
        caller: Caller,
    ) -> ClusterAccess:
        """The waiter that completes once the cluster-admin roles have reached the cluster for the identity running
        Pulumi; it knows what ``apiServerAccess`` lets through, for when it cannot reach the API server."""
        roles = self._cluster_admins(name, entra_id, cluster, caller)
        return ClusterAccess(
            f"{name}-deployer-access",
            role_assignment_ids=[role.id for role in roles],
            cluster_id=cluster.id,
            kubeconfig=self.kubeconfig,
            api_server_access_key=API_SERVER_ACCESS_KEY,
            authorized_ip_ranges=args.api_server_access.authorized_ip_ranges,
            opts=pulumi.ResourceOptions(parent=self, depends_on=roles),
        )

    def _cluster_admins(
        self, name: str, entra_id: EntraIdConfig, cluster: containerservice.ManagedCluster, caller: Caller
    ) -> list[authorization.RoleAssignment]:
        """With Azure RBAC no identity has Kubernetes rights of its own: grant cluster admin on this cluster only to
        ``aks.entraId.clusterAdmins``, or to the identity running the first ``up``, so the Kubernetes provider can
        create Kueue and the queues. That first identity's assignment ignores later runners (its principal is
        create-only in ARM, and would otherwise follow whoever previews), and names the kind of principal it is: the
        SDK would send ``User``, which ARM refuses for a service principal (``UnmatchedPrincipalType``)."""
        role = caller.client.subscription_id.apply(
            lambda sub: (
                f"/subscriptions/{sub}/providers/Microsoft.Authorization/roleDefinitions/{AKS_RBAC_CLUSTER_ADMIN}"
            )
        )
        if not entra_id.cluster_admins:
            return [
                authorization.RoleAssignment(
                    f"{name}-deployer-cluster-admin",
                    principal_id=caller.client.object_id,
                    principal_type=pulumi.Output.unsecret(caller.token.apply(principal_type_of)),
                    role_definition_id=role,
                    scope=cluster.id,
                    opts=pulumi.ResourceOptions(parent=self, ignore_changes=FIRST_DEPLOYER),
                )
            ]
        return [
            authorization.RoleAssignment(
                f"{name}-cluster-admin-{principal.object_id}",
                principal_id=str(principal.object_id),
                principal_type=principal.type,
                role_definition_id=role,
                scope=cluster.id,
                opts=pulumi.ResourceOptions(parent=self),
            )
            for principal in entra_id.cluster_admins
        ]

    def _resource_group(self, name: str, args: AksConfig) -> pulumi.Output[str]:
        """A new group, or the name of an existing one (``resourceGroup.create: false``)."""
        group = args.resource_group
        if not group.create:
            return pulumi.Output.from_input(group.name)
        created = resources.ResourceGroup(
            f"{name}-rg",
            resource_group_name=group.name,
            location=args.location,
            tags=args.tags,
            opts=pulumi.ResourceOptions(parent=self),
        )
        return created.name

    def _pinned_version(self, name: str, args: AksConfig, caller: Caller) -> pulumi.Output[str]:
        """The version the cluster and its pools run: checked against AKS's catalogue for the location when the
        cluster is created, then held until ``kubernetesVersion`` changes
        (:class:`~components.waiters.version_pin.ClusterVersion`)."""
        key = KUBERNETES_VERSION_KEY
        lts = args.support_plan == "AKSLongTermSupport" and args.sku_tier == "Premium"
        offer = pulumi.Output.all(caller.token, caller.client.subscription_id).apply(
            lambda answers: aks_catalogue.offer(
                key, args.kubernetes_version, lts, answers[0], answers[1], args.location
            )
        )
        # The offer is a version (or why none), read with the secret token: nothing of the token is in it.
        return pinned_version(f"{name}-version", key, args.kubernetes_version, pulumi.Output.unsecret(offer), self)

    def _managed_cluster(
        self, name: str, args: AksConfig, protect: bool, prometheus_metrics: bool
    ) -> containerservice.ManagedCluster:
        system = args.system_pool
        system_pool = containerservice.ManagedClusterAgentPoolProfileArgs(
            name=system.name,
            mode=containerservice.AgentPoolMode.SYSTEM,
            count=system.count,
            enable_auto_scaling=system.autoscales,
            min_count=system.min_count,
            max_count=system.max_count,
            node_taints=system.node_taints or None,
            node_labels=system.labels or None,
            **_pool_settings(system, self.kubernetes_version, args.tags),
        )
        return containerservice.ManagedCluster(
            f"{name}-cluster",
            resource_group_name=self.resource_group_name,
            resource_name_=args.cluster_name,
            location=args.location,
            dns_prefix=args.effective_dns_prefix,
            kubernetes_version=self.kubernetes_version,
            support_plan=args.support_plan,
            aad_profile=_aad_profile(args.entra_id),
            disable_local_accounts=args.entra_id.disable_local_accounts if args.entra_id else None,
            sku=containerservice.ManagedClusterSKUArgs(
                name=containerservice.ManagedClusterSKUName.BASE, tier=args.sku_tier
            ),
            identity=containerservice.ManagedClusterIdentityArgs(
                type=containerservice.ResourceIdentityType.SYSTEM_ASSIGNED
            ),
            agent_pool_profiles=[system_pool],
            auto_scaler_profile=containerservice.ManagedClusterPropertiesAutoScalerProfileArgs(
                **args.autoscaler_profile.model_dump(exclude_none=True)
            ),
            oidc_issuer_profile=containerservice.ManagedClusterOIDCIssuerProfileArgs(enabled=args.oidc_issuer),
            security_profile=containerservice.ManagedClusterSecurityProfileArgs(
                workload_identity=containerservice.ManagedClusterSecurityProfileWorkloadIdentityArgs(
                    enabled=args.workload_identity
                )
            ),
            network_profile=_network_profile(args.network),
            api_server_access_profile=_api_server_access(args.api_server_access),
            auto_upgrade_profile=containerservice.ManagedClusterAutoUpgradeProfileArgs(
                upgrade_channel=args.upgrade_channel, node_os_upgrade_channel=args.node_os_upgrade_channel
            ),
            azure_monitor_profile=containerservice.ManagedClusterAzureMonitorProfileArgs(
                metrics=containerservice.ManagedClusterAzureMonitorProfileMetricsArgs(enabled=True)
            )
            if prometheus_metrics
            else None,
            tags=args.tags,
            opts=pulumi.ResourceOptions(
                parent=self, ignore_changes=[AUTOSCALED_SYSTEM_COUNT] if system.autoscales else None, protect=protect
            ),
        )

    def _user_pool(
        self,
        name: str,
        args: AksConfig,
        pool: UserPoolConfig,
        cluster: containerservice.ManagedCluster,
        after: pulumi.Resource,
    ) -> containerservice.AgentPool:
        """One autoscaling pool, after ``after``; ``count`` is only its starting size, the autoscaler owns it
        afterwards. A change of what AKS fixes at creation replaces the pool (deleted first: the new one has the same
        name), so the preview shows a replacement where ARM would refuse an update."""
        gpu = pool.gpu_settings
        return containerservice.AgentPool(
            f"{name}-{pool.name}",
            resource_group_name=self.resource_group_name,
            resource_name_=cluster.name,
            agent_pool_name=pool.name,
            mode=containerservice.AgentPoolMode.USER,
            enable_auto_scaling=True,
            min_count=pool.min_count,
            max_count=pool.max_count,
            count=pool.initial_count,
            node_taints=pool.node_taints or None,
            node_labels=pool.node_labels or None,
            **_spot_settings(pool),
            gpu_profile=containerservice.GPUProfileArgs(driver=gpu.driver) if gpu else None,
            gpu_instance_profile=gpu.instance_profile if gpu else None,
            **_pool_settings(pool, self.kubernetes_version, args.tags),
            opts=pulumi.ResourceOptions(
                parent=self,
                depends_on=[after],
                ignore_changes=["count"],
                replace_on_changes=CREATE_ONLY_POOL_PROPERTIES,
                delete_before_replace=True,
            ),
        )

    def _maintenance(
        self,
        name: str,
        config_name: str,
        window: MaintenanceWindowConfig,
        cluster: containerservice.ManagedCluster,
        after: pulumi.Resource,
    ) -> containerservice.MaintenanceConfiguration:
        """One upgrade channel's weekly window, after ``after`` (the last pool, or the window before it)."""
        return containerservice.MaintenanceConfiguration(
            f"{name}-{config_name}",
            resource_group_name=self.resource_group_name,
            resource_name_=cluster.name,
            config_name=config_name,
            maintenance_window=_maintenance_window(window),
            opts=pulumi.ResourceOptions(parent=self, depends_on=[after]),
        )
