"""The wait graph of a plan, on small hand-built plans: what Pulumi orders, the critical path, the minimal chain."""

from __future__ import annotations

from typing import Any

import pytest

from tools import bench_graph
from tools.bench_graph import Graph, longest_path

K8S_PROVIDER = "pulumi:providers:kubernetes"


def urn(type_: str, name: str) -> str:
    return f"urn:pulumi:dev::elastic-capacity::{type_}::{name}"


def res(type_: str, name: str, *, deps=(), parent=None, provider=None, custom=True, props=None, **inputs: Any):
    """A plan.json resource; ``props`` maps an input key to the URNs its value is derived from."""
    return {
        "urn": urn(type_, name),
        "type": type_,
        "name": name,
        "custom": custom,
        "parent": parent,
        "provider": f"{provider}::id" if provider else None,
        "dependencies": sorted(deps),
        "inputs": inputs,
        "propertyDependencies": props or {},
    }


def weights(table: dict[str, float]):
    return lambda r: table[r["name"]]


def test_the_critical_path_is_the_heaviest_chain_of_waits():
    a, b, c = (
        res("t:a:A", "a"),
        res("t:b:B", "b", deps=[urn("t:a:A", "a")]),
        res("t:c:C", "c", deps=[urn("t:a:A", "a")]),
    )
    d = res("t:d:D", "d", deps=[b["urn"], c["urn"]])
    graph = Graph({"resources": [a, b, c, d]})
    path = bench_graph.critical_path(graph, weights({"a": 5, "b": 10, "c": 1, "d": 2}))
    assert path.seconds == 17
    assert [bench_graph.short(u) for u in path.chain] == ["A::a", "B::b", "D::d"]
    assert bench_graph.chain_edges(path) == [(b["urn"], a["urn"]), (d["urn"], b["urn"])]


def test_a_resource_waits_for_its_provider_a_custom_parent_and_what_its_component_waits_for():
    pool = res("azure-native:containerservice:AgentPool", "pool")
    provider = res(K8S_PROVIDER, "k8s")
    component = res("elastic-capacity:kueue:Kueue", "kueue", deps=[pool["urn"]], custom=False)
    component["providers"] = [f"{provider['urn']}::id"]
    child = res("kubernetes:core/v1:Namespace", "ns", parent=component["urn"])
    graph = Graph({"resources": [pool, provider, component, child]})
    assert graph.nodes == [pool["urn"], provider["urn"], child["urn"]]
    assert graph.waits[child["urn"]] == {
        pool["urn"]: ["inherited from kueue"],
        provider["urn"]: ["inherited from kueue"],
    }
    owner = res("t:o:O", "owner")
    config_map = res("kubernetes:core/v1:ConfigMap", "cm", parent=owner["urn"], provider=provider["urn"])
    graph = Graph({"resources": [provider, owner, config_map]})
    assert graph.waits[config_map["urn"]] == {provider["urn"]: ["provider"], owner["urn"]: ["parent"]}


def test_a_wait_on_a_local_component_is_a_wait_on_everything_under_it_and_a_remote_component_is_a_node():
    component = res("elastic-capacity:kueue:KueueQueues", "queues", custom=False)
    inner = [res("t:x:X", f"x{i}", parent=component["urn"]) for i in range(2)]
    chart = res("kubernetes:helm.sh/v4:Chart", "chart", custom=False)
    waiter = res("t:w:W", "w", deps=[component["urn"], chart["urn"]])
    graph = Graph({"resources": [component, *inner, chart, waiter]})
    assert set(graph.waits[waiter["urn"]]) == {inner[0]["urn"], inner[1]["urn"], chart["urn"]}


def namespaced_plan() -> dict[str, Any]:
    """A ConfigMap that waits for a ClusterRole (not needed), which waits for the ConfigMap's Namespace."""
    provider = res(K8S_PROVIDER, "k8s")
    on = {"provider": provider["urn"]}
    namespace = res("kubernetes:core/v1:Namespace", "ns", metadata={"name": "team"}, **on)
    role = res("kubernetes:rbac.authorization.k8s.io/v1:ClusterRole", "role", deps=[namespace["urn"]], **on)
    config_map = res("kubernetes:core/v1:ConfigMap", "cm", deps=[role["urn"]], metadata={"namespace": "team"}, **on)
    return {"resources": [provider, namespace, role, config_map]}


def test_the_minimal_chain_keeps_needed_waits_and_the_audit_names_each_unneeded_one():
    """Needed waits are kept even where they hold only through an unneeded one; the audit names the unneeded."""
    plan = namespaced_plan()
    provider, namespace, role, config_map = (r["urn"] for r in plan["resources"])
    graph = Graph(plan)
    needed = bench_graph.minimal_waits(graph)
    assert needed[config_map] == {provider: "its provider", namespace: "namespace"}
    assert needed[role] == {provider: "its provider"}
    seconds = weights({"k8s": 0, "ns": 1, "role": 10, "cm": 1})
    assert bench_graph.critical_path(graph, seconds).seconds == 12
    assert bench_graph.minimal_chain(graph, seconds).seconds == 10
    unneeded = [w for w in bench_graph.audit(graph) if w.needed_by is None]
    assert [(w.dependent, w.dependency, w.implied) for w in unneeded] == [
        (role, namespace, False),
        (config_map, role, False),
    ]


def test_a_consumed_output_is_a_needed_wait_and_an_unused_explicit_one_is_not():
    cluster = res("azure-native:containerservice:ManagedCluster", "cluster")
    other = res("azure-native:resources:ResourceGroup", "other")
    pool = res(
        "azure-native:containerservice:AgentPool",
        "pool",
        deps=[cluster["urn"], other["urn"]],
        props={"resourceName": [cluster["urn"]]},
    )
    graph = Graph({"resources": [cluster, other, pool]})
    assert bench_graph.why_needed(graph, pool["urn"], cluster["urn"]) == "consumes an output"
    assert bench_graph.why_needed(graph, pool["urn"], other["urn"]) is None


def test_ties_go_to_plan_order_an_empty_plan_has_an_empty_path_and_a_cycle_is_refused():
    path = longest_path(["a", "b"], lambda n: [], lambda n: 1, {"a": 0, "b": 1})
    assert path.chain == ("a",)
    assert longest_path([], lambda n: [], lambda n: 1, {}) == bench_graph.Path(0.0, ())
    with pytest.raises(ValueError, match="cycle"):
        longest_path(["a", "b"], lambda n: ["b"] if n == "a" else ["a"], lambda n: 1, {"a": 0, "b": 1})


def test_the_ack_branch_is_everything_under_or_on_an_alibaba_cloud_resource():
    region = res("pulumi:providers:alicloud", "region")
    ack = res("elastic-capacity:alicloud:AckProCluster", "ack", custom=False)
    k8s = res(K8S_PROVIDER, "ack-k8s", parent=ack["urn"])
    deployment = res("kubernetes:apps/v1:Deployment", "web", provider=k8s["urn"])
    aks_ns = res("kubernetes:core/v1:Namespace", "ns", provider=urn(K8S_PROVIDER, "aks-k8s"))
    graph = Graph({"resources": [region, ack, k8s, deployment, aks_ns]})
    assert bench_graph.branches(graph) == {
        "ack": {region["urn"], k8s["urn"], deployment["urn"]},
        "aks": {aks_ns["urn"]},
    }
