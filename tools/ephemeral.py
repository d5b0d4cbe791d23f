"""Ephemeral environments: create a stack from a template, prove it works, and remove it again.

    python -m tools.ephemeral up    --stack pr-42 [--template stacks/Pulumi.ephemeral.yaml]
                                    [--secret KEY=ENV_VAR ...] [--policy-pack DIR ...] [--destroy-on-failure]
                                    [--destroy-attempts 2]
    python -m tools.ephemeral check --stack pr-42 [--template stacks/Pulumi.ephemeral.yaml] [--timeout 900]
                                    [--interval 15] [--destroy-on-failure] [--destroy-attempts 2]
    python -m tools.ephemeral down  --stack pr-42 [--template stacks/Pulumi.ephemeral.yaml] [--destroy-attempts 2]

``up`` creates or selects the stack through Pulumi's Automation API with this project as a local program, writes
the template's ``config`` (and ESC ``environment``) into the stack's settings file, sets each ``--secret`` KEY as a
secret of the stack (a template's own ``secure:`` values only decrypt in the template's stack, so each must be given),
and deploys with progress output. ``check`` runs the verification steps of :mod:`tools.ephemeral_checks` against the
stack's kubeconfig outputs and prints one line per condition; with ``multiKueue.smokeJob.enabled`` it first submits the
burst smoke Job to the MultiKueue manager (the one object it writes). ``down`` destroys the stack and removes it. With
``--destroy-on-failure`` a failed ``up`` or ``check`` is followed by ``down``.

Only stacks of ``environment.kind: ephemeral`` are handled. ``up`` writes the stack's settings file and ``down`` (also
after ``--destroy-on-failure``) deletes it with ``pulumi stack rm``, so both refuse a stack whose settings file is the
``--template``, is tracked by git, or exists without the first line ``up`` writes (``up`` also accepts a file holding
only what ``pulumi stack init`` writes). ``check`` alone may read any ephemeral stack, a template's included.

Exit codes: 0 success; 1 failed (after the clean-up, when asked for, or with the stack's resources destroyed);
2 nothing was done: unusable arguments, a refused stack, or a failure before the stack was created or changed (the
Pulumi CLI is missing, the backend cannot be reached); 3 failed, and the stack's resources may remain (``destroy``
failed, or a clean-up could not start).

The orchestration (:class:`Runner`) talks to a :class:`Workspace` and a cluster reader only through the protocols
below, so tests drive it with fakes; :class:`AutomationWorkspace` is the real one (it needs the Pulumi CLI).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal, Protocol

from components.config.loader import load_stack_config
from components.waiters.kube_wait import Cluster
from tools.ephemeral_burst import RestWriter
from tools.ephemeral_checks import check_all, plan_checks
from tools.ephemeral_settings import (
    HEADER,
    Template,
    UsageError,
    load_template,
    refuse_unless_ephemeral,
    refuse_unless_written_here,
    settings_text,
    written_here,
)
from tools.ephemeral_workspace import AutomationWorkspace

PROJECT_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_TEMPLATE = Path("stacks/Pulumi.ephemeral.yaml")
EXIT_CODES = " ".join(next(p for p in (__doc__ or "").split("\n\n") if p.startswith("Exit codes:")).split())
"""The exit-code paragraph above, the epilog of every ``--help``."""
STDERR_LINES = 3
"""How many of a failed CLI command's last output lines a failure line quotes (the rest was streamed already)."""

OK, FAILED, NOTHING_DONE, RESOURCES_MAY_REMAIN = 0, 1, 2, 3
Say = Callable[[str], None]


class Stack(Protocol):
    """One Pulumi stack of the project."""

    def up(self, on_output: Say) -> None: ...

    def destroy(self, on_output: Say) -> None: ...

    def outputs(self) -> dict[str, Any]:
        """Every stack output's plain value, secrets included."""
        ...

    def config(self) -> tuple[dict[str, Any], set[str]]:
        """The stack's config values (structured ones as JSON strings, as ``pulumi config --json`` gives them) and
        the keys that are secret."""
        ...

    def set_secret(self, key: str, value: str) -> None:
        """Set a config value as a secret, encrypted with the stack's own key; the value never goes on a command
        line."""
        ...


class Workspace(Protocol):
    """The project's stacks and their settings files."""

    def create_or_select(self, stack: str) -> Stack: ...

    def select(self, stack: str) -> Stack | None:
        """The stack, or ``None`` when it does not exist."""
        ...

    def remove(self, stack: str) -> None: ...

    def settings_path(self, stack: str) -> Path:
        """The stack's settings file, ``<stackConfigDir>/Pulumi.<stack>.yaml``, whether or not it exists."""
        ...

    def tracked(self, stack: str) -> bool:
        """Whether git tracks the stack's settings file; ``False`` when git cannot tell (no git, no checkout)."""
        ...

    def read_settings(self, stack: str) -> str | None:
        """The text of the stack's settings file, or ``None`` when there is none."""
        ...

    def write_settings(self, stack: str, text: str) -> None: ...


def describe(error: BaseException) -> str:
    """One line for a failure. A CLI error's message is its whole CommandResult (``code``, ``stdout``, ``stderr``),
    which was streamed already: only its exit code and last lines are kept."""
    if isinstance(error, FileNotFoundError) and Path(str(error.filename)).name == "pulumi":
        return "the Pulumi CLI is not installed or not on PATH (https://www.pulumi.com/docs/iac/download-install/)"
    text = str(error)
    result = re.fullmatch(r"\s*code: (-?\d+)\n stdout: (.*)\n stderr: (.*)", text, re.DOTALL)
    if result:
        code, stdout, stderr = result.groups()
        lines = [line.strip() for line in (stderr.strip() or stdout).splitlines() if line.strip()]
        return f"{type(error).__name__} (exit {code}): {' | '.join(lines[-STDERR_LINES:]) or 'no output'}"
    return f"{type(error).__name__}: {' '.join(text.split())}"


def _print(line: str) -> None:
    print(line, flush=True)


@dataclasses.dataclass
class Runner:
    """``up``, ``check`` and ``down`` over injected collaborators; every method returns the exit code."""

    workspace: Workspace
    connect: Callable[[str], Cluster]
    say: Say = _print
    check_timeout_seconds: float = 900.0
    poll_options: dict[str, Any] = dataclasses.field(default_factory=dict)
    destroy_attempts: int = 2
    """``destroy`` is tried this often: ACK's vSwitches can stay held by ENIs for minutes after a cluster is gone."""

    def _guard(
        self, stack: str, template: Template | None = None, *, settings: Literal["read", "overwrite", "delete"]
    ) -> None:
        """Every command's refusals; more for one that overwrites (``up``) or deletes (``down``) the settings file."""
        path, text = self.workspace.settings_path(stack), self.workspace.read_settings(stack)
        refuse_unless_ephemeral(stack, path, text)
        if settings != "read":
            tracked = self.workspace.tracked(stack)
            creating = settings == "overwrite"
            refuse_unless_written_here(stack, path, text, tracked=tracked, template=template, creating=creating)

    def up(
        self,
        stack: str,
        template: Template,
        *,
        secrets: Mapping[str, str] | None = None,
        destroy_on_failure: bool = False,
    ) -> int:
        """Create or select ``stack``, give it the template's config and ``secrets`` (every ``--secret``; the
        template's secure keys must be among them), deploy it."""
        self._guard(stack, template, settings="overwrite")
        secrets = dict(secrets or {})
        missing = [key for key in template.secret_keys if not secrets.get(key)]
        if missing:
            raise UsageError(f"the template's secret {', '.join(missing)} needs a value: --secret KEY=ENV_VAR")
        self.say(f"== up {stack}")
        try:
            handle = self.workspace.create_or_select(stack)
        except Exception as error:  # no CLI, no backend: nothing exists that a clean-up could remove
            self.say(f"FAILED  create or select stack {stack}: {describe(error)}")
            return NOTHING_DONE
        try:
            self.workspace.write_settings(stack, settings_text(template, self.workspace.read_settings(stack)))
            try:
                for key, value in secrets.items():
                    handle.set_secret(key, value)
                handle.up(self.say)
            finally:
                self._keep_header(stack)
        except Exception as error:
            self.say(f"FAILED  up {stack}: {describe(error)}")
            return self._after_failure(stack, template, destroy_on_failure)
        self.say(f"ok      up {stack}")
        return OK

    def _keep_header(self, stack: str) -> None:
        """``pulumi config set`` and ``pulumi up`` rewrite the settings file; should a CLI version drop its first
        comment, put :data:`HEADER` back, or ``down`` would refuse the file."""
        text = self.workspace.read_settings(stack)
        if text is not None and not written_here(text):
            self.workspace.write_settings(stack, f"{HEADER}\n{text}")

    def check(self, stack: str, template: Template | None, *, destroy_on_failure: bool = False) -> int:
        self._guard(stack, template, settings="delete" if destroy_on_failure else "read")
        try:
            handle = self.workspace.select(stack)
        except Exception as error:
            self.say(f"FAILED  select stack {stack}: {describe(error)}")
            return NOTHING_DONE
        if handle is None:
            raise UsageError(f"stack {stack} does not exist: run up first")
        self.say(f"== check {stack}")
        try:
            values, secret_keys = handle.config()
            config = load_stack_config(values, secret_keys, stack=stack.rsplit("/", 1)[-1])  # as pulumi.get_stack()
            plans = plan_checks(config, handle.outputs())
        except Exception as error:  # a ConfigError, or the backend
            self.say(f"FAILED  read stack {stack}: {describe(error)}")
            return self._after_failure(stack, template, destroy_on_failure)
        conditions = check_all(plans, self.connect, self.check_timeout_seconds, **self.poll_options)
        for condition in conditions:
            self.say(condition.line())
        failed = [c for c in conditions if not c.ok]
        self.say(f"{len(conditions) - len(failed)} of {len(conditions)} conditions ok")
        return self._after_failure(stack, template, destroy_on_failure) if failed else OK

    def down(self, stack: str, template: Template | None = None) -> int:
        self._guard(stack, template, settings="delete")
        self.say(f"== down {stack}")
        return self._tear_down(stack, template)

    def _after_failure(self, stack: str, template: Template | None, destroy_on_failure: bool) -> int:
        if not destroy_on_failure:
            return FAILED
        self.say(f"== down {stack} (--destroy-on-failure)")
        return FAILED if self._tear_down(stack, template) in (OK, FAILED) else RESOURCES_MAY_REMAIN

    def _tear_down(self, stack: str, template: Template | None) -> int:
        """Destroy (retried) and remove the stack; keep it, so its resources stay tracked, when destroy fails.
        The exit code of ``down``: 1 when only the removal failed (the resources are gone)."""
        try:
            handle = self.workspace.select(stack)
            if handle is None:
                self.say(f"ok      stack {stack} does not exist: nothing to destroy")
                return OK
            existing = self.workspace.read_settings(stack)
            if existing is None and template is not None:  # a fresh checkout: give destroy the template's ESC imports
                self.workspace.write_settings(stack, settings_text(template, None))
        except Exception as error:
            self.say(f"FAILED  select stack {stack}: {describe(error)}")
            return NOTHING_DONE
        for attempt in range(1, self.destroy_attempts + 1):
            try:
                handle.destroy(self.say)
                break
            except Exception as error:
                self.say(f"FAILED  destroy {stack} (attempt {attempt}/{self.destroy_attempts}): {describe(error)}")
        else:
            self.say(f"kept stack {stack}: its resources are still tracked there; run down again")
            return RESOURCES_MAY_REMAIN
        try:
            self.workspace.remove(stack)
        except Exception as error:
            self.say(f"FAILED  remove {stack} (its resources are destroyed): {describe(error)}")
            return FAILED
        self.say(f"ok      destroyed and removed stack {stack}")
        return OK


def build_parser() -> argparse.ArgumentParser:
    """One subcommand each, with exactly the flags it reads (the module docstring's usage lists the same)."""
    stack = argparse.ArgumentParser(add_help=False)
    stack.add_argument("--stack", required=True, help="the ephemeral stack, e.g. pr-42 (or org/pr-42)")
    stack.add_argument(
        "--template",
        type=Path,
        default=DEFAULT_TEMPLATE,
        help="the ephemeral template stack file (relative to the project) whose config and ESC imports the stack "
        "copies; no stack may use it as its own settings file (default: %(default)s)",
    )
    cleanup = argparse.ArgumentParser(add_help=False)
    cleanup.add_argument(
        "--destroy-attempts",
        type=int,
        default=2,
        choices=range(1, 6),
        metavar="{1..5}",
        help="how often destroy is tried, by down and by --destroy-on-failure (default: %(default)s)",
    )
    on_failure = argparse.ArgumentParser(add_help=False)
    on_failure.add_argument("--destroy-on-failure", action="store_true", help="run down after a failure")
    parser = argparse.ArgumentParser(
        prog="python -m tools.ephemeral",
        description=(__doc__ or "").split("\n\n")[0],
        epilog=EXIT_CODES,
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="{up,check,down}")
    up = commands.add_parser(
        "up", parents=[stack, on_failure, cleanup], help="create or update and deploy the stack", epilog=EXIT_CODES
    )
    up.add_argument(
        "--policy-pack",
        action="append",
        default=[],
        metavar="DIR",
        help="run this policy pack (a directory) with the update, as deploy.yml does; may be repeated",
    )
    up.add_argument(
        "--secret",
        action="append",
        default=[],
        metavar="KEY=ENV_VAR",
        help="set config KEY as a secret of the stack, read from the environment variable ENV_VAR (passed to the "
        "Pulumi CLI on standard input); every secure: key of the template needs one; repeatable",
    )
    check = commands.add_parser(
        "check", parents=[stack, on_failure, cleanup], help="verify the deployed stack", epilog=EXIT_CODES
    )
    check.add_argument(
        "--timeout", type=float, default=900.0, help="seconds to wait per cluster (default: %(default)s)"
    )
    check.add_argument(
        "--interval", type=float, default=15.0, help="seconds between two reads of a cluster (default: %(default)s)"
    )
    commands.add_parser("down", parents=[stack, cleanup], help="destroy and remove the stack", epilog=EXIT_CODES)
    return parser


def main(
    argv: list[str] | None = None,
    *,
    workspace: Workspace | None = None,
    connect: Callable[[str], Cluster] = RestWriter,
) -> int:
    """Run one command; ``workspace`` and ``connect`` default to the real Automation API and Kubernetes client (one
    that may also submit the burst smoke Job)."""
    args = build_parser().parse_args(argv)
    packs = tuple(str(Path(pack).resolve()) for pack in getattr(args, "policy_pack", []))
    runner = Runner(
        workspace or AutomationWorkspace(policy_packs=packs), connect, destroy_attempts=args.destroy_attempts
    )
    path = args.template if args.template.is_absolute() else PROJECT_ROOT / args.template
    try:
        if args.command == "down":  # destroy needs no template; the stack's ESC imports come from it when at hand
            return runner.down(args.stack, load_template(path) if path.is_file() else None)
        template = load_template(path)
        if args.command == "up":
            secrets = secrets_from_environment(args.secret, os.environ, template, runner.say)
            return runner.up(args.stack, template, secrets=secrets, destroy_on_failure=args.destroy_on_failure)
        runner.check_timeout_seconds, runner.poll_options = args.timeout, {"interval_seconds": args.interval}
        return runner.check(args.stack, template, destroy_on_failure=args.destroy_on_failure)
    except UsageError as error:
        print(f"error: {error}", file=sys.stderr)
        return NOTHING_DONE


def secrets_from_environment(
    pairs: list[str], environ: Mapping[str, str], template: Template, say: Say
) -> dict[str, str]:
    """``KEY=ENV_VAR`` pairs -> ``{KEY: value of ENV_VAR}``. An unset or empty variable gives no value: ``up`` then
    refuses a key of the template's, and leaves any other unset (said on one line)."""
    secrets = {}
    for pair in pairs:
        key, _, variable = pair.partition("=")
        if not key or not variable:
            raise UsageError(
                f"--secret {pair!r}: write KEY=ENV_VAR, e.g. elastic-capacity:kubeconfig=SHARED_KUBECONFIG"
            )
        if environ.get(variable):
            secrets[key] = environ[variable]
        elif key not in template.secret_keys:
            say(f"note    --secret {key}: {variable} is unset or empty, so {key} is not set")
    return secrets


if __name__ == "__main__":
    sys.exit(main())
