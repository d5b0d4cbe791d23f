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


def job(name: str = "render") -> dict[str, Any]:
    return load()["jobs"][name]


def step(fragment: str, job_name: str = "render") -> dict[str, Any]:
    return next(s for s in job(job_name)["steps"] if fragment in s.get("uses", "") or fragment in s.get("name", ""))


def test_it_runs_on_pushes_to_main_and_by_hand_for_the_gitops_stacks_of_stacks_json():
    workflow = load()
    assert workflow["on"]["push"]["branches"] == ["main"] and "workflow_dispatch" in workflow["on"]
    assert list(workflow["jobs"]) == ["stacks", "render", "commit"]
    matrix_step = next(s for s in workflow["jobs"]["stacks"]["steps"] if s.get("id") == "matrix")
    assert matrix_step["run"] == "python3 deploy/ci/stacks.py matrix gitops"
    assert job()["needs"] == "stacks" and job("commit")["needs"] == ["stacks", "render"]
    for name in ("render", "commit"):
        assert job(name)["strategy"]["matrix"] == "${{ fromJSON(needs.stacks.outputs.matrix) }}"
        assert job(name)["if"] == "needs.stacks.outputs.count != '0'", "an empty matrix is an error"


def test_the_render_job_reads_only_and_pulumi_gets_no_github_token():
    """R4: pulumi/actions' `github-token` input defaults to github.token, which the Automation API hands the CLI, the
    program and its providers: the job that runs them holds a read-only token and passes pulumi none."""
    assert load()["permissions"] == {}
    assert job()["permissions"] == {"contents": "read", "id-token": "write"}
    assert job()["concurrency"] == {"group": "pulumi-up-${{ matrix.stack }}", "cancel-in-progress": False}
    assert job()["concurrency"]["group"].startswith("pulumi-up-"), "the group deploy.yml's up takes for the stack"
    assert job()["environment"] == "production"
    assert step("pulumi/actions")["with"]["github-token"] == ""
    assert "github.token" not in str(job()) and "GITHUB_TOKEN" not in str(job())


def test_the_commit_job_runs_no_pulumi_and_none_of_the_projects_code():
    commit = job("commit")
    assert commit["permissions"] == {"contents": "read"}, "the push uses the App's token, not GITHUB_TOKEN"
    assert commit["environment"] == "gitops" and commit["runs-on"] == "ubuntu-latest"
    uses = {s["uses"].split("@")[0] for s in commit["steps"] if "uses" in s}
    assert uses == {"actions/checkout", "actions/download-artifact", "actions/create-github-app-token"}
    scripts = "\n".join(s.get("run", "") for s in commit["steps"])
    for runs_code in ("python", "pip", ".venv", "pulumi", "tools.", "deploy/ci"):
        assert runs_code not in scripts, runs_code


def test_the_commit_pushes_with_a_github_app_installation_token_a_ruleset_can_let_bypass():
    """W1: a ruleset lists Apps, roles and teams as bypass actors, never GITHUB_TOKEN's github-actions[bot]."""
    token = step("create-github-app-token", "commit")
    assert token["id"] == "app-token"
    assert token["with"] == {
        "client-id": "${{ vars.GITOPS_APP_CLIENT_ID }}",
        "private-key": "${{ secrets.GITOPS_APP_PRIVATE_KEY }}",
        "permission-contents": "write",
    }
    names = [s.get("name") or s["uses"] for s in job("commit")["steps"]]
    assert names.index(token["name"]) == len(names) - 2, "minted last, just before the push that uses it"
    env = step("Commit", "commit")["env"]
    assert env["GITHUB_TOKEN"] == "${{ steps.app-token.outputs.token }}"
    assert env["GIT_COMMITTER_NAME"] == "${{ steps.app-token.outputs.app-slug }}[bot]"


def test_the_commit_job_downloads_the_artifact_the_render_job_uploads():
    upload, download = step("upload-artifact")["with"], step("download-artifact", "commit")["with"]
    assert upload["name"] == download["name"] == "render-${{ matrix.stack }}"
    assert upload["path"] == download["path"] == "${{ runner.temp }}/render"
    assert upload["if-no-files-found"] == "error" and upload["include-hidden-files"] is True
    names = [s.get("name") or s["uses"] for s in job()["steps"]]
    assert names.index("pulumi up (every object rewritten, alwaysRender)") < names.index(step("Stage")["name"])
    assert names[-1] == step("upload-artifact")["uses"]


@pytest.mark.parametrize("workflow", ["deploy.yml", "gitops.yml", "ci.yml"])
def test_a_push_of_renders_alone_starts_no_workflow_again(workflow):
    """An App token's push, unlike GITHUB_TOKEN's, starts workflows: the renders are under gitops/, ignored."""
    assert "gitops/**" in workflows.load(workflow)["on"]["push"]["paths-ignore"]


def test_actions_are_pinned_to_the_exact_shas_the_other_workflows_use():
    others: dict[str, set[str]] = {}
    for path in WORKFLOW.parent.glob("*.yml"):
        if path != WORKFLOW:
            for action, sha in re.findall(r"uses:\s*([\w./-]+)@([0-9a-f]{40})", path.read_text()):
                others.setdefault(action, set()).add(sha)
    lines = [line for line in WORKFLOW.read_text().splitlines() if re.match(r"^\s*(-\s+)?uses:", line)]
    assert len(lines) == 8  # checkout in all three jobs
    for line in lines:
        match = re.match(r"^\s*(?:-\s+)?uses:\s*([\w./-]+)@([0-9a-f]{40}) # v\d+\.\d+\.\d+$", line)
        assert match, line
        assert others.get(match.group(1), {match.group(2)}) == {match.group(2)}, line


def test_secrets_and_the_tokens_are_only_in_the_steps_that_need_them():
    for name in ("render", "commit"):
        assert "secrets." not in str(job(name).get("env")) and "token" not in str(job(name).get("env")).lower()
        assert step("actions/checkout", name)["with"] == {"persist-credentials": False}
    holders = {s.get("name") or s["uses"] for s in job()["steps"] if "secrets." in str(s)}
    assert holders == {"pulumi up (every object rewritten, alwaysRender)"}
    pulumi = step("pulumi/actions")
    wanted = {"PULUMI_ACCESS_TOKEN", "ALIBABA_CLOUD_ROLE_ARN", "ALICLOUD_CREDENTIALS_URI", "ARM_CLIENT_ID"}
    assert wanted <= set(pulumi["env"])
    assert "secrets." not in str(pulumi["with"])
    commit_holders = {
        s.get("name") or s["uses"] for s in job("commit")["steps"] if "secrets." in str(s) or "token" in str(s)
    }
    minted = step("create-github-app-token", "commit")["name"]
    assert commit_holders == {minted, "Commit the rendered directory to main"}


def test_pulumi_up_renders_after_the_directory_is_cleared_and_before_the_commit():
    names = [s.get("name") or s["uses"] for s in job()["steps"]]
    clear, up, stage = (
        next(i for i, n in enumerate(names) if fragment in n) for fragment in ("clear its", "pulumi up", "Stage")
    )
    assert clear < up < stage
    pulumi = step("pulumi/actions")["with"]
    assert pulumi["command"] == "up" and pulumi["suppress-outputs"] is True
    assert pulumi["pulumi-version-file"] == "deploy/ci/pulumi-version"
    assert step("Stage")["env"]["RENDER_DIR"] == "${{ steps.render-dir.outputs.dir }}"
    assert step("Commit", "commit")["env"]["RENDER_DIR"] == "${{ steps.render-dir.outputs.dir }}"
    assert step("clear its")["id"] == "render-dir" and step("in place", "commit")["id"] == "render-dir"


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


def clear_for_render_to(workspace: Path, directory: str) -> subprocess.CompletedProcess[str]:
    """The clear step for aks-kueue-dev rendering to ``directory``."""
    edited_stack(
        AKS_STACK,
        lambda c: c.update({"elastic-capacity:gitops": {"renderToDirectory": directory}}),
        workspace / "stacks",
    )
    return run_clear_step(workspace, "aks-kueue-dev")


def test_a_render_stack_gets_its_directory_cleared_and_named_for_the_commit(workspace):
    result = clear_for_render_to(workspace, "./gitops/")
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
        ["bash", "-e", "-c", step("Commit", "commit")["run"]], env=env, capture_output=True, text=True, check=False
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


def test_a_render_directory_outside_gitops_is_refused_before_pulumi_runs(workspace):
    """Only gitops/ is ignored by the push triggers: a render elsewhere would start deploy.yml and gitops.yml again."""
    result = clear_for_render_to(workspace, "manifests/aks")
    assert result.returncode != 0
    refusal = "renderToDirectory is manifests/aks: gitops.yml commits only gitops/ or a directory under it"
    assert refusal in result.stderr
    assert (workspace / "gitops" / "aks" / "stale.yaml").exists()


def run_script(script: str, cwd: Path, runner_temp: Path, **env: str) -> subprocess.CompletedProcess[str]:
    output = runner_temp / "github-output"
    output.touch()
    return subprocess.run(
        ["bash", "-e", "-c", script],
        cwd=cwd,
        env={**os.environ, "RUNNER_TEMP": str(runner_temp), "GITHUB_OUTPUT": str(output), **env},
        capture_output=True,
        text=True,
        check=False,
    )


def tree(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text() for p in sorted(root.rglob("*")) if p.is_file()}


def test_the_commit_job_puts_exactly_what_the_render_job_staged_in_place_of_the_directory(tmp_path):
    rendered, checkout, runner_temp = tmp_path / "render-job", tmp_path / "commit-job", tmp_path / "runner"
    for root in (rendered, checkout, runner_temp):
        root.mkdir()
    (rendered / "gitops/aks/10-kueue").mkdir(parents=True)
    (rendered / "gitops/aks/10-kueue/crd.yaml").write_text("kind: CustomResourceDefinition\n")
    (rendered / "gitops/aks/.argocd-source.yaml").write_text("hidden: too\n")
    (checkout / "gitops/aks").mkdir(parents=True)
    (checkout / "gitops/aks/gone.yaml").write_text("kind: Gone\n")
    staged = run_script(step("Stage")["run"], rendered, runner_temp, RENDER_DIR="gitops/aks")
    assert staged.returncode == 0, staged.stderr
    placed = run_script(step("in place", "commit")["run"], checkout, runner_temp)
    assert placed.returncode == 0, placed.stderr
    assert tree(checkout / "gitops/aks") == tree(rendered / "gitops/aks")
    assert (runner_temp / "github-output").read_text() == "dir=gitops/aks\n"


@pytest.mark.parametrize("staged_dir", ["stacks", "gitops/../stacks", "/etc", "gitopsx"])
def test_the_commit_job_refuses_a_staged_path_outside_gitops(tmp_path, staged_dir):
    runner_temp = tmp_path / "runner"
    (runner_temp / "render").mkdir(parents=True)
    (runner_temp / "render" / "dir.txt").write_text(staged_dir + "\n")
    (tmp_path / "stacks").mkdir()
    result = run_script(step("in place", "commit")["run"], tmp_path, runner_temp)
    assert result.returncode != 0 and "::error::the render job staged" in result.stdout
    assert (tmp_path / "stacks").is_dir()
