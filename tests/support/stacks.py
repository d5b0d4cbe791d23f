"""The shipped stacks, run as the engine would run them, with every opt-in part switched on."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from components import yaml_text
from components.config.kueue.profiles import LATEST_CHART_VERSION
from tests.support import PROJECT_ROOT, run_cache
from tools import render, stack_file
from tools.recording import Recording

PERSONAL = "Pulumi.dev-*.yaml"
"""A developer's own stacks (the README's quick start copies a shipped file to one; .gitignore keeps them out of git):
present in a checkout, never shipped, so never tested as shipped."""
STACKS = sorted(p for p in (PROJECT_ROOT / "stacks").glob("Pulumi.*.yaml") if not p.match(PERSONAL))
STACK_IDS = [path.name for path in STACKS]
AKS_STACK = PROJECT_ROOT / "stacks/Pulumi.aks-kueue-dev.yaml"
CHINA_STACK = PROJECT_ROOT / "stacks/Pulumi.aks-kueue-china.yaml"
ACK_STACK = PROJECT_ROOT / "stacks/Pulumi.ack-acs-dev.yaml"
MULTICLOUD_STACK = PROJECT_ROOT / "stacks/Pulumi.multicloud.yaml"
EPHEMERAL_STACK = PROJECT_ROOT / "stacks/Pulumi.ephemeral.yaml"
SHARED_STACK = PROJECT_ROOT / "stacks/Pulumi.ephemeral-shared.yaml"
GPU_STACK = PROJECT_ROOT / "stacks/Pulumi.aks-gpu-spot.yaml"


def environment_kind(stack_file: Path) -> str:
    """The stack file's ``environment.kind`` (``dev`` when it sets none)."""
    _, config, _ = render.read_stack_file(stack_file)
    return str(json.loads(config.get("elastic-capacity:environment", "{}")).get("kind", "dev"))


def run_stack(stack_file: Path, *, preview: bool = False, stack: str | None = None) -> Recording:
    """Run ``__main__.py`` afresh with the stack file's config, as the stack named by the file or as ``stack``.

    A stack with Kueue also gets its smoke Job enabled, except a production stack, which refuses it. For a test whose
    point is a run of its own (two runs compared); every other test reads :func:`recorded`.
    """
    return render.run_main(*_with_opt_ins(stack_file, stack), preview=preview)


def recorded(stack_file: Path, *, preview: bool = False, stack: str | None = None) -> Recording:
    """:func:`run_stack`, made once per session (:mod:`tests.support.run_cache`): read it, never change it."""
    return run_cache.run_main(*_with_opt_ins(stack_file, stack), preview=preview)


def _with_opt_ins(stack_file: Path, stack: str | None) -> tuple[str, dict[str, str], set[str]]:
    name, config, secret_keys = render.read_stack_file(stack_file)
    has_kueue = any(key in config for key in ("elastic-capacity:aks", "elastic-capacity:existingCluster"))
    if has_kueue and environment_kind(stack_file) != "production":
        smoke_job = json.loads(config.get("elastic-capacity:smokeJob", "{}"))
        config["elastic-capacity:smokeJob"] = json.dumps({**smoke_job, "enabled": True})
    return stack or name, config, secret_keys


def as_shipped(stack_file: Path) -> tuple[str, Recording]:
    """:func:`tools.render.render`: the stack file as it is, made once per session; read it, never change it."""
    name, config, secret_keys = render.read_stack_file(stack_file)
    return name, run_cache.run_main(name, config, secret_keys)


def edited_stack(path: Path, change: Callable[[dict[str, Any]], None], out: Path) -> Path:
    """A copy of a stack file in ``out`` with ``change`` applied to its ``config`` mapping."""
    document = yaml_text.load(path.read_text())
    change(document["config"])
    target = out / path.name
    target.write_text(yaml_text.dump(document, sort_keys=True))
    return target


def stack_config(stack: Path) -> dict[str, Any]:
    """The ``config`` mapping of a stack file as written, parsed once per version of the file (collection asks for
    it a few hundred times): read it, never change it."""
    return _parsed_config(stack, stack.stat().st_mtime_ns)


@functools.cache
def _parsed_config(stack: Path, _version: int) -> dict[str, Any]:
    config: dict[str, Any] = yaml_text.load(stack.read_text())["config"]
    return config


def kueue_version(stack: Path) -> str:
    """The Kueue chart version ``stack`` installs: its ``kueue.chartVersion``, else the program's default."""
    config = stack_config(stack)
    return str((config.get("elastic-capacity:kueue") or {}).get("chartVersion", LATEST_CHART_VERSION))


def rendered(stack: Path) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """What ``python -m tools.render`` writes for ``stack``, without the files: plan.json and every manifest by its
    path under ``manifests/``, each a copy through JSON (the file round trip is tests/tools/test_render.py's and
    tests/components/test_yaml_text.py's), its program run made once per session (:mod:`.run_cache`)."""
    source = stack_file.read(stack)
    render.validate(source)
    recording = run_cache.run_main(source.stack, source.engine_config(), set(source.secret_keys))
    plan = json.loads(json.dumps(render.plan(source.stack, recording)))
    manifests = {path: json.loads(json.dumps(obj)) for path, obj in render.manifests(recording).items()}
    return plan, manifests


def of_type(plan: dict[str, Any], type_: str) -> list[dict[str, Any]]:
    """The resources of one type in a plan.json."""
    return [r for r in plan["resources"] if r["type"] == type_]
