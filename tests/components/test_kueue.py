"""The Kueue component: what it registers from the install builders, and in which order, on which cluster.

The builders' content is tested in tests/components/manifests/test_kueue_install.py.
"""

from __future__ import annotations

import functools
import json

import pulumi
import pulumi_kubernetes as kubernetes
import pytest

from components.config.kueue import LATEST_CHART_VERSION, KueueConfig
from components.kueue import Kueue
from components.manifests import kueue_install
from tools import mock_runtime
from tools.recording import Recording

CHART = "kubernetes:helm.sh/v4:Chart"
JOB = "kubernetes:batch/v1:Job"
NAMESPACE = "kubernetes:core/v1:Namespace"
CONFIG_MAP = "kubernetes:core/v1:ConfigMap"
SERVICE_ACCOUNT = "kubernetes:core/v1:ServiceAccount"
ROLE = "kubernetes:rbac.authorization.k8s.io/v1:ClusterRole"
BINDING = "kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding"


def install(check_crd: bool = True, protect: bool = False, **kueue: object) -> Recording:
    """Register the component once per settings (tests only read the recording)."""
    return _install(check_crd, protect, json.dumps(kueue, sort_keys=True))


@functools.cache
def _install(check_crd: bool, protect: bool, kueue: str) -> Recording:
    config = KueueConfig.model_validate_json(kueue)

    def program() -> None:
        provider = kubernetes.Provider("cluster", kubeconfig=pulumi.Output.secret("kubeconfig"))
        component = Kueue(
            "kueue",
            config,
            check_provisioning_request_crd=check_crd,
            protect=protect,
            opts=pulumi.ResourceOptions(provider=provider),
        )
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
    assert chart.inputs["version"] == LATEST_CHART_VERSION == "0.17.8"
    assert (chart.inputs["namespace"], chart.inputs["name"]) == ("kueue-system", "kueue")
    assert chart.inputs["values"] == kueue_install.chart_values(KueueConfig())
    assert "repositoryOpts" not in chart.inputs
    assert recording.depends_on(chart, recording.one(NAMESPACE))


def test_an_https_repository_names_the_chart_and_the_repo():
    chart = install(chartRepository="https://kubernetes-sigs.github.io/kueue/charts").one(CHART, "kueue-chart")
    assert chart.inputs["chart"] == "kueue"
    assert chart.inputs["repositoryOpts"] == {"repo": "https://kubernetes-sigs.github.io/kueue/charts"}


@pytest.mark.parametrize("check_crd", [True, False])
def test_the_gate_objects_are_the_builders(check_crd):
    recording, config = install(check_crd), KueueConfig()
    assert recording.one(JOB, "kueue-ready").inputs == kueue_install.gate_job(
        config, check_provisioning_request_crd=check_crd
    )
    role = kueue_install.gate_cluster_role(config, check_provisioning_request_crd=check_crd)
    assert recording.one(ROLE, "kueue-probe").inputs == role
    assert recording.one(BINDING, "kueue-probe").inputs == kueue_install.gate_cluster_role_binding(config)
    assert recording.one(CONFIG_MAP, "kueue-probe").inputs == kueue_install.gate_config_map(config)
    assert recording.one(SERVICE_ACCOUNT, "kueue-probe").inputs == kueue_install.gate_service_account(config)


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


def test_the_gate_job_waits_for_its_role_account_and_binding_which_wait_for_nothing():
    """A binding only names its role and account, so it is created alongside them; the Job's pod needs all three."""
    recording = install()
    binding, job = recording.one(BINDING), recording.one(JOB)
    assert list(binding.dependencies) == []
    assert {recording.one(ROLE).urn, recording.one(SERVICE_ACCOUNT).urn, binding.urn} <= set(job.dependencies)


def test_only_the_chart_waits_for_what_kueue_must_start_after():
    def program() -> None:
        provider = kubernetes.Provider("k8s", kubeconfig=pulumi.Output.secret("kubeconfig"))
        before = kubernetes.core.v1.ConfigMap(
            "pool-stand-in", metadata={"name": "x"}, opts=pulumi.ResourceOptions(provider=provider)
        )
        Kueue("kueue", KueueConfig(), check_provisioning_request_crd=True, chart_waits_for=[before],
              opts=pulumi.ResourceOptions(provider=provider))  # fmt: skip

    recording = mock_runtime.run(program, {})
    stand_in = recording.one(CONFIG_MAP, "pool-stand-in")
    assert recording.depends_on(recording.one(CHART, "kueue-chart"), stand_in)
    assert not recording.depends_on(recording.one(NAMESPACE, "kueue-namespace"), stand_in)


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
    assert {r.type for r in children} == {NAMESPACE, CHART, JOB, CONFIG_MAP, SERVICE_ACCOUNT, ROLE, BINDING}
    for child in children:
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
