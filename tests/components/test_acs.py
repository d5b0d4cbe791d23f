"""``AcsWorkload`` registers the builders' objects, waits for exactly the given addons, and reports the billed spec."""

from __future__ import annotations

import logging
from typing import Any

import jsonschema
import pulumi
import pulumi_kubernetes as k8s
import pytest
from pulumi_alicloud import cs

from components.acs import AcsWorkload
from components.config.acs import AcsWorkloadConfig
from components.manifests.acs import deployment, resource_policy
from tests.support.schemas import resource_policy_schema
from tools import mock_runtime

RESOURCE_POLICY_TYPE = "kubernetes:scheduling.alibabacloud.com/v1alpha1:ResourcePolicy"
RP_SCHEMA = resource_policy_schema()


def workload(**fields: Any) -> AcsWorkloadConfig:
    return AcsWorkloadConfig.model_validate({"name": "web", "cluster": "prod", "image": "nginx:1.27", **fields})


def build(run_program, cfg: AcsWorkloadConfig, released: bool = False):
    """Register the workload with a virtual-node and a scheduler addon, plus an addon it must not wait for.

    ``released`` hands the addons over as the cluster does: an output that resolves once their versions passed.
    """
    built: dict[str, Any] = {}

    def program() -> None:
        provider = k8s.Provider("ack-prod", kubeconfig=pulumi.Output.secret("kubeconfig"))
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


def test_cpu_workload_registers_its_deployment(run_program):
    cfg = workload(cpu=2, memory="4Gi")
    rec, _ = build(run_program, cfg)
    component = rec.one("elastic-capacity:alicloud:AcsWorkload", "web")
    registered = rec.one("kubernetes:apps/v1:Deployment", "web-deployment")
    assert registered.parent == component.urn
    assert registered.inputs == deployment(cfg)
    assert rec.provider_of(registered) == rec.one("pulumi:providers:kubernetes", "ack-prod")
    assert rec.by_type(RESOURCE_POLICY_TYPE) == []
    assert rec.outputs["billedSpec"] == "2-4Gi"


@pytest.mark.parametrize("released", [False, True], ids=["list", "released-output"])
def test_deployment_waits_for_the_addons_and_nothing_else(run_program, released):
    rec, _ = build(run_program, workload(), released=released)
    registered = rec.one("kubernetes:apps/v1:Deployment", "web-deployment")
    addons = {rec.named(name).urn for name in ("ack-virtual-node", "kube-scheduler")}
    assert set(registered.dependencies) == addons
    assert not rec.depends_on(registered, rec.named("unrelated"))


def test_resource_policy_is_registered_before_the_deployment(run_program):
    cfg = workload(cpu=1, memory="2Gi", scheduling="resource-policy")
    rec, _ = build(run_program, cfg)
    policy = rec.one(RESOURCE_POLICY_TYPE, "web-resource-policy")
    registered = rec.one("kubernetes:apps/v1:Deployment", "web-deployment")
    addons = {rec.named(name).urn for name in ("ack-virtual-node", "kube-scheduler")}
    assert policy.inputs == resource_policy(cfg)
    jsonschema.validate(policy.inputs, RP_SCHEMA, cls=jsonschema.Draft202012Validator)
    assert policy.parent == rec.one("elastic-capacity:alicloud:AcsWorkload", "web").urn
    assert set(policy.dependencies) == addons
    assert set(registered.dependencies) == addons | {policy.urn}
    assert registered.inputs["metadata"]["annotations"] == {"resourcePolicy": "web"}
    assert rec.provider_of(policy) == rec.one("pulumi:providers:kubernetes", "ack-prod")


def test_rounded_up_requests_log_the_billed_spec(run_program, caplog):
    with caplog.at_level(logging.WARNING):
        rec, _ = build(run_program, workload(cpu=2, memory="3.5Gi"))
    assert rec.outputs["billedSpec"] == "2-4Gi"
    warnings = [
        r.getMessage() for r in caplog.records if r.levelno == logging.WARNING and "default/web" in r.getMessage()
    ]
    assert len(warnings) == 1 and "2-4Gi" in warnings[0]


@pytest.mark.parametrize("fields", [{"cpu": 2, "memory": "4Gi"}, {}], ids=["exact-spec", "no-requests"])
def test_exact_or_default_specs_log_nothing(run_program, caplog, fields):
    with caplog.at_level(logging.WARNING):
        rec, _ = build(run_program, workload(**fields))
    assert rec.outputs["billedSpec"] == "2-4Gi"
    assert not [r for r in caplog.records if "default/web" in r.getMessage()]


def test_gpu_workload_has_no_billed_spec(run_program, caplog):
    cfg = workload(computeClass="gpu", gpuModelSeries="T4", gpu=1, cpu=1, memory="1Gi")
    with caplog.at_level(logging.WARNING):
        rec, built = build(run_program, cfg)
    assert built["billed_spec"] is None
    assert "billedSpec" not in rec.outputs
    assert rec.one("kubernetes:apps/v1:Deployment", "web-deployment").inputs == deployment(cfg)
    assert not [r for r in caplog.records if "bills" in r.getMessage()]


@pytest.mark.parametrize(
    ("fields", "says"),
    [
        ({"computeClass": "gpu", "gpuModelSeries": "T4", "gpu": 1}, "invitational preview"),
        ({"computeClass": "gpu-hpn"}, "GPU-HPN capacity reservation"),
    ],
    ids=["gpu", "gpu-hpn"],
)
def test_gpu_classes_warn_about_their_acs_prerequisites_and_the_timeout(run_program, caplog, fields, says):
    with caplog.at_level(logging.WARNING):
        build(run_program, workload(**fields, cpu=1, memory="1Gi", readyTimeoutMinutes=25))
    [warning] = [r.getMessage() for r in caplog.records if "default/web" in r.getMessage()]
    assert says in warning and "readyTimeoutMinutes (25)" in warning


@pytest.fixture
def timeouts(monkeypatch) -> dict[str, dict[str, str]]:
    """The custom timeouts of every resource registered, by name (the recording does not keep them)."""
    found: dict[str, dict[str, str]] = {}

    class Timed(mock_runtime.RecordingMonitor):
        def RegisterResource(self, request):  # noqa: N802 - gRPC method name
            timeouts = request.customTimeouts
            found[request.name] = {"create": timeouts.create, "update": timeouts.update, "delete": timeouts.delete}
            return super().RegisterResource(request)

    monkeypatch.setattr(mock_runtime, "RecordingMonitor", Timed)
    return found


@pytest.mark.parametrize(("fields", "minutes"), [({}, "10m"), ({"readyTimeoutMinutes": 45}, "45m")])
def test_the_deployment_await_times_out_after_the_configured_minutes(run_program, timeouts, fields, minutes):
    build(run_program, workload(**fields))
    assert timeouts["web-deployment"] == {"create": minutes, "update": minutes, "delete": ""}
