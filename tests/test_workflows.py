"""The GitHub workflows: valid against GitHub's workflow schema, pinned, least-privileged, one operation per stack."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support import PROJECT_ROOT
from tests.support.stacks import environment_kind

WORKFLOWS = sorted(p for p in (PROJECT_ROOT / ".github/workflows").glob("*.yml") if p.name != "gitops.yml")
"""gitops.yml, the one job that pushes (render-mode stacks), has its own tests: tests/test_workflow_gitops.py."""
LONG_LIVED = ["aks-kueue-dev", "aks-kueue-china", "ack-acs-dev", "multicloud", "burst"]
README_INSTALL = "python3 -m pip install -r requirements-dev.txt"
PINNED = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40}$")


def load(name: str) -> dict[str, Any]:
    # PyYAML reads the key `on` as True (YAML 1.1); GitHub reads it as the string.
    document = yaml.safe_load((PROJECT_ROOT / ".github/workflows" / name).read_text())
    document["on"] = document.pop(True)
    return document


def steps(job: dict[str, Any]) -> list[dict[str, Any]]:
    return job.get("steps") or []


def all_jobs() -> list[tuple[str, str, dict[str, Any]]]:
    return [(path.name, name, job) for path in WORKFLOWS for name, job in load(path.name)["jobs"].items()]


def runs_pulumi(job: dict[str, Any]) -> bool:
    return any("pulumi/actions" in s.get("uses", "") or "tools.ephemeral" in s.get("run", "") for s in steps(job))


def test_there_are_the_five_workflows():
    assert [p.name for p in WORKFLOWS] == ["deploy.yml", "drift.yml", "e2e.yml", "ephemeral.yml", "preview.yml"]


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda p: p.name)
def test_each_workflow_passes_githubs_workflow_schema(workflow):
    result = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows", str(workflow)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_third_party_action_is_pinned_to_a_full_commit_sha_with_its_tag_beside_it():
    for path in WORKFLOWS:
        for line in path.read_text().splitlines():
            match = re.match(r"^\s*(?:-\s+)?uses:\s*(\S+)\s*(#.*)?$", line)
            if not match or match.group(1).startswith("./"):
                continue
            assert PINNED.match(match.group(1)), f"{path.name}: {line.strip()}"
            assert re.match(r"# v\d+\.\d+\.\d+$", match.group(2) or ""), f"{path.name}: name the tag: {line.strip()}"


def test_one_action_one_sha_across_all_workflows():
    pins: dict[str, set[str]] = {}
    for path in WORKFLOWS:
        for action, sha in re.findall(r"uses:\s*([\w./-]+)@([0-9a-f]{40})", path.read_text()):
            pins.setdefault(action, set()).add(sha)
    assert {action: len(shas) for action, shas in pins.items()} == {
        "actions/checkout": 1,
        "actions/setup-python": 1,
        "azure/login": 1,
        "pulumi/actions": 1,
    }


def test_no_workflow_grants_a_default_token_permission_and_every_job_names_its_own():
    for path in WORKFLOWS:
        assert load(path.name)["permissions"] == {}, path.name
    for workflow, name, job in all_jobs():
        assert isinstance(job.get("permissions"), dict) and job["permissions"], f"{workflow}: {name}"
        assert "write-all" not in str(job["permissions"])
        assert job["permissions"].get("contents", "read") == "read", f"{workflow}: {name} never pushes"


def test_only_the_jobs_that_need_them_may_comment_sign_in_or_write_issues():
    granted = {(w, n): {k for k, v in job["permissions"].items() if v == "write"} for w, n, job in all_jobs()}
    assert granted == {
        ("deploy.yml", "up"): {"id-token"},
        ("drift.yml", "drift"): {"id-token"},
        ("drift.yml", "report"): {"issues"},
        ("e2e.yml", "kind"): set(),
        ("ephemeral.yml", "up"): {"id-token"},
        ("ephemeral.yml", "down"): {"id-token"},
        ("preview.yml", "preview"): {"id-token", "pull-requests"},
    }


def test_every_job_that_runs_pulumi_is_alone_on_its_stack():
    for workflow, name, job in all_jobs():
        if not runs_pulumi(job):
            continue
        group = (job.get("concurrency") or load(workflow).get("concurrency") or {}).get("group", "")
        assert "matrix.stack" in group or "pull_request.number" in group, f"{workflow}: {name}"
    for workflow, name in [("deploy.yml", "up"), ("drift.yml", "drift")]:
        assert load(workflow)["jobs"][name]["concurrency"]["cancel-in-progress"] is False
    assert load("ephemeral.yml")["concurrency"]["cancel-in-progress"] is False


def matrix(workflow: str, job: str) -> list[dict[str, Any]]:
    return load(workflow)["jobs"][job]["strategy"]["matrix"]["include"]


def test_preview_up_and_drift_cover_every_long_lived_stack_alike():
    stacks = matrix("preview.yml", "preview")
    assert [s["stack"] for s in stacks] == LONG_LIVED
    assert matrix("deploy.yml", "up") == stacks
    assert matrix("drift.yml", "drift") == stacks
    shipped = {
        p.name.removeprefix("Pulumi.").removesuffix(".yaml"): p for p in (PROJECT_ROOT / "stacks").glob("*.yaml")
    }
    assert {s for s, path in shipped.items() if environment_kind(path) != "ephemeral"} <= set(LONG_LIVED)


def pulumi_step(workflow: str, job: str) -> dict[str, Any]:
    return next(s for s in steps(load(workflow)["jobs"][job]) if "pulumi/actions" in s.get("uses", ""))


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


def test_preview_runs_the_policy_pack_on_the_venv_it_installed_the_packs_requirements_into():
    job = load("preview.yml")["jobs"]["preview"]
    runs = [s.get("run", "") for s in steps(job)]
    venv = next(i for i, run in enumerate(runs) if '.venv/bin" >> "$GITHUB_PATH"' in run)
    install = runs.index("python3 -m pip install -r policies/requirements.txt")
    preview = next(i for i, s in enumerate(steps(job)) if "pulumi/actions" in s.get("uses", ""))
    assert venv < install < preview, "the pack's requirements go into the .venv whose python3 runs the pack"
    pack = PROJECT_ROOT / pulumi_step("preview.yml", "preview")["with"]["policyPacks"]
    assert pack == PROJECT_ROOT / "policies"
    # A Python pack without a virtualenv option runs on `python3` from the PATH: the .venv the steps above put first.
    assert yaml.safe_load((pack / "PulumiPolicy.yaml").read_text())["runtime"] == "python"
    assert (pack / "__main__.py").is_file() and (pack / "requirements.txt").is_file()


def test_every_pulumi_job_installs_the_project_the_readme_way_and_the_tools_the_program_runs():
    assert README_INSTALL in (PROJECT_ROOT / "README.md").read_text()
    for workflow, name, job in all_jobs():
        if not runs_pulumi(job) or workflow == "e2e.yml":  # local backend, a kind cluster: tests/test_workflow_e2e.py
            continue
        scripts = "\n".join(s.get("run", "") for s in steps(job))
        assert README_INSTALL in scripts and "python3 -m venv .venv" in scripts, f"{workflow}: {name}"
        assert "deploy/ci/install-tools.sh" in scripts, f"{workflow}: {name}"
        assert "PULUMI_ACCESS_TOKEN" in str(job.get("env")) + str(load(workflow).get("env")), f"{workflow}: {name}"


def test_azure_signs_in_by_oidc_and_no_cloud_secret_is_written_in_a_workflow():
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


def test_the_cli_version_is_the_one_the_sdk_is_pinned_to():
    version = (PROJECT_ROOT / "deploy/ci/pulumi-version").read_text().strip()
    pin = re.search(r"^pulumi~=(\d+\.\d+)\.\d+", (PROJECT_ROOT / "requirements-dev.txt").read_text(), re.M)
    assert pin is not None and version.startswith(pin.group(1) + ".")


def report_script() -> str:
    return next(s["run"] for s in steps(load("drift.yml")["jobs"]["report"]) if "gh issue" in s.get("run", ""))


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
    calls = run_report(tmp_path, "ack-acs-dev failure", "")
    created = [c for c in calls if c.startswith("issue create")]
    assert len(created) == 1 and "--title Drift on stack ack-acs-dev --label drift" in created[0]


def test_drift_comments_on_the_open_issue_instead_of_opening_another(tmp_path):
    calls = run_report(tmp_path, "ack-acs-dev failure", "12")
    assert [c.split(" --body")[0] for c in calls if c.startswith("issue c")] == ["issue comment 12"]


def test_a_clean_stack_closes_its_drift_issue_and_a_cancelled_one_is_left_alone(tmp_path):
    assert [
        c.split(" --comment")[0] for c in run_report(tmp_path / "ok", "multicloud success", "3") if "close" in c
    ] == ["issue close 3"]
    assert not [
        c
        for c in run_report(tmp_path / "cancelled", "multicloud cancelled", "3")
        if c.startswith(("issue c", "issue cr"))
    ]
