"""The bad-input corpus: every stack file in tests/cases/invalid/ is refused by the render tool with exit code 2 and
one line naming the key, and every one in tests/cases/valid/ renders.

Each invalid file is a shipped stack with one mistake. Its first line says what the error must contain:

    # expect: <full key, or file:line for a YAML syntax error> | <fragment of the message> [| <the bad value>]

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
from tools import render, rules_reference, stack_file

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


def test_the_corpus_is_large_enough():
    assert len(INVALID) >= 60
    assert len(VALID) >= 10


@pytest.mark.parametrize("path", INVALID, ids=[p.name for p in INVALID])
def test_an_invalid_stack_file_exits_2_with_one_line_naming_the_key(path, tmp_path, capsys):
    key, fragment, *value = expectation(path)
    assert render.main([str(path), "--out", str(tmp_path / "out")]) == 2
    error = capsys.readouterr().err
    assert error.startswith("error: ") and error.endswith("\n") and error.count("\n") == 1, error
    assert key in error, error
    assert fragment in error, error
    assert all(v in error for v in value), error
    assert "Traceback" not in error
    assert not (tmp_path / "out").exists(), "nothing is written for an invalid stack"
    named = re.findall(r"\[rule: ([a-z0-9.-]+)\]$", error.rstrip("\n"))
    assert named and named[0] in RULES, f"the line must end in a registered [rule: <id>]: {error}"


@pytest.mark.parametrize("path", INVALID, ids=[p.name for p in INVALID])
def test_every_problem_of_an_invalid_stack_file_carries_a_registered_rule(path):
    rules_reference.load_all()  # a stack refused only while the program runs: the test above names its rule
    try:
        render.validate(stack_file.read(path))
    except ConfigError as error:
        assert error.problems and all(rule in RULES for rule in error.rules), error.rules


@pytest.mark.parametrize("path", VALID, ids=[p.name for p in VALID])
def test_a_legal_variation_renders_objects_the_api_server_accepts(path, tmp_path, capsys):
    """The CRDs' OpenAPI schema and CEL rules hold for every Kueue object a legal variation renders."""
    assert render.main([str(path), "--out", str(tmp_path / "out")]) == 0, capsys.readouterr().err
    assert (tmp_path / "out" / "plan.json").is_file()
    for manifest_file in (tmp_path / "out" / "manifests").rglob("*.yaml"):
        manifest = yaml_text.load(manifest_file.read_text())
        if str(manifest["apiVersion"]).startswith("kueue.x-k8s.io/"):
            validate_kueue(manifest, kueue_version(path))
