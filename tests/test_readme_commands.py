"""The README's commands, run: every ```bash block (the set-up, then the quick start), in order, in one shell, in a
copy of the repository's stack files, against stand-ins for ``pulumi``, ``kind``, ``az`` and ``python3`` that fail
where the real tools fail (tests/support/standins/). No terminal: a command that would wait at a prompt fails."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from components import yaml_text
from tests.support import PROJECT_ROOT

README = (PROJECT_ROOT / "README.md").read_text()
STANDINS = PROJECT_ROOT / "tests" / "support" / "standins"
CI_STACKS = set(json.loads((PROJECT_ROOT / "deploy" / "stacks.json").read_text())["stacks"])
"""The stacks CI deploys: a newcomer's commands never select one."""


def blocks() -> list[str]:
    return re.findall(r"^```bash\n(.*?)^```", README, re.S | re.M)


def tracked_stack_files() -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "stacks"], cwd=PROJECT_ROOT, capture_output=True, text=True, check=True
    ).stdout
    return sorted(name for name in listed.splitlines() if re.fullmatch(r"stacks/Pulumi\.[^/]+\.yaml", name))


def install(tmp_path: Path) -> Path:
    """The stand-ins in a directory of their own, each started by the interpreter running the tests."""
    bin_dir = tmp_path / "standins"
    bin_dir.mkdir()
    for tool, source in (("pulumi", "pulumi"), ("kind", "recorder"), ("az", "recorder"), ("python3", "recorder")):
        text = (STANDINS / source).read_text().split("\n", 1)[1]
        (bin_dir / tool).write_text(f"#!{sys.executable}\n{text}")
        (bin_dir / tool).chmod(0o755)
    return bin_dir


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> dict[str, Any]:
    tmp_path = tmp_path_factory.mktemp("readme")
    repo = tmp_path / "repo"
    (repo / "stacks").mkdir(parents=True)
    shutil.copy(PROJECT_ROOT / "Pulumi.yaml", repo)
    for name in tracked_stack_files():
        shutil.copy(PROJECT_ROOT / name, repo / name)
    (tmp_path / "home").mkdir()
    log = tmp_path / "calls.jsonl"
    log.touch()
    env = {
        "PATH": f"{install(tmp_path)}:/usr/bin:/bin",
        "HOME": str(tmp_path / "home"),
        "USER": "newcomer",
        "LANG": "C.UTF-8",
        "STANDIN_LOG": str(log),
        "STANDIN_STATE": str(tmp_path / "state"),
    }
    script = "\n".join(blocks())
    result = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", script],
        cwd=repo,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    return {"result": result, "calls": calls, "repo": repo}


def test_the_readme_has_the_set_up_block_and_the_quick_start_blocks():
    assert len(blocks()) >= 3, "the set-up, the local cluster and Azure"


def test_every_readme_command_runs_without_a_prompt_in_order(run):
    result = run["result"]
    assert result.returncode == 0, f"rc {result.returncode}\n{result.stderr}"


def test_the_readme_never_selects_a_stack_ci_deploys(run):
    selected = [call["selected"] for call in run["calls"] if "selected" in call]
    assert selected, "the quick start selects its stacks"
    assert not set(selected) & CI_STACKS, selected


def test_the_readme_leaves_every_tracked_stack_file_as_it_was(run):
    changed = [n for n in tracked_stack_files() if (run["repo"] / n).read_bytes() != (PROJECT_ROOT / n).read_bytes()]
    assert not changed, f"written by the quick start (encryptionsalt, secrets): {changed}"


def test_every_stack_the_readme_deploys_is_throwaway_and_in_a_gitignored_file(run):
    ups = [call for call in run["calls"] if call.get("operation") == "up"]
    assert ups
    for up in ups:
        environment = up["document"].get("config", {}).get("elastic-capacity:environment", {})
        assert environment.get("kind") == "ephemeral", f"{up['stack']}: names not suffixed, not all destroyable"
        ignored = subprocess.run(["git", "check-ignore", "-q", "--no-index", up["file"]], cwd=PROJECT_ROOT, check=False)
        assert ignored.returncode == 0, f"{up['file']} is not gitignored: a newcomer could commit it"


def test_the_readme_cleans_up_what_it_made(run):
    shipped = {Path(name).name for name in tracked_stack_files()}
    leftovers = sorted({path.name for path in (run["repo"] / "stacks").iterdir()} - shipped)
    assert not leftovers
    state = json.loads((Path(run["repo"]).parent / "state" / "pulumi.json").read_text())
    assert state["stacks"] == []
    kind = [call["argv"][:2] for call in run["calls"] if call["tool"] == "kind"]
    assert kind.count(["create", "cluster"]) == kind.count(["delete", "cluster"])


def test_shipped_stack_files_hold_no_per_stack_secrets_settings():
    """A committed encryptionsalt switches every backend's stack to the passphrase secrets manager
    (pulumi's getStackSecretsManager), and CI's previews and deploys then fail asking for a passphrase."""
    held = {
        name: sorted(set(document) & {"encryptionsalt", "encryptedkey", "secretsprovider"})
        for name in tracked_stack_files()
        if isinstance(document := yaml_text.load((PROJECT_ROOT / name).read_text()), dict)
    }
    assert not {name: keys for name, keys in held.items() if keys}


def test_a_personal_stack_file_is_gitignored_and_never_tested_as_shipped():
    """The quick start leaves stacks/Pulumi.dev-<you>-….yaml in a checkout until `pulumi stack rm`: the suite must
    still pass there."""
    from tests.support.stacks import PERSONAL, STACKS

    probe = PROJECT_ROOT / "stacks" / "Pulumi.dev-newcomer-kind.yaml"
    assert probe.match(PERSONAL) and probe not in STACKS
    ignored = subprocess.run(["git", "check-ignore", "-q", "--no-index", str(probe)], cwd=PROJECT_ROOT, check=False)
    assert ignored.returncode == 0
