"""The runner's command line as its help promises it: exit codes, one-line failures, the secrets it sets, and usage
text that cannot drift from the parser."""

from __future__ import annotations

import argparse
import re
import shlex

import pytest
from pulumi.automation import CommandError, CommandResult

from components import yaml_text
from tests.support import PROJECT_ROOT
from tests.support.ephemeral import TEMPLATE, TEMPLATE_FILE, FakeStack, FakeWorkspace, runner, write_template
from tools import ephemeral
from tools.ephemeral import FAILED, NOTHING_DONE, OK, RESOURCES_MAY_REMAIN, build_parser, main

NO_CLI = FileNotFoundError(2, "No such file or directory", "pulumi")  # what subprocess raises without the CLI


class BrokenWorkspace(FakeWorkspace):
    """A workspace whose Automation API calls fail as named."""

    def __init__(self, **failures: Exception) -> None:
        super().__init__()
        self.failures = failures

    def _fail(self, name: str) -> None:
        if name in self.failures:
            raise self.failures[name]

    def create_or_select(self, stack: str) -> FakeStack:
        self._fail("create_or_select")
        return super().create_or_select(stack)

    def select(self, stack: str) -> FakeStack | None:
        self._fail("select")
        return super().select(stack)

    def remove(self, stack: str) -> None:
        self._fail("remove")
        super().remove(stack)


def test_up_without_the_pulumi_cli_did_nothing_so_it_exits_2_without_a_clean_up(tmp_path, capsys):
    workspace = BrokenWorkspace(create_or_select=NO_CLI)
    argv = ["up", "--stack", "pr-1", "--template", write_template(tmp_path, TEMPLATE_FILE), "--destroy-on-failure"]
    assert main(argv, workspace=workspace) == NOTHING_DONE
    out = capsys.readouterr().out
    assert "FAILED  create or select stack pr-1: the Pulumi CLI is not installed or not on PATH" in out
    assert "--destroy-on-failure" not in out and workspace.events == [] and workspace.files == {}


@pytest.mark.parametrize(
    ("error", "said"),
    [
        (NO_CLI, "the Pulumi CLI is not installed"),
        (CommandError(CommandResult("", "error: PULUMI_ACCESS_TOKEN must be set for login", 255)), "exit 255"),
    ],
)
def test_check_reports_a_cli_or_backend_error_on_one_line_instead_of_a_traceback(tmp_path, capsys, error, said):
    workspace = BrokenWorkspace(select=error)
    argv = ["check", "--stack", "pr-1", "--template", write_template(tmp_path, TEMPLATE_FILE)]
    assert main(argv, workspace=workspace) == NOTHING_DONE
    [line] = capsys.readouterr().out.splitlines()
    assert line.startswith("FAILED  select stack pr-1: ") and said in line


def test_a_cli_failure_quotes_only_its_last_lines_not_the_whole_streamed_output():
    workspace, lines = FakeWorkspace(), []
    stdout = "\n".join(f"+ resource {n}" for n in range(200))
    stderr = "warning: a\nerror: b\n  at c\nerror: update failed\n"
    workspace.create_or_select("pr-1").up_error = CommandError(CommandResult(stdout, stderr, 255))
    assert runner(workspace, lines=lines).up("pr-1", TEMPLATE) == FAILED
    assert lines[-1] == "FAILED  up pr-1: CommandError (exit 255): error: b | at c | error: update failed"
    assert not any("resource 17" in line for line in lines)


def test_a_failure_line_falls_back_to_the_last_stdout_lines_when_stderr_is_empty():
    error = CommandError(CommandResult("a\nb\nerror: preview failed", "", 1))
    assert ephemeral.describe(error) == "CommandError (exit 1): a | b | error: preview failed"
    assert ephemeral.describe(RuntimeError("two\nlines")) == "RuntimeError: two lines"


@pytest.mark.parametrize(
    ("failures", "destroy_errors", "code"),
    [
        ({}, [], OK),
        ({"select": NO_CLI}, [], NOTHING_DONE),  # nothing was done: whatever existed is as it was
        ({}, [RuntimeError("DependencyViolation")] * 2, RESOURCES_MAY_REMAIN),  # the stack is kept
        ({"remove": RuntimeError("backend")}, [], FAILED),  # the resources are gone, the empty stack is not
    ],
    ids=["ok", "no CLI", "destroy failed", "remove failed"],
)
def test_down_exit_codes(failures, destroy_errors, code):
    workspace = BrokenWorkspace(**failures)
    workspace.stacks["pr-1"] = FakeStack(workspace, "pr-1")
    workspace.stacks["pr-1"].destroy_errors = list(destroy_errors)
    assert runner(workspace).down("pr-1", TEMPLATE) == code


def test_a_clean_up_that_cannot_start_leaves_resources_that_may_remain():
    workspace = BrokenWorkspace()
    workspace.create_or_select("pr-1").up_error = RuntimeError("quota exceeded")
    workspace.failures["select"] = NO_CLI
    assert runner(workspace).up("pr-1", TEMPLATE, destroy_on_failure=True) == RESOURCES_MAY_REMAIN


def test_a_template_that_is_not_yaml_is_a_usage_error(tmp_path, capsys):
    broken = tmp_path / "Pulumi.broken.yaml"
    broken.write_text("config:\n  a: [unclosed\n")
    assert main(["up", "--stack", "pr-1", "--template", str(broken)], workspace=FakeWorkspace()) == NOTHING_DONE
    assert "Pulumi.broken.yaml is not valid YAML" in capsys.readouterr().err


def test_every_secret_given_is_set_even_one_the_template_does_not_hold(tmp_path, monkeypatch, capsys):
    """The local template has no secure: kubeconfig (it is per stack, never in the file): --secret sets it."""
    workspace, template = FakeWorkspace(), write_template(tmp_path, TEMPLATE_FILE)
    monkeypatch.setenv("LOCAL_KUBECONFIG", "apiVersion: v1")
    monkeypatch.setenv("EMPTY", "")
    argv = ["up", "--stack", "pr-5", "--template", template, "--secret", "elastic-capacity:kubeconfig=LOCAL_KUBECONFIG"]
    assert main([*argv, "--secret", "elastic-capacity:other=EMPTY"], workspace=workspace) == OK
    assert [e for e in workspace.events if e.startswith("set_secret")] == ["set_secret elastic-capacity:kubeconfig"]
    assert workspace.stacks["pr-5"].secret_keys == {"elastic-capacity:kubeconfig"}
    assert "note    --secret elastic-capacity:other: EMPTY is unset or empty" in capsys.readouterr().out


def usage_flags(text: str) -> dict[str, list[str]]:
    """``python -m tools.ephemeral <command> ...`` lines (with their continuation lines) -> each command's flags."""
    flags: dict[str, list[str]] = {}
    command = None
    for line in text.splitlines():
        started = re.search(r"python -m tools\.ephemeral (\w+)", line)
        if started:
            command = started.group(1)
        elif not line.strip() or not line.startswith(" " * 20):
            command = None
        if command:
            flags.setdefault(command, []).extend(re.findall(r"--[a-z][a-z-]*", line))
    return flags


def parser_flags() -> dict[str, list[str]]:
    [commands] = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return {
        name: [option for action in sub._actions for option in action.option_strings if option.startswith("--")]
        for name, sub in commands.choices.items()
    }


def test_the_docstring_usage_lists_exactly_the_flags_each_command_takes():
    documented = usage_flags(ephemeral.__doc__ or "")
    assert {name: sorted(flags) for name, flags in documented.items()} == {
        name: sorted(set(flags) - {"--help"}) for name, flags in parser_flags().items()
    }


def test_the_operations_guide_shows_the_same_usage():
    guide = (PROJECT_ROOT / "docs/operations.md").read_text()
    [block] = [b for b in re.findall(r"```\w*\n(.*?)```", guide, re.DOTALL) if "python -m tools.ephemeral up" in b]
    assert usage_flags(block) == usage_flags(ephemeral.__doc__ or "")


def test_the_usage_shows_the_parsers_defaults_and_help_shows_every_default():
    [commands] = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    for name, sub in commands.choices.items():
        for action in sub._actions:
            if action.default in (None, False, [], argparse.SUPPRESS):
                continue
            assert "%(default)s" in (action.help or ""), (name, action.dest)
            shown = f"{action.option_strings[0]} {action.default:g}" if isinstance(action.default, float) else None
            assert shown is None or shown in " ".join((ephemeral.__doc__ or "").split()), shown
    assert "--template stacks/Pulumi.ephemeral.yaml" in (ephemeral.__doc__ or "")


def test_destroy_attempts_is_documented_for_down_and_for_destroy_on_failure():
    [commands] = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    for name in ("up", "check", "down"):
        [attempts] = [a for a in commands.choices[name]._actions if a.dest == "destroy_attempts"]
        assert "down" in attempts.help and "--destroy-on-failure" in attempts.help


def test_the_exit_codes_of_the_help_are_the_module_docstrings(capsys):
    with pytest.raises(SystemExit):
        main(["down", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert ephemeral.EXIT_CODES in out and "2 nothing was done" in out


def test_the_workflow_calls_parse_with_the_flags_each_command_takes():
    workflow = yaml_text.load((PROJECT_ROOT / ".github/workflows/ephemeral.yml").read_text())
    steps = [step for job in workflow["jobs"].values() for step in job["steps"]]
    runs = [step["run"] for step in steps if "tools.ephemeral" in step.get("run", "")]
    assert len(runs) == 3
    for run in runs:
        argv = shlex.split(run.replace('"$STACK"', "pr-1").replace('"$TEMPLATE"', "stacks/Pulumi.ephemeral.yaml"))
        build_parser().parse_args(argv[3:])  # exits 2 on a flag the command does not take
