"""Ephemeral stacks' settings files: what a template hands a stack, and which stacks ``up`` and ``down`` refuse (never
a template's settings file, a committed one, or one ``up`` did not write), with the fake workspace and with the real
workspace's files in a real temporary git checkout."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from components import yaml_text
from tests.support import PROJECT_ROOT
from tests.support.ephemeral import TEMPLATE, TEMPLATE_FILE, FakeStack, FakeWorkspace, runner, write_template
from tools import ephemeral_settings
from tools.ephemeral import NOTHING_DONE, OK, main
from tools.ephemeral_settings import HEADER, Template, UsageError
from tools.ephemeral_workspace import AutomationWorkspace

TEMPLATE_TEXT = "# a template: its comments matter\n" + yaml_text.dump(TEMPLATE_FILE, sort_keys=True)
WRITES = ("create_or_select", "write_settings", "set_secret", "up", "destroy", "remove")


def test_the_template_copies_only_config_and_esc_environments(tmp_path):
    document = {**TEMPLATE_FILE, "encryptionsalt": "v1:template-own", "secretsprovider": "passphrase"}
    assert ephemeral_settings.load_template(tmp_path / write_template(tmp_path, document)) == TEMPLATE


def test_the_shipped_templates_are_usable():
    names = [p.name for p in sorted((PROJECT_ROOT / "stacks").glob("Pulumi.ephemeral*.yaml"))]
    assert names == ["Pulumi.ephemeral-shared.yaml", "Pulumi.ephemeral.yaml"]
    for name in names:
        assert ephemeral_settings.load_template(PROJECT_ROOT / "stacks" / name).settings["config"], name


def writes(workspace: FakeWorkspace) -> list[str]:
    return [event for event in workspace.events if event.startswith(WRITES)]


def template_at(workspace: FakeWorkspace, stack: str) -> Template:
    """The fake stack's own settings file is the template, as ``--stack ephemeral`` makes it."""
    return Template(TEMPLATE.settings, path=workspace.settings_path(stack))


@pytest.mark.parametrize(
    "command",
    [
        lambda r, t: r.up("ephemeral", t),
        lambda r, t: r.down("ephemeral", t),
        lambda r, t: r.check("ephemeral", t, destroy_on_failure=True),
    ],
    ids=["up", "down", "check --destroy-on-failure"],
)
def test_the_template_itself_is_never_a_target(command):
    workspace = FakeWorkspace()
    workspace.files["ephemeral"] = TEMPLATE_TEXT
    workspace.stacks["ephemeral"] = FakeStack(workspace, "ephemeral")
    with pytest.raises(UsageError, match=r"Pulumi\.ephemeral\.yaml is the template itself"):
        command(runner(workspace), template_at(workspace, "ephemeral"))
    assert writes(workspace) == [] and workspace.files["ephemeral"] == TEMPLATE_TEXT


@pytest.mark.parametrize("command", ["up", "down"])
def test_a_settings_file_git_tracks_is_never_overwritten_or_deleted(command):
    workspace = FakeWorkspace()
    workspace.files["pr-1"] = ephemeral_settings.settings_text(
        TEMPLATE, None
    )  # even with the header: someone committed it
    workspace.tracked_files.add("pr-1")
    workspace.stacks["pr-1"] = FakeStack(workspace, "pr-1")
    with pytest.raises(UsageError, match="is tracked by git"):
        getattr(runner(workspace), command)("pr-1", TEMPLATE)
    assert writes(workspace) == []


@pytest.mark.parametrize("command", ["up", "down"])
def test_a_settings_file_without_the_header_up_writes_is_refused(command):
    workspace = FakeWorkspace()
    workspace.files["pr-1"] = TEMPLATE_TEXT  # an untracked copy of a template: kind ephemeral, but not up's
    workspace.stacks["pr-1"] = FakeStack(workspace, "pr-1")
    with pytest.raises(UsageError, match=r"was not written by `python -m tools\.ephemeral up`"):
        getattr(runner(workspace), command)("pr-1", TEMPLATE)
    assert writes(workspace) == [] and workspace.files["pr-1"] == TEMPLATE_TEXT


def test_down_deletes_only_a_file_that_up_wrote_but_up_adopts_what_stack_init_wrote():
    workspace = FakeWorkspace()
    workspace.files["pr-1"] = "encryptionsalt: v1:abc\n"  # `pulumi stack init` of a passphrase backend
    workspace.stacks["pr-1"] = FakeStack(workspace, "pr-1")
    with pytest.raises(UsageError, match="was not written by"):
        runner(workspace).down("pr-1", TEMPLATE)
    assert runner(workspace).up("pr-1", TEMPLATE) == OK
    assert workspace.files["pr-1"].startswith(HEADER + "\n")
    assert runner(workspace).down("pr-1", TEMPLATE) == OK and workspace.stacks == {}


def test_check_alone_may_read_the_template_stack():
    workspace = FakeWorkspace()
    workspace.files["ephemeral"] = TEMPLATE_TEXT
    workspace.tracked_files.add("ephemeral")
    workspace.stacks["ephemeral"] = FakeStack(workspace, "ephemeral")
    lines: list[str] = []
    runner(workspace, lines=lines).check("ephemeral", template_at(workspace, "ephemeral"))
    assert "== check ephemeral" in lines and writes(workspace) == []


def test_up_keeps_its_header_when_the_cli_rewrites_the_file_so_down_still_works():
    workspace = FakeWorkspace()
    workspace.cli_drops_comments = True  # a `pulumi config set` that does not keep the first comment
    assert runner(workspace).up("pr-1", TEMPLATE, secrets={"elastic-capacity:kubeconfig": "kc"}) == OK
    assert workspace.files["pr-1"].startswith(HEADER + "\n")
    assert runner(workspace).down("pr-1", TEMPLATE) == OK


def git(checkout: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(checkout), *args], check=True, capture_output=True)


@pytest.fixture
def checkout(tmp_path, monkeypatch) -> Path:
    """A git checkout of a project with the shipped template committed; no Pulumi CLI is ever started."""
    if shutil.which("git") is None:
        pytest.skip("git is not on PATH: install git (apt-get install git)")
    (tmp_path / "stacks").mkdir()
    (tmp_path / "Pulumi.yaml").write_text("name: elastic-capacity\nstackConfigDir: stacks\n")
    shutil.copy(PROJECT_ROOT / "stacks/Pulumi.ephemeral.yaml", tmp_path / "stacks")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".")
    git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "templates")

    def no_cli(*args: Any, **kwargs: Any):
        raise AssertionError("the Pulumi CLI was started")

    for name in ("create_or_select_stack", "select_stack", "LocalWorkspace"):
        monkeypatch.setattr(f"pulumi.automation.{name}", no_cli)
    return tmp_path


@pytest.mark.parametrize("command", ["up", "down"])
def test_in_a_git_checkout_the_committed_template_is_refused_and_left_as_it_is(checkout, capsys, command):
    template = checkout / "stacks/Pulumi.ephemeral.yaml"
    before = template.read_text()
    argv = [command, "--stack", "ephemeral", "--template", str(template)]
    assert main(argv, workspace=AutomationWorkspace(checkout)) == NOTHING_DONE
    assert "is the template itself" in capsys.readouterr().err and template.read_text() == before


def test_in_a_git_checkout_git_answers_which_settings_files_are_tracked(checkout):
    workspace = AutomationWorkspace(checkout)
    workspace.write_settings("pr-1", ephemeral_settings.settings_text(TEMPLATE, None))
    assert workspace.tracked("ephemeral") and not workspace.tracked("pr-1") and not workspace.tracked("org/pr-2")
    git(checkout, "add", "stacks/Pulumi.pr-1.yaml")  # added, not yet committed: still git's
    assert workspace.tracked("org/pr-1")
    with pytest.raises(UsageError, match=r"Pulumi\.pr-1\.yaml is tracked by git"):
        runner(workspace).down("pr-1")


def test_without_git_the_header_alone_protects_a_template_copy(checkout, monkeypatch, capsys):
    shutil.rmtree(checkout / ".git")
    workspace = AutomationWorkspace(checkout)
    assert not workspace.tracked("ephemeral")
    shutil.copy(checkout / "stacks/Pulumi.ephemeral.yaml", checkout / "stacks/Pulumi.my-template.yaml")
    monkeypatch.setenv("PATH", "")  # and no git at all
    assert not workspace.tracked("my-template")
    template = write_template(checkout, TEMPLATE_FILE)
    assert main(["down", "--stack", "my-template", "--template", template], workspace=workspace) == NOTHING_DONE
    assert "was not written by" in capsys.readouterr().err
    assert (checkout / "stacks/Pulumi.my-template.yaml").is_file()
