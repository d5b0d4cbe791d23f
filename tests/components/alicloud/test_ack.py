"""The ACK Pro cluster component under Pulumi mocks: what it registers, through which provider, in which order, and
what it checks against ACK while deploying. Its network, its addons and its kubeconfig and grants have their own
modules and tests."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from pydantic import ValidationError

from components.alicloud.ack import NODE_SCALING, delete_options
from components.config.ack.ack import AckClusterConfig
from components.config.environment import EnvironmentConfig
from components.config.environment_rules import resolved_ack_cluster
from tests.support.ack import (
    ADDON_TYPE,
    CLUSTER_TYPE,
    CLUSTERS_INVOKE,
    COMPONENT_TYPE,
    CREDENTIAL_INVOKE,
    EXISTING,
    GRANTS,
    KEY,
    NAT_ZONES_INVOKE,
    NETWORK_TYPES,
    NODE_POOL_TYPE,
    PERMISSION_TYPE,
    POOL,
    SNAT_TYPE,
    VERSION_INVOKE,
    build,
    cluster_config,
    invokes,
    program_for,
)
from tools import mock_cloud, mock_engine, mock_runtime
from tools.recording import Recording

VERSION_PIN_TYPE = "pulumi-python:dynamic/clusters:ClusterVersion"


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
    assert (inputs["enableRrsa"], inputs["isEnterpriseSecurityGroup"]) == (True, True)
    assert inputs["deletionProtection"] is False and not cluster.protect, "a dev stack can be destroyed"
    assert {k: inputs[k] for k in FLAGS} == FLAGS
    assert inputs["tags"] == {"project": "elastic-capacity"}
    assert inputs["addons"] == [{"name": "terway-eniip"}, {"name": "csi-plugin"}, {"name": "managed-csiprovisioner"}]
    assert not [key for key in (*ABSENT, "encryptionProviderKey") if key in inputs], "no KMS key unless configured"
    assert cluster.custom_timeouts == {"create": "90m", "update": "60m", "delete": "60m"}, "long enough for ACK"


def test_a_pod_cidr_ack_reads_back_never_replaces_the_cluster(default_run):
    """``pod_cidr`` is create-only and never sent on Terway; Read stores ACK's ContainerCIDR when ACK reports one."""
    cluster = default_run.one(CLUSTER_TYPE, "ack-demo-cluster")
    assert "podCidr" not in cluster.inputs and "podCidr" in cluster.ignore_changes


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
    with pytest.raises(mock_engine.CheckFailed) as caught:
        build(run_program, cluster_config(network=EXISTING, kubernetesVersion=version))
    assert str(caught.value).startswith(f"{KEY}.kubernetesVersion: ")
    assert repr(version) in str(caught.value) and says in str(caught.value) and "\n" not in str(caught.value)


def test_the_version_check_runs_in_preview():
    """The offered versions need no cluster, so a stale version fails `pulumi preview` already."""
    with pytest.raises(mock_engine.CheckFailed):
        mock_runtime.run(program_for(cluster_config(kubernetesVersion="1.31")), {}, preview=True)


# --- the version holds still once created (components/waiters/version_pin.py) -----------------------------------------


def _runs(monkeypatch, *stacks: AckClusterConfig, offers: tuple[tuple[str, ...], ...]) -> list[Recording]:
    """Preview ``stacks`` one after another against one state, ACK's catalogue moving to ``offers[i]`` before run i."""
    monkeypatch.setattr(mock_engine, "VERSION_PIN_STATE", {})
    recordings = []
    for stack, offered in zip(stacks, offers, strict=True):
        monkeypatch.setattr(mock_cloud, "ACK_OFFERED_VERSIONS", offered)
        recordings.append(mock_runtime.run(program_for(stack), {}, preview=True))
    return recordings


@pytest.mark.parametrize(
    "moved_on",
    [
        ("1.35.0-aliyun.1", "1.35.2-aliyun.1", "1.35.4-aliyun.1", "1.36.1-aliyun.1"),  # a new patch
        ("1.36.1-aliyun.1", "1.37.0-aliyun.1"),  # the stack's minor no longer created
    ],
)
@pytest.mark.parametrize("requested", ["1.35", "1.35.2-aliyun.1"])
def test_an_unchanged_stack_registers_the_same_cluster_whatever_the_catalogue_does(monkeypatch, requested, moved_on):
    stack = cluster_config(network=EXISTING, kubernetesVersion=requested)
    first, second = _runs(monkeypatch, stack, stack, offers=(mock_cloud.ACK_OFFERED_VERSIONS, moved_on))
    assert first.one(CLUSTER_TYPE).inputs["version"] == "1.35.2-aliyun.1"
    assert second.one(CLUSTER_TYPE).inputs == first.one(CLUSTER_TYPE).inputs


def test_a_newer_minor_in_the_stack_file_upgrades_to_its_newest_patch(monkeypatch):
    runs = _runs(
        monkeypatch,
        cluster_config(network=EXISTING, kubernetesVersion="1.35"),
        cluster_config(network=EXISTING, kubernetesVersion="1.36"),
        offers=(mock_cloud.ACK_OFFERED_VERSIONS, ("1.36.1-aliyun.1", "1.36.3-aliyun.1", "1.37.0-aliyun.1")),
    )
    assert [run.one(CLUSTER_TYPE).inputs["version"] for run in runs] == ["1.35.2-aliyun.1", "1.36.3-aliyun.1"]


@pytest.mark.parametrize(
    ("to", "says"),
    [
        ("1.37", "skips a minor: the cluster runs 1.35.2-aliyun.1; upgrade one minor at a time, to 1.36 first"),
        ("1.34", "would downgrade the cluster from 1.35.2-aliyun.1; Kubernetes cannot downgrade"),
    ],
)
def test_a_skipped_minor_or_a_downgrade_is_refused_naming_the_key(monkeypatch, to, says):
    offered = ("1.34.9-aliyun.1", "1.35.2-aliyun.1", "1.36.1-aliyun.1", "1.37.0-aliyun.1")
    with pytest.raises(mock_engine.CheckFailed) as caught:
        _runs(
            monkeypatch,
            cluster_config(network=EXISTING, kubernetesVersion="1.35"),
            cluster_config(network=EXISTING, kubernetesVersion=to),
            offers=(offered, offered),
        )
    assert str(caught.value) == f"{KEY}.kubernetesVersion: {to!r} {says}"


def test_a_patch_going_down_in_the_stack_file_is_refused_at_preview(monkeypatch):
    """ACK's UpgradeCluster only moves forward, so a lower patch would fail `up` after a harmless-looking preview."""
    with pytest.raises(mock_engine.CheckFailed) as caught:
        _runs(
            monkeypatch,
            cluster_config(network=EXISTING, kubernetesVersion="1.35.2-aliyun.1"),
            cluster_config(network=EXISTING, kubernetesVersion="1.35.0-aliyun.1"),
            offers=(mock_cloud.ACK_OFFERED_VERSIONS, mock_cloud.ACK_OFFERED_VERSIONS),
        )
    assert str(caught.value) == (
        f"{KEY}.kubernetesVersion: '1.35.0-aliyun.1' would downgrade the cluster from 1.35.2-aliyun.1; "
        "Kubernetes cannot downgrade"
    )


# --- what ACK runs: upgrades made outside Pulumi, and what the stack exports --------------------------------------


def _lived(monkeypatch, *steps: tuple[AckClusterConfig, str | None]) -> list[Recording]:
    """``up`` each stack against one state, ACK reporting the cluster ``demo`` running the step's version (``None``:
    the cluster does not exist yet) when that run starts."""
    monkeypatch.setattr(mock_engine, "VERSION_PIN_STATE", {})
    runs = []
    for stack, running in steps:
        clusters = {"demo": mock_cloud.ack_running_cluster("demo", running)} if running else {}
        monkeypatch.setattr(mock_cloud, "ACK_RUNNING_CLUSTERS", clusters)
        runs.append(mock_runtime.run(program_for(stack), {}))
    return runs


def test_the_program_asks_ack_what_runs_under_the_clusters_name_in_its_region(default_run):
    [call] = invokes(default_run, CLUSTERS_INVOKE)
    assert call.args == {"clusterName": "demo", "clusterType": "ManagedKubernetes"}
    assert call.provider.rsplit("::", 1)[0] == default_run.one("pulumi:providers:alicloud").urn


def test_an_upgrade_made_in_the_console_is_taken_over_not_undone(monkeypatch, caplog):
    """After a console upgrade `refresh` reads ACK's CurrentVersion into the cluster's state; a stack that kept
    sending the pin would then plan a downgrade on every preview and fail `up` in UpgradeCluster."""
    stack = cluster_config(network=EXISTING, kubernetesVersion="1.35")
    first, second = _lived(monkeypatch, (stack, None), (stack, "1.36.1-aliyun.1"))
    assert first.one(CLUSTER_TYPE).inputs["version"] == "1.35.2-aliyun.1"
    assert second.one(CLUSTER_TYPE).inputs["version"] == "1.36.1-aliyun.1", "the input follows what runs"
    assert second.outputs["demo-version"] == "1.36.1-aliyun.1"
    warned = [r.getMessage() for r in caplog.records if "upgraded outside Pulumi" in r.getMessage()]
    assert warned and warned[0].startswith(f"{KEY}.kubernetesVersion: '1.35', but the cluster runs 1.36.1-aliyun.1")
    assert "NodePool" not in str(second.one(CLUSTER_TYPE).inputs), "the console's upgrade moves no pool"


def test_the_exported_version_is_what_ack_reports_not_what_was_asked(monkeypatch):
    """The stack says what runs (the N6 finding): the provider's read-back of ACK's CurrentVersion, here newer than
    the version a first `up` sends because a cluster of that name already ran it."""
    [run] = _lived(monkeypatch, (cluster_config(network=EXISTING, kubernetesVersion="1.35"), "1.36.1-aliyun.1"))
    assert run.one(CLUSTER_TYPE).inputs["version"] == "1.35.2-aliyun.1"
    assert run.outputs["demo-version"] == "1.36.1-aliyun.1"


def test_a_version_bump_upgrades_the_control_plane_alone_then_the_pool_to_what_the_control_plane_runs(monkeypatch):
    """UpgradeCluster with MasterOnly, then UpgradeClusterNodepool for the version the cluster reports afterwards:
    the pool's request is made of the cluster's output, so the engine sends it only once the cluster's update is
    done (the provider waits for the upgrade task and the running state before it returns)."""
    before, after = (cluster_config(network=EXISTING, nodePool=POOL, kubernetesVersion=v) for v in ("1.35", "1.36"))
    created, upgraded, settled = _lived(
        monkeypatch, (before, None), (after, "1.35.2-aliyun.1"), (after, "1.36.1-aliyun.1")
    )
    cluster = upgraded.one(CLUSTER_TYPE)
    assert (cluster.inputs["version"], cluster.inputs["upgradePolicy"]) == (
        "1.36.1-aliyun.1",
        {"controlPlaneOnly": True},
    )
    pool = upgraded.one(NODE_POOL_TYPE)
    assert pool.inputs["upgradePolicy"] == {"kubernetesVersion": "1.36.1-aliyun.1"}
    assert cluster.urn in pool.property_dependencies["upgradePolicy"]
    assert "upgradePolicy" not in created.one(NODE_POOL_TYPE).inputs, "a new pool starts at the cluster's version"
    assert "upgradePolicy" not in settled.one(NODE_POOL_TYPE).inputs, "asked once: no re-upgrade on later edits"
    assert settled.one(CLUSTER_TYPE).inputs == cluster.inputs


def test_a_zone_added_to_a_running_cluster_is_warned_about_naming_the_key(monkeypatch, caplog):
    """ACK hands Terway its pod vSwitches at creation only: a new zone's pods would get no IP, silently."""
    monkeypatch.setattr(
        mock_cloud, "ACK_RUNNING_CLUSTERS", {"demo": mock_cloud.ack_running_cluster("demo", "1.35.2-aliyun.1", 1)}
    )
    mock_runtime.run(program_for(cluster_config()), {}, preview=True)
    [warned] = [r.getMessage() for r in caplog.records if "eni-config" in r.getMessage()]
    assert warned.startswith(f"{KEY}.network.zones: 2 zones, but cluster managedkubernetes-ack-demo-cluster runs in 1")
    caplog.clear()
    monkeypatch.setattr(
        mock_cloud, "ACK_RUNNING_CLUSTERS", {"demo": mock_cloud.ack_running_cluster("demo", "1.35.2-aliyun.1", 2)}
    )
    mock_runtime.run(program_for(cluster_config()), {}, preview=True)
    assert not [r for r in caplog.records if "eni-config" in r.getMessage()]


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
    assert {c.token for c in calls} == {VERSION_INVOKE, CREDENTIAL_INVOKE, NAT_ZONES_INVOKE, CLUSTERS_INVOKE}
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
    version = {default_run.one(VERSION_PIN_TYPE).urn}
    assert set(cluster.property_dependencies["version"]) == version
    assert set(cluster.dependencies) == entries | node | pod | version, "the SNAT entries, beside what it reads"


def test_existing_vswitches_go_to_the_cluster_as_they_are(run_program):
    recording = build(run_program, cluster_config(network=EXISTING))
    cluster = recording.one(CLUSTER_TYPE)
    assert cluster.inputs["vswitchIds"] == ["vsw-node1", "vsw-node2"]
    assert cluster.inputs["podVswitchIds"] == ["vsw-pod1", "vsw-pod2"]
    assert cluster.dependencies == (recording.one(VERSION_PIN_TYPE).urn,), "only the version it reads"


# --- node pool ----------------------------------------------------------------------------------------------------


ELASTIC = {"name": "batch", "instanceTypes": ["ecs.g7.xlarge", "ecs.g6.xlarge"], "minSize": 1, "maxSize": 4}
"""A user pool that autoscales."""
SCALING_TYPE = "alicloud:cs/autoscalingConfig:AutoscalingConfig"


def test_autoscaling_node_pool_sends_a_string_size_and_ignores_its_drift(run_program):
    pool = {**ELASTIC, "desiredSize": 2, "labels": {"role": "batch"}}
    pool |= {"taints": [{"key": "dedicated", "value": "batch"}]}
    recording = build(run_program, cluster_config(network=EXISTING, nodePool=POOL, userPools=[pool]))
    node_pool = recording.one(NODE_POOL_TYPE, "ack-demo-batch")
    inputs = node_pool.inputs
    assert inputs["desiredSize"] == "2"
    assert inputs["scalingConfig"] == {"enable": True, "type": "cpu", "minSize": 1, "maxSize": 4}, "type: read back"
    assert node_pool.ignore_changes == ("desiredSize",)
    assert (inputs["nodePoolName"], inputs["instanceTypes"]) == ("batch", ["ecs.g7.xlarge", "ecs.g6.xlarge"])
    assert inputs["vswitchIds"] == ["vsw-node1", "vsw-node2"]
    assert (inputs["systemDiskCategory"], inputs["systemDiskSize"]) == ("cloud_essd", 120)
    assert inputs["labels"] == [{"key": "role", "value": "batch"}]
    assert inputs["taints"] == [{"key": "dedicated", "value": "batch", "effect": "NoSchedule"}]
    assert inputs["spotStrategy"] == "NoSpot" and "spotPriceLimits" not in inputs, "pay-as-you-go, said explicitly"
    assert recording.provider_of(node_pool).name == "ack-demo-alicloud"
    assert set(node_pool.property_dependencies["clusterId"]) == {recording.one(CLUSTER_TYPE).urn}


def test_an_autoscaling_pool_comes_with_the_clusters_node_scaling_switched_on_first(run_program):
    """ACK scales a pool only once node scaling is on for the cluster (the W1 finding: a pool at 0 forever)."""
    recording = build(run_program, cluster_config(network=EXISTING, nodePool=POOL, userPools=[ELASTIC]))
    scaling = recording.one(SCALING_TYPE, "ack-demo-node-scaling")
    assert scaling.inputs == {
        "clusterId": recording.one(CLUSTER_TYPE).id,
        **{re.sub(r"_(.)", lambda m: m[1].upper(), key): value for key, value in NODE_SCALING.items()},
    }
    assert set(scaling.property_dependencies["clusterId"]) == {recording.one(CLUSTER_TYPE).urn}
    assert recording.provider_of(scaling).name == "ack-demo-alicloud"
    assert scaling.urn in recording.one(NODE_POOL_TYPE, "ack-demo-batch").dependencies
    assert scaling.urn not in recording.one(NODE_POOL_TYPE, "ack-demo-system").dependencies


def test_no_node_scaling_without_a_pool_that_scales(run_program):
    fixed = {**ELASTIC, "minSize": 4}
    recording = build(run_program, cluster_config(network=EXISTING, nodePool=POOL, userPools=[fixed]))
    assert recording.by_type(SCALING_TYPE) == []
    assert sorted(p.name for p in recording.by_type(NODE_POOL_TYPE)) == ["ack-demo-batch", "ack-demo-system"]


@pytest.mark.parametrize(
    ("changes", "kind"),
    [({"spotStrategy": "SpotAsPriceGo"}, "spot"), ({"instanceTypes": ["ecs.gn7i-c8g1.2xlarge"]}, "gpu")],
)
def test_an_autoscaling_pool_tells_ack_what_it_is_made_of(run_program, changes, kind):
    """ACK's autoscaler plans by the pool's class; the W1 finding: every pool said cpu."""
    pools = [{**ELASTIC, **changes}]
    recording = build(run_program, cluster_config(network=EXISTING, nodePool=POOL, userPools=pools))
    assert recording.one(NODE_POOL_TYPE, "ack-demo-batch").inputs["scalingConfig"]["type"] == kind


def test_a_spot_gpu_pool_sends_its_strategy_and_a_price_limit_per_instance_type(run_program):
    pool = {**POOL, "instanceTypes": ["ecs.gn7i-c8g1.2xlarge", "ecs.gn6i-c4g1.xlarge"]}
    pool |= {
        "spotStrategy": "SpotWithPriceLimit",
        "spotPriceLimits": {"ecs.gn7i-c8g1.2xlarge": "2.5", "ecs.gn6i-c4g1.xlarge": "1.2"},
    }
    inputs = build(run_program, cluster_config(nodePool=pool)).one(NODE_POOL_TYPE).inputs
    assert inputs["spotStrategy"] == "SpotWithPriceLimit"
    assert inputs["spotPriceLimits"] == [
        {"instanceType": "ecs.gn7i-c8g1.2xlarge", "priceLimit": "2.5"},
        {"instanceType": "ecs.gn6i-c4g1.xlarge", "priceLimit": "1.2"},
    ]


def test_fixed_node_pool_has_no_scaling_config_and_keeps_its_size(run_program):
    node_pool = build(run_program, cluster_config(nodePool=POOL)).one(NODE_POOL_TYPE)
    assert node_pool.inputs["desiredSize"] == "2" and "scalingConfig" not in node_pool.inputs
    assert node_pool.ignore_changes == ()


def test_the_virtual_node_and_the_workloads_wait_for_the_node_pool(run_program):
    """CoreDNS and the addon's own pods run on ECS nodes of the system pool; virtual nodes are tainted against them."""
    recording = build(run_program, cluster_config(network=EXISTING, nodePool=POOL, userPools=[ELASTIC]))
    pool = recording.one(NODE_POOL_TYPE, "ack-demo-system")
    virtual_node = recording.one(ADDON_TYPE, "ack-demo-ack-virtual-node")
    assert recording.one(NODE_POOL_TYPE, "ack-demo-batch").urn not in virtual_node.dependencies
    assert pool.urn in virtual_node.dependencies
    assert recording.provider_of(virtual_node).name == "ack-demo-alicloud"
    assert recording.depends_on(recording.named("demo-workload"), pool)


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


# --- RBAC grants for identities other than the creator -------------------------------------------------------------


def test_the_kubernetes_provider_waits_for_the_grants(run_program):
    """The identity running pulumi may be a granted one: its objects come after its role, and go before it."""
    recording = build(run_program, cluster_config(network=EXISTING, rbac=GRANTS))
    provider = recording.one("pulumi:providers:kubernetes", "ack-demo-k8s")
    grants = {g.urn for g in recording.by_type(PERMISSION_TYPE)}
    assert len(grants) == 2 and grants <= set(provider.dependencies)


def test_no_grant_is_registered_unless_configured(default_run):
    assert default_run.by_type(PERMISSION_TYPE) == []


# --- deletion protection and what the stack's environment kind changes -------------------------------------------


@pytest.mark.parametrize("protected", [True, False])
def test_deletion_protection_also_gives_the_cluster_pulumis_protect(run_program, protected):
    """A destroy ACK would refuse at DeleteCluster fails in its preview instead, before anything is deleted."""
    recording = build(run_program, cluster_config(network=EXISTING, deletionProtection=protected))
    assert recording.one(CLUSTER_TYPE).inputs["deletionProtection"] is protected
    assert [r.name for r in recording.registrations if r.protect] == ["ack-demo-cluster"] * protected


@pytest.mark.parametrize("kind", ["dev", "ephemeral", "production"])
def test_the_environment_decides_name_delete_options_and_forgetting(run_program, kind):
    recording = build(run_program, cluster_config(network=EXISTING), kind=kind, name_suffix="-pr7")
    cluster = recording.one(CLUSTER_TYPE)
    assert cluster.inputs["name"] == "demo-pr7", "every kind takes the suffix it is given"
    assert ("deleteOptions" in cluster.inputs) is (kind == "ephemeral")
    assert recording.named("ack-demo-k8s").inputs.get("deleteUnreachable") == ("true" if kind == "ephemeral" else None)


def test_an_ephemeral_cluster_takes_what_ack_made_for_it_but_never_a_log_project_it_was_given():
    ephemeral = EnvironmentConfig(kind="ephemeral", name_suffix="-pr7")

    def deleted(environment: EnvironmentConfig, **fields: Any) -> list[str]:
        options = delete_options(resolved_ack_cluster(0, cluster_config(**fields), environment))
        assert {o["delete_mode"] for o in options} <= {"delete"}
        return [o["resource_type"] for o in options]

    assert deleted(ephemeral) == ["SLB", "ALB", "SLS_Data", "SLS_ControlPlane"]
    logs = {"auditLog": {"slsProjectName": "audit"}, "controlPlaneLogs": {"components": ["kcm"], "project": "ops"}}
    assert deleted(ephemeral, **logs) == ["SLB", "ALB"]
    assert deleted(EnvironmentConfig()) == [], "other kinds keep ACK's defaults"
    assert deleted(EnvironmentConfig(), deleteWithCluster=["SLB"]) == ["SLB"], "any kind may ask for it"
    assert deleted(ephemeral, deleteWithCluster=[]) == [], "a written list is the opt-out"


def test_a_log_project_the_stack_names_is_never_deleted_with_the_cluster():
    with pytest.raises(ValidationError, match=re.escape("deleteWithCluster[1]")):
        cluster_config(auditLog={"slsProjectName": "audit"}, deleteWithCluster=["SLB", "SLS_Data"])


def test_a_cluster_name_of_its_own_names_the_cluster_and_its_network_in_ack(run_program):
    recording = build(run_program, cluster_config(clusterName="prod-hz"), kind="dev", name_suffix="-pr7")
    assert recording.one(CLUSTER_TYPE).inputs["name"] == "prod-hz-pr7"
    assert recording.one("alicloud:vpc/network:Network").inputs["vpcName"] == "ack-prod-hz-pr7"
    assert recording.one("elastic-capacity:alicloud:AckProCluster").name == "ack-demo", "config name keys Pulumi"
