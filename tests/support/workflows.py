"""The GitHub workflows as data, for the tests that check them: loading, walking jobs and steps, finding Pulumi."""

from __future__ import annotations

import re
import sys
from typing import Any

from components import yaml_text
from tests.support import PROJECT_ROOT

WORKFLOWS = sorted((PROJECT_ROOT / ".github/workflows").glob("*.yml"))
OURS = ["deploy.yml", "drift.yml", "ephemeral-reaper.yml", "ephemeral.yml", "gitops.yml", "preview.yml"]
"""The cloud workflows; another one (e2e) is held only to the project-wide rules."""
LOCK_INSTALL = ".venv/bin/python -m pip install --require-hashes -r requirements.txt"
"""How every workflow installs the program: the hash-checked runtime lock, into the .venv Pulumi.yaml names."""
RENDERS = "gitops.yml"
"""The workflow whose stacks render to a directory: their Kubernetes providers never reach a cluster."""
SECRET = re.compile(r"\$\{\{[^}]*\bsecrets\.")
RUNNER_PYTHON3 = [sys.executable, "-S"]
"""``python3`` as a workflow's first job runs deploy/ci's scripts, before any set-up: a real interpreter (a version
manager's shim on the PATH costs ~0.2 s a start) that sees the standard library alone (``-S``: no site-packages), so
a script that needs anything else fails here as it would on the runner."""


def load(name: str) -> dict[str, Any]:
    # PyYAML reads the key `on` as True (YAML 1.1); GitHub reads it as the string.
    document = yaml_text.load((PROJECT_ROOT / ".github/workflows" / name).read_text())
    document["on"] = document.pop(True)
    return document


def steps(job: dict[str, Any]) -> list[dict[str, Any]]:
    return job.get("steps") or []


def all_jobs() -> list[tuple[str, str, dict[str, Any]]]:
    return [(path.name, name, job) for path in WORKFLOWS for name, job in load(path.name)["jobs"].items()]


def runs_pulumi(step: dict[str, Any]) -> bool:
    """A step that runs a Pulumi operation (the CLI-only install of pulumi/actions has no `command`)."""
    return "command" in (step.get("with") or {}) or "tools.ephemeral" in step.get("run", "")


def pulumi_jobs() -> list[tuple[str, str, dict[str, Any]]]:
    """The jobs of the cloud workflows that run Pulumi (another workflow, such as e2e, has its own tests)."""
    return [(w, n, job) for w, n, job in all_jobs() if w in OURS and any(runs_pulumi(s) for s in steps(job))]


def pulumi_step(workflow: str, job: str) -> dict[str, Any]:
    return next(s for s in steps(load(workflow)["jobs"][job]) if runs_pulumi(s))


def named(workflow: str, job: str, name: str) -> dict[str, Any]:
    return next(s for s in steps(load(workflow)["jobs"][job]) if s.get("name") == name)


def step_env(step: dict[str, Any]) -> dict[str, Any]:
    return {key: str(value) for key, value in (step.get("env") or {}).items()}
