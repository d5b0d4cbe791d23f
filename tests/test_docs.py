"""The README's promises: its two set-up commands are what CI runs, and its config reference is the model's."""

from __future__ import annotations

import re
from pathlib import Path

from tools import config_reference

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def test_config_reference_in_the_readme_is_generated_from_the_model():
    start = README.index(config_reference.BEGIN)
    end = README.index(config_reference.END) + len(config_reference.END)
    assert README[start:end] + "\n" == config_reference.reference(), (
        "README config reference is stale: regenerate it with python3 -m tools.config_reference"
    )


def test_ci_runs_exactly_the_readme_set_up_commands():
    block = re.search(r"## Set up and test\n\n```bash\n(.*?)```", README, re.S)
    assert block is not None
    commands = block.group(1).strip().splitlines()
    assert len(commands) == 2
    ci = [
        line
        for line in (ROOT / ".ci/run").read_text().splitlines()
        if line and not line.startswith(("#", "set ", "cd "))
    ]
    assert ci == commands
