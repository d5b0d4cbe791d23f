"""The Kueue component: what it registers from the install builders, and in which order, on which cluster.

The builders' content is tested in tests/components/manifests/test_kueue_install.py and test_kueue_gate.py.
"""

from __future__ import annotations

import functools
import json

import pulumi
import pulumi_kubernetes as kubernetes
import pytest

from components.config.kueue.kueue import LATEST_CHART_VERSION, KueueConfig
from components.kueue.kueue import Kueue, KueueArgs
from components.manifests import kueue_gate, kueue_install
from components.waiters.crd_wait import CrdWaitTarget
from components.waiters.kube_wait import PROVISIONING_REQUEST_CRD, ClusterReader
from tests.support.targets import live_target, rendering_target
from tools import mock_runtime
from tools.recording import Recording

CHART = "kubernetes:helm.sh/v4:Chart"
JOB = "kubernetes:batch/v1:Job"
NAMESPACE = "kubernetes:core/v1:Namespace"
CONFIG_MAP = "kubernetes:core/v1:ConfigMap"
SERVICE_ACCOUNT = "kubernetes:core/v1:ServiceAccount"
ROLE = "kubernetes:rbac.authorization.k8s.io/v1:ClusterRole"
BINDING = "kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding"
KUEUE_VERSION = "pulumi-python:dynamic/kueue:KueueVersion"
CRD_WAIT = "pulumi-python:dynamic/kueue:CrdEstablished"
PROBE = "registry.k8s.io/kubectl:v1.36.4"


def crd_wait_target() -> CrdWaitTarget:
    return CrdWaitTarget(reader=ClusterReader("kubeconfig"), hint="where the CRD comes from")


def install(crd_wait: bool = True, protect: bool = False, probe: str = PROBE, **kueue: object) -> Recording:
    """Register the component once per settings (tests only read the recording)."""
    return _install(crd_wait, protect, probe, json.dumps(kueue, sort_keys=True))


@functools.cache
def _install(crd_wait: bool, protect: bool, probe: str, kueue: str) -> Recording:
    config = KueueConfig.model_validate_json(kueue)

    def program() -> None:
        provider = kubernetes.Provider("cluster", kubeconfig=pulumi.Output.secret("kubeconfig"))
        # An Output, as an existing cluster's version read at deploy time hands it over.
        image = provider.id.apply(lambda _: probe)
        args = KueueArgs(config, image, crd_wait=crd_wait_target() if crd_wait else None, protect=protect)
        component = Kueue("kueue", args, live_target(provider))
        pulumi.export("readyUrn", component.ready.urn)

    return mock_runtime.run(program, {})


def test_namespace_is_created_from_the_builder():
    namespace = install().one(NAMESPACE, "kueue-namespace")
    assert namespace.inputs == kueue_install.kueue_namespace(KueueConfig())


def test_chart_v4_installs_the_latest_supported_release_into_the_namespace():
    recording = install()
    chart = recording.one(CHART, "kueue-chart")
    assert chart.remote
    assert chart.inputs["chart"] == "oci://registry.k8s.io/kueue/charts/kueue"
    assert chart.inputs["version"] == LATEST_CHART_VERSION == "0.19.2"
    assert (chart.inputs["namespace"], chart.inputs["name"]) == ("kueue-system", "kueue")
    assert chart.inputs["values"] == kueue_install.chart_values(KueueConfig())
    assert "repositoryOpts" not in chart.inputs
    assert recording.depends_on(chart, recording.one(NAMESPACE))


def test_an_https_repository_names_the_chart_and_the_repo():
    chart = install(chartRepository="https://kubernetes-sigs.github.io/kueue/charts").one(CHART, "kueue-chart")
    assert chart.inputs["chart"] == "kueue"
    assert chart.inputs["repositoryOpts"] == {"repo": "https://kubernetes-sigs.github.io/kueue/charts"}


def test_the_gate_objects_are_the_builders():
    recording, config = install(), KueueConfig()
    assert recording.one(JOB, "kueue-ready").inputs == kueue_gate.gate_job(config, PROBE)
    assert recording.one(ROLE, "kueue-probe").inputs == kueue_gate.gate_cluster_role(config)
    assert recording.one(BINDING, "kueue-probe").inputs == kueue_gate.gate_cluster_role_binding(config)
    assert recording.one(CONFIG_MAP, "kueue-probe").inputs == kueue_gate.gate_config_map(config)
    assert recording.one(SERVICE_ACCOUNT, "kueue-probe").inputs == kueue_gate.gate_service_account(config)


def test_the_crd_wait_reads_the_provisioning_request_crd_with_the_secret_kubeconfig_and_the_installs_revision():
    wait = install(readinessGate={"crdTimeoutSeconds": 900}).one(CRD_WAIT, "kueue-crd-wait")
    inputs = {key: wait.inputs[key] for key in ("crd", "kueueRevision", "timeoutSeconds", "hint", "kubeconfig")}
    assert inputs == {
        "crd": PROVISIONING_REQUEST_CRD,
        "kueueRevision": kueue_gate.gate_job_name(KueueConfig()),
        "timeoutSeconds": 900,
        "hint": "where the CRD comes from",
        "kubeconfig": "kubeconfig",
    }
    assert wait.is_secret("kubeconfig")


def test_the_gate_runs_the_probe_image_it_is_given():
    [job] = install(probe="mirror.example.com/kubectl:v1.35.9").by_type(JOB)
    images = {c["image"] for c in job.inputs["spec"]["template"]["spec"]["containers"]}
    assert images == {"mirror.example.com/kubectl:v1.35.9"}


def test_ready_is_the_gate_job_and_it_waits_for_the_chart_and_its_rbac():
    recording = install()
    job = recording.one(JOB, "kueue-ready")
    assert recording.outputs["readyUrn"] == job.urn
    for dependency in (recording.one(CHART), recording.one(CONFIG_MAP), recording.one(BINDING)):
        assert dependency.urn in job.dependencies, dependency.type


def test_the_gate_is_awaited_a_minute_longer_than_it_may_run():
    """pulumi-kubernetes must not give up on the Job before its own ``activeDeadlineSeconds`` fails it."""
    job = install(readinessGate={"timeoutSeconds": 900}).one(JOB, "kueue-ready")
    assert job.inputs["spec"]["activeDeadlineSeconds"] == 900
    assert job.custom_timeouts == {"create": "960s", "update": "960s"}


def test_the_gate_waits_for_its_role_account_and_binding_which_wait_for_nothing_and_the_crd_wait_for_none():
    """A binding only names its role and account, so it is created alongside them; the gate's pod needs all three.
    The CRD wait reads with the stack's kubeconfig, not as the gate."""
    recording = install()
    binding = recording.one(BINDING)
    assert list(binding.dependencies) == []
    access = (recording.one(ROLE), recording.one(SERVICE_ACCOUNT), binding)
    assert {r.urn for r in access} <= set(recording.one(JOB, "kueue-ready").dependencies)
    assert not any(recording.depends_on(recording.one(CRD_WAIT), r) for r in access)


def test_the_crd_wait_has_no_custom_timeout_its_own_deadline_ends_it():
    assert install().one(CRD_WAIT).custom_timeouts in ({}, None)


def test_without_a_crd_wait_the_chart_waits_for_its_pin_and_namespace_only():
    """MultiKueue workers and stacks that accept inactive checks (``onInactive: warn``) install Kueue at once."""
    recording = install(crd_wait=False)
    assert recording.by_type(CRD_WAIT) == []
    pin, namespace = recording.one(KUEUE_VERSION).urn, recording.one(NAMESPACE).urn
    assert set(recording.one(CHART).dependencies) == {pin, namespace}, "its version pin; its namespace input"


def after_a_stand_in(crd_wait: bool = True, live: bool = True) -> Recording:
    """Kueue whose chart must start after a stand-in for the autoscaling pools."""

    def program() -> None:
        provider = kubernetes.Provider("k8s", kubeconfig=pulumi.Output.secret("kubeconfig"))
        before = kubernetes.core.v1.ConfigMap(
            "pool-stand-in", metadata={"name": "x"}, opts=pulumi.ResourceOptions(provider=provider)
        )
        target = live_target(provider) if live else rendering_target(provider)
        args = KueueArgs(
            KueueConfig(), PROBE, crd_wait=crd_wait_target() if crd_wait else None, chart_waits_for=[before]
        )
        Kueue("kueue", args, target)

    return mock_runtime.run(program, {})


@pytest.mark.parametrize("crd_wait", [True, False])
def test_only_the_chart_and_the_crd_wait_wait_for_what_kueue_must_start_after(crd_wait):
    recording = after_a_stand_in(crd_wait)
    stand_in = recording.one(CONFIG_MAP, "pool-stand-in")
    chart = recording.one(CHART, "kueue-chart")
    assert stand_in.urn in chart.dependencies
    waiting = {
        r.name for r in recording.registrations if r.name.startswith("kueue-") and recording.depends_on(r, stand_in)
    }
    assert waiting == {"kueue-chart", "kueue-ready", *(["kueue-crd-wait"] if crd_wait else [])}


def test_the_chart_starts_only_after_the_crd_wait_which_follows_the_pools_and_not_the_chart():
    """Kueue sets up its ProvisioningRequest controller only if the CRD exists when it starts."""
    recording = after_a_stand_in()
    chart, wait = recording.one(CHART, "kueue-chart"), recording.one(CRD_WAIT, "kueue-crd-wait")
    assert wait.urn in chart.dependencies
    assert recording.one(CONFIG_MAP, "pool-stand-in").urn in wait.dependencies
    assert recording.one(KUEUE_VERSION).urn in wait.dependencies, "a refused version waits for nothing"
    assert not recording.depends_on(wait, chart)


def test_a_rendering_provider_gets_the_chart_after_the_pools_but_neither_gate_nor_crd_wait():
    """Rendered objects reach the cluster through a GitOps controller: there is nothing to wait for here."""
    recording = after_a_stand_in(live=False)
    assert recording.by_type(JOB) == recording.by_type(CRD_WAIT) == []
    assert recording.one(CONFIG_MAP, "pool-stand-in").urn in recording.one(CHART, "kueue-chart").dependencies


def test_gate_config_map_and_service_account_wait_for_the_namespace_only():
    recording = install()
    namespace, chart = recording.one(NAMESPACE, "kueue-namespace"), recording.one(CHART, "kueue-chart")
    for kind in (CONFIG_MAP, SERVICE_ACCOUNT):
        obj = recording.one(kind, "kueue-probe")
        assert namespace.urn in obj.dependencies, kind
        assert not recording.depends_on(obj, chart), kind


def test_every_child_is_on_the_callers_cluster_under_the_component():
    recording = install()
    component = recording.one("elastic-capacity:kueue:Kueue", "kueue")
    children = [r for r in recording.registrations if r.parent == component.urn]
    assert {r.type for r in children} == {
        NAMESPACE,
        CHART,
        JOB,
        CONFIG_MAP,
        SERVICE_ACCOUNT,
        ROLE,
        BINDING,
        KUEUE_VERSION,
        CRD_WAIT,
    }
    for child in children:
        if child.type in (KUEUE_VERSION, CRD_WAIT):
            continue  # dynamic: state only, or it reads the cluster with the stack's kubeconfig
        if child.custom:
            assert recording.provider_of(child).name == "cluster", child.type
        else:
            assert child.providers.get("kubernetes", "").startswith(recording.one("pulumi:providers:kubernetes").urn)


@pytest.mark.parametrize("protect", [False, True])
def test_protect_is_on_the_chart_alone(protect):
    """Deleting the chart deletes Kueue's CRDs and every queue with them; the gate's objects may come and go."""
    recording = install(protect=protect)
    assert recording.one(CHART).protect is protect
    assert not [r.name for r in recording.registrations if r.protect and r.type != CHART]
