"""gitops.yml: render-mode stacks rendered by `pulumi up` and committed back to main, the only job that may push."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support import PROJECT_ROOT, workflows
from tests.support.stacks import AKS_STACK, edited_stack

WORKFLOW = PROJECT_ROOT / ".github/workflows/gitops.yml"


def load() -> dict[str, Any]:
    return workflows.load(WORKFLOW.name)


def job() -> dict[str, Any]:
    return load()["jobs"]["render"]


def step(fragment: str) -> dict[str, Any]:
    return next(s for s in job()["steps"] if fragment in s.get("uses", "") or fragment in s.get("name", ""))


def test_it_runs_on_pushes_to_main_and_by_hand_for_the_gitops_stacks_of_stacks_json():
    workflow = load()
    assert workflow["on"] == {"push": {"branches": ["main"]}, "workflow_dispatch": None}
    assert list(workflow["jobs"]) == ["stacks", "render"]
    matrix_step = next(s for s in workflow["jobs"]["stacks"]["steps"] if s.get("id") == "matrix")
    assert matrix_step["run"] == "python3 deploy/ci/stacks.py matrix gitops"
    assert job()["needs"] == "stacks"
    assert job()["strategy"]["matrix"] == "${{ fromJSON(needs.stacks.outputs.matrix) }}"
    assert job()["if"] == "needs.stacks.outputs.count != '0'", "an empty matrix is an error"


def test_only_this_job_writes_contents_and_each_stack_runs_alone():
    assert load()["permissions"] == {}
    assert job()["permissions"] == {"contents": "write", "id-token": "write"}
    assert job()["concurrency"] == {"group": "pulumi-up-${{ matrix.stack }}", "cancel-in-progress": False}
    assert job()["concurrency"]["group"].startswith("pulumi-up-"), "the group deploy.yml's up takes for the stack"
    assert job()["environment"] == "production"


def test_actions_are_pinned_to_the_exact_shas_the_other_workflows_use():
    others: dict[str, set[str]] = {}
    for path in WORKFLOW.parent.glob("*.yml"):
        if path != WORKFLOW:
            for action, sha in re.findall(r"uses:\s*([\w./-]+)@([0-9a-f]{40})", path.read_text()):
                others.setdefault(action, set()).add(sha)
    lines = [line for line in WORKFLOW.read_text().splitlines() if re.match(r"^\s*(-\s+)?uses:", line)]
    assert len(lines) == 4  # checkout in both jobs
    for line in lines:
        match = re.match(r"^\s*(?:-\s+)?uses:\s*([\w./-]+)@([0-9a-f]{40}) # v\d+\.\d+\.\d+$", line)
        assert match, line
        assert others[match.group(1)] == {match.group(2)}, line


def test_secrets_and_the_token_are_only_in_the_steps_that_need_them():
    assert "secrets." not in str(job().get("env")) and "token" not in str(job().get("env")).lower()
    assert step("actions/checkout")["with"] == {"persist-credentials": False}
    holders = {
        s.get("name") or s["uses"]: s for s in job()["steps"] if "secrets." in str(s) or "github.token" in str(s)
    }
    assert set(holders) == {
        "pulumi up (every object rewritten, alwaysRender)",
        "Commit the rendered directory to main",
    }
    pulumi = step("pulumi/actions")
    assert {"PULUMI_ACCESS_TOKEN", "ALICLOUD_ACCESS_KEY", "ALICLOUD_SECRET_KEY", "ARM_CLIENT_ID"} <= set(pulumi["env"])
    assert "secrets." not in str(pulumi["with"])
    assert "github.token" not in str(pulumi) and "secrets." not in str(step("Commit")["env"])
    assert step("Commit")["env"]["GITHUB_TOKEN"] == "${{ github.token }}"


def test_pulumi_up_renders_after_the_directory_is_cleared_and_before_the_commit():
    names = [s.get("name") or s["uses"] for s in job()["steps"]]
    clear, up, commit = (
        next(i for i, n in enumerate(names) if fragment in n) for fragment in ("clear its", "pulumi up", "Commit")
    )
    assert clear < up < commit
    pulumi = step("pulumi/actions")["with"]
    assert pulumi["command"] == "up" and pulumi["suppress-outputs"] is True
    assert pulumi["pulumi-version-file"] == "deploy/ci/pulumi-version"
    assert step("Commit")["env"]["RENDER_DIR"] == "${{ steps.render-dir.outputs.dir }}"
    assert step("clear its")["id"] == "render-dir"


# --- the scripts, run as the runner runs them ------------------------------------------------------------------------


@pytest.fixture
def workspace(tmp_path) -> Path:
    """A checkout as the job sees it: the project's code, a stacks/ of its own, and a previous render."""
    for name in ("components", "tools"):
        (tmp_path / name).symlink_to(PROJECT_ROOT / name)
    (tmp_path / "stacks").mkdir()
    (tmp_path / "gitops" / "aks").mkdir(parents=True)
    (tmp_path / "gitops" / "aks" / "stale.yaml").write_text("kind: Gone\n")
    return tmp_path


def run_clear_step(workspace: Path, stack: str) -> subprocess.CompletedProcess[str]:
    output = workspace / "github-output"
    output.touch()
    # The job's python3 is the project's .venv (on GITHUB_PATH): here, the interpreter running the tests.
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    env = {**os.environ, "PATH": path, "STACK": stack, "GITHUB_OUTPUT": str(output)}
    return subprocess.run(
        ["bash", "-e", "-c", step("clear its")["run"]],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def test_a_render_stack_gets_its_directory_cleared_and_named_for_the_commit(workspace):
    edited_stack(
        AKS_STACK,
        lambda c: c.update({"elastic-capacity:gitops": {"renderToDirectory": "./gitops/"}}),
        workspace / "stacks",
    )
    result = run_clear_step(workspace, "aks-kueue-dev")
    assert result.returncode == 0, result.stderr
    assert (workspace / "github-output").read_text() == "dir=gitops\n"
    assert not (workspace / "gitops").exists()


def test_a_stack_that_applies_is_refused_before_pulumi_runs(workspace):
    shutil.copy(AKS_STACK, workspace / "stacks")
    result = run_clear_step(workspace, "aks-kueue-dev")
    assert result.returncode != 0
    assert (
        "elastic-capacity:gitops.renderToDirectory is not set; "
        "only render-mode stacks may be deployer gitops in deploy/stacks.json" in result.stderr
    )
    assert (workspace / "gitops" / "aks" / "stale.yaml").exists()


def run_commit_step(tmp_path: Path, *, changed: bool, push_fails: int = 0) -> list[str]:
    """The commit step with a stand-in ``git`` that logs its arguments and the credential its helper would hand
    over."""
    log = tmp_path / "git.log"
    git = tmp_path / "bin" / "git"
    git.parent.mkdir()
    git.write_text(
        "#!/usr/bin/env bash\n"
        f'echo "$*" >> {log}\n'
        'if [ "$1 $2" = "diff --cached" ]; then exit ' + ("1" if changed else "0") + "; fi\n"
        'if [[ "$*" == *" push "* ]]; then\n'
        f'  n=$(grep -c " push " {log}); [ "$n" -gt {push_fails} ] || exit 1\n'
        "fi\n"
    )
    git.chmod(0o755)
    env = {
        **os.environ,
        "PATH": f"{git.parent}:{os.environ['PATH']}",
        "GITHUB_TOKEN": "ghs_not-a-real-token",
        "RENDER_DIR": "gitops",
        "STACK": "aks-kueue-dev",
        "GITHUB_SHA": "0123456789abcdef0123",
        "GITHUB_REPOSITORY": "owner/repo",
    }
    result = subprocess.run(
        ["bash", "-e", "-c", step("Commit")["run"]], env=env, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    return log.read_text().splitlines()


def test_a_changed_render_is_committed_and_pushed_to_main_without_the_token_on_a_command_line(tmp_path):
    calls = run_commit_step(tmp_path, changed=True)
    assert calls[0] == "add --all -- gitops"
    assert calls[2] == "commit --quiet -m gitops: render aks-kueue-dev at 0123456789ab"
    assert calls[3].endswith("push https://github.com/owner/repo.git HEAD:main")
    assert "ghs_not-a-real-token" not in "\n".join(calls)
    assert 'echo "password=$GITHUB_TOKEN"' in calls[3], "the helper reads the token from the step's environment"


def test_a_push_that_lost_the_race_is_rebased_and_retried(tmp_path):
    calls = run_commit_step(tmp_path, changed=True, push_fails=1)
    verbs = [next(word for word in ("push", "pull") if f" {word} " in call) for call in calls[3:]]
    assert verbs == ["push", "pull", "push"]
    assert calls[4].endswith(" pull --rebase https://github.com/owner/repo.git main")


def test_an_unchanged_render_commits_nothing(tmp_path):
    assert run_commit_step(tmp_path, changed=False) == ["add --all -- gitops", "diff --cached --quiet"]
