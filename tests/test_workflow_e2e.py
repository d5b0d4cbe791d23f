"""The e2e workflow: every pull request, no secret, pinned tools, and the steps tools/e2e.py needs before it runs.

Its kind install step is run here with a stand-in ``curl``: it must refuse a binary whose checksum is not the pinned
one, and a release whose published checksum differs from the pin.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support import PROJECT_ROOT
from tests.support.workflows import LOCK_INSTALL, load, steps
from tools import e2e

TEXT = (PROJECT_ROOT / ".github/workflows/e2e.yml").read_text()
WORKFLOW = load("e2e.yml")
JOB = WORKFLOW["jobs"]["kind"]


def step(needle: str) -> tuple[int, dict[str, Any]]:
    return next((i, s) for i, s in enumerate(steps(JOB)) if needle in s.get("run", "") + s.get("uses", ""))


def test_it_runs_on_every_pull_request_and_by_hand_on_a_hosted_runner_within_45_minutes():
    assert WORKFLOW["on"] == {"pull_request": None, "workflow_dispatch": None}
    assert list(WORKFLOW["jobs"]) == ["kind"]
    assert JOB["runs-on"] == "ubuntu-latest" and JOB["timeout-minutes"] == 45


def test_it_reads_the_repository_and_nothing_else_and_uses_no_secret():
    assert WORKFLOW["permissions"] == {} and JOB["permissions"] == {"contents": "read"}
    assert "secrets." not in TEXT and "vars." not in TEXT and "PULUMI_ACCESS_TOKEN" not in TEXT
    assert step("actions/checkout")[1]["with"] == {"persist-credentials": False}


def test_the_pulumi_action_only_installs_the_cli_the_sdk_is_pinned_to():
    assert step("pulumi/actions")[1]["with"] == {"pulumi-version-file": "deploy/ci/pulumi-version"}


def test_the_project_kind_and_the_cli_are_installed_before_the_e2e_steps_run():
    install, _ = step(LOCK_INSTALL)
    assert "python3 -m venv .venv" in steps(JOB)[install]["run"] and '.venv/bin" >> "$GITHUB_PATH"' in TEXT
    cli, _ = step("pulumi/actions")
    kind, _ = step("kind-linux-amd64")
    last = len(steps(JOB)) - 1
    assert steps(JOB)[last]["run"] == "python -m tools.e2e run --policy-pack policies"
    policy, _ = step("-r policies/requirements.txt")
    assert max(install, cli, kind) < last and install < policy < last, "the pack's requirements go into the .venv"


def test_kind_is_the_release_whose_node_image_the_e2e_steps_pin():
    assert JOB["env"]["KIND_VERSION"] == e2e.KIND_VERSION
    assert re.fullmatch(r"[0-9a-f]{64}", JOB["env"]["KIND_SHA256"])


def run_install(tmp_path: Path, binary: bytes, published: str) -> subprocess.CompletedProcess[str]:
    """The kind install step with a ``curl`` that serves ``binary`` and the release's ``published`` checksum file."""
    fake = tmp_path / "fake-bin"
    fake.mkdir()
    (tmp_path / "kind-binary").write_bytes(binary)
    (tmp_path / "kind.sha256sum").write_text(f"{published}  kind-linux-amd64\n")
    (fake / "curl").write_text(
        "#!/usr/bin/env bash\n"
        'while [ "$1" != "--output" ]; do shift; done\n'
        'case "$3" in\n'
        f'  *.sha256sum) cp {tmp_path}/kind.sha256sum "$2" ;;\n'
        f'  */kind/releases/download/{e2e.KIND_VERSION}/kind-linux-amd64) cp {tmp_path}/kind-binary "$2" ;;\n'
        "  *) exit 22 ;;\n"
        "esac\n"
    )
    (fake / "curl").chmod(0o755)
    runner_temp = tmp_path / "runner"
    runner_temp.mkdir()
    env = {
        **os.environ,
        **JOB["env"],
        "PATH": f"{fake}:{os.environ['PATH']}",
        "RUNNER_TEMP": str(runner_temp),
        "GITHUB_PATH": str(tmp_path / "github_path"),
    }
    return subprocess.run(
        ["bash", "-e", "-c", step("kind-linux-amd64")[1]["run"]], env=env, capture_output=True, text=True
    )


# A stand-in kind: prints its version, as the step's last command asks.
KIND = b"#!/bin/sh\necho kind v0.31.0\n"


def test_the_kind_install_step_installs_a_binary_with_the_pinned_checksum(tmp_path, monkeypatch):
    monkeypatch.setitem(JOB["env"], "KIND_SHA256", hashlib.sha256(KIND).hexdigest())
    result = run_install(tmp_path, KIND, hashlib.sha256(KIND).hexdigest())
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "github_path").read_text() == f"{tmp_path / 'runner' / 'bin'}\n"
    assert "kind v0.31.0" in result.stdout


@pytest.mark.parametrize("what", ["binary", "published"])
def test_the_kind_install_step_refuses_a_checksum_that_is_not_the_pinned_one(tmp_path, monkeypatch, what):
    monkeypatch.setitem(JOB["env"], "KIND_SHA256", hashlib.sha256(KIND).hexdigest())
    binary = KIND + (b"# tampered\n" if what == "binary" else b"")
    published = "0" * 64 if what == "published" else hashlib.sha256(KIND).hexdigest()
    result = run_install(tmp_path, binary, published)
    assert result.returncode != 0
    assert not (tmp_path / "github_path").exists(), "nothing is put on the PATH"
