"""The role tables and their matching, on the real definitions: what a built-in role, a RAM system policy or an ACK
predefined role does and does not allow, including where the name promises more than the definition gives."""

from __future__ import annotations

import re

import pytest

from components.azure.aks import AKS_RBAC_CLUSTER_ADMIN
from components.azure.monitor import MONITORING_DATA_READER
from components.config.ack.rbac import AckRole
from tools.world.roles import (
    ACK_CLUSTER_ROLES,
    ACK_ROLE_NOTES,
    ACK_ROLES,
    AS_OF,
    AZURE_ROLES,
    RAM_POLICIES,
    KubeRule,
    RamPolicy,
    RamStatement,
    azure_allows,
    azure_role_by_id,
    kube_allows,
    kube_allows_url,
    ram_allows,
)

MC = "Microsoft.ContainerService/managedClusters"
USER_CREDENTIAL = f"{MC}/listClusterUserCredential/action"
ROLE_ASSIGNMENT_WRITE = "Microsoft.Authorization/roleAssignments/write"


def roles(*names: str) -> list:
    return [AZURE_ROLES[name] for name in names]


def policies(*names: str) -> list:
    return [RAM_POLICIES[name] for name in names]


# --- the tables themselves ------------------------------------------------------------------------------------------


def test_the_tables_are_dated():
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", AS_OF)


def test_every_entry_has_a_public_source_and_unconfirmed_ones_say_so():
    problems = []
    for role in AZURE_ROLES.values():
        if not re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", role.id):
            problems.append(f"{role.name}: id {role.id}")
        if not role.source.startswith("https://"):
            problems.append(f"{role.name}: source {role.source}")
    for policy in RAM_POLICIES.values():
        if not policy.source.startswith("https://"):
            problems.append(f"{policy.name}: source {policy.source}")
        if not policy.verified and not policy.note:
            problems.append(f"{policy.name}: unverified without a note")
    assert problems == []
    assert set(ACK_ROLE_NOTES) == set(ACK_ROLES) == set(ACK_CLUSTER_ROLES)


def test_the_roles_the_program_assigns_are_the_ones_it_names():
    assert azure_role_by_id(AKS_RBAC_CLUSTER_ADMIN).name == "Azure Kubernetes Service RBAC Cluster Admin"
    assert azure_role_by_id(f"/providers/Microsoft.Authorization/roleDefinitions/{MONITORING_DATA_READER}").name == (
        "Monitoring Data Reader"
    )
    with pytest.raises(KeyError, match="no built-in role"):
        azure_role_by_id("00000000-0000-0000-0000-000000000000")


def test_the_system_policies_the_readme_names_are_there():
    assert {"AliyunVPCFullAccess", "AliyunEIPFullAccess", "AliyunNATGatewayFullAccess", "AliyunCSFullAccess"} <= set(
        RAM_POLICIES
    )


def test_ack_has_a_role_for_every_role_the_config_accepts():
    assert set(AckRole.__args__) == set(ACK_ROLES)  # type: ignore[attr-defined]


# --- ARM semantics ---------------------------------------------------------------------------------------------------


def test_reader_cannot_list_cluster_user_credentials_but_the_cluster_user_role_can_in_any_case():
    assert not azure_allows(roles("Reader"), USER_CREDENTIAL)
    assert azure_allows(roles("Azure Kubernetes Service Cluster User Role"), USER_CREDENTIAL.lower())
    assert azure_allows(roles("Reader"), f"{MC}/read")


def test_contributor_cannot_write_role_assignments_its_not_actions_subtract_from_itself_only():
    assert azure_allows(roles("Contributor"), f"{MC}/write")
    assert not azure_allows(roles("Contributor"), ROLE_ASSIGNMENT_WRITE)
    assert not azure_allows(roles("Contributor"), "Microsoft.Authorization/roleAssignments/delete")
    assert azure_allows(roles("Contributor", "User Access Administrator"), ROLE_ASSIGNMENT_WRITE)
    assert azure_allows(roles("Contributor", "Role Based Access Control Administrator"), ROLE_ASSIGNMENT_WRITE)
    assert azure_allows(roles("Owner"), ROLE_ASSIGNMENT_WRITE)


def test_actions_never_grant_data_actions_so_owner_cannot_touch_an_azure_rbac_cluster():
    assert azure_allows(roles("Owner"), f"{MC}/pods/read")
    assert not azure_allows(roles("Owner"), f"{MC}/pods/read", data=True)
    assert not azure_allows(roles("Azure Kubernetes Service RBAC Cluster Admin"), f"{MC}/pods/read")


def test_rbac_cluster_admin_allows_every_data_action_of_the_cluster_custom_resources_included():
    cluster_admin = roles("Azure Kubernetes Service RBAC Cluster Admin")
    for action in ("secrets/read", "kueue.x-k8s.io/clusterqueues/write", "customresources/delete", "healthz/read"):
        assert azure_allows(cluster_admin, f"{MC}/{action}", data=True), action
    assert azure_allows(cluster_admin, USER_CREDENTIAL)
    assert not azure_allows(cluster_admin, f"{MC}/listClusterAdminCredential/action")


def test_rbac_admin_is_cluster_admin_without_namespace_and_quota_writes_but_with_roles():
    admin = roles("Azure Kubernetes Service RBAC Admin")
    assert not azure_allows(admin, f"{MC}/namespaces/write", data=True)
    assert not azure_allows(admin, f"{MC}/resourcequotas/delete", data=True)
    assert azure_allows(admin, f"{MC}/namespaces/read", data=True)
    assert azure_allows(admin, f"{MC}/rbac.authorization.k8s.io/rolebindings/write", data=True)


def test_rbac_reader_reads_pods_but_no_secrets_and_no_roles():
    reader = roles("Azure Kubernetes Service RBAC Reader")
    assert azure_allows(reader, f"{MC}/pods/read", data=True)
    assert not azure_allows(reader, f"{MC}/secrets/read", data=True)
    assert not azure_allows(reader, f"{MC}/rbac.authorization.k8s.io/roles/read", data=True)
    assert not azure_allows(reader, f"{MC}/pods/write", data=True)


def test_rbac_writer_writes_secrets_but_no_custom_resources():
    writer = roles("Azure Kubernetes Service RBAC Writer")
    assert azure_allows(writer, f"{MC}/secrets/write", data=True)
    assert azure_allows(writer, f"{MC}/batch/jobs/delete", data=True)
    assert not azure_allows(writer, f"{MC}/kueue.x-k8s.io/localqueues/write", data=True)
    assert not azure_allows(writer, f"{MC}/customresources/write", data=True)


def test_the_rbac_reader_and_writer_cannot_fetch_a_kubeconfig_on_their_own():
    """They grant data actions only: the kubeconfig (listClusterUserCredential) needs the Cluster User Role too."""
    for name in ("Azure Kubernetes Service RBAC Reader", "Azure Kubernetes Service RBAC Writer"):
        assert not azure_allows(roles(name), USER_CREDENTIAL), name


def test_the_cluster_user_role_grants_nothing_inside_an_azure_rbac_cluster():
    assert not azure_allows(roles("Azure Kubernetes Service Cluster User Role"), f"{MC}/pods/read", data=True)


def test_grafana_and_monitoring_roles():
    assert not azure_allows(roles("Monitoring Reader"), "Microsoft.Monitor/accounts/data/metrics/read", data=True)
    assert azure_allows(roles("Monitoring Data Reader"), "Microsoft.Monitor/accounts/data/metrics/read", data=True)
    assert azure_allows(roles("Grafana Admin"), "Microsoft.Dashboard/grafana/ActAsGrafanaAdmin/action", data=True)
    assert not azure_allows(roles("Grafana Admin"), "Microsoft.Dashboard/grafana/write")
    assert not azure_allows(roles("Monitoring Reader"), "Microsoft.Insights/dataCollectionRuleAssociations/write")


@pytest.mark.parametrize(
    ("pattern_action", "action", "allowed"),
    [
        ("*/read", "Microsoft.Monitor/accounts/read", True),
        ("*/read", "Microsoft.Monitor/accounts/write", False),
        ("Microsoft.Authorization/*", "Microsoft.Authorization/roleAssignments/write", True),
        ("Microsoft.ContainerService/managedClusters/*", "Microsoft.ContainerService/managedClusters", False),
    ],
)
def test_arm_wildcards_match_across_slashes_and_whole_strings_only(pattern_action, action, allowed):
    from tools.world.roles import AzureRole

    role = AzureRole("custom", "0" * 8, (pattern_action,), (), (), (), "https://example.invalid")
    assert azure_allows([role], action) is allowed


# --- RAM semantics ---------------------------------------------------------------------------------------------------


def test_vpc_full_access_is_not_vpc_star_nat_and_eip_need_their_own_policies():
    vpc = policies("AliyunVPCFullAccess")
    for action in ("vpc:CreateVpc", "vpc:CreateVSwitch", "vpc:TagResources", "vpc:DescribeRouteTableList"):
        assert ram_allows(vpc, action), action
    for action in ("vpc:CreateNatGateway", "vpc:CreateSnatEntry", "vpc:AllocateEipAddress"):
        assert not ram_allows(vpc, action), action
    nat = policies("AliyunNATGatewayFullAccess")
    for action in ("vpc:CreateNatGateway", "vpc:CreateSnatEntry", "vpc:ListEnhanhcedNatGatewayAvailableZones"):
        assert ram_allows(nat, action), action


def test_ram_wildcards_and_case():
    read_only = policies("AliyunCSReadOnlyAccess")
    assert ram_allows(read_only, "cs:DescribeClusterDetail")
    assert ram_allows(read_only, "CS:describeclusterdetail")
    assert not ram_allows(read_only, "cs:CreateCluster")
    assert not ram_allows([], "cs:DescribeClusterDetail")


def test_an_explicit_deny_wins():
    deny = RamPolicy("deny-delete", (RamStatement("Deny", ("cs:DeleteCluster",)),), "https://example.invalid")
    assert ram_allows(policies("AliyunCSFullAccess"), "cs:DeleteCluster")
    assert not ram_allows([*policies("AliyunCSFullAccess"), deny], "cs:DeleteCluster")
    assert ram_allows([*policies("AliyunCSFullAccess"), deny], "cs:CreateCluster")


def test_service_linked_role_creation_is_allowed_only_for_its_service():
    nat = policies("AliyunNATGatewayFullAccess")
    assert ram_allows(nat, "ram:CreateServiceLinkedRole", context={"ram:ServiceName": "nat.aliyuncs.com"})
    assert not ram_allows(nat, "ram:CreateServiceLinkedRole", context={"ram:ServiceName": "cs.aliyuncs.com"})
    assert not ram_allows(nat, "ram:CreateServiceLinkedRole")


def test_a_resource_scoped_statement_applies_to_its_resources_only():
    nat = policies("AliyunNATGatewayFullAccess")
    assert ram_allows(nat, "vpc:DeletionProtection", resource="acs:vpc:cn-hangzhou:123:natgateway/ngw-1")
    assert not ram_allows(nat, "vpc:DeletionProtection", resource="acs:vpc:cn-hangzhou:123:eip/eip-1")
    assert not ram_allows(nat, "vpc:DeletionProtection")


# --- Kubernetes RBAC semantics (ACK's predefined roles) -------------------------------------------------------------


def test_ack_admin_is_everything_custom_resources_and_urls_included():
    admin = ACK_ROLES["admin"]
    assert kube_allows(admin, "kueue.x-k8s.io", "clusterqueues", "create")
    assert kube_allows(admin, "apiextensions.k8s.io", "customresourcedefinitions", "delete")
    assert kube_allows_url(admin, "/healthz", "get")


def test_ack_restricted_reads_but_never_writes():
    restricted = ACK_ROLES["restricted"]
    assert kube_allows(restricted, "", "pods", "list")
    assert kube_allows(restricted, "apps", "deployments", "get")
    assert not kube_allows(restricted, "", "pods", "delete")
    assert not kube_allows(restricted, "", "pods/exec", "create")
    assert not kube_allows(restricted, "kueue.x-k8s.io", "localqueues", "get")


def test_ack_dev_and_ops_stop_short_of_cluster_objects_and_custom_resources():
    dev, ops = ACK_ROLES["dev"], ACK_ROLES["ops"]
    assert kube_allows(dev, "", "pods/exec", "create")
    assert kube_allows(dev, "batch", "jobs", "create")
    assert not kube_allows(dev, "", "namespaces", "create")
    assert not kube_allows(dev, "kueue.x-k8s.io", "clusterqueues", "create")
    assert kube_allows(ops, "", "nodes", "patch")
    assert not kube_allows(ops, "", "nodes", "delete")
    assert not kube_allows(ops, "rbac.authorization.k8s.io", "clusterroles", "create")


def test_kubernetes_matching_of_groups_subresources_and_urls():
    rules = (
        KubeRule(("apps",), ("*/scale",), ("update",)),
        KubeRule(("",), ("serviceaccounts/token",), ("create",)),
        KubeRule((), (), ("get",), non_resource_urls=("/metrics*",)),
    )
    assert kube_allows(rules, "apps", "deployments/scale", "update")
    assert not kube_allows(rules, "apps", "deployments", "update")
    assert not kube_allows(rules, "", "deployments/scale", "update")
    assert kube_allows(rules, "", "serviceaccounts/token", "create")
    assert not kube_allows(rules, "", "serviceaccounts", "create")
    assert kube_allows_url(rules, "/metrics/cadvisor", "get")
    assert not kube_allows_url(rules, "/healthz", "get")
