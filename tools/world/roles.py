"""Who may do what, as the real clouds decide it: Azure built-in roles, Alibaba Cloud RAM system policies and ACK's
predefined RBAC ClusterRoles, copied from their public definitions on :data:`AS_OF`, and the three ways of matching
a request against them.

The simulated world (:mod:`tools.world`) authorizes every call the program makes with these tables, so a role that
is too weak fails there before it fails in a real ``pulumi up``. Every entry names its source; what a source did not
show is said in the entry's ``note`` instead of guessed, and an Alibaba policy whose content could not be read is
``verified=False``.

- ARM: an identity may do an action when one of its roles lists it in ``Actions`` (``DataActions`` for data actions)
  and that same role does not exclude it in ``NotActions`` (``NotDataActions``); matching is case-insensitive and
  ``*`` matches any run of characters, slashes included
  (https://learn.microsoft.com/azure/role-based-access-control/role-definitions#actions-format,
  https://learn.microsoft.com/azure/role-based-access-control/role-definitions#notactions). ``Actions`` never grant
  data actions: Owner (``*``) cannot read a Secret in an Azure-RBAC AKS cluster.
- RAM: an explicit ``Deny`` wins over any ``Allow``; an action not allowed is denied
  (https://www.alibabacloud.com/help/en/ram/user-guide/policy-evaluation-process). ``*`` is a wildcard. Actions are
  compared case-insensitively here, an assumption this module did not confirm from Alibaba's documentation.
- Kubernetes RBAC: the union of the rules; ``*`` for group, resource or verb, ``*/subresource``, and a trailing
  ``*`` on a non-resource URL, exactly as the API server's evaluation helpers
  (https://github.com/kubernetes/kubernetes/blob/v1.35.0/pkg/apis/rbac/v1/evaluation_helpers.go).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache


def _words(text: str) -> tuple[str, ...]:
    """A table written as whitespace-separated words (role actions, policy actions, resource names)."""
    return tuple(text.split())


AS_OF = "2026-12-03"
"""The day these tables were read from their sources."""

_DOCS = "https://github.com/MicrosoftDocs/azure-docs/blob"
_BUILT_IN = "https://learn.microsoft.com/azure/role-based-access-control/built-in-roles"


def _docs_source(page: str, commit: str, date: str) -> str:
    """The learn.microsoft.com page and the azure-docs commit of it that was read (its ``ms.date``)."""
    path = f"articles/role-based-access-control/built-in-roles/{page}.md"
    return f"{_BUILT_IN}/{page} ({_DOCS}/{commit}/{path}, ms.date {date})"


PRIVILEGED_SOURCE = _docs_source("privileged", "0b8729eaf7eb0aabc6390cb17348d19761285f12", "07/01/2026")
GENERAL_SOURCE = _docs_source("general", "03e5750af10b23b5ba437d5b333ec5e9437844f9", "02/23/2026")
CONTAINERS_SOURCE = _docs_source("containers", "0088bfa77543e07f8a41771de8db977ddfc62e1d", "06/30/2025")
MONITOR_SOURCE = _docs_source("monitor", "03e5750af10b23b5ba437d5b333ec5e9437844f9", "02/23/2026")


# --- Azure RBAC ------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AzureRole:
    """One Azure built-in role definition: its permissions block as the role's JSON lists it."""

    name: str
    id: str
    """The role definition GUID (the last segment of ``/providers/Microsoft.Authorization/roleDefinitions/<id>``)."""
    actions: tuple[str, ...]
    not_actions: tuple[str, ...]
    data_actions: tuple[str, ...]
    not_data_actions: tuple[str, ...]
    source: str
    note: str = ""
    """What the source did not show, when it did not show everything."""


_ARM_READ = (
    "Microsoft.Authorization/*/read",
    "Microsoft.Resources/subscriptions/operationresults/read",
    "Microsoft.Resources/subscriptions/read",
    "Microsoft.Resources/subscriptions/resourceGroups/read",
)
"""The control-plane reads every AKS RBAC data-plane role starts with."""

_MC = "Microsoft.ContainerService/managedClusters"

_ARM_READ_AND_KUBECONFIG = (*_ARM_READ, f"{_MC}/listClusterUserCredential/action")
"""RBAC Admin's and RBAC Cluster Admin's actions: unlike RBAC Reader and Writer they may fetch a kubeconfig."""

_RBAC_READER_DATA = tuple(
    f"{_MC}/{path}/read"
    for path in _words(
        """apps/controllerrevisions apps/daemonsets apps/deployments apps/replicasets apps/statefulsets
        autoscaling/horizontalpodautoscalers batch/cronjobs batch/jobs configmaps discovery.k8s.io/endpointslices
        endpoints events.k8s.io/events events extensions/daemonsets extensions/deployments extensions/ingresses
        extensions/networkpolicies extensions/replicasets limitranges metrics.k8s.io/pods metrics.k8s.io/nodes
        namespaces networking.k8s.io/ingresses networking.k8s.io/networkpolicies persistentvolumeclaims pods
        policy/poddisruptionbudgets replicationcontrollers resourcequotas serviceaccounts services"""
    )
)

_RBAC_WRITER_DATA = tuple(
    f"{_MC}/{path}"
    for path in _words(
        """apps/controllerrevisions/read apps/daemonsets/* apps/deployments/* apps/replicasets/* apps/statefulsets/*
        autoscaling/horizontalpodautoscalers/* batch/cronjobs/* coordination.k8s.io/leases/read
        coordination.k8s.io/leases/write coordination.k8s.io/leases/delete discovery.k8s.io/endpointslices/read
        batch/jobs/* configmaps/* endpoints/* events.k8s.io/events/read events/* extensions/daemonsets/*
        extensions/deployments/* extensions/ingresses/* extensions/networkpolicies/* extensions/replicasets/*
        limitranges/read metrics.k8s.io/pods/read metrics.k8s.io/nodes/read namespaces/read
        networking.k8s.io/ingresses/* networking.k8s.io/networkpolicies/* persistentvolumeclaims/* pods/*
        policy/poddisruptionbudgets/* replicationcontrollers/* resourcequotas/read secrets/* serviceaccounts/*
        services/*"""
    )
)


def _role(
    name: str,
    id_: str,
    source: str,
    actions: tuple[str, ...] = (),
    not_actions: tuple[str, ...] = (),
    data_actions: tuple[str, ...] = (),
    not_data_actions: tuple[str, ...] = (),
    note: str = "",
) -> AzureRole:
    return AzureRole(name, id_, actions, not_actions, data_actions, not_data_actions, source, note)


AZURE_ROLES: dict[str, AzureRole] = {
    role.name: role
    for role in (
        _role("Owner", "8e3af657-a8ff-443c-a75c-2fe8c4bcb635", PRIVILEGED_SOURCE, actions=("*",)),
        _role(
            "Contributor",
            "b24988ac-6180-42a0-ab88-20f7382dd24c",
            PRIVILEGED_SOURCE,
            actions=("*",),
            not_actions=_words(
                """Microsoft.Authorization/*/Delete Microsoft.Authorization/*/Write
                Microsoft.Authorization/elevateAccess/Action Microsoft.Blueprint/blueprintAssignments/write
                Microsoft.Blueprint/blueprintAssignments/delete Microsoft.Compute/galleries/share/action
                Microsoft.Purview/consents/write Microsoft.Purview/consents/delete
                Microsoft.Resources/deploymentStacks/manageDenySetting/action
                Microsoft.Subscription/cancel/action Microsoft.Subscription/enable/action"""
            ),
        ),
        _role("Reader", "acdd72a7-3385-48ef-bd42-f606fba81ae7", GENERAL_SOURCE, actions=("*/read",)),
        _role(
            "User Access Administrator",
            "18d7d88d-d35e-4fb5-a5c3-7773c20a72d9",
            PRIVILEGED_SOURCE,
            actions=("*/read", "Microsoft.Authorization/*", "Microsoft.Support/*"),
        ),
        _role(
            "Role Based Access Control Administrator",
            "f58310d9-a9f6-439a-9e8d-f62e7b41a168",
            PRIVILEGED_SOURCE,
            actions=_words(
                """Microsoft.Authorization/roleAssignments/write Microsoft.Authorization/roleAssignments/delete
                */read Microsoft.Support/*"""
            ),
            note="The built-in definition carries no condition; Azure lets an assignment of this role add one that "
            "limits which roles it may assign (https://learn.microsoft.com/azure/role-based-access-control/"
            "delegate-role-assignments-overview), which these tables do not model.",
        ),
        _role(
            "Azure Kubernetes Service Cluster User Role",
            "4abbcc35-e782-43d8-92c5-2d3f1bd2253f",
            CONTAINERS_SOURCE,
            actions=(f"{_MC}/listClusterUserCredential/action", f"{_MC}/read"),
        ),
        _role(
            "Azure Kubernetes Service Cluster Admin Role",
            "0ab0b1a8-8aac-4efd-b8c2-3ee1fb270be8",
            CONTAINERS_SOURCE,
            actions=_words(
                f"""{_MC}/listClusterAdminCredential/action {_MC}/accessProfiles/listCredential/action {_MC}/read
                {_MC}/runcommand/action"""
            ),
        ),
        _role(
            "Azure Kubernetes Service Contributor Role",
            "ed7f3fbd-7b88-4dd4-9017-9adb7ce333f8",
            CONTAINERS_SOURCE,
            actions=_words(
                """Microsoft.Authorization/*/read Microsoft.ContainerService/locations/*
                Microsoft.ContainerService/managedClusters/* Microsoft.ContainerService/managedclustersnapshots/*
                Microsoft.ContainerService/snapshots/* Microsoft.Insights/alertRules/*
                Microsoft.Resources/deployments/* Microsoft.Resources/subscriptions/resourceGroups/read"""
            ),
        ),
        _role(
            "Azure Kubernetes Service RBAC Reader",
            "7f6c6a51-bcf8-42ba-9220-52d62157d7db",
            CONTAINERS_SOURCE,
            actions=_ARM_READ,
            data_actions=_RBAC_READER_DATA,
        ),
        _role(
            "Azure Kubernetes Service RBAC Writer",
            "a7ffa36f-339b-4b5c-8bdf-e2c188b2c0eb",
            CONTAINERS_SOURCE,
            actions=_ARM_READ,
            data_actions=_RBAC_WRITER_DATA,
        ),
        _role(
            "Azure Kubernetes Service RBAC Admin",
            "3498e952-d568-435e-9b2c-8d77e338d7f7",
            CONTAINERS_SOURCE,
            actions=_ARM_READ_AND_KUBECONFIG,
            data_actions=(f"{_MC}/*",),
            not_data_actions=(
                f"{_MC}/resourcequotas/write",
                f"{_MC}/resourcequotas/delete",
                f"{_MC}/namespaces/write",
                f"{_MC}/namespaces/delete",
            ),
        ),
        _role(
            "Azure Kubernetes Service RBAC Cluster Admin",
            "b1ff04bb-8a4e-4dc4-8eb5-8693973ce19b",
            CONTAINERS_SOURCE,
            actions=_ARM_READ_AND_KUBECONFIG,
            data_actions=(f"{_MC}/*",),
        ),
        _role(
            "Monitoring Reader",
            "43d0d8ad-25c7-4714-9337-8ba259a9fe05",
            MONITOR_SOURCE,
            actions=("*/read", "Microsoft.OperationalInsights/workspaces/search/action", "Microsoft.Support/*"),
        ),
        _role(
            "Monitoring Data Reader",
            "b0d8363b-8ddd-447d-831f-62ca05bff136",
            "https://learn.microsoft.com/azure/azure-monitor/metrics/prometheus-grafana; the data action is the one "
            "a 403 from an Azure Monitor workspace names (https://learn.microsoft.com/troubleshoot/azure/"
            "azure-kubernetes/extensions/troubleshoot-keda-add-on-problems)",
            actions=("Microsoft.Monitor/accounts/read",),
            data_actions=("Microsoft.Monitor/accounts/data/metrics/read",),
            note="Not in the built-in roles page for Monitor as read on the date above (monitor.md, ms.date "
            "02/23/2026, lists no 'Monitoring Data Reader'), so the full definition was not seen: the id is the one "
            "Microsoft's Grafana and add-on templates assign, the data action the one the workspace's 403 asks "
            "for; the control-plane action Microsoft.Monitor/accounts/read is assumed, not confirmed.",
        ),
        _role(
            "Grafana Admin",
            "22926164-76b3-42b3-bc55-97df8dab3e41",
            MONITOR_SOURCE,
            data_actions=("Microsoft.Dashboard/grafana/ActAsGrafanaAdmin/action",),
        ),
    )
}
"""The built-in roles the program's identities hold or assign, by name."""


@cache
def _pattern(pattern: str) -> re.Pattern[str]:
    """An ARM or RAM action pattern: ``*`` is any run of characters, everything else literal, case ignored."""
    return re.compile(".*".join(re.escape(part) for part in pattern.split("*")), re.IGNORECASE)


def wildcard_match(pattern: str, value: str) -> bool:
    """Whether ``value`` matches ``pattern`` under ARM's and RAM's rules (``*`` anywhere, case-insensitive)."""
    return _pattern(pattern).fullmatch(value) is not None


def azure_role_allows(role: AzureRole, action: str, *, data: bool = False) -> bool:
    """Whether this one role grants ``action``: listed in its (data) actions and not taken away by its own
    ``NotActions`` (``NotDataActions``)."""
    granted, excluded = (role.data_actions, role.not_data_actions) if data else (role.actions, role.not_actions)
    return any(wildcard_match(p, action) for p in granted) and not any(wildcard_match(p, action) for p in excluded)


def azure_allows(roles: Iterable[AzureRole], action: str, *, data: bool = False) -> bool:
    """Whether any of ``roles`` grants ``action`` (``data``: a data action). A role's ``NotActions`` subtract from
    that role only: another role that grants the action still grants it. Scope is the caller's concern: pass the
    roles assigned at the request's scope or above it."""
    return any(azure_role_allows(role, action, data=data) for role in roles)


def azure_role_by_id(role_id: str) -> AzureRole:
    """The role whose GUID is the last segment of ``role_id`` (a bare GUID or a role definition resource id)."""
    guid = role_id.rstrip("/").rsplit("/", 1)[-1].lower()
    for role in AZURE_ROLES.values():
        if role.id == guid:
            return role
    raise KeyError(f"no built-in role with id {guid} in AZURE_ROLES")


# --- Alibaba Cloud RAM -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RamStatement:
    """One statement of a RAM policy document."""

    effect: str
    """``Allow`` or ``Deny``."""
    actions: tuple[str, ...]
    resources: tuple[str, ...] = ("*",)
    conditions: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """``StringEquals`` conditions as ``(key, values)``: the statement applies only to a request whose context has
    ``key`` set to one of ``values`` (e.g. ``ram:ServiceName`` for ``ram:CreateServiceLinkedRole``)."""


@dataclass(frozen=True)
class RamPolicy:
    """A RAM system policy as Alibaba publishes it."""

    name: str
    statements: tuple[RamStatement, ...]
    source: str
    verified: bool = True
    """``False`` when the policy's content could not be read: its statements are modelled on its published
    description and say so in :attr:`note`."""
    note: str = ""


_RAM_DOCS = "https://www.alibabacloud.com/help/en/ram/developer-reference"


def _allow(actions: str, resources: tuple[str, ...] = ("*",), **conditions: tuple[str, ...]) -> RamStatement:
    """An Allow statement of the whitespace-separated ``actions``; ``ram__ServiceName=(...)`` is a condition."""
    keys = tuple((key.replace("__", ":"), values) for key, values in conditions.items())
    return RamStatement("Allow", _words(actions), resources, keys)


RAM_POLICIES: dict[str, RamPolicy] = {
    policy.name: policy
    for policy in (
        RamPolicy(
            "AliyunVPCFullAccess",
            (
                _allow(
                    """vpc:*HaVip* vpc:*RouteTable* vpc:*VRouter* vpc:*RouteEntry* vpc:*RouteEntries*
                        vpc:*VSwitch* vpc:*Vpc* vpc:*Cen* vpc:*Tag* vpc:*NetworkAcl* vpc:*FlowLog*
                        vpc:*Ipv4Gateway* vpc:*PrefixList* vpc:*DhcpOptionsSet* vpc:DeletionProtection
                        vpc:*TagResource* vpc:MoveResourceGroup"""
                ),
            ),
            f"{_RAM_DOCS}/aliyunvpcfullaccess (v12, updated 2023-04-07)",
            note="Not vpc:*: EIP (vpc:*Eip*) and NAT gateway (vpc:*NatGateway*, vpc:*Snat*) actions are left to "
            "AliyunEIPFullAccess and AliyunNATGatewayFullAccess.",
        ),
        RamPolicy(
            "AliyunVPCReadOnlyAccess",
            (
                _allow(
                    """vpc:DescribeHaVip* vpc:DescribeRouteTable* vpc:DescribeRouteEntry* vpc:DescribeVSwitch*
                        vpc:DescribeVRouter* vpc:DescribeVpc* vpc:Describe*Cen* vpc:ListTag* vpc:DescribeTag*
                        vpc:DescribeNetworkAcl* vpc:DescribeFlowLog* vpc:CheckCanAllocateVpcPrivateIpAddress
                        vpc:ListIpv4Gateways vpc:GetIpv4GatewayAttribute vpc:ListDhcpOptionsSets
                        vpc:GetDhcpOptionsSet"""
                ),
            ),
            f"{_RAM_DOCS}/aliyunvpcreadonlyaccess (v9, updated 2025-08-07)",
        ),
        RamPolicy(
            "AliyunNATGatewayFullAccess",
            (
                _allow(
                    """vpc:*NatGateway* vpc:*Forward* vpc:*Snat* vpc:*FullNat* vpc:DescribeVpcs
                        vpc:DescribeVSwitches vpc:CreateBandwidthPackage vpc:DescribeBandwidthPackages
                        vpc:ModifyBandwidthPackageSpec vpc:AddBandwidthPackageIps vpc:RemoveBandwidthPackageIps
                        vpc:DeleteBandwidthPackage vpc:ConvertBandwidthPackage vpc:*NatIp*"""
                ),
                _allow("vpc:DeletionProtection", resources=("acs:vpc:*:*:natgateway/*",)),
                _allow("ram:CreateServiceLinkedRole", ram__ServiceName=("nat.aliyuncs.com",)),
            ),
            f"{_RAM_DOCS}/aliyunnatgatewayfullaccess (v7, updated 2022-05-23)",
            note="The last statement's condition value was cut off where the page was read; nat.aliyuncs.com is "
            "the service name of the NAT gateway's service-linked role AliyunServiceRoleForNatgw "
            f"({_RAM_DOCS}/aliyunservicerolepolicyfornatgw), assumed to be the one it allows.",
        ),
        RamPolicy(
            "AliyunNATGatewayReadOnlyAccess",
            (
                _allow(
                    """vpc:DescribeNatGateway* vpc:DescribeBandwidthPackage* vpc:DescribeSnatTableEntr*
                        vpc:DescribeForwardTableEntr* vpc:GetNatGatewayAttribute
                        vpc:VpcDescribeVpcNatGatewayNetworkInterfaceQuota vpc:ListFullNatEntries
                        vpc:ListNatIpCidrs vpc:ListNatIps vpc:ListEnhanhcedNatGatewayAvailableZones"""
                ),
            ),
            f"{_RAM_DOCS}/aliyunnatgatewayreadonlyaccess (v3, updated 2023-07-03)",
        ),
        RamPolicy(
            "AliyunEIPReadOnlyAccess",
            (_allow("vpc:DescribeEip* vpc:ListPublicIpAddressPool*"),),
            "https://help.aliyun.com/zh/ram/developer-reference/aliyuneipreadonlyaccess (v2, updated 2022-06-27)",
        ),
        RamPolicy(
            "AliyunEIPFullAccess",
            (_allow("vpc:*Eip*"),),
            "https://www.alibabacloud.com/help/en/ram/developer-reference/aliyuneipfullaccess",
            verified=False,
            note="Content not read. Modelled as vpc:*Eip*, the pattern AliyunEIPReadOnlyAccess narrows to "
            "vpc:DescribeEip*; whether it also covers tagging (vpc:TagResources), which EIP creation calls, is "
            "unknown.",
        ),
        RamPolicy(
            "AliyunCSFullAccess",
            (_allow("cs:*"),),
            "https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/"
            "create-a-custom-ram-policy",
            verified=False,
            note="Content not read; modelled on its description, 'full access to all ACK APIs'. Whether it also "
            "allows ram:CreateServiceLinkedRole for ACK's service-linked roles is unknown.",
        ),
        RamPolicy(
            "AliyunCSReadOnlyAccess",
            (_allow("cs:Describe* cs:Get* cs:List* cs:Check*"),),
            "https://www.alibabacloud.com/help/en/ram/developer-reference/aliyuncsreadonlyaccess",
            verified=False,
            note="Content not read; modelled as ACK's read-only prefixes. cs:CheckControlPlaneLogEnable, which the "
            "provider's cluster read calls, is assumed covered.",
        ),
        RamPolicy(
            "AliyunRAMReadOnlyAccess",
            (
                _allow("ram:Get* ram:List* ram:GenerateCredentialReport"),
                _allow("accessanalyzer:Get* accessanalyzer:List*"),
            ),
            f"{_RAM_DOCS}/aliyunramreadonlyaccess (v3, updated 2025-12-03)",
        ),
        RamPolicy(
            "ReadOnlyAccess",
            (_allow("*:Describe* *:List* *:Get* *:Query* *:Check*"),),
            f"{_RAM_DOCS}/readonlyaccess",
            verified=False,
            note="Content not read (it is a long per-service list). Modelled as the read-only verbs of every "
            "service; the real policy may leave some Describe/Get actions out (kubeconfig- and credential-issuing "
            "ones in particular) and include others.",
        ),
        RamPolicy(
            "AdministratorAccess",
            (_allow("*"),),
            f"{_RAM_DOCS}/administratoraccess",
            verified=False,
            note="Content not read; modelled on its description, full access to every service.",
        ),
    )
}
"""The RAM system policies the program's identities may hold, by name."""


def _condition_holds(statement: RamStatement, context: Mapping[str, str]) -> bool:
    return all(context.get(key) in values for key, values in statement.conditions)


def _statement_applies(statement: RamStatement, action: str, resource: str, context: Mapping[str, str]) -> bool:
    if not any(wildcard_match(p, action) for p in statement.actions):
        return False
    if not any(pattern == "*" or wildcard_match(pattern, resource) for pattern in statement.resources):
        return False
    return _condition_holds(statement, context)


def ram_allows(
    policies: Iterable[RamPolicy], action: str, *, resource: str = "*", context: Mapping[str, str] | None = None
) -> bool:
    """Whether ``policies`` allow ``action``: some ``Allow`` statement applies and no ``Deny`` does.

    A statement applies when one of its actions matches, one of its resources matches ``resource`` (``*`` matches
    every resource; a request whose resource is unknown passes ``*`` and so only meets statements on every
    resource), and its conditions hold in ``context``."""
    ctx = context or {}
    statements = [s for policy in policies for s in policy.statements if _statement_applies(s, action, resource, ctx)]
    return any(s.effect == "Allow" for s in statements) and not any(s.effect == "Deny" for s in statements)


# --- Kubernetes RBAC (ACK's predefined roles) ------------------------------------------------------------------------


@dataclass(frozen=True)
class KubeRule:
    """One ``rules[]`` entry of a ClusterRole."""

    api_groups: tuple[str, ...]
    resources: tuple[str, ...]
    verbs: tuple[str, ...]
    non_resource_urls: tuple[str, ...] = ()


_ALL_VERBS = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")
_READ = ("get", "list", "watch")
_POD_RESOURCES = ("pods", "pods/attach", "pods/exec", "pods/portforward", "pods/proxy")
_CORE_RESOURCES = _words(
    "configmaps endpoints persistentvolumeclaims replicationcontrollers replicationcontrollers/scale secrets"
    " serviceaccounts services services/proxy"
)
_APPS = _words(
    "daemonsets deployments deployments/rollback deployments/scale replicasets replicasets/scale statefulsets"
)
_EXTENSIONS = (*_APPS[:-1], "ingresses", "replicationcontrollers/scale")


def _workload_rules(verbs: tuple[str, ...]) -> tuple[KubeRule, ...]:
    return (
        KubeRule(("apps",), _APPS, verbs),
        KubeRule(("autoscaling",), ("horizontalpodautoscalers",), verbs),
        KubeRule(("batch",), ("cronjobs", "jobs"), verbs),
        KubeRule(("extensions",), _EXTENSIONS, verbs),
    )


ACK_ROLE_TEMPLATES = (
    "https://www.alibabacloud.com/help/en/ack/product-overview/"
    "product-changes-ack-updates-templates-of-predefined-rbac-roles-during-cluster-updates"
)
"""ACK's page of the ClusterRole templates it installs and refreshes on every cluster upgrade since 2022-09-02."""

ACK_CLUSTER_ROLES = {"admin": "cs:admin", "ops": "cs:ops", "dev": "cs:dev", "restricted": "cs:restricted"}
"""The ClusterRole each ``role_name`` of UpdateUserPermissions binds (:data:`ACK_ROLE_TEMPLATES`). ACK also offers
``admin-view`` (https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/developer-reference/
api-cs-2015-12-15-updateuserpermissions), whose ClusterRole was not read and the program does not grant."""

ACK_ROLES: dict[str, tuple[KubeRule, ...]] = {
    "admin": (KubeRule(("*",), ("*",), ("*",)), KubeRule((), (), ("*",), non_resource_urls=("*",))),
    "ops": (
        KubeRule(("",), _POD_RESOURCES, _ALL_VERBS),
        KubeRule(("",), _CORE_RESOURCES, _ALL_VERBS),
        KubeRule(
            ("",),
            _words(
                """bindings events limitranges namespaces/status replicationcontrollers/status pods/log pods/status
                resourcequotas resourcequotas/status componentstatuses"""
            ),
            _READ,
        ),
        KubeRule(("",), ("namespaces", "nodes", "persistentvolumes"), (*_READ, "patch")),
    ),
    "dev": (
        KubeRule(("",), _POD_RESOURCES, _ALL_VERBS),
        KubeRule(("",), _CORE_RESOURCES, _ALL_VERBS),
        KubeRule(
            ("",),
            _words("events namespaces/status replicationcontrollers/status pods/log pods/status componentstatuses"),
            _READ,
        ),
        KubeRule(("",), ("namespaces",), _READ),
        *_workload_rules(_ALL_VERBS),
    ),
    "restricted": (
        KubeRule(("",), _POD_RESOURCES, _READ),
        KubeRule(("",), _CORE_RESOURCES, _READ),
        KubeRule(
            ("",), ("events", "replicationcontrollers/status", "pods/log", "pods/status", "componentstatuses"), _READ
        ),
        *_workload_rules(_READ),
    ),
}
"""ACK's predefined RBAC roles by ``role_name``: the rules of the ClusterRole :data:`ACK_CLUSTER_ROLES` names."""

ACK_ROLE_NOTES = {
    "admin": f"cs:admin exactly as {ACK_ROLE_TEMPLATES} shows it.",
    "ops": f"Only the first four rules of cs:ops could be read on {ACK_ROLE_TEMPLATES}; the rest (from "
    "coordination.k8s.io on) was cut off, so this role allows less here than on a real cluster.",
    "dev": f"The cs:dev rules of ACK's earlier published template; the current ones on {ACK_ROLE_TEMPLATES} were "
    "not readable in full and may add groups (the current cs:ops adds coordination.k8s.io and more).",
    "restricted": f"The cs:restricted rules of ACK's earlier published template; the current ones on "
    f"{ACK_ROLE_TEMPLATES} were not readable in full.",
}
"""How far each of :data:`ACK_ROLES` is confirmed."""


def _resource_matches(rule: KubeRule, resource: str) -> bool:
    subresource = resource.partition("/")[2]
    return any(r == "*" or r == resource or (subresource != "" and r == f"*/{subresource}") for r in rule.resources)


def kube_allows(rules: Iterable[KubeRule], group: str, resource: str, verb: str) -> bool:
    """Whether ``rules`` allow ``verb`` on ``resource`` (``pods`` or ``pods/exec``) of API ``group`` (``""`` for the
    core group), with Kubernetes' matching: ``*``, exact names, and ``*/<subresource>``."""
    return any(
        (not rule.non_resource_urls or rule.resources)
        and any(g in ("*", group) for g in rule.api_groups)
        and _resource_matches(rule, resource)
        and any(v in ("*", verb) for v in rule.verbs)
        for rule in rules
    )


def kube_allows_url(rules: Iterable[KubeRule], path: str, verb: str) -> bool:
    """Whether ``rules`` allow ``verb`` on the non-resource URL ``path`` (``/healthz``, ``/metrics``)."""
    return any(
        any(u == "*" or u == path or (u.endswith("*") and path.startswith(u[:-1])) for u in rule.non_resource_urls)
        and any(v in ("*", verb) for v in rule.verbs)
        for rule in rules
    )
