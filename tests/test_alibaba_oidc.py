"""deploy/ci/alibaba-oidc.sh, run as a workflow step runs it, with stand-ins for ``curl`` (GitHub's ID-token endpoint,
then the credentials server's answer) and ``ack-ram-tool``: the token lands in a file only the job's user reads and
stays fresh, ack-ram-tool serves the credentials from the OIDC variables, and a missing variable stops the job."""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import subprocess
import time
from pathlib import Path

import pytest

from tests.support import PROJECT_ROOT

SCRIPT = PROJECT_ROOT / "deploy" / "ci" / "alibaba-oidc.sh"
VARIABLES = {
    "ACTIONS_ID_TOKEN_REQUEST_URL": "https://token.actions.example/?api-version=2.0",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "request-token",
    "ALIBABA_CLOUD_ROLE_ARN": "acs:ram::123:role/github-preview",
    "ALIBABA_CLOUD_OIDC_PROVIDER_ARN": "acs:ram::123:oidc-provider/github",
}


def standins(tmp_path: Path) -> Path:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "calls.log"
    count = tmp_path / "tokens"
    (bin_dir / "curl").write_text(
        "#!/usr/bin/env bash\n"
        f'echo "curl $*" >> {log}\n'
        'case "$*" in\n'
        "  *token.actions.example*audience=sts.aliyuncs.com*)\n"
        f"    n=$(( $(cat {count} 2>/dev/null || echo 0) + 1 )); echo $n > {count}\n"
        '    printf \'{"count": 1, "value": "id-token-%s"}\' "$n" ;;\n'
        "  *127.0.0.1:6666*) exit 0 ;;\n"
        "  *) exit 22 ;;\n"
        "esac\n"
    )
    (bin_dir / "ack-ram-tool").write_text(
        "#!/usr/bin/env bash\n"
        f'echo "ack-ram-tool $* role=$ALIBABA_CLOUD_ROLE_ARN idp=$ALIBABA_CLOUD_OIDC_PROVIDER_ARN '
        f'file=$ALIBABA_CLOUD_OIDC_TOKEN_FILE" >> {log}\n'
        "exec sleep 60\n"
    )
    for tool in bin_dir.iterdir():
        tool.chmod(0o755)
    return bin_dir


def run(tmp_path: Path, **overrides: str) -> subprocess.CompletedProcess[str]:
    runner_temp = tmp_path / "runner-temp"
    runner_temp.mkdir(exist_ok=True)
    env = {**os.environ, **VARIABLES, "RUNNER_TEMP": str(runner_temp), "ALIBABA_OIDC_REFRESH_SECONDS": "1"}
    env["PATH"] = f"{standins(tmp_path)}{os.pathsep}{os.environ['PATH']}"
    env.update(overrides)
    return subprocess.run([str(SCRIPT)], env=env, capture_output=True, text=True, check=False, timeout=30)


def served(tmp_path: Path) -> list[str]:
    """The stand-in ``ack-ram-tool`` calls logged so far."""
    return [call for call in (tmp_path / "calls.log").read_text().splitlines() if call.startswith("ack-ram-tool")]


@pytest.fixture
def signed_in(tmp_path):
    result = run(tmp_path)
    yield tmp_path, result
    pids = tmp_path / "runner-temp" / "alibaba-oidc.pids"
    for pid in pids.read_text().split() if pids.exists() else []:
        with contextlib.suppress(ProcessLookupError):
            os.kill(int(pid), signal.SIGTERM)


def test_the_github_id_token_is_written_for_the_jobs_user_alone_and_kept_fresh(signed_in):
    tmp_path, result = signed_in
    assert result.returncode == 0, result.stdout + result.stderr
    token = tmp_path / "runner-temp" / "alibaba-oidc-token"
    assert token.read_text() == "id-token-1\n"
    assert stat.S_IMODE(token.stat().st_mode) == 0o600
    deadline = time.monotonic() + 10
    while token.read_text() == "id-token-1\n" and time.monotonic() < deadline:
        time.sleep(0.2)
    assert token.read_text() != "id-token-1\n", "the refresher rewrites the token before it expires"


def test_ack_ram_tool_serves_the_credentials_from_the_oidc_variables_on_loopback(signed_in):
    tmp_path, result = signed_in
    assert result.returncode == 0, result.stdout + result.stderr
    # The stand-in curl answers the script's readiness probe before the background server has logged its start.
    deadline = time.monotonic() + 10
    while not (serving := served(tmp_path)) and time.monotonic() < deadline:
        time.sleep(0.1)
    calls = (tmp_path / "calls.log").read_text().splitlines()
    (serve,) = serving
    token_file = tmp_path / "runner-temp" / "alibaba-oidc-token"
    assert serve == (
        "ack-ram-tool export-credentials --serve 127.0.0.1:6666 role=acs:ram::123:role/github-preview "
        f"idp=acs:ram::123:oidc-provider/github file={token_file}"
    )
    assert "Authorization: bearer request-token" in calls[0], "the request token, never on a URL"
    assert "request-token" not in result.stdout + result.stderr


@pytest.mark.parametrize("unset", ["ALIBABA_CLOUD_ROLE_ARN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN"])
def test_a_missing_variable_stops_the_job_naming_it(tmp_path, unset):
    result = run(tmp_path, **{unset: ""})
    assert result.returncode == 1
    assert result.stdout.startswith(f"::error::Alibaba Cloud OIDC sign-in: {unset} unset")
    assert not (tmp_path / "runner-temp" / "alibaba-oidc-token").exists()
