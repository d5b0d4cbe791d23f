"""The ACK Pro cluster component under Pulumi mocks: what it registers, through which provider, in which order, and
what it checks against ACK while deploying. Its network and its kubeconfig have their own modules and tests."""

from __future__ import annotations

import json

import pulumi
import pytest
from packaging.version import Version

from components.ack import MANAGED_ADDON_NAMES, AckProCluster, delete_options
from components.config.ack import AckClusterConfig
from components.config.base import ConfigError
from components.config.environment import EnvironmentConfig
from components.versions import SCHEDULER_MIN_GPU_HPN, ClusterNeeds, SchedulerNeed, VirtualNodeNeed
from tests.support.ack import (
    ADDON_TYPE,
    ADDONS_INVOKE,
    CLUSTER_TYPE,
    CREDENTIAL_INVOKE,
    EXISTING,
    KEY,
    NAT_ZONES_INVOKE,
    NETWORK_TYPES,
    NODE_POOL_TYPE,
    POOL,
    SNAT_TYPE,
    VERSION_INVOKE,
    cluster_config,
    failed_run,
    invokes,
)
from tools import mock_cloud, mock_runtime
from tools.recording import Recording

COMPONENT_TYPE = "elastic-capacity:alicloud:AckProCluster"
ACS_ONLY = ClusterNeeds((), VirtualNodeNeed(Version("2.13.0"), "ACS on Kubernetes 1.26 or later"))
GPU_HPN_NEEDS = ClusterNeeds(
    (SchedulerNeed("ack.workloads[5] (hpn, gpu-hpn)", Version("6.9.4"), SCHEDULER_MIN_GPU_HPN["1.33"]),),
    VirtualNodeNeed(Version("2.15.0"), "ack.workloads[5] (hpn, gpu-hpn)"),
)


def program_for(
    *configs: AckClusterConfig, needs: ClusterNeeds = ACS_ONLY, environment: EnvironmentConfig | None = None
):
    """A program registering one component per config (named ``ack-<name>``) and exporting its outputs, and a
    stand-in for an ACS workload (``<name>-workload``) that waits for the component's addons as the real ones do."""

    def program() -> None:
        for index, cfg in enumerate(configs):
            key = f"elastic-capacity:ack.clusters[{index}]"
            component = AckProCluster(f"ack-{cfg.name}", cfg, needs, key, environment=environment)
            pulumi.export(f"{cfg.name}-kubeconfig", component.kubeconfig)
            pulumi.export(f"{cfg.name}-endpoint", component.api_server_endpoint)
            pulumi.export(f"{cfg.name}-cluster-id", component.cluster_id)
            pulumi.export(f"{cfg.name}-version", component.kubernetes_version)
            pulumi.export(f"{cfg.name}-addons", component.addons.apply(lambda addons: [a.urn for a in addons]))
            pulumi.CustomResource(
                "test:index:Workload", f"{cfg.name}-workload", {}, pulumi.ResourceOptions(depends_on=component.addons)
            )

    return program


def build(run_program, *configs: AckClusterConfig, needs: ClusterNeeds = ACS_ONLY, **environment: str) -> Recording:
    """``environment`` holds the keys of an ``environment`` section (``kind``, ``name_suffix``), if any."""
    return run_program(program_for(*configs, needs=needs, environment=EnvironmentConfig(**environment)))


@pytest.fixture(scope="module")
def default_run() -> Recording:
    """The default cluster (new VPC, two zones, no pin), shared by the tests that only read it."""
    return mock_runtime.run(program_for(cluster_config()), {})


# --- the cluster and its version ----------------------------------------------------------------------------------

FLAGS = {"newNatGateway": False, "slbInternetEnabled": True, "skipSetCertificateAuthority": True}
ABSENT = ("controlPlaneLogComponents", "auditLogConfig", "zoneIds", "workerVswitchIds", "podCidr", "securityGroupId")


def test_cluster_is_managed_pro_with_every_field_set_explicitly(default_run):
    cluster = default_run.one(CLUSTER_TYPE, "ack-demo-cluster")
    inputs = cluster.inputs
    assert (inputs["name"], inputs["clusterSpec"], inputs["serviceCidr"]) == ("demo", "ack.pro.small", "192.168.0.0/16")
    assert (inputs["timezone"], inputs["proxyMode"]) == ("Asia/Shanghai", "ipvs")
    assert (inputs["deletionProtection"], inputs["enableRrsa"], inputs["isEnterpriseSecurityGroup"]) == (True,) * 3
    assert {k: inputs[k] for k in FLAGS} == FLAGS
    assert inputs["tags"] == {"project": "elastic-capacity"}
    assert inputs["addons"] == [{"name": "terway-eniip"}, {"name": "csi-plugin"}, {"name": "managed-csiprovisioner"}]
    assert not [key for key in (*ABSENT, "encryptionProviderKey") if key in inputs], "no KMS key unless configured"
    assert cluster.custom_timeouts == {"create": "90m", "update": "60m", "delete": "60m"}, "long enough for ACK"


def test_logs_and_create_time_addons_reach_the_cluster(run_program):
    logs = {"components": ["apiserver", "kcm"], "ttl": 7, "project": "k8s-logs"}
    addons = [{"name": "terway-eniip", "config": {"IPVlan": "false"}}, {"name": "nginx-ingress-controller"}]
    addons[1] |= {"disabled": True, "version": "v1.9.3"}
    cfg = cluster_config(network=EXISTING, controlPlaneLogs=logs, auditLog={"slsProjectName": "audit"}, addons=addons)
    inputs = build(run_program, cfg).one(CLUSTER_TYPE).inputs
    assert (inputs["controlPlaneLogComponents"], inputs["controlPlaneLogTtl"]) == (["apiserver", "kcm"], "7")
    assert inputs["controlPlaneLogProject"] == "k8s-logs"
    assert inputs["auditLogConfig"] == {"enabled": True, "slsProjectName": "audit"}
    assert inputs["addons"] == [
        {"name": "terway-eniip", "config": '{"IPVlan":"false"}'},
        {"name": "nginx-ingress-controller", "version": "v1.9.3", "disabled": True},
    ]


SECURITY_CASES = [  # (what the config sets, what the cluster gets)
    (dict(enableRrsa=False, enterpriseSecurityGroup=False), dict(enableRrsa=False, isEnterpriseSecurityGroup=False)),
    ({"securityGroupId": "sg-bp1abc"}, {"enableRrsa": True, "securityGroupId": "sg-bp1abc"}),  # never both
    ({"secretsEncryptionKeyId": "key-hzz6500"}, {"encryptionProviderKey": "key-hzz6500"}),
]


@pytest.mark.parametrize(("settings", "sent"), SECURITY_CASES)
def test_security_opt_outs_and_options_reach_the_cluster(run_program, settings, sent):
    inputs = build(run_program, cluster_config(network=EXISTING, **settings)).one(CLUSTER_TYPE).inputs
    assert {key: inputs[key] for key in sent} == sent
    assert ("isEnterpriseSecurityGroup" in inputs) is ("securityGroupId" not in settings)


def test_a_minor_becomes_the_newest_patch_ack_offers_in_the_region(default_run):
    assert default_run.one(CLUSTER_TYPE).inputs["version"] == default_run.outputs["demo-version"] == "1.35.2-aliyun.1"
    [call] = invokes(default_run, VERSION_INVOKE)
    assert call.args == {"clusterType": "ManagedKubernetes", "profile": "Default"}
    region = default_run.one("pulumi:providers:alicloud")
    assert call.provider.rsplit("::", 1)[0] == region.urn, "versions differ per region"


def test_an_exact_version_ack_offers_is_sent_as_is(run_program):
    cfg = cluster_config(network=EXISTING, kubernetesVersion="1.35.0-aliyun.1")
    assert build(run_program, cfg).one(CLUSTER_TYPE).inputs["version"] == "1.35.0-aliyun.1"


@pytest.mark.parametrize(
    ("version", "says"),
    [
        ("1.31.1-aliyun.1", "it offers ['1.35', '1.36']"),  # a pin past its end of life
        ("1.35.1-aliyun.1", "it offers ['1.35.2-aliyun.1', '1.35.0-aliyun.1']"),
        ("1.34", "it offers minors ['1.35', '1.36']"),
    ],
)
def test_a_version_ack_no_longer_offers_fails_naming_the_key_and_the_offer(run_program, version, says):
    with pytest.raises(ConfigError) as caught:
        build(run_program, cluster_config(network=EXISTING, kubernetesVersion=version))
    assert caught.value.keys == [f"{KEY}.kubernetesVersion"]
    assert repr(version) in str(caught.value) and says in str(caught.value) and "\n" not in str(caught.value)


def test_the_version_check_runs_in_preview():
    """The offered versions need no cluster, so a stale version fails `pulumi preview` already."""
    with pytest.raises(ConfigError):
        mock_runtime.run(program_for(cluster_config(kubernetesVersion="1.31")), {}, preview=True)


# --- region provider, parent, network ----------------------------------------------------------------------------


def test_every_alicloud_resource_is_a_child_on_the_region_provider(default_run):
    component = default_run.one(COMPONENT_TYPE)
    alicloud = [r for r in default_run.registrations if r.type.startswith("alicloud:")]
    assert {r.type for r in alicloud} >= {*NETWORK_TYPES, CLUSTER_TYPE, ADDON_TYPE}
    assert {default_run.provider_of(r).name for r in alicloud} == {"ack-demo-alicloud"}
    assert {r.parent for r in alicloud} == {component.urn}
    region = default_run.one("pulumi:providers:alicloud")
    assert (region.inputs["region"], region.parent) == ("cn-hangzhou", component.urn)
    calls = [c for c in default_run.invokes if c.token.startswith("alicloud:")]
    assert {c.token for c in calls} == {VERSION_INVOKE, ADDONS_INVOKE, CREDENTIAL_INVOKE, NAT_ZONES_INVOKE}
    assert {c.provider.rsplit("::", 1)[0] for c in calls} == {region.urn}


def test_two_clusters_in_two_regions_get_their_own_providers(run_program):
    singapore = cluster_config("sg", region="ap-southeast-1", network=EXISTING)
    recording = build(run_program, cluster_config(), singapore)
    regions = {p.name: p.inputs["region"] for p in recording.by_type("pulumi:providers:alicloud")}
    assert regions == {"ack-demo-alicloud": "cn-hangzhou", "ack-sg-alicloud": "ap-southeast-1"}
    for cluster_name, provider in (("demo", "ack-demo-alicloud"), ("sg", "ack-sg-alicloud")):
        for resource in (
            recording.one(CLUSTER_TYPE, f"ack-{cluster_name}-cluster"),
            recording.one(ADDON_TYPE, f"ack-{cluster_name}-ack-virtual-node"),
        ):
            assert recording.provider_of(resource).name == provider


def test_cluster_takes_its_vswitches_from_the_network_and_waits_for_the_snat_entries(default_run):
    cluster = default_run.one(CLUSTER_TYPE)
    switches = {s.name: s.urn for s in default_run.by_type("alicloud:vpc/switch:Switch")}
    node = {switches["ack-demo-node-cn-hangzhou-k"], switches["ack-demo-node-cn-hangzhou-j"]}
    pod = {switches["ack-demo-pod-cn-hangzhou-k"], switches["ack-demo-pod-cn-hangzhou-j"]}
    assert set(cluster.property_dependencies["vswitchIds"]) == node
    assert set(cluster.property_dependencies["podVswitchIds"]) == pod
    assert len(entries := {e.urn for e in default_run.by_type(SNAT_TYPE)}) == 4
    assert set(cluster.dependencies) == entries | node | pod, "the SNAT entries, beside the vSwitches it reads"


def test_existing_vswitches_go_to_the_cluster_as_they_are(run_program):
    cluster = build(run_program, cluster_config(network=EXISTING)).one(CLUSTER_TYPE)
    assert cluster.inputs["vswitchIds"] == ["vsw-node1", "vsw-node2"]
    assert cluster.inputs["podVswitchIds"] == ["vsw-pod1", "vsw-pod2"]
    assert cluster.dependencies == ()


# --- node pool ----------------------------------------------------------------------------------------------------


def test_autoscaling_node_pool_sends_a_string_size_and_ignores_its_drift(run_program):
    pool = {"name": "system", "instanceTypes": ["ecs.g7.xlarge", "ecs.g6.xlarge"], "minSize": 1, "maxSize": 4}
    pool |= {"desiredSize": 2, "labels": {"role": "system"}, "taints": [{"key": "dedicated", "value": "system"}]}
    recording = build(run_program, cluster_config(network=EXISTING, nodePool=pool))
    node_pool = recording.one(NODE_POOL_TYPE, "ack-demo-system")
    inputs = node_pool.inputs
    assert inputs["desiredSize"] == "2"
    assert inputs["scalingConfig"] == {"enable": True, "type": "cpu", "minSize": 1, "maxSize": 4}, "type: read back"
    assert node_pool.ignore_changes == ("desiredSize",)
    assert (inputs["nodePoolName"], inputs["instanceTypes"]) == ("system", ["ecs.g7.xlarge", "ecs.g6.xlarge"])
    assert inputs["vswitchIds"] == ["vsw-node1", "vsw-node2"]
    assert (inputs["systemDiskCategory"], inputs["systemDiskSize"]) == ("cloud_essd", 120)
    assert inputs["labels"] == [{"key": "role", "value": "system"}]
    assert inputs["taints"] == [{"key": "dedicated", "value": "system", "effect": "NoSchedule"}]
    assert recording.provider_of(node_pool).name == "ack-demo-alicloud"
    assert set(node_pool.property_dependencies["clusterId"]) == {recording.one(CLUSTER_TYPE).urn}


def test_fixed_node_pool_has_no_scaling_config_and_keeps_its_size(run_program):
    node_pool = build(run_program, cluster_config(nodePool=POOL)).one(NODE_POOL_TYPE)
    assert node_pool.inputs["desiredSize"] == "2" and "scalingConfig" not in node_pool.inputs
    assert node_pool.ignore_changes == ()


def test_the_virtual_node_and_the_workloads_wait_for_the_node_pool(run_program):
    """CoreDNS and the addon's own pods run on ECS nodes; virtual nodes are tainted against them."""
    recording = build(run_program, cluster_config(network=EXISTING, nodePool=POOL))
    pool = recording.one(NODE_POOL_TYPE)
    virtual_node = recording.one(ADDON_TYPE, "ack-demo-ack-virtual-node")
    assert pool.urn in virtual_node.dependencies
    assert recording.provider_of(virtual_node).name == "ack-demo-alicloud"
    assert recording.depends_on(recording.named("demo-workload"), pool)


# --- ack-virtual-node and kube-scheduler --------------------------------------------------------------------------


def test_virtual_node_is_installed_at_ack_s_version_without_a_pin(default_run):
    addon = default_run.one(ADDON_TYPE, "ack-demo-ack-virtual-node")
    assert addon.inputs["name"] == "ack-virtual-node"
    assert "version" not in addon.inputs, "an unset version installs ACK's current one and never diffs"
    assert addon.inputs["cleanupCloudResources"] is True
    assert "config" not in addon.inputs
    cluster = default_run.one(CLUSTER_TYPE)
    assert set(addon.property_dependencies["clusterId"]) == {cluster.urn}
    assert set(addon.dependencies) == {cluster.urn}, "no node pool configured, nothing else to wait for"
    assert default_run.by_type(NODE_POOL_TYPE) == [], "no node pool unless configured"


def test_only_the_virtual_node_is_managed_by_default_and_the_workloads_wait_for_it(default_run):
    virtual_node = default_run.one(ADDON_TYPE, "ack-demo-ack-virtual-node")
    assert [a.inputs["name"] for a in default_run.by_type(ADDON_TYPE)] == ["ack-virtual-node"]
    assert default_run.outputs["demo-addons"] == [virtual_node.urn]
    assert virtual_node.urn in default_run.named("demo-workload").dependencies


def test_installed_addon_versions_are_read_once_on_the_region_provider(default_run):
    [call] = invokes(default_run, ADDONS_INVOKE)
    assert call.args == {"clusterId": default_run.outputs["demo-cluster-id"], "nameRegex": MANAGED_ADDON_NAMES}
    assert call.provider.rsplit("::", 1)[0] == default_run.one("pulumi:providers:alicloud").urn


@pytest.mark.parametrize(
    ("pin", "installed", "sent"),
    [
        ("v2.15.0", "", "v2.15.0"),  # not installed yet: install the pin
        ("v2.18.0", "v2.17.3", "v2.18.0"),  # older install: raise it to the pin
        ("v2.15.0", "v2.17.3", "v2.17.3"),  # newer install (ACK upgraded it): keep it, no downgrade
    ],
)
def test_a_virtual_node_pin_is_a_floor(run_program, monkeypatch, pin, installed, sent):
    monkeypatch.setitem(mock_cloud.ACK_INSTALLED_ADDONS, "ack-virtual-node", installed)
    addon = build(run_program, cluster_config(network=EXISTING, virtualNode={"version": pin})).one(ADDON_TYPE)
    assert addon.inputs["version"] == sent


@pytest.mark.parametrize(
    ("pin", "sent"),
    [
        ("v1.35.0-apsara.6.12.0.aaaaaaaa", "v1.35.0-apsara.6.12.0.aaaaaaaa"),  # above ACK's default: upgrade
        ("v1.35.0-aliyun.6.9.4.aaaaaaaa", "v1.35.0-apsara.6.11.4.77470105"),  # below it: keep the default
    ],
)
def test_a_scheduler_pin_is_a_floor_over_the_default_install(run_program, pin, sent):
    recording = build(run_program, cluster_config(network=EXISTING, scheduler={"version": pin}))
    scheduler = recording.one(ADDON_TYPE, "ack-demo-kube-scheduler")
    assert scheduler.inputs["version"] == sent


def test_a_managed_scheduler_adopts_the_default_install_and_gates_the_workloads(run_program):
    parameters = {"podMaxBackoffSeconds": "10", "enable": "true"}
    recording = build(run_program, cluster_config(network=EXISTING, scheduler={"config": parameters}))
    scheduler = recording.one(ADDON_TYPE, "ack-demo-kube-scheduler")
    assert scheduler.inputs["name"] == "kube-scheduler"
    assert "version" not in scheduler.inputs
    assert scheduler.inputs["config"] == '{"enable":"true","podMaxBackoffSeconds":"10"}'
    assert set(scheduler.dependencies) == {recording.one(CLUSTER_TYPE).urn}
    assert recording.provider_of(scheduler).name == "ack-demo-alicloud"
    virtual_node = recording.one(ADDON_TYPE, "ack-demo-ack-virtual-node")
    assert recording.outputs["demo-addons"] == [virtual_node.urn, scheduler.urn]
    assert {virtual_node.urn, scheduler.urn} <= set(recording.named("demo-workload").dependencies)


def test_addons_meeting_the_needs_release_the_workloads(run_program):
    """ACK's default kube-scheduler (6.11.4 for 1.35) and virtual node (v2.17.3) meet even GPU-HPN's minimums."""
    recording = build(run_program, cluster_config(network=EXISTING), needs=GPU_HPN_NEEDS)
    assert recording.named("demo-workload").dependencies


def test_an_installed_scheduler_below_a_need_fails_up_naming_the_key(monkeypatch):
    monkeypatch.setitem(mock_cloud.ACK_INSTALLED_ADDONS, "kube-scheduler", "v1.35.0-apsara.6.9.3.aaaaaaaa")
    error, registered = failed_run(monkeypatch, program_for(cluster_config(network=EXISTING), needs=GPU_HPN_NEEDS))
    assert error.keys == [f"{KEY}.scheduler"]
    message = str(error)
    assert "v1.35.0-apsara.6.9.3.aaaaaaaa" in message and "ack.workloads[5] (hpn, gpu-hpn)" in message
    assert "v1.33.0-aliyun.6.9.4.8b58e6b4" in message and f"{KEY}.scheduler.version" in message
    assert "demo-workload" not in {r.name for r in registered}, "no workload on a failed check"


def test_a_managed_scheduler_is_checked_as_the_resource_left_it(run_program, monkeypatch):
    """With a pin the scheduler resource's own version is checked: here the pin raised it above the need."""
    monkeypatch.setitem(mock_cloud.ACK_INSTALLED_ADDONS, "kube-scheduler", "v1.35.0-apsara.6.9.3.aaaaaaaa")
    cfg = cluster_config(network=EXISTING, scheduler={"version": "v1.35.0-apsara.6.11.4.77470105"})
    recording = build(run_program, cfg, needs=GPU_HPN_NEEDS)
    assert recording.one(ADDON_TYPE, "ack-demo-kube-scheduler").inputs["version"] == "v1.35.0-apsara.6.11.4.77470105"


def test_an_installed_virtual_node_below_a_need_fails_up_naming_the_key(run_program, monkeypatch):
    monkeypatch.setitem(mock_cloud.ACK_CURRENT_ADDONS, "ack-virtual-node", "v2.14.0")
    with pytest.raises(ConfigError) as caught:
        build(run_program, cluster_config(network=EXISTING), needs=GPU_HPN_NEEDS)
    assert caught.value.keys == [f"{KEY}.virtualNode.version"]
    assert "v2.14.0" in str(caught.value) and "v2.15.0" in str(caught.value)


def test_an_unreadable_installed_version_is_a_warning_not_a_failure(run_program, monkeypatch, caplog):
    monkeypatch.setitem(mock_cloud.ACK_INSTALLED_ADDONS, "kube-scheduler", "")
    build(run_program, cluster_config(network=EXISTING), needs=GPU_HPN_NEEDS)
    assert any("no installed kube-scheduler" in r.getMessage() for r in caplog.records)


def test_no_check_runs_in_a_preview_of_a_new_cluster(monkeypatch):
    """Installed versions exist only after `up` created the cluster: preview neither fails nor guesses."""
    monkeypatch.setitem(mock_cloud.ACK_INSTALLED_ADDONS, "kube-scheduler", "v1.35.0-apsara.6.0.0.aaaaaaaa")
    program = program_for(cluster_config(network=EXISTING), needs=GPU_HPN_NEEDS)
    assert invokes(mock_runtime.run(program, {}, preview=True), ADDONS_INVOKE) == []


# --- the Kubernetes provider --------------------------------------------------------------------------------------


def test_the_provider_gets_the_secret_kubeconfig_and_is_bound_to_the_cluster(default_run):
    provider = default_run.one("pulumi:providers:kubernetes", "ack-demo-k8s")
    assert provider.parent == default_run.one(COMPONENT_TYPE).urn
    assert provider.is_secret("kubeconfig")
    assert json.loads(provider.inputs["kubeconfig"]) == json.loads(default_run.outputs["demo-kubeconfig"])
    assert "demo-kubeconfig" in default_run.secret_outputs
    assert "deleteUnreachable" not in provider.inputs
    identifier = provider.inputs["clusterIdentifier"]
    assert identifier == default_run.one(CLUSTER_TYPE).id == default_run.outputs["demo-cluster-id"]


@pytest.mark.parametrize(("public", "endpoint"), [(True, ".cs.mock.invalid:6443"), (False, "https://10.1.0.5:6443")])
def test_the_kubeconfig_uses_the_endpoint_the_cluster_exposes(run_program, public, endpoint):
    recording = build(run_program, cluster_config(network=EXISTING, slbInternetEnabled=public))
    assert recording.outputs["demo-endpoint"].endswith(endpoint)
    kubeconfig = json.loads(recording.outputs["demo-kubeconfig"])
    assert kubeconfig["clusters"][0]["cluster"]["server"] == recording.outputs["demo-endpoint"]


# --- what the stack's environment kind changes ----------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["dev", "ephemeral", "production"])
def test_the_environment_decides_name_protection_delete_options_and_forgetting(run_program, kind):
    recording = build(run_program, cluster_config(network=EXISTING), kind=kind, name_suffix="-pr7")
    cluster = recording.one(CLUSTER_TYPE)
    assert cluster.inputs["name"] == "demo-pr7", "every kind takes the suffix it is given"
    assert [r.name for r in recording.registrations if r.protect] == (["ack-demo-cluster"] * (kind == "production"))
    assert ("deleteOptions" in cluster.inputs) is (kind == "ephemeral")
    assert recording.named("ack-demo-k8s").inputs.get("deleteUnreachable") == ("true" if kind == "ephemeral" else None)


def test_an_ephemeral_cluster_takes_what_ack_made_for_it_but_never_a_log_project_it_was_given():
    ephemeral = EnvironmentConfig(kind="ephemeral", name_suffix="-pr7")
    everything = ["SLB", "ALB", "SLS_Data", "SLS_ControlPlane"]
    assert [o["resource_type"] for o in delete_options(cluster_config(), ephemeral)] == everything
    logs = {"auditLog": {"slsProjectName": "audit"}, "controlPlaneLogs": {"components": ["kcm"], "project": "ops"}}
    assert [o["resource_type"] for o in delete_options(cluster_config(**logs), ephemeral)] == ["SLB", "ALB"]
    assert {o["delete_mode"] for o in delete_options(cluster_config(), ephemeral)} == {"delete"}
    assert delete_options(cluster_config(), EnvironmentConfig()) == []
