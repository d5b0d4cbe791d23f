"""The GitHub workflows' view of deploy/stacks.json, on the runner's own python3 (standard library only).

    python3 deploy/ci/stacks.py matrix [DEPLOYER] -> matrix={"include": [...]} and count=N: the stacks DEPLOYER
                                                     (github, the default, or gitops) deploys
    python3 deploy/ci/stacks.py deployed STACK    -> deployed=true|false, whether STACK has anything to drift-check

Each appends its answer to the file ``$GITHUB_OUTPUT`` names (standard output outside Actions). A bad stacks.json, or a
backend that cannot answer, is one ``::error::`` line (a GitHub annotation) and exit code 1.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

STACKS_FILE = Path(__file__).resolve().parents[1] / "stacks.json"
ALLOWED = {
    "deployer": {"github", "gitops", "operator"},
    "azure": {"global", "china", "none"},
    "alibaba": {True, False},
}
HOSTED = "hosted"
NO_STACK = "no stack named"


class StacksError(Exception):
    """A stacks.json entry that the workflows cannot act on."""


def _checked(name: str, entry: Any) -> dict[str, Any]:
    if not isinstance(entry, dict) or set(entry) != {*ALLOWED, "runner"}:
        keys = sorted(entry) if isinstance(entry, dict) else entry
        raise StacksError(f"stacks.{name}: {keys!r} is not allowed; give exactly {sorted({*ALLOWED, 'runner'})}")
    for key, allowed in ALLOWED.items():
        if entry[key] not in allowed:
            raise StacksError(
                f"stacks.{name}.{key}: {entry[key]!r} is not allowed; allowed: {sorted(allowed, key=str)}"
            )
    runner = entry["runner"]
    if not isinstance(runner, str) or not (runner == HOSTED or (runner.isidentifier() and runner.isupper())):
        raise StacksError(
            f"stacks.{name}.runner: {runner!r} is not allowed; allowed: {HOSTED!r} or the name of a repository "
            "variable holding a self-hosted runner's label (upper case, e.g. AZURE_CHINA_RUNNER)"
        )
    return entry


def load(path: Path = STACKS_FILE) -> dict[str, dict[str, Any]]:
    """Every stack of ``path``, checked: the one place that says who deploys which long-lived stack."""
    document = json.loads(path.read_text())
    stacks = document.get("stacks") if isinstance(document, dict) else None
    if not isinstance(stacks, dict) or not stacks:
        raise StacksError(f"{path.name}: needs a non-empty object 'stacks'")
    return {name: _checked(name, entry) for name, entry in stacks.items()}


def matrix(stacks: dict[str, dict[str, Any]], deployer: str = "github") -> dict[str, list[dict[str, Any]]]:
    """The ``strategy.matrix`` of the jobs that run ``deployer``'s stacks: ``github`` for preview, deploy and drift,
    ``gitops`` for the render-and-commit job (gitops.yml)."""
    return {
        "include": [
            {"stack": name, "azure": entry["azure"], "alibaba": entry["alibaba"], "runner": entry["runner"]}
            for name, entry in stacks.items()
            if entry["deployer"] == deployer
        ]
    }


def _pulumi(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["pulumi", *args, "--non-interactive"], capture_output=True, text=True, check=False)


def deployed(stack: str) -> bool:
    """Whether ``stack`` exists in the backend and holds resources; a stack an earlier preview created is empty."""
    selected = _pulumi("stack", "select", stack)
    if selected.returncode != 0:
        if NO_STACK in selected.stderr + selected.stdout:
            return False
        raise StacksError(f"pulumi stack select {stack} failed: {selected.stderr.strip() or selected.stdout.strip()}")
    exported = _pulumi("stack", "export", "--stack", stack)
    if exported.returncode != 0:
        raise StacksError(f"pulumi stack export --stack {stack} failed: {exported.stderr.strip()}")
    return bool((json.loads(exported.stdout).get("deployment") or {}).get("resources"))


def _answer(line: str) -> None:
    output = os.environ.get("GITHUB_OUTPUT")
    if output:
        with open(output, "a", encoding="utf-8") as file:
            file.write(line + "\n")
    print(line)


def main(argv: list[str]) -> int:
    try:
        if argv[:1] == ["matrix"] and len(argv) <= 2 and set(argv[1:]) <= {"github", "gitops"}:
            # GitHub refuses an empty matrix: `count` lets a job skip itself instead.
            found = matrix(load(), *argv[1:])
            _answer(f"matrix={json.dumps(found, separators=(',', ':'))}")
            _answer(f"count={len(found['include'])}")
        elif len(argv) == 2 and argv[0] == "deployed":
            _answer(f"deployed={str(deployed(argv[1])).lower()}")
        else:
            print("usage: stacks.py matrix [github|gitops] | stacks.py deployed STACK", file=sys.stderr)
            return 2
    except (StacksError, json.JSONDecodeError) as error:
        print(f"::error::{error}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
