"""``AcsWorkload`` registers the builders' objects, waits for exactly the given addons, and reports the billed spec;
``AcsNamespace`` registers the namespace workloads share, where earlier stacks created it."""

from __future__ import annotations

from typing import Any

import jsonschema
import pulumi
import pulumi_kubernetes as k8s
import pytest
from pulumi_alicloud import cs

from components.alicloud.acs import AcsNamespace, AcsWorkload
from components.config.ack.acs import AcsWorkloadConfig
from components.manifests.acs import deployment, resource_policy
from components.manifests.core import namespace
from tests.support.ack import (
    DEPLOYMENT_TYPE,
    GPU,
    NAMESPACE_TYPE,
    RESOURCE_POLICY_TYPE,
    workload_config,
)
from tests.support.schemas import resource_policy_schema
from tools import mock_runtime
from tools.recording import Recording

WORKLOAD_TYPE = "elastic-capacity:alicloud:AcsWorkload"
NAMESPACE_COMPONENT_TYPE = "elastic-capacity:alicloud:AcsNamespace"


def build(run_program, cfg: AcsWorkloadConfig, *, released: bool = False):
    """Register the workload with a virtual-node and a scheduler addon, plus an addon it must not wait for.

    ``released`` hands the addons over as the cluster does: an output that resolves once their versions passed.
    """
    built: dict[str, Any] = {}

    def program() -> None:
        provider = k8s.Provider("ack-demo", kubeconfig=pulumi.Output.secret("kubeconfig"))
        addons = [
            cs.KubernetesAddon(name, cluster_id="c-1", name=name) for name in ("ack-virtual-node", "kube-scheduler")
        ]
        cs.KubernetesAddon("unrelated", cluster_id="c-1", name="arms-prometheus")
        given = pulumi.Output.from_input("checked").apply(lambda _: addons) if released else addons
        component = AcsWorkload("web", cfg, given, pulumi.ResourceOptions(provider=provider))
        built["billed_spec"] = component.billed_spec
        if component.billed_spec is not None:
            pulumi.export("billedSpec", component.billed_spec)

    return run_program(program), built


# --- AcsWorkload --------------------------------------------------------------------------------------------------


def test_cpu_workload_registers_its_deployment(run_program):
    cfg = workload_config(cpu=2, memory="4Gi")
    rec, _ = build(run_program, cfg)
    registered = rec.one(DEPLOYMENT_TYPE, "web-deployment")
    assert registered.parent == rec.one(WORKLOAD_TYPE, "web").urn
    assert registered.inputs == deployment(cfg)
    assert rec.provider_of(registered) == rec.one("pulumi:providers:kubernetes", "ack-demo")
    assert rec.by_type(RESOURCE_POLICY_TYPE) == []
    assert rec.outputs["billedSpec"] == "2-4Gi"


@pytest.mark.parametrize("released", [False, True], ids=["list", "released-output"])
def test_deployment_waits_for_the_addons_and_nothing_else(run_program, released):
    rec, _ = build(run_program, workload_config(), released=released)
    registered = rec.one(DEPLOYMENT_TYPE, "web-deployment")
    addons = {rec.named(name).urn for name in ("ack-virtual-node", "kube-scheduler")}
    assert set(registered.dependencies) == addons
    assert not rec.depends_on(registered, rec.named("unrelated"))


def test_resource_policy_is_registered_before_the_deployment(run_program):
    cfg = workload_config(cpu=1, memory="2Gi", scheduling="resource-policy")
    rec, _ = build(run_program, cfg)
    policy = rec.one(RESOURCE_POLICY_TYPE, "web-resource-policy")
    registered = rec.one(DEPLOYMENT_TYPE, "web-deployment")
    addons = {rec.named(name).urn for name in ("ack-virtual-node", "kube-scheduler")}
    assert policy.inputs == resource_policy(cfg)
    jsonschema.validate(policy.inputs, resource_policy_schema(), cls=jsonschema.Draft202012Validator)
    assert policy.parent == rec.one(WORKLOAD_TYPE, "web").urn
    assert set(policy.dependencies) == addons
    assert set(registered.dependencies) == addons | {policy.urn}
    assert registered.inputs["metadata"]["annotations"] == {"resourcePolicy": "web"}
    assert rec.provider_of(policy) == rec.one("pulumi:providers:kubernetes", "ack-demo")
    assert policy.custom_timeouts == {}, "the policy is created at once; only the Deployment awaits a rollout"


@pytest.mark.parametrize(("fields", "minutes"), [({}, "10m"), ({"readyTimeoutMinutes": 45}, "45m")])
def test_the_deployment_await_times_out_after_the_configured_minutes(run_program, fields, minutes):
    rec, _ = build(run_program, workload_config(**fields))
    assert rec.one(DEPLOYMENT_TYPE).custom_timeouts == {"create": minutes, "update": minutes}


def test_the_billed_spec_is_the_one_the_config_computed(run_program):
    cfg = workload_config(cpu=2, memory="3.5Gi")
    assert cfg.billed_spec is not None
    rec, _ = build(run_program, cfg)
    assert rec.outputs["billedSpec"] == cfg.billed_spec.text == "2-4Gi"


def test_gpu_workload_has_no_billed_spec(run_program):
    cfg = workload_config(**GPU)
    rec, built = build(run_program, cfg)
    assert built["billed_spec"] is None
    assert "billedSpec" not in rec.outputs
    assert rec.one(DEPLOYMENT_TYPE, "web-deployment").inputs == deployment(cfg)


# --- AcsNamespace -------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def team_a() -> Recording:
    """A namespace as the fleet creates it, and a stand-in workload that waits for it."""

    def program() -> None:
        provider = k8s.Provider("ack-demo-k8s", kubeconfig=pulumi.Output.secret("kubeconfig"))
        ns = AcsNamespace("ack-demo-ns-team-a", "team-a", pulumi.ResourceOptions(provider=provider))
        pulumi.CustomResource("test:index:Workload", "workload", {}, pulumi.ResourceOptions(depends_on=[ns]))

    return mock_runtime.run(program, {})


def test_the_namespace_is_the_builders_on_the_given_provider(team_a):
    registered = team_a.one(NAMESPACE_TYPE, "ack-demo-ns-team-a")
    assert registered.inputs == namespace("team-a")
    assert registered.parent == team_a.one(NAMESPACE_COMPONENT_TYPE, "ack-demo-ns-team-a").urn
    assert team_a.provider_of(registered) == team_a.one("pulumi:providers:kubernetes", "ack-demo-k8s")


def test_the_namespace_keeps_the_urn_it_had_at_the_stack_root(team_a):
    """Fleets created the namespace at the stack root before; the alias adopts it instead of replacing it."""
    registered = team_a.one(NAMESPACE_TYPE)
    assert registered.aliases == ("urn:pulumi:dev::elastic-capacity::kubernetes:core/v1:Namespace::ack-demo-ns-team-a",)


def test_what_depends_on_the_component_waits_for_the_namespace(team_a):
    assert team_a.depends_on(team_a.named("workload"), team_a.one(NAMESPACE_TYPE))
