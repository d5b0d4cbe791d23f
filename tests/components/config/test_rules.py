"""Rule ids: every check is registered once, and a violation raised inside it carries its id to the message."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from components.config import rules
from components.config.base import ConfigError, Problem, RuleViolation
from components.config.rules import RULES, first_sentence, rule
from tests.support import PROJECT_ROOT
from tests.support.config import as_config
from tools import rules_reference

CONFIG = PROJECT_ROOT / "components" / "config"


def test_a_violation_raised_inside_a_rule_carries_its_id_and_an_inner_rule_wins():
    @rule("test.inner")
    def inner() -> None:
        raise RuleViolation("key", 1, "no")

    @rule("test.outer")
    def outer(inner_first: bool) -> None:
        if inner_first:
            inner()
        raise ValueError("plain")

    with pytest.raises(RuleViolation) as caught:
        outer(True)
    assert caught.value.rule == "test.inner"
    with pytest.raises(ValueError, match="plain") as plain:
        outer(False)
    assert plain.value.rule == "test.outer"  # type: ignore[attr-defined]
    for rule_id in ("test.inner", "test.outer"):
        del RULES[rule_id]


def test_one_id_names_one_check():
    with pytest.raises(ValueError, match="is used by"):
        rule("stack.one-kueue-target")(lambda: None)
    with pytest.raises(ValueError, match="kebab-case"):
        rule("Stack_Rule")(lambda: None)


def test_the_message_ends_each_problem_with_its_rule():
    error = ConfigError([Problem("a", "bad", "x.one"), ("b", "worse")], rule="x.two")
    assert str(error) == "a: bad [rule: x.one]; b: worse [rule: x.two]"
    assert error.problems == [("a", "bad"), ("b", "worse")] and error.rules == ["x.one", "x.two"]


def test_a_loaded_stack_names_the_rule_it_broke():
    from components.config.loader import load_stack_config

    with pytest.raises(ConfigError) as caught:
        load_stack_config(
            as_config({"aks": {"preset": "aks-walkthrough"}, "smokeJob": {"enabled": True, "localQueue": "nope"}})
        )
    assert caught.value.rules == ["stack.smoke-job-targets-a-local-queue-and-pool"]
    assert str(caught.value).endswith("[rule: stack.smoke-job-targets-a-local-queue-and-pool]")


def test_first_sentence_keeps_abbreviations_and_markup():
    assert first_sentence("A ``x``, e.g. 2: the rest. Then more.") == "A ``x``, e.g. 2: the rest"


def _validator_functions(tree: ast.Module) -> list[ast.FunctionDef]:
    """Functions pydantic runs as validators: decorated model or field validators, and AfterValidator arguments."""
    referenced = {
        node.args[0].id
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and getattr(node.func, "id", None) in ("AfterValidator", "BeforeValidator")
        and node.args
        and isinstance(node.args[0], ast.Name)
    }
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            decorators = [ast.unparse(d) for d in node.decorator_list]
            if node.name in referenced or any(d.startswith(("model_validator", "field_validator")) for d in decorators):
                found.append((node, decorators))
    return [node for node, decorators in found if not any(d.startswith("rule(") for d in decorators)]


FILL_INS = {"_names_from_the_stack"}
"""Validators that only fill in defaults and refuse nothing. (base.py's ``matching`` stamps its own id.)"""


@pytest.mark.parametrize("path", sorted(set(CONFIG.glob("*.py")) - {CONFIG / "base.py"}), ids=lambda p: p.name)
def test_every_validator_is_a_registered_rule(path: Path):
    missing = [f.name for f in _validator_functions(ast.parse(path.read_text())) if f.name not in FILL_INS]
    assert missing == [], f"decorate these with @rule(...) in {path.name}"


def test_every_rule_says_what_it_checks():
    assert [r.id for r in rules_reference.load_all().values() if not r.checks] == []
    assert all(rule_id.count(".") >= 1 for rule_id in rules.RULES)
