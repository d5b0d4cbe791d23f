"""Reading plan.json resources: names, namespaces, providers and pod specs, whatever shape the inputs have."""

from __future__ import annotations

from tools import bench_plan


def test_a_name_namespace_and_pod_spec_are_read_whatever_shape_the_inputs_have():
    obj = {"type": "kubernetes:core/v1:ConfigMap", "inputs": {"metadata": {"name": "cm", "namespace": "team"}}}
    chart = {"type": "kubernetes:helm.sh/v4:Chart", "inputs": {"namespace": "kueue-system"}}
    cloud = {"type": "azure-native:resources:ResourceGroup", "inputs": {"metadata": {"namespace": "x"}}}
    assert (bench_plan.object_name(obj), bench_plan.namespace_of(obj)) == ("cm", "team")
    assert bench_plan.namespace_of(chart) == "kueue-system"
    assert bench_plan.namespace_of(cloud) is None
    bare = {"type": "kubernetes:batch/v1:Job", "inputs": None}
    assert bench_plan.metadata(bare) == {} and bench_plan.pod_spec(bare) == {}
    assert bench_plan.pod_spec({"type": "t", "inputs": {"spec": {"template": {"spec": {"x": 1}}}}}) == {"x": 1}


def test_providers_and_parents_compare_by_urn():
    a = {"provider": "urn:p::k8s::1234", "parent": "urn:c"}
    b = {"provider": "urn:p::k8s::other-id", "parent": "urn:c"}
    assert bench_plan.provider_urn(a) == "urn:p::k8s"
    assert bench_plan.same_provider(a, b) and bench_plan.same_parent(a, b)
    assert not bench_plan.same_provider({"provider": None}, {"provider": None})
    assert not bench_plan.same_parent({"parent": None}, {"parent": None})
