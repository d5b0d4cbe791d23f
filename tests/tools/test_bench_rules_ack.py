"""The Alibaba Cloud half's ordering requirements: each holds for the pair it names and not for a near miss."""

from __future__ import annotations

from tests.support.bench import res, rule_for
from tools import bench_rules
from tools.bench_rules_ack import ACK_REQUIREMENTS

CLUSTER = "urn:pulumi:dev::elastic-capacity::elastic-capacity:alicloud:AckProCluster::a"


def test_acs_pods_and_policies_wait_for_their_own_clusters_virtual_node():
    cluster = "urn:pulumi:dev::elastic-capacity::elastic-capacity:alicloud:AckProCluster::a"
    provider = res("pulumi:providers:kubernetes", "a-k8s", parent=cluster, provider=None)
    addon = res(
        "alicloud:cs/kubernetesAddon:KubernetesAddon", "vn", parent=cluster, provider=None, name="ack-virtual-node"
    )
    other = res(
        "alicloud:cs/kubernetesAddon:KubernetesAddon",
        "vn2",
        parent=cluster + "2",
        provider=None,
        name="ack-virtual-node",
    )
    workload = "urn:pulumi:dev::elastic-capacity::elastic-capacity:alicloud:AcsWorkload::w"
    on = {"provider": provider["urn"], "parent": workload}
    deployment = res("kubernetes:apps/v1:Deployment", "d", metadata={"name": "d", "namespace": "default"}, **on)
    policy = res("kubernetes:scheduling.alibabacloud.com/v1alpha1:ResourcePolicy", "p", metadata={"name": "p"}, **on)
    assert rule_for(deployment, addon, provider) == "virtual-node"
    assert rule_for(deployment, other, provider) is None
    assert rule_for(deployment, policy, provider) == "resource-policy"
    assert rule_for(policy, addon, provider) == "virtual-node"
    assert rule_for(policy, other, provider) is None


def test_the_charts_and_jobs_on_an_ack_cluster_wait_for_its_node_pool_but_acs_jobs_do_not():
    provider = res("pulumi:providers:kubernetes", "a-k8s", parent=CLUSTER, provider=None)
    pool = res("alicloud:cs/nodePool:NodePool", "system", parent=CLUSTER, provider=None)
    chart = res("kubernetes:helm.sh/v4:Chart", "kueue", provider=provider["urn"])
    queued = res(
        "kubernetes:batch/v1:Job",
        "burst",
        provider=provider["urn"],
        metadata={"name": "burst", "labels": {"kueue.x-k8s.io/queue-name": "burst"}},
    )
    assert rule_for(chart, pool, provider) == "ack-nodes"
    assert rule_for(queued, pool, provider) is None, "its pods run on ACS, after admission"


def test_every_ack_requirement_is_part_of_the_benchmarks_rules():
    assert set(ACK_REQUIREMENTS) <= set(bench_rules.REQUIREMENTS)
