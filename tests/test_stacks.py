"""The shipped stacks, rendered offline: the vendors' example objects field for field, valid for their cluster
version, from sources their cloud can reach."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from components.config.environment import stack_digest
from components.config.kueue.kubectl_image import kubectl_tag
from tests.support import PROJECT_ROOT, service_monitor
from tests.support.schemas import resource_policy_schema, validate_core, validate_kueue
from tests.support.stacks import (
    AKS_STACK,
    CHINA_STACK,
    EPHEMERAL_STACK,
    MULTICLOUD_STACK,
    SHARED_STACK,
    STACKS,
    edited_stack,
    kueue_version,
    of_type,
    recorded,
    rendered,
)
from tests.support.vendor_examples import (
    AKS_WALKTHROUGH_OBJECTS,
    GPU_BY_NODE_SELECTOR,
    GPU_BY_POD_LABEL,
    GPU_BY_RESOURCE_POLICY,
    GPU_HPN,
    NGINX_BY_NODE_SELECTOR,
    NGINX_BY_POD_LABEL,
    acs_guide_objects,
    as_emitted,
)
from tools import render
from tools.recording import Recording, Registration

GUIDE_POLICY, GUIDE_POLICY_DEPLOYMENT = acs_guide_objects(GPU_BY_RESOURCE_POLICY)
GUIDE_DEPLOYMENTS_BY_PLACE = {
    "ack-acs-hangzhou-k8s/deployment-default-nginx.yaml": acs_guide_objects(NGINX_BY_NODE_SELECTOR)[0],
    "ack-acs-beijing-k8s/deployment-default-nginx.yaml": acs_guide_objects(NGINX_BY_POD_LABEL)[0],
    "ack-acs-hangzhou-k8s/deployment-default-dep-node-selector-demo.yaml": acs_guide_objects(GPU_BY_NODE_SELECTOR)[0],
    "ack-acs-hangzhou-k8s/deployment-default-dep-rp-demo.yaml": GUIDE_POLICY_DEPLOYMENT,
    "ack-acs-beijing-k8s/deployment-default-dep-node-selector-demo.yaml": acs_guide_objects(GPU_BY_POD_LABEL)[0],
    "ack-acs-hpn-k8s/deployment-default-dep-node-selector-demo.yaml": acs_guide_objects(GPU_HPN)[0],
}
"""Where stacks/Pulumi.ack-acs-dev.yaml places each example of Alibaba Cloud's ACS guide (the guide reuses names, so
they need 3 clusters)."""
RESOURCE_POLICY_SCHEMA = resource_policy_schema()


# --- acceptance: the AKS stack -----------------------------------------------------------------------------------


def test_aks_stack_renders_the_walkthroughs_queue_objects_field_for_field(aks):
    _, manifests = aks
    emitted = list(manifests.values())
    for walkthrough_object in AKS_WALKTHROUGH_OBJECTS:
        kind, name = walkthrough_object["kind"], walkthrough_object["metadata"]["name"]
        # The one addition: the namespace opts in to Kueue's Job webhook (kueue.managedJobsNamespaceSelector).
        labels = {"labels": {"managed-by-kueue": "true"}} if kind == "Namespace" else {}
        expected = {**walkthrough_object, "metadata": {**walkthrough_object["metadata"], **labels}}
        assert [m for m in emitted if m["kind"] == kind and m["metadata"]["name"] == name] == [expected]


def test_every_rendered_object_of_the_aks_stack_passes_its_real_schema(aks):
    _, manifests = aks
    kinds = set()
    for obj in manifests.values():
        kinds.add(obj["kind"])
        if obj["apiVersion"].startswith("kueue.x-k8s.io/"):
            validate_kueue(obj, kueue_version(AKS_STACK))
        elif obj["kind"] == "ServiceMonitor":
            service_monitor.validate(obj)
        else:
            validate_core(obj, "1.33")
    assert {"Namespace", "Job", "ResourceFlavor", "ClusterQueue", "LocalQueue", "AdmissionCheck"} <= kinds


def test_aks_plan_has_the_cluster_and_an_autoscaling_pool_the_program_never_resizes(aks):
    plan = aks[0]
    (cluster,) = of_type(plan, "azure-native:containerservice:ManagedCluster")
    assert cluster["inputs"]["kubernetesVersion"] == "1.35"
    (pool,) = of_type(plan, "azure-native:containerservice:AgentPool")
    assert pool["inputs"]["agentPoolName"] == "scalepool"
    assert (pool["inputs"]["minCount"], pool["inputs"]["maxCount"], pool["inputs"]["enableAutoScaling"]) == (1, 5, True)
    assert pool["ignoreChanges"] == ["count"]


def test_aks_plan_installs_kueue_in_kueue_system_from_the_official_registry(aks):
    plan = aks[0]
    (chart,) = of_type(plan, "kubernetes:helm.sh/v4:Chart")
    inputs = chart["inputs"]
    expected = (kueue_version(AKS_STACK), "kueue-system", "kueue")
    assert (inputs["version"], inputs["namespace"], inputs["name"]) == expected
    assert inputs["chart"] == "oci://registry.k8s.io/kueue/charts/kueue"
    assert inputs["values"]["controllerManager"]["manager"]["image"] == {"repository": "registry.k8s.io/kueue/kueue"}


def test_aks_stack_smoke_job_pulls_from_microsofts_global_registry(tmp_path):
    enabled = edited_stack(AKS_STACK, lambda c: c["elastic-capacity:smokeJob"].update(enabled=True), tmp_path)
    _, manifests = rendered(enabled)
    [job] = [m for m in manifests.values() if m["kind"] == "Job" and m["metadata"]["name"] == "kueue-cas-job"]
    images = [c["image"] for c in job["spec"]["template"]["spec"]["containers"]]
    assert images == ["mcr.microsoft.com/azurelinux/busybox:1.36"]


# --- acceptance: the Azure China stack ---------------------------------------------------------------------------


def test_china_stack_pulls_chart_and_every_image_from_azure_china_mirrors(tmp_path):
    enabled = edited_stack(CHINA_STACK, lambda c: c["elastic-capacity:smokeJob"].update(enabled=True), tmp_path)
    plan, manifests = rendered(enabled)
    (chart,) = of_type(plan, "kubernetes:helm.sh/v4:Chart")
    assert chart["inputs"]["chart"] == "oci://k8sgcr.azk8s.cn/kueue/charts/kueue"
    assert chart["inputs"]["version"] == kueue_version(CHINA_STACK)
    assert chart["inputs"]["values"]["controllerManager"]["manager"]["image"] == {
        "repository": "registryk8s.azk8s.cn/kueue/kueue"
    }
    jobs = {m["metadata"]["name"]: m for m in manifests.values() if m["kind"] == "Job"}
    images = {name: {c["image"] for c in job["spec"]["template"]["spec"]["containers"]} for name, job in jobs.items()}
    assert images.pop("kueue-cas-job") == {"mcr.azk8s.cn/azurelinux/busybox:1.36"}
    (cluster,) = of_type(plan, "azure-native:containerservice:ManagedCluster")
    minor = tuple(int(part) for part in cluster["inputs"]["kubernetesVersion"].split(".")[:2])
    kubectl = f"registryk8s.azk8s.cn/kubectl:{kubectl_tag(minor)}"
    assert kubectl.startswith(f"registryk8s.azk8s.cn/kubectl:v{minor[0]}.{minor[1]}."), "the cluster's own minor"
    assert list(images.values()) == [{kubectl}], "the readiness gate's"
    assert cluster["inputs"]["location"] == "chinanorth3"


# --- acceptance: the ACK stack -----------------------------------------------------------------------------------


def test_ack_stack_renders_each_acs_guide_deployment_and_the_resource_policy(ack):
    _, manifests = ack
    for path, expected in GUIDE_DEPLOYMENTS_BY_PLACE.items():
        assert manifests[path] == as_emitted(expected), path
    policy = manifests["ack-acs-hangzhou-k8s/resourcepolicy-default-dep-rp-demo.yaml"]
    assert policy == GUIDE_POLICY
    jsonschema.validate(policy, RESOURCE_POLICY_SCHEMA)


def test_every_rendered_deployment_of_the_ack_stack_is_valid_for_its_cluster_version(ack):
    _, manifests = ack
    minors = {"ack-acs-hangzhou-k8s": "1.35", "ack-acs-beijing-k8s": "1.35", "ack-acs-hpn-k8s": "1.35"}
    deployments = [(path, obj) for path, obj in manifests.items() if obj["kind"] == "Deployment"]
    assert len(deployments) == 6
    for path, obj in deployments:
        validate_core(obj, minors[path.split("/")[0]])


def test_each_ack_cluster_is_pro_with_the_virtual_node_addon_on_a_region_provider(ack):
    plan = ack[0]
    clusters = of_type(plan, "alicloud:cs/managedKubernetes:ManagedKubernetes")
    assert sorted(c["inputs"]["name"] for c in clusters) == ["acs-beijing", "acs-hangzhou", "acs-hpn"]
    regions = {r["urn"]: r["inputs"]["region"] for r in of_type(plan, "pulumi:providers:alicloud")}
    assert sorted(regions.values()) == ["cn-beijing", "cn-hangzhou", "cn-hangzhou"]
    addons = of_type(plan, "alicloud:cs/kubernetesAddon:KubernetesAddon")
    for cluster in clusters:
        assert cluster["inputs"]["clusterSpec"] == "ack.pro.small"
        assert cluster["provider"].rsplit("::", 1)[0] in regions
        vnodes = [a for a in addons if a["inputs"]["name"] == "ack-virtual-node" and a["parent"] == cluster["parent"]]
        assert [v["provider"] for v in vnodes] == [cluster["provider"]]


# --- acceptance: what each environment kind makes of the resources -------------------------------------------------

CLOUD_PREFIXES = ("azure-native:", "alicloud:")
PROTECTED_IN_PRODUCTION = {
    ("azure-native:containerservice:ManagedCluster", "aks-cluster"),
    ("alicloud:cs/managedKubernetes:ManagedKubernetes", "ack-acs-prod-hangzhou-cluster"),
    ("alicloud:cs/managedKubernetes:ManagedKubernetes", "ack-acs-prod-beijing-cluster"),
    ("kubernetes:helm.sh/v4:Chart", "kueue-chart"),
}
ACK_CLUSTER = "alicloud:cs/managedKubernetes:ManagedKubernetes"
K8S_PROVIDER = "pulumi:providers:kubernetes"


def cloud_resources(recording: Recording) -> list[Registration]:
    return [r for r in recording.registrations if r.custom and r.type.startswith(CLOUD_PREFIXES)]


def physical_identity(recording: Recording, registration: Registration) -> tuple[Any, ...]:
    """What names a cloud resource in its cloud: its name inputs and, for every input holding another resource's id
    (a pool's cluster, a SNAT entry's vSwitch, a role assignment's scope), that resource's identity."""
    by_id = {r.id: r for r in recording.registrations if r.custom and r is not registration}
    parts: list[tuple[str, Any]] = []
    for key, value in sorted(registration.inputs.items()):
        if isinstance(value, str) and value in by_id:
            parts.append((key, physical_identity(recording, by_id[value])))
        elif isinstance(value, str) and (key.lower().endswith("name") or key == "dnsPrefix"):
            parts.append((key, value))
    return (registration.type, *parts)


def test_two_ephemeral_stacks_name_every_cloud_resource_apart():
    """Two pull-request stacks from one template share no physical name: no collision in a subscription or account."""
    first, second = (recorded(EPHEMERAL_STACK, stack=name) for name in ("pr-101", "pr-102"))
    identities = [{physical_identity(run, r) for r in cloud_resources(run)} for run in (first, second)]
    assert len(identities[0]) == len(cloud_resources(first)) > 10, "every cloud resource has its own identity"
    assert identities[0].isdisjoint(identities[1])
    for run, suffix in ((first, stack_digest("pr-101")), (second, stack_digest("pr-102"))):
        for registration in cloud_resources(run):
            assert suffix in repr(physical_identity(run, registration)), registration.name


def test_the_production_stack_protects_its_clusters_and_the_kueue_install_and_nothing_else():
    recording = recorded(MULTICLOUD_STACK)
    assert {(r.type, r.name) for r in recording.registrations if r.protect} == PROTECTED_IN_PRODUCTION
    clusters = recording.by_type(ACK_CLUSTER)
    assert [c.inputs["deletionProtection"] for c in clusters] == [True, True]
    assert all("deleteOptions" not in c.inputs for c in clusters)
    assert not [p.name for p in recording.by_type(K8S_PROVIDER) if "deleteUnreachable" in p.inputs]
    assert recording.by_type("kubernetes:helm.sh/v4:Chart")[0].inputs["version"] == kueue_version(MULTICLOUD_STACK)


def test_the_ephemeral_stack_protects_nothing_and_leaves_nothing_behind():
    recording = recorded(EPHEMERAL_STACK)
    assert not [r.name for r in recording.registrations if r.protect]
    [cluster] = recording.by_type(ACK_CLUSTER)
    assert cluster.inputs["deletionProtection"] is False
    assert [o["resourceType"] for o in cluster.inputs["deleteOptions"]] == [
        "SLB",
        "ALB",
        "SLS_Data",
        "SLS_ControlPlane",
    ]
    assert {o["deleteMode"] for o in cluster.inputs["deleteOptions"]} == {"delete"}
    assert {p.inputs["deleteUnreachable"] for p in recording.by_type(K8S_PROVIDER)} == {"true"}


def test_the_production_stack_refuses_the_smoke_job_naming_its_key(tmp_path, capsys):
    enabled = edited_stack(
        MULTICLOUD_STACK, lambda c: c.update({"elastic-capacity:smokeJob": {"enabled": True}}), tmp_path
    )
    assert render.main([str(enabled), "--out", str(tmp_path / "out")]) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"error: {enabled}:")
    assert ": elastic-capacity:smokeJob.enabled: True is not allowed; environment.kind production" in error


# --- acceptance: pull-request stacks on a shared cluster ------------------------------------------------------------

QUEUE_KINDS = {
    "Namespace",
    "ResourceFlavor",
    "ProvisioningRequestConfig",
    "AdmissionCheck",
    "ClusterQueue",
    "LocalQueue",
}


def kubernetes_objects(recording: Recording) -> set[tuple[str, str | None, str]]:
    """``(kind, namespace, name)`` of every object the stack creates on its cluster."""
    return {
        (r.inputs["kind"], r.inputs["metadata"].get("namespace"), r.inputs["metadata"]["name"])
        for r in recording.kubernetes_objects()
    }


@pytest.mark.parametrize("source", ["aks", "kubeconfig"])
def test_shared_cluster_stacks_create_only_their_own_queue_objects(source, tmp_path):
    """No Chart, CRD, readiness gate or RBAC, no cloud resource: only suffixed queue objects, in their own namespaces,
    the smoke Job inside one of them, and the ACS Deployment in its own namespace on the shared ACK cluster.
    Destroying one stack deletes nothing another stack (or the clusters) has, and a failed sign-in fails it rather
    than making it forget the stack's objects there: no shared cluster's provider has ``deleteUnreachable``."""
    stack_file = SHARED_STACK
    if source == "kubeconfig":
        by_kubeconfig = {"source": "kubeconfig"}
        stack_file = edited_stack(
            SHARED_STACK,
            lambda c: c.update(
                {"elastic-capacity:existingCluster": by_kubeconfig, "elastic-capacity:kubeconfig": {"secure": "v1:x"}}
            ),
            tmp_path,
        )
    runs = {name: recorded(stack_file, stack=name) for name in ("pr-201", "pr-202")}
    objects = {name: kubernetes_objects(run) for name, run in runs.items()}
    assert objects["pr-201"].isdisjoint(objects["pr-202"])
    for name, run in runs.items():
        assert cloud_resources(run) == []
        assert not [
            r.type for r in run.registrations if "helm.sh" in r.type or "rbac" in r.type or "apiextensions" in r.type
        ]
        assert {kind for kind, _, _ in objects[name]} == QUEUE_KINDS | {"Job", "Deployment"}
        namespaces = {obj_name for kind, _, obj_name in objects[name] if kind == "Namespace"}
        assert all(ns in namespaces for _, ns, _ in objects[name] if ns is not None), "only in its own namespaces"
        suffixed = [obj_name for kind, _, obj_name in objects[name] if kind not in ("Job", "Deployment")]
        assert all(obj_name.endswith(stack_digest(name)) for obj_name in suffixed)
        providers = run.by_type(K8S_PROVIDER)
        assert len(providers) == 2 and not [p.name for p in providers if "deleteUnreachable" in p.inputs]


# --- acceptance: secure defaults and no perpetual diffs ---------------------------------------------------------------

AKS_CLUSTER = "azure-native:containerservice:ManagedCluster"
AGENT_POOL = "azure-native:containerservice:AgentPool"
NODE_POOL = "alicloud:cs/nodePool:NodePool"
MAINTENANCE = "azure-native:containerservice:MaintenanceConfiguration"
WEEKLY = {"Sunday": "aksManagedAutoUpgradeSchedule", "Saturday": "aksManagedNodeOSUpgradeSchedule"}


@pytest.fixture(scope="module")
def production() -> Recording:
    return recorded(MULTICLOUD_STACK)


def test_the_production_stack_registers_every_secure_default_of_aks(production):
    cluster = production.one(AKS_CLUSTER).inputs
    assert cluster["sku"] == {"name": "Base", "tier": "Standard"}
    assert (cluster["aadProfile"], cluster["disableLocalAccounts"]) == (
        {"managed": True, "enableAzureRBAC": True},
        True,
    )
    assert cluster["oidcIssuerProfile"] == {"enabled": True}
    assert cluster["securityProfile"] == {"workloadIdentity": {"enabled": True}}
    assert cluster["networkProfile"]["networkPolicy"] == "calico"
    assert cluster["apiServerAccessProfile"] == {"authorizedIPRanges": [], "enablePrivateCluster": False}
    assert cluster["autoUpgradeProfile"] == {"upgradeChannel": "patch", "nodeOSUpgradeChannel": "NodeImage"}
    windows = {m.inputs["configName"]: m.inputs["maintenanceWindow"] for m in production.by_type(MAINTENANCE)}
    assert {w["schedule"]["weekly"]["dayOfWeek"]: name for name, w in windows.items()} == WEEKLY
    assert {(w["schedule"]["weekly"]["intervalWeeks"], w["durationHours"]) for w in windows.values()} == {(1, 4)}
    assert production.one("azure-native:authorization:RoleAssignment"), "the deployer's role, as Azure RBAC needs"


def test_the_production_stack_registers_every_secure_default_of_ack(production):
    secure = {"deletionProtection": True, "enableRrsa": True, "isEnterpriseSecurityGroup": True}
    secure |= {
        "controlPlaneLogComponents": ["apiserver", "kcm", "scheduler", "ccm"],
        "auditLogConfig": {"enabled": True},
    }
    clusters = [c.inputs for c in production.by_type(ACK_CLUSTER)]
    assert [{key: cluster[key] for key in secure} for cluster in clusters] == [secure, secure]


OPT_OUTS = {
    "docs/aks-kueue.md": [
        *("aks.skuTier: Free", "aks.entraId: null", "aks.entraId.disableLocalAccounts: false", "aks.oidcIssuer: false"),
        *("aks.workloadIdentity: false", "aks.network.policy: none", "aks.apiServerAccess.allowUnrestricted: true"),
        *("aks.upgradeChannel: none", "aks.maintenance.autoUpgrade: null", "aks.maintenance.nodeOsUpgrade: null"),
    ],
    "docs/ack-acs.md": [
        *("enableRrsa: false", "enterpriseSecurityGroup: false", "deletionProtection: false"),
        *("controlPlaneLogs: null", "auditLog: {enabled: false}", "secretsEncryptionKeyId"),
    ],
}


@pytest.mark.parametrize("doc", sorted(OPT_OUTS))
def test_each_opt_out_is_documented_in_its_halfs_table(doc):
    text = (PROJECT_ROOT / doc).read_text()
    table = text[text.index("## Secure defaults") :]
    assert [key for key in OPT_OUTS[doc] if f"`{key}`" not in table] == []


def autoscaled_pools(recording: Recording) -> dict[str, tuple[str, tuple[str, ...]]]:
    """Every pool a cluster autoscaler resizes, by resource name: its node-count input, as ``ignore_changes`` names
    it, and its ``ignore_changes``. AKS user pools all autoscale; the inline system pool and ACK pools may."""
    pools = {pool.name: ("count", pool.ignore_changes) for pool in recording.by_type(AGENT_POOL)}
    for cluster in recording.by_type(AKS_CLUSTER):
        if cluster.inputs["agentPoolProfiles"][0]["enableAutoScaling"]:
            pools[f"{cluster.name} (system pool)"] = ("agentPoolProfiles[0].count", cluster.ignore_changes)
    for pool in recording.by_type(NODE_POOL):
        if pool.inputs.get("scalingConfig", {}).get("enable"):
            pools[pool.name] = ("desiredSize", pool.ignore_changes)
    return pools


NOT_AUTOSCALED = {"Pulumi.ack-acs-dev.yaml", "Pulumi.ephemeral-shared.yaml", "Pulumi.local.yaml"}
"""Fixed two-node ECS pools only, and no pool of its own; every other shipped stack has the AKS pool ``scalepool``."""


@pytest.mark.parametrize("stack_file", STACKS, ids=lambda path: path.name)
def test_every_autoscaled_pool_of_every_shipped_stack_leaves_its_count_to_the_autoscaler(stack_file):
    recording = recorded(stack_file)
    pools = autoscaled_pools(recording)
    expected = (
        ["aks-cpu", "aks-cpuspot", "aks-gpu"] if stack_file.name == "Pulumi.aks-gpu-spot.yaml" else ["aks-scalepool"]
    )
    assert sorted(pools) == ([] if stack_file.name in NOT_AUTOSCALED else expected)
    assert [name for name, (count, ignored) in pools.items() if count not in ignored] == []
    fixed = [pool for pool in recording.by_type(NODE_POOL) if pool.name not in pools]
    assert [pool.name for pool in fixed if pool.ignore_changes] == [], "a fixed pool's size is the config's"


@pytest.mark.parametrize(
    ("change", "pool"),
    [
        (lambda c: c["elastic-capacity:aks"]["systemPool"].update(minCount=3, maxCount=6), "aks-cluster (system pool)"),
        (
            lambda c: c["elastic-capacity:ack"]["clusters"][0].update(
                userPools=[{"name": "batch", "instanceTypes": ["ecs.c7.xlarge"], "minSize": 0, "maxSize": 4}]
            ),
            "ack-acs-prod-hangzhou-batch",
        ),
    ],
    ids=["aks-system-pool", "ack-user-pool"],
)
def test_an_autoscaled_system_pool_or_ack_user_pool_ignores_its_count_too(tmp_path, change, pool):
    """No shipped stack autoscales those two kinds yet: the production stack, edited to, shows they would (an ACK
    system pool never autoscales: ``ack.fixed-system-pool``)."""
    count, ignored = autoscaled_pools(recorded(edited_stack(MULTICLOUD_STACK, change, tmp_path)))[pool]
    assert count in ignored


GPU_SPOT_STACK = PROJECT_ROOT / "stacks/Pulumi.aks-gpu-spot.yaml"
AGENT_POOL = "azure-native:containerservice:AgentPool"


def toleration_of(taint: str) -> dict[str, str]:
    """The toleration of an AKS node taint as the pool sends it (``key=value:Effect``)."""
    key_value, _, effect = taint.partition(":")
    key, _, value = key_value.partition("=")
    return {"key": key, "operator": "Equal", "value": value, "effect": effect}


def test_the_gpu_spot_stack_puts_spot_and_the_gpu_profile_on_their_pools_and_each_flavor_tolerates_its_pools_taints():
    recording = recorded(GPU_SPOT_STACK)
    pools = {pool.inputs["agentPoolName"]: pool.inputs for pool in recording.by_type(AGENT_POOL)}
    assert {name: pool.get("scaleSetPriority") for name, pool in pools.items()} == {
        "cpuspot": "Spot",
        "cpu": None,
        "gpu": None,
    }
    assert {name: pool.get("gpuProfile") for name, pool in pools.items()} == {
        "cpuspot": None,
        "cpu": None,
        "gpu": {"driver": "Install"},
    }
    flavors = [o.inputs for o in recording.kubernetes_objects() if o.inputs["kind"] == "ResourceFlavor"]
    assert len(flavors) == len(pools)
    for flavor in flavors:
        pool = pools[flavor["spec"]["nodeLabels"]["agentpool"]]
        tolerated = [toleration_of(taint) for taint in pool.get("nodeTaints") or []]
        written = flavor["spec"].get("tolerations", [])
        assert len(written) == len(tolerated), flavor
        assert {frozenset(t.items()) for t in written} == {frozenset(t.items()) for t in tolerated}, flavor
    for obj in recording.kubernetes_objects():
        if obj.inputs["apiVersion"].startswith("kueue.x-k8s.io/"):
            validate_kueue(obj.inputs, kueue_version(GPU_SPOT_STACK))
