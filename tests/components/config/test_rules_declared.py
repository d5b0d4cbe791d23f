"""The rules raised outside a decorated check: each names a real function, and that function raises its id."""

from __future__ import annotations

import importlib
import inspect

from components.config import rules_declared
from components.config.rules import RULES, Rule

DECLARED = [r for r in RULES.values() if r.function is None and not r.where.startswith("pydantic:")]


def test_the_module_declares_the_raw_value_and_deploy_rules():
    assert rules_declared.NAMESPACE == "config.namespace"
    assert {"deploy.ack-existing-cluster", "stack-file.readable", "tool.kueue-chart"} <= set(RULES)


def names_where_it_is_raised(entry: Rule) -> bool:
    """``entry.where`` is a function of a module whose source names the rule, by its id or its constant."""
    module_name, _, qualname = entry.where.partition(":")
    module = importlib.import_module(module_name)
    target = module
    for part in qualname.split("."):
        target = getattr(target, part)
    source = inspect.getsource(module)
    constant = next((name for name, value in vars(rules_declared).items() if value == entry.id), None)
    return entry.id in source or (constant is not None and constant in source)


def test_a_declared_rule_names_the_function_that_raises_it():
    assert DECLARED and [entry.where for entry in DECLARED if not names_where_it_is_raised(entry)] == []
