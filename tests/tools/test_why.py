"""``python -m tools.why``: the line it prints for each recorded state, the waiter saying the same, where the
kubeconfig comes from, and one-line errors for bad arguments and clusters it cannot read."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from components.waiters.job_wait import JobIncompleteError, JobObserver, wait_for_job
from tests.support import PROJECT_ROOT
from tests.support.fakes import FakeApiServer, FakeCluster
from tests.support.schemas import validate_core, validate_kueue
from tools import why

STATES = PROJECT_ROOT / "tests/support/why_states"
NS, NAME = "cas-kueue-demo", "kueue-cas-job"
JOB = f"Job {NS}/{NAME}"
WORKLOAD, PROVREQ = "job-kueue-cas-job-5b7c2", "job-kueue-cas-job-5b7c2-cas-provisioning-1"
PATHS = {
    "job": f"/apis/batch/v1/namespaces/{NS}/jobs/{NAME}",
    "pods": f"/api/v1/namespaces/{NS}/pods",
    "workloads": f"/apis/kueue.x-k8s.io/v1beta2/namespaces/{NS}/workloads",
    "provisioningrequests": f"/apis/autoscaling.x-k8s.io/v1/namespaces/{NS}/provisioningrequests",
}
"""Where each recorded answer is served: the README's table."""
SUSPENDED = f"{JOB} is still suspended: Kueue has not admitted it."
SHOW_WORKLOAD = f"kubectl -n {NS} get workload {WORKLOAD} -o yaml"
SHOW_PROVREQ = f"kubectl -n {NS} get provisioningrequest {PROVREQ} -o yaml (status.conditions)"
LINES = {
    "pending-quota": f"{SUSPENDED} Its Workload waits for quota (Pending: couldn't assign flavors to pod set main: "
    "insufficient unused quota for cpu in flavor scalepool, 4600m more needed): Kueue admits it once its "
    "ClusterQueue, with what its cohort lends, has that much unused quota, as running workloads finish or when "
    "nominalQuota is raised. Check: kubectl get clusterqueue -o yaml (status.flavorsUsage); its place in the queue: "
    f"kubectl get --raw /apis/visibility.kueue.x-k8s.io/v1beta2/namespaces/{NS}/localqueues/cas-local-queue/"
    "pendingworkloads",
    "waiting-provisioning": f"{SUSPENDED} The autoscaler accepted its ProvisioningRequest but has not provisioned "
    "capacity yet (Accepted: ProvisioningRequest is accepted by ClusterAutoscaler); scale-ups can take minutes. "
    f"Check: {SHOW_PROVREQ}",
    "provisioning-failed": f"{SUSPENDED} Its ProvisioningRequest failed (Expired: ProvisioningRequest is expired) "
    "after the autoscaler could not provision capacity (CapacityIsNotFound: Capacity is not found, CA will try to "
    "find it later.): the request exceeds the pool's maxCount, or the region has no capacity or quota for the VM "
    "size; Kueue tries again after a backoff, up to retryStrategy.backoffLimitCount times. "
    f"Check: {SHOW_PROVREQ}",
    "admitted-pods-pending": f"{JOB} was admitted and started, but none of its pods is ready: 3 active (0 ready), "
    "0 succeeded, 0 failed pod(s). Pods may be Pending on nodes that are not Ready yet. "
    f"Check: kubectl -n {NS} get pods -l batch.kubernetes.io/job-name={NAME} -o wide; kubectl get nodes",
    "running": f"{JOB} is running: 3 active (3 ready), 0 succeeded, 0 failed pod(s). "
    f"Follow it: kubectl -n {NS} logs -f job/{NAME}",
    "finished": f"{JOB} completed: 3 pod(s) succeeded.",
    "job-not-found": f"error: {JOB} does not exist: check its name and namespace (kubectl -n {NS} get jobs); a "
    "finished Job is deleted, with its Workload, once its ttlSecondsAfterFinished has passed.",
    "not-managed": f"{JOB} is not managed by Kueue: it has no kueue.x-k8s.io/queue-name label and Kueue made no "
    "Workload for it, so Kueue neither queues nor admits it. To queue it, submit it with that label naming a "
    f"LocalQueue (kubectl -n {NS} get localqueue).",
    "check-rejected": f"{JOB} is still suspended: its admission check 'cas-provisioning' (ProvisioningRequest is "
    "expired) rejected it, so Kueue deactivates the Workload and stops the Job; once the cause is fixed, reactivate "
    f'it: kubectl -n {NS} patch workload {WORKLOAD} --type=merge -p \'{{"spec":{{"active":true}}}}\'. '
    f"Check: {SHOW_WORKLOAD} (status.admissionChecks)",
    "check-retry": f"{SUSPENDED} Its admission check 'cas-provisioning' (Retrying after booking expired: Capacity "
    "reservation time is expired) asked for a retry (because the autoscaler's 10-minute booking of the capacity it "
    "provisioned ran out before Kueue admitted the Workload): Kueue releases its quota and requeues it after a "
    f"backoff. Check: {SHOW_WORKLOAD} (status.admissionChecks)",
    "check-retry-evicted": f"{SUSPENDED} Kueue evicted its Workload (AdmissionCheck: Evicted due to AdmissionCheck "
    'in Retry state: "cas-provisioning" (Retrying after booking expired: Capacity reservation time is expired)): an '
    "admission check asked for a retry: Kueue deleted the Workload's ProvisioningRequests with the eviction (from "
    "Kueue 0.17.7, gate CleanupProvisioningRequestsOnEviction) and files attempt retryCount + 1 once the check's "
    "requeueAfterSeconds have passed and quota is reserved again (because the autoscaler's 10-minute booking of the "
    f"capacity it provisioned ran out before Kueue admitted the Workload). Check: {SHOW_WORKLOAD} (status.conditions)",
    "evicted-preempted": f"{SUSPENDED} Kueue evicted its Workload (Preempted: Preempted to accommodate a workload "
    "(UID: 2b3c4d5e-6f70-4a81-92a3-b4c5d6e7f809, JobUID: 3c4d5e6f-7081-4b92-a3b4-c5d6e7f8091a) due to "
    "prioritization in the ClusterQueue; preemptor path: /cas-cluster-queue; preemptee path: /cas-cluster-queue): "
    "a workload of higher priority, or its cohort reclaiming lent quota, took its place; it is requeued and "
    f"admitted again once quota frees. Check: {SHOW_WORKLOAD} (status.conditions)",
}
"""The line for each fully recorded state: the six of the issue, then a missing Job, a Job Kueue does not manage, a
rejected and a retried admission check, the retried Workload once evicted (its request deleted), and a preempted
Workload. Every other state Kueue and the autoscaler leave is in tests/cases/why/states.yaml
(tests/components/waiters/test_job_wait.py)."""


class ApiError(Exception):
    """The client's error for an API ``Status`` answer."""

    def __init__(self, answer: dict) -> None:
        super().__init__(answer["message"])
        self.status, self.reason = answer["code"], answer["reason"]


def recorded(state: str) -> FakeCluster:
    """A cluster answering with the state's recorded answers; a list answers its items, as the client gives them."""
    answers = json.loads((STATES / f"{state}.json").read_text())
    objects = {}
    for key, answer in answers.items():
        kind = answer["kind"]
        objects[PATHS[key]] = (
            ApiError(answer) if kind == "Status" else answer["items"] if kind.endswith("List") else answer
        )
    return FakeCluster(objects)


@pytest.fixture
def kubeconfig(tmp_path):
    path = tmp_path / "kubeconfig"
    path.write_text("the kubeconfig")
    return path


def run_why(capsys, *argv, cluster=None, **options):
    """``main(argv)`` with ``cluster`` behind the kubeconfig: (exit code, stdout lines, stderr lines)."""
    options.setdefault("connect", lambda kubeconfig: cluster)
    code = why.main(list(argv), **options)
    out, err = capsys.readouterr()
    return code, out.splitlines(), err.splitlines()


@pytest.mark.parametrize("state", [state for state in LINES if state != "job-not-found"])
def test_each_recorded_state_gets_its_one_line(state, capsys, kubeconfig):
    code, out, err = run_why(capsys, f"{NS}/{NAME}", "--kubeconfig", str(kubeconfig), cluster=recorded(state))
    assert (code, out, err) == (0, [LINES[state]], [])


def test_a_job_that_does_not_exist_is_one_line_on_stderr_and_exit_code_3(capsys, kubeconfig):
    code, out, err = run_why(capsys, f"{NS}/{NAME}", "--kubeconfig", str(kubeconfig), cluster=recorded("job-not-found"))
    assert (code, out, err) == (why.NO_SUCH_JOB, [], [LINES["job-not-found"]]) and why.NO_SUCH_JOB == 3


def test_every_recorded_state_is_asserted():
    assert sorted(path.stem for path in STATES.glob("*.json")) == sorted(LINES)


def test_the_example_lines_of_docs_why_md_are_the_lines_tools_why_prints():
    text = (PROJECT_ROOT / "docs/why.md").read_text()
    block = re.search(r"## Example lines\n.*?```text\n(.*?)```", text, re.S)
    assert block is not None, "docs/why.md has an ```text block under ## Example lines"
    examples = dict(re.findall(r"^# (\S+)\n(.+)$", block.group(1), re.M))
    assert examples and examples == {state: LINES[state] for state in examples}


def recorded_objects(key: str) -> list[dict]:
    """Every recorded object of one read, across the states."""
    answers = [json.loads(path.read_text()).get(key) for path in sorted(STATES.glob("*.json"))]
    return [item for a in answers if a and a["kind"] != "Status" for item in a.get("items", [a])]


@pytest.mark.parametrize("kueue_version", ["0.17.8", "0.18.6", "0.19.2"])
def test_the_recorded_workloads_are_what_each_supported_kueue_s_crd_accepts(kueue_version):
    workloads = recorded_objects("workloads")
    assert len(workloads) == 10, "every state but the missing and the unmanaged Job"
    for workload in workloads:
        validate_kueue(workload, kueue_version)


@pytest.mark.parametrize("key", ["job", "pods"])
def test_the_recorded_jobs_and_pods_are_valid_kubernetes_1_33_objects(key):
    for obj in recorded_objects(key):
        validate_core({"apiVersion": "v1", "kind": "Pod", **obj} if key == "pods" else obj, "1.33")


@pytest.mark.parametrize("state", ["waiting-provisioning", "admitted-pods-pending", "check-rejected"])
def test_the_smoke_job_waiter_says_the_same_line(state):
    clock = iter(range(100)).__next__
    with pytest.raises(JobIncompleteError) as caught:
        wait_for_job(JobObserver(recorded(state)), NS, NAME, 0, clock=clock, sleep=lambda seconds: None)
    assert str(caught.value) == f"Waited 0s (smokeJob.timeoutSeconds). {LINES[state]}"


def test_the_workloads_are_read_by_the_job_uid_label_kueue_sets(capsys, kubeconfig):
    cluster = recorded("running")
    run_why(capsys, f"{NS}/{NAME}", "--kubeconfig", str(kubeconfig), cluster=cluster)
    assert cluster.selectors[PATHS["workloads"]] == "kueue.x-k8s.io/job-uid=6f0c2d4e-8a1b-4c3d-9e5f-1a2b3c4d5e6f"
    assert cluster.selectors[PATHS["pods"]] == f"batch.kubernetes.io/job-name={NAME}"


# --- where the kubeconfig comes from ----------------------------------------------------------------------------


def connected(seen: list[str]):
    def connect(kubeconfig: str) -> FakeCluster:
        seen.append(kubeconfig)
        return recorded("finished")

    return connect


def test_the_kubeconfig_file_is_what_the_client_gets(capsys, kubeconfig):
    seen: list[str] = []
    assert run_why(capsys, f"{NS}/{NAME}", "--kubeconfig", str(kubeconfig), connect=connected(seen))[0] == 0
    assert seen == ["the kubeconfig"]


def test_without_a_flag_the_file_kubeconfig_names_is_read(capsys, kubeconfig, tmp_path, monkeypatch):
    seen: list[str] = []
    assert run_why(capsys, f"{NS}/{NAME}", connect=connected(seen), environ={"KUBECONFIG": str(kubeconfig)})[0] == 0
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / ".kube").mkdir()
    (tmp_path / ".kube/config").write_text("the default one")
    assert run_why(capsys, f"{NS}/{NAME}", connect=connected(seen), environ={})[0] == 0
    assert seen == ["the kubeconfig", "the default one"]


def test_a_stack_s_kubeconfig_output_is_read_through_the_pulumi_cli_s_standard_output(capsys):
    commands, seen = [], []

    def pulumi(command):
        commands.append(command)
        return subprocess.CompletedProcess(command, 0, stdout="the stack's kubeconfig\n", stderr="")

    assert run_why(capsys, f"{NS}/{NAME}", "--stack", "dev", connect=connected(seen), run=pulumi)[0] == 0
    assert commands == [["pulumi", "stack", "output", "--stack", "dev", "--show-secrets", "kubeconfig"]]
    assert seen == ["the stack's kubeconfig\n"]


def test_pulumi_runs_in_the_project_directory_that_holds_pulumi_yaml(monkeypatch):
    runs = []
    monkeypatch.setattr(why.subprocess, "run", lambda command, **options: runs.append(options))
    why.run_pulumi(["pulumi", "version"])
    assert runs[0]["cwd"] == PROJECT_ROOT and (PROJECT_ROOT / "Pulumi.yaml").is_file()
    assert runs[0]["capture_output"] is True, "the kubeconfig goes to a pipe, not to the terminal"


# --- one-line errors --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        ([NAME], f"error: argument NAMESPACE/JOB: '{NAME}': write the Job as NAMESPACE/NAME in lower case, e.g. "),
        ([f"{NS}/Kueue_Job"], "error: argument NAMESPACE/JOB: 'cas-kueue-demo/Kueue_Job': write the Job as "),
        ([], "error: the following arguments are required: NAMESPACE/JOB"),
        ([f"{NS}/{NAME}", "--kubeconfig", "k", "--stack", "dev"], "error: argument --stack: not allowed with argument"),
        ([f"{NS}/{NAME}", "--kubeconfig", "/nonexistent/kubeconfig"], "error: --kubeconfig /nonexistent/kubeconfig: "),
    ],
)
def test_a_bad_argument_is_one_line_on_stderr_and_exit_code_2(argv, said, capsys):
    code, out, err = run_why(capsys, *argv)
    assert (code, out, len(err)) == (2, [], 1)
    assert err[0].startswith(said)


def test_a_bad_argument_from_the_command_line_prints_no_traceback():
    result = subprocess.run(
        [sys.executable, "-m", "tools.why", "not-a-job-reference"], cwd=PROJECT_ROOT, capture_output=True, text=True
    )
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.splitlines() == [
        "error: argument NAMESPACE/JOB: 'not-a-job-reference': write the Job as NAMESPACE/NAME in lower case, e.g. "
        "cas-kueue-demo/kueue-cas-job"
    ]


def test_kubeconfig_naming_several_files_asks_for_one(capsys):
    code, _, err = run_why(capsys, f"{NS}/{NAME}", environ={"KUBECONFIG": "/a:/b"})
    assert (code, err) == (2, ["error: KUBECONFIG names 2 files and tools.why reads one: pass --kubeconfig FILE"])


@pytest.mark.parametrize(
    ("pulumi", "said"),
    [
        (FileNotFoundError, "error: --stack needs the Pulumi CLI (pulumi) on PATH; or pass --kubeconfig FILE"),
        (
            lambda c: subprocess.CompletedProcess(c, 255, "", "error: no stack named 'dev' found\n"),
            "error: --stack dev: pulumi stack output --stack dev --show-secrets kubeconfig failed: error: no stack "
            "named 'dev' found",
        ),
        (lambda c: subprocess.CompletedProcess(c, 0, "\n", ""), "error: --stack dev: the stack's 'kubeconfig' output"),
    ],
)
def test_a_stack_whose_kubeconfig_cannot_be_read_is_a_usage_error(pulumi, said, capsys):
    def run(command):
        if pulumi is FileNotFoundError:
            raise FileNotFoundError(2, "No such file or directory", "pulumi")
        return pulumi(command)

    code, _, err = run_why(capsys, f"{NS}/{NAME}", "--stack", "dev", run=run)
    assert code == 2 and len(err) == 1 and err[0].startswith(said)


def token_kubeconfig(server: str) -> str:
    return json.dumps(
        {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "c", "cluster": {"server": server}}],
            "users": [{"name": "u", "user": {"token": "t0ken"}}],
            "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u"}}],
            "current-context": "c",
        }
    )


def test_access_refused_by_the_real_api_server_names_the_rbac_it_needs(capsys, kubeconfig):
    with FakeApiServer(lambda authorization: 403) as server:
        kubeconfig.write_text(token_kubeconfig(server.url))
        code, out, err = run_why(capsys, f"{NS}/{NAME}", "--kubeconfig", str(kubeconfig), connect=why.RestCluster)
    assert server.seen == ["Bearer t0ken"]
    assert (code, out) == (1, [])
    assert err == [
        "error: the API server refused a read (403 Forbidden): tools.why needs get on jobs (batch), list on pods, "
        f"workloads (kueue.x-k8s.io) and provisioningrequests (autoscaling.x-k8s.io) in namespace {NS}"
    ]


def test_an_unreachable_api_server_is_one_line_and_exit_code_1(capsys, kubeconfig):
    kubeconfig.write_text(token_kubeconfig("http://127.0.0.1:9"))
    code, _, err = run_why(capsys, f"{NS}/{NAME}", "--kubeconfig", str(kubeconfig), connect=why.RestCluster)
    assert code == 1 and len(err) == 1
    assert err[0].startswith("error: cannot reach the API server http://127.0.0.1:9: ")


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("{}", "Invalid kube-config file. Expected key current-context in kube-config"),
        ("users: [{token: s3cret", "not YAML (expected ',' or '}', but got '<stream end>' at line 1, column 23)"),
    ],
)
def test_a_kubeconfig_the_client_cannot_use_is_a_usage_error_that_quotes_none_of_it(text, said, capsys, kubeconfig):
    kubeconfig.write_text(text)
    code, _, err = run_why(capsys, f"{NS}/{NAME}", "--kubeconfig", str(kubeconfig), connect=why.RestCluster)
    assert (code, err) == (2, [f"error: the kubeconfig from --kubeconfig {kubeconfig} is not usable: {said}"])
