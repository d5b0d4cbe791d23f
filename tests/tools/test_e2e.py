"""The e2e steps (tools/e2e.py) driven by a fake command runner and a fake API server: the exact commands in order,
secrets only in the environment of the commands that need them, clean-up after any failure, and a leftover check
that fails while anything the stack made remains."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from components import yaml_text
from components.config.base import ConfigError
from components.config.environment import stack_digest
from tests.support import PROJECT_ROOT
from tests.support.fakes import FakeClock, NotFoundError
from tools import e2e
from tools.e2e import EndToEnd, ObjectRef, Plan
from tools.mock_cloud import FAKE_KUBECONFIG

KUEUE = "kueue.x-k8s.io/v1beta2"
SERVED = {
    "v1": [("namespaces", "Namespace", False), ("configmaps", "ConfigMap", True), ("nodes", "Node", False)],
    "batch/v1": [("jobs", "Job", True)],
    "rbac.authorization.k8s.io/v1": [("clusterroles", "ClusterRole", False)],
    "apiextensions.k8s.io/v1": [("customresourcedefinitions", "CustomResourceDefinition", False)],
    "admissionregistration.k8s.io/v1": [("validatingwebhookconfigurations", "ValidatingWebhookConfiguration", False)],
}
KUEUE_SERVED = [("clusterqueues", "ClusterQueue", False), ("localqueues", "LocalQueue", True)]
KIND_DEFAULTS = [ObjectRef("v1", "Namespace", n) for n in ("default", "kube-system")] + [
    ObjectRef("v1", "Node", "e2e-7-control-plane"),
    ObjectRef("rbac.authorization.k8s.io/v1", "ClusterRole", "cluster-admin"),
]
PLANNED = [
    ObjectRef("v1", "Namespace", "kueue-local-abc"),
    ObjectRef(KUEUE, "ClusterQueue", "local-cluster-queue-abc"),
    ObjectRef(KUEUE, "LocalQueue", "local-queue-abc", "kueue-local-abc"),
    ObjectRef("batch/v1", "Job", "kueue-cas-job", "kueue-local-abc"),
]
CHART = [
    ObjectRef("v1", "Namespace", "kueue-system"),
    ObjectRef("apiextensions.k8s.io/v1", "CustomResourceDefinition", "clusterqueues.kueue.x-k8s.io"),
    ObjectRef("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration", "kueue-validating-webhook"),
    ObjectRef("rbac.authorization.k8s.io/v1", "ClusterRole", "kueue-manager-role"),
    ObjectRef("v1", "ConfigMap", "kueue-manager-config", "kueue-system"),
]
PASSPHRASE = "run-passphrase-0123456789"


class ApiServer:
    """A cluster's objects and the groups it serves, read by REST path like
    :class:`~components.waiters.kube_wait.Cluster`."""

    def __init__(self) -> None:
        self.live: set[ObjectRef] = set(KIND_DEFAULTS)
        self.served = dict(SERVED)

    def _resource(self, api_version: str, plural: str) -> tuple[str, bool] | None:
        return next(((k, ns) for p, k, ns in self.served.get(api_version, []) if p == plural), None)

    def get(self, path: str) -> Any:
        if path == "/apis":
            groups = [gv for gv in self.served if gv != "v1"]
            return {"groups": [{"preferredVersion": {"groupVersion": gv}} for gv in groups]}
        for api_version in self.served:
            base = e2e.Discovery.base(api_version)
            if path == base:
                resources = self.served[api_version]
                return {
                    "resources": [
                        {"name": p, "kind": k, "namespaced": n, "verbs": ["get", "list"]} for p, k, n in resources
                    ]
                }
            if path.startswith(base + "/"):
                parts = path.removeprefix(base + "/").split("/")
                namespace = parts[1] if parts[0] == "namespaces" and len(parts) == 4 else None
                plural, name = parts[-2], parts[-1]
                found = self._resource(api_version, plural)
                if found and ObjectRef(api_version, found[0], name, namespace) in self.live:
                    return {"metadata": {"name": name}}
        raise NotFoundError(path)

    def list(self, path: str, label_selector: str | None = None) -> list[Any]:
        api_version, _, plural = path.removeprefix("/api/").removeprefix("/apis/").rpartition("/")
        found = self._resource(api_version, plural)
        if found is None:
            raise NotFoundError(path)
        items = [r for r in self.live if r.api_version == api_version and r.kind == found[0] and not r.namespace]
        return [{"metadata": {"name": r.name}} for r in items]


def export_of(objects: list[ObjectRef]) -> dict[str, Any]:
    """A ``pulumi stack export`` holding ``objects`` as Chart v4 children do, next to a provider and a component."""
    resources: list[dict[str, Any]] = [
        {"type": "pulumi:providers:kubernetes", "inputs": {"kubeconfig": {"ciphertext": "x"}}},
        {"type": "kubernetes:helm.sh/v4:Chart", "outputs": {"resources": []}},
    ]
    for ref in objects:
        metadata = {"name": ref.name} | ({"namespace": ref.namespace} if ref.namespace else {})
        group = ref.api_version.rpartition("/")[0] or "core"
        resources.append(
            {
                "type": f"kubernetes:{group}/{ref.api_version.rpartition('/')[2]}:{ref.kind}",
                "outputs": {"apiVersion": ref.api_version, "kind": ref.kind, "metadata": metadata},
            }
        )
    return {"version": 3, "deployment": {"resources": resources}}


class FakeCommands:
    """The commands' effects on the API server: ``kind create`` writes the kubeconfig, ``up`` creates the stack's
    objects, ``pulumi stack export`` writes them, ``down`` deletes them all but ``survivors``."""

    def __init__(self, server: ApiServer, fail: str | None = None, survivors: tuple[ObjectRef, ...] = ()) -> None:
        self.server, self.fail, self.survivors = server, fail, survivors
        self.calls: list[tuple[list[str], dict[str, str], Path]] = []

    @staticmethod
    def step(argv: list[str]) -> str:
        if argv[0] == "kind":
            return {"create": "cluster", "delete": "delete"}[argv[1]]
        if argv[0] == "pulumi":
            return "inventory" if argv[1] == "stack" else "preview"
        return argv[3]  # python -m tools.ephemeral <command>

    def __call__(self, argv: Any, env: Any, cwd: Path) -> int:
        argv = list(argv)
        self.calls.append((argv, dict(env), cwd))
        step = self.step(argv)
        if step == self.fail:
            return 1
        if step == "cluster":
            Path(argv[argv.index("--kubeconfig") + 1]).write_text(FAKE_KUBECONFIG)
        elif step == "up":
            self.server.served[KUEUE] = KUEUE_SERVED
            self.server.live |= {*PLANNED, *CHART}
        elif step == "inventory":
            held = sorted(self.server.live - set(KIND_DEFAULTS))
            Path(argv[argv.index("--file") + 1]).write_text(json.dumps(export_of(held)))
        elif step == "down":
            self.server.live -= {*PLANNED, *CHART} - set(self.survivors)
            if not any(r.api_version == KUEUE or r.name.endswith("kueue.x-k8s.io") for r in self.server.live):
                self.server.served.pop(KUEUE, None)
        return 0

    def steps(self) -> list[str]:
        return [self.step(argv) for argv, _, _ in self.calls]


def run(tmp_path: Path, commands: FakeCommands, **changes: Any) -> tuple[int, list[str]]:
    lines: list[str] = []
    clock = FakeClock()
    options: dict[str, Any] = {
        "runner": commands,
        "connect": lambda kubeconfig: commands.server,
        "plan": lambda template, stack: Plan(list(PLANNED), {"agentpool": "local"}),
        "say": lines.append,
        "passphrase": PASSPHRASE,
        "leftover_timeout_seconds": 60,
        "poll_options": {"clock": clock, "sleep": clock.sleep, "interval_seconds": 10},
    } | changes
    code = EndToEnd("7", Path("stacks/Pulumi.local.yaml"), tmp_path, **options).run()
    return code, lines


def test_a_passing_run_runs_every_command_in_order(tmp_path):
    commands = FakeCommands(ApiServer())
    code, lines = run(tmp_path, commands)
    assert code == e2e.OK, lines
    python = [sys.executable, "-m", "tools.ephemeral"]
    template = ["--template", "stacks/Pulumi.local.yaml"]
    assert [argv for argv, _, _ in commands.calls] == [
        ["kind", "create", "cluster", "--name", "e2e-7", "--image", e2e.KIND_NODE_IMAGE, "--config",
         str(tmp_path / "kind.yaml"), "--kubeconfig", str(tmp_path / "kubeconfig"), "--wait", "180s"],
        [*python, "up", "--stack", "e2e-7", *template, "--secret", "elastic-capacity:kubeconfig=E2E_KUBECONFIG"],
        [*python, "check", "--stack", "e2e-7", *template, "--timeout", "300"],
        ["pulumi", "preview", "--stack", "e2e-7", "--expect-no-changes", "--non-interactive", "--diff"],
        ["pulumi", "stack", "export", "--stack", "e2e-7", "--file", str(tmp_path / "state.json")],
        [*python, "down", "--stack", "e2e-7", *template],
        ["kind", "delete", "cluster", "--name", "e2e-7", "--kubeconfig", str(tmp_path / "kubeconfig")],
    ]  # fmt: skip
    assert all(cwd == PROJECT_ROOT for _, _, cwd in commands.calls)
    assert [line.split(":")[0] for line in lines] == [
        "ok      plan", "ok      cluster", "ok      baseline", "ok      up", "ok      check", "ok      preview",
        "ok      inventory", "ok      down", "ok      leftovers", "ok      delete",
    ]  # fmt: skip
    assert "the stack holds 9 Kubernetes objects" in lines[6]


def test_up_runs_the_policy_packs_the_run_is_given(tmp_path):
    commands = FakeCommands(ApiServer())
    code, lines = run(tmp_path, commands, policy_packs=("policies",))
    ups = [argv for argv, _, _ in commands.calls if FakeCommands.step(argv) == "up"]
    assert code == e2e.OK and [argv[-2:] for argv in ups] == [["--policy-pack", "policies"]], lines


def test_the_kind_node_carries_the_label_the_smoke_job_selects(tmp_path):
    run(tmp_path, FakeCommands(ApiServer()))
    config = yaml_text.load((tmp_path / "kind.yaml").read_text())
    assert config == {
        "kind": "Cluster",
        "apiVersion": "kind.x-k8s.io/v1alpha4",
        "nodes": [{"role": "control-plane", "labels": {"agentpool": "local"}}],
    }


def test_secrets_reach_only_the_environment_of_the_commands_that_need_them(tmp_path):
    commands = FakeCommands(ApiServer())
    run(tmp_path, commands)
    for argv, env, _ in commands.calls:
        assert not any(PASSPHRASE in arg or "client-key-data" in arg for arg in argv), argv
        pulumi = argv[0] == "pulumi" or "tools.ephemeral" in argv
        assert (env.get("PULUMI_CONFIG_PASSPHRASE") == PASSPHRASE) is pulumi, argv
        assert (env.get("PULUMI_BACKEND_URL") == f"file://{tmp_path / 'state'}") is pulumi, argv
        assert ("E2E_KUBECONFIG" in env) is (FakeCommands.step(argv) == "up"), argv
    up_env = commands.calls[1][1]
    assert up_env["E2E_KUBECONFIG"] == FAKE_KUBECONFIG
    assert (tmp_path / "state").is_dir(), "the local backend's directory exists before the first Pulumi command"


def test_each_run_makes_its_own_passphrase():
    first, second = (EndToEnd("7", Path("t"), Path("/w"), FakeCommands(ApiServer())) for _ in range(2))
    assert first.passphrase != second.passphrase and len(first.passphrase) >= 32


@pytest.mark.parametrize(
    ("failing", "expected"),
    [
        ("cluster", ["cluster", "delete"]),
        ("up", ["cluster", "up", "inventory", "down", "delete"]),
        ("check", ["cluster", "up", "check", "inventory", "down", "delete"]),
        ("preview", ["cluster", "up", "check", "preview", "inventory", "down", "delete"]),
    ],
)
def test_a_failing_step_stops_the_run_and_the_clean_up_still_runs(tmp_path, failing, expected):
    commands = FakeCommands(ApiServer(), fail=failing)
    code, lines = run(tmp_path, commands)
    assert code == e2e.FAILED
    assert commands.steps() == expected
    assert sum(line.startswith("FAILED") for line in lines) == 1, lines
    assert any(line.startswith(f"FAILED  {failing}: ") and "exited 1" in line for line in lines)
    assert lines[-1].startswith("ok      delete")


def test_a_failing_down_fails_the_run_names_what_it_left_and_still_deletes_the_cluster(tmp_path):
    commands = FakeCommands(ApiServer(), fail="down")
    code, lines = run(tmp_path, commands)
    assert code == e2e.FAILED
    assert commands.steps()[-1] == "delete"
    leftover = next(line for line in lines if line.startswith("FAILED  leftovers"))
    assert "CustomResourceDefinition clusterqueues.kueue.x-k8s.io" in leftover
    assert "LocalQueue kueue-local-abc/local-queue-abc" in leftover


@pytest.mark.parametrize(
    "survivor",
    [
        CHART[1],  # a CRD of the chart: known from the stack's state only
        CHART[4],  # a namespaced object of the chart, in a namespace that is gone from the baseline's view
        PLANNED[2],  # an object of the program
    ],
    ids=str,
)
def test_the_leftover_check_fails_while_an_object_the_stack_made_remains(tmp_path, survivor):
    code, lines = run(tmp_path, FakeCommands(ApiServer(), survivors=(survivor,)))
    assert code == e2e.FAILED
    failed = [line for line in lines if line.startswith("FAILED")]
    assert len(failed) == 1 and failed[0].startswith("FAILED  leftovers: ") and str(survivor) in failed[0]


def test_the_leftover_check_finds_a_cluster_scoped_object_neither_the_plan_nor_the_state_names(tmp_path):
    server = ApiServer()
    commands = FakeCommands(server)
    stray = ObjectRef("rbac.authorization.k8s.io/v1", "ClusterRole", "made-by-a-controller")
    original = commands.__call__

    def runner(argv: Any, env: Any, cwd: Path) -> int:
        code = original(argv, env, cwd)
        if FakeCommands.step(list(argv)) == "up":
            server.live.add(stray)
        return code

    code, lines = run(tmp_path, commands, runner=runner)
    assert code == e2e.FAILED
    assert "ClusterRole made-by-a-controller" in next(line for line in lines if line.startswith("FAILED"))


def test_the_leftover_check_waits_for_deletions_the_api_server_finishes_later(tmp_path):
    server = ApiServer()
    commands = FakeCommands(server, survivors=(CHART[0],))
    reads = []
    original_list = server.list

    def slow_namespace_deletion(path: str, label_selector: str | None = None) -> list[Any]:
        reads.append(path)
        if path == "/api/v1/namespaces" and reads.count(path) == 4:
            server.live.discard(CHART[0])
        return original_list(path, label_selector)

    server.list = slow_namespace_deletion  # type: ignore[method-assign]
    code, lines = run(tmp_path, commands)
    assert code == e2e.OK, lines


def test_a_template_that_does_not_render_does_nothing(tmp_path):
    def bad_plan(template: Path, stack: str) -> Plan:
        raise ConfigError([("elastic-capacity:queues", "broken")])

    commands = FakeCommands(ApiServer())
    code, lines = run(tmp_path, commands, plan=bad_plan)
    assert code == e2e.USAGE and commands.calls == []
    assert len(lines) == 1 and lines[0].startswith("FAILED  plan: ") and "elastic-capacity:queues" in lines[0]


def test_the_plan_of_the_local_template_names_the_physical_objects_and_needs_no_node_label():
    plan = e2e.plan_stack(PROJECT_ROOT / "stacks/Pulumi.local.yaml", "e2e-7")
    suffix = f"-{stack_digest('e2e-7')}"
    assert plan.node_labels == {}, "smokeJob.pool: null: the pods select no node label"
    names = {str(ref) for ref in plan.objects}
    assert {
        f"Namespace kueue-local{suffix}",
        f"ClusterQueue local-cluster-queue{suffix}",
        f"LocalQueue kueue-local{suffix}/local-queue{suffix}",
        f"Job kueue-local{suffix}/kueue-cas-job",
        "ClusterRole kueue-webhook-probe",
    } <= names


def test_the_inventory_is_every_kubernetes_object_of_the_state_and_nothing_else():
    state = export_of(CHART)
    state["deployment"]["resources"].append(
        {"type": "kubernetes:core/v1:Secret", "outputs": {"ciphertext": "x"}, "inputs": {
            "apiVersion": "v1", "kind": "Secret", "metadata": {"name": "failed-create", "namespace": "kueue-system"}}}
    )  # fmt: skip
    state["deployment"]["resources"].append({"type": "elastic-capacity:kueue:Kueue", "outputs": {}})
    assert e2e.inventory(state) == sorted([*CHART, ObjectRef("v1", "Secret", "failed-create", "kueue-system")])


def test_the_node_image_is_pinned_by_digest():
    assert e2e.KIND_NODE_IMAGE.startswith("kindest/node:v1.35.")
    assert len(e2e.KIND_NODE_IMAGE.split("@sha256:")[1]) == 64


@pytest.mark.parametrize("run_id", ["UPPER", "-x", "a" * 21, "a_b"])
def test_a_bad_run_id_is_refused_with_one_line(run_id, capsys):
    assert e2e.main(["run", f"--id={run_id}"], runner=FakeCommands(ApiServer())) == e2e.USAGE
    error = capsys.readouterr().err
    assert error.startswith(f"error: --id {run_id!r}") and error.count("\n") == 1


def test_the_run_id_follows_the_github_run_and_its_attempt():
    assert e2e.default_run_id({"GITHUB_RUN_ID": "123", "GITHUB_RUN_ATTEMPT": "2"}) == "123-2"
    assert e2e.RUN_ID.match(e2e.default_run_id({}))


def test_the_real_runner_reports_a_missing_program(tmp_path, capsys):
    assert e2e.run_command(["no-such-program-e2e"], {}, tmp_path) == 127
    assert "no-such-program-e2e: command not found" in capsys.readouterr().out
    assert (
        e2e.run_command(
            [sys.executable, "-c", "import os, sys; sys.exit(os.environ['X'] != 'y')"], {"X": "y"}, tmp_path
        )
        == 0
    )
