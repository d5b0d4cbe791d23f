"""The ephemeral runner's orchestration, driven with a fake workspace and fake clusters: no Pulumi CLI, no cloud."""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest

from components import yaml_text
from components.config.environment import stack_digest
from tests.support import PROJECT_ROOT
from tests.support.ephemeral import TEMPLATE, TEMPLATE_FILE, FakeStack, FakeWorkspace, runner, write_template
from tests.support.stacks import AKS_STACK
from tools import ephemeral, ephemeral_settings, render
from tools.ephemeral import FAILED, NOTHING_DONE, OK, RESOURCES_MAY_REMAIN, main
from tools.ephemeral_checks import Condition

MULTICLOUD = PROJECT_ROOT / "stacks/Pulumi.multicloud.yaml"


def test_up_creates_the_stack_writes_the_template_then_deploys_with_progress():
    workspace, lines = FakeWorkspace(), []
    workspace.files["pr-1"] = "encryptionsalt: v1:abc\n"  # what `pulumi stack init` wrote
    assert runner(workspace, lines=lines).up("pr-1", TEMPLATE) == OK
    assert workspace.events == ["create_or_select pr-1", "write_settings pr-1", "up pr-1"]
    assert "+ creating resources" in lines and lines[-1] == "ok      up pr-1"
    assert yaml_text.load(workspace.files["pr-1"]) == {"encryptionsalt": "v1:abc", **TEMPLATE_FILE}


def test_a_failed_up_with_destroy_on_failure_destroys_and_removes_the_stack():
    workspace, lines = FakeWorkspace(), []
    workspace.create_or_select("pr-1").up_error = RuntimeError("quota exceeded")
    workspace.events.clear()
    assert runner(workspace, lines=lines).up("pr-1", TEMPLATE, destroy_on_failure=True) == FAILED
    assert workspace.events == [
        "create_or_select pr-1",
        "write_settings pr-1",
        "up pr-1",
        "select pr-1",
        "destroy pr-1",
        "remove pr-1",
    ]
    assert workspace.stacks == {} and workspace.files == {}
    assert "FAILED  up pr-1: RuntimeError: quota exceeded" in lines


def test_down_after_a_failed_up_destroys_and_removes_the_stack():
    workspace = FakeWorkspace()
    workspace.create_or_select("pr-1").up_error = RuntimeError("quota exceeded")
    assert runner(workspace).up("pr-1", TEMPLATE) == FAILED
    assert "pr-1" in workspace.stacks, "without --destroy-on-failure the failed stack stays for inspection"
    assert runner(workspace).down("pr-1", TEMPLATE) == OK
    assert workspace.events[-3:] == ["select pr-1", "destroy pr-1", "remove pr-1"]
    assert workspace.stacks == {}


def test_destroy_is_retried_a_bounded_number_of_times():
    workspace = FakeWorkspace()
    workspace.create_or_select("pr-1").destroy_errors = [RuntimeError("DependencyViolation")]
    assert runner(workspace).down("pr-1") == OK
    assert workspace.events.count("destroy pr-1") == 2 and workspace.stacks == {}


def test_a_stack_whose_destroy_keeps_failing_is_kept_so_its_resources_stay_tracked():
    workspace, lines = FakeWorkspace(), []
    stack = workspace.create_or_select("pr-1")
    stack.up_error = RuntimeError("boom")
    stack.destroy_errors = [RuntimeError("DependencyViolation")] * 3
    assert runner(workspace, lines=lines).up("pr-1", TEMPLATE, destroy_on_failure=True) == RESOURCES_MAY_REMAIN
    assert workspace.events.count("destroy pr-1") == 2 and "remove pr-1" not in workspace.events
    assert "pr-1" in workspace.stacks and "kept stack pr-1" in lines[-1]


def test_down_of_a_stack_that_does_not_exist_succeeds_without_destroying():
    workspace = FakeWorkspace()
    assert runner(workspace).down("pr-9") == OK
    assert workspace.events == ["select pr-9"]


def test_down_on_a_fresh_checkout_writes_the_template_first_for_its_esc_imports():
    workspace = FakeWorkspace()
    workspace.stacks["pr-1"] = FakeStack(workspace, "pr-1")
    assert runner(workspace).down("pr-1", TEMPLATE) == OK
    assert workspace.events == ["select pr-1", "write_settings pr-1", "destroy pr-1", "remove pr-1"]


def deployed_aks_stack(workspace: FakeWorkspace, name: str = "pr-1") -> FakeStack:
    _, values, secret_keys = render.read_stack_file(AKS_STACK)
    values["elastic-capacity:smokeJob"] = json.dumps({"enabled": True})
    stack = workspace.create_or_select(name)
    stack.values, stack.secret_keys = values, secret_keys
    stack.stack_outputs = {"kubeconfig": "apiVersion: v1\nkind: Config\n"}
    workspace.files[name] = ephemeral_settings.settings_text(TEMPLATE, None)  # as up wrote it
    workspace.events.clear()
    return stack


def test_check_prints_each_condition_and_names_every_failed_one():
    workspace, lines = FakeWorkspace(), []
    deployed_aks_stack(workspace)
    assert runner(workspace, objects={}, lines=lines).check("pr-1", TEMPLATE) == FAILED
    failed = [line for line in lines if line.startswith("FAILED")]
    assert [line.split(":")[0] for line in failed] == [
        "FAILED  AdmissionCheck cas-provisioning Active",
        "FAILED  ClusterQueue cas-cluster-queue Active",
        "FAILED  Job cas-kueue-demo/kueue-cas-job complete 3/3",
        "FAILED  Workload of Job cas-kueue-demo/kueue-cas-job admitted",
        "FAILED  ProvisioningRequest of Job cas-kueue-demo/kueue-cas-job Provisioned",
        "FAILED  Pods of Job cas-kueue-demo/kueue-cas-job ran on nodes of pool scalepool",
    ]
    assert lines[-1] == "0 of 6 conditions ok"
    assert "destroy pr-1" not in workspace.events


def test_check_reads_the_physical_names_an_ephemeral_stack_derives_from_its_own_name():
    workspace, lines = FakeWorkspace(), []
    stack = deployed_aks_stack(workspace, "org/pr-1")
    stack.values["elastic-capacity:environment"] = json.dumps({"kind": "ephemeral"})
    assert runner(workspace, objects={}, lines=lines).check("org/pr-1", TEMPLATE) == FAILED
    suffix = f"-{stack_digest('pr-1')}"  # the program sees pulumi.get_stack(), the name without its organization
    assert f"FAILED  ClusterQueue cas-cluster-queue{suffix} Active: does not exist" in lines


def test_check_of_a_full_ephemeral_stack_reads_both_halves():
    workspace, lines = FakeWorkspace(), []
    stack = deployed_aks_stack(workspace, "pr-2")
    _, stack.values, stack.secret_keys = render.read_stack_file(PROJECT_ROOT / "stacks/Pulumi.ephemeral.yaml")
    stack.stack_outputs = {"kubeconfig": "kc", "ackKubeconfigs": {"acs-pr": "kc"}}
    assert runner(workspace, objects={}, lines=lines).check("pr-2", TEMPLATE) == FAILED
    names = [line.split(":")[0] for line in lines if line.startswith("FAILED")]
    assert f"FAILED  ClusterQueue cas-cluster-queue-{stack_digest('pr-2')} Active" in names
    assert "FAILED  ACS acs-pr/default/web" in names and lines[-1] == "0 of 7 conditions ok"


def test_a_failed_check_with_destroy_on_failure_cleans_up():
    workspace = FakeWorkspace()
    deployed_aks_stack(workspace)
    assert runner(workspace, objects={}).check("pr-1", TEMPLATE, destroy_on_failure=True) == FAILED
    assert workspace.events[-2:] == ["destroy pr-1", "remove pr-1"] and workspace.stacks == {}


def test_a_passing_check_exits_zero(monkeypatch):
    workspace, lines = FakeWorkspace(), []
    deployed_aks_stack(workspace)
    passing = [Condition(name, True) for name in ("AdmissionCheck x Active", "ClusterQueue y Active")]
    monkeypatch.setattr(ephemeral, "check_all", lambda *args, **kwargs: passing)
    assert runner(workspace, lines=lines).check("pr-1", TEMPLATE, destroy_on_failure=True) == OK
    assert lines[-3:] == ["ok      AdmissionCheck x Active", "ok      ClusterQueue y Active", "2 of 2 conditions ok"]
    assert "destroy pr-1" not in workspace.events


def test_main_runs_up_check_and_down_on_the_given_stack(tmp_path, capsys):
    workspace = FakeWorkspace()
    template = write_template(tmp_path, TEMPLATE_FILE)
    assert main(["up", "--stack", "pr-7", "--template", template], workspace=workspace) == OK
    assert yaml_text.load(workspace.files["pr-7"]) == TEMPLATE_FILE
    assert main(["down", "--stack", "pr-7", "--template", template], workspace=workspace) == OK
    assert workspace.stacks == {}
    assert "ok      destroyed and removed stack pr-7" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "files", "message"),
    [
        (["check", "--stack", "pr-7"], {}, "stack pr-7 does not exist: run up first"),
        (["up", "--stack", "../etc"], {}, "'../etc' is not a stack name"),
        (["up", "--stack", "aks-kueue-dev"], {"aks-kueue-dev": AKS_STACK.read_text()}, "not an ephemeral stack"),
        (["down", "--stack", "multicloud"], {"multicloud": MULTICLOUD.read_text()}, "not an ephemeral stack"),
        (["up", "--stack", "pr-7", "--secret", "kubeconfig"], {}, "write KEY=ENV_VAR"),
    ],
)
def test_unusable_arguments_exit_2_and_change_nothing(tmp_path, capsys, argv, files, message):
    workspace = FakeWorkspace()
    workspace.files.update(files)
    assert main([*argv, "--template", write_template(tmp_path, TEMPLATE_FILE)], workspace=workspace) == NOTHING_DONE
    assert message in capsys.readouterr().err
    assert [e for e in workspace.events if not e.startswith("select")] == []


@pytest.mark.parametrize(
    ("document", "message"),
    [
        (None, "no template stack file"),
        ({"config": {"elastic-capacity:aks": {"location": "eastus2"}}}, "not an ephemeral template"),
        ({"config": {**TEMPLATE_FILE["config"], "elastic-capacity:aks": {"x": {"secure": "v1:y"}}}}, "inside"),
        ({"config": ["not", "a", "mapping"]}, "is not a Pulumi stack file"),
    ],
)
def test_an_unusable_template_is_refused_before_anything_is_created(tmp_path, capsys, document, message):
    workspace = FakeWorkspace()
    template = write_template(tmp_path, document) if document else str(tmp_path / "missing.yaml")
    assert main(["up", "--stack", "pr-7", "--template", template], workspace=workspace) == NOTHING_DONE
    assert message in capsys.readouterr().err and workspace.events == []


def test_up_sets_the_templates_secrets_on_the_stack_after_writing_its_file(tmp_path, monkeypatch, capsys):
    config = {**TEMPLATE_FILE["config"], "elastic-capacity:kubeconfig": {"secure": "v1:only-the-template-decrypts"}}
    workspace, shared = FakeWorkspace(), write_template(tmp_path, {"config": config})
    argv = ["up", "--stack", "pr-5", "--template", shared]
    assert main(argv, workspace=workspace) == NOTHING_DONE
    assert "elastic-capacity:kubeconfig needs a value" in capsys.readouterr().err and workspace.events == []
    monkeypatch.setenv("SHARED_KUBECONFIG", "apiVersion: v1")
    assert main([*argv, "--secret", "elastic-capacity:kubeconfig=SHARED_KUBECONFIG"], workspace=workspace) == OK
    assert workspace.events == [
        "create_or_select pr-5",
        "write_settings pr-5",
        "set_secret elastic-capacity:kubeconfig",
        "up pr-5",
    ]
    assert workspace.stacks["pr-5"].values["elastic-capacity:kubeconfig"] == "apiVersion: v1"
    assert "secure" not in workspace.files["pr-5"]


def test_no_real_cli_or_workspace_is_touched(tmp_path, monkeypatch):
    def refuse(*args: Any, **kwargs: Any):
        raise AssertionError("a real Pulumi workspace or process was started")

    for name in ("create_or_select_stack", "select_stack", "LocalWorkspace"):
        monkeypatch.setattr(f"pulumi.automation.{name}", refuse)
    monkeypatch.setattr(subprocess, "Popen", refuse)
    workspace, template = FakeWorkspace(), write_template(tmp_path, TEMPLATE_FILE)
    for argv in (["up"], ["check", "--timeout", "0"], ["down"]):
        main([*argv, "--stack", "pr-8", "--template", template], workspace=workspace)
    assert workspace.events[0] == "create_or_select pr-8" and workspace.stacks == {}
