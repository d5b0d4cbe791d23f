"""Rules of one ``ack.clusters`` entry: defaults, and a good and a bad case for every rule, naming the exact key."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from pydantic import ValidationError

from components.config.ack import AckClusterConfig, NodePoolConfig
from components.config.stack import load_stack_config
from tests.support.config import as_config, model_error_keys, stack_error_keys

ZONE_K = {"zoneId": "cn-hangzhou-k", "nodeCidr": "10.1.0.0/16", "podCidr": "10.4.0.0/16"}
ZONE_J = {"zoneId": "cn-hangzhou-j", "nodeCidr": "10.2.0.0/16", "podCidr": "10.5.0.0/16"}
CLUSTER = {
    "name": "demo",
    "region": "cn-hangzhou",
    "kubernetesVersion": "1.35",
    "network": {"vpcCidr": "10.0.0.0/8", "zones": [ZONE_K]},
}
EXISTING = {"vswitchIds": ["vsw-node1"], "podVswitchIds": ["vsw-pod1"]}
SCHEDULER_1_35 = "v1.35.0-apsara.6.11.4.77470105"
POOL = {"name": "system", "instanceTypes": ["ecs.g7.xlarge"], "minSize": 1, "maxSize": 3}


def cluster(**changes: Any) -> dict[str, Any]:
    """The base cluster with top-level keys replaced (``None`` removes a key)."""
    data = copy.deepcopy(CLUSTER)
    for key, value in changes.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    return data


def error_keys(data: dict[str, Any]) -> list[str]:
    return model_error_keys(AckClusterConfig, data)


def test_defaults():
    config = AckClusterConfig.model_validate(CLUSTER)
    assert config.cluster_spec == "ack.pro.small"
    assert str(config.service_cidr) == "192.168.0.0/16"
    assert config.timezone == "Asia/Shanghai"
    assert config.proxy_mode == "ipvs"
    assert config.deletion_protection is True
    assert config.slb_internet_enabled is True
    assert config.enable_rrsa is False
    assert [addon.name for addon in config.addons] == ["terway-eniip", "csi-plugin", "managed-csiprovisioner"]
    assert config.virtual_node.version is None, "no pin: ACK's own version, never a downgrade"
    assert config.virtual_node.cleanup_cloud_resources is True
    assert config.scheduler is None
    assert config.node_pool is None
    assert config.kubeconfig_mode == "exec-plugin"
    assert config.credential_minutes == 1440
    assert config.tags == {"project": "elastic-capacity"}
    assert config.network.creates_vpc
    assert config.minor_version == "1.35"


def test_unknown_key_is_refused():
    assert error_keys(cluster(kubeconfig="x")) == ["kubeconfig"]


@pytest.mark.parametrize(
    ("key", "good", "bad"), [("name", "ack-demo-1", "Demo_1"), ("region", "ap-southeast-1", "Hangzhou")]
)
def test_names(key, good, bad):
    AckClusterConfig.model_validate(
        cluster(**{key: good}, network={"vswitchIds": ["vsw-a"], "podVswitchIds": ["vsw-b"]})
    )
    assert error_keys(cluster(**{key: bad})) == [key]


@pytest.mark.parametrize("good", ["1.35", "1.36", "1.35.2-aliyun.1", "1.26"])
def test_kubernetes_version_is_a_minor_or_an_exact_ack_version(good):
    assert AckClusterConfig.model_validate(cluster(kubernetesVersion=good)).kubernetes_version == good


@pytest.mark.parametrize("bad", ["1.35.1", "1.24", "1.24.6-aliyun.1", "latest", "v1.35"])
def test_kubernetes_version_form_and_the_1_26_minimum_are_refused_by_key(bad):
    assert error_keys(cluster(kubernetesVersion=bad)) == ["kubernetesVersion"]


def test_an_unquoted_yaml_minor_is_refused_with_a_hint():
    """YAML reads 1.30 as the number 1.3: the error says to quote it instead of resolving the wrong minor."""
    with pytest.raises(ValidationError, match="quote the version"):
        AckClusterConfig.model_validate(cluster(kubernetesVersion=1.30))


def test_only_pro_cluster_specs():
    assert AckClusterConfig.model_validate(cluster(clusterSpec="ack.pro.xlarge")).cluster_spec == "ack.pro.xlarge"
    assert error_keys(cluster(clusterSpec="ack.standard")) == ["clusterSpec"]


def test_existing_network_mode():
    config = AckClusterConfig.model_validate(cluster(network=EXISTING))
    assert not config.network.creates_vpc
    assert config.network.pod_vswitch_ids == ["vsw-pod1"]


@pytest.mark.parametrize(
    ("network", "key"),
    [
        ({**CLUSTER["network"], "vswitchIds": ["vsw-node1"]}, "network.vswitchIds"),
        ({"natBandwidth": 20, "podVswitchIds": ["vsw-pod1"]}, "network.podVswitchIds"),
        ({}, "network"),
        ({"zones": [ZONE_K]}, "network.vpcCidr"),
        ({"vpcCidr": "10.0.0.0/8"}, "network.zones"),
        ({"vpcCidr": "10.0.0.0/8", "zones": []}, "network.zones"),
        ({"vswitchIds": ["vsw-node1"]}, "network.podVswitchIds"),
        ({"vswitchIds": ["vsw-a"], "podVswitchIds": ["vsw-a"]}, "network.podVswitchIds[0]"),
        ({"vswitchIds": ["subnet-1"], "podVswitchIds": ["vsw-b"]}, "network.vswitchIds[0]"),
    ],
)
def test_network_is_exactly_one_complete_mode(network, key):
    assert error_keys(cluster(network=network)) == [key]


@pytest.mark.parametrize(
    ("zones", "key"),
    [
        ([{**ZONE_K, "nodeCidr": "172.16.0.0/16"}], "network.zones[0].nodeCidr"),
        ([ZONE_K, {**ZONE_J, "nodeCidr": "10.1.128.0/20"}], "network.zones[1].nodeCidr"),
        ([{**ZONE_K, "podCidr": "10.1.0.0/16"}], "network.zones[0].podCidr"),
        ([{**ZONE_K, "podCidr": "10.4.0.0/30"}], "network.zones[0].podCidr"),
        ([ZONE_K, {**ZONE_J, "zoneId": "cn-hangzhou-k"}], "network.zones[1].zoneId"),
        ([{**ZONE_K, "zoneId": "cn-beijing-k"}], "network.zones[0].zoneId"),
    ],
)
def test_zones_fit_the_vpc_and_region(zones, key):
    config = AckClusterConfig.model_validate(cluster(network={"vpcCidr": "10.0.0.0/8", "zones": [ZONE_K, ZONE_J]}))
    assert [z.zone_id for z in config.network.zones] == ["cn-hangzhou-k", "cn-hangzhou-j"]
    assert error_keys(cluster(network={"vpcCidr": "10.0.0.0/8", "zones": zones})) == [key]


def test_vpc_cidr_is_private():
    AckClusterConfig.model_validate(
        cluster(
            network={
                "vpcCidr": "172.16.0.0/12",
                "zones": [{"zoneId": "cn-hangzhou-k", "nodeCidr": "172.16.0.0/20", "podCidr": "172.17.0.0/16"}],
            }
        )
    )
    assert error_keys(cluster(network={"vpcCidr": "8.0.0.0/8", "zones": [ZONE_K]})) == ["network.vpcCidr"]


def test_nat_bandwidth_limit_depends_on_the_charge_type():
    by_bandwidth = {**CLUSTER["network"], "natBandwidth": 300, "eipInternetChargeType": "PayByBandwidth"}
    assert AckClusterConfig.model_validate(cluster(network=by_bandwidth)).network.nat_bandwidth == 300
    assert error_keys(cluster(network={**CLUSTER["network"], "natBandwidth": 300})) == ["network.natBandwidth"]


@pytest.mark.parametrize("bad", ["10.96.0.0/16", "100.64.0.0/16", "192.168.0.0/12", "172.20.0.0/26"])
def test_service_cidr_is_private_sized_and_outside_the_vpc(bad):
    assert str(AckClusterConfig.model_validate(cluster(serviceCidr="172.21.0.0/20")).service_cidr) == "172.21.0.0/20"
    assert error_keys(cluster(serviceCidr=bad)) == ["serviceCidr"]


def test_timezone_and_proxy_mode():
    config = AckClusterConfig.model_validate(cluster(timezone="Asia/Singapore", proxyMode="iptables"))
    assert (config.timezone, config.proxy_mode) == ("Asia/Singapore", "iptables")
    assert error_keys(cluster(timezone="Mars/Olympus")) == ["timezone"]
    assert error_keys(cluster(proxyMode="nftables")) == ["proxyMode"]


@pytest.mark.parametrize(
    ("addons", "key"),
    [
        ([{"name": "terway-eniip"}, {"name": "ack-virtual-node"}], "addons[1].name"),
        ([{"name": "terway-eniip"}, {"name": "kube-scheduler"}], "addons[1].name"),
        ([{"name": "terway-eniip"}, {"name": "flannel"}], "addons[1].name"),
        ([{"name": "terway-eniip"}, {"name": "csi-plugin"}, {"name": "csi-plugin"}], "addons[2].name"),
        ([{"name": "csi-plugin"}], "addons"),
        ([{"name": "terway-eniip", "disabled": True}], "addons"),
    ],
)
def test_create_time_addons(addons, key):
    good = [
        {"name": "terway-eniip", "config": {"IPVlan": "false"}},
        {"name": "nginx-ingress-controller", "disabled": True},
    ]
    assert AckClusterConfig.model_validate(cluster(addons=good)).addons[1].disabled is True
    assert error_keys(cluster(addons=addons)) == [key]


def test_managed_addons_name_the_key_that_configures_them():
    with pytest.raises(ValidationError) as caught:
        AckClusterConfig.model_validate(cluster(addons=[{"name": "terway-eniip"}, {"name": "ack-virtual-node"}]))
    assert "virtualNode" in str(caught.value)
    assert "KubernetesAddon" in str(caught.value)


@pytest.mark.parametrize(
    ("logs", "key"),
    [
        ({"components": ["apiserver", "etcd"]}, "controlPlaneLogs.components"),
        ({"components": ["apiserver", "apiserver"]}, "controlPlaneLogs.components"),
        ({"components": []}, "controlPlaneLogs.components"),
        ({"components": ["apiserver"], "ttl": 0}, "controlPlaneLogs.ttl"),
    ],
)
def test_control_plane_logs(logs, key):
    good = {"components": ["apiserver", "kcm", "controlplane-events"], "ttl": 7, "project": "k8s-logs"}
    assert AckClusterConfig.model_validate(cluster(controlPlaneLogs=good)).control_plane_logs.ttl == 7
    assert error_keys(cluster(controlPlaneLogs=logs)) == [key]


def test_audit_log():
    config = AckClusterConfig.model_validate(cluster(auditLog={"slsProjectName": "audit"}))
    assert (config.audit_log.enabled, config.audit_log.sls_project_name) == (True, "audit")
    assert error_keys(cluster(auditLog={"enable": True})) == ["auditLog.enable"]


@pytest.mark.parametrize(
    ("changes", "key"),
    [
        ({"minSize": 4}, "nodePool.minSize"),
        ({"desiredSize": 5}, "nodePool.desiredSize"),
        ({"minSize": 2, "desiredSize": 1}, "nodePool.desiredSize"),
        ({"instanceTypes": ["ecs.g7.xlarge", "ecs.g7.xlarge"]}, "nodePool.instanceTypes"),
        ({"instanceTypes": []}, "nodePool.instanceTypes"),
        ({"labels": {"bad key": "x"}}, "nodePool.labels.bad key"),
        ({"taints": [{"key": "dedicated", "effect": "NoRun"}]}, "nodePool.taints[0].effect"),
        ({"taints": [{"key": "dedicated pool"}]}, "nodePool.taints[0].key"),
        ({"systemDiskSize": 10}, "nodePool.systemDiskSize"),
    ],
)
def test_node_pool(changes, key):
    good = {**POOL, "desiredSize": 2, "labels": {"workload": "system"}, "taints": [{"key": "dedicated", "value": "x"}]}
    pool = AckClusterConfig.model_validate(cluster(nodePool=good)).node_pool
    assert (pool.autoscaling, pool.initial_size, pool.taints[0].effect) == (True, 2, "NoSchedule")
    assert error_keys(cluster(nodePool={**POOL, **changes})) == [key]


def test_node_pool_sizes_decide_autoscaling_and_the_initial_count():
    fixed = NodePoolConfig.model_validate({**POOL, "minSize": 2, "maxSize": 2})
    assert (fixed.autoscaling, fixed.initial_size) == (False, 2)
    assert NodePoolConfig.model_validate(POOL).initial_size == 1


@pytest.mark.parametrize(
    "tags",
    [{"aliyun-owner": "x"}, {"acs:team": "x"}, {"site": "https://example.com"}, {f"k{i}": "v" for i in range(21)}],
)
def test_tags(tags):
    assert AckClusterConfig.model_validate(cluster(tags={"team": "batch", "acs-pool": "x"})).tags["team"] == "batch"
    assert error_keys(cluster(tags=tags)) == ["tags"]


@pytest.mark.parametrize(("minutes", "ok"), [(15, True), (4320, True), (14, False), (4321, False)])
def test_credential_minutes_in_temporary_mode(minutes, ok):
    data = cluster(kubeconfigMode="temporary", credentialMinutes=minutes)
    if ok:
        assert AckClusterConfig.model_validate(data).credential_minutes == minutes
    else:
        assert error_keys(data) == ["credentialMinutes"]


def test_credential_minutes_are_refused_with_the_exec_plugin():
    assert error_keys(cluster(credentialMinutes=60)) == ["credentialMinutes"]


def test_a_private_endpoint_needs_the_exec_plugin_kubeconfig():
    """The temporary credential names the public endpoint only, so without one it could reach nothing."""
    private = AckClusterConfig.model_validate(cluster(slbInternetEnabled=False))
    assert (private.slb_internet_enabled, private.kubeconfig_mode) == (False, "exec-plugin")
    assert error_keys(cluster(slbInternetEnabled=False, kubeconfigMode="temporary")) == ["slbInternetEnabled"]
    assert error_keys(cluster(kubeconfigMode="static")) == ["kubeconfigMode"]


@pytest.mark.parametrize("bad", ["v2.12.9", "2.17.3", "v2.17", "latest"])
def test_a_virtual_node_pin_is_exact_and_at_least_the_acs_minimum(bad):
    config = AckClusterConfig.model_validate(cluster(virtualNode={"version": "v2.13.0"}))
    assert config.virtual_node.version == "v2.13.0"
    assert error_keys(cluster(virtualNode={"version": bad})) == ["virtualNode.version"]


def test_cleanup_false_is_refused_because_the_provider_never_sends_it():
    data = cluster(virtualNode={"cleanupCloudResources": False})
    assert error_keys(data) == ["virtualNode.cleanupCloudResources"]
    with pytest.raises(ValidationError, match="GetOk"):
        AckClusterConfig.model_validate(data)


@pytest.mark.parametrize(
    "bad",
    [
        "v1.31.0-aliyun.6.8.4.8f585f26",  # another Kubernetes minor
        "v1.35.0-apsara.6.6.0.8b58e6b4",  # below the ACS minimum 6.7.0
        "1.35-latest",
    ],
)
def test_a_scheduler_pin_matches_the_cluster_minor_and_supports_acs(bad):
    config = AckClusterConfig.model_validate(cluster(scheduler={"version": SCHEDULER_1_35, "config": {"a": "true"}}))
    assert config.scheduler.parsed.minor_version == config.minor_version
    assert error_keys(cluster(scheduler={"version": bad})) == ["scheduler.version"]


def test_the_scheduler_may_take_parameters_without_a_version_but_not_nothing():
    config = AckClusterConfig.model_validate(cluster(scheduler={"config": {"podMaxBackoffSeconds": "10"}}))
    assert (config.scheduler.version, config.scheduler.parsed) == (None, None)
    assert error_keys(cluster(scheduler={})) == ["scheduler"]


def test_rules_name_the_full_stack_key():
    """Through the stack loader the key carries the section and the cluster's index."""
    second = cluster(name="other", kubernetesVersion="1.25")
    keys = stack_error_keys({"ack": {"clusters": [CLUSTER, second], "workloads": []}})
    assert keys == ["elastic-capacity:ack.clusters[1].kubernetesVersion"]


def test_cross_field_rule_names_the_full_stack_key():
    bad = cluster(scheduler={"version": "v1.31.0-aliyun.6.8.4.8f585f26"})
    keys = stack_error_keys({"ack": {"clusters": [bad], "workloads": []}})
    assert keys == ["elastic-capacity:ack.clusters[0].scheduler.version"]


def test_valid_clusters_load_through_the_stack():
    config = load_stack_config(
        as_config(
            {
                "ack": {
                    "clusters": [CLUSTER, cluster(name="sg", region="ap-southeast-1", network=EXISTING)],
                    "workloads": [],
                }
            }
        )
    )
    assert [(c.name, c.region) for c in config.ack.clusters] == [("demo", "cn-hangzhou"), ("sg", "ap-southeast-1")]
