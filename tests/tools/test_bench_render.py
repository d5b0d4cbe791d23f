"""The render benchmark's children: the annotated plan, and a flat replay that registers the very same resources."""

from __future__ import annotations

import math

import pulumi
import pulumi_kubernetes as kubernetes

from tools import bench_render, mock_runtime
from tools.mock_cloud import FAKE_KUBECONFIG


def small_program() -> None:
    bundle = pulumi.ComponentResource("test:index:Bundle", "bundle")
    provider = kubernetes.Provider("k8s", kubeconfig=FAKE_KUBECONFIG, opts=pulumi.ResourceOptions(parent=bundle))
    on = pulumi.ResourceOptions(parent=bundle, provider=provider)
    namespace = kubernetes.core.v1.Namespace("ns", metadata={"name": "team"}, opts=on)
    kubernetes.core.v1.ConfigMap(
        "cm",
        metadata={"name": "cm", "namespace": namespace.metadata.name},
        data={"a": "b"},
        opts=pulumi.ResourceOptions.merge(on, pulumi.ResourceOptions(protect=True)),
    )
    bundle.register_outputs({})


def engine_view(plan):
    return [
        (r["urn"], r["parent"], (r["provider"] or "").rsplit("::", 1)[0], r["explicitDependencies"], r["protect"])
        for r in plan["resources"]
    ]


def test_the_annotated_plan_keeps_what_plan_json_drops():
    plan = bench_render.annotated_plan("dev", mock_runtime.run(small_program, {}))
    config_map = next(r for r in plan["resources"] if r["name"] == "cm")
    namespace = next(r for r in plan["resources"] if r["name"] == "ns")
    assert config_map["propertyDependencies"] == {"metadata": [namespace["urn"]]}
    assert config_map["remote"] is False
    assert "pulumi_kubernetes.core.v1" in plan["sdkModules"] and "pulumi" in plan["sdkModules"]


def test_the_flat_replay_registers_the_same_resources_as_the_program():
    plan = bench_render.annotated_plan("dev", mock_runtime.run(small_program, {}))
    replayed = bench_render.annotated_plan("dev", mock_runtime.run(lambda: bench_render.replay(plan["resources"]), {}))
    assert engine_view(replayed) == engine_view(plan)
    assert [r["type"] for r in replayed["resources"]] == [r["type"] for r in plan["resources"]]


def test_the_marginal_cost_is_the_least_squares_slope():
    assert bench_render.slope([(10, 1.0), (20, 1.5), (30, 2.0)]) == 0.05
    assert math.isnan(bench_render.slope([(10, 1.0)]))
    assert math.isnan(bench_render.slope([(10, 1.0), (10, 2.0)]))


def test_a_child_without_its_arguments_says_how_to_call_it(capsys):
    assert bench_render.main(["real"]) == 2
    assert "python -m tools.bench_render real" in capsys.readouterr().err
