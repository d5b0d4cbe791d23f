"""The readiness gate's builders: the webhook probe's Job, RBAC and CRD check after the chart, and the
ProvisioningRequest CRD wait before it, valid as written and, for their scripts, run against a fake kubectl."""

from __future__ import annotations

import os
import stat
import subprocess
import time

import pytest
import yaml

from components.config.kueue import KueueConfig
from components.manifests import kueue_gate, kueue_install
from tests.support.schemas import validate_core, validate_kueue

DEFAULT = KueueConfig()
IMAGE = "registry.k8s.io/kubectl:v1.36.4"
"""The probe image the gate is handed: the kubectl of its cluster's minor."""


def gate_job(check_crd: bool = True, config: KueueConfig = DEFAULT) -> dict:
    return kueue_gate.gate_job(config, IMAGE, check_provisioning_request_crd=check_crd)


def crd_wait_job(config: KueueConfig = DEFAULT) -> dict:
    return kueue_gate.crd_wait_job(config, IMAGE)


def container(job: dict, name: str) -> dict:
    [found] = [c for c in job["spec"]["template"]["spec"]["containers"] if c["name"] == name]
    return found


# --- the readiness gate -------------------------------------------------------------------------------------------


def test_gate_pods_run_anywhere_when_kueue_has_no_node_selector():
    assert "nodeSelector" not in gate_job(config=KueueConfig(node_selector={}))["spec"]["template"]["spec"]


def test_gate_job_probes_the_webhooks_from_the_nodes_kueue_runs_on():
    job = gate_job()
    assert job["metadata"]["namespace"] == "kueue-system"
    assert (job["spec"]["backoffLimit"], job["spec"]["activeDeadlineSeconds"]) == (6, 600)
    pod = job["spec"]["template"]["spec"]
    assert pod["restartPolicy"] == "Never"
    manager = kueue_install.chart_values(DEFAULT)["controllerManager"]
    assert (pod["tolerations"], pod["nodeSelector"]) == (manager["tolerations"], manager["nodeSelector"])
    probe = container(job, "webhook-probe")
    assert probe["image"] == IMAGE
    assert probe["command"][:3] == ["kubectl", "create", "--dry-run=server"]
    for check_crd in (True, False):
        validate_core(gate_job(check_crd), "1.33")


def test_the_probe_reads_the_config_map_as_the_service_account_it_is_bound_to():
    job, config_map = gate_job(), kueue_gate.gate_config_map(DEFAULT)
    pod = job["spec"]["template"]["spec"]
    command = container(job, "webhook-probe")["command"]
    probe_file = command[command.index("-f") + 1]
    [mount] = [m for m in container(job, "webhook-probe")["volumeMounts"] if probe_file.startswith(m["mountPath"])]
    [volume] = [v for v in pod["volumes"] if v["name"] == mount["name"]]
    assert volume["configMap"]["name"] == config_map["metadata"]["name"]
    assert probe_file.rsplit("/", 1)[1] in config_map["data"]
    assert pod["serviceAccountName"] == kueue_gate.gate_service_account(DEFAULT)["metadata"]["name"]


def test_probe_manifests_are_a_valid_resource_flavor_and_cluster_queue():
    config_map = kueue_gate.gate_config_map(DEFAULT)
    probes = list(yaml.safe_load_all(next(iter(config_map["data"].values()))))
    assert [p["kind"] for p in probes] == ["ResourceFlavor", "ClusterQueue"]
    for probe in probes:
        assert probe["apiVersion"] == "kueue.x-k8s.io/v1beta2"
        assert "name" not in probe["metadata"], "generateName: a dry run never collides with a real object"
        validate_kueue(probe)
    validate_core(config_map, "1.33")


@pytest.mark.parametrize("check_crd", [True, False])
def test_gate_rbac_allows_only_what_the_probe_does(check_crd):
    role = kueue_gate.gate_cluster_role(DEFAULT, check_provisioning_request_crd=check_crd)
    verbs = {
        (group, resource, verb)
        for r in role["rules"]
        for group in r["apiGroups"]
        for resource in r["resources"]
        for verb in r["verbs"]
    }
    expected = {("kueue.x-k8s.io", "resourceflavors", "create"), ("kueue.x-k8s.io", "clusterqueues", "create")}
    if check_crd:
        # kubectl wait lists and watches the CRD with the field selector metadata.name, which resourceNames covers.
        expected |= {("apiextensions.k8s.io", "customresourcedefinitions", verb) for verb in ("get", "list", "watch")}
        [crd_rule] = [r for r in role["rules"] if "resourceNames" in r]
        assert crd_rule["resourceNames"] == ["provisioningrequests.autoscaling.x-k8s.io"]
        assert [r for r in role["rules"] if r["apiGroups"] == ["apiextensions.k8s.io"]] == [crd_rule]
    assert verbs == expected
    binding, account = kueue_gate.gate_cluster_role_binding(DEFAULT), kueue_gate.gate_service_account(DEFAULT)
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
    assert check["command"] == ["bash", "-c", kueue_gate.crd_check_script(DEFAULT)]
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
        script = kueue_gate.crd_check_script(DEFAULT)
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
        assert result.stderr.strip() == kueue_gate.crd_missing_message(DEFAULT)


def assert_termination_message(message: str, *needed: str) -> None:
    """The kubelet keeps at most 2048 bytes of log as a termination message; the advice must fit and be complete."""
    assert len(message.encode()) < 2048
    missing = [text for text in needed if text not in message]
    assert not missing, f"the message lacks {missing}"


def test_a_missing_crd_says_what_to_do_in_the_termination_message():
    pod = gate_job(True)["spec"]["template"]["spec"]
    assert {c["terminationMessagePolicy"] for c in pod["containers"]} == {"FallbackToLogsOnError"}
    message = kueue_gate.crd_missing_message(DEFAULT)
    assert_termination_message(
        message,
        "https://github.com/Azure/AKS/pull/5867",
        "1.33",
        "kubectl get crd provisioningrequests.autoscaling.x-k8s.io",
        "kubectl -n kueue-system rollout restart deployment/kueue-controller-manager",
    )
    moved = KueueConfig(
        namespace="batch",
        release_name="sched",
        managed_jobs_namespace_selector={"matchLabels": {"kueue-managed": "true"}},
    )
    assert "kubectl -n batch rollout restart deployment/sched-kueue-controller-manager" in (
        kueue_gate.crd_missing_message(moved)
    )


@pytest.mark.parametrize("job", ["gate", "crd wait"])
def test_every_gate_container_runs_non_root_on_a_read_only_root_filesystem(job):
    pod = (gate_job(True) if job == "gate" else crd_wait_job())["spec"]["template"]["spec"]
    assert pod["securityContext"]["runAsNonRoot"] and pod["securityContext"]["runAsUser"] != 0
    assert pod["containers"]
    for c in pod["containers"]:
        assert c["securityContext"]["readOnlyRootFilesystem"]
        assert not c["securityContext"]["allowPrivilegeEscalation"]
        assert {"name": "tmp", "mountPath": "/tmp"} in c["volumeMounts"], "kubectl's cache dir must be writable"
        assert c["terminationMessagePolicy"] == "FallbackToLogsOnError"


def test_gate_job_name_carries_the_chart_version_and_changes_with_the_install():
    def name(config: KueueConfig = DEFAULT, check_crd: bool = True) -> str:
        return kueue_gate.gate_job_name(config, check_provisioning_request_crd=check_crd)

    default = name()
    assert "0-19-2" in default
    assert default == gate_job()["metadata"]["name"]
    assert name() == default, "stable while nothing changes"
    assert name(KueueConfig(chart_version="0.17.1")) != default
    assert name(KueueConfig(replicas=2)) != default
    assert name(check_crd=False) != default
    assert len(name(KueueConfig(release_name="kueue-" + "x" * 57))) <= 63


# --- the ProvisioningRequest CRD wait, before the chart -----------------------------------------------------------


def test_the_crd_wait_runs_as_the_gate_in_kueues_namespace_on_the_nodes_kueue_runs_on():
    wait, gate = crd_wait_job(), gate_job(True)
    pod, gate_pod = wait["spec"]["template"]["spec"], gate["spec"]["template"]["spec"]
    assert wait["metadata"]["namespace"] == gate["metadata"]["namespace"] == "kueue-system"
    for key in ("serviceAccountName", "nodeSelector", "tolerations", "securityContext", "restartPolicy"):
        assert pod[key] == gate_pod[key], key
    [container] = pod["containers"]
    assert container["name"] == "wait-for-provisioningrequest-crd"
    assert container["image"] == container_image(gate) == IMAGE
    assert container["command"] == ["bash", "-c", kueue_gate.crd_wait_script()]
    assert "initContainers" not in pod, "pulumi reports only containers' messages"
    assert pod["volumes"] == [{"name": "tmp", "emptyDir": {}}], "it mounts no probe"
    validate_core(wait, "1.33")


def container_image(job: dict) -> str:
    return container(job, "webhook-probe")["image"]


def test_the_crd_wait_is_bounded_by_its_config_key_and_only_its_deadline_fails_it_at_once():
    config = KueueConfig.model_validate({"readinessGate": {"crdTimeoutSeconds": 900, "backoffLimit": 3}})
    spec = crd_wait_job(config)["spec"]
    [container] = spec["template"]["spec"]["containers"]
    assert container["env"] == [{"name": "DEADLINE_SECONDS", "value": "900"}]
    assert spec["activeDeadlineSeconds"] == 900 + 60, "the script's deadline, which says what to do, fires first"
    assert spec["backoffLimit"] == 3
    assert spec["podFailurePolicy"] == {
        "rules": [
            {"action": "FailJob", "onExitCodes": {"containerName": container["name"], "operator": "In", "values": [3]}}
        ]
    }
    assert crd_wait_job()["spec"]["activeDeadlineSeconds"] == 600 + 60


def test_a_failed_crd_wait_is_replaced_on_the_next_up():
    """The chart never started, so running ``pulumi up`` again is the whole remedy."""
    assert crd_wait_job()["metadata"]["annotations"] == {"pulumi.com/replaceUnready": "true"}


def test_crd_wait_job_name_is_stable_and_changes_with_the_install_like_the_gates():
    """Unchanged, a Complete Job gives no diff; a change that restarts Kueue waits for the CRD again first."""
    name = kueue_gate.crd_wait_job_name
    default = name(DEFAULT)
    assert default == crd_wait_job()["metadata"]["name"] == name(KueueConfig())
    assert default.startswith("kueue-wait-crd-0-19-2-")
    assert default.rsplit("-", 1)[1] == gate_job()["metadata"]["name"].rsplit("-", 1)[1], "the gate's digest"
    assert name(KueueConfig(chart_version="0.17.1")) != default
    assert name(KueueConfig(replicas=2)) != default
    assert len(name(KueueConfig(release_name="kueue-" + "x" * 57))) <= 63


@pytest.fixture
def kubectl_calls(tmp_path):
    """Run the CRD wait script against a kubectl that exits with the next of ``codes`` (0 once they run out) and
    records its arguments; return the script's result, the calls and the seconds it took."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    kubectl = bin_dir / "kubectl"
    kubectl.write_text(
        "#!/bin/bash\n"
        'echo "$@" >> "$CALLS"\n'
        'codes=$(cat "$CODES"); code=${codes%% *}; rest=${codes#"$code"}; echo -n "${rest# }" > "$CODES"\n'
        'exit "${code:-0}"\n'
    )
    kubectl.chmod(kubectl.stat().st_mode | stat.S_IEXEC)

    def run(codes: list[int], deadline: int = 60) -> tuple[subprocess.CompletedProcess, list[str], float]:
        (tmp_path / "codes").write_text(" ".join(map(str, codes)))
        env = {
            "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
            "CALLS": str(tmp_path / "calls"),
            "CODES": str(tmp_path / "codes"),
            "DEADLINE_SECONDS": str(deadline),
        }
        started = time.monotonic()
        script = kueue_gate.crd_wait_script()
        result = subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True, check=False)
        calls = (tmp_path / "calls").read_text().splitlines() if (tmp_path / "calls").exists() else []
        return result, calls, time.monotonic() - started

    return run


CRD = "crd/provisioningrequests.autoscaling.x-k8s.io"


def test_crd_wait_ends_once_the_crd_is_created_and_established(kubectl_calls):
    result, calls, _ = kubectl_calls([0, 0])
    assert result.returncode == 0, result.stderr
    assert [call.split()[:3] for call in calls] == [
        ["wait", "--for=create", CRD],
        ["wait", "--for=condition=Established", CRD],
    ]
    assert all("--cache-dir=/tmp/kube-cache" in call for call in calls), "the root filesystem is read-only"
    assert "Waiting up to 60 s" in result.stdout


def test_crd_wait_retries_a_kubectl_error_within_its_deadline(kubectl_calls):
    """A 403 before the binding takes effect, or an API server hiccup, is not a missing CRD."""
    result, calls, _ = kubectl_calls([1, 0, 1, 0, 0])
    assert result.returncode == 0, result.stderr
    assert [call.split()[1] for call in calls] == [
        "--for=create",
        "--for=create",
        "--for=condition=Established",
        "--for=create",
        "--for=condition=Established",
    ]
    assert result.stdout.count("Not there yet") == 2


def test_crd_wait_fails_saying_what_to_do_only_once_its_deadline_has_passed(kubectl_calls):
    result, calls, seconds = kubectl_calls([1] * 100, deadline=2)
    assert result.returncode == 3
    assert seconds >= 1, "bash counts SECONDS in whole seconds from its start"
    assert result.stderr.strip() == kueue_gate.crd_timeout_message(), "the message is the log's tail"
    timeouts = [
        int(arg.removeprefix("--timeout=").removesuffix("s")) for c in calls for arg in c.split() if "timeout" in arg
    ]
    assert timeouts and all(1 <= t <= 2 for t in timeouts), "each kubectl wait is bounded by what is left"


def test_the_crd_wait_message_says_kueue_has_not_started_and_what_to_do():
    message = kueue_gate.crd_timeout_message()
    assert_termination_message(
        message,
        "kueue.readinessGate.crdTimeoutSeconds",
        "https://github.com/Azure/AKS/pull/5867",
        "kubectl get crd provisioningrequests.autoscaling.x-k8s.io",
        "run pulumi up again",
        "queues.waitUntilActive.onInactive: warn",
    )
    assert "rollout restart" not in message, "Kueue has not started without the CRD: nothing to restart"
