"""drift.yml: a stack not deployed yet is skipped and says so, a checked one is reported, one issue per stack."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support.workflows import load, named, step_env, steps


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


@pytest.mark.skipif(
    shutil.which("jq") is None,
    reason="jq is not on PATH (gh evaluates the same --jq filter): apt-get install jq, or brew install jq",
)
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
            {
                "name": "drift aks-kueue-china",
                "conclusion": "failure",
                "steps": [{"name": "Check that the stack's self-hosted runner is configured", "conclusion": "failure"}],
            },
        ]
    }
    result = subprocess.run(
        ["jq", "-r", jq_filter.group(1)], input=json.dumps(jobs), capture_output=True, text=True, check=True
    )
    assert result.stdout.splitlines() == [
        "multicloud not-deployed",
        "burst success",
        "aks-kueue-dev failure",
        "aks-kueue-china no-runner",
    ]
    first = steps(load("drift.yml")["jobs"]["drift"])[0]
    assert first["name"].startswith("Check that the stack"), "the step the report reads"


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


def test_an_unset_runner_variable_is_reported_as_an_error_and_opens_no_drift_issue(tmp_path):
    """N2: a configuration error is not drift; nothing was compared."""
    log = tmp_path / "gh.log"
    calls = run_report(tmp_path, "aks-kueue-china no-runner", "")
    assert not [c for c in calls if c.startswith("issue")]
    assert log.exists()


def test_the_issue_body_does_not_claim_a_preview_fails_during_an_update():
    """Pulumi Cloud lets a preview run while an update runs (pulumi/pulumi#8642)."""
    assert "fails while an update" not in report_script()
