"""The bad-input corpus: every stack file in tests/cases/invalid/ is refused by the render tool with exit code 2 and
one line naming the key, and every one in tests/cases/valid/ renders.

Each invalid file is a shipped stack with one mistake. Its first line says what the error must contain:

    # expect: <full key, or file:line for a YAML syntax error> | <fragment of the message> [| <the bad value>]

The line starts with the file's ``path:line:column``, then (for a key) the key itself, and every problem in it ends in
the id of a registered rule.

A corpus, rather than one test per rule, so a mistake anyone can make is one small file to add, and a reviewer reads
the stack file exactly as a user would have written it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from components import yaml_text
from components.config.base import ConfigError
from components.config.rules import RULES
from tests.support import PROJECT_ROOT
from tests.support.schemas import validate_kueue
from tests.support.stacks import kueue_version
from tools import render, stack_file, stack_locations

CASES = PROJECT_ROOT / "tests" / "cases"
INVALID = sorted((CASES / "invalid").glob("Pulumi.*.yaml"))
VALID = sorted((CASES / "valid").glob("Pulumi.*.yaml"))


def expectation(path: Path) -> list[str]:
    """The ``# expect:`` line's parts: key, fragment and, where there is one, the bad value."""
    first = path.read_text().splitlines()[0]
    assert first.startswith("# expect: "), f"{path.name} must start with '# expect: <key> | <fragment>'"
    parts = [part.strip() for part in first.removeprefix("# expect: ").split(" | ")]
    assert len(parts) in (2, 3) and all(parts), f"{path.name}: {first}"
    return parts


def unruled(text: str) -> list[str]:
    """``[text]`` unless it ends in the id of a registered rule, ``[rule: <id>]``."""
    named = re.findall(r"\[rule: ([a-z0-9.-]+)\]$", text)
    return [] if named and named[0] in RULES else [text]


def test_the_corpus_is_large_enough():
    assert len(INVALID) >= 60
    assert len(VALID) >= 10


@pytest.mark.parametrize("path", INVALID, ids=[p.name for p in INVALID])
def test_an_invalid_stack_file_exits_2_with_one_line_naming_the_key(path, tmp_path, capsys, monkeypatch):
    key, fragment, *value = expectation(path)
    refused: list[ConfigError] = []
    locate = stack_locations.locate

    def recorded(error: ConfigError, source: stack_file.StackFile) -> ConfigError:
        refused.append(error)
        return locate(error, source)

    monkeypatch.setattr(stack_locations, "locate", recorded)
    assert render.main([str(path), "--out", str(tmp_path / "out")]) == 2
    error = capsys.readouterr().err
    assert error.startswith("error: ") and error.endswith("\n") and error.count("\n") == 1, error
    where = rf"error: {re.escape(str(path))}:\d+:\d+: "
    assert re.match(where if key.startswith(path.name) else rf"{where}{re.escape(key)}: ", error), error
    assert key in error, error
    assert fragment in error, error
    assert all(v in error for v in value), error
    assert "Traceback" not in error
    assert not (tmp_path / "out").exists(), "nothing is written for an invalid stack"
    assert unruled(error.rstrip("\n")) == [], "the line must end in a registered [rule: <id>]"
    # and so must each problem of the refusal printed: the last one located (a stack file that cannot be read is the
    # one problem of the line), whether the rule is the problem's own or, for a deploy-time check, in its message
    assert [problem for problem in (refused[-1].problems if refused else []) if unruled(str(problem))] == []


@pytest.mark.parametrize("path", VALID, ids=[p.name for p in VALID])
def test_a_legal_variation_renders_objects_the_api_server_accepts(path, tmp_path, capsys):
    """The CRDs' OpenAPI schema and CEL rules hold for every Kueue object a legal variation renders."""
    assert render.main([str(path), "--out", str(tmp_path / "out")]) == 0, capsys.readouterr().err
    assert (tmp_path / "out" / "plan.json").is_file()
    for manifest_file in (tmp_path / "out" / "manifests").rglob("*.yaml"):
        manifest = yaml_text.load(manifest_file.read_text())
        if str(manifest["apiVersion"]).startswith("kueue.x-k8s.io/"):
            validate_kueue(manifest, kueue_version(path))
