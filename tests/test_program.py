"""The whole program, as `pulumi preview` and `pulumi up` run it: same resources whether or not values are known."""

from __future__ import annotations

import json
import runpy
from pathlib import Path

import pytest

from tools import mock_runtime, render

ROOT = Path(__file__).resolve().parents[1]
STACKS = sorted((ROOT / "stacks").glob("Pulumi.*.yaml"))


def run_main(stack_file: Path, preview: bool) -> mock_runtime.Recording:
    stack, config, secret_keys = render.read_stack_file(stack_file)
    smoke_job = json.loads(config.get("elastic-capacity:smokeJob", "{}"))
    if "elastic-capacity:aks" in config:
        config["elastic-capacity:smokeJob"] = json.dumps({**smoke_job, "enabled": True})

    def program() -> None:
        runpy.run_path(str(ROOT / "__main__.py"), run_name="__main__")

    return mock_runtime.run(program, config, secret_keys, stack=stack, preview=preview)


@pytest.mark.parametrize("stack_file", STACKS, ids=[p.name for p in STACKS])
def test_preview_registers_what_up_registers(stack_file):
    """Unknown values during preview must not change the shape of the program (no logic hidden in an apply)."""
    up = run_main(stack_file, preview=False)
    preview = run_main(stack_file, preview=True)
    assert sorted((r.type, r.name) for r in preview.registrations) == sorted((r.type, r.name) for r in up.registrations)
    assert len(up.registrations) > 10
