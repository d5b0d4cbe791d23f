"""The Automation API workspace of the ephemeral runner, against recording stand-ins: no Pulumi CLI runs."""

from __future__ import annotations

import subprocess
from typing import Any

import pytest

from tools import ephemeral_workspace


class Recorder:
    """Stands in for ``pulumi.automation``: records the calls the real workspace makes, runs nothing."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.StackNotFoundError = type("StackNotFoundError", (Exception,), {})

    def create_or_select_stack(self, **kwargs: Any) -> str:
        self.calls.append(("create_or_select_stack", kwargs))
        return "stack"

    def select_stack(self, **kwargs: Any) -> str:
        self.calls.append(("select_stack", kwargs))
        raise self.StackNotFoundError(kwargs["stack_name"])


def test_the_real_workspace_uses_the_project_as_a_local_program(tmp_path, monkeypatch):
    recorder = Recorder()
    monkeypatch.setattr("pulumi.automation.create_or_select_stack", recorder.create_or_select_stack)
    monkeypatch.setattr("pulumi.automation.select_stack", recorder.select_stack)
    monkeypatch.setattr("pulumi.automation.StackNotFoundError", recorder.StackNotFoundError)
    (tmp_path / "Pulumi.yaml").write_text("name: elastic-capacity\nstackConfigDir: stacks\n")
    workspace = ephemeral_workspace.AutomationWorkspace(tmp_path)
    assert workspace.create_or_select("org/pr-3").stack == "stack"
    assert workspace.select("pr-4") is None
    assert recorder.calls == [
        ("create_or_select_stack", {"stack_name": "org/pr-3", "work_dir": str(tmp_path)}),
        ("select_stack", {"stack_name": "pr-4", "work_dir": str(tmp_path)}),
    ]
    workspace.write_settings("org/pr-3", "config: {}\n")
    assert (tmp_path / "stacks/Pulumi.pr-3.yaml").read_text() == workspace.read_settings("org/pr-3") == "config: {}\n"


class AutomationStackDouble:
    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def up(self, **kwargs: Any) -> None:
        self.calls.append(("up", kwargs))

    def destroy(self, **kwargs: Any) -> None:
        self.calls.append(("destroy", kwargs))

    def outputs(self) -> dict[str, Any]:
        return {"kubeconfig": type("OutputValue", (), {"value": "kc", "secret": True})()}

    def get_all_config(self) -> dict[str, Any]:
        value = type("ConfigValue", (), {"value": '{"a": 1}', "secret": False})()
        secret = type("ConfigValue", (), {"value": "kc", "secret": True})()
        return {"elastic-capacity:aks": value, "elastic-capacity:kubeconfig": secret}


def test_the_real_stack_keeps_secrets_and_outputs_out_of_the_log():
    double = AutomationStackDouble()
    stack = ephemeral_workspace.AutomationStack(double)
    stack.up(print)
    stack.destroy(print)
    for _, kwargs in double.calls:
        assert kwargs["show_secrets"] is False and kwargs["suppress_outputs"] is True
        assert kwargs["on_output"] is print
    assert stack.outputs() == {"kubeconfig": "kc"}
    assert stack.config() == (
        {"elastic-capacity:aks": '{"a": 1}', "elastic-capacity:kubeconfig": "kc"},
        {"elastic-capacity:kubeconfig"},
    )


def test_up_runs_the_policy_packs_it_is_given_and_destroy_none():
    """N9: the pull-request environments are checked against the mandatory policies, as deploy.yml's up is."""
    double = AutomationStackDouble()
    ephemeral_workspace.AutomationStack(double, ("/repo/policies",)).up(print)
    ephemeral_workspace.AutomationStack(double, ("/repo/policies",)).destroy(print)
    assert double.calls[0][1]["policy_packs"] == ["/repo/policies"]
    assert "policy_packs" not in double.calls[1][1]
    ephemeral_workspace.AutomationStack(double).up(print)
    assert "policy_packs" not in double.calls[2][1], "no pack asked for: the SDK's own default"


def test_the_cli_hands_each_policy_pack_to_the_workspace_as_an_absolute_path():
    from tools import ephemeral

    args = ephemeral.build_parser().parse_args(["up", "--stack", "pr-1", "--policy-pack", "policies"])
    assert args.policy_pack == ["policies"]


KEY = "elastic-capacity:kubeconfig"
KUBECONFIG = "apiVersion: v1\nkind: Config\nusers:\n- name: u\n  user: {token: s3cr3t-t0ken}\n"
FAKE_CLI = """#!/bin/sh
# Stands in for the Pulumi CLI: records what it was given, as `pulumi config set` would receive it.
printf '%s\\n' "$@" > "$RECORD/argv"
cat > "$RECORD/stdin"
pwd > "$RECORD/cwd"
printf '%s %s %s\\n' "$PULUMI_AUTOMATION_API" "$PULUMI_HOME" "$EXTRA" > "$RECORD/env"
if [ -n "$FAIL" ]; then printf 'warning: something\\nerror: no stack named pr-5 found\\n' >&2; exit 255; fi
"""


def automation_stack(tmp_path, **env_vars: str) -> ephemeral_workspace.AutomationStack:
    """A real ``LocalWorkspace`` whose ``PulumiCommand`` is a recording script instead of the CLI."""
    from pulumi import automation

    cli = tmp_path / "bin" / "pulumi"
    cli.parent.mkdir()
    cli.write_text(FAKE_CLI)
    cli.chmod(0o700)
    command = automation.PulumiCommand.__new__(automation.PulumiCommand)  # its __init__ runs `pulumi version`
    command.command, command.version = str(cli), None
    (tmp_path / "project").mkdir()
    workspace = automation.LocalWorkspace(
        work_dir=str(tmp_path / "project"),
        pulumi_home=str(tmp_path / "home"),
        env_vars={"RECORD": str(tmp_path), **env_vars},
        pulumi_command=command,
    )
    return ephemeral_workspace.AutomationStack(type("Stack", (), {"name": "org/pr-5", "workspace": workspace})())


def test_a_secret_goes_to_the_cli_on_stdin_never_on_its_command_line(tmp_path):
    automation_stack(tmp_path, EXTRA="from-env_vars").set_secret(KEY, KUBECONFIG)
    argv = (tmp_path / "argv").read_text().splitlines()
    assert argv == ["--non-interactive", "config", "set", "--secret", "--stack", "org/pr-5", "--", KEY]
    assert "s3cr3t" not in (tmp_path / "argv").read_text()
    assert (tmp_path / "stdin").read_text() == KUBECONFIG + "\n"  # the CLI drops exactly one trailing newline
    assert (tmp_path / "cwd").read_text().strip() == str(tmp_path / "project")
    assert (tmp_path / "env").read_text().split() == ["true", str(tmp_path / "home"), "from-env_vars"]


def test_no_process_is_given_the_secret_in_its_arguments(monkeypatch, tmp_path):
    calls: list[tuple[list[str], str]] = []

    def run(argv: list[str], *, input: str, **kwargs: Any):
        calls.append((argv, input))
        return subprocess.CompletedProcess(argv, 0, "", "")

    monkeypatch.setattr(ephemeral_workspace.subprocess, "run", run)
    automation_stack(tmp_path).set_secret(KEY, KUBECONFIG)
    [(argv, stdin)] = calls
    assert argv[-2:] == ["--", KEY] and stdin == KUBECONFIG + "\n"
    assert not any("s3cr3t" in arg for arg in argv)


def test_a_failed_config_set_names_the_key_and_the_cli_error_but_not_the_value(tmp_path):
    with pytest.raises(ephemeral_workspace.SecretNotSet) as raised:
        automation_stack(tmp_path, FAIL="1").set_secret(KEY, KUBECONFIG)
    assert str(raised.value) == (
        "pulumi config set --secret elastic-capacity:kubeconfig exited 255: "
        "warning: something | error: no stack named pr-5 found"
    )


def test_git_tracks_nothing_outside_a_checkout(tmp_path):
    (tmp_path / "Pulumi.yaml").write_text("name: elastic-capacity\nstackConfigDir: stacks\n")
    workspace = ephemeral_workspace.AutomationWorkspace(tmp_path)
    assert workspace.tracked("pr-1") is False  # no stacks/ directory yet
    workspace.write_settings("pr-1", "config: {}\n")
    assert workspace.tracked("pr-1") is False  # not a git repository
    assert workspace.settings_path("org/pr-1") == tmp_path / "stacks/Pulumi.pr-1.yaml"
