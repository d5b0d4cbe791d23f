"""The GitHub workflows' view of deploy/stacks.json, on the runner's own python3 (standard library only).

    python3 deploy/ci/stacks.py matrix [DEPLOYER] -> matrix={"include": [...]} and count=N: the stacks DEPLOYER
                                                     (github, the default, or gitops) deploys
    python3 deploy/ci/stacks.py deployed STACK    -> deployed=true|false, whether STACK has anything to drift-check
    python3 deploy/ci/stacks.py expired HOURS     -> matrix={"include": [{stack, number}]}, count=N: the pull-request
                                                     stacks (pr-<n>) whose pull request is not open, or that no update
                                                     touched for HOURS (ephemeral-reaper.yml)
    python3 deploy/ci/stacks.py room STACK MAX    -> room=true when STACK exists or fewer than MAX pull-request stacks
                                                     do; otherwise an ::error:: line and exit code 1 (ephemeral.yml)

Each appends its answer to the file ``$GITHUB_OUTPUT`` names (standard output outside Actions). A bad stacks.json, or a
backend that cannot answer, is one ``::error::`` line (a GitHub annotation) and exit code 1; a missing ``pulumi`` or
``gh`` is one line and exit code 2. ``expired`` and ``room`` read the pull-request stacks from ``pulumi stack ls`` and
the open pull requests from ``gh pr list``.
"""

from __future__ import annotations

import datetime
import json
import os
import re
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


PULL_REQUEST_STACK = re.compile(r"^(?:[^/]+/){0,2}pr-(\d+)$")
"""``pr-<n>``, ``<org>/pr-<n>`` or ``<org>/<project>/pr-<n>``: the stacks ephemeral.yml creates."""


class StacksError(Exception):
    """A stacks.json entry that the workflows cannot act on."""


class MissingTool(Exception):
    """A command-line tool the answer needs is not on the PATH."""


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


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(list(command), capture_output=True, text=True, check=False)
    except FileNotFoundError:
        raise MissingTool(f"{command[0]} is not on the PATH") from None


def _pulumi(*args: str) -> subprocess.CompletedProcess[str]:
    return _run("pulumi", *args, "--non-interactive")


def pull_request_stacks() -> list[dict[str, Any]]:
    """The backend's ``pr-<n>`` stacks of this project, as ``pulumi stack ls --json`` lists them."""
    listed = _pulumi("stack", "ls", "--json")
    if listed.returncode != 0:
        raise StacksError(f"pulumi stack ls failed: {listed.stderr.strip() or listed.stdout.strip()}")
    return [s for s in json.loads(listed.stdout or "[]") if PULL_REQUEST_STACK.match(s.get("name", ""))]


def open_pull_requests() -> set[int]:
    listed = _run("gh", "pr", "list", "--state", "open", "--limit", "1000", "--json", "number")
    if listed.returncode != 0:
        raise StacksError(f"gh pr list failed: {listed.stderr.strip() or listed.stdout.strip()}")
    return {entry["number"] for entry in json.loads(listed.stdout or "[]")}


def expired(stacks: list[dict[str, Any]], open_numbers: set[int], hours: float, now: datetime.datetime) -> list[str]:
    """The pull-request stacks to take down: their pull request is closed, or no update touched them for ``hours``
    (an update still running is left alone)."""
    found = []
    for stack in stacks:
        match = PULL_REQUEST_STACK.match(stack["name"])
        if match is None or stack.get("updateInProgress"):
            continue
        last = stack.get("lastUpdate")
        stale = False
        if last:
            when = datetime.datetime.fromisoformat(last.replace("Z", "+00:00"))
            stale = now - when > datetime.timedelta(hours=hours)
        if int(match.group(1)) not in open_numbers or stale:
            found.append(stack["name"])
    return found


def room(stacks: list[dict[str, Any]], stack: str, most: int) -> None:
    """Refuse a new pull-request stack once ``most`` of them are live: each takes a VPC, an EIP, a NAT gateway and
    vCPUs from the accounts' quotas."""
    names = {s["name"].rsplit("/", 1)[-1] for s in stacks}
    if stack.rsplit("/", 1)[-1] in names:
        return
    if len(names) >= most:
        raise StacksError(
            f"{len(names)} pull-request environments are live ({', '.join(sorted(names))}) and EPHEMERAL_MAX is "
            f"{most}: close a pull request or raise the repository variable EPHEMERAL_MAX "
            "(docs/operations.md#ephemeral-environments)"
        )


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
        elif len(argv) == 2 and argv[0] == "expired":
            now = datetime.datetime.now(datetime.UTC)
            names = expired(pull_request_stacks(), open_pull_requests(), float(argv[1]), now)
            include = [{"stack": n, "number": int(PULL_REQUEST_STACK.match(n).group(1))} for n in names]  # type: ignore[union-attr]
            _answer(f"matrix={json.dumps({'include': include}, separators=(',', ':'))}")
            _answer(f"count={len(names)}")
        elif len(argv) == 3 and argv[0] == "room" and argv[2].isdigit():
            room(pull_request_stacks(), argv[1], int(argv[2]))
            _answer("room=true")
        else:
            print(
                "usage: stacks.py matrix [github|gitops] | deployed STACK | expired HOURS | room STACK MAX",
                file=sys.stderr,
            )
            return 2
    except MissingTool as error:
        print(f"error: {error}: install it before this step", file=sys.stderr)
        return 2
    except (StacksError, json.JSONDecodeError, ValueError) as error:
        print(f"::error::{error}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
