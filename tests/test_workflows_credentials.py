"""The workflows' credentials: one GitHub environment per identity, secrets only in the steps that use them, and
sign-ins that never depend on an az session outliving its federated token (docs/operations.md#credentials)."""

from __future__ import annotations

import re

import pytest

from components import yaml_text
from components.azure.kubelogin import non_interactive
from components.config.aks.entra_id import KubeloginConfig
from tests.support import PROJECT_ROOT
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
            if "azure/login" in uses or "actions/create-github-app-token" in uses:
                assert not SECRET.search(str(step.get("env", ""))), label
                continue
            if workflow in OURS:
                asks_the_backend = run.startswith("python3 deploy/ci/stacks.py ")  # deployed, expired, room
                assert runs_pulumi(step) or asks_the_backend, f"{label} holds a secret it does not use"
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
        ("gitops.yml", "commit"): "gitops",  # a GitHub App's key: no cloud identity
        ("ephemeral-reaper.yml", "expired"): "ephemeral",
        ("ephemeral-reaper.yml", "down"): "ephemeral",
    }
    assert set(environments.values()) - {"gitops"} == {identity.environment for identity in IDENTITIES.values()}, (
        "every environment holds an identity tools/world/identities.py (and docs/operations.md) describes"
    )


def test_kubelogin_signs_in_afresh_in_both_clouds_and_nothing_reads_an_az_session():
    """Workload identity asks GitHub for a fresh OIDC token at every sign-in; in Azure China, where kubelogin cannot
    ask for a China-audience token, spn signs in with the China app's secret (Azure R7): no cached token expires."""
    for workflow, name, job in pulumi_jobs():
        assert job["permissions"]["id-token"] == "write", f"{workflow}: {name}"
        if workflow == RENDERS:
            continue  # its providers write files and never sign in to a cluster: no kubelogin at all
        for step in filter(runs_pulumi, steps(job)):
            env = step_env(step)
            matrix_job = "matrix.azure" in str(job)  # a matrix of deploy/stacks.json, with its clouds
            wanted = "matrix.azure == 'global' && 'workloadidentity' || 'spn'" if matrix_job else "workloadidentity"
            assert wanted in env["AAD_LOGIN_METHOD"], f"{workflow}: {name}"
            assert "AZURE_CLIENT_ID" in env["AZURE_CLIENT_ID"] and "AZURE_TENANT_ID" in env["AZURE_TENANT_ID"]
            assert "AZURE_FEDERATED_TOKEN_FILE" not in env, "kubelogin asks GitHub itself (ACTIONS_ID_TOKEN_REQUEST_*)"
    for workflow, name, job in all_jobs():
        for step in steps(job):
            assert "azure/login" not in step.get("uses", ""), f"{workflow}: {name}: no az session to outlive"
            assert "get-access-token" not in step.get("run", ""), f"{workflow}: {name}: no token cached for later"


@pytest.mark.parametrize(
    ("workflow", "job"), [("preview.yml", "preview"), ("deploy.yml", "up"), ("drift.yml", "drift")]
)
def test_azure_china_signs_in_with_its_apps_secret_and_only_china_jobs_get_it(workflow, job):
    [step] = filter(runs_pulumi, steps(load(workflow)["jobs"][job]))
    env = step_env(step)
    for key in ("ARM_CLIENT_SECRET", "AZURE_CLIENT_SECRET"):
        assert env[key] == "${{ matrix.azure == 'china' && secrets.AZURE_CHINA_CLIENT_SECRET || '' }}", key
    for key, china in (("ARM_CLIENT_ID", "AZURE_CHINA_CLIENT_ID"), ("ARM_TENANT_ID", "AZURE_CHINA_TENANT_ID")):
        assert f"matrix.azure == 'china' && secrets.{china}" in env[key], "an Alibaba-only job gets no Azure secret"
    assert env["ARM_USE_OIDC"] == "${{ matrix.azure == 'global' }}"


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


def test_no_cloud_secret_is_written_in_a_workflow():
    for path in WORKFLOWS:
        pattern = r"(ALICLOUD_(?!CREDENTIALS_URI)\w+|PULUMI_ACCESS_TOKEN|ARM_CLIENT_SECRET|AZURE_CLIENT_SECRET):\s*(.+)"
        for key, value in re.findall(pattern, path.read_text()):
            assert "secrets." in value, f"{path.name}: {key} must come from a secret"


def test_the_ephemeral_environment_lives_as_long_as_its_pull_request():
    workflow = load("ephemeral.yml")
    types = ["opened", "reopened", "synchronize", "ready_for_review", "closed"]
    assert workflow["on"] == {"pull_request": {"types": types}}
    up, down = workflow["jobs"]["up"], workflow["jobs"]["down"]
    runs = [s["run"] for s in steps(up) if "tools.ephemeral" in s.get("run", "")]
    assert [r.split()[3] for r in runs] == ["up", "check"]
    assert all("--destroy-on-failure" in r for r in runs)
    assert [s["run"].split()[3] for s in steps(down) if "tools.ephemeral" in s.get("run", "")] == ["down"]
    assert "!= 'closed'" in up["if"] and "== 'closed'" in down["if"]
    assert "pr-" in workflow["env"]["STACK"]
    for step in filter(runs_pulumi, steps(up) + steps(down)):
        assert {"PULUMI_ACCESS_TOKEN", "ARM_CLIENT_ID", "ALIBABA_CLOUD_ROLE_ARN"} <= set(step_env(step)), step["run"]


SIGN_IN = "deploy/ci/alibaba-oidc.sh"
ALIBABA_ENV = {"ALIBABA_CLOUD_ROLE_ARN", "ALIBABA_CLOUD_OIDC_PROVIDER_ARN", "ALIBABA_CLOUD_OIDC_TOKEN_FILE"}


def test_no_workflow_holds_an_alibaba_cloud_accesskey():
    """R3: a long-lived AccessKey in the preview and ephemeral environments is in the hands of pull-request code."""
    for path in WORKFLOWS:
        text = path.read_text()
        for static in ("ALICLOUD_ACCESS_KEY", "ALICLOUD_SECRET_KEY", "secrets.ALICLOUD", "ALIBABA_CLOUD_ACCESS_KEY"):
            assert static not in text, f"{path.name}: {static}"


def test_alibaba_cloud_signs_in_by_oidc_before_each_pulumi_step_that_reaches_it():
    script = (PROJECT_ROOT / SIGN_IN).read_text()
    port = re.search(r'port="\$\{ALIBABA_CREDENTIALS_PORT:-(\d+)\}"', script)
    token_file = re.search(r'token_file="\$RUNNER_TEMP/([\w.-]+)"', script)
    assert port and token_file
    for workflow, name, job in pulumi_jobs():
        label = f"{workflow}: {name}"
        assert job["permissions"].get("id-token") == "write", f"{label}: GitHub hands ID tokens only to id-token: write"
        job_steps = steps(job)
        sign_ins = [i for i, s in enumerate(job_steps) if s.get("run") == SIGN_IN]
        pulumis = [i for i, s in enumerate(job_steps) if runs_pulumi(s)]
        assert len(sign_ins) == 1 and sign_ins[0] < pulumis[0], label
        sign_in = job_steps[sign_ins[0]]
        assert set(sign_in["env"]) == ALIBABA_ENV - {"ALIBABA_CLOUD_OIDC_TOKEN_FILE"} | {"ALIBABA_OIDC_AUDIENCE"}
        assert not SECRET.search(str(sign_in)), f"{label}: ARNs are variables, and no key is needed"
        for i in pulumis:
            env = step_env(job_steps[i])
            assert set(env) >= ALIBABA_ENV, f"{label}: ack-ram-tool reads these"
            assert f"/{token_file.group(1)}" in env["ALIBABA_CLOUD_OIDC_TOKEN_FILE"], label
            assert "runner.temp" in env["ALIBABA_CLOUD_OIDC_TOKEN_FILE"], label
            assert f"http://127.0.0.1:{port.group(1)}/" in env["ALICLOUD_CREDENTIALS_URI"], label
        if "matrix.alibaba" in str(sign_in.get("if", "")):
            assert "matrix.alibaba &&" in step_env(job_steps[pulumis[0]])["ALIBABA_CLOUD_ROLE_ARN"], label


def test_a_draft_pull_request_gets_no_environment_until_it_is_ready():
    """N7: a full AKS + ACK environment per push of a draft costs money for code nobody asked to review yet."""
    up = load("ephemeral.yml")["jobs"]["up"]
    assert "!github.event.pull_request.draft" in up["if"]
    assert "ready_for_review" in load("ephemeral.yml")["on"]["pull_request"]["types"]
    assert "draft" not in load("ephemeral.yml")["jobs"]["down"]["if"], "a closed draft's stack still goes"


def test_a_new_environment_waits_for_room_under_ephemeral_max_before_up():
    job_steps = steps(load("ephemeral.yml")["jobs"]["up"])
    runs = [s.get("run", "") for s in job_steps]
    room = next(i for i, run in enumerate(runs) if "deploy/ci/stacks.py room" in run)
    up = next(i for i, run in enumerate(runs) if "tools.ephemeral up" in run)
    assert room < up
    assert runs[room] == 'python3 deploy/ci/stacks.py room "$STACK" "$EPHEMERAL_MAX"'
    assert job_steps[room]["env"]["EPHEMERAL_MAX"] == "${{ vars.EPHEMERAL_MAX || '3' }}"


def test_the_reaper_takes_down_expired_pull_request_stacks_every_night_beside_no_other_operation_on_them():
    """R5: a failed `down`, a pull request left open, an `up` killed by its limit: all leave a stack behind."""
    reaper = load("ephemeral-reaper.yml")
    assert "schedule" in reaper["on"] and reaper["permissions"] == {}
    expired, down = reaper["jobs"]["expired"], reaper["jobs"]["down"]
    listing = next(s for s in steps(expired) if s.get("id") == "expired")
    assert listing["run"] == 'python3 deploy/ci/stacks.py expired "$TTL_HOURS"'
    assert expired["permissions"] == {"contents": "read", "pull-requests": "read"}
    assert down["strategy"]["matrix"] == "${{ fromJSON(needs.expired.outputs.matrix) }}"
    assert down["if"] == "needs.expired.outputs.count != '0'"
    assert down["strategy"]["max-parallel"] <= 2
    assert down["environment"] == expired["environment"] == "ephemeral"
    # The same concurrency group as ephemeral.yml's, per pull request: never beside its up or down.
    assert down["concurrency"]["group"] == "ephemeral-pr-${{ matrix.number }}"
    assert load("ephemeral.yml")["concurrency"]["group"] == "ephemeral-pr-${{ github.event.pull_request.number }}"
    (run,) = [s["run"] for s in steps(down) if "tools.ephemeral" in s.get("run", "")]
    (closed,) = [
        s["run"] for s in steps(load("ephemeral.yml")["jobs"]["down"]) if "tools.ephemeral" in s.get("run", "")
    ]
    assert run == closed, "the reaper takes a stack down exactly as a closed pull request does"
    assert (
        step_env(next(s for s in steps(down) if runs_pulumi(s))).keys()
        == step_env(next(s for s in steps(load("ephemeral.yml")["jobs"]["down"]) if runs_pulumi(s))).keys()
    )


def test_the_production_gate_says_which_github_plans_enforce_required_reviewers():
    """R6: on a private Team repository `production` is only a branch rule; a private Free one has no environments."""
    header = "\n".join(
        line.lstrip("# ")
        for line in (PROJECT_ROOT / ".github/workflows/deploy.yml").read_text().splitlines()
        if line[:1] == "#"
    )
    row = next(
        line
        for line in (PROJECT_ROOT / "docs/operations.md").read_text().splitlines()
        if line.startswith("| `production`")
    )
    for text in (" ".join(header.split()), row):
        assert "public repository or GitHub Enterprise" in text
        assert "Team" in text and "Free" in text and "no environments" in text


def test_the_pull_request_environment_is_checked_by_the_policy_pack_installed_before_it():
    """N9: the environments that prove a pull request meet the mandatory policies deploy.yml enforces."""
    job_steps = steps(load("ephemeral.yml")["jobs"]["up"])
    runs = [" ".join(s.get("run", "").split()) for s in job_steps]
    install = runs.index("python3 -m pip install --require-hashes -r policies/requirements.txt")
    up = next(i for i, run in enumerate(runs) if run.startswith("python -m tools.ephemeral up"))
    assert install < up and "--policy-pack policies" in runs[up]
