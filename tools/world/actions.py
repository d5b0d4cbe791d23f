"""What each thing the program registers or invokes asks of the cloud: the ARM actions, Azure RBAC for Kubernetes
data actions and RAM actions the real services authorize, read from the providers' own code.

azure-native (``pulumi-azure-native``) speaks ARM's REST API: a create first GETs the resource (its ``CanCreate``
existence check, https://github.com/pulumi/pulumi-azure-native/blob/master/provider/pkg/provider/crud/crud.go),
then PUTs it and reads it back, so creating needs ``<type>/read`` as well as ``<type>/write``; ARM authorizes each
request as ``<resource type>/<read|write|delete>`` or ``/<name>/action`` on the resource's scope
(https://learn.microsoft.com/azure/role-based-access-control/resource-provider-operations).

pulumi-alicloud bridges terraform-provider-alicloud: each operation runs the Terraform resource's Create, Read,
Update or Delete function, whose ``client.RpcPost``/``RoaGet``/SDK calls name the API operations; the RAM action of
an operation is ``<RamCode>:<API>`` (``vpc:`` for VPC, EIP and NAT Gateway, ``cs:`` for ACK), with documented
exceptions such as GrantPermissions -> ``cs:GrantPermission``. The tables follow
https://github.com/aliyun/terraform-provider-alicloud at :data:`TF_ALICLOUD_COMMIT`.
"""

from __future__ import annotations

from dataclasses import dataclass

TF_ALICLOUD_COMMIT = "81c43b6727a09e9da37b3d88818c3ba5fa17fa14"
"""terraform-provider-alicloud master of 2026-08-21 (after v1.289.0), the newest snapshot readable. pulumi-alicloud
4.0.0, which the program pins, documents resources 'available since v1.295.0', so it bridges a later provider: the
calls below may have changed since."""
TF_ALICLOUD = f"https://github.com/aliyun/terraform-provider-alicloud/blob/{TF_ALICLOUD_COMMIT}/alicloud"
PULUMI_ALICLOUD_MAPPING = (
    "https://github.com/pulumi/pulumi-alicloud/blob/9d2b1e47cca886019a620b27556e2c7bc0597998/provider/resources.go"
)
"""Where pulumi-alicloud maps its type tokens to Terraform resources and data sources (a token it does not list,
such as ``cs/getClusters``, is derived from the Terraform name, ``alicloud_cs_clusters``)."""

OPERATIONS = ("create", "read", "update", "delete")

# --- Azure Resource Manager ------------------------------------------------------------------------------------------

ARM_TYPES_SOURCE = "https://learn.microsoft.com/azure/templates/"
"""The ARM template reference, one page per resource type (e.g. .../microsoft.containerservice/managedclusters)."""

ARM_RESOURCE_TYPES: dict[str, str] = {
    "azure-native:resources:ResourceGroup": "Microsoft.Resources/resourceGroups",
    "azure-native:containerservice:ManagedCluster": "Microsoft.ContainerService/managedClusters",
    "azure-native:containerservice:AgentPool": "Microsoft.ContainerService/managedClusters/agentPools",
    "azure-native:containerservice:MaintenanceConfiguration": (
        "Microsoft.ContainerService/managedClusters/maintenanceConfigurations"
    ),
    "azure-native:authorization:RoleAssignment": "Microsoft.Authorization/roleAssignments",
    "azure-native:monitor:AzureMonitorWorkspace": "Microsoft.Monitor/accounts",
    "azure-native:monitor:DataCollectionEndpoint": "Microsoft.Insights/dataCollectionEndpoints",
    "azure-native:monitor:DataCollectionRule": "Microsoft.Insights/dataCollectionRules",
    "azure-native:monitor:DataCollectionRuleAssociation": "Microsoft.Insights/dataCollectionRuleAssociations",
    "azure-native:alertsmanagement:PrometheusRuleGroup": "Microsoft.AlertsManagement/prometheusRuleGroups",
    "azure-native:dashboard:Grafana": "Microsoft.Dashboard/grafana",
    "azure-native:kubernetesconfiguration:Extension": "Microsoft.KubernetesConfiguration/extensions",
}
"""azure-native type token -> ARM resource type, for every azure-native resource the program registers
(:data:`ARM_TYPES_SOURCE`)."""

ARM_ACTION_PREFIXES = {
    "Microsoft.Resources/resourceGroups": "Microsoft.Resources/subscriptions/resourceGroups",
}
"""Types whose operations are named under another path: resource groups are authorized as
``Microsoft.Resources/subscriptions/resourceGroups/<verb>`` (the operation Reader's ``*/read`` and the AKS RBAC
roles' ``.../resourceGroups/read`` name, https://learn.microsoft.com/azure/role-based-access-control/permissions/
management-and-governance#microsoftresources)."""

_ARM_VERBS = {"create": ("read", "write"), "read": ("read",), "update": ("read", "write"), "delete": ("delete",)}
"""The verbs of each operation. Create and update also read: azure-native GETs before a create and reads the
resource back after a PUT. Whether its delete polls the resource with GETs until it is gone, or only the
operation's status (``<provider>/locations/operations/read``, which Reader's ``*/read`` covers), was not
confirmed: delete asks only ``/delete`` here."""

ARM_EXTRAS: dict[str, dict[str, tuple[str, ...]]] = {}
"""Actions ARM checks beyond the resource's own, by type token and operation; :data:`ARM_EXTRA_NOTES` says what
was looked for and not found. None is confirmed for the program's resources: the role assignment's own
``Microsoft.Authorization/roleAssignments/write`` is the check that Contributor fails
(https://learn.microsoft.com/azure/role-based-access-control/role-assignments-steps#step-5-assign-role), and the
cluster's system-assigned identity needs no ``userAssignedIdentities/assign/action``."""

ARM_EXTRA_NOTES = {
    "azure-native:authorization:RoleAssignment": "Written at the assignment's scope (the cluster, the Azure Monitor "
    "workspace): Microsoft.Authorization/roleAssignments/write must be granted there or above. A condition on the "
    "caller's Role Based Access Control Administrator assignment may restrict which roles it can assign; not "
    "modelled.",
    "azure-native:monitor:DataCollectionRuleAssociation": "An extension resource: the PUT is "
    "{cluster id}/providers/Microsoft.Insights/dataCollectionRuleAssociations/{name} "
    "(https://learn.microsoft.com/rest/api/monitor/data-collection-rule-associations/create), so the write is "
    "checked on the cluster's scope. Whether ARM also checks read on the data collection rule it names was not "
    "confirmed.",
    "azure-native:kubernetesconfiguration:Extension": "An extension resource on the cluster's scope; the "
    "subscription must have Microsoft.KubernetesConfiguration registered (Microsoft.KubernetesConfiguration/"
    "register/action, at subscription scope), which azure-native does not do itself.",
    "azure-native:dashboard:Grafana": "Whether ARM checks read on the Azure Monitor workspace its "
    "azureMonitorWorkspaceIntegrations names was not confirmed; the data the workspace serves Grafana is "
    "authorized by the Grafana identity's Monitoring Data Reader role, not by the deployer.",
    "azure-native:containerservice:ManagedCluster": "AKS creates the node resource group and its VMs with its own "
    "identity, so the deployer needs nothing there; a private cluster or an existing subnet would add "
    "subnets/join/action, which the program does not use.",
}


def arm_actions(type_token: str, operation: str) -> tuple[str, ...]:
    """The ARM actions ``operation`` (create, read, update, delete) of an azure-native resource asks for."""
    if operation not in _ARM_VERBS:
        raise ValueError(f"{operation!r}: operation is one of {', '.join(OPERATIONS)}")
    arm_type = ARM_RESOURCE_TYPES[type_token]
    prefix = ARM_ACTION_PREFIXES.get(arm_type, arm_type)
    own = tuple(f"{prefix}/{verb}" for verb in _ARM_VERBS[operation])
    return own + ARM_EXTRAS.get(type_token, {}).get(operation, ())


_MC = "Microsoft.ContainerService/managedClusters"

ARM_INVOKES: dict[str, tuple[str, ...]] = {
    "azure-native:containerservice:listManagedClusterUserCredentials": (f"{_MC}/listClusterUserCredential/action",),
    "azure-native:containerservice:getManagedCluster": (f"{_MC}/read",),
    "azure-native:authorization:getClientConfig": (),
    "azure-native:authorization:getClientToken": (),
}
"""Invoke token -> the ARM actions it asks for (https://learn.microsoft.com/rest/api/aks/managed-clusters/
list-cluster-user-credentials is a POST to ``.../listClusterUserCredential``). The two authorization invokes make no
ARM request: :data:`ARM_INVOKE_NOTES`."""

ARM_INVOKE_NOTES = {
    "azure-native:authorization:getClientConfig": "Reads the client, object and tenant ids from the claims of an "
    "Entra ID token the provider acquires for Microsoft Graph; only when the token has no oid claim does it ask "
    "Microsoft Graph (/servicePrincipals?$filter=appId eq ..., or /me), never ARM "
    "(https://github.com/pulumi/pulumi-azure-native/blob/master/provider/pkg/provider/auth_getclientconfig.go). "
    "The subscription id is the provider's configuration.",
    "azure-native:authorization:getClientToken": "Returns an Entra ID access token for ARM (or the endpoint asked "
    "for) from the provider's credential: token issuance, not an ARM request, so no Azure RBAC action.",
}

AKS_VERSIONS_REQUEST = (
    "GET /subscriptions/{subscriptionId}/providers/Microsoft.ContainerService/locations/{location}/kubernetesVersions"
)
"""The request :func:`components.azure.aks_catalogue.live` makes."""

ARM_OTHER: dict[str, tuple[str, ...]] = {
    AKS_VERSIONS_REQUEST: ("Microsoft.ContainerService/locations/kubernetesversions/read",),
}
"""ARM requests the program makes itself: the AKS version catalogue :mod:`components.azure.aks_catalogue` reads with the
token of ``getClientToken`` (https://learn.microsoft.com/rest/api/aks/managed-clusters/list-kubernetes-versions;
the operation as https://learn.microsoft.com/azure/role-based-access-control/permissions/containers lists it).
Reader's ``*/read`` covers it; a token without it makes the program fall back to its dated table."""

# --- Azure RBAC for Kubernetes (AKS with Entra ID and Azure RBAC) ----------------------------------------------------

GUARD_SOURCE = (
    "https://github.com/kubeguard/guard/blob/5bcf8b539e74fbfab6185ede7686e35df9e7b247/"
    "authz/providers/azure/rbac/checkaccessreqhelper.go"
)
"""guard (v0.16.28), the authorization webhook AKS's Azure RBAC for Kubernetes runs on: ``getDataActions``,
``getActionName`` and ``getResourceAndAction`` build the data action every request is checked against."""

_VERB_ACTIONS = {
    "get": "read",
    "list": "read",
    "watch": "read",
    "create": "write",
    "update": "write",
    "patch": "write",
    "delete": "delete",
    "deletecollection": "delete",
    "bind": "bind/action",
    "escalate": "escalate/action",
    "use": "use/action",
    "impersonate": "impersonate/action",
}
"""guard's ``getActionName``: a Kubernetes verb -> the last segments of its data action."""

CUSTOM_RESOURCES_NOTE = (
    "No built-in role and no published data action names a custom resource's group or kind: AKS documents that "
    "'granting read on custom resources requires a wildcard like Microsoft.ContainerService/managedClusters/*/read' "
    "(https://learn.microsoft.com/azure/aks/concepts-cluster-authorization#restrict-custom-resource-access-with-"
    "abac-conditions). guard checks a custom resource as <group>/<resource>/<verb> like any other resource unless "
    "its custom-resource check is on (--azure.allow-custom-resource-type-check, default false), which turns it "
    "into managedClusters/customresources/<read|write|delete> with the group and kind as ABAC attributes (preview, "
    "https://learn.microsoft.com/azure/aks/entra-id-authorization#restrict-custom-resource-access-using-abac-"
    "conditions-preview). Whether AKS runs guard with that flag on was not confirmed. Either way only a role with "
    "a wildcard, such as RBAC Admin or RBAC Cluster Admin (managedClusters/*), lets the deployer write Kueue's "
    "objects; RBAC Writer does not."
)


def aks_data_action(group: str, resource: str, verb: str, *, custom_resource: bool = False) -> str:
    """The data action Azure RBAC for Kubernetes checks for ``verb`` on ``resource`` (``pods``, or with its
    subresource ``pods/exec``) of API ``group`` (``""`` for the core group), as guard builds it
    (:data:`GUARD_SOURCE`):

    - ``Microsoft.ContainerService/managedClusters/[<group>/]<resource>/<action>``; the core group is left out;
    - get, list, watch -> ``read``; create, update, patch -> ``write``; delete, deletecollection -> ``delete``;
      bind, escalate, use, impersonate -> ``<verb>/action``;
    - a subresource is dropped (``serviceaccounts/token`` create -> ``serviceaccounts/write``,
      ``deployments/scale`` update -> ``apps/deployments/write``), except ``pods/exec``, which is
      ``pods/exec/action`` whatever the verb;
    - a verb guard does not know (``approve``, ``sign``) gets no action segment: ``.../<resource>``, which only a
      wildcard grants;
    - ``custom_resource``: the ABAC-preview form ``managedClusters/customresources/<read|write|delete>``
      (:data:`CUSTOM_RESOURCES_NOTE`).
    """
    if "*" in (group, resource, verb):
        raise ValueError("wildcard requests expand to many data actions in guard; ask for one group/resource/verb")
    action = _VERB_ACTIONS.get(verb, "")
    if custom_resource:
        if action not in ("read", "write", "delete"):
            raise ValueError(f"{verb!r}: custom resources have data actions for read, write and delete only")
        return f"{_MC}/customresources/{action}"
    name, _, subresource = resource.partition("/")
    tail = (
        f"{name}/exec/action" if (name, subresource) == ("pods", "exec") else "/".join(p for p in (name, action) if p)
    )
    return "/".join(p for p in (_MC, group, tail) if p)


def aks_nonresource_data_action(path: str, verb: str) -> str:
    """The data action of a non-resource request (``/healthz``, ``/version``): the path under the cluster, then
    the verb's action (guard's ``NonResourceAttributes`` branch)."""
    action = _VERB_ACTIONS.get(verb, "")
    return "/".join(p for p in (_MC, path.strip("/"), action) if p)


# --- Alibaba Cloud RAM -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AlicloudResource:
    """What a pulumi-alicloud resource's Terraform counterpart calls, by operation."""

    terraform: str
    """The Terraform resource it bridges."""
    source: str
    """The Terraform resource's file at :data:`TF_ALICLOUD_COMMIT`."""
    actions: dict[str, tuple[str, ...]]
    """Operation -> the RAM actions it needs; ``update`` lists every call the update path can make (which run
    depends on the changed field), then the read that follows."""
    tolerated: tuple[str, ...] = ()
    """Calls the provider makes but whose failure it only logs: a denial of these does not fail the operation."""
    note: str = ""


def _tf(name: str) -> str:
    return f"{TF_ALICLOUD}/{name}.go"


_VPC_TAGS = ("vpc:TagResources", "vpc:UnTagResources")
"""``SetResourceTags`` (service_alicloud_vpc_v2.go, service_alicloud_eip_v2.go): TagResources for added tags,
UnTagResources for removed ones. A create whose resource has tags runs it too: the create ends in the update
function, where ``tags`` has changed from nothing."""

_CS_CLUSTER_READ = (
    "cs:DescribeClusterDetail",
    "vpc:DescribeNatGateways",
    "cs:CheckControlPlaneLogEnable",
    "cs:GetClusterAuditProject",
)

ALICLOUD_RESOURCES: dict[str, AlicloudResource] = {
    "alicloud:vpc/network:Network": AlicloudResource(
        "alicloud_vpc",
        _tf("resource_alicloud_vpc"),
        {
            "create": ("vpc:CreateVpc", "vpc:DescribeVpcAttribute", "vpc:TagResources", "vpc:DescribeRouteTableList"),
            "read": ("vpc:DescribeVpcAttribute", "vpc:DescribeRouteTableList"),
            "update": (
                "vpc:EnableVpcClassicLink",
                "vpc:DisableVpcClassicLink",
                "vpc:ModifyVpcAttribute",
                "vpc:MoveResourceGroup",
                "vpc:ModifyRouteTableAttributes",
                "vpc:UnassociateVpcCidrBlock",
                "vpc:AssociateVpcCidrBlock",
                *_VPC_TAGS,
                "vpc:DescribeVpcAttribute",
                "vpc:DescribeRouteTableList",
            ),
            "delete": ("vpc:DeleteVpc", "vpc:DescribeVpcAttribute"),
        },
    ),
    "alicloud:vpc/switch:Switch": AlicloudResource(
        "alicloud_vswitch",
        _tf("resource_alicloud_vswitch"),
        {
            "create": ("vpc:CreateVSwitch", "vpc:DescribeVSwitchAttributes", "vpc:TagResources"),
            "read": ("vpc:DescribeVSwitchAttributes",),
            "update": ("vpc:ModifyVSwitchAttribute", *_VPC_TAGS, "vpc:DescribeVSwitchAttributes"),
            "delete": ("vpc:DeleteVSwitch", "vpc:DescribeVSwitchAttributes"),
        },
    ),
    "alicloud:vpc/natGateway:NatGateway": AlicloudResource(
        "alicloud_nat_gateway",
        _tf("resource_alicloud_nat_gateway"),
        {
            "create": ("vpc:CreateNatGateway", "vpc:DescribeNatGateways", "vpc:TagResources", "vpc:ListTagResources"),
            "read": ("vpc:DescribeNatGateways", "vpc:ListTagResources"),
            "update": (
                *_VPC_TAGS,
                "vpc:DeletionProtection",
                "vpc:ModifyNatGatewayAttribute",
                "vpc:ModifyNatGatewaySpec",
                "vpc:UpdateNatGatewayNatType",
                "vpc:DescribeNatGateways",
                "vpc:ListTagResources",
            ),
            "delete": ("vpc:DeleteNatGateway", "vpc:DescribeNatGateways"),
        },
        note="The first enhanced NAT gateway of an account makes NAT Gateway create its service-linked role "
        "AliyunServiceRoleForNatgw, which needs the caller's ram:CreateServiceLinkedRole for nat.aliyuncs.com "
        "(https://www.alibabacloud.com/help/en/nat-gateway/service-linked-roles-for-nat-gateway): "
        "ALICLOUD_SERVICE_LINKED_ROLES.",
    ),
    "alicloud:ecs/eipAddress:EipAddress": AlicloudResource(
        "alicloud_eip_address",
        _tf("resource_alicloud_eip_address"),
        {
            "create": ("vpc:AllocateEipAddress", "vpc:DescribeEipAddresses", "vpc:TagResources"),
            "read": ("vpc:DescribeEipAddresses",),
            "update": (
                "vpc:ModifyEipAddressAttribute",
                "vpc:SetHighDefinitionMonitorLogStatus",
                "vpc:MoveResourceGroup",
                "vpc:DeletionProtection",
                "vpc:ModifyEipForwardMode",
                *_VPC_TAGS,
                "vpc:DescribeEipAddresses",
            ),
            "delete": ("vpc:ReleaseEipAddress", "vpc:DescribeEipAddresses"),
        },
        note="Read adds vpc:DescribeHighDefinitionMonitorLogAttribute only when high_definition_monitor_log_status "
        "is ON, which the program never sets. The tags go through VPC's TagResources (ResourceType EIP), an "
        "action AliyunVPCFullAccess grants (vpc:*Tag*), not one EIP's own policy is known to.",
    ),
    "alicloud:ecs/eipAssociation:EipAssociation": AlicloudResource(
        "alicloud_eip_association",
        _tf("resource_alicloud_eip_association"),
        {
            "create": ("vpc:AssociateEipAddress", "vpc:DescribeEipAddresses"),
            "read": ("vpc:DescribeEipAddresses",),
            "update": ("vpc:ModifyEipForwardMode", "vpc:DescribeEipAddresses"),
            "delete": ("vpc:UnassociateEipAddress", "vpc:DescribeEipAddresses"),
        },
    ),
    "alicloud:vpc/snatEntry:SnatEntry": AlicloudResource(
        "alicloud_snat_entry",
        _tf("resource_alicloud_snat_entry"),
        {
            "create": ("vpc:CreateSnatEntry", "vpc:DescribeSnatTableEntries"),
            "read": ("vpc:DescribeSnatTableEntries",),
            "update": ("vpc:ModifySnatEntry", "vpc:DescribeSnatTableEntries"),
            "delete": ("vpc:DeleteSnatEntry", "vpc:DescribeSnatTableEntries"),
        },
    ),
    "alicloud:cs/managedKubernetes:ManagedKubernetes": AlicloudResource(
        "alicloud_cs_managed_kubernetes",
        _tf("resource_alicloud_cs_managed_kubernetes"),
        {
            "create": ("cs:CreateCluster", "cs:DescribeTaskInfo", *_CS_CLUSTER_READ),
            "read": _CS_CLUSTER_READ,
            "update": (
                "cs:ModifyCluster",
                "cs:ModifyClusterTags",
                "cs:UpdateControlPlaneLog",
                "cs:UpdateClusterAuditLogConfig",
                "cs:MigrateCluster",
                "cs:UpdateKMSEncryption",
                "cs:UpgradeCluster",
                "cs:DescribeTaskInfo",
                *_CS_CLUSTER_READ,
            ),
            "delete": ("cs:DeleteCluster", "cs:DescribeTaskInfo", "cs:DescribeClusterDetail"),
        },
        tolerated=("cs:DescribeClusterResources", "cs:DescribeClusterUserKubeconfig"),
        note="Read always asks for a kubeconfig (setCerts calls DescribeClusterUserKubeconfig before it looks at "
        "skip_set_certificate_authority, service_alicloud_cs.go) and lists the cluster's resources for the API "
        "server's SLB, but only logs either failure. The update calls' RAM names follow ACK's cs:<API> rule and "
        "were not each confirmed (the SDK method names UpdateKMSEncryption and UpdateControlPlaneLog were not "
        "matched to API names). Creating a cluster also needs the account's ACK service roles "
        "(AliyunCSManagedKubernetesRole and the others the console's one-time authorization creates); whether "
        "the caller additionally needs ram:PassRole or ram:CreateServiceLinkedRole was not confirmed.",
    ),
    "alicloud:cs/nodePool:NodePool": AlicloudResource(
        "alicloud_cs_kubernetes_node_pool",
        _tf("resource_alicloud_cs_kubernetes_node_pool"),
        {
            "create": ("cs:CreateClusterNodePool", "cs:DescribeTaskInfo", "cs:DescribeClusterNodePoolDetail"),
            "read": ("cs:DescribeClusterNodePoolDetail",),
            "update": (
                "cs:ModifyClusterNodePool",
                "cs:ModifyNodePoolNodeConfig",
                "cs:UpgradeClusterNodepool",
                "cs:RemoveNodePoolNodes",
                "cs:AttachInstancesToNodePool",
                "cs:DescribeTaskInfo",
                "cs:DescribeClusterNodePoolDetail",
            ),
            "delete": ("cs:DeleteClusterNodepool", "cs:DescribeTaskInfo"),
        },
        note="ROA paths, named by ACK's API reference: POST /clusters/{id}/nodepools CreateClusterNodePool, GET "
        ".../nodepools/{np} DescribeClusterNodePoolDetail, PUT .../nodepools/{np} ModifyClusterNodePool, PUT "
        ".../node_config ModifyNodePoolNodeConfig (create calls it only with containerd_config), POST .../upgrade "
        "UpgradeClusterNodepool, DELETE .../nodepools/{np} DeleteClusterNodepool, GET /tasks/{id} DescribeTaskInfo. "
        "ACK creates the pool's ECS instances and scaling group with its own service role, so the caller needs no "
        "ecs: or ess: action for them (assumed from ACK's service-role model, not confirmed per API).",
    ),
    "alicloud:cs/autoscalingConfig:AutoscalingConfig": AlicloudResource(
        "alicloud_cs_autoscaling_config",
        _tf("resource_alicloud_cs_autoscaling_config"),
        {
            "create": ("cs:CreateAutoscalingConfig",),
            "read": ("cs:GetClusterAddonInstance",),
            "update": ("cs:CreateAutoscalingConfig",),
            "delete": (),
        },
        tolerated=("cs:GetClusterAddonInstance",),
        note="Create and update both call CreateAutoscalingConfig (POST /cluster/{id}/autoscale/config/), then read "
        "the scaler addon's instance (GetClusterAddonInstance), whose failure Read only logs; delete calls nothing "
        "(node scaling stays on until the cluster goes). "
        "ACK's autoscaler then acts with the account's AliyunCSManagedAutoScalerRole service role, which the "
        "console's one-time Node Scaling authorization creates, not with the caller's RAM identity.",
    ),
    "alicloud:cs/kubernetesAddon:KubernetesAddon": AlicloudResource(
        "alicloud_cs_kubernetes_addon",
        _tf("resource_alicloud_cs_kubernetes_addon"),
        {
            "create": (
                "cs:GetClusterAddonInstance",
                "cs:DescribeAddon",
                "cs:InstallClusterAddons",
                "cs:DescribeTaskInfo",
            ),
            "read": ("cs:GetClusterAddonInstance", "cs:DescribeAddon"),
            "update": (
                "cs:GetClusterAddonInstance",
                "cs:UpgradeClusterAddons",
                "cs:ModifyClusterAddon",
                "cs:DescribeClusterAddonsUpgradeStatus",
                "cs:DescribeTaskInfo",
                "cs:DescribeAddon",
            ),
            "delete": ("cs:GetClusterAddonInstance", "cs:UnInstallClusterAddons", "cs:DescribeTaskInfo"),
        },
    ),
    "alicloud:cs/kubernetesPermission:KubernetesPermission": AlicloudResource(
        "alicloud_cs_kubernetes_permissions",
        _tf("resource_alicloud_cs_kubernetes_permissions"),
        {
            "create": ("cs:UpdateUserPermissions", "cs:DescribeUserPermission"),
            "read": ("cs:DescribeUserPermission",),
            "update": ("cs:UpdateUserPermissions", "cs:DescribeUserPermission"),
            "delete": ("cs:UpdateUserPermissions", "cs:DescribeUserPermission"),
        },
        note="cs:UpdateUserPermissions as https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/"
        "developer-reference/api-cs-2015-12-15-updateuserpermissions names it. Beyond RAM, ACK refuses a caller "
        "that is not RBAC administrator of the cluster (ForbiddenGrantPermissions) and a target identity without "
        "at least read-only RAM access to it (ErrorRamPolicyConfig), per the GrantPermissions reference "
        "(https://www.alibabacloud.com/help/doc-detail/202561.htm).",
    ),
}
"""pulumi-alicloud type token -> its Terraform resource's calls (:data:`PULUMI_ALICLOUD_MAPPING`), for every
alicloud resource the program registers."""

ALICLOUD_RESOURCE_ACTIONS: dict[str, dict[str, tuple[str, ...]]] = {
    token: resource.actions for token, resource in ALICLOUD_RESOURCES.items()
}
"""The same table as plain ``{"create": (...), ...}`` per token."""

ALICLOUD_SERVICE_LINKED_ROLES: dict[str, str] = {
    "alicloud:vpc/natGateway:NatGateway": "nat.aliyuncs.com",
}
"""Resources whose first creation in an account makes the service create a service-linked role, so the caller
needs ``ram:CreateServiceLinkedRole`` with ``ram:ServiceName`` this value (the condition context
:func:`tools.world.roles.ram_allows` takes)."""

ALICLOUD_INVOKES: dict[str, tuple[str, ...]] = {
    "alicloud:cs/getClusterCredential:getClusterCredential": (
        "cs:DescribeClusterDetail",
        "cs:DescribeClusterUserKubeconfig",
    ),
    "alicloud:cs/getKubernetesVersion:getKubernetesVersion": ("cs:DescribeKubernetesVersionMetadata",),
    "alicloud:cs/getKubernetesAddons:getKubernetesAddons": (
        "cs:ListAddons",
        "cs:GetClusterAddonInstance",
        "cs:DescribeAddon",
    ),
    "alicloud:cs/getClusters:getClusters": ("cs:DescribeClustersForRegion", "cs:DescribeClusterDetail"),
    "alicloud:vpc/getEnhancedNatAvailableZones:getEnhancedNatAvailableZones": (
        "vpc:ListEnhanhcedNatGatewayAvailableZones",
    ),
}
"""Invoke token -> the RAM actions of the data source it runs."""

ALICLOUD_INVOKE_SOURCES = {
    "alicloud:cs/getClusterCredential:getClusterCredential": _tf("data_source_alicloud_cs_cluster_credential"),
    "alicloud:cs/getKubernetesVersion:getKubernetesVersion": _tf("data_source_alicloud_cs_kubernetes_version"),
    "alicloud:cs/getKubernetesAddons:getKubernetesAddons": _tf("data_source_alicloud_cs_kubernetes_addons"),
    "alicloud:cs/getClusters:getClusters": _tf("data_source_alicloud_cs_clusters"),
    "alicloud:vpc/getEnhancedNatAvailableZones:getEnhancedNatAvailableZones": _tf(
        "data_source_alicloud_enhanced_nat_available_zones"
    ),
}

ALICLOUD_INVOKE_NOTES = {
    "alicloud:cs/getClusters:getClusters": "GET /regions/{region}/clusters is DescribeClustersForRegion by ACK's "
    "API reference (RAM name by the cs:<API> rule, not confirmed); with enable_details it also reads each "
    "cluster (GET /clusters/{id}, DescribeClusterDetail).",
    "alicloud:cs/getKubernetesAddons:getKubernetesAddons": "Lists the cluster's addons, then reads each installed "
    "one (GetClusterAddonInstance) and its metadata (DescribeAddon).",
    "alicloud:vpc/getEnhancedNatAvailableZones:getEnhancedNatAvailableZones": "The API name is spelt "
    "'Enhanhced' by Alibaba; AliyunNATGatewayFullAccess covers it through vpc:*NatGateway*, "
    "AliyunNATGatewayReadOnlyAccess by name.",
}
