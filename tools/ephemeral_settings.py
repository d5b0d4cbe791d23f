"""The settings files of ephemeral stacks: what a template hands a stack, what ``up`` writes, and which files the
runner may overwrite (``up``) or delete (``down``, whose ``pulumi stack rm`` removes the stack's file too).

A stack is handled only when its settings file is absent, holds only what ``pulumi stack init`` writes, or is of
``environment.kind: ephemeral``. Templates are of that kind too, so overwriting or deleting further needs a file that
is not the ``--template``, not tracked by git, and begins with :data:`HEADER`, the line only ``up`` writes.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from components import yaml_text

HEADER = "# Written by `python -m tools.ephemeral` from a template; `down` removes the stack and this file."
"""The first line of every settings file ``up`` writes: ``down`` deletes no settings file without it."""
ENVIRONMENT_KEY = "elastic-capacity:environment"
"""The section whose ``kind: ephemeral`` marks a stack (and a template) as a pull request's: the only ones handled."""
KEPT_SETTINGS = ("secretsprovider", "encryptedkey", "encryptionsalt")
"""Per-stack secrets settings written by ``pulumi stack init``: the stack's own, never the template's."""
COPIED_SETTINGS = ("config", "environment")
"""What a template hands an ephemeral stack: its configuration and the Pulumi ESC environments it imports."""
STACK_NAME = re.compile(r"^(?:[A-Za-z0-9][A-Za-z0-9_.-]*/){0,2}[A-Za-z0-9_.-]+$")
"""``name``, ``org/name`` or ``org/project/name``, as ``pulumi stack init`` accepts them."""


class UsageError(Exception):
    """Arguments the runner cannot act on; nothing was changed."""


@dataclasses.dataclass(frozen=True)
class Template:
    """What an ephemeral stack copies from its template stack file."""

    settings: dict[str, Any]
    """The template's ``config`` (less its ``secure:`` values) and ``environment`` (its Pulumi ESC imports)."""
    secret_keys: tuple[str, ...] = ()
    """Config keys whose ``secure:`` values only the template's own key decrypts: each stack sets them anew."""
    path: Path | None = dataclasses.field(default=None, compare=False)
    """The template's file, which no stack may use as its settings file."""


def load_template(path: Path) -> Template:
    """Read an ephemeral template; :class:`UsageError` when it is not one the runner can use."""
    if not path.is_file():
        raise UsageError(f"no template stack file at {path}")
    document = parse(path.read_text(), path)
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
    return Template(settings, secret_keys, path)


def parse(text: str, path: Path) -> Any:
    """A stack file's document; :class:`UsageError` naming the file when it is not YAML."""
    try:
        return yaml_text.load(text)
    except yaml.YAMLError as error:
        raise UsageError(f"{path} is not valid YAML: {' '.join(str(error).split())}") from None


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
    kept = yaml_text.load(existing or "") or {}
    document = {key: kept[key] for key in KEPT_SETTINGS if key in kept}
    document.update(template.settings)
    return f"{HEADER}\n{yaml_text.dump(document)}"


def written_here(text: str) -> bool:
    return text.startswith(HEADER + "\n")


def _only_init_settings(document: Any) -> bool:
    """What ``pulumi stack init`` writes (or nothing): the stack's secrets settings, no config a person wrote."""
    return document is None or (isinstance(document, dict) and set(document) <= set(KEPT_SETTINGS))


def refuse_unless_ephemeral(stack: str, path: Path, text: str | None) -> None:
    """Every command's guard: a stack name, and a settings file that is none, only what ``pulumi stack init``
    writes, or of ``environment.kind: ephemeral``. Never a long-lived (``dev``, ``production``) stack."""
    if not STACK_NAME.match(stack):
        raise UsageError(f"{stack!r} is not a stack name ([org/[project/]]name of letters, digits, _ . -)")
    document = parse(text or "", path)
    if not _only_init_settings(document) and not (
        isinstance(document, dict) and _is_ephemeral_config(document.get("config") or {})
    ):
        raise UsageError(
            f"stack {stack} is not an ephemeral stack: its stack file's {ENVIRONMENT_KEY}.kind is not ephemeral"
        )


def refuse_unless_written_here(
    stack: str, path: Path, text: str | None, *, tracked: bool, template: Template | None, creating: bool
) -> None:
    """The guard of the commands that overwrite (``up``, ``creating``) or delete the settings file at ``path``:
    never the template itself, a file git tracks, or one without :data:`HEADER` (``up`` also takes over a file of
    only what ``pulumi stack init`` wrote)."""
    if template is not None and template.path is not None and path.resolve() == template.path.resolve():
        raise UsageError(f"stack {stack}'s settings file {path} is the template itself: use another --stack")
    if tracked:
        raise UsageError(f"stack {stack}'s settings file {path} is tracked by git: use another --stack")
    if text is None or written_here(text) or (creating and _only_init_settings(parse(text, path))):
        return
    raise UsageError(
        f"stack {stack}'s settings file {path} was not written by `python -m tools.ephemeral up` (its first line"
        f" is not {HEADER!r}): use another --stack, or move the file away if it is yours to discard"
    )
