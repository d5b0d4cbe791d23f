"""Ephemeral environments: create a stack from a template, prove it works, and remove it again.

    python -m tools.ephemeral up    --stack pr-42 [--template stacks/Pulumi.ephemeral.yaml] [--destroy-on-failure]
                                    [--secret elastic-capacity:kubeconfig=SHARED_KUBECONFIG]
    python -m tools.ephemeral check --stack pr-42 [--timeout 900] [--destroy-on-failure]
    python -m tools.ephemeral down  --stack pr-42

``up`` creates or selects the stack through Pulumi's Automation API with this project as a local program, writes
the template's ``config`` (and ESC ``environment``) into the stack's settings file, sets the template's ``secure:``
keys from ``--secret`` (a template's ciphertext only decrypts in the template's own stack), and deploys with progress
output. ``check`` runs the verification steps of :mod:`tools.ephemeral_checks` against the stack's kubeconfig
outputs and prints one line per condition; with ``multiKueue.smokeJob.enabled`` it first submits the burst smoke Job
to the MultiKueue manager (the one object it writes). ``down`` destroys the stack and removes it. With
``--destroy-on-failure`` a failed ``up`` or ``check`` is followed by ``down``. Only stacks of
``environment.kind: ephemeral`` are handled, so a long-lived stack is never overwritten or destroyed.

Exit codes: 0 success; 1 ``up``, a check or ``down`` failed (after a clean-up, when asked for); 2 nothing was done:
unusable arguments (a bad stack name, a missing or non-ephemeral template, a secret without a value, a stack that is
not ephemeral, no such stack for ``check``); 3 failed, and the clean-up failed too, so cloud resources may remain.

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
from typing import Any, Protocol

import yaml

from components.config.stack import load_stack_config
from components.kube_wait import Cluster
from tools.ephemeral_burst import RestWriter
from tools.ephemeral_checks import check_all, plan_checks
from tools.ephemeral_workspace import AutomationWorkspace

PROJECT_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_TEMPLATE = Path("stacks/Pulumi.ephemeral.yaml")
HEADER = "# Written by `python -m tools.ephemeral` from a template; `down` removes the stack and this file."
ENVIRONMENT_KEY = "elastic-capacity:environment"
"""The section whose ``kind: ephemeral`` marks a stack (and a template) as a pull request's: the only ones handled."""
KEPT_SETTINGS = ("secretsprovider", "encryptedkey", "encryptionsalt")
"""Per-stack secrets settings written by ``pulumi stack init``: the stack's own, never the template's."""
COPIED_SETTINGS = ("config", "environment")
"""What a template hands an ephemeral stack: its configuration and the Pulumi ESC environments it imports."""
STACK_NAME = re.compile(r"^(?:[A-Za-z0-9][A-Za-z0-9_.-]*/){0,2}[A-Za-z0-9_.-]+$")
"""``name``, ``org/name`` or ``org/project/name``, as ``pulumi stack init`` accepts them."""

OK, FAILED, USAGE, CLEANUP_FAILED = 0, 1, 2, 3
Say = Callable[[str], None]


class UsageError(Exception):
    """Arguments this tool cannot act on; nothing was changed."""


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
        """Set a config value as a secret, encrypted with the stack's own key."""
        ...


class Workspace(Protocol):
    """The project's stacks and their settings files."""

    def create_or_select(self, stack: str) -> Stack: ...

    def select(self, stack: str) -> Stack | None:
        """The stack, or ``None`` when it does not exist."""
        ...

    def remove(self, stack: str) -> None: ...

    def read_settings(self, stack: str) -> str | None:
        """The text of the stack's settings file (``Pulumi.<stack>.yaml``), or ``None`` when there is none."""
        ...

    def write_settings(self, stack: str, text: str) -> None: ...


@dataclasses.dataclass(frozen=True)
class Template:
    """What an ephemeral stack copies from its template stack file."""

    settings: dict[str, Any]
    """The template's ``config`` (less its ``secure:`` values) and ``environment`` (its Pulumi ESC imports)."""
    secret_keys: tuple[str, ...] = ()
    """Config keys whose ``secure:`` values only the template's own key decrypts: each stack sets them anew."""


def load_template(path: Path) -> Template:
    """Read an ephemeral template; :class:`UsageError` when it is not one this tool can use."""
    if not path.is_file():
        raise UsageError(f"no template stack file at {path}")
    document = yaml.safe_load(path.read_text()) or {}
    config = document.get("config") if isinstance(document, dict) else None
    if not isinstance(config, dict):
        raise UsageError(f"{path} is not a Pulumi stack file (a mapping with a config: mapping)")
    if not _is_ephemeral_config(config):
        raise UsageError(f"{path} is not an ephemeral template: set {ENVIRONMENT_KEY}.kind: ephemeral")
    secret_keys = tuple(key for key, value in config.items() if _is_secure(value))
    nested = sorted(key for key, value in config.items() if key not in secret_keys and _holds_secure(value))
    if nested:
        raise UsageError(f"{path} has secure: values inside {', '.join(nested)}: make each secret a key of its own")
    settings = {key: document[key] for key in COPIED_SETTINGS if key in document}
    settings["config"] = {key: value for key, value in config.items() if key not in secret_keys}
    return Template(settings, secret_keys)


def _is_secure(value: Any) -> bool:
    return isinstance(value, dict) and set(value) == {"secure"}


def _holds_secure(value: Any) -> bool:
    if isinstance(value, dict):
        return _is_secure(value) or any(_holds_secure(v) for v in value.values())
    return isinstance(value, list) and any(_holds_secure(v) for v in value)


def _is_ephemeral_config(config: Mapping[str, Any]) -> bool:
    environment = config.get(ENVIRONMENT_KEY)
    return isinstance(environment, dict) and environment.get("kind") == "ephemeral"


def settings_text(template: Template, existing: str | None) -> str:
    """The ephemeral stack's settings file: the template's config, the stack's own secrets settings."""
    kept = yaml.safe_load(existing or "") or {}
    document = {key: kept[key] for key in KEPT_SETTINGS if key in kept}
    document.update(template.settings)
    return f"{HEADER}\n{yaml.safe_dump(document, sort_keys=False)}"


def is_ephemeral(text: str | None) -> bool:
    """Whether a stack may be handled here: no stack file, one that holds only what ``pulumi stack init`` writes, or
    one of ``environment.kind: ephemeral``. Never a long-lived (``dev``, ``production``) stack."""
    if text is None:
        return True
    document = yaml.safe_load(text)
    if not isinstance(document, dict):
        return False
    return set(document) <= set(KEPT_SETTINGS) or _is_ephemeral_config(document.get("config") or {})


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

    def _guard(self, stack: str) -> None:
        if not STACK_NAME.match(stack):
            raise UsageError(f"{stack!r} is not a stack name ([org/[project/]]name of letters, digits, _ . -)")
        if not is_ephemeral(self.workspace.read_settings(stack)):
            raise UsageError(
                f"stack {stack} is not an ephemeral stack: its stack file's {ENVIRONMENT_KEY}.kind is not ephemeral"
            )

    def up(
        self,
        stack: str,
        template: Template,
        *,
        secrets: Mapping[str, str] | None = None,
        destroy_on_failure: bool = False,
    ) -> int:
        """Create or select ``stack``, give it the template's config and ``secrets`` (the template's secure keys),
        deploy it."""
        self._guard(stack)
        missing = [key for key in template.secret_keys if not (secrets or {}).get(key)]
        if missing:
            raise UsageError(f"the template's secret {', '.join(missing)} needs a value: --secret KEY=ENV_VAR")
        self.say(f"== up {stack}")
        try:
            handle = self.workspace.create_or_select(stack)
            self.workspace.write_settings(stack, settings_text(template, self.workspace.read_settings(stack)))
            for key in template.secret_keys:
                handle.set_secret(key, (secrets or {})[key])
            handle.up(self.say)
        except Exception as error:
            self.say(f"FAILED  up {stack}: {type(error).__name__}: {error}")
            return self._after_failure(stack, template, destroy_on_failure)
        self.say(f"ok      up {stack}")
        return OK

    def check(self, stack: str, template: Template | None, *, destroy_on_failure: bool = False) -> int:
        self._guard(stack)
        handle = self.workspace.select(stack)
        if handle is None:
            raise UsageError(f"stack {stack} does not exist: run up first")
        self.say(f"== check {stack}")
        try:
            values, secret_keys = handle.config()
            config = load_stack_config(values, secret_keys, stack=stack.rsplit("/", 1)[-1])  # as pulumi.get_stack()
            plans = plan_checks(config, handle.outputs())
        except Exception as error:  # a ConfigError, or the backend
            self.say(f"FAILED  read stack {stack}: {type(error).__name__}: {error}")
            return self._after_failure(stack, template, destroy_on_failure)
        conditions = check_all(plans, self.connect, self.check_timeout_seconds, **self.poll_options)
        for condition in conditions:
            self.say(condition.line())
        failed = [c for c in conditions if not c.ok]
        self.say(f"{len(conditions) - len(failed)} of {len(conditions)} conditions ok")
        return self._after_failure(stack, template, destroy_on_failure) if failed else OK

    def down(self, stack: str, template: Template | None = None) -> int:
        self._guard(stack)
        self.say(f"== down {stack}")
        return OK if self._tear_down(stack, template) else FAILED

    def _after_failure(self, stack: str, template: Template | None, destroy_on_failure: bool) -> int:
        if not destroy_on_failure:
            return FAILED
        self.say(f"== down {stack} (--destroy-on-failure)")
        return FAILED if self._tear_down(stack, template) else CLEANUP_FAILED

    def _tear_down(self, stack: str, template: Template | None) -> bool:
        """Destroy (retried) and remove the stack; keep it, so its resources stay tracked, when destroy fails."""
        try:
            handle = self.workspace.select(stack)
            if handle is None:
                self.say(f"ok      stack {stack} does not exist: nothing to destroy")
                return True
            existing = self.workspace.read_settings(stack)
            if existing is None and template is not None:  # a fresh checkout: give destroy the template's ESC imports
                self.workspace.write_settings(stack, settings_text(template, None))
        except Exception as error:
            self.say(f"FAILED  select {stack}: {type(error).__name__}: {error}")
            return False
        for attempt in range(1, self.destroy_attempts + 1):
            try:
                handle.destroy(self.say)
                break
            except Exception as error:
                self.say(f"FAILED  destroy {stack} (attempt {attempt}/{self.destroy_attempts}): {error}")
        else:
            self.say(f"kept stack {stack}: its resources are still tracked there; run down again")
            return False
        try:
            self.workspace.remove(stack)
        except Exception as error:
            self.say(f"FAILED  remove {stack} (its resources are destroyed): {error}")
            return False
        self.say(f"ok      destroyed and removed stack {stack}")
        return True


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tools.ephemeral", description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=("up", "check", "down"))
    parser.add_argument("--stack", required=True, help="the ephemeral stack, e.g. pr-42 (or org/pr-42)")
    parser.add_argument("--template", type=Path, default=DEFAULT_TEMPLATE, help="the stack file whose config to copy")
    parser.add_argument("--destroy-on-failure", action="store_true", help="run down after a failed up or check")
    parser.add_argument("--timeout", type=float, default=900.0, help="check: seconds to wait per cluster")
    parser.add_argument("--interval", type=float, default=15.0, help="check: seconds between two reads")
    parser.add_argument("--destroy-attempts", type=int, default=2, choices=range(1, 6), help="down: tries")
    parser.add_argument(
        "--secret",
        action="append",
        default=[],
        metavar="KEY=ENV_VAR",
        help="up: the value of the template's secure config KEY, read from the environment variable ENV_VAR",
    )
    return parser.parse_args(argv)


def main(
    argv: list[str] | None = None,
    *,
    workspace: Workspace | None = None,
    connect: Callable[[str], Cluster] = RestWriter,
) -> int:
    """Run one command; ``workspace`` and ``connect`` default to the real Automation API and Kubernetes client (one
    that may also submit the burst smoke Job)."""
    args = parse_args(argv)
    runner = Runner(
        workspace or AutomationWorkspace(),
        connect,
        check_timeout_seconds=args.timeout,
        poll_options={"interval_seconds": args.interval},
        destroy_attempts=args.destroy_attempts,
    )
    path = args.template if args.template.is_absolute() else PROJECT_ROOT / args.template
    try:
        if args.command == "down":  # destroy needs no template; the stack's ESC imports come from it when at hand
            return runner.down(args.stack, load_template(path) if path.is_file() else None)
        template = load_template(path)
        if args.command == "up":
            secrets = secrets_from_environment(args.secret, os.environ)
            return runner.up(args.stack, template, secrets=secrets, destroy_on_failure=args.destroy_on_failure)
        return runner.check(args.stack, template, destroy_on_failure=args.destroy_on_failure)
    except UsageError as error:
        print(f"error: {error}", file=sys.stderr)
        return USAGE


def secrets_from_environment(pairs: list[str], environ: Mapping[str, str]) -> dict[str, str]:
    """``KEY=ENV_VAR`` pairs -> ``{KEY: value of ENV_VAR}``; an unset or empty variable gives no value."""
    secrets = {}
    for pair in pairs:
        key, _, variable = pair.partition("=")
        if not key or not variable:
            raise UsageError(
                f"--secret {pair!r}: write KEY=ENV_VAR, e.g. elastic-capacity:kubeconfig=SHARED_KUBECONFIG"
            )
        if environ.get(variable):
            secrets[key] = environ[variable]
    return secrets


if __name__ == "__main__":
    sys.exit(main())
