"""The ACK Pro cluster component under Pulumi mocks: what it registers, through which provider, in which order."""

from __future__ import annotations

import copy
import json
from typing import Any

import pulumi
import pytest

from components.ack import AckProCluster, canonical_json
from components.config.ack import AckClusterConfig
from tools import mock_runtime

CLUSTER_TYPE = "alicloud:cs/managedKubernetes:ManagedKubernetes"
ADDON_TYPE = "alicloud:cs/kubernetesAddon:KubernetesAddon"
SWITCH_TYPE = "alicloud:vpc/switch:Switch"
SNAT_TYPE = "alicloud:vpc/snatEntry:SnatEntry"
NODE_POOL_TYPE = "alicloud:cs/nodePool:NodePool"
NETWORK_TYPES = (
    "alicloud:vpc/network:Network",
    SWITCH_TYPE,
    "alicloud:vpc/natGateway:NatGateway",
    "alicloud:ecs/eipAddress:EipAddress",
    "alicloud:ecs/eipAssociation:EipAssociation",
    SNAT_TYPE,
)

BASE = {
    "name": "demo",
    "region": "cn-hangzhou",
    "kubernetesVersion": "1.33.1-aliyun.1",
    "network": {
        "vpcCidr": "10.0.0.0/8",
        "zones": [
            {"zoneId": "cn-hangzhou-k", "nodeCidr": "10.1.0.0/16", "podCidr": "10.4.0.0/16"},
            {"zoneId": "cn-hangzhou-j", "nodeCidr": "10.2.0.0/16", "podCidr": "10.5.0.0/16"},
        ],
    },
}
EXISTING = {"vswitchIds": ["vsw-node1", "vsw-node2"], "podVswitchIds": ["vsw-pod1", "vsw-pod2"]}
SCHEDULER = {"version": "v1.33.0-aliyun.6.9.4.8b58e6b4", "config": {"podMaxBackoffSeconds": "10", "enable": "true"}}


def config(**changes: Any) -> AckClusterConfig:
    return AckClusterConfig.model_validate({**copy.deepcopy(BASE), **changes})


def program_for(*configs: AckClusterConfig):
    """A program registering one component per config (named ``ack-<name>``) and exporting what workloads use."""

    def program() -> None:
        for cfg in configs:
            component = AckProCluster(f"ack-{cfg.name}", cfg)
            pulumi.export(f"{cfg.name}-kubeconfig", component.kubeconfig)
            pulumi.export(f"{cfg.name}-endpoint", component.api_server_endpoint)
            pulumi.export(f"{cfg.name}-cluster-id", component.cluster_id)
            pulumi.export(f"{cfg.name}-addons", [addon.urn for addon in component.addons])
            pulumi.export(f"{cfg.name}-scheduler", component.scheduler.urn if component.scheduler else None)

    return program


def build(run_program, *configs: AckClusterConfig) -> mock_runtime.Recording:
    return run_program(program_for(*configs))


@pytest.fixture(scope="module")
def default_run() -> mock_runtime.Recording:
    """The default cluster (new VPC, two zones), shared by the tests that only read it."""
    return mock_runtime.run(program_for(config()), {})


def test_cluster_is_managed_pro_with_every_field_set_explicitly(default_run):
    cluster = default_run.one(CLUSTER_TYPE, "ack-demo-cluster")
    inputs = cluster.inputs
    assert inputs["name"] == "demo"
    assert inputs["clusterSpec"] == "ack.pro.small"
    assert inputs["version"] == "1.33.1-aliyun.1"
    assert inputs["serviceCidr"] == "192.168.0.0/16"
    assert inputs["timezone"] == "Asia/Shanghai"
    assert inputs["proxyMode"] == "ipvs"
    assert inputs["deletionProtection"] is True
    assert inputs["enableRrsa"] is False
    assert inputs["newNatGateway"] is False
    assert inputs["slbInternetEnabled"] is True
    assert inputs["skipSetCertificateAuthority"] is True
    assert inputs["isEnterpriseSecurityGroup"] is True
    assert inputs["tags"] == {"project": "elastic-capacity"}
    assert inputs["addons"] == [{"name": "terway-eniip"}, {"name": "csi-plugin"}, {"name": "managed-csiprovisioner"}]
    for absent in ("controlPlaneLogComponents", "auditLogConfig", "zoneIds", "workerVswitchIds", "podCidr"):
        assert absent not in inputs


def test_cluster_takes_node_and_pod_vswitches_from_the_new_vpc(default_run):
    cluster = default_run.one(CLUSTER_TYPE)
    switches = {s.name: s for s in default_run.by_type(SWITCH_TYPE)}
    node = [switches["ack-demo-node-cn-hangzhou-k"], switches["ack-demo-node-cn-hangzhou-j"]]
    pod = [switches["ack-demo-pod-cn-hangzhou-k"], switches["ack-demo-pod-cn-hangzhou-j"]]
    assert set(cluster.property_dependencies["vswitchIds"]) == {s.urn for s in node}
    assert set(cluster.property_dependencies["podVswitchIds"]) == {s.urn for s in pod}
    assert len(cluster.inputs["vswitchIds"]) == len(cluster.inputs["podVswitchIds"]) == 2
    assert [(s.inputs["zoneId"], s.inputs["cidrBlock"]) for s in node + pod] == [
        ("cn-hangzhou-k", "10.1.0.0/16"),
        ("cn-hangzhou-j", "10.2.0.0/16"),
        ("cn-hangzhou-k", "10.4.0.0/16"),
        ("cn-hangzhou-j", "10.5.0.0/16"),
    ]
    vpc = default_run.one("alicloud:vpc/network:Network")
    assert vpc.inputs["cidrBlock"] == "10.0.0.0/8"
    assert all(default_run.depends_on(s, vpc) for s in node + pod)


def test_every_alicloud_resource_uses_the_region_provider(default_run):
    alicloud = [r for r in default_run.registrations if r.type.startswith("alicloud:")]
    assert {r.type for r in alicloud} >= {*NETWORK_TYPES, CLUSTER_TYPE, ADDON_TYPE}
    providers = {default_run.provider_of(r).name for r in alicloud}
    assert providers == {"ack-demo-alicloud"}
    region = default_run.one("pulumi:providers:alicloud")
    assert region.inputs["region"] == "cn-hangzhou"
    assert region.parent == default_run.one("elastic-capacity:alicloud:AckProCluster").urn


def test_two_clusters_in_two_regions_get_their_own_providers(run_program):
    hangzhou = config()
    singapore = config(name="sg", region="ap-southeast-1", network=EXISTING)
    recording = build(run_program, hangzhou, singapore)
    regions = {p.name: p.inputs["region"] for p in recording.by_type("pulumi:providers:alicloud")}
    assert regions == {"ack-demo-alicloud": "cn-hangzhou", "ack-sg-alicloud": "ap-southeast-1"}
    for cluster_name, provider in (("demo", "ack-demo-alicloud"), ("sg", "ack-sg-alicloud")):
        for resource in (
            recording.one(CLUSTER_TYPE, f"ack-{cluster_name}-cluster"),
            recording.one(ADDON_TYPE, f"ack-{cluster_name}-ack-virtual-node"),
        ):
            assert recording.provider_of(resource).name == provider


def test_nat_gateway_eip_and_snat_give_every_vswitch_egress(default_run):
    nat = default_run.one("alicloud:vpc/natGateway:NatGateway")
    assert (nat.inputs["natType"], nat.inputs["paymentType"], nat.inputs["networkType"]) == (
        "Enhanced",
        "PayAsYouGo",
        "internet",
    )
    eip = default_run.one("alicloud:ecs/eipAddress:EipAddress")
    assert (eip.inputs["bandwidth"], eip.inputs["internetChargeType"]) == ("10", "PayByTraffic")
    association = default_run.one("alicloud:ecs/eipAssociation:EipAssociation")
    assert association.inputs["instanceType"] == "Nat"
    assert set(association.property_dependencies["allocationId"]) == {eip.urn}
    assert set(association.property_dependencies["instanceId"]) == {nat.urn}

    switches = default_run.by_type(SWITCH_TYPE)
    entries = default_run.by_type(SNAT_TYPE)
    sources = [urn for entry in entries for urn in entry.property_dependencies["sourceVswitchId"]]
    assert sorted(sources) == sorted(s.urn for s in switches), "one SNAT entry per vSwitch"
    for entry in entries:
        assert association.urn in entry.dependencies
        assert set(entry.property_dependencies["snatTableId"]) == {nat.urn}
        assert set(entry.property_dependencies["snatIp"]) == {eip.urn}


def test_cluster_waits_for_the_snat_entries(default_run):
    cluster = default_run.one(CLUSTER_TYPE)
    entries = default_run.by_type(SNAT_TYPE)
    assert len(entries) == 4
    assert {e.urn for e in entries} <= set(cluster.dependencies)


def test_existing_network_registers_no_vpc_resources(run_program):
    recording = build(run_program, config(network=EXISTING))
    for type_ in NETWORK_TYPES:
        assert recording.by_type(type_) == []
    cluster = recording.one(CLUSTER_TYPE)
    assert cluster.inputs["vswitchIds"] == ["vsw-node1", "vsw-node2"]
    assert cluster.inputs["podVswitchIds"] == ["vsw-pod1", "vsw-pod2"]
    assert cluster.inputs["newNatGateway"] is False


def test_virtual_node_addon_is_pinned_and_depends_on_the_cluster(default_run):
    addon = default_run.one(ADDON_TYPE, "ack-demo-ack-virtual-node")
    assert addon.inputs["name"] == "ack-virtual-node"
    assert addon.inputs["version"] == "v2.17.3"
    assert addon.inputs["cleanupCloudResources"] is True
    assert "config" not in addon.inputs
    cluster = default_run.one(CLUSTER_TYPE)
    assert set(addon.property_dependencies["clusterId"]) == {cluster.urn}
    assert default_run.depends_on(addon, cluster)


def test_cleanup_false_is_still_sent(run_program):
    cfg = config(network=EXISTING, virtualNode={"version": "v2.15.0", "cleanupCloudResources": False})
    addon = build(run_program, cfg).one(ADDON_TYPE, "ack-demo-ack-virtual-node")
    assert (addon.inputs["version"], addon.inputs["cleanupCloudResources"]) == ("v2.15.0", False)


def test_scheduler_addon_only_when_configured(default_run, run_program):
    assert [a.inputs["name"] for a in default_run.by_type(ADDON_TYPE)] == ["ack-virtual-node"]
    assert default_run.outputs["demo-addons"] == [default_run.one(ADDON_TYPE, "ack-demo-ack-virtual-node").urn]

    recording = build(run_program, config(network=EXISTING, scheduler=SCHEDULER))
    scheduler = recording.one(ADDON_TYPE, "ack-demo-kube-scheduler")
    assert scheduler.inputs["name"] == "kube-scheduler"
    assert scheduler.inputs["version"] == "v1.33.0-aliyun.6.9.4.8b58e6b4"
    assert scheduler.inputs["config"] == '{"enable":"true","podMaxBackoffSeconds":"10"}'
    assert recording.depends_on(scheduler, recording.one(CLUSTER_TYPE))
    assert recording.provider_of(scheduler).name == "ack-demo-alicloud"
    virtual_node = recording.one(ADDON_TYPE, "ack-demo-ack-virtual-node")
    assert recording.outputs["demo-addons"] == [virtual_node.urn, scheduler.urn]
    assert recording.outputs["demo-scheduler"] == scheduler.urn


def test_scheduler_without_config_sends_none(run_program):
    cfg = config(network=EXISTING, scheduler={"version": SCHEDULER["version"]})
    assert "config" not in build(run_program, cfg).one(ADDON_TYPE, "ack-demo-kube-scheduler").inputs


def test_canonical_json_is_compact_sorted_and_order_independent():
    first = canonical_json({"b": {"y": "1", "x": True}, "a": [2, 1]})
    second = canonical_json({"a": [2, 1], "b": {"x": True, "y": "1"}})
    assert first == second == '{"a":[2,1],"b":{"x":true,"y":"1"}}'
    assert json.loads(first) == {"a": [2, 1], "b": {"x": True, "y": "1"}}


def test_optional_cluster_settings_reach_the_cluster(run_program):
    cfg = config(
        network=EXISTING,
        deletionProtection=False,
        enableRrsa=True,
        slbInternetEnabled=False,
        serviceCidr="172.21.0.0/20",
        proxyMode="iptables",
        controlPlaneLogs={"components": ["apiserver", "kcm"], "ttl": 7, "project": "k8s-logs"},
        auditLog={"slsProjectName": "audit"},
        addons=[
            {"name": "terway-eniip", "config": {"NetworkPolicy": "true", "IPVlan": "false"}},
            {"name": "csi-plugin"},
        ],
        tags={"team": "batch"},
    )
    inputs = build(run_program, cfg).one(CLUSTER_TYPE).inputs
    assert (inputs["deletionProtection"], inputs["enableRrsa"], inputs["slbInternetEnabled"]) == (False, True, False)
    assert (inputs["serviceCidr"], inputs["proxyMode"]) == ("172.21.0.0/20", "iptables")
    assert inputs["controlPlaneLogComponents"] == ["apiserver", "kcm"]
    assert (inputs["controlPlaneLogTtl"], inputs["controlPlaneLogProject"]) == ("7", "k8s-logs")
    assert inputs["auditLogConfig"] == {"enabled": True, "slsProjectName": "audit"}
    assert inputs["addons"] == [
        {"name": "terway-eniip", "config": '{"IPVlan":"false","NetworkPolicy":"true"}'},
        {"name": "csi-plugin"},
    ]
    assert inputs["tags"] == {"team": "batch"}


def test_autoscaling_node_pool_sends_a_string_size_and_ignores_its_drift(run_program):
    pool = {"name": "system", "instanceTypes": ["ecs.g7.xlarge", "ecs.g6.xlarge"], "minSize": 1, "maxSize": 4}
    pool |= {"desiredSize": 2, "labels": {"role": "system"}, "taints": [{"key": "dedicated", "value": "system"}]}
    recording = build(run_program, config(network=EXISTING, nodePool=pool))
    node_pool = recording.one(NODE_POOL_TYPE, "ack-demo-system")
    inputs = node_pool.inputs
    assert inputs["desiredSize"] == "2"
    assert inputs["scalingConfig"] == {"enable": True, "minSize": 1, "maxSize": 4}
    assert node_pool.ignore_changes == ("desiredSize",)
    assert inputs["nodePoolName"] == "system"
    assert inputs["instanceTypes"] == ["ecs.g7.xlarge", "ecs.g6.xlarge"]
    assert inputs["vswitchIds"] == ["vsw-node1", "vsw-node2"]
    assert (inputs["systemDiskCategory"], inputs["systemDiskSize"]) == ("cloud_essd", 120)
    assert inputs["labels"] == [{"key": "role", "value": "system"}]
    assert inputs["taints"] == [{"key": "dedicated", "value": "system", "effect": "NoSchedule"}]
    assert recording.provider_of(node_pool).name == "ack-demo-alicloud"
    assert set(node_pool.property_dependencies["clusterId"]) == {recording.one(CLUSTER_TYPE).urn}


def test_fixed_node_pool_has_no_scaling_config_and_keeps_its_size(run_program):
    pool = {"name": "fixed", "instanceTypes": ["ecs.g7.xlarge"], "minSize": 2, "maxSize": 2}
    node_pool = build(run_program, config(nodePool=pool)).one(NODE_POOL_TYPE)
    assert node_pool.inputs["desiredSize"] == "2"
    assert "scalingConfig" not in node_pool.inputs
    assert node_pool.ignore_changes == ()


def test_no_node_pool_unless_configured(default_run):
    assert default_run.by_type(NODE_POOL_TYPE) == []


def test_kubeconfig_is_a_secret_and_feeds_the_kubernetes_provider(default_run):
    assert "demo-kubeconfig" in default_run.secret_outputs
    assert default_run.outputs["demo-kubeconfig"] == mock_runtime.FAKE_KUBECONFIG
    provider = default_run.one("pulumi:providers:kubernetes", "ack-demo-k8s")
    assert provider.is_secret("kubeconfig")
    assert provider.inputs["kubeconfig"] == mock_runtime.FAKE_KUBECONFIG
    assert provider.redacted_inputs["kubeconfig"] == mock_runtime.REDACTED
    assert provider.inputs["deleteUnreachable"] == "false"
    cluster = default_run.one("alicloud:cs/managedKubernetes:ManagedKubernetes")
    assert provider.inputs["clusterIdentifier"] == cluster.id, "a fresh temporary credential must not replace it"


def test_api_server_endpoint_is_the_first_connection(default_run):
    assert default_run.outputs["demo-endpoint"] == "https://ack.mock.invalid:6443"


def test_credential_invoke_uses_the_region_provider_and_lifetime(run_program):
    recording = build(run_program, config(network=EXISTING, credentialMinutes=120))
    [call] = [c for c in recording.invokes if c.token == "alicloud:cs/getClusterCredential:getClusterCredential"]
    assert call.args == {"clusterId": recording.outputs["demo-cluster-id"], "temporaryDurationMinutes": 120}
    region = recording.one("pulumi:providers:alicloud")
    assert call.provider.rsplit("::", 1)[0] == region.urn
