"""The real :class:`~tools.ephemeral.Workspace` of the ephemeral runner: Pulumi's Automation API with this project as
a local program (``create_or_select_stack(stack_name=..., work_dir=<project root>)``), so the Pulumi CLI runs
``__main__.py`` in the project's virtualenv exactly as ``pulumi up`` would, and the smoke waiter's dynamic provider
is served as usual. ``pulumi.automation`` is imported only when a method runs: the runner's tests never touch it.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from components import yaml_text

PROJECT_ROOT = Path(__file__).resolve().parents[1]
Say = Callable[[str], None]


class SecretNotSet(Exception):
    """``pulumi config set --secret`` failed; the message holds its exit code and last stderr lines, never the
    value."""


class AutomationStack:
    """:class:`~tools.ephemeral.Stack` over an Automation API stack; outputs and secrets stay out of the log."""

    def __init__(self, stack: Any, policy_packs: tuple[str, ...] = ()) -> None:
        self.stack = stack
        self.policy_packs = policy_packs
        """Policy packs ``up`` runs, as deploy.yml's ``pulumi up --policy-pack``: a violation of a mandatory policy
        fails the update."""

    def up(self, on_output: Say) -> None:
        packs = {"policy_packs": list(self.policy_packs)} if self.policy_packs else {}
        self.stack.up(on_output=on_output, on_error=on_output, show_secrets=False, suppress_outputs=True, **packs)

    def destroy(self, on_output: Say) -> None:
        self.stack.destroy(on_output=on_output, on_error=on_output, show_secrets=False, suppress_outputs=True)

    def outputs(self) -> dict[str, Any]:
        return {key: output.value for key, output in self.stack.outputs().items()}

    def config(self) -> tuple[dict[str, Any], set[str]]:
        values = self.stack.get_all_config()
        return {key: v.value for key, v in values.items()}, {key for key, v in values.items() if v.secret}

    def set_secret(self, key: str, value: str) -> None:
        """``pulumi config set --secret --stack S -- KEY`` with the value on standard input. The SDK's
        ``set_config`` puts the value on the command line (``... -- <value>``), readable in ``/proc/<pid>/cmdline``
        by every user of a shared runner. With no value argument and stdin not a terminal, the CLI reads stdin and
        drops one trailing newline (``config set``'s ``RemoveTrailingNewline``), hence the one added. The command,
        working directory and environment are the ones the Automation API's ``PulumiCommand.run`` uses."""
        workspace = self.stack.workspace
        command = workspace.pulumi_command.command
        environment = {
            **os.environ,
            **({"PULUMI_HOME": workspace.pulumi_home} if workspace.pulumi_home else {}),
            **workspace.env_vars,
            "PULUMI_AUTOMATION_API": "true",
        }
        if os.path.isabs(command):  # as PulumiCommand.run: the plugins bundled next to that CLI come first
            environment["PATH"] = os.pathsep.join([os.path.dirname(command), environment.get("PATH", "")])
        argv = [command, "--non-interactive", "config", "set", "--secret", "--stack", self.stack.name, "--", key]
        result = subprocess.run(
            argv,
            input=value + "\n",
            capture_output=True,
            text=True,
            cwd=workspace.work_dir,
            env=environment,
            check=False,
        )
        if result.returncode != 0:
            last = [line.strip() for line in result.stderr.splitlines() if line.strip()][-3:]
            raise SecretNotSet(f"pulumi config set --secret {key} exited {result.returncode}: {' | '.join(last)}")


class AutomationWorkspace:
    """:class:`~tools.ephemeral.Workspace` over the Automation API; stack files live in ``stackConfigDir``."""

    def __init__(self, project_root: Path = PROJECT_ROOT, policy_packs: tuple[str, ...] = ()) -> None:
        self.root = project_root
        self.policy_packs = policy_packs
        project = yaml_text.load((project_root / "Pulumi.yaml").read_text()) or {}
        self.config_dir = project_root / str(project.get("stackConfigDir") or ".")

    def create_or_select(self, stack: str) -> AutomationStack:
        from pulumi import automation

        selected = automation.create_or_select_stack(stack_name=stack, work_dir=str(self.root))
        return AutomationStack(selected, self.policy_packs)

    def select(self, stack: str) -> AutomationStack | None:
        from pulumi import automation

        try:
            return AutomationStack(
                automation.select_stack(stack_name=stack, work_dir=str(self.root)), self.policy_packs
            )
        except automation.StackNotFoundError:
            return None

    def remove(self, stack: str) -> None:
        from pulumi import automation

        automation.LocalWorkspace(work_dir=str(self.root)).remove_stack(stack)

    def settings_path(self, stack: str) -> Path:
        return self.config_dir / f"Pulumi.{stack.rsplit('/', 1)[-1]}.yaml"

    def tracked(self, stack: str) -> bool:
        """Asks ``git ls-files`` (the index, so a file added but not committed counts too)."""
        path = self.settings_path(stack)
        try:
            listed = subprocess.run(
                ["git", "ls-files", "--", f":(literal){path.name}"],
                cwd=path.parent,
                capture_output=True,
                text=True,
                check=False,
            )
        except OSError:  # no git, or no stack config directory yet
            return False
        return listed.returncode == 0 and bool(listed.stdout.strip())

    def read_settings(self, stack: str) -> str | None:
        path = self.settings_path(stack)
        return path.read_text() if path.is_file() else None

    def write_settings(self, stack: str, text: str) -> None:
        path = self.settings_path(stack)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
