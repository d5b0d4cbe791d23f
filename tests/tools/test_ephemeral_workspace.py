"""The Automation API workspace of the ephemeral runner, against recording stand-ins: no Pulumi CLI runs."""

from __future__ import annotations

from typing import Any

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


def test_secrets_are_set_encrypted_with_the_stacks_own_key():
    calls = []
    stack = type("Double", (), {"set_config": lambda self, key, value: calls.append((key, value.value, value.secret))})
    ephemeral_workspace.AutomationStack(stack()).set_secret("elastic-capacity:kubeconfig", "kc")
    assert calls == [("elastic-capacity:kubeconfig", "kc", True)]
