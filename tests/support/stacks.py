"""The shipped stacks, run as the engine would run them, with every opt-in part switched on."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support import PROJECT_ROOT
from tools import mock_runtime, render

STACKS = sorted((PROJECT_ROOT / "stacks").glob("Pulumi.*.yaml"))
STACK_IDS = [path.name for path in STACKS]


def run_stack(stack_file: Path, *, preview: bool = False) -> mock_runtime.Recording:
    """Run ``__main__.py`` with the stack file's config; a stack with Kueue also gets its smoke Job enabled."""
    stack, config, secret_keys = render.read_stack_file(stack_file)
    if any(key in config for key in ("elastic-capacity:aks", "elastic-capacity:existingCluster")):
        smoke_job = json.loads(config.get("elastic-capacity:smokeJob", "{}"))
        config["elastic-capacity:smokeJob"] = json.dumps({**smoke_job, "enabled": True})
    return render.run_main(stack, config, secret_keys, preview=preview)
