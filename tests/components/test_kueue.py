"""The Kueue component: namespace, Helm chart and values, and the readiness gate every Kueue object waits for."""

from __future__ import annotations

import functools
import json
import os
import stat
import subprocess

import pulumi
import pulumi_kubernetes as kubernetes
import pytest
import yaml

from components.config.kueue import LATEST_CHART_VERSION, KueueConfig
from components.kueue import Kueue
from components.manifests import kueue_install
from tests.support import PROJECT_ROOT
from tests.support.schemas import validate_core, validate_kueue
from tools import mock_runtime

CHART_VALUES = PROJECT_ROOT.parent / "shared/reference/kueue-chart-values-v0.17.1.yaml"
CHART = "kubernetes:helm.sh/v4:Chart"
JOB = "kubernetes:batch/v1:Job"


def install(check_crd: bool = True, **kueue: object) -> mock_runtime.Recording:
    """Register the component once per settings (tests only read the recording)."""
    return _install(check_crd, json.dumps(kueue, sort_keys=True))


@functools.cache
def _install(check_crd: bool, kueue: str) -> mock_runtime.Recording:
    config = KueueConfig.model_validate_json(kueue)

    def program() -> None:
        provider = kubernetes.Provider("cluster", kubeconfig=pulumi.Output.secret("kubeconfig"))
        component = Kueue(
            "kueue", config, check_provisioning_request_crd=check_crd, opts=pulumi.ResourceOptions(provider=provider)
        )
        pulumi.export("readyUrn", component.ready.urn)

    return mock_runtime.run(program, {})


def gate_job(recording: mock_runtime.Recording) -> mock_runtime.Registration:
    return recording.one(JOB, "kueue-ready")


def container(job: dict, name: str) -> dict:
    [found] = [c for c in job["spec"]["template"]["spec"]["containers"] if c["name"] == name]
    return found


def manager_config(recording: mock_runtime.Recording) -> dict:
    values = recording.one(CHART, "kueue-chart").inputs["values"]
    return yaml.safe_load(values["managerConfig"]["controllerManagerConfigYaml"])


def test_namespace_is_created_and_valid():
    namespace = install().one("kubernetes:core/v1:Namespace", "kueue-namespace")
    assert namespace.inputs["metadata"]["name"] == "kueue-system"
    validate_core(kueue_install.kueue_namespace(KueueConfig()), "1.33")


def test_chart_v4_installs_the_latest_supported_release_into_the_namespace():
    recording = install()
    chart = recording.one(CHART, "kueue-chart")
    assert chart.remote
    assert chart.inputs["chart"] == "oci://registry.k8s.io/kueue/charts/kueue"
    assert chart.inputs["version"] == LATEST_CHART_VERSION == "0.17.8"
    assert chart.inputs["namespace"] == "kueue-system"
    assert chart.inputs["name"] == "kueue"
    assert "repositoryOpts" not in chart.inputs
    assert recording.depends_on(chart, recording.one("kubernetes:core/v1:Namespace"))


def test_chart_runs_on_the_system_pool_with_the_chart_default_resources():
    manager = install().one(CHART, "kueue-chart").inputs["values"]["controllerManager"]
    assert manager["tolerations"] == [{"key": "CriticalAddonsOnly", "operator": "Exists", "effect": "NoSchedule"}]
    assert manager["nodeSelector"] == {"kubernetes.azure.com/mode": "system"}
    assert manager["replicas"] == 1
    assert manager["manager"]["resources"] == {
        "requests": {"cpu": "500m", "memory": "512Mi"},
        "limits": {"cpu": "2", "memory": "512Mi"},
    }
    assert manager["featureGates"] == []


def test_chart_names_the_official_manager_image_so_its_registry_is_checked():
    manager = install().one(CHART, "kueue-chart").inputs["values"]["controllerManager"]["manager"]
    assert manager["image"] == {"repository": "registry.k8s.io/kueue/kueue"}, "the chart keeps its tag v<version>"


def test_manager_config_always_carries_the_namespace_selector_and_frameworks():
    config = manager_config(install())
    assert config["apiVersion"] == "config.kueue.x-k8s.io/v1beta2"
    assert config["kind"] == "Configuration"
    assert config["managedJobsNamespaceSelector"] == {
        "matchExpressions": [
            {"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": ["kube-system", "kueue-system"]}
        ]
    }
    assert config["integrations"] == {"frameworks": ["batch/job"]}


def test_manager_config_keeps_the_chart_defaults():
    if not CHART_VALUES.is_file():
        pytest.skip(f"chart default values not found at {CHART_VALUES}")
    chart = yaml.safe_load(yaml.safe_load(CHART_VALUES.read_text())["managerConfig"]["controllerManagerConfigYaml"])
    ours = manager_config(install())
    for key in (
        "apiVersion",
        "kind",
        "health",
        "metrics",
        "webhook",
        "leaderElection",
        "controller",
        "clientConnection",
    ):
        assert ours[key] == chart[key], key


def test_overrides_reach_the_chart():
    recording = install(
        chartRepository="oci://k8sgcr.azk8s.cn/kueue/charts/kueue",
        imageRepository="mcr.microsoft.com/oss/v2/kueue/kueue",
        replicas=2,
        nodeSelector={},
        frameworks=["batch/job", "pod"],
        featureGates={"PartialAdmission": True},
    )
    chart = recording.one(CHART, "kueue-chart")
    assert chart.inputs["chart"] == "oci://k8sgcr.azk8s.cn/kueue/charts/kueue"
    manager = chart.inputs["values"]["controllerManager"]
    assert manager["manager"]["image"] == {"repository": "mcr.microsoft.com/oss/v2/kueue/kueue"}
    assert manager["replicas"] == 2
    assert manager["nodeSelector"] == {}
    assert manager["featureGates"] == [{"name": "PartialAdmission", "enabled": True}]
    assert manager_config(recording)["integrations"]["frameworks"] == ["batch/job", "pod"]
    assert "nodeSelector" not in gate_job(recording).inputs["spec"]["template"]["spec"]


def test_https_repository_names_the_chart_and_the_repo():
    chart = install(chartRepository="https://kubernetes-sigs.github.io/kueue/charts").one(CHART, "kueue-chart")
    assert chart.inputs["chart"] == "kueue"
    assert chart.inputs["repositoryOpts"] == {"repo": "https://kubernetes-sigs.github.io/kueue/charts"}


def test_ready_is_the_gate_job_and_it_waits_for_the_chart_and_its_rbac():
    recording = install()
    job = gate_job(recording)
    assert recording.outputs["readyUrn"] == job.urn
    assert recording.depends_on(job, recording.one(CHART, "kueue-chart"))
    assert recording.depends_on(job, recording.one("kubernetes:core/v1:ConfigMap", "kueue-probe"))
    assert recording.depends_on(job, recording.one("kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding"))
    assert recording.provider_of(job).name == "cluster"


def test_gate_job_probes_the_webhooks_from_the_system_pool():
    recording = install()
    job = gate_job(recording).inputs
    assert job == kueue_install.gate_job(KueueConfig(), True), "the component registers the builder's object"
    assert job["metadata"]["namespace"] == "kueue-system"
    assert job["spec"]["backoffLimit"] == 6
    assert job["spec"]["activeDeadlineSeconds"] == 600
    pod = job["spec"]["template"]["spec"]
    assert pod["restartPolicy"] == "Never"
    values = recording.one(CHART, "kueue-chart").inputs["values"]["controllerManager"]
    assert pod["tolerations"] == values["tolerations"]
    assert pod["nodeSelector"] == values["nodeSelector"]
    probe = container(job, "webhook-probe")
    assert probe["image"] == "registry.k8s.io/kubectl:v1.33.4"
    command = probe["command"]
    assert command[:3] == ["kubectl", "create", "--dry-run=server"]
    probe_file = command[command.index("-f") + 1]
    [mount] = [m for m in probe["volumeMounts"] if probe_file.startswith(m["mountPath"] + "/")]
    [volume] = [v for v in pod["volumes"] if v["name"] == mount["name"]]
    config_map = recording.one("kubernetes:core/v1:ConfigMap", "kueue-probe").inputs
    assert volume["configMap"]["name"] == config_map["metadata"]["name"]
    assert probe_file.rsplit("/", 1)[1] in config_map["data"]
    account = recording.one("kubernetes:core/v1:ServiceAccount", "kueue-probe").inputs
    assert pod["serviceAccountName"] == account["metadata"]["name"]
    validate_core(kueue_install.gate_job(KueueConfig(), True), "1.33")
    validate_core(kueue_install.gate_job(KueueConfig(), False), "1.33")


def test_probe_manifests_are_a_valid_resource_flavor_and_cluster_queue():
    config_map = install().one("kubernetes:core/v1:ConfigMap", "kueue-probe").inputs
    probes = list(yaml.safe_load_all(next(iter(config_map["data"].values()))))
    assert [p["kind"] for p in probes] == ["ResourceFlavor", "ClusterQueue"]
    for probe in probes:
        assert probe["apiVersion"] == "kueue.x-k8s.io/v1beta2"
        assert "name" not in probe["metadata"], "generateName: a dry run never collides with a real object"
        validate_kueue(probe)
    validate_core(kueue_install.gate_config_map(KueueConfig()), "1.33")


@pytest.mark.parametrize("check_crd", [True, False])
def test_gate_rbac_allows_only_what_the_probe_does(check_crd):
    recording = install(check_crd)
    role = recording.one("kubernetes:rbac.authorization.k8s.io/v1:ClusterRole", "kueue-probe").inputs
    verbs = {
        (group, resource, verb)
        for r in role["rules"]
        for group in r["apiGroups"]
        for resource in r["resources"]
        for verb in r["verbs"]
    }
    expected = {("kueue.x-k8s.io", "resourceflavors", "create"), ("kueue.x-k8s.io", "clusterqueues", "create")}
    if check_crd:
        expected.add(("apiextensions.k8s.io", "customresourcedefinitions", "get"))
        [crd_rule] = [r for r in role["rules"] if "resourceNames" in r]
        assert crd_rule["resourceNames"] == ["provisioningrequests.autoscaling.x-k8s.io"]
    assert verbs == expected
    binding = recording.one("kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding").inputs
    assert binding["roleRef"]["name"] == role["metadata"]["name"]
    account = recording.one("kubernetes:core/v1:ServiceAccount", "kueue-probe").inputs
    assert binding["subjects"] == [
        {"kind": "ServiceAccount", **{k: account["metadata"][k] for k in ("name", "namespace")}}
    ]
    config = KueueConfig()
    for obj in (
        kueue_install.gate_service_account(config),
        kueue_install.gate_cluster_role(config, check_crd),
        kueue_install.gate_cluster_role_binding(config),
    ):
        validate_core(obj, "1.33")


def test_a_failed_gate_is_replaced_on_the_next_up_instead_of_failing_it_for_good():
    """pulumi-kubernetes re-awaits an unready Job on the next update unless it carries replaceUnready."""
    for check_crd in (True, False):
        job = gate_job(install(check_crd)).inputs
        assert job["metadata"]["annotations"] == {"pulumi.com/replaceUnready": "true"}


def test_only_a_missing_crd_fails_the_gate_at_once():
    job = gate_job(install(True)).inputs
    check = container(job, "check-provisioningrequest-crd")
    assert check["command"] == ["bash", "-c", kueue_install.crd_check_script(KueueConfig())]
    assert check["image"] == container(job, "webhook-probe")["image"]
    [rule] = job["spec"]["podFailurePolicy"]["rules"]
    assert rule == {
        "action": "FailJob",
        "onExitCodes": {"containerName": check["name"], "operator": "In", "values": [3]},
    }
    assert "initContainers" not in job["spec"]["template"]["spec"], "pulumi reports only containers' messages"

    without = gate_job(install(False)).inputs["spec"]
    assert [c["name"] for c in without["template"]["spec"]["containers"]] == ["webhook-probe"]
    assert "podFailurePolicy" not in without


@pytest.fixture
def fake_kubectl(tmp_path):
    """Run the CRD check script against a kubectl that prints ``out`` and exits ``code``; return its result."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    kubectl = bin_dir / "kubectl"
    kubectl.write_text('#!/bin/sh\necho "$@" > "$ARGS_FILE"\nprintf %s "$FAKE_OUT"\nexit "$FAKE_CODE"\n')
    kubectl.chmod(kubectl.stat().st_mode | stat.S_IEXEC)

    def run(out: str, code: int) -> tuple[subprocess.CompletedProcess, str]:
        env = {
            "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
            "ARGS_FILE": str(tmp_path / "args"),
            "FAKE_OUT": out,
            "FAKE_CODE": str(code),
        }
        script = kueue_install.crd_check_script(KueueConfig())
        result = subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True, check=False)
        return result, (tmp_path / "args").read_text()

    return run


@pytest.mark.parametrize(
    ("kubectl_out", "kubectl_code", "exit_code"),
    [
        ("customresourcedefinition.apiextensions.k8s.io/provisioningrequests.autoscaling.x-k8s.io", 0, 0),
        ("", 0, 3),
        ("", 1, 1),
        ("", 3, 1),
    ],
    ids=["crd exists", "crd missing", "api error", "kubectl exiting 3 is still retried"],
)
def test_crd_check_tells_a_missing_crd_from_a_transient_error(fake_kubectl, kubectl_out, kubectl_code, exit_code):
    result, args = fake_kubectl(kubectl_out, kubectl_code)
    assert result.returncode == exit_code
    assert args.split()[:4] == ["get", "crd", "provisioningrequests.autoscaling.x-k8s.io", "--ignore-not-found"]
    if exit_code == 3:
        assert result.stderr.strip() == kueue_install.crd_missing_message(KueueConfig())


def test_a_missing_crd_says_what_to_do_in_the_termination_message():
    job = gate_job(install(True)).inputs
    assert {c["terminationMessagePolicy"] for c in job["spec"]["template"]["spec"]["containers"]} == {
        "FallbackToLogsOnError"
    }
    message = kueue_install.crd_missing_message(KueueConfig())
    assert len(message.encode()) < 2048, "the kubelet keeps at most 2048 bytes of log as termination message"
    for needed in (
        "https://github.com/Azure/AKS/pull/5867",
        "1.33",
        "kubectl get crd provisioningrequests.autoscaling.x-k8s.io",
        "kubectl -n kueue-system rollout restart deployment/kueue-controller-manager",
    ):
        assert needed in message
    moved = KueueConfig(
        namespace="batch",
        release_name="sched",
        managed_jobs_namespace_selector={"matchLabels": {"kueue-managed": "true"}},
    )
    assert "kubectl -n batch rollout restart deployment/sched-kueue-controller-manager" in (
        kueue_install.crd_missing_message(moved)
    )


def test_every_gate_container_runs_non_root_on_a_read_only_root_filesystem():
    pod = gate_job(install(True)).inputs["spec"]["template"]["spec"]
    assert pod["securityContext"]["runAsNonRoot"] and pod["securityContext"]["runAsUser"] != 0
    assert len(pod["containers"]) == 2
    for c in pod["containers"]:
        assert c["securityContext"]["readOnlyRootFilesystem"]
        assert not c["securityContext"]["allowPrivilegeEscalation"]
        assert {"name": "tmp", "mountPath": "/tmp"} in c["volumeMounts"], "kubectl's cache dir must be writable"


def test_gate_config_map_and_service_account_wait_for_the_namespace_only():
    recording = install()
    namespace = recording.one("kubernetes:core/v1:Namespace", "kueue-namespace")
    chart = recording.one(CHART, "kueue-chart")
    for kind in ("ConfigMap", "ServiceAccount"):
        obj = recording.one(f"kubernetes:core/v1:{kind}", "kueue-probe")
        assert recording.depends_on(obj, namespace), kind
        assert not recording.depends_on(obj, chart), kind


def test_gate_job_name_carries_the_chart_version_and_changes_with_the_install():
    default = kueue_install.gate_job_name(KueueConfig(), True)
    assert "0-17-8" in default
    assert default == gate_job(install()).inputs["metadata"]["name"]
    assert kueue_install.gate_job_name(KueueConfig(), True) == default, "stable while nothing changes"
    assert kueue_install.gate_job_name(KueueConfig(chart_version="0.17.1"), True) != default
    assert kueue_install.gate_job_name(KueueConfig(replicas=2), True) != default
    assert kueue_install.gate_job_name(KueueConfig(), False) != default
    long = KueueConfig(release_name="kueue-" + "x" * 57)
    assert len(kueue_install.gate_job_name(long, True)) <= 63
