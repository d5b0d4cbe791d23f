"""Rules of one ``ack.clusters`` entry and of the ``ack`` section as a whole: a good and a bad case for every rule,
naming the exact key; what each cluster's workloads need of its addons; and the warnings the fleet logs."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from components.config.ack.ack import AckClusterConfig, AckConfig
from components.config.base import PROJECT, problems_from
from components.config.loader import load_stack_config
from tests.support.ack import (
    EXISTING,
    GPU,
    GPU_HPN,
    GPU_SCHEDULER_1_31,
    NEW_VPC,
    POOL,
    SCHEDULER_1_35,
    ZONE_K,
    cluster,
    cluster_config,
    section,
    workload,
)
from tests.support.config import as_config, model_error_keys, stack_error_keys


def error_keys(data: dict[str, Any]) -> list[str]:
    return model_error_keys(AckClusterConfig, data)


def load(workloads: list[dict[str, Any]], clusters: list[dict[str, Any]] | None = None) -> AckConfig:
    return AckConfig.model_validate(section(workloads, clusters))


def bad_keys(workloads: list[dict[str, Any]], clusters: list[dict[str, Any]] | None = None) -> list[str]:
    return model_error_keys(AckConfig, section(workloads, clusters), "ack")


def problems(workloads: list[dict[str, Any]], clusters: list[dict[str, Any]] | None = None) -> list[tuple[str, str]]:
    """The ``(key, message)`` pairs the stack loader reports for this ``ack`` section."""
    with pytest.raises(ValidationError) as caught:
        load(workloads, clusters)
    return problems_from(caught.value, "ack")


# --- one cluster --------------------------------------------------------------------------------------------------


def test_defaults():
    config = cluster_config()
    assert config.cluster_spec == "ack.pro.small"
    assert str(config.service_cidr) == "192.168.0.0/16"
    assert (config.timezone, config.proxy_mode) == ("Asia/Shanghai", "ipvs")
    assert (config.deletion_protection, config.slb_internet_enabled, config.enable_rrsa) == (False, True, True)
    assert config.rbac == []
    assert (config.enterprise_security_group, config.security_group_id, config.secrets_encryption_key_id) == (
        True,
        None,
        None,
    )
    assert [addon.name for addon in config.addons] == ["terway-eniip", "csi-plugin", "managed-csiprovisioner"]
    assert (config.virtual_node.version, config.scheduler, config.node_pool) == (None, None, None)
    assert (config.control_plane_logs, config.audit_log) == (None, None)
    assert (config.kubeconfig_mode, config.credential_minutes) == ("exec-plugin", 1440)
    assert config.tags == {"project": "elastic-capacity"}
    assert config.network.creates_vpc
    assert config.minor_version == "1.35"


def test_unknown_key_is_refused():
    assert error_keys(cluster(kubeconfig="x")) == ["kubeconfig"]


@pytest.mark.parametrize(
    ("key", "good", "bad"), [("name", "ack-demo-1", "Demo_1"), ("region", "ap-southeast-1", "Hangzhou")]
)
def test_names(key, good, bad):
    AckClusterConfig.model_validate(cluster(**{key: good}, network=EXISTING))
    assert error_keys(cluster(**{key: bad})) == [key]


@pytest.mark.parametrize("good", ["1.35", "1.36", "1.35.2-aliyun.1", "1.26"])
def test_kubernetes_version_is_a_minor_or_an_exact_ack_version(good):
    assert cluster_config(kubernetesVersion=good).kubernetes_version == good


@pytest.mark.parametrize("bad", ["1.35.1", "1.24", "1.24.6-aliyun.1", "latest", "v1.35"])
def test_kubernetes_version_form_and_the_1_26_minimum_are_refused_by_key(bad):
    assert error_keys(cluster(kubernetesVersion=bad)) == ["kubernetesVersion"]


def test_an_unquoted_yaml_minor_is_refused_with_a_hint():
    """YAML reads 1.30 as the number 1.3: the error says to quote it instead of resolving the wrong minor."""
    with pytest.raises(ValidationError, match="quote the version"):
        cluster_config(kubernetesVersion=1.30)


def test_only_pro_cluster_specs():
    assert cluster_config(clusterSpec="ack.pro.xlarge").cluster_spec == "ack.pro.xlarge"
    assert error_keys(cluster(clusterSpec="ack.standard")) == ["clusterSpec"]


def test_zones_lie_in_the_clusters_region():
    assert error_keys(cluster(network={**NEW_VPC, "zones": [{**ZONE_K, "zoneId": "cn-beijing-k"}]})) == [
        "network.zones[0].zoneId"
    ]


def test_network_rules_name_the_key_under_the_cluster():
    assert error_keys(cluster(network={**NEW_VPC, "vswitchIds": ["vsw-node1"]})) == ["network.vswitchIds"]


@pytest.mark.parametrize("bad", ["10.96.0.0/16", "100.64.0.0/16", "192.168.0.0/12", "172.20.0.0/26"])
def test_service_cidr_is_private_sized_and_outside_the_vpc(bad):
    assert str(cluster_config(serviceCidr="172.21.0.0/20").service_cidr) == "172.21.0.0/20"
    assert error_keys(cluster(serviceCidr=bad)) == ["serviceCidr"]


def test_timezone_and_proxy_mode():
    config = cluster_config(timezone="Asia/Singapore", proxyMode="iptables")
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
    assert cluster_config(addons=good).addons[1].disabled is True
    assert error_keys(cluster(addons=addons)) == [key]


def test_managed_addons_name_the_key_that_configures_them():
    with pytest.raises(ValidationError) as caught:
        cluster_config(addons=[{"name": "terway-eniip"}, {"name": "ack-virtual-node"}])
    assert "virtualNode" in str(caught.value) and "KubernetesAddon" in str(caught.value)


def test_parts_with_their_own_rules_name_their_keys_under_the_cluster():
    assert error_keys(cluster(nodePool={**POOL, "minSize": 3})) == ["nodePool.minSize"]
    assert error_keys(cluster(controlPlaneLogs={"components": ["etcd"]})) == ["controlPlaneLogs.components"]
    assert error_keys(cluster(virtualNode={"version": "v2.12.0"})) == ["virtualNode.version"]


ELASTIC = {"name": "batch", "instanceTypes": ["ecs.c7.xlarge"], "minSize": 0, "maxSize": 10}
"""A user pool that autoscales from zero."""


@pytest.mark.parametrize(
    ("changes", "key"),
    [
        ({"nodePool": {**POOL, "minSize": 0}}, "nodePool.minSize"),  # the W1 finding: the only pool autoscaling
        ({"userPools": [ELASTIC]}, "userPools"),  # elastic nodes only: CoreDNS has nowhere to run
        ({"nodePool": POOL, "userPools": [{**ELASTIC, "name": "system"}]}, "userPools[0].name"),
        ({"nodePool": POOL, "userPools": [{**ELASTIC, "minSize": 11}]}, "userPools[0].minSize"),
    ],
)
def test_the_system_pool_is_fixed_and_elastic_pools_come_beside_it(changes, key):
    config = cluster_config(nodePool=POOL, userPools=[ELASTIC])
    assert [(pool_key, pool.autoscaling) for pool_key, pool in config.pools] == [
        ("nodePool", False),
        ("userPools[0]", True),
    ]
    assert error_keys(cluster(**changes)) == [key]


def test_a_system_pool_that_autoscales_is_refused_in_one_line_naming_why():
    [(key, message)] = problems([], [cluster(nodePool={**POOL, "minSize": 1})])
    assert key == "ack.clusters[0].nodePool.minSize"
    assert "k8s.aliyun.com=true" in message and "userPools" in message and "\n" not in message


@pytest.mark.parametrize(
    "tags",
    [{"aliyun-owner": "x"}, {"acs:team": "x"}, {"site": "https://example.com"}, {f"k{i}": "v" for i in range(21)}],
)
def test_tags(tags):
    assert cluster_config(tags={"team": "batch", "acs-pool": "x"}).tags["team"] == "batch"
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
    private = cluster_config(slbInternetEnabled=False)
    assert (private.slb_internet_enabled, private.kubeconfig_mode) == (False, "exec-plugin")
    assert error_keys(cluster(slbInternetEnabled=False, kubeconfigMode="temporary")) == ["slbInternetEnabled"]
    assert error_keys(cluster(kubeconfigMode="static")) == ["kubeconfigMode"]


def test_security_opt_outs_and_options():
    opted_out = cluster_config(enableRrsa=False, enterpriseSecurityGroup=False)
    assert (opted_out.enable_rrsa, opted_out.enterprise_security_group) == (False, False)
    own = cluster_config(securityGroupId="sg-bp1abc", secretsEncryptionKeyId="key-hzz6500")
    assert (own.security_group_id, own.secrets_encryption_key_id) == ("sg-bp1abc", "key-hzz6500")
    assert error_keys(cluster(securityGroupId="bp1abc")) == ["securityGroupId"]
    assert error_keys(cluster(secretsEncryptionKeyId="")) == ["secretsEncryptionKeyId"]


def test_an_own_security_group_leaves_ack_none_to_create():
    """The provider refuses ``is_enterprise_security_group`` next to ``security_group_id`` (ConflictsWith)."""
    data = cluster(securityGroupId="sg-bp1abc", enterpriseSecurityGroup=True)
    assert error_keys(data) == ["enterpriseSecurityGroup"]
    with pytest.raises(ValidationError, match=r"True is not allowed; securityGroupId sg-bp1abc is the nodes' group"):
        AckClusterConfig.model_validate(data)


def test_a_scheduler_pin_is_built_for_the_clusters_minor():
    assert cluster_config(scheduler={"version": SCHEDULER_1_35}).scheduler.parsed.minor_version == "1.35"
    assert error_keys(cluster(scheduler={"version": GPU_SCHEDULER_1_31})) == ["scheduler.version"]


# --- the section: names ------------------------------------------------------------------------------------------


def test_rules_name_the_full_stack_key():
    """Through the stack loader the key carries the section and the cluster's or workload's index."""
    clusters = [cluster(), cluster("other", kubernetesVersion="1.25")]
    assert stack_error_keys({"ack": section([], clusters)}) == [f"{PROJECT}:ack.clusters[1].kubernetesVersion"]
    assert stack_error_keys({"ack": section([workload(computeQos="fast")])}) == [
        f"{PROJECT}:ack.workloads[0].computeQos"
    ]


def test_valid_clusters_load_through_the_stack():
    clusters = [cluster(), cluster("sg", region="ap-southeast-1", network=EXISTING)]
    config = load_stack_config(as_config({"ack": section([], clusters)}))
    assert [(c.name, c.region) for c in config.ack.clusters] == [("demo", "cn-hangzhou"), ("sg", "ap-southeast-1")]
    assert config.ack.cluster_key(1) == f"{PROJECT}:ack.clusters[1]"


def test_the_section_needs_a_cluster_with_a_unique_name():
    assert model_error_keys(AckConfig, {"clusters": []}, "ack") == ["ack.clusters"]
    assert bad_keys([], [cluster(), cluster("dev"), cluster()]) == ["ack.clusters[2].name"]


def test_workload_cluster_must_exist():
    assert bad_keys([workload(cluster="staging")]) == ["ack.workloads[0].cluster"]


def test_workload_names_are_unique_per_cluster_and_namespace():
    ((key, message),) = problems([workload(), workload(appLabel="other")])
    assert key == "ack.workloads[1].name"
    assert "workload names in namespace default of cluster demo must be unique" in message
    load(
        [workload(), workload(namespace="team-a", appLabel="x"), workload(cluster="dev")],
        [cluster(), cluster("dev")],
    )


def test_app_labels_are_unique_per_namespace():
    assert bad_keys([workload(), workload("api", appLabel="web")]) == ["ack.workloads[1].appLabel"]
    load([workload(), workload("api", namespace="team-a", appLabel="web")])


def test_policy_names_are_unique_per_namespace():
    rp = {"scheduling": "resource-policy", "resourcePolicy": {"name": "shared"}}
    others = [workload("a", namespace="team-a"), workload("b")]
    assert bad_keys([*others, workload(**rp), workload("api", **rp)]) == ["ack.workloads[3].resourcePolicy.name"]
    load([workload(**rp), workload("api", namespace="team-a", **rp)])


# --- the section: versions the workloads need of their cluster ---------------------------------------------------


def policy_workload(*units: dict[str, Any]) -> dict[str, Any]:
    """A resource-policy workload; without units it gets the default single acs unit."""
    return workload(scheduling="resource-policy", resourcePolicy={"units": list(units)} if units else None)


def test_nothing_needs_a_pin():
    """ACK's own addon versions are checked at deploy time; no rule forces a pin (which could ask for a downgrade)."""
    policy = policy_workload({}, {"computeQos": "best-effort"})
    config = load([workload(**GPU), workload("hpn", **GPU_HPN), {**policy, "name": "rp"}])
    assert (config.clusters[0].scheduler, config.clusters[0].virtual_node.version) == (None, None)


def test_needs_collect_what_the_clusters_workloads_ask_of_it():
    policy = {**policy_workload({}, {"computeQos": "best-effort"}), "name": "rp"}
    on_dev = workload("elsewhere", cluster="dev", **GPU)
    config = load(
        [workload(**GPU), workload("hpn", **GPU_HPN), policy, workload("cpu"), on_dev], [cluster(), cluster("dev")]
    )
    needs = config.needs(config.clusters[0])
    assert [(n.reason, n.text) for n in needs.scheduler] == [
        ("ack.workloads[0] (web, gpu)", GPU_SCHEDULER_1_31),
        ("ack.workloads[1] (hpn, gpu-hpn)", "v1.33.0-aliyun.6.9.4.8b58e6b4"),
        ("ack.workloads[2] (rp, general-purpose) with 2 acs ResourcePolicy unit(s)", "feature level 6.8.3"),
    ]
    assert (str(needs.virtual_node.minimum), needs.virtual_node.reason) == ("2.15.0", "ack.workloads[1] (hpn, gpu-hpn)")
    assert [n.reason for n in config.needs(config.clusters[1]).scheduler] == ["ack.workloads[4] (elsewhere, gpu)"]


def test_cpu_only_clusters_need_the_acs_virtual_node_and_no_scheduler():
    config = load([workload(), workload("perf", computeClass="performance")])
    needs = config.needs(config.clusters[0])
    assert (needs.scheduler, str(needs.virtual_node.minimum)) == ((), "2.13.0")
    assert needs.virtual_node.reason == "ACS on Kubernetes 1.26 or later"


def test_a_gpu_hpn_workload_holds_a_virtual_node_pin_to_2_15():
    load([workload(**GPU_HPN)], [cluster(virtualNode={"version": "v2.15.0"})])
    ((key, message),) = problems([workload(**GPU_HPN)], [cluster(virtualNode={"version": "v2.14.9"})])
    assert key == "ack.clusters[0].virtualNode.version"
    assert "ack.workloads[0] (web, gpu-hpn)" in message and "v2.15.0" in message


@pytest.mark.parametrize(
    ("fields", "version", "good", "bad"),
    [
        (GPU, "1.26.15-aliyun.1", "v1.26.3-aliyun-6.8.4.4b180111", "v1.26.3-aliyun-6.8.3.4b180111"),
        (GPU, "1.28", "v1.28.12-aliyun-6.8.4.b27c0009", "v1.28.12-aliyun-6.7.9.b27c0009"),
        (GPU, "1.30", "v1.30.3-aliyun.6.8.4.946f90e8", "v1.30.2-aliyun.6.8.4.946f90e8"),
        (GPU, "1.31", GPU_SCHEDULER_1_31, "v1.31.0-aliyun.6.8.3.8f585f26"),
        (GPU, "1.35", SCHEDULER_1_35, "v1.35.0-apsara.6.8.3.aaaaaaaa"),  # newer than the table: its newest row
        (GPU_HPN, "1.28", "v1.28.12-aliyun-6.9.3.cd73f3fe", "v1.28.12-aliyun-6.8.4.b27c0009"),
        (GPU_HPN, "1.31", "v1.31.0-aliyun.6.9.3.051bb0e8", GPU_SCHEDULER_1_31),
        (GPU_HPN, "1.33.3-aliyun.1", "v1.33.0-aliyun.6.9.4.8b58e6b4", "v1.33.0-aliyun.6.9.3.8b58e6b4"),
        (GPU_HPN, "1.36", "v1.36.0-apsara.6.9.4.aaaaaaaa", "v1.36.0-apsara.6.9.3.aaaaaaaa"),
    ],
)
def test_a_scheduler_pin_must_meet_the_gpu_minimum_of_the_cluster_minor(fields, version, good, bad):
    load([workload(**fields)], [cluster(kubernetesVersion=version, scheduler={"version": good})])
    ((key, message),) = problems([workload(**fields)], [cluster(kubernetesVersion=version, scheduler={"version": bad})])
    assert key == "ack.clusters[0].scheduler.version"
    assert f"ack.workloads[0] (web, {fields['computeClass']})" in message


@pytest.mark.parametrize(("fields", "version"), [(GPU, "1.32"), (GPU, "1.35"), (GPU_HPN, "1.35"), (GPU_HPN, "1.36")])
def test_minors_newer_than_acks_tables_are_allowed(fields, version):
    """The tables are minimums ("1.26 and above"), not a whitelist of minors."""
    load([workload(**fields)], [cluster(kubernetesVersion=version)])


def test_a_minor_older_than_the_gpu_hpn_table_is_refused():
    ((key, message),) = problems([workload(**GPU_HPN)], [cluster(kubernetesVersion="1.26")])
    assert key == "ack.clusters[0].kubernetesVersion"
    assert "needs Kubernetes 1.28 or later" in message and "ack.workloads[0] (web, gpu-hpn)" in message


def test_rules_apply_to_the_workloads_own_cluster_only():
    """An old scheduler pin is fine on ``demo``, which runs only CPU pods, and refused on ``gpu``."""
    old = {"version": "v1.35.0-apsara.6.7.0.aaaaaaaa"}
    train = workload("train", cluster="gpu", **GPU)
    load([workload(), train], [cluster(scheduler=old), cluster("gpu")])
    assert bad_keys([train], [cluster(), cluster("gpu", scheduler=old)]) == ["ack.clusters[1].scheduler.version"]


@pytest.mark.parametrize(
    ("units", "good", "bad"),
    [
        ((), "v1.35.0-apsara.6.7.1.aaaaaaaa", "v1.35.0-apsara.6.7.0.aaaaaaaa"),
        (
            ({"computeQos": "best-effort"}, {"computeQos": "default"}),
            "v1.35.0-apsara.6.8.3.aaaaaaaa",
            "v1.35.0-apsara.6.8.2.aaaaaaaa",
        ),
    ],
    ids=["one-acs-unit", "two-acs-units"],
)
def test_acs_units_hold_a_scheduler_pin_to_their_feature_level(units, good, bad):
    spec = policy_workload(*units)
    load([spec], [cluster(scheduler={"version": good})])
    load([spec], [cluster()])
    assert bad_keys([spec], [cluster(scheduler={"version": bad})]) == ["ack.clusters[0].scheduler.version"]


def test_ecs_only_policy_needs_no_acs_scheduler():
    config = load([policy_workload({"resource": "ecs", "nodeSelector": {"alibabacloud.com/nodepool-id": "np-1"}})])
    assert config.needs(config.clusters[0]).scheduler == ()


# --- the section: warnings, settings that may be right but usually are not -------------------------------------


@pytest.mark.parametrize("model", ["GN8IS", "T4", "GU8TF", "L20N"])
def test_documented_gpu_models_on_clusters_with_nodes_do_not_warn(model):
    config = load([workload(**{**GPU, "gpuModelSeries": model})], [cluster(nodePool=POOL)])
    assert [key for key, _ in config.warnings()] == [f"{PROJECT}:ack.workloads[0].computeClass"]


@pytest.mark.parametrize(("fields", "model"), [(GPU, "L20"), (GPU_HPN, "example-model")])
def test_an_undocumented_gpu_model_is_a_warning_naming_the_key_and_the_documented_values(fields, model):
    config = load([workload("a"), workload(**{**fields, "gpuModelSeries": model})])
    [(key, message)] = [w for w in config.warnings() if "gpuModelSeries" in w[0]]
    assert key == f"{PROJECT}:ack.workloads[1].gpuModelSeries"
    assert repr(model) in message and "GN8IS" in message and "T4" in message


def test_a_workloads_own_warnings_are_named_under_its_entry():
    config = load([workload("a"), workload("b", cpu=2, memory="3.5Gi")], [cluster(nodePool=POOL)])
    [(key, message)] = config.warnings()
    assert key == f"{PROJECT}:ack.workloads[1]" and "bills each pod of default/b" in message


def test_a_cluster_without_a_node_pool_warns_that_it_has_no_dns():
    config = load([], [cluster(), cluster("dev", nodePool=POOL), cluster("ops")])
    assert [key for key, _ in config.warnings()] == [
        f"{PROJECT}:ack.clusters[0].nodePool",
        f"{PROJECT}:ack.clusters[2].nodePool",
    ]
    assert "CoreDNS" in config.warnings()[0][1]


def test_a_spot_system_pool_warns_what_a_reclaim_takes_down():
    """ECS reclaims all of a Spot pool's instances at once: the cluster's DNS, its virtual node and Kueue with them
    (the R3 finding). A warning, not a refusal: dev stacks may trade that for the price, and the pool refills."""
    spot = {**POOL, "spotStrategy": "SpotAsPriceGo"}
    config = load([], [cluster(nodePool=spot), cluster("ops", nodePool=POOL, userPools=[{**spot, "name": "spot"}])])
    [(key, message)] = config.warnings()
    assert key == f"{PROJECT}:ack.clusters[0].nodePool.spotStrategy"
    assert all(part in message for part in ("CoreDNS", "ack-virtual-node", "Kueue", "userPools"))
