"""What the program asks of the clouds: every type and invoke it registers is in the action tables (found by running
it, so a new one fails here), the tables' mapping rules, and the identities the README prescribes against them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import PROJECT_ROOT
from tests.support.stacks import as_shipped, edited_stack, recorded
from tools.recording import Recording
from tools.world.actions import (
    ALICLOUD_INVOKE_SOURCES,
    ALICLOUD_INVOKES,
    ALICLOUD_RESOURCE_ACTIONS,
    ALICLOUD_RESOURCES,
    ALICLOUD_SERVICE_LINKED_ROLES,
    ARM_INVOKE_NOTES,
    ARM_INVOKES,
    ARM_OTHER,
    ARM_RESOURCE_TYPES,
    OPERATIONS,
    aks_data_action,
    aks_nonresource_data_action,
    arm_actions,
)
from tools.world.roles import ACK_ROLES, AZURE_ROLES, RAM_POLICIES, azure_allows, kube_allows, ram_allows

MC = "Microsoft.ContainerService/managedClusters"
STACK_FILES = sorted(
    [
        *(PROJECT_ROOT / "stacks").glob("Pulumi.*.yaml"),
        *(PROJECT_ROOT / "tests/cases/valid").glob("Pulumi.*.yaml"),
        *(PROJECT_ROOT / "examples").rglob("Pulumi.*.yaml"),
    ]
)
"""Every stack file the program is shipped or tested with."""


def _with_grafana(config: dict) -> None:
    config["elastic-capacity:monitoring"]["azure"] = {"grafana": True, "alertRules": True}


def _with_rbac_grant(config: dict) -> None:
    config["elastic-capacity:ack"]["clusters"][0]["rbac"] = [{"ramUserId": "203000000000000001", "role": "admin"}]


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Recording]:
    """The program's run of every stack file, and of the two opt-ins no shipped file turns on (Managed Grafana,
    ACK RBAC grants)."""
    found = {path.name: as_shipped(path)[1] for path in STACK_FILES}
    out = tmp_path_factory.mktemp("world-stacks")
    monitoring = PROJECT_ROOT / "stacks/Pulumi.aks-kueue-dev.yaml"
    found["grafana"] = recorded(edited_stack(monitoring, _with_grafana, out))
    found["rbac"] = recorded(edited_stack(PROJECT_ROOT / "stacks/Pulumi.ack-acs-dev.yaml", _with_rbac_grant, out))
    return found


def _registered(runs: dict[str, Recording], prefix: str) -> set[str]:
    return {r.type for run in runs.values() for r in run.registrations if r.type.startswith(prefix)}


def _invoked(runs: dict[str, Recording], prefix: str) -> set[str]:
    return {i.token for run in runs.values() for i in run.invokes if i.token.startswith(prefix)}


def test_the_opt_in_runs_register_what_they_are_for(runs):
    assert runs["grafana"].by_type("azure-native:dashboard:Grafana")
    assert runs["rbac"].by_type("alicloud:cs/kubernetesPermission:KubernetesPermission")


def test_every_azure_native_type_and_invoke_the_program_uses_is_in_the_tables_and_no_other(runs):
    assert _registered(runs, "azure-native:") == set(ARM_RESOURCE_TYPES)
    assert _invoked(runs, "azure-native:") == set(ARM_INVOKES)


def test_every_alicloud_type_and_invoke_the_program_uses_is_in_the_tables_and_no_other(runs):
    assert _registered(runs, "alicloud:") == set(ALICLOUD_RESOURCES)
    assert _invoked(runs, "alicloud:") == set(ALICLOUD_INVOKES)


def test_no_other_cloud_provider_is_registered(runs):
    providers = {t for t in _registered(runs, "pulumi:providers:")}
    assert providers <= {"pulumi:providers:alicloud", "pulumi:providers:kubernetes", "pulumi:providers:azure-native"}


# --- the tables' shape -----------------------------------------------------------------------------------------------


def test_every_alicloud_resource_has_every_operation_with_actions_of_its_services():
    problems = []
    for token, resource in ALICLOUD_RESOURCES.items():
        if set(resource.actions) != set(OPERATIONS):
            problems.append(f"{token}: operations {sorted(resource.actions)}")
        for operation, actions in resource.actions.items():
            calls_nothing = operation == "delete" and "delete calls nothing" in resource.note
            if (not actions and not calls_nothing) or any(
                a.split(":")[0] not in ("vpc", "cs", "ecs", "ram") for a in actions
            ):
                problems.append(f"{token} {operation}: {actions}")
        if not resource.source.startswith("https://github.com/aliyun/terraform-provider-alicloud/blob/"):
            problems.append(f"{token}: source {resource.source}")
    assert problems == []
    assert {token: r.actions for token, r in ALICLOUD_RESOURCES.items()} == ALICLOUD_RESOURCE_ACTIONS
    assert set(ALICLOUD_INVOKE_SOURCES) == set(ALICLOUD_INVOKES)


def test_a_create_reads_then_writes_and_resource_groups_are_named_under_subscriptions():
    assert arm_actions("azure-native:containerservice:ManagedCluster", "create") == (f"{MC}/read", f"{MC}/write")
    assert arm_actions("azure-native:containerservice:AgentPool", "delete") == (f"{MC}/agentPools/delete",)
    assert arm_actions("azure-native:resources:ResourceGroup", "read") == (
        "Microsoft.Resources/subscriptions/resourceGroups/read",
    )
    with pytest.raises(ValueError, match="operation is one of"):
        arm_actions("azure-native:containerservice:ManagedCluster", "refresh")


def test_the_authorization_invokes_make_no_arm_request_and_say_why():
    assert {token for token, actions in ARM_INVOKES.items() if not actions} == set(ARM_INVOKE_NOTES)


# --- Azure RBAC for Kubernetes data actions --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("group", "resource", "verb", "action"),
    [
        ("", "pods", "list", "pods/read"),
        ("", "pods", "watch", "pods/read"),
        ("apps", "deployments", "patch", "apps/deployments/write"),
        ("batch", "jobs", "create", "batch/jobs/write"),
        ("", "secrets", "deletecollection", "secrets/delete"),
        ("", "serviceaccounts/token", "create", "serviceaccounts/write"),
        ("apps", "deployments/scale", "update", "apps/deployments/write"),
        ("", "pods/exec", "create", "pods/exec/action"),
        ("", "pods/exec", "get", "pods/exec/action"),
        ("", "serviceaccounts", "impersonate", "serviceaccounts/impersonate/action"),
        ("rbac.authorization.k8s.io", "clusterroles", "bind", "rbac.authorization.k8s.io/clusterroles/bind/action"),
        ("rbac.authorization.k8s.io", "roles", "escalate", "rbac.authorization.k8s.io/roles/escalate/action"),
        ("kueue.x-k8s.io", "clusterqueues", "update", "kueue.x-k8s.io/clusterqueues/write"),
        (
            "certificates.k8s.io",
            "certificatesigningrequests/approval",
            "approve",
            "certificates.k8s.io/certificatesigningrequests",
        ),
    ],
)
def test_data_actions_are_built_as_guard_builds_them(group, resource, verb, action):
    assert aks_data_action(group, resource, verb) == f"{MC}/{action}"


def test_custom_resource_and_non_resource_forms():
    assert aks_data_action("kueue.x-k8s.io", "workloads", "list", custom_resource=True) == f"{MC}/customresources/read"
    assert aks_nonresource_data_action("/healthz", "get") == f"{MC}/healthz/read"
    with pytest.raises(ValueError, match="read, write and delete"):
        aks_data_action("kueue.x-k8s.io", "workloads", "impersonate", custom_resource=True)
    with pytest.raises(ValueError, match="wildcard"):
        aks_data_action("*", "pods", "get")


def test_only_a_wildcard_role_lets_the_deployer_write_kueue_objects():
    """No role names a Kueue kind: RBAC Writer cannot create a ClusterQueue or a LocalQueue, the wildcard roles can,
    in either of guard's forms."""
    writes = [
        aks_data_action("kueue.x-k8s.io", "clusterqueues", "create"),
        aks_data_action("kueue.x-k8s.io", "localqueues", "create", custom_resource=True),
    ]
    for name, allowed in (
        ("Azure Kubernetes Service RBAC Writer", False),
        ("Azure Kubernetes Service RBAC Admin", True),
        ("Azure Kubernetes Service RBAC Cluster Admin", True),
    ):
        assert [azure_allows([AZURE_ROLES[name]], w, data=True) for w in writes] == [allowed, allowed], name


# --- the identities the README prescribes ----------------------------------------------------------------------------


def _azure_creates() -> list[str]:
    return [a for token in ARM_RESOURCE_TYPES for a in arm_actions(token, "create")]


@pytest.mark.parametrize("names", [("Owner",), ("Contributor", "User Access Administrator")])
def test_the_readme_azure_deployer_may_create_everything_and_make_every_call(names):
    deployer = [AZURE_ROLES[name] for name in names]
    wanted = [*_azure_creates(), *(a for actions in ARM_INVOKES.values() for a in actions)]
    wanted += [a for actions in ARM_OTHER.values() for a in actions]
    assert [a for a in wanted if not azure_allows(deployer, a)] == []


def test_contributor_alone_cannot_create_the_role_assignments():
    denied = {a for a in _azure_creates() if not azure_allows([AZURE_ROLES["Contributor"]], a)}
    assert denied == {"Microsoft.Authorization/roleAssignments/write"}


def test_a_reader_previews_but_cannot_fetch_the_kubeconfig():
    reader = [AZURE_ROLES["Reader"]]
    assert [a for a in ARM_OTHER[next(iter(ARM_OTHER))] if not azure_allows(reader, a)] == []
    assert not azure_allows(reader, ARM_INVOKES["azure-native:containerservice:listManagedClusterUserCredentials"][0])
    assert azure_allows(reader, ARM_INVOKES["azure-native:containerservice:getManagedCluster"][0])


README_POLICIES = ("AliyunVPCFullAccess", "AliyunEIPFullAccess", "AliyunNATGatewayFullAccess", "AliyunCSFullAccess")
"""The RAM system policies the README names for the Alibaba Cloud identity."""


def test_the_readme_alicloud_policies_allow_every_create_read_delete_and_invoke():
    granted = [RAM_POLICIES[name] for name in README_POLICIES]
    wanted = {a for r in ALICLOUD_RESOURCES.values() for op in ("create", "read", "delete") for a in r.actions[op]}
    wanted |= {a for actions in ALICLOUD_INVOKES.values() for a in actions}
    assert sorted(a for a in wanted if not ram_allows(granted, a)) == []
    for service in ALICLOUD_SERVICE_LINKED_ROLES.values():
        assert ram_allows(granted, "ram:CreateServiceLinkedRole", context={"ram:ServiceName": service})


def test_the_readme_alicloud_policies_miss_one_update_call_the_program_never_makes():
    """EIP's high-definition monitoring switch (only for log_project, log_store or its status, none of which the
    program sets) is no vpc:*Eip* action: an update that needed it would be refused."""
    granted = [RAM_POLICIES[name] for name in README_POLICIES]
    updates = {a for r in ALICLOUD_RESOURCES.values() for a in r.actions["update"]}
    assert {a for a in updates if not ram_allows(granted, a)} == {"vpc:SetHighDefinitionMonitorLogStatus"}


def test_no_single_network_policy_suffices_tags_come_from_vpc_full_access():
    """EIP and NAT creation tag through vpc:TagResources, which AliyunVPCFullAccess grants: without it the
    README's EIP and NAT policies alone fail the create."""
    eip_and_nat = [RAM_POLICIES["AliyunEIPFullAccess"], RAM_POLICIES["AliyunNATGatewayFullAccess"]]
    assert not ram_allows(eip_and_nat, "vpc:TagResources")
    assert ram_allows([*eip_and_nat, RAM_POLICIES["AliyunVPCFullAccess"]], "vpc:TagResources")


def test_a_read_only_identity_previews_and_refreshes_but_creates_nothing():
    read_only = [
        RAM_POLICIES[name]
        for name in (
            "AliyunVPCReadOnlyAccess",
            "AliyunEIPReadOnlyAccess",
            "AliyunNATGatewayReadOnlyAccess",
            "AliyunCSReadOnlyAccess",
        )
    ]
    reads = {a for r in ALICLOUD_RESOURCES.values() for a in r.actions["read"]}
    reads |= {a for actions in ALICLOUD_INVOKES.values() for a in actions}
    assert sorted(a for a in reads if not ram_allows(read_only, a)) == []
    reading = ("Describe", "Get", "List", "Check")
    writes = {
        a for r in ALICLOUD_RESOURCES.values() for a in r.actions["create"] if not a.split(":")[1].startswith(reading)
    }
    assert sorted(a for a in writes if ram_allows(read_only, a)) == []


def test_only_ack_admin_lets_the_deployer_create_kueue_and_namespaces():
    """The program creates namespaces, CRDs and cluster roles (components/config/ack/rbac.py asks for admin)."""
    needs = [("", "namespaces", "create"), ("apiextensions.k8s.io", "customresourcedefinitions", "create")]
    allowed = {role: all(kube_allows(rules, *need) for need in needs) for role, rules in ACK_ROLES.items()}
    assert allowed == {"admin": True, "ops": False, "dev": False, "restricted": False}


def test_the_stack_files_found_are_the_ones_on_disk():
    assert all(isinstance(path, Path) and path.is_file() for path in STACK_FILES)
    assert len([p for p in STACK_FILES if p.parent.name == "stacks"]) >= 9
