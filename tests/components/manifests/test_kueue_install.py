"""The Kueue install builders: Helm values, and the readiness gate's Job, RBAC and CRD check, valid as written."""

from __future__ import annotations

import os
import stat
import subprocess

import pytest
import yaml

from components.config.kueue import KueueConfig
from components.manifests import kueue_install
from tests.support import PROJECT_ROOT
from tests.support.schemas import validate_core, validate_kueue

CHART_VALUES = PROJECT_ROOT.parent / "shared/reference/kueue-chart-values-v0.17.1.yaml"
DEFAULT = KueueConfig()


def gate_job(check_crd: bool = True, config: KueueConfig = DEFAULT) -> dict:
    return kueue_install.gate_job(config, check_provisioning_request_crd=check_crd)


def container(job: dict, name: str) -> dict:
    [found] = [c for c in job["spec"]["template"]["spec"]["containers"] if c["name"] == name]
    return found


# --- Helm values --------------------------------------------------------------------------------------------------


def test_chart_reference_is_the_oci_chart_itself_or_a_chart_in_an_https_repository():
    assert kueue_install.chart_reference(DEFAULT) == ("oci://registry.k8s.io/kueue/charts/kueue", None)
    https = KueueConfig(chart_repository="https://kubernetes-sigs.github.io/kueue/charts")
    assert kueue_install.chart_reference(https) == ("kueue", "https://kubernetes-sigs.github.io/kueue/charts")


def test_values_run_the_manager_on_the_system_pool_with_the_chart_default_resources():
    manager = kueue_install.chart_values(DEFAULT)["controllerManager"]
    assert manager["tolerations"] == [{"key": "CriticalAddonsOnly", "operator": "Exists", "effect": "NoSchedule"}]
    assert manager["nodeSelector"] == {"kubernetes.azure.com/mode": "system"}
    assert manager["replicas"] == 1
    assert manager["podDisruptionBudget"] == {"enabled": False, "minAvailable": 1}, "one replica: never block drains"
    assert manager["manager"]["resources"] == {
        "requests": {"cpu": "500m", "memory": "512Mi"},
        "limits": {"cpu": "2", "memory": "512Mi"},
    }
    assert manager["manager"]["image"] == {"repository": "registry.k8s.io/kueue/kueue"}, "the chart keeps its tag"
    assert manager["featureGates"] == []


def test_manager_config_always_carries_the_namespace_selector_and_frameworks():
    config = kueue_install.manager_config(DEFAULT)
    assert (config["apiVersion"], config["kind"]) == ("config.kueue.x-k8s.io/v1beta2", "Configuration")
    assert config["managedJobsNamespaceSelector"] == {"matchLabels": {"managed-by-kueue": "true"}}
    assert config["integrations"] == {"frameworks": ["batch/job"]}
    values = kueue_install.chart_values(DEFAULT)["managerConfig"]["controllerManagerConfigYaml"]
    assert yaml.safe_load(values) == config


def test_manager_config_keeps_the_chart_defaults():
    if not CHART_VALUES.is_file():
        pytest.skip(f"chart default values not found at {CHART_VALUES}")
    chart = yaml.safe_load(yaml.safe_load(CHART_VALUES.read_text())["managerConfig"]["controllerManagerConfigYaml"])
    ours = kueue_install.manager_config(DEFAULT)
    for key in ("apiVersion", "kind", "health", "metrics", "webhook", "leaderElection", "controller"):
        assert ours[key] == chart[key], key
    assert ours["clientConnection"] == chart["clientConnection"]


def test_overrides_reach_the_values():
    config = KueueConfig(
        image_repository="mcr.microsoft.com/oss/v2/kueue/kueue",
        replicas=2,
        node_selector={},
        frameworks=["batch/job", "pod"],
        feature_gates={"PartialAdmission": True},
    )
    manager = kueue_install.chart_values(config)["controllerManager"]
    assert manager["manager"]["image"] == {"repository": "mcr.microsoft.com/oss/v2/kueue/kueue"}
    assert (manager["replicas"], manager["nodeSelector"]) == (2, {})
    assert manager["podDisruptionBudget"] == {"enabled": True, "minAvailable": 1}
    assert manager["featureGates"] == [{"name": "PartialAdmission", "enabled": True}]
    assert kueue_install.manager_config(config)["integrations"]["frameworks"] == ["batch/job", "pod"]
    assert "nodeSelector" not in gate_job(config=config)["spec"]["template"]["spec"]


def test_fair_sharing_and_resource_settings_go_into_the_manager_config_only_when_set():
    """Their presence is what turns each on in Kueue's v1beta2 Configuration (there is no ``enable`` field)."""
    assert not {"fairSharing", "admissionFairSharing", "resources"} & set(kueue_install.manager_config(DEFAULT))
    config = KueueConfig.model_validate(
        {
            "fairSharing": {},
            "admissionFairSharing": {"usageHalfLifeTime": "168h", "resourceWeights": {"cpu": 2.0}},
            "resources": {"transformations": [{"input": "cpu", "strategy": "Retain", "outputs": {"cpu_credits": 1}}]},
        }
    )
    manager = kueue_install.manager_config(config)
    assert manager["fairSharing"] == {"preemptionStrategies": ["LessThanOrEqualToFinalShare", "LessThanInitialShare"]}
    assert manager["admissionFairSharing"] == {"usageHalfLifeTime": "168h", "resourceWeights": {"cpu": 2.0}}
    assert manager["resources"] == {
        "transformations": [{"input": "cpu", "strategy": "Retain", "outputs": {"cpu_credits": "1"}}]
    }
    values = kueue_install.chart_values(config)["managerConfig"]["controllerManagerConfigYaml"]
    assert yaml.safe_load(values) == manager


def test_pods_ready_retention_and_metric_labels_reach_the_manager_config():
    config = KueueConfig.model_validate(
        {
            "waitForPodsReady": {"timeout": "10m", "requeuingStrategy": {"backoffLimitCount": 5}},
            "objectRetentionPolicies": {"workloads": {"afterFinished": "1h"}},
            "metrics": {"customLabels": [{"name": "team"}]},
            "featureGates": {"CustomMetricLabels": True},
        }
    )
    manager = kueue_install.manager_config(config)
    assert manager["waitForPodsReady"] == {"timeout": "10m", "requeuingStrategy": {"backoffLimitCount": 5}}
    assert manager["objectRetentionPolicies"] == {"workloads": {"afterFinished": "1h"}}
    assert manager["metrics"] == {"bindAddress": ":8443", "customLabels": [{"name": "team"}]}
    assert kueue_install.manager_config(DEFAULT)["metrics"] == {"bindAddress": ":8443"}


def test_namespace_is_valid():
    validate_core(kueue_install.kueue_namespace(DEFAULT), "1.33")


# --- the readiness gate -------------------------------------------------------------------------------------------


def test_gate_job_probes_the_webhooks_from_the_nodes_kueue_runs_on():
    job = gate_job()
    assert job["metadata"]["namespace"] == "kueue-system"
    assert (job["spec"]["backoffLimit"], job["spec"]["activeDeadlineSeconds"]) == (6, 600)
    pod = job["spec"]["template"]["spec"]
    assert pod["restartPolicy"] == "Never"
    manager = kueue_install.chart_values(DEFAULT)["controllerManager"]
    assert (pod["tolerations"], pod["nodeSelector"]) == (manager["tolerations"], manager["nodeSelector"])
    probe = container(job, "webhook-probe")
    assert probe["image"] == "registry.k8s.io/kubectl:v1.33.4"
    assert probe["command"][:3] == ["kubectl", "create", "--dry-run=server"]
    for check_crd in (True, False):
        validate_core(gate_job(check_crd), "1.33")


def test_the_probe_reads_the_config_map_as_the_service_account_it_is_bound_to():
    job, config_map = gate_job(), kueue_install.gate_config_map(DEFAULT)
    pod = job["spec"]["template"]["spec"]
    command = container(job, "webhook-probe")["command"]
    probe_file = command[command.index("-f") + 1]
    [mount] = [m for m in container(job, "webhook-probe")["volumeMounts"] if probe_file.startswith(m["mountPath"])]
    [volume] = [v for v in pod["volumes"] if v["name"] == mount["name"]]
    assert volume["configMap"]["name"] == config_map["metadata"]["name"]
    assert probe_file.rsplit("/", 1)[1] in config_map["data"]
    assert pod["serviceAccountName"] == kueue_install.gate_service_account(DEFAULT)["metadata"]["name"]


def test_probe_manifests_are_a_valid_resource_flavor_and_cluster_queue():
    config_map = kueue_install.gate_config_map(DEFAULT)
    probes = list(yaml.safe_load_all(next(iter(config_map["data"].values()))))
    assert [p["kind"] for p in probes] == ["ResourceFlavor", "ClusterQueue"]
    for probe in probes:
        assert probe["apiVersion"] == "kueue.x-k8s.io/v1beta2"
        assert "name" not in probe["metadata"], "generateName: a dry run never collides with a real object"
        validate_kueue(probe)
    validate_core(config_map, "1.33")


@pytest.mark.parametrize("check_crd", [True, False])
def test_gate_rbac_allows_only_what_the_probe_does(check_crd):
    role = kueue_install.gate_cluster_role(DEFAULT, check_provisioning_request_crd=check_crd)
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
    binding, account = kueue_install.gate_cluster_role_binding(DEFAULT), kueue_install.gate_service_account(DEFAULT)
    assert binding["roleRef"]["name"] == role["metadata"]["name"]
    assert binding["subjects"] == [
        {"kind": "ServiceAccount", **{k: account["metadata"][k] for k in ("name", "namespace")}}
    ]
    for obj in (account, role, binding):
        validate_core(obj, "1.33")


@pytest.mark.parametrize("check_crd", [True, False])
def test_a_failed_gate_is_replaced_on_the_next_up_instead_of_failing_it_for_good(check_crd):
    """pulumi-kubernetes re-awaits an unready Job on the next update unless it carries replaceUnready."""
    assert gate_job(check_crd)["metadata"]["annotations"] == {"pulumi.com/replaceUnready": "true"}


def test_only_a_missing_crd_fails_the_gate_at_once():
    job = gate_job(True)
    check = container(job, "check-provisioningrequest-crd")
    assert check["command"] == ["bash", "-c", kueue_install.crd_check_script(DEFAULT)]
    assert check["image"] == container(job, "webhook-probe")["image"]
    [rule] = job["spec"]["podFailurePolicy"]["rules"]
    assert rule == {
        "action": "FailJob",
        "onExitCodes": {"containerName": check["name"], "operator": "In", "values": [3]},
    }
    assert "initContainers" not in job["spec"]["template"]["spec"], "pulumi reports only containers' messages"

    without = gate_job(False)["spec"]
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
        script = kueue_install.crd_check_script(DEFAULT)
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
        assert result.stderr.strip() == kueue_install.crd_missing_message(DEFAULT)


def test_a_missing_crd_says_what_to_do_in_the_termination_message():
    pod = gate_job(True)["spec"]["template"]["spec"]
    assert {c["terminationMessagePolicy"] for c in pod["containers"]} == {"FallbackToLogsOnError"}
    message = kueue_install.crd_missing_message(DEFAULT)
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
    pod = gate_job(True)["spec"]["template"]["spec"]
    assert pod["securityContext"]["runAsNonRoot"] and pod["securityContext"]["runAsUser"] != 0
    assert len(pod["containers"]) == 2
    for c in pod["containers"]:
        assert c["securityContext"]["readOnlyRootFilesystem"]
        assert not c["securityContext"]["allowPrivilegeEscalation"]
        assert {"name": "tmp", "mountPath": "/tmp"} in c["volumeMounts"], "kubectl's cache dir must be writable"


def test_gate_job_name_carries_the_chart_version_and_changes_with_the_install():
    def name(config: KueueConfig = DEFAULT, check_crd: bool = True) -> str:
        return kueue_install.gate_job_name(config, check_provisioning_request_crd=check_crd)

    default = name()
    assert "0-17-8" in default
    assert default == gate_job()["metadata"]["name"]
    assert name() == default, "stable while nothing changes"
    assert name(KueueConfig(chart_version="0.17.1")) != default
    assert name(KueueConfig(replicas=2)) != default
    assert name(check_crd=False) != default
    assert len(name(KueueConfig(release_name="kueue-" + "x" * 57))) <= 63
