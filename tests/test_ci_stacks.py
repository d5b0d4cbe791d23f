"""deploy/stacks.json, the one place that says who deploys each long-lived stack, and deploy/ci/stacks.py, which turns
it into the workflows' matrix and tells the drift check whether a stack is deployed yet."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from components import yaml_text
from tests.support import PROJECT_ROOT
from tests.support.workflows import RUNNER_PYTHON3

STACKS_JSON = PROJECT_ROOT / "deploy/stacks.json"


def stack_kind(path: Path) -> str:
    config = yaml_text.load(path.read_text())["config"]
    return config.get("elastic-capacity:environment", {}).get("kind", "dev")


def run_stacks(*args: str, env: dict[str, str] | None = None, cwd: Path = PROJECT_ROOT) -> subprocess.CompletedProcess:
    script = PROJECT_ROOT / "deploy/ci/stacks.py"
    return subprocess.run(
        [*RUNNER_PYTHON3, str(script), *args], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )


def test_the_shipped_deployers_runners_and_clouds():
    assert json.loads(STACKS_JSON.read_text()) == {
        "stacks": {
            "aks-kueue-dev": {"deployer": "github", "azure": "global", "alibaba": False, "runner": "hosted"},
            "aks-kueue-china": {
                "deployer": "github",
                "azure": "china",
                "alibaba": False,
                "runner": "AZURE_CHINA_RUNNER",
            },
            "ack-acs-dev": {"deployer": "operator", "azure": "none", "alibaba": True, "runner": "hosted"},
            "multicloud": {"deployer": "github", "azure": "global", "alibaba": True, "runner": "FIXED_EGRESS_RUNNER"},
            "burst": {"deployer": "github", "azure": "global", "alibaba": True, "runner": "hosted"},
            "aks-gpu-spot": {"deployer": "github", "azure": "global", "alibaba": False, "runner": "hosted"},
        }
    }


def test_every_long_lived_stack_file_is_listed_and_no_template_is():
    files = {p.name.removeprefix("Pulumi.").removesuffix(".yaml"): p for p in (PROJECT_ROOT / "stacks").glob("*.yaml")}
    long_lived = {name for name, path in files.items() if stack_kind(path) != "ephemeral"}
    assert set(json.loads(STACKS_JSON.read_text())["stacks"]) == long_lived
    assert {"ephemeral", "ephemeral-shared"} <= set(files) - long_lived


def test_the_clouds_listed_are_the_clouds_each_stack_file_configures():
    for name, entry in json.loads(STACKS_JSON.read_text())["stacks"].items():
        config = yaml_text.load((PROJECT_ROOT / f"stacks/Pulumi.{name}.yaml").read_text())["config"]
        aks = config.get("elastic-capacity:aks")
        azure = "none" if aks is None else "china" if "china" in str(aks.get("location", "")).lower() else "global"
        assert (entry["azure"], entry["alibaba"]) == (azure, "elastic-capacity:ack" in config), name


def test_the_matrix_job_writes_the_github_stacks_to_the_step_output(tmp_path):
    output = tmp_path / "output"
    result = run_stacks("matrix", env={**os.environ, "GITHUB_OUTPUT": str(output)})
    assert result.returncode == 0, result.stdout + result.stderr
    answers = dict(line.partition("=")[::2] for line in output.read_text().splitlines())
    assert answers["count"] == "5"
    assert json.loads(answers["matrix"])["include"] == [
        {"stack": "aks-kueue-dev", "azure": "global", "alibaba": False, "runner": "hosted"},
        {"stack": "aks-kueue-china", "azure": "china", "alibaba": False, "runner": "AZURE_CHINA_RUNNER"},
        {"stack": "multicloud", "azure": "global", "alibaba": True, "runner": "FIXED_EGRESS_RUNNER"},
        {"stack": "burst", "azure": "global", "alibaba": True, "runner": "hosted"},
        {"stack": "aks-gpu-spot", "azure": "global", "alibaba": False, "runner": "hosted"},
    ]


def test_the_gitops_matrix_holds_the_render_stacks_and_counts_them_so_an_empty_one_is_skipped(tmp_path):
    (tmp_path / "deploy/ci").mkdir(parents=True)
    (tmp_path / "deploy/ci/stacks.py").write_text((PROJECT_ROOT / "deploy/ci/stacks.py").read_text())
    stacks = json.loads(STACKS_JSON.read_text())

    def gitops_answers() -> dict[str, str]:
        (tmp_path / "deploy/stacks.json").write_text(json.dumps(stacks))
        output = tmp_path / "output"
        output.unlink(missing_ok=True)
        result = subprocess.run(
            [*RUNNER_PYTHON3, "deploy/ci/stacks.py", "matrix", "gitops"],
            cwd=tmp_path,
            env={**os.environ, "GITHUB_OUTPUT": str(output)},
            capture_output=True,
            text=True,
            check=False,
        )
        assert result.returncode == 0, result.stdout + result.stderr
        return dict(line.partition("=")[::2] for line in output.read_text().splitlines())

    assert gitops_answers() == {"matrix": '{"include":[]}', "count": "0"}, "no shipped stack renders"
    stacks["stacks"]["aks-kueue-dev"]["deployer"] = "gitops"
    answers = gitops_answers()
    assert answers["count"] == "1"
    assert json.loads(answers["matrix"])["include"] == [
        {"stack": "aks-kueue-dev", "azure": "global", "alibaba": False, "runner": "hosted"}
    ]


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        (
            {"deployer": "gitlab", "azure": "none", "alibaba": True, "runner": "hosted"},
            "::error::stacks.x.deployer: 'gitlab' is not allowed; allowed: ['github', 'gitops', 'operator']",
        ),
        (
            {"deployer": "github", "azure": "none", "alibaba": True, "runner": "self-hosted"},
            "::error::stacks.x.runner: 'self-hosted' is not allowed; allowed: 'hosted' or the name of a repository "
            "variable holding a self-hosted runner's label (upper case, e.g. AZURE_CHINA_RUNNER)",
        ),
        (
            {"deployer": "github", "azure": "none", "alibaba": True},
            "::error::stacks.x: ['alibaba', 'azure', 'deployer'] is not allowed; give exactly "
            "['alibaba', 'azure', 'deployer', 'runner']",
        ),
    ],
    ids=["deployer", "runner", "missing-key"],
)
def test_a_bad_entry_is_one_error_line_naming_the_key_and_what_is_allowed(tmp_path, entry, message):
    (tmp_path / "deploy/ci").mkdir(parents=True)
    (tmp_path / "deploy/ci/stacks.py").write_text((PROJECT_ROOT / "deploy/ci/stacks.py").read_text())
    (tmp_path / "deploy/stacks.json").write_text(json.dumps({"stacks": {"x": entry}}))
    result = subprocess.run(
        [*RUNNER_PYTHON3, "deploy/ci/stacks.py", "matrix"], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert (result.returncode, result.stdout.splitlines()) == (1, [message])


def fake_pulumi(tmp_path: Path, select_rc: int, select_err: str, export: str) -> dict[str, str]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "pulumi").write_text(
        "#!/usr/bin/env bash\n"
        f'if [ "$2" = select ]; then echo "{select_err}" >&2; exit {select_rc}; fi\n'
        f"cat <<'EOF'\n{export}\nEOF\n"
    )
    (tmp_path / "pulumi").chmod(0o755)
    return {**os.environ, "PATH": f"{tmp_path}:{os.environ['PATH']}", "GITHUB_OUTPUT": str(tmp_path / "out")}


@pytest.mark.parametrize(
    ("select_rc", "select_err", "export", "answer"),
    [
        (255, "error: no stack named 'acme/burst' found", "", "deployed=false"),
        (0, "", '{"version": 3, "deployment": {"manifest": {}}}', "deployed=false"),
        (
            0,
            "",
            '{"version": 3, "deployment": {"resources": [{"urn": "urn:pulumi:burst::p::pulumi:pulumi:Stack"}]}}',
            "deployed=true",
        ),
    ],
    ids=["no-stack", "created-by-a-preview", "deployed"],
)
def test_the_deployed_check_tells_a_stack_with_resources_from_one_without(
    tmp_path, select_rc, select_err, export, answer
):
    env = fake_pulumi(tmp_path, select_rc, select_err, export)
    result = subprocess.run(
        [*RUNNER_PYTHON3, "deploy/ci/stacks.py", "deployed", "acme/burst"],
        cwd=PROJECT_ROOT,
        env=env,
        text=True,
        check=True,
    )
    assert result.returncode == 0 and (tmp_path / "out").read_text() == answer + "\n"


def test_a_backend_that_cannot_answer_fails_the_drift_job(tmp_path):
    env = fake_pulumi(tmp_path, 255, "error: [401] Unauthorized: No credentials provided or are invalid.", "")
    result = subprocess.run(
        [*RUNNER_PYTHON3, "deploy/ci/stacks.py", "deployed", "burst"],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1 and result.stdout.startswith(
        "::error::pulumi stack select burst failed: error: [401]"
    )
    assert not (tmp_path / "out").exists()


# --- Pull-request stacks: the reaper's list and the cap on live ones (R5) -------------------------------------------


def fake_ephemeral_tools(tmp_path: Path, stacks: list[dict], open_numbers: list[int]) -> dict[str, str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "pulumi").write_text(f"#!/bin/sh\ncat <<'EOF'\n{json.dumps(stacks)}\nEOF\n")
    (bin_dir / "gh").write_text(f"#!/bin/sh\necho '{json.dumps([{'number': n} for n in open_numbers])}'\n")
    for tool in bin_dir.iterdir():
        tool.chmod(0o755)
    return {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "GITHUB_OUTPUT": str(tmp_path / "out")}


def test_the_reaper_takes_down_the_stacks_of_closed_pull_requests_and_those_left_too_long(tmp_path):
    stacks = [
        {"name": "acme/pr-1", "lastUpdate": "2999-01-01T00:00:00.000Z"},  # open and fresh: kept
        {"name": "acme/pr-2", "lastUpdate": "2999-01-01T00:00:00.000Z"},  # closed: reaped
        {"name": "acme/pr-3", "lastUpdate": "2020-01-01T00:00:00.000Z"},  # open, untouched for years: reaped
        {"name": "acme/pr-4", "lastUpdate": "2020-01-01T00:00:00Z", "updateInProgress": True},  # running: kept
        {"name": "acme/aks-kueue-dev", "lastUpdate": "2020-01-01T00:00:00Z"},  # not a pull request's: never
    ]
    env = fake_ephemeral_tools(tmp_path, stacks, [1, 3, 4])
    result = run_stacks("expired", "72", env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = (tmp_path / "out").read_text().splitlines()
    assert json.loads(lines[0].removeprefix("matrix=")) == {
        "include": [{"stack": "acme/pr-2", "number": 2}, {"stack": "acme/pr-3", "number": 3}]
    }
    assert lines[1] == "count=2"


def test_a_new_pull_request_stack_is_refused_once_the_cap_is_reached_and_an_existing_one_is_not(tmp_path):
    env = fake_ephemeral_tools(tmp_path, [{"name": "pr-1"}, {"name": "pr-2"}], [1, 2, 3])
    refused = run_stacks("room", "pr-3", "2", env=env)
    assert refused.returncode == 1
    assert refused.stdout.startswith(
        "::error::2 pull-request environments are live (pr-1, pr-2) and EPHEMERAL_MAX is 2"
    )
    assert run_stacks("room", "pr-2", "2", env=env).returncode == 0, "an existing stack is updated, never refused"
    assert run_stacks("room", "pr-3", "3", env=env).returncode == 0


@pytest.mark.parametrize("args", [["deployed", "burst"], ["expired", "72"], ["room", "pr-1", "3"]])
def test_without_the_cli_each_answer_is_one_line_and_exit_code_2(tmp_path, args):
    """N3: no traceback when the step that installs pulumi (or gh) did not run."""
    empty = tmp_path / "empty"
    empty.mkdir()
    result = run_stacks(*args, env={"PATH": str(empty)})
    assert result.returncode == 2
    assert result.stderr.splitlines() == [result.stderr.strip()] and "Traceback" not in result.stderr
    assert result.stderr.startswith("error: pulumi is not on the PATH")


def test_the_shared_template_asks_the_shared_pool_for_one_smoke_job_per_pull_request():
    """R5: each pull request's ClusterQueue on aks-kueue-dev's scalepool holds its smoke Job and no more, so a few
    open pull requests cannot together queue more than the pool's five nodes."""
    config = yaml_text.load((PROJECT_ROOT / "stacks/Pulumi.ephemeral-shared.yaml").read_text())["config"]
    (queue,) = config["elastic-capacity:queues"]["clusterQueues"]
    quota = {r["name"]: r["nominalQuota"] for r in queue["resourceGroups"][0]["flavors"][0]["resources"]}
    smoke_cpu = 3 * 1.8  # smokeJob's default parallelism and cpu (docs/config-reference.md)
    assert smoke_cpu <= float(quota["cpu"]) < 2 * smoke_cpu
