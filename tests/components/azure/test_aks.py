"""The AKS components under mocks: what they register, what stays secret, and what the provider waits for."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pulumi
import pytest

from components import yaml_text
from components.azure.aks import AKS_RBAC_CLUSTER_ADMIN, AksCluster, principal_type_of
from components.config.aks.aks import AksConfig
from components.config.aks.pools import CRITICAL_ADDONS_TAINT
from tools import mock_cloud, mock_runtime
from tools.recording import REDACTED, Recording

CLUSTER = "azure-native:containerservice:ManagedCluster"
AGENT_POOL = "azure-native:containerservice:AgentPool"
RESOURCE_GROUP = "azure-native:resources:ResourceGroup"
K8S_PROVIDER = "pulumi:providers:kubernetes"
ROLE_ASSIGNMENT = "azure-native:authorization:RoleAssignment"
ACCESS_WAITER = "pulumi-python:dynamic/azure:ClusterAccess"
DEPLOYER_OBJECT_ID = "00000000-0000-0000-0000-0000000000bb"
"""The ``objectId`` the mocks' ``getClientConfig`` reports for whoever runs Pulumi."""
CREDENTIALS = "azure-native:containerservice:listManagedClusterUserCredentials"
MAINTENANCE = "azure-native:containerservice:MaintenanceConfiguration"

GPU_POOL = {
    "name": "gpupool",
    "vmSize": "Standard_ND96amsr_A100_v4",
    "minCount": 0,
    "maxCount": 2,
    "initialCount": 0,
    "labels": {"gpu": "a100-80gb"},
    "taints": ["nvidia.com/gpu=present:NoSchedule"],
    "availabilityZones": ["1", "2"],
    "maxPods": 110,
    "osSku": "AzureLinux",
}


def build_aks(run_program, section: dict[str, Any]) -> tuple[Recording, AksConfig]:
    config = AksConfig.model_validate(section)

    def program() -> None:
        cluster = AksCluster("demo", config)
        pulumi.export("kubeconfig", cluster.kubeconfig)
        pulumi.export("clusterName", cluster.cluster_name)
        pulumi.export("resourceGroupName", cluster.resource_group_name)
        pulumi.export("pools", sorted(cluster.user_pools))
        pulumi.export("oidcIssuerUrl", cluster.oidc_issuer_url)

    return run_program(program), config


def build_once(run_program, section: dict[str, Any]) -> tuple[Recording, AksConfig]:
    """:func:`build_aks`, made once per distinct section (by its JSON) for the tests that only read it: read it,
    never change it. Made inside the first such test, after the conftest's environment fixture."""
    key = json.dumps(section)
    if key not in _BUILT:
        _BUILT[key] = build_aks(run_program, section)
    return _BUILT[key]


_BUILT: dict[str, tuple[Recording, AksConfig]] = {}


@pytest.fixture
def two_pools(run_program) -> tuple[Recording, AksConfig]:
    return build_once(run_program, {"userPools": [{}, GPU_POOL], "deleteUnreachable": True})


CONFIGURED = {
    "kubernetesVersion": "1.36",
    "skuTier": "Standard",
    "autoscalerProfile": {"expander": "least-waste", "scaleDownUnneededTime": "1m", "scanInterval": "20s"},
    "network": {
        "dataplane": "cilium",
        "policy": "cilium",
        "podCidr": "192.168.0.0/16",
        "serviceCidr": "10.1.0.0/16",
        "dnsServiceIp": "10.1.0.10",
    },
    "upgradeChannel": "node-image",
    "nodeOsUpgradeChannel": "SecurityPatch",
    "apiServerAccess": {"authorizedIpRanges": ["20.30.40.0/24", "52.10.20.30/32"]},
    "maintenance": {
        "autoUpgrade": {"dayOfWeek": "Tuesday", "intervalWeeks": 2, "startTime": "22:30", "durationHours": 6},
        "nodeOsUpgrade": None,
    },
    "tags": {"team": "ml"},
}
"""An ``aks`` section that sets a value other than the default for every key the cluster resource takes."""


@pytest.fixture(scope="module")
def configured() -> tuple[dict[str, Any], AksConfig]:
    config = AksConfig.model_validate(CONFIGURED)

    def program() -> None:
        AksCluster("demo", config)

    return mock_runtime.run(program, {}).one(CLUSTER).inputs, config


def test_managed_cluster_is_named_placed_and_versioned_as_configured(configured) -> None:
    cluster, config = configured
    assert (cluster["resourceName"], cluster["dnsPrefix"]) == (config.cluster_name, config.cluster_name)
    assert cluster["location"] == config.location
    assert cluster["kubernetesVersion"] == "1.36"
    assert cluster["sku"] == {"name": "Base", "tier": "Standard"}
    assert cluster["supportPlan"] == "KubernetesOfficial"
    assert cluster["tags"] == {"team": "ml"}


def test_managed_cluster_has_a_managed_identity_and_workload_identity(configured) -> None:
    cluster, _ = configured
    assert cluster["identity"] == {"type": "SystemAssigned"}
    assert cluster["oidcIssuerProfile"] == {"enabled": True}
    assert cluster["securityProfile"] == {"workloadIdentity": {"enabled": True}}


def test_managed_cluster_network_is_the_configured_one(configured) -> None:
    network = configured[0]["networkProfile"]
    assert (network["networkPlugin"], network["networkPluginMode"]) == ("azure", "overlay")
    assert (network["networkDataplane"], network["networkPolicy"]) == ("cilium", "cilium")
    assert (network["podCidr"], network["serviceCidr"], network["dnsServiceIP"]) == (
        "192.168.0.0/16",
        "10.1.0.0/16",
        "10.1.0.10",
    )


def test_only_the_configured_ranges_reach_the_api_server(configured) -> None:
    cluster, _ = configured
    assert cluster["apiServerAccessProfile"] == {
        "authorizedIPRanges": ["20.30.40.0/24", "52.10.20.30/32"],
        "enablePrivateCluster": False,
    }


def test_by_default_a_network_policy_engine_runs_and_the_api_server_is_public(run_program) -> None:
    """An empty range list is sent, not left out: it is how AKS is told to drop ranges a cluster had."""
    recording, _ = build_once(run_program, {})
    cluster = recording.one(CLUSTER).inputs
    assert cluster["networkProfile"]["networkPolicy"] == "calico"
    assert cluster["apiServerAccessProfile"] == {"authorizedIPRanges": [], "enablePrivateCluster": False}
    opted_out, _ = build_aks(run_program, {"network": {"policy": "none"}})
    assert opted_out.one(CLUSTER).inputs["networkProfile"]["networkPolicy"] == "none"


def test_each_upgrade_channel_gets_its_weekly_window_on_the_cluster(run_program) -> None:
    recording, _ = build_once(run_program, {})
    cluster = recording.one(CLUSTER)
    component = recording.one("elastic-capacity:azure:AksCluster")
    windows = {m.inputs["configName"]: m for m in recording.by_type(MAINTENANCE)}
    assert sorted(windows) == ["aksManagedAutoUpgradeSchedule", "aksManagedNodeOSUpgradeSchedule"]
    for config_name, day in (
        ("aksManagedAutoUpgradeSchedule", "Sunday"),
        ("aksManagedNodeOSUpgradeSchedule", "Saturday"),
    ):
        window = windows[config_name]
        assert window.name == f"demo-{config_name}" and window.parent == component.urn
        assert window.inputs["maintenanceWindow"] == {
            "schedule": {"weekly": {"dayOfWeek": day, "intervalWeeks": 1}},
            "startTime": "00:00",
            "durationHours": 4,
            "utcOffset": "+00:00",
        }
        assert window.inputs["resourceName"] == cluster.inputs["resourceName"]
        assert window.inputs["resourceGroupName"] == cluster.inputs["resourceGroupName"]
        assert set(window.property_dependencies["resourceName"]) == {cluster.urn}, "created after the cluster"


def test_a_window_is_configured_or_opted_out() -> None:
    config = AksConfig.model_validate(CONFIGURED)
    recording = mock_runtime.run(lambda: AksCluster("demo", config), {})
    [window] = recording.by_type(MAINTENANCE)
    assert window.inputs["configName"] == "aksManagedAutoUpgradeSchedule", "nodeOsUpgrade: null opts out"
    idle = mock_runtime.run(lambda: AksCluster("demo", AksConfig.model_validate({"upgradeChannel": "none"})), {})
    assert [m.inputs["configName"] for m in idle.by_type(MAINTENANCE)] == ["aksManagedNodeOSUpgradeSchedule"]
    assert window.inputs["maintenanceWindow"] == {
        "schedule": {"weekly": {"dayOfWeek": "Tuesday", "intervalWeeks": 2}},
        "startTime": "22:30",
        "durationHours": 6,
        "utcOffset": "+00:00",
    }


def test_managed_cluster_autoscaler_and_upgrades_are_the_configured_ones(configured) -> None:
    cluster, _ = configured
    assert cluster["autoScalerProfile"] == {
        "expander": "least-waste",
        "scaleDownUnneededTime": "1m",
        "scanInterval": "20s",
    }
    assert cluster["autoUpgradeProfile"] == {"upgradeChannel": "node-image", "nodeOSUpgradeChannel": "SecurityPatch"}


def test_system_pool_is_inline_fixed_and_tainted_for_critical_addons(configured, run_program) -> None:
    [system] = configured[0]["agentPoolProfiles"]
    assert (system["name"], system["mode"], system["count"]) == ("system", "System", 1)
    assert system["vmSize"] == configured[1].system_pool.vm_size
    assert system["enableAutoScaling"] is False
    assert system["nodeTaints"] == [CRITICAL_ADDONS_TAINT]
    assert system["orchestratorVersion"] == "1.36"
    recording, _ = build_once(run_program, {})
    assert recording.one(CLUSTER).ignore_changes == (), "a fixed system pool's count is the config's"


def test_autoscaled_system_pool_ignores_its_count(run_program) -> None:
    recording, _ = build_aks(run_program, {"systemPool": {"count": 2, "minCount": 1, "maxCount": 3}})
    cluster = recording.one(CLUSTER)
    [system] = cluster.inputs["agentPoolProfiles"]
    assert (system["enableAutoScaling"], system["minCount"], system["count"], system["maxCount"]) == (True, 1, 2, 3)
    assert cluster.ignore_changes == ("agentPoolProfiles[0].count",)


def test_user_pools_autoscale_and_leave_the_count_to_the_autoscaler(two_pools) -> None:
    recording, config = two_pools
    cluster = recording.one(CLUSTER)
    component = recording.one("elastic-capacity:azure:AksCluster")
    assert recording.outputs["pools"] == ["gpupool", "scalepool"]

    for pool in config.user_pools:
        registered = recording.one(AGENT_POOL, f"demo-{pool.name}")
        inputs = registered.inputs
        assert registered.ignore_changes == ("count",)
        assert registered.parent == component.urn
        assert (inputs["agentPoolName"], inputs["mode"], inputs["enableAutoScaling"]) == (pool.name, "User", True)
        assert (inputs["minCount"], inputs["count"], inputs["maxCount"]) == (
            pool.min_count,
            pool.initial_count,
            pool.max_count,
        )
        assert inputs["vmSize"] == pool.vm_size
        assert inputs["resourceName"] == cluster.inputs["resourceName"]
        assert inputs["resourceGroupName"] == cluster.inputs["resourceGroupName"]
        assert recording.depends_on(registered, cluster)

    gpu = recording.one(AGENT_POOL, "demo-gpupool").inputs
    assert gpu["nodeLabels"] == GPU_POOL["labels"]
    assert gpu["nodeTaints"] == GPU_POOL["taints"], "the written taints are the pool's taints"
    assert (gpu["availabilityZones"], gpu["maxPods"], gpu["osSKU"]) == (["1", "2"], 110, "AzureLinux")
    assert gpu["gpuProfile"] == {"driver": "Install"} and "gpuInstanceProfile" not in gpu
    scalepool = recording.one(AGENT_POOL, "demo-scalepool").inputs
    assert "nodeTaints" not in scalepool and "nodeLabels" not in scalepool
    assert not {"gpuProfile", "scaleSetPriority", "scaleSetEvictionPolicy", "spotMaxPrice"} & set(scalepool)


SPOT = {"name": "spot", "vmSize": "Standard_D4s_v3", "priority": "Spot", "minCount": 0, "initialCount": 0}


@pytest.mark.parametrize(
    ("written", "eviction", "price"),
    [({}, "Delete", -1), ({"evictionPolicy": "Deallocate", "spotMaxPrice": 0.12}, "Deallocate", 0.12)],
)
def test_a_spot_pool_sends_every_spot_setting_and_the_taint_and_label_aks_adds(run_program, written, eviction, price):
    """AKS stores its Spot taint and label on the pool either way: sending them keeps the pool read back equal."""
    recording, _ = build_aks(run_program, {"userPools": [{**SPOT, **written}]})
    inputs = recording.one(AGENT_POOL, "demo-spot").inputs
    assert (inputs["scaleSetPriority"], inputs["scaleSetEvictionPolicy"], inputs["spotMaxPrice"]) == (
        "Spot",
        eviction,
        price,
    )
    assert inputs["nodeTaints"] == ["kubernetes.azure.com/scalesetpriority=spot:NoSchedule"]
    assert inputs["nodeLabels"] == {"kubernetes.azure.com/scalesetpriority": "spot"}


def test_a_mig_pool_without_the_gpu_taint_sends_its_profile_and_driver(run_program):
    pool = {
        **GPU_POOL,
        "minCount": 1,
        "initialCount": 1,
        "taints": [],
        "gpu": {"instanceProfile": "MIG3g", "taint": False},
    }
    recording, _ = build_aks(run_program, {"userPools": [pool]})
    inputs = recording.one(AGENT_POOL, "demo-gpupool").inputs
    assert (inputs["gpuProfile"], inputs["gpuInstanceProfile"]) == ({"driver": "Install"}, "MIG3g")
    assert "nodeTaints" not in inputs


def test_pool_and_maintenance_operations_of_the_cluster_run_one_after_another(two_pools) -> None:
    """AKS refuses a second pool or maintenance operation while one runs on the cluster (OperationNotAllowed)."""
    recording, _ = two_pools
    chain = [recording.one(CLUSTER), *recording.by_type(AGENT_POOL), *recording.by_type(MAINTENANCE)]
    assert [r.type for r in chain[1:]] == [AGENT_POOL] * 2 + [MAINTENANCE] * 2
    for before, after in itertools.pairwise(chain):
        assert before.urn in after.dependencies, f"{after.name} waits for {before.name}"


def test_a_change_aks_fixes_at_pool_creation_replaces_the_pool_deleting_it_first(two_pools) -> None:
    recording, _ = two_pools
    for pool in recording.by_type(AGENT_POOL):
        assert {
            "vmSize",
            "gpuInstanceProfile",
            "gpuProfile",
            "scaleSetPriority",
            "availabilityZones",
            "maxPods",
        } <= set(pool.replace_on_changes), "ARM refuses to update them"
        assert pool.delete_before_replace, "the new pool has the old one's name"


def test_provider_waits_for_the_cluster_but_never_for_user_pools(two_pools) -> None:
    recording, _ = two_pools
    provider = recording.one(K8S_PROVIDER, "demo-k8s")
    assert recording.depends_on(provider, recording.one(CLUSTER))
    assert provider.inputs["clusterIdentifier"] == recording.one(CLUSTER).id, "fresh credentials must not replace it"
    pools = recording.by_type(AGENT_POOL)
    assert len(pools) == 2
    assert not any(recording.depends_on(provider, pool) for pool in pools)


def test_kubeconfig_is_a_secret_everywhere(two_pools) -> None:
    recording, _ = two_pools
    provider = recording.one(K8S_PROVIDER, "demo-k8s")
    assert provider.is_secret("kubeconfig")
    assert provider.redacted_inputs["kubeconfig"] == REDACTED
    kubeconfig = yaml_text.load(provider.inputs["kubeconfig"])
    assert kubeconfig["clusters"][0]["cluster"]["server"].startswith("https://kueue-cas-")
    assert provider.inputs["deleteUnreachable"] == "true"
    assert "kubeconfig" in recording.secret_outputs
    assert recording.outputs["kubeconfig"] == provider.inputs["kubeconfig"]


def test_new_resource_group_holds_the_cluster(two_pools) -> None:
    recording, config = two_pools
    group = recording.one(RESOURCE_GROUP, "demo-rg")
    cluster = recording.one(CLUSTER)
    assert group.inputs["resourceGroupName"] == config.resource_group.name
    assert group.inputs["location"] == config.location
    assert cluster.inputs["resourceGroupName"] == config.resource_group.name
    assert recording.depends_on(cluster, group)
    assert recording.outputs["resourceGroupName"] == config.resource_group.name
    assert recording.outputs["clusterName"] == config.cluster_name


def test_existing_resource_group_is_used_by_name(run_program) -> None:
    recording, _ = build_aks(run_program, {"resourceGroup": {"name": "platform-rg", "create": False}})
    assert recording.by_type(RESOURCE_GROUP) == []
    assert recording.one(CLUSTER).inputs["resourceGroupName"] == "platform-rg"
    assert recording.one(AGENT_POOL).inputs["resourceGroupName"] == "platform-rg"


def kubelogin_args(kubeconfig: str) -> list[str]:
    [user] = yaml_text.load(kubeconfig)["users"]
    return user["user"]["exec"]["args"]


@pytest.fixture
def entra(run_program) -> tuple[Recording, AksConfig]:
    group = "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"
    return build_once(
        run_program, {"entraId": {"adminGroupObjectIds": [group], "kubelogin": {"login": "workloadidentity"}}}
    )


def test_entra_id_cluster_uses_azure_rbac_without_local_accounts(entra) -> None:
    recording, _ = entra
    cluster = recording.one(CLUSTER).inputs
    assert cluster["aadProfile"] == {
        "managed": True,
        "enableAzureRBAC": True,
        "adminGroupObjectIDs": ["aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"],
    }
    assert cluster["disableLocalAccounts"] is True


def test_the_first_deployer_becomes_cluster_admin_of_this_cluster_only_and_stays_it(entra) -> None:
    """Without ``clusterAdmins`` whoever runs the first ``up`` is made admin; ``principalId`` is ignored afterwards,
    so a preview or drift check by another identity plans no change to the assignment (or to the access waiter)."""
    recording, _ = entra
    role = recording.one(ROLE_ASSIGNMENT)
    cluster = recording.one(CLUSTER)
    assert (role.inputs["principalId"], role.inputs["principalType"]) == (DEPLOYER_OBJECT_ID, "ServicePrincipal")
    assert role.inputs["roleDefinitionId"] == (
        "/subscriptions/00000000-0000-0000-0000-000000000000/providers/Microsoft.Authorization/roleDefinitions/"
        f"{AKS_RBAC_CLUSTER_ADMIN}"
    )
    assert role.inputs["scope"] == cluster.id
    assert role.ignore_changes == ("principalId", "principalType")


@pytest.mark.parametrize("kind", ["User", "ServicePrincipal"])
def test_the_first_deployers_principal_type_is_the_kind_of_identity_it_is(kind) -> None:
    """The SDK would send ``User`` for anyone, and ARM refuses that for a service principal (UnmatchedPrincipalType):
    CI's deploys run as an application."""
    signer = mock_cloud.Signer(object_id="12345678-0000-0000-0000-000000000000", kind=kind)
    config = AksConfig.model_validate({"entraId": {}})
    recording = mock_runtime.run(lambda: AksCluster("demo", config), {}, signer=signer)
    role = recording.one(ROLE_ASSIGNMENT).inputs
    assert (role["principalId"], role["principalType"]) == (signer.object_id, kind)


def test_a_token_that_is_not_a_jwt_is_refused_saying_why() -> None:
    with pytest.raises(ValueError, match="the ARM access token is not a JWT"):
        principal_type_of("opaque")


ADMINS = [
    {"objectId": "11111111-2222-3333-4444-555555555555", "type": "Group"},
    {"objectId": "66666666-7777-8888-9999-000000000000", "type": "ServicePrincipal"},
]


def test_the_cluster_admins_of_the_config_are_made_admin_whoever_runs_pulumi(run_program) -> None:
    recording, _ = build_aks(run_program, {"entraId": {"clusterAdmins": ADMINS}})
    roles = recording.by_type(ROLE_ASSIGNMENT)
    assert sorted((r.inputs["principalId"], r.inputs["principalType"]) for r in roles) == sorted(
        (a["objectId"], a["type"]) for a in ADMINS
    )
    assert {r.name for r in roles} == {f"demo-cluster-admin-{a['objectId']}" for a in ADMINS}
    assert all(r.ignore_changes == () and r.inputs["scope"] == recording.one(CLUSTER).id for r in roles)
    access = recording.one(ACCESS_WAITER)
    assert sorted(access.inputs["roleAssignmentIds"]) == sorted(r.id for r in roles)
    assert {r.urn for r in roles} <= set(access.dependencies)


def test_the_kubernetes_provider_waits_until_the_role_works(entra) -> None:
    recording, _ = entra
    provider = recording.one(K8S_PROVIDER, "demo-k8s")
    access = recording.one(ACCESS_WAITER)
    role = recording.one(ROLE_ASSIGNMENT)
    assert access.urn in provider.dependencies
    assert role.urn in access.dependencies
    assert access.inputs["roleAssignmentIds"] == [role.id]
    assert access.is_secret("kubeconfig")


def test_entra_id_kubeconfig_signs_in_without_a_prompt_and_is_the_same_every_run(run_program) -> None:
    section = {"entraId": {"kubelogin": {"login": "workloadidentity"}}}
    first, _ = build_aks(run_program, section)
    second, _ = build_aks(run_program, section)
    [call] = [c for c in first.invokes if c.token == CREDENTIALS]
    assert call.args["format"] == "exec"
    kubeconfig = first.one(K8S_PROVIDER, "demo-k8s").inputs["kubeconfig"]
    assert kubelogin_args(kubeconfig) == [
        "get-token",
        "--login",
        "workloadidentity",
        "--server-id",
        mock_cloud.AKS_AAD_SERVER_APP,
    ]
    assert second.one(K8S_PROVIDER, "demo-k8s").inputs["kubeconfig"] == kubeconfig


def test_local_accounts_need_no_role_assignment(two_pools) -> None:
    recording, _ = two_pools
    assert recording.by_type(ROLE_ASSIGNMENT) == [] and recording.by_type(ACCESS_WAITER) == []
    assert "aadProfile" not in recording.one(CLUSTER).inputs


def test_the_oidc_issuer_is_the_clusters_for_workload_identity(two_pools) -> None:
    recording, _ = two_pools
    assert recording.outputs["oidcIssuerUrl"] == "https://oidc.mock.invalid/"
    assert recording.one(CLUSTER).inputs["oidcIssuerProfile"] == {"enabled": True}


def test_every_resource_is_a_child_of_the_component(entra) -> None:
    recording, _ = entra
    component = recording.one("elastic-capacity:azure:AksCluster", "demo")
    for type_ in (RESOURCE_GROUP, CLUSTER, AGENT_POOL, ROLE_ASSIGNMENT, ACCESS_WAITER, K8S_PROVIDER):
        assert recording.one(type_).parent == component.urn, type_


@pytest.mark.parametrize("protect", [False, True])
def test_protect_is_on_the_managed_cluster_alone(run_program, protect) -> None:
    """Production stacks protect the cluster; its pools, group and role stay changeable (a pool is recreated in
    place of a deleted one without touching the cluster)."""
    config = AksConfig.model_validate({"entraId": {}})
    recording = run_program(lambda: AksCluster("demo", config, protect=protect))
    assert recording.one(CLUSTER).protect is protect
    assert not [r.name for r in recording.registrations if r.protect and r.type != CLUSTER]
