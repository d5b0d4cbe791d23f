"""The README's promises: its two set-up commands are what CI runs, its config reference is the model's, and the
code meets the lint and format rules it states."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.support import PROJECT_ROOT
from tools import config_reference

ROOT = PROJECT_ROOT
README = (ROOT / "README.md").read_text()


def test_config_reference_in_the_readme_is_generated_from_the_model():
    start = README.index(config_reference.BEGIN)
    end = README.index(config_reference.END) + len(config_reference.END)
    assert README[start:end] + "\n" == config_reference.reference(), (
        "README config reference is stale: regenerate it with python3 -m tools.config_reference"
    )


def test_ci_starts_with_exactly_the_readme_set_up_commands():
    block = re.search(r"## Set up and test\n\n```bash\n(.*?)```", README, re.S)
    assert block is not None
    commands = block.group(1).strip().splitlines()
    assert len(commands) == 2
    ci = [
        line
        for line in (ROOT / ".ci/run").read_text().splitlines()
        if line and not line.startswith(("#", "set ", "cd "))
    ]
    assert ci[: len(commands)] == commands
    assert ci[len(commands) :] == ["python3 -m mypy"], "further checks are their own steps after the two commands"


def test_code_is_lint_clean_and_formatted():
    """The ruff gate runs with the tests, so a developer's `pytest` catches it before CI does."""
    for command in (["check", "--quiet", "."], ["format", "--check", "--quiet", "."]):
        result = subprocess.run([sys.executable, "-m", "ruff", *command], cwd=ROOT, capture_output=True, text=True)
        assert result.returncode == 0, result.stdout + result.stderr
