"""The docs that describe the tree, held to it: the operations page's table of stacks says what deploy/stacks.json and
the workflows do, its Argo CD Application syncs the render, and the development page's layout names every top-level
directory and every tools/ module."""

from __future__ import annotations

import fnmatch
import json
import os
import re
import subprocess

import pytest

from components import yaml_text
from tests.support import PROJECT_ROOT
from tests.support.workflows import RUNNER_PYTHON3

OPERATIONS = (PROJECT_ROOT / "docs/operations.md").read_text()
DEVELOPMENT = (PROJECT_ROOT / "docs/development.md").read_text()
STACKS = json.loads((PROJECT_ROOT / "deploy/stacks.json").read_text())["stacks"]
CLOUDS = {"global": "global Azure", "china": "Azure China"}
DEPLOYED_BY = {"github": "`deploy.yml`", "operator": "the operator", "gitops": "`gitops.yml`"}


def stack_table() -> dict[str, dict[str, str]]:
    """The operations page's first table, by stack: Lives, Clouds and Deployed by."""
    rows = re.search(r"^\| Stack \| Lives \| Clouds \| Deployed by \|\n\|[-|]+\|\n((?:\|.*\|\n)+)", OPERATIONS, re.M)
    assert rows is not None, "docs/operations.md has no table | Stack | Lives | Clouds | Deployed by |"
    cells = [[cell.strip() for cell in line.strip("|").split("|")] for line in rows.group(1).splitlines()]
    return {stack.strip("`"): {"lives": lives, "clouds": clouds, "by": by} for stack, lives, clouds, by in cells}


def github_stacks() -> list[str]:
    """The stacks the preview, deploy and drift workflows run: the matrix their first job computes."""
    env = {key: value for key, value in os.environ.items() if key != "GITHUB_OUTPUT"}
    result = subprocess.run(
        [*RUNNER_PYTHON3, "deploy/ci/stacks.py", "matrix"], cwd=PROJECT_ROOT, env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    matrix = json.loads(result.stdout.splitlines()[0].removeprefix("matrix="))
    return [entry["stack"] for entry in matrix["include"]]


def test_the_long_lived_stacks_of_the_table_are_those_of_stacks_json():
    long_lived = [name for name, row in stack_table().items() if row["lives"] == "long"]
    assert long_lived == list(STACKS)


@pytest.mark.parametrize("stack", list(STACKS))
def test_each_long_lived_row_names_the_clouds_and_the_deployer_stacks_json_gives(stack):
    row, entry = stack_table()[stack], STACKS[stack]
    clouds = [CLOUDS[entry["azure"]]] if entry["azure"] in CLOUDS else []
    assert row["clouds"] == " + ".join([*clouds, "Alibaba Cloud"] if entry["alibaba"] else clouds)
    assert row["by"].startswith(DEPLOYED_BY[entry["deployer"]])
    assert ("runner" in row["by"]) == (entry["runner"] != "hosted"), "a self-hosted runner is said in the row"


def test_the_rows_deployed_by_deploy_yml_are_the_stacks_the_workflows_run():
    by_deploy = [name for name, row in stack_table().items() if row["by"].startswith("`deploy.yml`")]
    assert by_deploy == github_stacks()


def test_each_short_lived_row_names_a_workflow_that_uses_the_templates_the_row_names():
    short_lived = {name: row for name, row in stack_table().items() if row["lives"] != "long"}
    assert short_lived
    for name, row in short_lived.items():
        workflow, *templates = re.findall(r"`([\w./-]+\.ya?ml)`", row["by"])
        text = (PROJECT_ROOT / ".github/workflows" / workflow).read_text()
        assert templates, f"{name}: the row names no stack file"
        for template in templates:
            assert (PROJECT_ROOT / template).is_file() and template in text, f"{name}: {workflow} and {template}"


def layout_entries() -> list[str]:
    """The first column of the development page's layout block."""
    block = re.search(r"^## Layout\n\n```\n(.*?)```", DEVELOPMENT, re.S | re.M)
    assert block is not None, "docs/development.md has no ## Layout block"
    return [line.split()[0] for line in block.group(1).splitlines() if line and not line.startswith(" ")]


def top_level_directories() -> list[str]:
    """The repository's own top-level directories: not .git, nor what .gitignore keeps out (.venv, caches, out/)."""
    ignored = {".git", *(line.strip("/") for line in (PROJECT_ROOT / ".gitignore").read_text().split())}
    return sorted(
        path.name
        for path in PROJECT_ROOT.iterdir()
        if path.is_dir() and not any(fnmatch.fnmatch(path.name, pattern) for pattern in ignored)
    )


def test_the_layout_names_every_top_level_directory():
    entries = layout_entries()
    missing = [name for name in top_level_directories() if not any(e.startswith(f"{name}/") for e in entries)]
    assert missing == []


def test_the_layout_names_every_tools_module():
    entries = [entry for entry in layout_entries() if entry.startswith("tools/")]
    modules = sorted(f"tools/{path.name}" for path in (PROJECT_ROOT / "tools").glob("*.py") if path.stem != "__init__")
    assert [module for module in modules if not any(fnmatch.fnmatch(module, entry) for entry in entries)] == []


def test_every_layout_entry_is_in_the_tree():
    assert [entry for entry in layout_entries() if not list(PROJECT_ROOT.glob(entry.rstrip("/")))] == []


KUEUE_WEBHOOK_WINDOW_SECONDS = 30
"""How long after its Deployment is Ready Kueue's webhooks may still refuse objects: 10-30 s
(https://github.com/kubernetes-sigs/kueue/issues/13036)."""
ARGO_DURATION = re.compile(r"(\d+)([hms])")


def documented_application() -> dict:
    """The Argo CD Application the operations page's render-to-directory section gives."""
    block = re.search(r"^\*\*Argo CD\.\*\*.*?^```yaml\n(.*?)^```", OPERATIONS, re.S | re.M)
    assert block is not None, "docs/operations.md has no Argo CD Application"
    application = yaml_text.load(block.group(1))
    assert application["kind"] == "Application"
    return application


def seconds(duration: str) -> int:
    """An Argo CD backoff duration: a number of seconds, or a Go duration of hours, minutes and seconds."""
    if duration.isdigit():
        return int(duration)
    parts = ARGO_DURATION.findall(duration)
    assert "".join(n + unit for n, unit in parts) == duration, duration
    return sum(int(n) * {"h": 3600, "m": 60, "s": 1}[unit] for n, unit in parts)


def test_the_documented_argo_cd_application_syncs_server_side():
    """Kueue's workloads CRD does not fit in the annotation client-side apply, Argo CD's default, keeps."""
    assert "ServerSideApply=true" in documented_application()["spec"]["syncPolicy"].get("syncOptions", [])


def test_the_documented_argo_cd_application_retries_a_sync_refused_by_kueues_cold_webhook():
    """A retry must come after the webhooks' window; without ``retry`` a sync started by hand is never retried.
    The waits as Argo CD computes them: ``duration * factor^n``, at most ``maxDuration`` (``NextRetryAt`` in
    https://github.com/argoproj/argo-cd/blob/master/pkg/apis/application/v1alpha1/types.go; defaults 5s, 2, 3m)."""
    retry = documented_application()["spec"]["syncPolicy"].get("retry")
    assert retry is not None, "the Application says how a failed sync is retried"
    backoff = retry.get("backoff", {})
    duration, factor = seconds(str(backoff.get("duration", "5s"))), int(backoff.get("factor", 2))
    longest = seconds(str(backoff.get("maxDuration", "3m")))
    waits = [min(duration * factor**n, longest) for n in range(retry.get("limit", 0))]
    assert retry.get("limit", 0) < 0 or sum(waits) > KUEUE_WEBHOOK_WINDOW_SECONDS, waits
