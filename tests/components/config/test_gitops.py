"""The ``gitops`` section: render the Kubernetes objects instead of applying them."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from components.config.gitops import GITIGNORE, GitOpsConfig
from tests.support import PROJECT_ROOT
from tests.support.config import model_error_keys

TRACKED = ["gitops", "rendered", "deploy/gitops", "gitops/out", "outs", "gitops/render"]
"""Directories git commits: ``/out/`` and ``/render/`` are anchored at the project's root."""


def test_unset_applies_the_objects():
    assert not GitOpsConfig().renders


def test_a_directory_renders_them():
    config = GitOpsConfig.model_validate({"renderToDirectory": "gitops/manifests"})
    assert config.renders and config.render_to_directory == "gitops/manifests"


def test_an_empty_directory_is_refused_naming_the_key():
    assert model_error_keys(GitOpsConfig, {"renderToDirectory": ""}) == ["renderToDirectory"]


@pytest.mark.parametrize("directory", ["out", "./out/", "render", "render/aks", "gitops/__pycache__", ".git/gitops"])
def test_a_directory_git_would_not_commit_is_refused_naming_the_key(directory):
    """The GitOps workflow commits the render with ``git add``, which fails on an ignored path."""
    assert model_error_keys(GitOpsConfig, {"renderToDirectory": directory}) == ["renderToDirectory"]


def test_the_rule_holds_the_projects_gitignore():
    lines = (PROJECT_ROOT / ".gitignore").read_text().splitlines()
    assert tuple(line for line in lines if line.strip() and not line.startswith("#")) == GITIGNORE


def refused(directory: str) -> bool:
    try:
        GitOpsConfig.model_validate({"renderToDirectory": directory})
    except ValueError:
        return True
    return False


def test_a_directory_is_refused_exactly_when_git_ignores_it(tmp_path):
    """``git check-ignore`` on a file in each directory, with the project's .gitignore: every pattern's own
    directory, at the root and deeper, and directories it must not catch."""
    if shutil.which("git") is None:
        pytest.skip("git is not on PATH: install git (apt-get install git)")
    shutil.copy(PROJECT_ROOT / ".gitignore", tmp_path)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    named = [pattern.strip("/").replace("*", "x") for pattern in GITIGNORE]
    candidates = [*named, *(f"gitops/{name}" for name in named), *TRACKED]
    files = [str(Path(directory, "file")) for directory in candidates]
    checked = subprocess.run(
        ["git", "check-ignore", "--no-index", *files], cwd=tmp_path, capture_output=True, text=True
    )
    ignored = {str(Path(line).parent) for line in checked.stdout.splitlines()}
    assert {"out", "render", "gitops/__pycache__"} <= ignored and not ignored & set(TRACKED)
    assert [directory for directory in candidates if refused(directory) != (directory in ignored)] == []
