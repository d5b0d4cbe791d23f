"""The workflows' credentials: one GitHub environment per identity, secrets only in the steps that use them, and
sign-ins that never depend on an az session outliving its federated token (docs/operations.md#credentials)."""

from __future__ import annotations

import re

import pytest

from components import yaml_text
from components.config.entra_id import KubeloginConfig
from components.kubelogin import non_interactive
from tests.support.workflows import (
    OURS,
    RENDERS,
    SECRET,
    WORKFLOWS,
    all_jobs,
    load,
    pulumi_jobs,
    runs_pulumi,
    step_env,
    steps,
)
from tools.world.identities import IDENTITIES

AKS_SERVER_APP = "6dae42f8-4368-4678-94ff-3960e28e3630"


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
        ("drift.yml", "drift"): "drift",
        ("ephemeral.yml", "up"): "ephemeral",
        ("ephemeral.yml", "down"): "ephemeral",
        ("gitops.yml", "render"): "production",
    }
    assert set(environments.values()) == {identity.environment for identity in IDENTITIES.values()}, (
        "every environment holds an identity tools/world/identities.py (and docs/operations.md) describes"
    )


def test_kubelogin_signs_in_by_workload_identity_in_global_azure_and_no_az_session_is_needed_there():
    for workflow, name, job in pulumi_jobs():
        assert job["permissions"]["id-token"] == "write", f"{workflow}: {name}"
        if workflow == RENDERS:
            continue  # its providers write files and never sign in to a cluster: no kubelogin at all
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
    args = yaml_text.load(non_interactive(yaml_text.dump(aks, sort_keys=True), KubeloginConfig()))["users"][0]["user"][
        "exec"
    ]["args"]
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
