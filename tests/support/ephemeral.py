"""Fakes of the ephemeral runner's collaborators: a workspace of stacks and settings files in memory, and a template."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from components import yaml_text
from tests.support.fakes import FakeClock, FakeCluster
from tools import ephemeral
from tools.ephemeral import Runner, Template

TEMPLATE_FILE = {
    "config": {"elastic-capacity:environment": {"kind": "ephemeral"}, "elastic-capacity:aks": {"location": "eastus2"}},
    "environment": ["elastic-capacity/ci"],
}
TEMPLATE = Template(TEMPLATE_FILE)


class FakeStack:
    def __init__(self, workspace: FakeWorkspace, name: str) -> None:
        self.workspace, self.name = workspace, name
        self.up_error: Exception | None = None
        self.destroy_errors: list[Exception] = []
        self.stack_outputs: dict[str, Any] = {}
        self.values: dict[str, Any] = {}
        self.secret_keys: set[str] = set()

    def up(self, on_output) -> None:
        self.workspace.events.append(f"up {self.name}")
        on_output("+ creating resources")
        if self.up_error:
            raise self.up_error

    def destroy(self, on_output) -> None:
        self.workspace.events.append(f"destroy {self.name}")
        if self.destroy_errors:
            raise self.destroy_errors.pop(0)

    def outputs(self) -> dict[str, Any]:
        return self.stack_outputs

    def config(self) -> tuple[dict[str, Any], set[str]]:
        return self.values, self.secret_keys

    def set_secret(self, key: str, value: str) -> None:
        self.workspace.events.append(f"set_secret {key}")
        self.values[key], self.secret_keys = value, self.secret_keys | {key}
        if self.workspace.cli_drops_comments and self.name in self.workspace.files:
            self.workspace.files[self.name] = yaml_text.dump(
                yaml_text.load(self.workspace.files[self.name]), sort_keys=True
            )


class FakeWorkspace:
    """Stacks and stack files in memory; ``pulumi stack rm`` also deletes the stack's file, as the CLI does."""

    STACKS_DIR = Path("/checkout/stacks")

    def __init__(self) -> None:
        self.stacks: dict[str, FakeStack] = {}
        self.files: dict[str, str] = {}
        self.tracked_files: set[str] = set()
        self.events: list[str] = []
        self.cli_drops_comments = False

    def create_or_select(self, stack: str) -> FakeStack:
        self.events.append(f"create_or_select {stack}")
        return self.stacks.setdefault(stack, FakeStack(self, stack))

    def select(self, stack: str) -> FakeStack | None:
        self.events.append(f"select {stack}")
        return self.stacks.get(stack)

    def remove(self, stack: str) -> None:
        self.events.append(f"remove {stack}")
        del self.stacks[stack]
        self.files.pop(stack, None)

    def settings_path(self, stack: str) -> Path:
        return self.STACKS_DIR / f"Pulumi.{stack.rsplit('/', 1)[-1]}.yaml"

    def tracked(self, stack: str) -> bool:
        return stack in self.tracked_files

    def read_settings(self, stack: str) -> str | None:
        return self.files.get(stack)

    def write_settings(self, stack: str, text: str) -> None:
        self.events.append(f"write_settings {stack}")
        self.files[stack] = text


def runner(
    workspace: ephemeral.Workspace, objects: dict[str, Any] | None = None, lines: list[str] | None = None
) -> Runner:
    clock = FakeClock()
    return Runner(
        workspace,
        lambda kubeconfig: FakeCluster(objects or {}),
        say=(lines if lines is not None else []).append,
        check_timeout_seconds=30,
        poll_options={"clock": clock, "sleep": clock.sleep},
    )


def write_template(tmp_path, document: dict[str, Any]):
    path = tmp_path / "Pulumi.ephemeral.yaml"
    path.write_text(yaml_text.dump(document, sort_keys=True))
    return str(path)
